"""Find thin drawn rectangles (1-6 px outlines in a saturated or a light colour) by their line profile, not by a
colour level.

JPEG keeps a thin outline's brightness but halves its colour resolution (4:2:0 chroma), so a 1 px line in a pure
colour comes back with a saturation of 80-130 of 255, under the levels that find thick outlines
(:mod:`tools.regions.colours`). What survives is the profile across the line: a drawn line differs from the
picture just beyond it ON BOTH SIDES, and it is straight and axis-aligned. So:

1-2. Line pixels and segments: :mod:`tools.regions.strokes`.
3. Proposals (:func:`proposals`): where a horizontal and a vertical segment of one colour meet (at their ends, or
   one's end on the other) the corner proposes a box; each line is followed in its colour from the corner to
   where it ends (:func:`trace`), across short breaks or one a label's width, so the other sides may hide under a
   label or lie beyond the image border; the nearest perpendicular lines of the colour met on the way are far
   sides too (in a dense overlay a line followed on runs into a neighbour's line or label).
4. Each side is snapped to the outer edge of the line drawn there (:func:`snap_sides`: half-way down the dip of
   the colour distance across it, one px in where the line's brightness ends before its colour, as JPEG keeps
   brightness at full resolution and colour at half; a side under a filled label is kept where proposed), a top
   that ran up through a filled label as wide as the box moves under it (:func:`below_fill`), and the box stands
   when every side inside the image shows the colour along SIDE_COVER of its length (two along FULL_COVER), one
   side's line is vivid (MIN_VAL, MIN_SAT: low, as JPEG greys a 1 px line to a saturation of 0.2-0.3) or light
   (white, light grey, pale: every channel high) and no line of its colour runs across its inside
   (:func:`crossed`: two boxes drawn edge to edge, or a side followed on into its label). Near-identical boxes are
   one.

Boxes are ``(x1, y1, x2, y2)`` inclusive px of the outer edge of the drawn line, clipped to the image.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tools.regions.geom import pixel_iou
from tools.regions.strokes import (CORNER_GAP, LINE_REACH, LINE_REACHES, Segment, alike, alike_pairs,
                                   hue_and_chroma, light, line_pixels, longest, segments)

SNAP = 4              # px a proposed side moves to the line drawn there
MAX_TRACE = 1200      # px, longest line followed (boxes are up to ~600 px at 1080p)
TRACE_GAPS = (6, 30)  # px, breaks in a line followed across: a short one (JPEG), a label's width
LINE_DIP = 19.0       # least drop of the colour distance from beside a side's line to the line
LINE_MATCH = 45.0     # most median RGB distance of a side's line from the rectangle's colour
SIDE_COVER = 0.7      # least share of a side's length that shows the rectangle's colour
FULL_COVER = 0.9      # at least two sides are this complete (a corner alone is no box)
MIN_VAL = 110         # least brightness (max of RGB) of an outline's colour
MIN_SAT = 0.2         # least saturation ((max - min) / max of RGB) of an outline's colour
MAX_MET = 2          # lines met on the way looked at as a box's far side
TEXT_SHARE = 0.3      # most share in the colour of a row of picture inside a box
LUMA = np.array([0.299, 0.587, 0.114], np.float32)   # brightness (JPEG's Y) of an RGB pixel
LUMA_CONTRAST = 20.0  # least brightness step from a line to the picture beyond it for its edge to be read in Y
BLUR = 2              # px JPEG adds to a thin line's measured thickness
FILL_SHARE = 0.8      # share of a row across a box in its colour from which the row is a filled label's
MIN_SIDE = 12         # px, shortest side of a box
BORDER = 2            # px from the image border within which a side counts as cut off by it
SAME_RECT = 0.85      # IoU above which two proposals are one rectangle
# most line thickness of a light (white, pale) box as a share of its shorter side: drawn outlines are thin against
# their boxes, while white letters (of a filled tag's text) close small rectangles of thick strokes
LIGHT_STROKE = 0.2


@dataclasses.dataclass
class Rect:
    """A drawn rectangle: outer-edge box (inclusive px), its line colour (RGB), line thickness (px) and how much of
    its four sides (top, bottom, left, right) shows that colour."""

    box: tuple[int, int, int, int]
    colour: tuple[float, float, float]
    thick: int
    cover: tuple[float, float, float, float]


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= CORNER_GAP


def proposals(rgb: np.ndarray, hs: list[Segment], vs: list[Segment]
              ) -> list[tuple[tuple[int, int, int, int], tuple[float, ...]]]:
    """Rectangles proposed where a horizontal and a vertical segment of one colour meet (at their ends, or one's end
    on the other: boxes drawn edge to edge share a line): from the corner each line is followed in its colour
    (:func:`trace`, across breaks up to each of TRACE_GAPS px) to where it ends; (box, colour)."""
    if not hs or not vs:
        return []
    h = np.array([[s.x1, s.y1, s.x2, s.y2] for s in hs], np.int32)
    v = np.array([[s.x1, s.y1, s.x2, s.y2] for s in vs], np.int32)
    hc = np.array([s.colour for s in hs], np.float32)
    vc = np.array([s.colour for s in vs], np.float32)
    g = CORNER_GAP
    v_end_on_h = ((np.abs(h[:, None, 1] - v[None, :, 1]) <= g) | (np.abs(h[:, None, 3] - v[None, :, 3]) <= g)) & (
        (v[None, :, 0] >= h[:, None, 0] - g) & (v[None, :, 2] <= h[:, None, 2] + g))
    h_end_on_v = ((np.abs(h[:, None, 0] - v[None, :, 0]) <= g) | (np.abs(h[:, None, 2] - v[None, :, 2]) <= g)) & (
        (h[:, None, 1] >= v[None, :, 1] - g) & (h[:, None, 3] <= v[None, :, 3] + g))
    out = []
    for i, j in zip(*np.nonzero((v_end_on_h | h_end_on_v) & alike_pairs(hc, vc))):
        colour = (hc[i] + vc[j]) / 2
        for right in (True, False):          # the box lies right of the vertical line (it is its left side)
            if (h[i, 2] if right else -h[i, 0]) - (v[j, 0] if right else -v[j, 2]) < MIN_SIDE - g:
                continue
            for down in (True, False):       # the box lies below the horizontal line (it is its top side)
                if (v[j, 3] if down else -v[j, 1]) - (h[i, 1] if down else -h[i, 3]) < MIN_SIDE - g:
                    continue
                cx = int(v[j, 0] if right else v[j, 2])   # the corner's outer x and y
                cy = int(h[i, 1] if down else h[i, 3])
                for gap in TRACE_GAPS:
                    far_x = trace(rgb, colour, (int(h[i, 1]), int(h[i, 3])), cx, 1 if right else -1, gap, True)
                    far_y = trace(rgb, colour, (int(v[j, 0]), int(v[j, 2])), cy, 1 if down else -1, gap, False)
                    # the far side may also be a line of the colour met on the way: in a dense overlay a side
                    # followed on runs into a neighbouring box's line or label
                    ends_x = _met(v[:, [0, 2]], v[:, [1, 3]], vc, colour, cx, far_x, cy, down)
                    ends_y = _met(h[:, [1, 3]], h[:, [0, 2]], hc, colour, cy, far_y, cx, right)
                    for ex in [far_x] + ends_x:
                        for ey in [far_y] + ends_y:
                            out.append(((min(cx, ex), min(cy, ey), max(cx, ex), max(cy, ey)),
                                        tuple(colour.tolist())))
    return list(dict.fromkeys(out))


def _met(across: np.ndarray, span: np.ndarray, colours: np.ndarray, colour: np.ndarray, start: int, far: int,
         corner: int, forward: bool) -> list[int]:
    """Where perpendicular segments (``across``: their first and last px across; ``span``: along) of ``colour``
    that begin at the corner's line (``corner``, on the side ``forward`` of it) lie between ``start`` and ``far``:
    the nearest MAX_MET, at their outer edge."""
    lo, hi = (start, far) if far >= start else (far, start)
    begins = np.abs((span[:, 0] if forward else span[:, 1]) - corner) <= CORNER_GAP
    outer = across[:, 1] if far >= start else across[:, 0]
    ok = begins & (outer >= lo + MIN_SIDE) & (outer <= hi) if far >= start else (
        begins & (outer <= hi - MIN_SIDE) & (outer >= lo))
    ok &= alike_pairs(colours, colour[None])[:, 0]
    found = sorted(set(int(x) for x in outer[ok]), key=lambda x: abs(x - start))
    return [x for x in found if x != far][:MAX_MET]


def trace(rgb: np.ndarray, colour: np.ndarray, band: tuple[int, int], start: int, step: int, gap: int,
          horizontal: bool) -> int:
    """Where a line of ``colour`` drawn in ``band`` (rows y1..y2 of a horizontal line, columns x1..x2 of a
    vertical one) ends, followed from ``start`` in direction ``step`` (+1 / -1) across breaks of at most ``gap`` px
    (another box's label over it, JPEG); the image border ends it too."""
    lo, hi = band
    end = start + MAX_TRACE if step > 0 else max(0, start - MAX_TRACE)
    if horizontal:
        strip = rgb[lo:hi + 1, start:end] if step > 0 else rgb[lo:hi + 1, end:start + 1][:, ::-1]
        on = alike(strip, colour).any(axis=0)
    else:
        strip = rgb[start:end, lo:hi + 1] if step > 0 else rgb[end:start + 1, lo:hi + 1][::-1]
        on = alike(strip, colour).any(axis=1)
    idx = np.flatnonzero(on)
    if not len(idx):
        return start
    breaks = np.flatnonzero(np.diff(idx) > gap + 1)
    last = int(idx[breaks[0]] if len(breaks) else idx[-1])
    return start + step * last


def below_fill(rgb: np.ndarray, box: tuple[int, int, int, int], colour: np.ndarray, thick: int
               ) -> tuple[int, int, int, int]:
    """``box`` with its top moved down to the line under a filled label as wide as the box that sits on it
    (a tag drawn above a small box reads as the top of the box's sides: both run up through its fill)."""
    x1, y1, x2, y2 = box
    if x2 - x1 < 2 * thick + 2:
        return box
    span = rgb[y1:y2 + 1, x1 + thick:x2 - thick + 1]
    share = alike(span, colour).mean(axis=1)
    if len(share) <= LINE_REACH + 2 or not (share[:2] >= FILL_SHARE).all():
        return box
    # the first row of picture under a full row of the colour: the box's own top line ends the label there
    ends = np.flatnonzero((share[1:] < TEXT_SHARE) & (share[:-1] >= FILL_SHARE)) + 1
    end = int(ends[0]) if len(ends) else 0
    if end <= LINE_REACH + 2 or y2 - (y1 + end) < MIN_SIDE:
        return box
    return x1, y1 + end - max(1, thick - BLUR), x2, y2


def true_colour(rgb: np.ndarray, box: tuple[int, int, int, int], thick: int, colour: np.ndarray
                ) -> tuple[float, float, float]:
    """The colour the outline was drawn in: the median of the most chromatic quarter of its line pixels (JPEG
    greys a thin line; its labels, tags and markers keep more of the colour)."""
    x1, y1, x2, y2 = box
    bands = [rgb[y1:y1 + thick, x1:x2 + 1].reshape(-1, 3), rgb[y2 - thick + 1:y2 + 1, x1:x2 + 1].reshape(-1, 3),
             rgb[y1:y2 + 1, x1:x1 + thick].reshape(-1, 3), rgb[y1:y2 + 1, x2 - thick + 1:x2 + 1].reshape(-1, 3)]
    px = np.concatenate(bands).astype(np.float32)
    px = px[alike(px, colour)]
    if len(px) < 4:
        return tuple(float(v) for v in colour)
    chroma = px.max(axis=1) - px.min(axis=1)
    top = px[chroma >= np.percentile(chroma, 75)]
    return tuple(float(v) for v in np.median(top, axis=0))


def side_cover(rgb: np.ndarray, box: tuple[int, int, int, int], colour: np.ndarray, thick: int
               ) -> tuple[float, float, float, float]:
    """Share of each side (top, bottom, left, right) of ``box`` whose line band (``thick`` px inside the outer
    edge) holds a pixel of ``colour`` (:func:`tools.regions.strokes.alike`); a side on the image border counts as 1 (cut off)."""
    x1, y1, x2, y2 = box
    height, width = rgb.shape[:2]

    def share(band: np.ndarray, along: int) -> float:
        near = alike(band, colour)
        return float(near.any(axis=along).mean()) if near.size else 0.0

    top = 1.0 if y1 <= BORDER else share(rgb[y1:y1 + thick, x1:x2 + 1], 0)
    bottom = 1.0 if y2 >= height - 1 - BORDER else share(rgb[y2 - thick + 1:y2 + 1, x1:x2 + 1], 0)
    left = 1.0 if x1 <= BORDER else share(rgb[y1:y2 + 1, x1:x1 + thick], 1)
    right = 1.0 if x2 >= width - 1 - BORDER else share(rgb[y1:y2 + 1, x2 - thick + 1:x2 + 1], 1)
    return top, bottom, left, right


def find_thin_rects(rgb: np.ndarray) -> list[Rect]:
    """Thin drawn rectangles of ``rgb`` (see the module docstring), best covered first among overlapping ones."""
    shared = hue_and_chroma(rgb)
    hs = longest(segments(rgb, line_pixels(rgb, 1, shared), 1), 1)
    vs = longest(segments(rgb, line_pixels(rgb, 0, shared), 0), 0)
    found: list[Rect] = []
    seen: set[tuple[int, ...]] = set()
    for box, colour in proposals(rgb, hs, vs):
        col = np.asarray(colour, np.float32)
        snapped = snap_sides(rgb, box, col)
        if snapped is None or snapped[0] in seen:
            continue
        box, thick = snapped
        under = below_fill(rgb, box, col, thick)
        if under != box:   # the sides are found again below the label
            snapped = snap_sides(rgb, under, col)
            if snapped is None:
                continue
            box, thick = snapped
        seen.add(box)
        if box[2] - box[0] + 1 < MIN_SIDE or box[3] - box[1] + 1 < MIN_SIDE:
            continue
        cover = side_cover(rgb, box, col, thick)
        if min(cover) < SIDE_COVER or sorted(cover)[-2] < FULL_COVER or crossed(rgb, box, col, thick):
            continue
        if light(col) and thick > LIGHT_STROKE * min(box[2] - box[0] + 1, box[3] - box[1] + 1):
            continue
        found.append(Rect(box, true_colour(rgb, box, thick, col), thick, cover))
    return _distinct(found)


def snap_sides(rgb: np.ndarray, box: tuple[int, int, int, int], colour: np.ndarray
               ) -> tuple[tuple[int, int, int, int], int] | None:
    """``box`` with each side moved (within SNAP px) to the outer edge of the line of ``colour`` drawn there, and
    the line's thickness; None when a side inside the image shows no such line.

    Across a side, the median colour distance to ``colour`` (along the side) dips at the line; the line is the run
    of rows (columns) around the dip closer than half-way between the dip and the picture outside the box (JPEG
    blurs a 1 px line over 3 px, so a fixed tolerance would take its blurred fringe for line)."""
    x1, y1, x2, y2 = box
    height, width = rgb.shape[:2]
    g = SNAP
    if x2 - x1 <= 2 * g or y2 - y1 <= 2 * g:
        return None
    sides: list[tuple[int, int]] = []
    hues: list[np.ndarray] = []   # the colour of each side's line, where seen
    for pos, horizontal, outward in ((y1, True, -1), (y2, True, 1), (x1, False, -1), (x2, False, 1)):
        size = height if horizontal else width
        limit = size - 1 if outward > 0 else 0
        lo, hi = max(0, pos - g - 2), min(size - 1, pos + g + 2)
        band = (rgb[lo:hi + 1, x1 + g:x2 - g + 1] if horizontal else
                rgb[y1 + g:y2 - g + 1, lo:hi + 1].transpose(1, 0, 2)).astype(np.float32)
        dist = np.median(np.linalg.norm(band - colour, axis=2), axis=1)   # one value per row (column) lo..hi
        k = int(np.argmin(dist))
        outside, inside = (dist[0], dist[-1]) if outward < 0 else (dist[-1], dist[0])
        if dist[k] <= LINE_MATCH and inside - dist[k] >= LINE_DIP and outside - dist[k] < LINE_DIP:
            sides.append((pos, 1))   # the colour goes on outside: a label filled in it covers this side
            continue
        if dist[k] > LINE_MATCH or min(outside, inside) - dist[k] < LINE_DIP:
            if abs(pos - limit) > BORDER:
                return None
            sides.append((limit, 1))
            continue
        half = (dist[k] + outside) / 2
        a = b = k
        while a > 0 and dist[a - 1] <= half:
            a -= 1
        while b < len(dist) - 1 and dist[b + 1] <= half:
            b += 1
        if b - a + 1 > LINE_REACH + 1:   # a band of colour (a filled label, a mask), not a thin line
            return None
        # where the line's brightness ends short of its colour, the colour's last px is JPEG's spread of it
        edge = _luma_edge(np.median(band @ LUMA, axis=1), k, outward)
        if edge is not None and outward < 0 and a < min(edge, k):
            a += 1
        elif edge is not None and outward > 0 and b > max(edge, k):
            b -= 1
        sides.append((lo + (a if outward < 0 else b), b - a + 1))
        hues.append(np.median(band[k], axis=0))
    (top, t1), (bottom, t2), (left, t3), (right, t4) = sides
    if not any(vivid(c) for c in hues):
        return None
    return (left, top, right, bottom), max(t1, t2, t3, t4)


def _luma_edge(luma: np.ndarray, k: int, outward: int) -> int | None:
    """The outer edge of the line at ``k`` of a profile of brightness across it (``outward``: -1 towards index 0):
    the last px nearer the line's brightness than the picture's beyond it. JPEG keeps brightness at full resolution
    but colour at half, so a thin line's colour spreads a pixel out where its brightness does not; None where the
    line is about as bright as the picture (its colour tells them apart)."""
    end = 0 if outward < 0 else len(luma) - 1
    contrast = abs(float(luma[end]) - float(luma[k]))
    if contrast < LUMA_CONTRAST:
        return None
    i = k
    while i != end and abs(float(luma[i + outward]) - float(luma[k])) < contrast / 2:
        i += outward
    return i


def vivid(colour: np.ndarray) -> bool:
    """An overlay colour: saturated and bright (HSV S >= MIN_SAT, V >= MIN_VAL of 255), unlike foliage and soil, or
    light (white, light grey, pale: :func:`tools.regions.strokes.light`)."""
    hi, lo = float(colour.max()), float(colour.min())
    return (hi >= MIN_VAL and (hi - lo) >= MIN_SAT * hi) or light(colour)


def _distinct(rects: list[Rect]) -> list[Rect]:
    """One rectangle per group of near-identical proposals: the best covered, then the largest."""
    rects = sorted(rects, key=lambda r: (-sum(r.cover), -(r.box[2] - r.box[0]) * (r.box[3] - r.box[1])))
    kept: list[Rect] = []
    for r in rects:
        if all(pixel_iou(r.box, k.box) < SAME_RECT for k in kept):
            kept.append(r)
    return kept


def crossed(rgb: np.ndarray, box: tuple[int, int, int, int], colour: np.ndarray, thick: int) -> bool:
    """A line of the box's colour runs across its inside, from side to side: what was taken for one box is two
    drawn edge to edge, or a box whose side was followed on into its label above or below it."""
    x1, y1, x2, y2 = box
    m = thick + BLUR
    inside = rgb[y1 + m:y2 - m + 1, x1 + m:x2 - m + 1]
    if inside.shape[0] < 3 or inside.shape[1] < 3:
        return False
    near = alike(inside, colour)
    return _line_across(near.mean(axis=1)) or _line_across(near.mean(axis=0))


def _line_across(share: np.ndarray) -> bool:
    """Some row (column) of ``share`` (each row's share of pixels in a colour) is a line in it: near-full, with
    little of the colour LINE_REACHES[-1] px to either side (a picture in a hue near the colour is an area)."""
    r = LINE_REACHES[-1]
    if len(share) <= 2 * r:
        return False
    mid = share[r:-r]
    return bool(((mid >= FULL_COVER) & (np.maximum(share[:-2 * r], share[2 * r:]) <= TEXT_SHARE)).any())
