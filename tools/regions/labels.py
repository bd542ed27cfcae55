"""Label blobs of one overlay colour for :mod:`tools.regions.pipeline`: what is left of the colour mask once the outlines
are removed, grouped into filled label backgrounds (letters are their holes) and words written in coloured strokes.
Boxes are (x1, y1, x2, y2) px with exclusive ends; masks are (H, W) bool.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from tools.regions.geom import drawn_extent, enclosed, inside_outline, within
from tools.regions.ocr import FILL_PAD, LETTER_PAD, LabelBlob
from tools.regions.prune import LABEL_MAX_H, LABEL_MAX_W
from tools.regions.rows import WORD_JOIN, merge_letters, stacked_rows

BG_EDGE = 0.7                # a label background: 3 of its 4 box sides (1 px in) at least this drawn
LINE_PIECE = 8                 # px; a component over 5 x this long and 5 x its width is an outline (or a label)
OUTLINE_HALO = 2               # px added to an outline's measured width when it is erased (JPEG halo)
BRIDGE_MARGIN = 1              # px beyond an erased outline where letters it crosses must go on (see _bridges)
FLIP_EDGE = 0.8               # a stroke blob read as a label background too: sides this drawn (a bold "0" is round)
BAR_ASPECT, BAR_FILL = 0.4, 0.85  # a stroke blob this narrow (w/h) and this solid is an outline piece, not a "1"
CUT_HEIGHT = 0.15            # a background piece cut off by an erased side: heights this close (share of height)
MAX_CUT = 16                 # px, widest erased outline between two pieces of one label background
DIGIT_WIDTH = 0.6            # a digit's width in label heights (upright fonts)
WORD_WIDTH = 2.5             # a stroke blob this many times as wide as high is a word ("Region")
# a rectangle or "filled" blob this narrow (w/h) next to a stroke letter of its height is a letter ("0" of "10")
GLYPH_ASPECT, GLYPH_GAP, GLYPH_HEIGHT = 0.85, 0.5, (0.7, 1.5)
# a rectangle that a stroke "0" closes is no taller than the letters beside it (the digits of a number share their
# height, a word's descenders make it taller): on overlays of seeds 701-710 the rectangles next to a stroke label
# that matched no drawn box had the letters beside them at 0.94-1.49 of their height (outline's half thickness
# added; three pieces of other boxes and labels 0.70-0.90), the six small boxes drawn just right of their labels,
# taken for a "0" before, 0.70-0.88
RECT_GLYPH_HEIGHT = (0.83, GLYPH_HEIGHT[1])
BOLD_ASPECT = 1.0   # the same for a bold digit that looks filled: a bold "0" is about as wide as high
# a small rectangle of a letter's shape (w <= LETTER_ASPECT x h) whose inside is mostly a label's text colour
# (>= TEXT_INSIDE), with the overlay colour in it (>= FILL_INSIDE: the letter's holes, the fill beside it) and no
# filled label found there, while the picture just above and below it is not of that colour (<= TEXT_AROUND; the
# letters' colour is the one of black and white that fills more of the inside: white pavement around black letters
# is no text; dev overlay 11:156), is a label's fill
# closed around a bold letter too thick for the closing that finds label backgrounds (dev overlays, seeds 41/51:
# such rectangles measured 0.38-0.66 text inside, boxes up to 0.51 with no overlay colour inside)
LETTER_ASPECT, TEXT_INSIDE, FILL_INSIDE, TEXT_AROUND = 1.2, 0.35, 0.15, 0.15
TEXT_RING = 4                # px, rows looked at above and below such a rectangle (beyond its outline's band)
UNDER_LABEL = 0.5            # a rectangle on a label's rows with this share of its width under it, and holding less of
#                              the label, is a letter


def label_blobs(mask: np.ndarray, rects: list[tuple[list[float], float]],
                filled: np.ndarray) -> tuple[list[LabelBlob], np.ndarray]:
    """Text blobs: overlay pixels off the detected outlines, letters merged into words/lines; and the mask with
    every outline removed (bool), to read stroke letters from. ``filled``: :func:`tools.regions.fill.filled_areas`
    of the mask."""
    letters = np.zeros(mask.shape, bool)
    extent = drawn_extent(mask)
    if extent is None:
        return [], letters
    x0, y0, roi = extent
    shifted = [([b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0], t) for b, t in rects]
    blobs, letters[roi] = _label_blobs(mask[roi], shifted, filled[roi])
    return [LabelBlob((b.box[0] + x0, b.box[1] + y0, b.box[2] + x0, b.box[3] + y0), b.filled) for b in blobs], letters


def _label_blobs(mask: np.ndarray, rects: list[tuple[list[float], float]],
                 filled: np.ndarray) -> tuple[list[LabelBlob], np.ndarray]:
    """:func:`label_blobs` within a crop."""
    rest = mask.astype(np.uint8)
    filled_bg = cv2.dilate(filled, np.ones((3, 3), np.uint8))
    outlines = np.zeros_like(rest)
    for box, thick in rects:
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        cv2.rectangle(outlines, (x1, y1), (x2, y2), 1, int(round(thick)) + OUTLINE_HALO)
    rest[(outlines > 0) & (filled_bg == 0)] = 0   # outlines go, but a label background drawn over one stays whole
    bridges = _bridges(rest, mask, rects) & (outlines > 0)
    rest |= bridges
    n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    solid = np.bincount(labels[filled_bg > 0], minlength=n)   # filled_bg is 0/1
    filled, strokes = [], []
    for i, (x, y, w, h, a) in enumerate(stats[1:n], start=1):
        # a piece of an outline not found, unless it is a label background: a long one ("Region 20" in a tight
        # padding) is as elongated, but thicker than outlines
        piece = max(w, h) > LINE_PIECE * 5 and max(w, h) >= 5 * min(w, h)
        if piece and min(w, h) <= 2 * LINE_PIECE:
            continue
        if a >= 6 and 3 <= h <= 150 and w <= 800 and min(w, h) > 2:  # min: outline halo slivers
            bg = _off_outline_box(labels[y:y + h, x:x + w] == i, outlines[y:y + h, x:x + w], x, y)
            if _is_background(labels, i, bg, solid[i]):
                filled.append([bg[0], bg[1], bg[0] + bg[2], bg[1] + bg[3]])
            elif not piece and solid[i] and (both := _stacked_backgrounds(labels, i, bg, filled_bg, mask, outlines)):
                filled += both   # two backgrounds drawn against each other, not side by side
            elif not piece:
                strokes.append([int(x), int(y), int(x + w), int(y + h)])
    _join_cut_backgrounds(filled, strokes, outlines)
    # bold letters that look filled ("0" of "10"); two backgrounds one on the other are read apart
    letters = [b for b in filled if next_letter(b, strokes, aspect=BOLD_ASPECT)]
    filled = [part for b in filled if b not in letters for part in stacked_rows(b, mask, outlines)]
    blobs = [LabelBlob(tuple(b), True) for b in filled if _label_sized(b)]
    pieces = strokes + letters
    for word in merge_letters(list(pieces)):
        # specks of the overlay's hue (a sunlit hedge) can chain letters into a group no label is as large as:
        found = [word]
        if not _label_sized(word):   # its text lines are looked at instead, then its single pieces
            word_pieces = [p for p in pieces if within(p, word)]
            found = [w for w in merge_letters(list(word_pieces), lines_only=True) if _label_sized(w)]
            found += [p for p in word_pieces if _label_sized(p) and not any(within(p, w) for w in found)]
        blobs += [LabelBlob(tuple(w), False) for w in found if not _is_bar(rest[w[1]:w[3], w[0]:w[2]])]
    # stroke letters: every outline goes (bold digits glued to one look filled)
    return [b for b in blobs if not _letter_island(b, blobs)], (mask & (outlines == 0)) | (bridges > 0)


def _bridges(rest: np.ndarray, mask: np.ndarray, rects: list[tuple[list[float], float]]) -> np.ndarray:
    """Outline pixels (uint8 0/1) under letters that a horizontal side crosses: drawn pixels of the side with
    letter strokes right above and below it (a morphological closing across it). Erasing the side cut those
    strokes in two. The sides are taken BRIDGE_MARGIN px wider on each edge than they are erased, so that the halo
    an erased outline leaves is no letter; a letter ending under a side is bridged by :func:`_letter_ends`. Not
    done across vertical sides: a label glued beside one then gains a bar (dev overlays: "9" read "90", "10" read
    "101")."""
    sides, ends = np.zeros_like(rest), np.zeros_like(rest)
    reach = 1
    for box, thick in rects:
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        t = int(round(thick)) + OUTLINE_HALO + 2 * BRIDGE_MARGIN
        reach = max(reach, t + 2)
        for y in (y1, y2):
            cv2.line(sides, (x1, y), (x2, y), 1, t)
            _letter_ends(ends, rest, mask, (max(0, x1), y - t // 2, x2 + 1, y - t // 2 + t))
    closed = cv2.morphologyEx(rest & (1 - sides), cv2.MORPH_CLOSE, np.ones((reach, 1), np.uint8))
    return (closed & sides | ends) & mask.astype(np.uint8)


def _letter_ends(out: np.ndarray, rest: np.ndarray, mask: np.ndarray, band: tuple[int, int, int, int]) -> None:
    """A letter that ends under a horizontal side (the flag of a "1" the side runs through): strokes go on from
    one side of the band (x1, y1, x2, y2) while the other side's margin, beyond the rows the line itself covers
    (drawn along most of it), is drawn from the line out to the band's edge in the same columns; the line alone
    leaves at most a JPEG halo there. Those columns of the band are drawn into ``out`` (a bridge)."""
    x1, y1, x2, y2 = band
    if y1 < 1 or y2 >= mask.shape[0] or x2 - x1 < 3:
        return
    sub = mask[y1:y2, x1:x2]
    core = np.flatnonzero(sub.mean(axis=1) >= 0.5)
    if len(core) == 0:
        return
    row = np.ones((1, 3), np.uint8)
    for near, far, out_row in ((y2, slice(0, core[0]), y1 - 1), (y1 - 1, slice(core[-1] + 1, y2 - y1), y2)):
        if far.start >= far.stop:
            continue
        # a piece drawn on past the band anywhere (a vertical outline, a box's corner, a shape in the picture)
        # ends no letter: runs of the band's outer row touching it are left out whole
        edge = sub[far.start if out_row < y1 else far.stop - 1]
        beyond = cv2.dilate(mask[out_row, x1:x2][None].astype(np.uint8), row)[0] > 0
        run = np.cumsum(np.diff(np.concatenate(([0], edge.astype(np.int8)))) == 1)
        free = edge & ~np.isin(run, run[edge & beyond])
        ends = sub[far].all(axis=0) & free & (cv2.dilate(rest[near, x1:x2][None], row)[0] > 0)
        out[y1:y2, x1:x2][:, ends] = 1


def _join_cut_backgrounds(filled: list[list[int]], strokes: list[list[int]], outlines: np.ndarray) -> None:
    """A label background drawn across another box's vertical side: the side is erased where the background is
    too narrow to be found as one (the "1" of "17" left of the side), leaving a stroke piece beside the background
    on its rows. Such a piece, at most an erased outline away (every column between them erased) and on the
    background's rows (heights within CUT_HEIGHT), joins the background, in place."""
    for f in filled:
        h = f[3] - f[1]
        for s in [s for s in strokes if abs((s[3] - s[1]) - h) <= CUT_HEIGHT * h
                  and min(f[3], s[3]) - max(f[1], s[1]) >= (1 - CUT_HEIGHT) * h]:
            lo, hi = (s[2], f[0]) if s[0] < f[0] else (f[2], s[0])
            if 0 <= hi - lo <= MAX_CUT and outlines[f[1]:f[3], lo:hi].any(axis=0).all():
                f[:] = [min(f[0], s[0]), min(f[1], s[1]), max(f[2], s[2]), max(f[3], s[3])]
                strokes.remove(s)


def is_word(box: Sequence[float]) -> bool:
    """A label box (x1, y1, x2, y2) at least WORD_WIDTH times as wide as high: a word ("Region"), not a number."""
    return box[2] - box[0] >= WORD_WIDTH * (box[3] - box[1])


def next_letter(box: list[int] | tuple[int, ...], strokes: list[list[int]], tol: float = 0.0,
                gap_max: float = GLYPH_GAP, aspect: float = GLYPH_ASPECT,
                heights: tuple[float, float] = GLYPH_HEIGHT) -> bool:
    """A box (x1, y1, x2, y2, outer edges) narrower than ``aspect`` x its height on the line of a stroke letter
    (the letter's height over the box's within ``heights``, overlapping vertically), at most ``gap_max`` x its
    height to the side (``tol`` px of overlap allowed): the next letter of one word (or, with a word gap, of the
    next word)."""
    x1, y1, x2, y2 = box
    h = y2 - y1
    if x2 - x1 > aspect * h:
        return False
    for bx1, by1, bx2, by2 in strokes:
        gap = max(bx1 - x2, x1 - bx2)
        if (heights[0] <= (by2 - by1) / h <= heights[1]
                and min(y2, by2) - max(y1, by1) >= 0.7 * min(h, by2 - by1) and -tol <= gap <= gap_max * h):
            return True
    return False


def letter_rects(rects: list[tuple[list[float], float]], blobs: list[LabelBlob]) -> list[int]:
    """Indices of rectangles that are letters of a word: a "0" drawn in strokes closes a small upright rectangle,
    next to a stroke letter (:func:`next_letter`; the rectangle's outer edges are its centre line plus half the
    outline's thickness) or a word space after a stroke word (the "0" of "Region 0"); or drawn inside a label: the
    edges of its letters and background close rectangles (a background cut by them may no longer look filled), and
    a box under a label would be hidden by it (a blob taller than a label, LABEL_MAX_H, may be outlines and letters
    run together)."""
    strokes = [list(b.box) for b in blobs if not b.filled]
    words = [b for b in strokes if is_word(b)]
    labels = [b.box for b in blobs if b.box[3] - b.box[1] <= LABEL_MAX_H]

    def letter(b: list[float], t: float) -> bool:
        outer = (b[0] - t / 2, b[1] - t / 2, b[2] + t / 2, b[3] + t / 2)
        grown = [(x1 - t, y1 - t, x2 + t, y2 + t) for x1, y1, x2, y2 in labels]
        return (next_letter(outer, strokes, t, heights=RECT_GLYPH_HEIGHT)
                or next_letter(outer, words, t, WORD_JOIN, heights=RECT_GLYPH_HEIGHT)
                or any(within(outer, g) or _under(outer, g) for g in grown))

    return [i for i, (b, t) in enumerate(rects) if letter(b, t)]


def _under(box: tuple[float, ...], label: tuple[float, ...]) -> bool:
    """A box (outer edges) on a label's rows with at least half its width under the label, and holding less than
    half of the label: the label would hide one side and half of its top and bottom, half its outline (no one could
    see such a box; a letter's strokes, or a label's fill around a letter, close it). A box around most of a label
    is one drawn around its own label (letters touching its sides join the label's blob)."""
    if not (box[1] >= label[1] and box[3] <= label[3]):
        return False
    across = min(box[2], label[2]) - max(box[0], label[0])
    held = across * (box[3] - box[1])
    return across >= UNDER_LABEL * (box[2] - box[0]) and held < UNDER_LABEL * (label[2] - label[0]) * (
        label[3] - label[1])


def filled_letters(rects: list[tuple[list[float], float]], rgb: np.ndarray, mask: np.ndarray,
                   filled: np.ndarray) -> list[int]:
    """Indices of rectangles that are a label's fill around a bold letter (see TEXT_INSIDE): ``rgb`` the image,
    ``mask`` the overlay colour's pixels, ``filled`` its :func:`tools.regions.fill.filled_areas`."""
    out = []
    for i, (b, t) in enumerate(rects):
        if b[3] - b[1] + t > LABEL_MAX_H or b[2] - b[0] > LETTER_ASPECT * (b[3] - b[1]):
            continue
        rows, cols = inside_outline(b, t, 1)
        inside = mask[rows, cols]
        if inside.size == 0 or filled[rows, cols].any() or inside.mean() < FILL_INSIDE:
            continue
        past = int(np.ceil(t / 2)) + 2   # beyond the outline's band
        above, below = int(b[1]) - past, int(np.ceil(b[3])) + past
        top = max(0, above - TEXT_RING)
        # a label's letters are one colour: the one of the two that fills more of the inside is looked for around
        text = max(_text_coloured(rgb[top:below + TEXT_RING, cols]),
                   key=lambda t: float(t[rows.start - top:rows.stop - top].mean()))
        around = np.concatenate([text[:max(0, above - top)].ravel(), text[below - top:].ravel()])
        if (text[rows.start - top:rows.stop - top].mean() >= TEXT_INSIDE
                and (around.size == 0 or around.mean() <= TEXT_AROUND)):
            out.append(i)
    return out


def _text_coloured(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (bool) of a label's text colours: black (dark, V < 70) and white (bright and grey)."""
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2HSV)
    return hsv[..., 2] < 70, (hsv[..., 1] < 40) & (hsv[..., 2] > 200)


def across_right_side(blob: LabelBlob, rects: list[tuple[list[float], float]],
                      blobs: list[LabelBlob] = ()) -> LabelBlob:
    """A stroke label that ends at (within a digit of) a vertical side crossing its rows goes on beyond it: a label
    wider than its box is drawn across the box's right side, or a label is drawn across another box's left side, and
    erasing the side took the letters under it ("Region" may end a word gap and a digit before its box's right side:
    a "1" whose foot touches the side went with it). Such a blob comes back widened past the side by one digit
    (DIGIT_WIDTH label heights), to be read off the picture; any other blob as it is. A label drawn outside a box's
    left (its top at the box's top edge) ends at that side by convention and is not widened. A stroke blob of
    ``blobs`` on the label's rows that starts within a word gap (WORD_JOIN heights) past the side is the rest of the
    label (its first letter erased with the side): the widened blob takes it in whole."""
    x1, y1, x2, y2 = blob.box
    digit = DIGIT_WIDTH * (y2 - y1)
    if blob.filled:
        return blob
    cy = (y1 + y2) / 2
    for (bx1, by1, bx2, by2), t in rects:
        if not by1 < cy < by2:
            continue
        side = bx2 + t / 2   # the side's outer edge
        # a word ("Region") may end a word gap before a number erased with the side
        reach = digit + (WORD_JOIN * (y2 - y1) if is_word(blob.box) else 0.0)
        if bx1 < (x1 + x2) / 2 < bx2 and side - t - OUTLINE_HALO - reach <= x2 <= side:
            return centred_across(blob, ((bx1, by1, bx2, by2), t), _past_side(blob, side, blobs))
        side = bx1 + t / 2   # a left side's inner edge
        if (x1 + x2) / 2 < bx1 and side - t - OUTLINE_HALO - digit <= x2 <= side \
                and abs(y1 - (by1 - t / 2)) > t + 2 * LETTER_PAD:
            return _past_side(blob, side, blobs)
    return blob


def centred_across(blob: LabelBlob, rect: tuple[Sequence[float], float], past: LabelBlob) -> LabelBlob:
    """``past`` (``blob`` widened past the right side of ``rect``, (box, outline px)) widened as far past the left
    side too when ``blob`` is a word (:func:`is_word`) that starts at that side, within a digit, in the box's
    middle rows: a "Region N" label centred in a box narrower than it is drawn across both sides ("Re|gion 16|"
    read "916" off its middle part). A number is no wider than a box; one centred in it stays inside."""
    (bx1, by1, bx2, by2), t = rect
    x1, y1, _, y2 = blob.box
    digit = DIGIT_WIDTH * (y2 - y1)
    if (not is_word(blob.box) or x1 > bx1 + t / 2 + OUTLINE_HALO + digit   # past the left side's inner edge
            or abs((y1 + y2) / 2 - (by1 + by2) / 2) > y2 - y1):
        return past
    left = int(round(bx1 + bx2 - past.box[2]))   # as far left of the centre as the right end is right of it
    return LabelBlob((max(0, left), y1, past.box[2], y2), False)


def _past_side(blob: LabelBlob, side: float, blobs: list[LabelBlob]) -> LabelBlob:
    """A stroke blob widened one digit past a side's edge (``side``, px), and to the end of any stroke blob on its
    rows that starts within a word gap past the edge (see :func:`across_right_side`)."""
    x1, y1, x2, y2 = blob.box
    h = y2 - y1
    end = side + DIGIT_WIDTH * h
    for o in blobs:
        ox1, oy1, ox2, oy2 = o.box
        if (not o.filled and side <= ox1 <= side + WORD_JOIN * h and ox2 > end
                and min(y2, oy2) - max(y1, oy1) >= 0.5 * min(h, oy2 - oy1)):
            end = ox2
    return LabelBlob((x1, y1, int(round(end)), y2), False)


def _letter_island(blob: LabelBlob, blobs: list[LabelBlob]) -> bool:
    """A blob that is part of a letter of another, no label: a stroke blob inside a label background (the island
    in a "0", "4", "8" of its text), or a "background" inside a stroke letter less than twice its height (the
    island of a bold "0", whose "hole" reads as a "1")."""
    def height(b: LabelBlob) -> int:
        return b.box[3] - b.box[1]

    return any(o.filled != blob.filled and within(blob.box, o.box)
               and (o.filled or height(o) < 2 * height(blob)) for o in blobs)


def _is_bar(crop: np.ndarray) -> bool:
    """A lone solid upright bar (a piece of an outline left after erasing): OCR reads it as "1", while a drawn
    "1" has a flag or foot that leaves part of its box empty."""
    h, w = crop.shape
    return w <= BAR_ASPECT * h and float(crop.mean()) >= BAR_FILL


def _is_background(labels: np.ndarray, i: int, box: tuple[int, int, int, int], solid: float) -> bool:
    """Component ``i`` within ``box`` (x, y, w, h) looks like a filled label background: mostly drawn, found by
    :func:`filled_areas`, its box's sides drawn, holding enclosed letters. ``solid``: its filled-area pixels."""
    x, y, w, h = box
    comp = labels[y:y + h, x:x + w] == i
    a = int(comp.sum())
    if not (a >= 0.5 * w * h and solid >= 0.3 * a and _edge_drawn(comp) >= BG_EDGE):
        return False
    # letters reaching into the outline band the box was trimmed off are enclosed by the component beyond it
    grown = labels[max(0, y - FILL_PAD):y + h + FILL_PAD, max(0, x - FILL_PAD):x + w + FILL_PAD] == i
    return enclosed(grown).sum() >= 0.08 * w * h


def _stacked_backgrounds(labels: np.ndarray, i: int, box: tuple[int, int, int, int], filled_bg: np.ndarray,
                         mask: np.ndarray, outlines: np.ndarray) -> list[list[int]]:
    """Component ``i`` as two label backgrounds one against the other, each of them one (:func:`_is_background`)
    once split (:func:`tools.regions.rows.stacked_rows`) and trimmed to the component's pixels off the outlines
    there (:func:`_off_outline_box`): staggered labels of stacked boxes make no rectangle together. ``box``: (x, y,
    w, h), the component's pixels off the outlines (:func:`_off_outline_box`). [] when it is not."""
    x, y, w, h = box
    parts = stacked_rows([x, y, x + w, y + h], mask, outlines)
    if len(parts) != 2:
        return []
    out = []
    for x1, y1, x2, y2 in parts:
        a, b, pw, ph = _off_outline_box(labels[y1:y2, x1:x2] == i, outlines[y1:y2, x1:x2], x1, y1)
        solid = int(((labels[b:b + ph, a:a + pw] == i) & (filled_bg[b:b + ph, a:a + pw] > 0)).sum())
        if not _is_background(labels, i, (a, b, pw, ph), solid):
            return []
        out.append([a, b, a + pw, b + ph])
    return out


def _off_outline_box(comp: np.ndarray, on_outline: np.ndarray, x: int, y: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of a component's pixels off the outline bands: a label background glued to an outline keeps
    a stub of it (the closing that finds backgrounds bridges the gap), which would skew its shape tests and crop.
    A label drawn across an outline keeps its whole box (it has pixels on both sides of the band)."""
    off = comp & (on_outline == 0)
    rows, cols = np.flatnonzero(off.any(axis=1)), np.flatnonzero(off.any(axis=0))
    if len(rows) == 0:
        return x, y, comp.shape[1], comp.shape[0]
    return x + int(cols[0]), y + int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def may_be_filled(mask: np.ndarray, blob: LabelBlob) -> bool:
    """A stroke blob that could be a label background after all (its box's sides mostly drawn); a bold round digit
    is not one (read as a background, the hole of a "0" reads as a "1")."""
    if blob.filled:
        return True
    x1, y1, x2, y2 = blob.box
    return _edge_drawn(mask[y1:y2, x1:x2]) >= FLIP_EDGE


def _edge_drawn(comp: np.ndarray) -> float:
    """Second-lowest drawn share of the four sides of a component's bounding box (1 px in): ~1 for a label
    background (a filled rectangle), well below for a bold letter with a loop ("e", "o", "9")."""
    if min(comp.shape) < 5:
        return 0.0
    sides = sorted(float(v.mean()) for v in (comp[1], comp[-2], comp[:, 1], comp[:, -2]))
    return sides[1]   # a label glued to an outline or a neighbour may lose one side


def _label_sized(box: list[int]) -> bool:
    """A box (x1, y1, x2, y2) of a label's size and shape."""
    h, w = box[3] - box[1], box[2] - box[0]
    return 8 <= h <= 120 and 3 <= w <= LABEL_MAX_W * h
