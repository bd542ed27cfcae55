"""Find and read the label of each thin drawn rectangle (:mod:`tools.regions.thin`) wherever renderers put it.

Renderers write a region's id in the box's colour: as letters ("Region 3" centred above the box, SpatialUAV), as
bare digits next to a corner (BEDI), or as white / black text on a filled tag (on the top-left corner, outside or
inside) or marker (a circle or square at the box's centre, Set-of-Mark). All of these are a patch of the box's
colour near one of a few anchor points of the box, so one mechanism serves them:

1. Ink: pixels near the box (within REACH label heights) whose colour lies within INK_TOL of the box's line
   colour (or of its hue) and holds more of its chroma than the picture around them (INK_CONTRAST: on ground of
   the label's own hue, sunlit grass under yellow digits, the hue alone takes the ground too), minus the box's
   own lines and specks with fewer than two ink neighbours (a white, light grey or pale label has little hue: its
   ink is found by how much brighter than the picture under it it is, :mod:`tools.regions.light`); letters are
   joined into words by closing gaps narrower than WORD_GAP label heights; a filled tag or marker is one piece
   with the text as holes.
2. Place (:mod:`tools.regions.mark_places`): each piece's distance from the anchor of each placement (e.g. its
   bottom centre from the box's top centre), in label heights; every box takes the piece nearest to one of its
   anchors, one piece per box (``scipy.optimize.linear_sum_assignment``), within MAX_COST, among the pieces that the
   ink of its colour found whole (a box of another colour may see a part of a label); where nearly all of an
   image's labels sit at one place, a piece elsewhere loses ties.
3. Read: the piece's box is read off the picture by the label recognizer (:mod:`tools.regions.label_reader`, which reads
   the number of "Region 3" as of "3", on a fill or in strokes).

Label height: EXPECTED_HEIGHT of the image height, at least MIN_HEIGHT px (what renderers draw, 1-2 %).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from tools.regions.fill import is_disc, letters_on_fill
from tools.regions.geom import pixel_iou, share_within
from tools.regions.light import LIGHT_PAD, background, letters_at, light_ink, light_reads
from tools.regions.mark_places import anchor_point, place_cost, supported_place, usual_place
from tools.regions.strokes import light as is_light, neutral
from tools.regions.thin import Rect

EXPECTED_HEIGHT = 0.015   # label height as a share of the image height
MIN_HEIGHT = 14.0         # px, smallest label height looked for
REACH = 3.0               # label heights around a box searched for its label
INK_COS = 0.9            # least cosine between a letter pixel's chroma and the box colour's
INK_CHROMA = 0.45        # least share of the box colour's chroma a letter pixel keeps
INK_CONTRAST = 0.3       # least share of the box colour's chroma by which a letter pixel's exceeds its surround's
INK_TOL = 80.0            # RGB distance of a label's ink from the box's line colour
WORD_SPACE = 1.2         # label heights: widest space between two words of one label
WORD_GAP = 0.6            # label heights: gaps between letters of one label that are closed
MIN_INK = 12              # px, fewest pixels of a label piece
MAX_LABEL = 8.0           # label heights: widest label piece (a long "Region 12")
MIN_ASPECT = 0.6         # label heights: narrowest label box read (a lone "1" is narrower)
MARKER_INSET = 0.12      # share of a marker's width and height cut off each side before it is read
MARKER_REACH = 3.0        # label heights around a box's centre searched for a neutral marker
NEUTRAL_LIGHT, NEUTRAL_DARK = 190, 60   # least channel of a white marker, most channel of a black one
# near-white and near-black: a white marker on pale pavement (a black one on shadow) merges with the ground at the
# levels above, while JPEG keeps a marker's inside within a few levels of pure white (black)
PURE_LIGHT, PURE_DARK = 235, 25
MARKER_MIN, MARKER_MAX = 0.8, 4.5       # label heights: a marker's side
MAX_COST = 2.0            # label heights: farthest a piece may lie from its anchor
# a box lying this much (share of its area) within a label piece at least WORD_ASPECT times as wide as high is a
# letter of that word closed into a rectangle (the "o" of "Region"), not a box; a marker is about as wide as high
IN_WORD, WORD_ASPECT = 0.6, 1.5


@dataclasses.dataclass
class Mark:
    """A label read for a rectangle: its id (None when unreadable), the recognizer's text and confidence, where
    the label lies (px) and the placement it takes."""

    id: int | None
    text: str
    confidence: float
    label_box: tuple[int, int, int, int]
    place: str


def label_height(image_height: int) -> float:
    """The label height (px) looked for in an image ``image_height`` px tall."""
    return max(MIN_HEIGHT, EXPECTED_HEIGHT * image_height)


def ink_pieces(rgb: np.ndarray, rect: Rect, rects: Sequence[Rect], height: float, light: bool = False
               ) -> list[tuple[int, int, int, int]]:
    """Label-sized pieces of ``rect``'s colour around it (image px, inclusive), its own and the other rectangles'
    lines taken out. ``light``: the ink of a light label (white, pale: :mod:`tools.regions.light`), which never
    runs across its box's line: white of the picture inside the box (twigs, road marks) is kept apart from a label
    beside it."""
    img_h, img_w = rgb.shape[:2]
    reach = int(REACH * height)
    x1, y1, x2, y2 = rect.box
    wx1, wy1 = max(0, x1 - reach), max(0, y1 - reach)
    wx2, wy2 = min(img_w - 1, x2 + reach), min(img_h - 1, y2 + reach)
    win = rgb[wy1:wy2 + 1, wx1:wx2 + 1].astype(np.float32)
    colour = np.asarray(rect.colour, np.float32)
    around = background(win, height) if light else _surround(win, height)
    ink = is_ink(win, colour, around, light).astype(np.uint8)
    for other in rects:   # lines are no ink
        _erase_lines(ink, other, (wx1, wy1))
    # a letter stroke is a run of ink; specks of the picture (sunlit leaves) have fewer than two ink neighbours
    ink &= (cv2.filter2D(ink, -1, np.ones((3, 3), np.float32), borderType=cv2.BORDER_CONSTANT) >= 3).astype(np.uint8)
    gap = max(1, int(round(WORD_GAP * height)))
    joined = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (gap, 1)))
    if light:
        _erase_lines(joined, rect, (wx1, wy1))
    n, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    out = []
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < MIN_INK or h < 0.4 * height or h > 3.0 * height or w > MAX_LABEL * height:
            continue
        out.append((wx1 + x, wy1 + y, wx1 + x + w - 1, wy1 + y + h - 1))
    if not light:
        return words(out)
    inside = [p for p in out if _centre_in(p, rect.box)]
    return words(inside) + words([p for p in out if not _centre_in(p, rect.box)])


def _centre_in(piece: tuple[int, int, int, int], box: tuple[int, int, int, int]) -> bool:
    """The centre of ``piece`` lies inside ``box`` (both inclusive px)."""
    cx, cy = (piece[0] + piece[2]) / 2, (piece[1] + piece[3]) / 2
    return box[0] < cx < box[2] and box[1] < cy < box[3]


def words(pieces: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``pieces`` with those on one row and less than WORD_SPACE of their height apart joined ("Region" and
    "12"), as long as the joined piece stays within MAX_LABEL heights wide."""
    merged = sorted(pieces)
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                a, b = merged[i], merged[j]
                ha, hb = a[3] - a[1] + 1, b[3] - b[1] + 1
                overlap = min(a[3], b[3]) - max(a[1], b[1]) + 1
                gap = max(a[0], b[0]) - min(a[2], b[2]) - 1
                joined = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                if (overlap >= 0.6 * min(ha, hb) and max(ha, hb) <= 1.6 * min(ha, hb)
                        and gap <= WORD_SPACE * max(ha, hb)
                        and joined[2] - joined[0] + 1 <= MAX_LABEL * (joined[3] - joined[1] + 1)):
                    merged[i] = joined
                    del merged[j]
                    changed = True
                    break
            if changed:
                break
    return merged


def _surround(win: np.ndarray, height: float) -> np.ndarray:
    """The picture around each pixel of ``win``: the mean over a square two label heights wide (letters are a
    small share of it)."""
    k = max(3, int(2 * height) | 1)
    return cv2.blur(win, (k, k), borderType=cv2.BORDER_REFLECT)


def is_ink(pixels: np.ndarray, colour: np.ndarray, surround: np.ndarray | None = None, light: bool = False
           ) -> np.ndarray:
    """Pixels of a label drawn in ``colour``: within INK_TOL of it, or of its hue (chroma parts within INK_COS)
    with INK_CHROMA of its chroma (anti-aliased and JPEG-greyed letter strokes), but never a grey or a dull
    colour of the picture. ``light``: a light colour (white, light grey, pale) has little hue: its ink is what
    lies within INK_TOL of it, or given the picture under it as ``surround``,
    :func:`tools.regions.light.light_ink` (white is in the picture too)."""
    p = pixels.astype(np.float32)
    d = np.linalg.norm(p - colour, axis=-1)
    if light:
        return d <= INK_TOL if surround is None else light_ink(p, colour, surround.astype(np.float32))
    pc, cc = p - p.mean(axis=-1, keepdims=True), colour - colour.mean()
    pn, cn = np.linalg.norm(pc, axis=-1), float(np.linalg.norm(cc))
    hue = (pc @ cc) >= INK_COS * pn * cn
    ink = ((d <= INK_TOL) | (hue & (d <= 2 * INK_TOL))) & (pn >= INK_CHROMA * cn)
    if surround is None or cn < 1.0:
        return ink
    # on ground of the label's own hue (yellow digits on sunlit grass) the hue test takes the ground too: a
    # letter pixel holds more of the colour's chroma than the picture around it, by INK_CONTRAST of that chroma
    s = surround.astype(np.float32)
    along = (pc - (s - s.mean(axis=-1, keepdims=True))) @ (cc / cn)
    return ink & (along >= INK_CONTRAST * cn)


def _erase_lines(ink: np.ndarray, rect: Rect, origin: tuple[int, int]) -> None:
    """Clear ``rect``'s four line bands (its thickness plus one px each way) in ``ink``, a window at ``origin``."""
    ox, oy = origin
    x1, y1, x2, y2 = (rect.box[0] - ox, rect.box[1] - oy, rect.box[2] - ox, rect.box[3] - oy)
    t = rect.thick + 1
    h, w = ink.shape

    def clear(a: int, b: int, c: int, d: int) -> None:   # rows a..b, columns c..d, clipped to the window
        a, b, c, d = max(0, a), min(h - 1, b), max(0, c), min(w - 1, d)
        if a <= b and c <= d:
            ink[a:b + 1, c:d + 1] = 0

    clear(y1 - 1, y1 + t, x1 - 1, x2 + 1)
    clear(y2 - t, y2 + 1, x1 - 1, x2 + 1)
    clear(y1 - 1, y2 + 1, x1 - 1, x1 + t)
    clear(y1 - 1, y2 + 1, x2 - t, x2 + 1)


def letter_of(box: Sequence[float], piece: Sequence[float]) -> bool:
    """``box`` (px) is a letter of the word ``piece`` (inclusive px) closed into a rectangle (IN_WORD, WORD_ASPECT)."""
    return piece[2] - piece[0] + 1 >= WORD_ASPECT * (piece[3] - piece[1] + 1) and share_within(box, piece) >= IN_WORD


def _contains(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Piece ``a`` holds piece ``b``."""
    return a[0] <= b[0] and a[1] <= b[1] and a[2] >= b[2] and a[3] >= b[3]


def _label_box(piece: tuple[int, int, int, int], marker: bool) -> tuple[float, float, float, float]:
    """The recognizer's label box (end-exclusive px) for an inclusive piece, at least MIN_ASPECT heights wide (a
    lone "1"); a marker (a filled circle or square at a box's centre) is read inside its rim (MARKER_INSET)."""
    x1, y1, x2, y2 = piece[0], piece[1], piece[2] + 1.0, piece[3] + 1.0
    if marker:
        dx, dy = MARKER_INSET * (x2 - x1), MARKER_INSET * (y2 - y1)
        x1, y1, x2, y2 = x1 + dx, y1 + dy, x2 - dx, y2 - dy
    grow = max(0.0, MIN_ASPECT * (y2 - y1) - (x2 - x1)) / 2
    return x1 - grow, y1, x2 + grow, y2


def read_marks(rgb: np.ndarray, rects: Sequence[Rect]) -> list[Mark | None]:
    """One label per rectangle (None where none lies near it): pieces of ink matched to boxes by placement, then
    read by the label recognizer. Light boxes (:func:`tools.regions.strokes.light`) left unread, and white or
    light grey ones, are read again by their light labels' ink (:mod:`tools.regions.light`): a thin line in a
    saturated colour that JPEG greyed looks as light as a pale one, and its label keeps its colour."""
    if not rects:
        return []
    height = label_height(rgb.shape[0])
    colours = [np.asarray(r.colour, np.float32) for r in rects]
    out: list[Mark | None] = [None] * len(rects)
    coloured = [i for i, c in enumerate(colours) if not (is_light(c) and neutral(c))]
    for i, mark in _read_pass(rgb, rects, coloured, height, False, []).items():
        out[i] = mark
    unread = [i for i, c in enumerate(colours) if is_light(c) and (out[i] is None or out[i].id is None)]
    taken = [m.label_box for m in out if m is not None and m.id is not None]
    for i, mark in _read_pass(rgb, rects, unread, height, True, taken).items():
        if mark.id is not None or out[i] is None:
            out[i] = mark
    return _neutral_markers(rgb, rects, out, height)


def _read_pass(rgb: np.ndarray, rects: Sequence[Rect], todo: list[int], height: float, light: bool,
               taken: list[tuple[int, int, int, int]]) -> dict[int, Mark]:
    """Marks of the rectangles ``todo`` (indices into ``rects``) read by their coloured or ``light`` labels' ink;
    pieces on a label another box took (``taken``) are none."""
    from tools.regions.label_reader import READER

    pieces: list[tuple[int, int, int, int]] = []
    # the line colours of the rectangles whose ink found each piece whole: a box of another colour nearby may see
    # a part of a label (the strokes near its own hue), which then is no label of its colour
    inks: list[list[np.ndarray]] = []
    for i in todo:
        colour = np.asarray(rects[i].colour, np.float32)
        for p in ink_pieces(rgb, rects[i], rects, height, light):
            if any(pixel_iou(p, t) > 0 for t in taken):   # shares a pixel with a taken label
                continue
            held = [k for k, q in enumerate(pieces) if _contains(q, p) or _contains(p, q)]
            if not held:
                pieces.append(p)
                inks.append([colour])
            elif p in pieces:
                inks[pieces.index(p)].append(colour)
            elif all(_contains(p, pieces[k]) for k in held):   # a window that cut a label short saw a part of it
                pieces[held[0]], inks[held[0]] = p, [colour]
    if not pieces:
        return {}
    boxes_of = [rects[i] for i in todo]
    cost, names = _costs(boxes_of, pieces, inks, height, light)
    chosen = _matched(cost)
    usual = (usual_place([names[i, j] for i, j in chosen.items()])
             or supported_place([r.box for r in boxes_of], pieces, height, light))
    if usual is not None:   # a label at another place than nearly all the others' loses ties
        cost, names = _costs(boxes_of, pieces, inks, height, light, usual)
        chosen = _matched(cost)
    order = sorted(chosen)
    boxes = [_label_box(pieces[chosen[k]], names[k, chosen[k]] == "centre") for k in order]
    if light:
        cores = [_label_box(letters_at(rgb, pieces[chosen[k]], anchor_point(boxes_of[k].box, names[k, chosen[k]],
                                                                             True), height,
                                         _ink_of(inks[chosen[k]], boxes_of[k], light)), False)
                 for k in order]
        reads = light_reads(rgb, boxes, LIGHT_PAD * height, cores)
    else:
        reads = READER.read(rgb, boxes)
        for n, k in enumerate(order):   # a marker drawn as a disc is read off its letters on its fill
            if names[k, chosen[k]] == "centre":
                reads[n] = _disc_read(rgb, pieces[chosen[k]], boxes_of[k].colour) or reads[n]
    return {todo[k]: Mark(rid, text, float(conf), pieces[chosen[k]], names[k, chosen[k]])
            for k, (rid, text, conf) in zip(order, reads)}


def _disc_read(rgb: np.ndarray, piece: tuple[int, int, int, int], colour: Sequence[float]
               ) -> tuple[int | None, str, float] | None:
    """The read of a marker piece (inclusive px) drawn as a disc in ``colour`` (:func:`tools.regions.fill.is_disc`)
    off its letters alone on its fill (:func:`tools.regions.fill.letters_on_fill`); None for another shape."""
    from tools.regions.label_reader import READER

    x1, y1, x2, y2 = piece
    crop = rgb[y1:y2 + 1, x1:x2 + 1]
    ink = is_ink(crop, np.asarray(colour, np.float32))
    box = (0, 0, crop.shape[1], crop.shape[0])
    if not is_disc(ink, box):
        return None
    patch, inner = letters_on_fill(crop, ink, box)
    return READER.read(patch, [inner])[0]


def _ink_of(colours: list[np.ndarray], rect: Rect, light: bool) -> np.ndarray:
    """The colour, of those a piece was found in, that is ink of ``rect``'s colour (the first, where none is)."""
    own = np.asarray(rect.colour, np.float32)
    return next((c for c in colours if is_ink(c, own, light=light)), colours[0])


def _costs(rects: Sequence[Rect], pieces: list[tuple[int, int, int, int]], inks: list[list[np.ndarray]],
           height: float, light: bool, usual: str | None = None) -> tuple[np.ndarray, dict[tuple[int, int], str]]:
    """(rectangles x pieces) placement costs (:func:`place_cost`; inf for a piece of another colour, and for a
    word a rectangle lies in, :func:`letter_of`) and the place each pair takes (``light``: of light labels)."""
    cost = np.full((len(rects), len(pieces)), np.inf)
    names: dict[tuple[int, int], str] = {}
    for i, rect in enumerate(rects):
        for j, p in enumerate(pieces):
            if letter_of(rect.box, p) or not any(is_ink(c, np.asarray(rect.colour, np.float32), light=light)
                                                 for c in inks[j]):
                continue
            ph = max(p[3] - p[1] + 1, 0.5 * height)
            cost[i, j], names[i, j] = place_cost(p, rect.box, ph, usual, light)
    return cost, names


def _matched(cost: np.ndarray) -> dict[int, int]:
    """Rectangle -> piece, one piece per rectangle, least total cost, each within MAX_COST."""
    rows, cols = linear_sum_assignment(np.where(cost <= MAX_COST, cost, 1e6))
    return {int(i): int(j) for i, j in zip(rows, cols) if cost[i, j] <= MAX_COST}


def _neutral_markers(rgb: np.ndarray, rects: Sequence[Rect], marks: list[Mark | None], height: float
                     ) -> list[Mark | None]:
    """Boxes left without a read: a white or black marker at the centre (Set-of-Mark draws the number on one, in
    the box colour or neutral) is read where one lies."""
    from tools.regions.label_reader import READER

    todo = [(i, m) for i, r in enumerate(rects) if (marks[i] is None or marks[i].id is None)
            and (m := centre_marker(rgb, r.box, height)) is not None]
    # a black marker's white number is read in negative (the recognizer reads dark numbers on light)
    dark = [float(np.median(rgb[m[1]:m[3] + 1, m[0]:m[2] + 1].max(axis=2))) <= NEUTRAL_DARK for _, m in todo]
    reads: list[tuple[int | None, str, float]] = [(None, "", 0.0)] * len(todo)
    for polarity in (False, True):
        idx = [k for k, d in enumerate(dark) if d == polarity]
        boxes = [_label_box(todo[k][1], True) for k in idx]
        for k, read in zip(idx, READER.read(rgb, boxes, invert=polarity)):
            reads[k] = read
    for (i, m), (rid, text, conf) in zip(todo, reads):
        if rid is not None:
            marks[i] = Mark(rid, text, float(conf), m, "centre")
    return marks


def centre_marker(rgb: np.ndarray, box: Sequence[int], height: float) -> tuple[int, int, int, int] | None:
    """A white or black compact blob (a filled circle or square) on the centre of ``box``: its inclusive extent;
    looked for again at near-white and near-black levels where ground as light (dark) joins it to a larger blob."""
    cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    r = int(MARKER_REACH * height)
    x1, y1 = max(0, cx - r), max(0, cy - r)
    win = rgb[y1:cy + r + 1, x1:cx + r + 1]
    if win.size == 0:
        return None
    least, most = win.min(axis=2), win.max(axis=2)
    for blob in (least >= NEUTRAL_LIGHT, most <= NEUTRAL_DARK, least >= PURE_LIGHT, most <= PURE_DARK):
        filled = cv2.morphologyEx(blob.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(filled, connectivity=8)
        best: tuple[float, tuple[int, int, int, int]] | None = None
        for k in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[k])
            if not (MARKER_MIN * height <= min(w, h) and max(w, h) <= MARKER_MAX * height
                    and max(w, h) <= 1.4 * min(w, h) and area >= 0.5 * w * h):
                continue
            d = float(np.hypot(x + w / 2 - (cx - x1), y + h / 2 - (cy - y1)))
            if d <= 0.5 * max(w, h) and (best is None or d < best[0]):
                best = (d, (x1 + x, y1 + y, x1 + x + w - 1, y1 + y + h - 1))
        if best is not None:
            return best[1]
    return None
