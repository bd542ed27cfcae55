"""Draw benchmark-style region overlays and point markers into images.

SpatialUAV and BEDI images carry axis-aligned boxes drawn into the pixels with neutral labels ("Region 3" or a
bare "3"). This module draws such overlays in varied styles (colour, line width, label text, placement, font,
label background) so that the ground-truth generator can render benchmark instances and so that
:mod:`tools.regions.pipeline` can be measured on overlays whose geometry is known exactly.

Conventions: images are RGB ``uint8`` (H, W, 3); boxes are ``[x1, y1, x2, y2]`` in pixels (origin top-left);
a box's outline is centred on its coordinates (``cv2.rectangle`` semantics), so a box of line width ``t``
covers ``[x1 - t//2, x2 + t//2]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from tools.common import ToolError, load_image

RGB = tuple[int, int, int]

LABEL_POSITIONS = ("inside_top_left", "above", "below", "inside_center", "outside_left")
LABEL_FORMATS = ("Region {id}", "{id}")
FONTS = ("hershey_simplex", "hershey_duplex", "dejavu_sans", "dejavu_sans_bold")

# Saturated overlay colours of the kind benchmark renderers use (RGB).
PALETTE: tuple[RGB, ...] = (
    (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255),
    (255, 0, 255), (255, 128, 0), (255, 0, 128), (128, 0, 255), (0, 200, 100),
)

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_TTF_FILES = {"dejavu_sans": "DejaVuSans.ttf", "dejavu_sans_bold": "DejaVuSans-Bold.ttf"}
_HERSHEY = {"hershey_simplex": cv2.FONT_HERSHEY_SIMPLEX, "hershey_duplex": cv2.FONT_HERSHEY_DUPLEX,
            "hershey_plain": cv2.FONT_HERSHEY_PLAIN, "hershey_complex": cv2.FONT_HERSHEY_COMPLEX,
            "hershey_triplex": cv2.FONT_HERSHEY_TRIPLEX}
FONT_FILE_SUFFIXES = (".ttf", ".otf")
_CAP_PX_PER_SCALE = 22.0  # text height in pixels at font_scale 1 (matches cv2 Hershey simplex at scale 1)


@dataclasses.dataclass(frozen=True)
class RegionStyle:
    """How one region is drawn.

    color: outline colour (RGB). line_width: outline thickness in px. label_format: ``"Region {id}"`` or
    ``"{id}"``. label_position: one of :data:`LABEL_POSITIONS`. font_scale: text height is about
    ``22 * font_scale`` px. label_background: fill the label box with ``color``. label_color: text colour
    (RGB). font: one of :data:`FONTS`, another Hershey face (``hershey_plain``, ``hershey_complex``,
    ``hershey_triplex``) or the path of a TrueType/OpenType file (DejaVu falls back to Hershey when its file is
    missing).
    """

    color: RGB = (255, 0, 0)
    line_width: int = 3
    label_format: str = "Region {id}"
    label_position: str = "above"
    font_scale: float = 0.8
    label_background: bool = True
    label_color: RGB = (255, 255, 255)
    font: str = "hershey_simplex"

    def __post_init__(self) -> None:
        if self.label_position not in LABEL_POSITIONS:
            raise ValueError(f"label_position must be one of {LABEL_POSITIONS}, got {self.label_position!r}")
        if "{id}" not in self.label_format:
            raise ValueError(f"label_format must contain '{{id}}', got {self.label_format!r}")
        if not (self.font in FONTS or self.font in _HERSHEY or _font_file(self.font)):
            raise ValueError(f"font must be one of {FONTS + tuple(_HERSHEY)} or a .ttf/.otf file, got {self.font!r}")
        if self.line_width < 1 or self.font_scale <= 0:
            raise ValueError("line_width must be >= 1 px and font_scale > 0")


def contrast_text_color(color: RGB) -> RGB:
    """White or black, whichever reads better on ``color`` (Rec. 601 luma)."""
    luma = 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2]
    return (0, 0, 0) if luma > 150 else (255, 255, 255)


def random_style(rng: np.random.Generator) -> RegionStyle:
    """A random benchmark-like style: saturated colour, 2–5 px lines, either label format, any placement.

    Labels with a background use white/black text for contrast; labels without one are written in the
    outline colour: Hershey faces at least 2 px thick, DejaVu faces as the font draws them with a 1 px stroke
    added above font scale 0.8 (DejaVu Sans' stems are then about 1.6 px wide at scale 0.55 and 2 px at 0.7).
    """
    color = PALETTE[int(rng.integers(len(PALETTE)))]
    background = bool(rng.random() < 0.6)
    return RegionStyle(
        color=color,
        line_width=int(rng.integers(2, 6)),
        label_format=LABEL_FORMATS[int(rng.integers(len(LABEL_FORMATS)))],
        label_position=LABEL_POSITIONS[int(rng.integers(len(LABEL_POSITIONS)))],
        font_scale=float(rng.uniform(0.55, 1.1)),
        label_background=background,
        label_color=contrast_text_color(color) if background else color,
        font=FONTS[int(rng.integers(len(FONTS)))],
    )


def _font_file(font: str) -> Path | None:
    """The font file a style names: a DejaVu face of :data:`FONTS`, or a .ttf/.otf path; None when it is missing."""
    path = _FONT_DIR / _TTF_FILES[font] if font in _TTF_FILES else Path(font)
    return path if path.suffix.lower() in FONT_FILE_SUFFIXES and path.is_file() else None


@lru_cache(maxsize=256)
def _ttf(font: str, size_px: int):  # -> PIL.ImageFont.FreeTypeFont | None
    path = _font_file(font)
    if path is None:
        return None
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size_px)


def _hershey_params(style: RegionStyle) -> tuple[int, float, int]:
    face = _HERSHEY.get(style.font, cv2.FONT_HERSHEY_SIMPLEX)
    thickness = max(2 if not style.label_background else 1, round(2 * style.font_scale))
    return face, style.font_scale, thickness


def text_size(text: str, style: RegionStyle) -> tuple[int, int]:
    """(width, height) in px of ``text`` rendered in ``style`` (without padding)."""
    font = _ttf(style.font, max(6, round(_CAP_PX_PER_SCALE * style.font_scale * 1.3)))
    if font is not None:
        x0, y0, x1, y1 = font.getbbox(text)
        return int(x1 - x0), int(y1 - y0)
    face, scale, thick = _hershey_params(style)
    (w, h), base = cv2.getTextSize(text, face, scale, thick)
    return int(w), int(h + base)


def _put_text(img: np.ndarray, text: str, origin: tuple[int, int], style: RegionStyle) -> None:
    """Write ``text`` with its bounding box's top-left at ``origin`` (in place)."""
    font = _ttf(style.font, max(6, round(_CAP_PX_PER_SCALE * style.font_scale * 1.3)))
    if font is not None:
        from PIL import Image, ImageDraw

        w, h = text_size(text, style)
        x, y = origin
        xa, ya, xb, yb = max(0, x), max(0, y), min(img.shape[1], x + w), min(img.shape[0], y + h)
        if xb <= xa or yb <= ya:
            return
        patch = Image.fromarray(img[ya:yb, xa:xb])
        x0, y0, _, _ = font.getbbox(text)
        stroke = 1 if (not style.label_background and style.font_scale > 0.8) else 0
        ImageDraw.Draw(patch).text((x - xa - x0, y - ya - y0), text, font=font, fill=tuple(style.label_color),
                                   stroke_width=stroke, stroke_fill=tuple(style.label_color))
        img[ya:yb, xa:xb] = np.asarray(patch)
        return
    face, scale, thick = _hershey_params(style)
    (_, h), base = cv2.getTextSize(text, face, scale, thick)
    cv2.putText(img, text, (origin[0], origin[1] + h), face, scale, tuple(int(c) for c in style.label_color),
                thick, cv2.LINE_AA)


def label_box(bbox: Sequence[float], text: str, style: RegionStyle, image_size: tuple[int, int]) -> list[int]:
    """Pixel box ``[x1, y1, x2, y2]`` where the label of ``bbox`` is drawn (``image_size`` = (W, H)).

    Positions outside the image fall back inside the box (as YOLO-style renderers do).
    """
    w_img, h_img = image_size
    tw, th = text_size(text, style)
    pad = max(2, style.line_width // 2 + 1)
    lw, lh = tw + 2 * pad, th + 2 * pad
    x1, y1, x2, y2 = (int(round(v)) for v in bbox)
    half = style.line_width // 2
    pos = style.label_position
    if pos == "above" and y1 - half - lh < 0:
        pos = "inside_top_left"
    if pos == "below" and y2 + half + lh > h_img:
        pos = "inside_top_left"
    if pos == "outside_left" and x1 - half - lw < 0:
        pos = "inside_top_left"
    if pos == "above":
        lx, ly = x1 - half, y1 - half - lh
    elif pos == "below":
        lx, ly = x1 - half, y2 + half + 1
    elif pos == "outside_left":
        lx, ly = x1 - half - lw, y1 - half
    elif pos == "inside_center":
        lx, ly = (x1 + x2) // 2 - lw // 2, (y1 + y2) // 2 - lh // 2
    else:
        lx, ly = x1 + half + 1, y1 + half + 1
    lx = int(np.clip(lx, 0, max(0, w_img - lw)))
    ly = int(np.clip(ly, 0, max(0, h_img - lh)))
    return [lx, ly, lx + lw, ly + lh]


# most of a box's outline (share of its perimeter) that labels may hide, and most of a digit of a stroke label
# (share of its pixels) that outlines of the label's colour may hide
MAX_HIDDEN_OUTLINE = 0.25


def hidden_outline_share(box: Sequence[float], labels: Sequence[Sequence[int]]) -> float:
    """Share of a box's outline (its centre line, sampled every pixel) that lies under the label boxes."""
    x1, y1, x2, y2 = (float(v) for v in box)
    xs, ys = np.arange(x1, x2 + 1), np.arange(y1, y2 + 1)
    pts = np.concatenate([np.stack([xs, np.full_like(xs, y1)], 1), np.stack([xs, np.full_like(xs, y2)], 1),
                          np.stack([np.full_like(ys, x1), ys], 1), np.stack([np.full_like(ys, x2), ys], 1)])
    hidden = np.zeros(len(pts), bool)
    for lx1, ly1, lx2, ly2 in labels:
        hidden |= (pts[:, 0] >= lx1) & (pts[:, 0] < lx2) & (pts[:, 1] >= ly1) & (pts[:, 1] < ly2)
    return float(hidden.mean())


def hidden_digit_share(regions: Sequence[tuple[int, Sequence[float]]], styles: Sequence[RegionStyle], k: int,
                       image_size: tuple[int, int]) -> float:
    """The largest share of one digit's pixels, over the digits of region ``k``'s label, that lies on an outline of
    the label's own colour (its own box's or another's), where it cannot be told from the line; 0 for a label on a
    filled background, which is drawn over the outlines. A digit's pixels are the letters' in the columns from the
    ink's end before it to the ink's end with it."""
    rid, box = regions[k]
    style = styles[k]
    if style.label_background:
        return 0.0
    text = style.label_format.format(id=int(rid))
    x1, y1, x2, y2 = label_box(box, text, style, image_size)
    pad = max(2, style.line_width // 2 + 1)
    letters = np.zeros((y2 - y1, x2 - x1, 3), np.uint8)
    _put_text(letters, text, (pad, pad), dataclasses.replace(style, label_color=(255, 255, 255)))
    lines = np.zeros(letters.shape[:2], np.uint8)
    for (_, b), st in zip(regions, styles):
        if st.color == style.color:
            bx1, by1, bx2, by2 = (int(round(v)) for v in b)
            cv2.rectangle(lines, (bx1 - x1, by1 - y1), (bx2 - x1, by2 - y1), 255, st.line_width, cv2.LINE_8)
    ink = letters[:, :, 0] > 127
    hidden = ink & (lines > 0)
    worst = 0.0
    for n, char in enumerate(text):
        if char.isdigit():
            a = pad + (text_size(text[:n], style)[0] if text[:n].strip() else 0)
            b = pad + text_size(text[:n + 1], style)[0]
            worst = max(worst, float(hidden[:, a:b].sum() / max(1, ink[:, a:b].sum())))
    return worst


def legible_layout(regions: Sequence[tuple[int, Sequence[float]]], styles: Sequence[RegionStyle],
                   image_size: tuple[int, int], max_hidden: float = MAX_HIDDEN_OUTLINE) -> bool:
    """True when a person could read the overlay: no two labels overlap, no box loses more than ``max_hidden``
    of its outline under labels or merged into a filled label that touches it (a small box under a big label of
    its own or of another region), and no label written in strokes loses more than ``max_hidden`` of a digit on
    outlines of its own colour (:func:`hidden_digit_share`)."""
    labels = [label_box(b, st.label_format.format(id=int(rid)), st, image_size)
              for (rid, b), st in zip(regions, styles)]
    for k, a in enumerate(labels):
        for b in labels[k + 1:]:
            if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]):
                return False
    # a filled label touching an outline merges with it: count the line width around a label as hidden too
    grown = [[x1 - g, y1 - g, x2 + g, y2 + g] for (x1, y1, x2, y2), st in zip(labels, styles)
             for g in [st.line_width // 2 + 2 if st.label_background else 0]]
    return (all(hidden_outline_share(b, grown) <= max_hidden for _, b in regions)   # text drawn last: it is slower
            and all(hidden_digit_share(regions, styles, k, image_size) <= max_hidden for k in range(len(regions))))


def _validate_box(bbox: Sequence[float], image_size: tuple[int, int]) -> list[float]:
    if len(bbox) != 4:
        raise ToolError(f"a box needs 4 numbers [x1, y1, x2, y2], got {list(bbox)!r}")
    x1, y1, x2, y2 = (float(v) for v in bbox)
    if not (x2 > x1 and y2 > y1):
        raise ToolError(f"box must have x2 > x1 and y2 > y1, got {[x1, y1, x2, y2]}")
    w, h = image_size
    if x2 < 0 or y2 < 0 or x1 > w - 1 or y1 > h - 1:
        raise ToolError(f"box {[x1, y1, x2, y2]} lies outside the {w}x{h} image")
    return [x1, y1, x2, y2]


def draw_regions(
    image: np.ndarray,
    regions: Sequence[tuple[int, Sequence[float]]],
    style: RegionStyle | Sequence[RegionStyle] | None = None,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Return a new RGB image with each ``(id, [x1, y1, x2, y2])`` region outlined and labelled.

    ``style``: one style for all regions, one per region, or ``None`` (one :func:`random_style` drawn from
    ``rng`` when given, else the default :class:`RegionStyle`). All outlines are drawn before any label, so a
    label is never cut by another region's outline.
    """
    img = load_image(image).copy()
    size = (img.shape[1], img.shape[0])
    if style is None:
        style = random_style(rng) if rng is not None else RegionStyle()
    styles = [style] * len(regions) if isinstance(style, RegionStyle) else list(style)
    if len(styles) != len(regions):
        raise ToolError(f"got {len(styles)} styles for {len(regions)} regions")
    boxes = [_validate_box(b, size) for _, b in regions]
    for (_, _), box, st in zip(regions, boxes, styles):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        cv2.rectangle(img, (x1, y1), (x2, y2), tuple(int(c) for c in st.color), st.line_width, cv2.LINE_8)
    for (rid, _), box, st in zip(regions, boxes, styles):
        text = st.label_format.format(id=int(rid))
        lx1, ly1, lx2, ly2 = label_box(box, text, st, size)
        if st.label_background:
            cv2.rectangle(img, (lx1, ly1), (lx2 - 1, ly2 - 1), tuple(int(c) for c in st.color), -1)
        pad = max(2, st.line_width // 2 + 1)
        _put_text(img, text, (lx1 + pad, ly1 + pad), st)
    return img


def draw_point_marker(
    image: np.ndarray,
    xy: Sequence[float],
    *,
    color: RGB = (255, 0, 0),
    radius: int = 8,
    marker: str = "dot",
    outline: RGB | None = (255, 255, 255),
) -> np.ndarray:
    """Return a new RGB image with a marker at pixel ``xy`` (for "point-marked object" questions).

    marker: ``"dot"`` (filled disc, optional 2 px ``outline`` ring), ``"circle"`` (ring) or ``"cross"``.
    """
    img = load_image(image).copy()
    if len(xy) != 2:
        raise ToolError(f"xy must be (x, y), got {xy!r}")
    x, y = (int(round(float(v))) for v in xy)
    if not (0 <= x < img.shape[1] and 0 <= y < img.shape[0]):
        raise ToolError(f"point {(x, y)} lies outside the {img.shape[1]}x{img.shape[0]} image")
    col = tuple(int(c) for c in color)
    if marker == "dot":
        if outline is not None:
            cv2.circle(img, (x, y), radius + 2, tuple(int(c) for c in outline), -1, cv2.LINE_AA)
        cv2.circle(img, (x, y), radius, col, -1, cv2.LINE_AA)
    elif marker == "circle":
        cv2.circle(img, (x, y), radius, col, max(2, radius // 4), cv2.LINE_AA)
    elif marker == "cross":
        t = max(2, radius // 4)
        cv2.line(img, (x - radius, y), (x + radius, y), col, t, cv2.LINE_AA)
        cv2.line(img, (x, y - radius), (x, y + radius), col, t, cv2.LINE_AA)
    else:
        raise ToolError(f"marker must be 'dot', 'circle' or 'cross', got {marker!r}")
    return img
