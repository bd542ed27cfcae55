"""Set-of-Mark numbers on small filled discs (:func:`tools.regions.fill.disc_pictures`): the label recognizer
learnt labels on rectangular tags and reads a disc's round edge as a "0" or a "9"; a disc's number is read off its
letters on its fill colour instead.

Ground truth is the drawing's own geometry: boxes at the outer edges of their lines, each with its number in black
on a disc of the box colour at the box centre, the disc barely larger than the number; saved as JPEG.
"""

from __future__ import annotations

import cv2

from tests.regions.test_regions_thin import BLACK, CYAN, FONT, MAGENTA, RED, assert_read, background, outline

SCALE = 0.5


def test_numbers_on_small_discs():
    img = background(seed=7)
    boxes = {1: (120, 140, 300, 300), 3: (520, 200, 700, 330), 19: (380, 380, 470, 470)}
    for (rid, box), colour in zip(boxes.items(), (MAGENTA, RED, CYAN)):
        outline(img, box, colour, 2)
        (w, h), _ = cv2.getTextSize(str(rid), FONT, SCALE, 1)
        cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
        cv2.circle(img, (cx, cy), int(0.75 * max(w, h)) + 2, colour, -1, cv2.LINE_AA)
        cv2.putText(img, str(rid), (cx - w // 2, cy + h // 2), FONT, SCALE, BLACK, 1, cv2.LINE_AA)
    assert_read(img, boxes)
