"""Filled label backgrounds of one overlay colour (used by :mod:`tools.regions.lines` and :mod:`tools.regions.pipeline`):
solid areas thicker than a line once the gaps between their letters are closed, holding letters (enclosed holes);
a background's box grown over its letters cut at its edge, for the picture read (:func:`with_cut_letters`); a
disc-shaped one read off its letters on its fill colour (:func:`disc_pictures`).
Masks are (H, W) uint8 0/1 or bool; boxes (x, y, w, h) are OpenCV component stats."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from tools.regions.frames import FRAMED, MIN_LETTER_SHARE, frame_around, frame_holds_letters
from tools.regions.geom import MAX_LINE, components, drawn_extent, enclosed, open_rect
from tools.regions.label_reader import READER
from tools.regions.ocr import FILL_PAD, LETTER_PAD, LabelBlob, Read, text_mask
from tools.regions.prune import LABEL_MAX_H, LABEL_MAX_W

LETTER_GAP = 5    # px, widest gap between a label background's letters closed to find it
BOLD_GAP = 7      # px, the same for bold letters: a background found so only widens one found with LETTER_GAP
CUT_LETTER = 0.8  # a letter cut at a filled label's edge: its height over the label's tallest (with JPEG's losses)


def filled_areas(u8: np.ndarray) -> np.ndarray:
    """Filled label backgrounds (uint8, 0 off them): areas > MAX_LINE px thick once the text holes are closed and
    >= 60 % drawn (text written in strokes is sparser and stays, so that box edges next to it are kept); 1 on a
    label, FRAMED on a label with a box outline drawn around it (:mod:`tools.regions.frames`), which is left off.
    A background that holds too few letters may be a thin-lettered label joined by the closing to the outline
    around it: it is one when that outline frames it and the frame's inside holds letters."""
    out = np.zeros_like(u8)
    extent = drawn_extent(u8)
    if extent is not None:
        out[extent[2]] = _filled_areas(u8[extent[2]])
    return out


Backgrounds = tuple[np.ndarray, np.ndarray, list[int]]   # component labels, stats, ids of the solid components


def _backgrounds(u8: np.ndarray, close: int) -> Backgrounds:
    """Candidate label backgrounds once gaps up to ``close`` px are closed: components > MAX_LINE px thick and
    >= 60 % drawn (:func:`_holds_letters` tells which are labels)."""
    closed = cv2.morphologyEx(u8, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
    solid = open_rect(closed, (MAX_LINE + 1, MAX_LINE + 1))
    n, labels, stats = components(solid)
    if n <= 1:
        return labels, stats, []
    drawn = np.bincount(labels[u8 > 0], minlength=n)   # u8 is 0/1: counting beats weighting the whole crop
    dense = drawn[1:] / np.maximum(stats[1:, cv2.CC_STAT_AREA], 1) >= 0.6
    return labels, stats, [int(i) + 1 for i in np.flatnonzero(dense)]


def _holds_letters(u8: np.ndarray, found: Backgrounds, i: int) -> bool:
    """Component ``i`` of ``found`` encloses letters: a label background does; a thick corner with a glyph glued on
    does not, nor do two parallel outlines a few px apart that the closing joined (the gap between them is a hole
    longer than the tallest label, LABEL_MAX_H)."""
    labels, stats, _ = found
    x, y, w, h, a = stats[i]
    letters = enclosed(u8[y:y + h, x:x + w].astype(bool)) & (labels[y:y + h, x:x + w] == i)
    n, _, holes = components(letters.astype(np.uint8))
    sizes = holes[1:n]
    fits = np.maximum(sizes[:, cv2.CC_STAT_WIDTH], sizes[:, cv2.CC_STAT_HEIGHT]) <= LABEL_MAX_H
    return bool(sizes[fits, cv2.CC_STAT_AREA].sum() >= MIN_LETTER_SHARE * a)


def _filled_areas(u8: np.ndarray) -> np.ndarray:
    """:func:`filled_areas` within a crop."""
    found = _backgrounds(u8, LETTER_GAP)
    on = u8 > 0
    out = np.zeros_like(u8)
    for i in found[2]:
        letters = _holds_letters(u8, found, i)
        if letters:
            comp, (x, y, w, h) = _widened(u8, found, i)
        else:   # a label whose gap to its outline was closed on three sides: its letters are few of that area
            x, y, w, h = (int(v) for v in found[1][i][:4])
            comp = found[0][y:y + h, x:x + w] == i
        frame = frame_around(on, (x, y, w, h))
        if not letters and (frame is None or not frame_holds_letters(on, frame)):
            continue
        if frame is None:
            out[y:y + h, x:x + w][comp] = 1
        else:   # the label inside an outline drawn around it; the outline stays a line
            l, t, r, b = frame.inside
            inside = np.zeros_like(comp)
            inside[max(0, t - y):max(0, b - y), max(0, l - x):max(0, r - x)] = True
            out[y:y + h, x:x + w][comp & inside] = FRAMED
    return out


def _widened(u8: np.ndarray, found: Backgrounds, i: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """(pixels over its box, bool; box (x, y, w, h)) of background ``i`` of ``found``, or of the background found
    with a BOLD_GAP closing that holds it and runs on along its rows only: the gaps between bold letters may be
    wider than LETTER_GAP, and the background then ends at a letter (the rest of its fill closes rectangles around
    the others). Growing taller would take in outlines glued to it. The wider closing is done around the label
    only: its rows, as many again as the closing and opening reach, and as far to each side as a label is wide."""
    labels, stats, _ = found
    x, y, w, h, _ = stats[i]
    own = labels[y:y + h, x:x + w] == i
    reach = BOLD_GAP + MAX_LINE + 2
    y0, x0 = max(0, y - reach), max(0, x - LABEL_MAX_W * h)
    window = u8[y0:y + h + reach, x0:x + w + LABEL_MAX_W * h]
    bold = _backgrounds(np.ascontiguousarray(window), BOLD_GAP)
    wide_labels, wide_stats, solid = bold
    under = np.bincount(wide_labels[y - y0:y - y0 + h, x - x0:x - x0 + w][own], minlength=len(wide_stats))
    j = int(np.argmax(under[1:])) + 1 if len(under) > 1 else 0
    if j in solid:
        wx, wy, ww, wh, _ = wide_stats[j]
        if wy + y0 >= y - 1 and wy + y0 + wh <= y + h + 1 and ww > w and _holds_letters(window, bold, j):
            return wide_labels[wy:wy + wh, wx:wx + ww] == j, (wx + x0, wy + y0, ww, wh)
    return own, (x, y, w, h)


def with_cut_letters(mask: np.ndarray, blob: LabelBlob) -> LabelBlob:
    """A filled label's box grown over the letters cut at its edge, with LETTER_PAD px around them: a background
    drawn across an outline is trimmed off the outline's band, and a letter on the band (the "1" of "13" on another
    box's side) is read by the mask (:func:`tools.regions.ocr.label_images`, FILL_PAD px beyond the box) but cut off
    the picture. A letter (hole) reaching beyond the box is taken when at least CUT_LETTER x as tall as the tallest
    letter wholly inside (the digits of a number share their height); the gaps that a stroke digit glued to an
    outline encloses with it are lower."""
    if not blob.filled:
        return blob
    x1, y1, x2, y2 = blob.box
    h, w = mask.shape
    a, b, c, d = max(0, x1 - FILL_PAD), max(0, y1 - FILL_PAD), min(w, x2 + FILL_PAD), min(h, y2 + FILL_PAD)
    text = text_mask(mask, LabelBlob((a, b, c, d), True)).astype(np.uint8)
    n, _, stats = components(text)
    boxes = [(a + x, b + y, a + x + bw, b + y + bh) for x, y, bw, bh, _ in stats[1:n]]
    inside = [k[3] - k[1] for k in boxes if k[0] >= x1 and k[1] >= y1 and k[2] <= x2 and k[3] <= y2]
    if not inside:
        return blob
    out = list(blob.box)
    for k in boxes:
        if k[3] - k[1] >= CUT_LETTER * max(inside):
            out = [min(out[0], k[0] - LETTER_PAD), min(out[1], k[1] - LETTER_PAD),
                   max(out[2], k[2] + LETTER_PAD), max(out[3], k[3] + LETTER_PAD)]
    return LabelBlob((max(a, out[0]), max(b, out[1]), min(c, out[2]), min(d, out[3])), True)


# a label blob whose corner squares (MARKER_CORNER_SIDE of its height) are drawn less than MARKER_CORNER, about
# as wide as high (MARKER_ASPECT) and mostly drawn (MARKER_DRAWN: a stroke "0" is a ring, a third drawn) is a disc,
# Set-of-Mark's numbered circle; one small enough is taken for stroke letters rather than a filled label
MARKER_CORNER, MARKER_CORNER_SIDE, MARKER_ASPECT, MARKER_DRAWN = 0.35, 1 / 6, (0.8, 1.25), 0.55
# a disc's letters (its holes) are its number, centred in it (within MARKER_OFF of its size) and at least
# MARKER_LETTERS of its height tall: the holes of a bold stroke number ("19") are its counters, small and off-centre
MARKER_LETTERS, MARKER_OFF = 0.3, 0.15
LETTERS_PAD = 0.2   # letter heights of fill kept around a disc's letters when it is read


def disc_pictures(rgb: np.ndarray, mask: np.ndarray, blobs: Sequence[LabelBlob], reads: list[Read]) -> list[Read]:
    """``reads`` (the picture reads of ``blobs``), each label drawn as a disc (:func:`is_disc`) read again
    off a picture of its letters alone on its fill colour (:func:`letters_on_fill`): the label recognizer learnt
    labels on rectangular tags, and reads a disc's round edge as a "0" or "9" ("1" read "19", "3" read "0")."""
    out = list(reads)
    for k, blob in enumerate(blobs):
        if is_disc(mask, blob.box):
            patch, box = letters_on_fill(rgb, mask, blob.box)
            out[k] = READER.read(patch, [box])[0]
    return out


def is_disc(mask: np.ndarray, box: Sequence[int]) -> bool:
    """The label at ``box`` (x1, y1, x2, y2 px, end-exclusive) of ``mask`` is a disc: its box mostly drawn
    (MARKER_DRAWN) but for its corners (MARKER_CORNER), about as wide as high (MARKER_ASPECT), with its letters
    centred in it and tall (MARKER_OFF, MARKER_LETTERS)."""
    x1, y1, x2, y2 = (int(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if h < 6 or not MARKER_ASPECT[0] <= w / h <= MARKER_ASPECT[1]:
        return False
    m = mask[y1:y2, x1:x2] > 0
    k = max(2, int(round(MARKER_CORNER_SIDE * h)))
    corners = float(np.mean([m[:k, :k].mean(), m[:k, -k:].mean(), m[-k:, :k].mean(), m[-k:, -k:].mean()]))
    if corners >= MARKER_CORNER or m.mean() < MARKER_DRAWN:
        return False
    ys, xs = np.nonzero(enclosed(m))
    if not len(ys) or ys.max() + 1 - ys.min() < MARKER_LETTERS * h:
        return False
    return (abs(xs.min() + xs.max() + 1 - w) <= 2 * MARKER_OFF * w
            and abs(ys.min() + ys.max() + 1 - h) <= 2 * MARKER_OFF * h)


def letters_on_fill(rgb: np.ndarray, mask: np.ndarray, box: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """A picture of a filled label's letters (the holes it encloses, grown by a px for their anti-aliased edges)
    on its fill colour (the median of its drawn pixels), with a label height of fill around, and the box of its
    letters in it, LETTERS_PAD of their height around them, as a tag is drawn around its text: what is left of the
    picture around the letters (a disc's edge, the photo beyond) is gone."""
    x1, y1, x2, y2 = (int(v) for v in box)
    m = mask[y1:y2, x1:x2] > 0
    letters = cv2.dilate(enclosed(m).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    pad = y2 - y1
    patch = np.empty((y2 - y1 + 2 * pad, x2 - x1 + 2 * pad, 3), np.uint8)
    patch[:] = np.median(rgb[y1:y2, x1:x2][m], axis=0) if m.any() else 0
    inner = patch[pad:pad + y2 - y1, pad:pad + x2 - x1]
    inner[letters] = rgb[y1:y2, x1:x2][letters]
    ys, xs = np.nonzero(letters)
    if not len(ys):
        return patch, (pad, pad, pad + x2 - x1, pad + y2 - y1)
    grow = LETTERS_PAD * (ys.max() + 1 - ys.min())
    return patch, (int(round(pad + xs.min() - grow)), int(round(pad + ys.min() - grow)),
                   int(round(pad + xs.max() + 1 + grow)), int(round(pad + ys.max() + 1 + grow)))
