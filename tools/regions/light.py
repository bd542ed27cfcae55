"""Labels of light outlines: ids written in white, light grey or a pale colour (every channel high:
:func:`tools.regions.strokes.light`) beside a thin box (:mod:`tools.regions.marks` finds and reads the labels of
:mod:`tools.regions.thin`'s rectangles; this module is what differs for a light colour).

A white label has no hue to tell it from the picture, a pale yellow one little more than sunlit foliage has, and
photos hold white of their own (twigs, road marks, roofs). What tells a letter is that it is a thin stroke brighter
than the picture right under it:

- Ink (:func:`light_ink`): pixels of about the label colour's hue (LIGHT_HUE_TOL) brighter than
  :func:`background` (the picture with every stroke narrower than STROKE_SPAN label heights taken out: a white
  top-hat) by LIGHT_CONTRAST and by half the way up to the label colour's brightness. A dark outline drawn round
  the letters (the usual way to keep white text legible) only adds to that contrast.
- Places: light labels are written right of the box's top-right corner as well (LIGHT_PLACES), besides the
  places of coloured ones but the centre (NOT_LIGHT_PLACES).
- Reads (:func:`light_reads`): the ink is the letters' white cores only, so each label is read as found and grown
  by LIGHT_PAD label heights, in the picture and in negative (the recognizer learnt dark and coloured numbers,
  not white ones on dark ground), and by the text-line engine, which reads a letter before the digits ("R5");
  and so are its letters alone (:func:`letters_at`: a twig beside a label joins its piece, not its row of
  letters); the number with the most summed confidence stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

STROKE_SPAN = 0.4         # label heights: wider than a letter's stroke, narrower than the picture's patches
LIGHT_HUE_TOL = 40.0      # most RGB distance between the chroma parts (RGB less its mean) of a label pixel and colour
LIGHT_CONTRAST = 40.0     # least brightness (JPEG's Y) by which a light label's ink exceeds the picture under it
LIGHT_PAD = 0.15          # label heights around a light label's ink read with it
MIN_LETTER = 0.4          # label heights: the shortest ink stroke that may be a letter
ROW_TOL = 0.25            # letter heights: how far the top and bottom of letters of one label may differ
WORD_GAP = 0.6            # letter heights: widest gap between two letters of one label
LUMA = np.array([0.299, 0.587, 0.114], np.float32)   # brightness (JPEG's Y) of an RGB pixel
Box = Sequence[float]
Read = tuple[int | None, str, float]

# placement name -> (the label piece's reference point, the box's anchor point), as mark_places.PLACES: a light
# label's top-left corner at the box's top-right corner. Not looked for beside coloured boxes: there a rectangle of
# the picture's own took a coloured box's label at this place (foreign overlays, one image in 42)
LIGHT_PLACES: dict[str, tuple[Callable[[Box], tuple[float, float]], Callable[[Box], tuple[float, float]]]] = {
    "right_of_top_right": (lambda p: (p[0], p[1]), lambda b: (b[2], b[1])),
}
# mark_places.PLACES a light box's label is not looked for at: the centre (a white or black marker there is read
# as one, marks._neutral_markers; light ink at a light box's centre is the picture's, or the white letters of a
# filled tag that the thin finder took for a small box: foreign overlays, one image in 42)
NOT_LIGHT_PLACES = ("centre",)
# least confidence of a light label's read: white is in the picture too, and the picture's own light rectangles
# read weakly as some number (foreign overlays: a pale rectangle of a city render read "7" at 0.11)
LIGHT_SURE = 0.5


def background(win: np.ndarray, height: float) -> np.ndarray:
    """The picture under light letters (float32 RGB): ``win`` opened (the least over a square, then the most) with a
    square STROKE_SPAN label heights wide, which takes out any bright stroke narrower than it; a mean around the
    letters would take in a dark outline drawn round them, or the white of the box's own lines."""
    k = max(3, int(round(STROKE_SPAN * height)) | 1)
    return cv2.morphologyEx(win, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))


def light_ink(pixels: np.ndarray, colour: np.ndarray, under: np.ndarray) -> np.ndarray:
    """Which ``pixels`` (float32 RGB) are a label's in the light ``colour`` (white, light grey, pale) over the
    picture ``under`` them (:func:`background`): of about the colour's hue (LIGHT_HUE_TOL; most sunlit leaves as
    bright are greener) and brighter than the picture by LIGHT_CONTRAST and by half the way up to the colour's
    brightness (JPEG leaves a 1 px letter stroke little of its white)."""
    luma, ground = pixels @ LUMA, under @ LUMA
    hue = pixels - pixels.mean(axis=-1, keepdims=True) - (colour - colour.mean())
    alike = np.linalg.norm(hue, axis=-1) <= LIGHT_HUE_TOL
    return alike & (luma - ground >= np.maximum(LIGHT_CONTRAST, (float(colour @ LUMA) - ground) / 2))


def light_reads(rgb: np.ndarray, boxes: list[Box], pad: float, cores: list[Box] | None = None) -> list[Read]:
    """(number or None, text, confidence) of light labels at ``boxes`` (px): each read as found and grown by ``pad``
    px, in the picture and in negative, by the label recognizer, and by the text-line engine, and so its letters'
    box in ``cores`` (:func:`letters_at`) where given; the number with the most summed confidence stands, at its
    surest read, and names no number below LIGHT_SURE."""
    from tools.regions.label_reader import READER
    from tools.regions.ocr import LabelBlob, text_line_pictures

    if not boxes:
        return []
    tries: list[list[Read]] = []
    for at in [boxes] if cores is None else [boxes, cores]:
        grown = [(b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad) for b in at]
        tries += [READER.read(rgb, bs, invert=inv) for bs in (at, grown) for inv in (False, True)]
        tries.append(text_line_pictures(rgb, [LabelBlob(tuple(int(round(v)) for v in b), False) for b in at]))
    reads = [_most_confident([t[k] for t in tries]) for k in range(len(boxes))]
    return [(rid if conf >= LIGHT_SURE else None, text, conf) for rid, text, conf in reads]


def letters_at(rgb: np.ndarray, piece: tuple[int, int, int, int], anchor: tuple[float, float], height: float,
               colour: np.ndarray) -> tuple[int, int, int, int]:
    """The letters of a light label ``piece`` (inclusive px) that run on from its ink stroke nearest ``anchor`` (the
    box's point of the label's place): strokes with top and bottom within ROW_TOL of that one's height of its own
    (letters of a label share their row) and no further than WORD_GAP of it from the ones taken. White strokes of
    the picture that the piece took in beside the label (a twig) run off that row. The piece where no stroke is."""
    x1, y1, x2, y2 = piece
    m = int(round(STROKE_SPAN * height)) + 2   # the picture under the letters needs a margin round them
    h_img, w_img = rgb.shape[:2]
    ox, oy = max(0, x1 - m), max(0, y1 - m)
    win = rgb[oy:min(h_img, y2 + m + 1), ox:min(w_img, x2 + m + 1)].astype(np.float32)
    ink = light_ink(win, colour, background(win, height)).astype(np.uint8)
    ink[:y1 - oy] = 0
    ink[y2 - oy + 1:] = 0
    ink[:, :x1 - ox] = 0
    ink[:, x2 - ox + 1:] = 0
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    strokes = [(ox + int(x), oy + int(y), ox + int(x + w - 1), oy + int(y + h - 1))
               for x, y, w, h, _ in stats[1:] if h >= MIN_LETTER * height]
    if not strokes:
        return piece
    ax, ay = anchor
    seed = min(strokes, key=lambda b: np.hypot(max(b[0] - ax, 0, ax - b[2]), max(b[1] - ay, 0, ay - b[3])))
    tall = seed[3] - seed[1] + 1
    row = [b for b in strokes if abs(b[1] - seed[1]) <= ROW_TOL * tall and abs(b[3] - seed[3]) <= ROW_TOL * tall]
    group = [seed]
    grew = True
    while grew:   # letters follow one another within a word gap
        grew = False
        for b in row:
            if b not in group and any(max(b[0] - g[2], g[0] - b[2]) <= WORD_GAP * tall for g in group):
                group.append(b)
                grew = True
    return (min(b[0] for b in group), min(b[1] for b in group), max(b[2] for b in group), max(b[3] for b in group))


def _most_confident(reads: list[Read]) -> Read:
    """The read of the number with the largest summed confidence (reads of no number count for none), at its
    surest; the first read where none names a number."""
    score: dict[int, float] = {}
    for rid, _, conf in reads:
        if rid is not None:
            score[rid] = score.get(rid, 0.0) + conf
    if not score:
        return reads[0]
    best = max(score, key=lambda rid: score[rid])
    return max((r for r in reads if r[0] == best), key=lambda r: r[2])
