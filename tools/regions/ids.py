"""Label reads settled into ids: a label's two reads (off the overlay-colour mask and off the picture) into one,
and ids kept unique across boxes (:mod:`tools.regions.pipeline`, steps 3-5). A read is ``(number or None, text, confidence
in [0, 1])``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.regions.label_reader import READER, shifted
from tools.regions.geom import off_sides
from tools.regions.ocr import LETTER_PAD, LabelBlob, Read, read_pictures

if TYPE_CHECKING:
    from tools.regions.region import Region

# a label whose box is narrower than its read digits need (FRAGMENT_WIDTH label heights each, plus 0.1: a "1" read
# off one stem) may be what the colour mask kept of a longer thin label (JPEG's halved colour resolution thins the
# rest away): its picture is read again grown by FRAGMENT_GROW (label heights: left, top, right, bottom); a read at
# least FRAGMENT_SURE whose digits contain the first read's, and name another id no box holds, names the box. Thin
# stroke labels (seed 950, 200 overlays): 7 of 63 boxes read wrong set right, none read right changed; seed 121:
# none changed.
FRAGMENT_WIDTH = 0.45      # a glyph narrower than this many label heights per digit (plus 0.1) is a fragment
FRAGMENT_GROW = (-.7, -.2, .7, .2)
FRAGMENT_SURE = 0.9
PICTURE_SURE = 0.5            # a picture read less sure than this does not overrule a surer mask read
Contest = list[tuple['Region', 'Region']]   # boxes read as one id, each with a copy of its read before it was dropped


def settle_reads(mask_read: Read, picture_read: Read, allowed: set[int] | None) -> tuple[Read, bool]:
    """A label's mask and picture reads settled into one (:func:`combine_reads`), and whether they agreed."""
    agree = mask_read[0] is not None and mask_read[0] == picture_read[0]
    return combine_reads(mask_read, picture_read, allowed), agree


def combine_reads(mask_read: Read, picture_read: Read, allowed: set[int] | None = None) -> Read:
    """One label read two ways, ``(number or None, text, confidence)``: off the overlay-colour mask and off the
    picture itself. Agreeing reads keep the higher confidence; when they differ the picture's number wins unless
    the recognizer was unsure of it (confidence below PICTURE_SURE) and less sure than of the mask's. On our dev
    overlays the picture was right in 24 of 37 disagreements, the mask in 9: the mask loses digits whose strokes
    cross an outline, or that JPEG's halved colour resolution thins below its thresholds."""
    usable = [r for r in (picture_read, mask_read) if r[0] is not None and (allowed is None or r[0] in allowed)]
    if not usable:
        return mask_read
    if len(usable) == 1:
        return usable[0]
    if picture_read[0] == mask_read[0]:
        return (mask_read[0], mask_read[1], max(mask_read[2], picture_read[2]))
    if picture_read[2] < PICTURE_SURE and mask_read[2] > picture_read[2]:
        return mask_read
    return picture_read


def pictures_off_sides(rgb: np.ndarray, blobs: Sequence[LabelBlob], rects: Sequence[tuple[Sequence[float], float]],
                       lettered: Sequence[bool] | None = None) -> tuple[list[LabelBlob], list[Read]]:
    """:func:`tools.regions.ocr.read_pictures` of ``blobs``, each with the box it was read at. A label box that ends
    on a vertical outline side of ``rects`` (box, outline width; :func:`tools.regions.geom.off_sides`) is read again
    cut off that side, and the cut read stands where it is the whole one without a "1" at that end: the side was
    read as that "1" ("8" beside another box's side read "18"). Other changes are left alone: a side farther in
    may cross a letter, or the box may hold more than one label. ``lettered``: blobs whose ends are known letters (a
    filled label grown over a letter cut at its edge, :func:`tools.regions.fill.with_cut_letters`), not cut."""
    cut = [b if lettered is not None and lettered[k] else
           LabelBlob(off_sides(b.box, rects, 0 if b.filled else LETTER_PAD), b.filled) for k, b in enumerate(blobs)]
    again = [k for k, (b, c) in enumerate(zip(blobs, cut)) if b.box != c.box]
    reads = read_pictures(rgb, list(blobs) + [cut[k] for k in again])
    seen, out = list(blobs), reads[:len(blobs)]
    for k, read in zip(again, reads[len(blobs):]):
        whole, part = str(out[k][0]), str(read[0])
        left, right = cut[k].box[0] != blobs[k].box[0], cut[k].box[2] != blobs[k].box[2]
        if read[0] is not None and ((left and whole == "1" + part) or (right and whole == part + "1")):
            seen[k], out[k] = cut[k], read
    return seen, out


def unique_ids(rgb: np.ndarray, regions: list[Region], allowed: set[int] | None = None) -> list[Contest]:
    """The same id read on several boxes: at least one read is wrong, and OCR confidences do not say which (a
    misread digit scores as high as a clean one, 0.95-0.97). Labels left unsettled (``confirmed`` None) are read
    off the picture first and settled as :func:`combine_reads` does (the picture may give another id). Then the one
    box whose two reads (mask and picture) agree keeps the id; the others, or all when no single one is confirmed so,
    become unread (id -1), in place (then ``Region.contested`` keeps the id); one that lost to a single confirmed
    box takes its label's mask read where the picture read overruled one of as many digits (``Region.mask_read``)
    and no box holds that id. Returns the contests that left no box with the id."""
    once = [r for same in _same_id(regions) for r in same if r.confirmed is None and r.label_box is not None]
    # only stroke labels are left unsettled (read past a side), so their pictures are read as stroke labels
    for reg, pic in zip(once, read_pictures(rgb, [LabelBlob(tuple(r.label_box), False) for r in once])):
        read = (reg.id, reg.label_text, reg.confidence)
        (rid, reg.label_text, conf), reg.confirmed = settle_reads(read, pic, allowed)
        reg.id, reg.confidence = int(rid), round(conf, 3)
    contests: list[Contest] = []
    losers: list[Region] = []   # boxes whose id one other box's agreeing reads hold
    for same in _same_id(regions):
        sure = [r for r in same if r.confirmed]
        if len(sure) != 1:
            contests.append([(reg, dataclasses.replace(reg)) for reg in same])
        for reg in same:
            if len(sure) != 1 or reg is not sure[0]:
                if len(sure) == 1:
                    losers.append(reg)
                else:
                    reg.contested = reg.id
                reg.id, reg.confidence, reg.confirmed = -1, 0.0, False
    # the picture read overruled the label's mask read with a number that is surely another box's: the mask read
    # is the label's other reading, taken when no box holds that id ("Region 14" read "18" beside box 18's label)
    held = {r.id for r in regions if r.id >= 0}
    for reg in losers:
        if reg.mask_read is not None and reg.mask_read[0] not in held:
            reg.relabel(*reg.mask_read, reg.label_box)
            held.add(reg.id)
    return contests


def grown_fragments(rgb: np.ndarray, regions: list[Region], allowed: set[int] | None) -> list[Region]:
    """Boxes whose label box is narrower than its read digits need take the read of the label's picture grown
    around it (FRAGMENT_GROW) when that read is sure (FRAGMENT_SURE), its digits contain the first read's, and it
    names another id that no box holds and the caller allows (:func:`free_id`)."""
    def narrow(reg: Region) -> bool:
        x1, y1, x2, y2 = reg.label_box
        return x2 - x1 < (FRAGMENT_WIDTH * len(str(reg.id)) + 0.1) * (y2 - y1)

    frags = [r for r in regions if r.id >= 0 and r.label_box is not None and narrow(r)]
    windows = [shifted(r.label_box, FRAGMENT_GROW) for r in frags]
    held = {r.id for r in regions if r.id >= 0}
    for reg, window, (rid, text, conf) in zip(frags, windows, READER.read(rgb, windows)):
        if (rid != reg.id and free_id(rid, reg.id, held, allowed) and conf >= FRAGMENT_SURE
                and str(reg.id) in str(rid)):
            take_read(reg, (rid, text, conf), window, held)
    return regions


def free_id(rid: int | None, own: int, taken: set[int], allowed: set[int] | None) -> bool:
    """A read id a box (now ``own``) may take in the passes after the first read of each colour: one the caller
    allows and no other box holds (``taken``)."""
    return rid is not None and (rid not in taken or rid == own) and (allowed is None or rid in allowed)


def take_read(reg: Region, read: tuple[int, str, float], box: Sequence[float], taken: set[int]) -> None:
    """``reg`` relabelled with ``read`` (id, text, confidence) read at ``box``; ``taken``, the ids held, follows."""
    taken.discard(reg.id)
    reg.relabel(*read, box)
    taken.add(read[0])


def _same_id(regions: list[Region]) -> list[list[Region]]:
    """Groups of regions (two or more) read as the same id."""
    boxes: dict[int, list[Region]] = {}
    for reg in regions:
        if reg.id >= 0:
            boxes.setdefault(reg.id, []).append(reg)
    return [b for b in boxes.values() if len(b) > 1]
