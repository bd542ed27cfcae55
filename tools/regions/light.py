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
  the number with the most summed confidence stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

STROKE_SPAN = 0.4         # label heights: wider than a letter's stroke, narrower than the picture's patches
LIGHT_HUE_TOL = 40.0      # most RGB distance between the chroma parts (RGB less its mean) of a label pixel and colour
LIGHT_CONTRAST = 40.0     # least brightness (JPEG's Y) by which a light label's ink exceeds the picture under it
LIGHT_PAD = 0.15          # label heights around a light label's ink read with it
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


def light_reads(rgb: np.ndarray, boxes: list[Box], pad: float) -> list[Read]:
    """(number or None, text, confidence) of light labels at ``boxes`` (px): each read as found and grown by ``pad``
    px, in the picture and in negative, by the label recognizer, and by the text-line engine; the number with the
    most summed confidence stands, at its surest read, and names no number below LIGHT_SURE."""
    from tools.regions.label_reader import READER
    from tools.regions.ocr import LabelBlob, text_line_pictures

    if not boxes:
        return []
    grown = [(b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad) for b in boxes]
    tries = [READER.read(rgb, bs, invert=inv) for bs in (boxes, grown) for inv in (False, True)]
    tries.append(text_line_pictures(rgb, [LabelBlob(tuple(int(round(v)) for v in b), False) for b in boxes]))
    reads = [_most_confident([t[k] for t in tries]) for k in range(len(boxes))]
    return [(rid if conf >= LIGHT_SURE else None, text, conf) for rid, text, conf in reads]


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
