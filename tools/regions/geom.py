"""Small geometry helpers shared by the region reader's modules (:mod:`tools.regions.pipeline`, :mod:`tools.regions.lines`,
:mod:`tools.regions.labels`). Boxes are [x1, y1, x2, y2] in px."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import cv2
import numpy as np

MAX_LINE = 10     # px, thicker than this is a filled area, not a line
EXTENT_PAD = 16   # px of undrawn image kept around a colour's drawing (larger than any structuring element used)
SAME_BOX = 0.9   # IoU from which two boxes are one box


def iou(a, b) -> float:
    """Intersection over union of two [x1, y1, x2, y2] boxes."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def union_box(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """The smallest [x1, y1, x2, y2] box holding both boxes."""
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


def share_within(a: Sequence[float], b: Sequence[float]) -> float:
    """Share of box ``a``'s area that lies within box ``b`` (both [x1, y1, x2, y2])."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return iw * ih / max(1.0, (a[2] - a[0]) * (a[3] - a[1]))


def within(a: Sequence[float], b: Sequence[float], margin: float = 0.0) -> bool:
    """Box ``a`` lies inside box ``b`` shrunk by ``margin`` px on each side."""
    return a[0] >= b[0] + margin and a[1] >= b[1] + margin and a[2] <= b[2] - margin and a[3] <= b[3] - margin


def inside_outline(box: Sequence[float], thick: float, pad: int) -> tuple[slice, slice]:
    """(rows, cols) of a box's inside (box at line centres, outline ``thick`` px wide), ``pad`` px in from the
    outline's band, clipped at the image's top and left (the slices clip the bottom and right)."""
    m = int(np.ceil(thick / 2)) + pad
    x1, y1 = max(0, int(box[0]) + m), max(0, int(box[1]) + m)
    x2, y2 = max(x1, int(np.ceil(box[2])) - m + 1), max(y1, int(np.ceil(box[3])) - m + 1)
    return slice(y1, y2), slice(x1, x2)


def open_rect(u8: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Morphological opening with a (rows, cols) rectangle and nothing drawn beyond the image (OpenCV's default
    border counts as drawn for the erosion, which makes a line along the border look as thick as a label)."""
    return cv2.morphologyEx(u8, cv2.MORPH_OPEN, np.ones(shape, np.uint8), borderType=cv2.BORDER_CONSTANT,
                            borderValue=0)


def true_runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index pairs of the True runs of a 1-D bool array."""
    d = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1).tolist(), (np.flatnonzero(d == -1) - 1).tolist()))


def enclosed(crop: np.ndarray) -> np.ndarray:
    """Pixels off ``crop`` (bool) that it encloses (not 4-connected to the crop's border): the letters of a
    filled label background; a box outline glued to the label's side encloses nothing."""
    inv = np.pad(~crop, 1, constant_values=True).astype(np.uint8)
    _, lab = cv2.connectedComponents(inv, connectivity=4)
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    return np.isin(lab, border, invert=True)[1:-1, 1:-1] & ~crop


def pixel_iou(a: Sequence[int], b: Sequence[int]) -> float:
    """Intersection over union of two integer boxes [x1, y1, x2, y2] whose corners are pixels of the box (inclusive:
    a box from x 10 to 12 is 3 px wide), the convention of boxes found as runs of drawn pixels."""
    iw = min(a[2], b[2]) - max(a[0], b[0]) + 1
    ih = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - inter)


def drawn_extent(mask: np.ndarray, pad: int = EXTENT_PAD) -> tuple[int, int, tuple[slice, slice]] | None:
    """(x0, y0, slices) of the part of an (H, W) mask that holds its drawn pixels, with ``pad`` px around (clipped
    to the image); None when nothing is drawn. Working on that part alone is faster, and when ``pad`` exceeds every
    structuring element used, nothing changes but the image's own border stays the only one."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return None
    # even offsets: Python rounds halves to even, so a half-pixel position rounds the same in the part as in the image
    y0, x0 = max(0, int(rows[0]) - pad) // 2 * 2, max(0, int(cols[0]) - pad) // 2 * 2
    return x0, y0, np.s_[y0:int(rows[-1]) + pad + 1, x0:int(cols[-1]) + pad + 1]


def components(u8: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` (8-connected) of a 0/1 uint8 mask with few drawn pixels, run on the box
    around them only: its statistics pass costs about 6 ms over a 1080p image however little is drawn. Labels are
    full size; stats rows are (x, y, w, h, area) in the mask's px, row 0 the background's."""
    x, y, w, h = cv2.boundingRect(u8)
    labels = np.zeros(u8.shape, np.int32)
    if w == 0:
        return 1, labels, np.array([[0, 0, u8.shape[1], u8.shape[0], u8.size]], np.int32)
    n, labels[y:y + h, x:x + w], stats, _ = cv2.connectedComponentsWithStats(
        np.ascontiguousarray(u8[y:y + h, x:x + w]), connectivity=8)
    stats[1:, 0] += x
    stats[1:, 1] += y
    stats[0] = (0, 0, u8.shape[1], u8.shape[0], u8.size - int(stats[1:, 4].sum()))
    return n, labels, stats


MATCH_MIN, MATCH_SHARE = 12.0, 0.8   # see match_limit
# indices of the places in label_anchors
ABOVE, BELOW, LEFT, INSIDE_TOP_LEFT, CENTRED, ABOVE_CENTRED, BELOW_CENTRED = range(7)
PLACES = (ABOVE, BELOW, LEFT, INSIDE_TOP_LEFT, CENTRED, ABOVE_CENTRED, BELOW_CENTRED)


def side_of(place: int) -> int:
    """The box side a label at ``place`` sits by: ABOVE for one centred above the box, BELOW for one centred below,
    else ``place`` itself."""
    return {ABOVE_CENTRED: ABOVE, BELOW_CENTRED: BELOW}.get(place, place)


def label_anchors(box: Sequence[float], w: float, h: float, thick: float,
                  size: tuple[int, int]) -> list[tuple[float, float]]:
    """Top-left corners (px) of a ``w`` x ``h`` label at the usual places of ``box`` (drawn with outlines ``thick``
    px wide; ``size``: image (W, H)), in this order: above, below, left of the box, inside its top-left corner
    (INSIDE_TOP_LEFT), centred in it, centred above it and centred below it (a label wider than a narrow box then
    starts well left of it); kept inside the image, as some region renderers draw them (others draw a
    label that does not fit outside inside the top-left corner instead: see :func:`off_image`)."""
    return [(min(max(ax, 0), size[0] - w), min(max(ay, 0), size[1] - h)) for ax, ay in _places(box, w, h, thick)]


def _places(box: Sequence[float], w: float, h: float, thick: float) -> list[tuple[float, float]]:
    """:func:`label_anchors` before they are kept inside the image."""
    x1, y1, x2, y2 = box
    half = thick / 2
    return [(x1 - half, y1 - half - h), (x1 - half, y2 + half), (x1 - half - w, y1 - half),
            (x1 + half, y1 + half), ((x1 + x2 - w) / 2, (y1 + y2 - h) / 2),
            ((x1 + x2 - w) / 2, y1 - half - h), ((x1 + x2 - w) / 2, y2 + half)]


def off_image(box: Sequence[float], w: float, h: float, thick: float, size: tuple[int, int], place: int) -> bool:
    """Whether a ``w`` x ``h`` label at ``place`` (index in :func:`label_anchors`) of ``box`` leaves the image."""
    ax, ay = _places(box, w, h, thick)[place]
    return not (0 <= ax <= size[0] - w and 0 <= ay <= size[1] - h)


def _anchor_distances(label: Sequence[float], box: Sequence[float], thick: float, size: tuple[int, int]) -> list[float]:
    bx1, by1, bx2, by2 = label
    return [float(np.hypot(bx1 - ax, by1 - ay)) for ax, ay in label_anchors(box, bx2 - bx1, by2 - by1, thick, size)]


def placement_cost(label: Sequence[float], box: Sequence[float], thick: float, size: tuple[int, int]) -> float:
    """Distance (px) from a label's top-left corner (``label``: x1, y1, x2, y2) to the nearest usual label place of
    ``box`` (:func:`label_anchors`)."""
    return min(_anchor_distances(label, box, thick, size))


def match_limit(label: Sequence[float]) -> float:
    """Farthest (px) a label (x1, y1, x2, y2) is matched from a usual label place of a box (:func:`placement_cost`):
    MATCH_MIN, or MATCH_SHARE of the label's height for a tall one."""
    return max(MATCH_MIN, MATCH_SHARE * (label[3] - label[1]))


def placement(label: Sequence[float], box: Sequence[float], thick: float, size: tuple[int, int]) -> int:
    """Index in :func:`label_anchors` of the usual place of ``box`` nearest to ``label``."""
    d = _anchor_distances(label, box, thick, size)
    return d.index(min(d))


def integral(mask: np.ndarray) -> np.ndarray:
    """Integral image (H + 1, W + 1) of a 0/1 mask."""
    return cv2.integral(mask.astype(np.uint8), sdepth=cv2.CV_32S)


def cumsums(ii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Zero-padded cumulative sums along rows (H, W + 1) and along columns (H + 1, W) of a mask, from its integral
    image ``ii``."""
    return np.diff(ii, axis=0), np.diff(ii, axis=1)


@dataclasses.dataclass(frozen=True)
class MaskSums:
    """Cumulative sums (:func:`cumsums`) of the masks the rectangle search reads (:mod:`tools.regions.lines`): of
    the overlay mask, of what hides an outline, of the strokes off filled labels; and the integral images of the
    mask and of those strokes. Computed once and transposed for the search across horizontal lines."""

    mask: tuple[np.ndarray, np.ndarray]
    cover: tuple[np.ndarray, np.ndarray]
    ring: tuple[np.ndarray, np.ndarray]
    area: np.ndarray
    thin_area: np.ndarray

    @classmethod
    def of(cls, mask: np.ndarray, hidden: np.ndarray, thin: np.ndarray) -> MaskSums:
        area, thin_area = integral(mask), integral(thin)
        return cls(cumsums(area), cumsums(integral(hidden)), cumsums(thin_area), area, thin_area)

    def transposed(self) -> MaskSums:
        """The sums of the transposed masks: sums along rows become sums along columns."""
        (mr, mc), (cr, cc), (rr, rc) = self.mask, self.cover, self.ring
        return MaskSums((mc.T, mr.T), (cc.T, cr.T), (rc.T, rr.T), self.area.T, self.thin_area.T)


def interior_drawn(ii: np.ndarray, box: tuple[int, int, int, int], r: int) -> float:
    """Drawn share of a box's inside (``ii``: integral image of the mask): a filled label background is mostly
    drawn, a box's inside is background with at most a label in it."""
    x1, y1, x2, y2 = box
    a, b, c, d = x1 + r + 1, x2 - r, y1 + r + 1, y2 - r
    if b - a < 2 or d - c < 2:
        return 1.0
    return float(ii[d, b] - ii[c, b] - ii[d, a] + ii[c, a]) / ((b - a) * (d - c))


def inner_ring_drawn(row_cs: np.ndarray, col_cs: np.ndarray, box: tuple[int, int, int, int], r: int) -> float:
    """Median over the four sides of the drawn share of the 1 px ring just inside the outline.

    An outline encloses background; a label may cover one or two sides of the ring, letters and the gaps of a
    label background cover most of it.
    """
    x1, y1, x2, y2 = box
    off = r + 2
    a, b, c, d = x1 + off, x2 - off, y1 + off, y2 - off
    if b - a < 2 or d - c < 2:
        return 1.0
    top = (row_cs[c, b] - row_cs[c, a]) / (b - a)
    bottom = (row_cs[d, b] - row_cs[d, a]) / (b - a)
    left = (col_cs[d, a] - col_cs[c, a]) / (d - c)
    right = (col_cs[d, b] - col_cs[c, b]) / (d - c)
    return float(np.median([top, bottom, left, right]))


# other colours hide an outline where they are drawn, closed over this square (px): the letters of a label whose
# padding is too thin for it to be found filled (tools.regions.fill.filled_areas) hide it as the label does; dev
# overlays (seeds 1/11/21): no closing 912/877/870 exact regions, 7 px 913/877/871, 11 px 912/877/870
OCCLUDER_CLOSE = np.ones((7, 7), np.uint8)


def occluders(masks: list[np.ndarray], filled: list[np.ndarray]) -> list[np.ndarray]:
    """Per overlay colour (``masks``, with their ``filled`` label areas), what may hide its outlines: the other
    colours' pixels and filled labels closed over OCCLUDER_CLOSE, and the letter holes of its own filled labels
    (closing its own letters would make a label drawn across its box read as lines)."""
    labels = [fill > 0 for fill in filled]
    covers = [mask | label for mask, label in zip(masks, labels)]
    if not covers:
        return []
    drawn = np.sum(covers, axis=0, dtype=np.uint8)   # how many colours cover each pixel
    out = []
    for mask, label, cover in zip(masks, labels, covers):
        others = cv2.morphologyEx((drawn > cover).astype(np.uint8), cv2.MORPH_CLOSE, OCCLUDER_CLOSE) > 0
        out.append((others | label) & ~mask)
    return out


MIN_HOLE = 5   # px, the shortest letter hole counted in a filled label (shorter: a gap to a line, a JPEG bite)


def text_shift(holes: np.ndarray) -> int | None:
    """How much further (px) a filled label's letters sit from its left edge than from its right one (negative:
    nearer the left); ``holes``: bool, the label box's pixels not drawn in the overlay mask, of which the letters
    are those enclosed and >= MIN_HOLE px tall. None when there are none. A renderer pads text evenly, so a shift
    is a line glued to one side."""
    hh, ww = holes.shape
    n, _, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=8)
    keep = [(x, x + w - 1) for x, y, w, h, _ in stats[1:n] if x > 0 and y > 0 and x + w < ww and y + h < hh
            and h >= MIN_HOLE]
    if not keep:
        return None
    return min(a for a, _ in keep) - (ww - 1 - max(b for _, b in keep))


# an outline side runs across a label's rows when it covers this share of them, and is no letter when it is this
# many label heights long (a digit is one label height at most)
SIDE_ACROSS, SIDE_LONG = 0.75, 1.5


def off_sides(label: tuple[int, int, int, int], rects: Sequence[tuple[Sequence[float], float]],
              pad: int = 0) -> tuple[int, int, int, int]:
    """``label`` (a label box to read, px) cut off the vertical outline sides of ``rects`` (box at the outline's
    centre line, outline width) that run across its rows at its left or right end: the picture reader reads such a
    side as a "1" before or after the number ("8" beside another box's side read "18"). A side is at the end when
    its band (JPEG blurs it by a px) holds the label's end column; ``pad``: px the reader adds around the box
    (stroke labels), kept off the band too. The cut must leave half the label: a side farther in crosses letters."""
    x1, y1, x2, y2 = label
    h = y2 - y1
    for (bx1, by1, bx2, by2), t in rects:
        if by2 - by1 < SIDE_LONG * h or min(by2, y2) - max(by1, y1) < SIDE_ACROSS * h:
            continue
        for side in (bx1, bx2):
            lo, hi = int(np.floor(side - t / 2)) - 1, int(np.ceil(side + t / 2)) + 1
            if lo <= x1 < hi:
                x1 = hi + pad
            elif lo < x2 <= hi:
                x2 = lo - pad
    return (x1, y1, x2, y2) if 2 * (x2 - x1) >= label[2] - label[0] else label
