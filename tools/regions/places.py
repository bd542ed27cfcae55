"""Labels and boxes seen together: a box that took in its own label fitted back to it, and unread (or unsurely
read) labels looked for where the image's other labels sit beside their boxes (a renderer draws every label of an
image alike)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.regions.geom import (ABOVE, BELOW, INSIDE_TOP_LEFT, LEFT, iou, label_anchors, match_limit, off_image,
                                placement, placement_cost, side_of, text_shift, union_box, within)
from tools.regions.ids import free_id, pictures_off_sides, take_read
from tools.regions.labels import DIGIT_WIDTH, LETTER_ASPECT
from tools.regions.rows import WORD_JOIN
from tools.regions.ocr import LabelBlob, read_pictures
from tools.regions.prune import LABEL_MAX_H

if TYPE_CHECKING:
    from tools.regions.region import Region

DRAWN_HEIGHT = 2.0  # a label's drawn box (padding, the font's descent) in heights of its letters, at most
# a label read at another place than most of the image's labels (at least ODD_SHARE of ODD_MIN or more surely read
# ones) may be a piece of another box's outline or label: it is read again at the usual place, and a read there at
# least ODD_SURE names the box. Dev overlays (seeds 1/11/21/41/51): +4/0/0/0/0 exact regions at 0.9, +4/-1/-1 at
# 0.6 with ODD_SHARE 0.6. A label inside the box's top-left corner where the usual place leaves the image is not odd
# (renderers draw it there instead), nor is any label when fewer than ODD_MIN are read
ODD_MIN, ODD_SHARE, ODD_SURE = 3, 0.75, 0.9
SOLID_SHARE = 0.5   # least drawn share of a label's edge band past the box for it to be a label background
LABEL_IOU = 0.7   # a found box this close to where a label was read is that label (its background's edges)


def labels_only(regions: list[Region]) -> list[Region]:
    """Regions without the unlabeled boxes that are another region's label (IoU >= LABEL_IOU with where it was read):
    a filled label's edges, with the lines of its box under it, close a rectangle around the label, which a later
    read of its letters would take for a box of its own (a "Region 18" across its box read "1" there, and the box
    "8")."""
    read_at = [r.label_box for r in regions if r.id >= 0 and r.label_box is not None]
    return [r for r in regions if r.id >= 0 or not any(iou(r.bbox, b) >= LABEL_IOU for b in read_at)]


def letter_boxes(rgb: np.ndarray, regions: list[Region], allowed: set[int] | None, tol: float,
                 sure: float) -> list[Region]:
    """Regions with each box of a letter's size and shape (:func:`_letter_shaped`) that sits, with the label it
    took if any, at a usual label place of exactly one larger unlabeled box (within the match limit,
    :func:`tools.regions.geom.match_limit`) read as that box's label, where that label lies on the small box's
    text line (:func:`_same_line`): a stroke "0" (a "7", a "1" and its foot)
    closes a small upright rectangle, alone or with the box's outline, whose strokes were then erased as an
    outline, so the label was lost or only its other letters were found. The letter and the label it took are read
    off the picture together; a read at least ``sure`` whose id no other box holds (nor one the caller rules out,
    ``allowed``) names the larger box, and the letter goes. An unlabeled letter box just after a read label on its
    text line (a word gap at most) is that label's last letters ("Region 2" and a "0" closed into a box): read with
    it, a surer, longer number starting with the label's names the label's box. ``tol``: px, the outline thickness
    assumed."""
    size = (rgb.shape[1], rgb.shape[0])
    jobs = []   # (letter, host, the letter and its label)
    for reg in regions:
        if not _letter_shaped(reg.bbox, tol):
            continue
        x1, y1, x2, y2 = reg.bbox
        word = [x1 - tol / 2, y1 - tol / 2, x2 + tol / 2, y2 + tol / 2]
        if reg.label_box is not None and not _same_line(reg.label_box, word):
            continue   # a label above or below the box, or away from it: its own
        if reg.label_box is not None:
            word = [min(word[0], reg.label_box[0]), min(word[1], reg.label_box[1]), max(word[2], reg.label_box[2]),
                    max(word[3], reg.label_box[3])]
        word = [int(round(v)) for v in word]
        hosts = [h for h in regions if h is not reg and h.id < 0 and _area(h.bbox) > _area(reg.bbox)
                 and placement_cost(word, h.bbox, tol, size) <= match_limit(word)]
        if len(hosts) == 1:
            jobs.append((reg, hosts[0], word))
        elif reg.id < 0 and reg.label_box is None:   # the last letters of a read label
            ends = [h for h in regions if h.id >= 0 and h.label_box is not None and _area(h.bbox) > _area(reg.bbox)
                    and _same_line(h.label_box, word) and h.label_box[2] - tol <= word[0]]
            if len(ends) == 1:
                jobs.append((reg, ends[0], [int(v) for v in union_box(ends[0].label_box, word)]))
    if not jobs:
        return regions
    taken = {r.id for r in regions if r.id >= 0}
    dropped = set()
    for (reg, host, word), (rid, text, conf) in zip(jobs, read_pictures(rgb, [LabelBlob(tuple(j[2]), False)
                                                                            for j in jobs])):
        own = reg.id if host.id < 0 else host.id   # the id the read replaces
        # a read label's host takes only a longer number that starts with its own
        longer = rid is not None and rid != host.id and str(rid).startswith(str(host.id))
        if conf < sure or (host.id >= 0 and not longer) or not free_id(rid, own, taken, allowed):
            continue
        taken.discard(reg.id)
        take_read(host, (rid, text, conf), word, taken)
        dropped.add(id(reg))
    return [r for r in regions if id(r) not in dropped]


def _same_line(label: Sequence[float], letter: Sequence[float]) -> bool:
    """A label box on a letter's text line: over it, or beside it on its rows (most of the shorter one's height)
    at most a word gap (WORD_JOIN x the label's height) away (boxes x1, y1, x2, y2 px)."""
    rows = min(label[3], letter[3]) - max(label[1], letter[1])
    gap = max(label[0] - letter[2], letter[0] - label[2])
    return rows >= 0.5 * min(label[3] - label[1], letter[3] - letter[1]) and gap <= WORD_JOIN * (label[3] - label[1])


def _letter_shaped(box: Sequence[float], tol: float) -> bool:
    """A box (x1, y1, x2, y2 px, outline ``tol`` px) no taller than a label (LABEL_MAX_H) and no wider than
    LETTER_ASPECT x its height."""
    w, h = box[2] - box[0], box[3] - box[1]
    return h + tol <= LABEL_MAX_H and w <= LETTER_ASPECT * h


def _area(box: Sequence[float]) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def unglued(box: Sequence[float], label: Sequence[float], thick: float, mask: np.ndarray) -> list[float]:
    """``box`` without its label background ``label`` (x1, y1, x2, y2 px; outline ``thick`` px wide; ``mask``: the
    overlay colour's pixels). A background drawn above a box and wider than it covers both sides where they meet
    it, so the box is found reaching up to the label's top edge (likewise left, for a label left of a box no taller
    than it). Such a label starts above (left of) the found top (left) side, spans the box's width (height), and
    is drawn past the box's sides along that edge, where an outline ends (a label inside the box's corner is not);
    the side then lies under the label's near edge, and is moved there if the label then sits above (left of) the
    box. A background glued below a box and wider than it (the box found down to its bottom edge) lies in the
    found box's bottom, where no renderer draws a label: the bottom moves up to the label's top edge likewise.
    Any other box comes back as it is."""
    lx1, ly1, lx2, ly2 = (int(v) for v in label)
    x1, y1, x2, y2 = box
    size = (mask.shape[1], mask.shape[0])
    if ly1 < y1 < ly2 < y2 and _spans(lx1, lx2, x1, x2, thick):
        band = mask[ly1:int(y1 + thick / 2) + 1]
        fitted, want, past = [x1, ly2 - thick / 2, x2, y2], ABOVE, _past(band, lx1, lx2, x1, x2, thick)
    elif lx1 < x1 < lx2 < x2 and _spans(ly1, ly2, y1, y2, thick):
        band = mask[:, lx1:int(x1 + thick / 2) + 1].T
        fitted, want, past = [lx2 - thick / 2, y1, x2, y2], LEFT, _past(band, ly1, ly2, y1, y2, thick)
    elif lx1 < x1 < lx2 < x2 and _spans(ly1, ly2, y1, y2, thick, out=False) and _text_off_right(mask, label, thick):
        return _fitted_if(label, [lx2 - thick / 2, y1, x2, y2], LEFT, thick, size, box)
    elif y1 < ly1 < (ly1 + ly2) / 2 < y2 <= ly2 + thick and _spans(lx1, lx2, x1, x2, thick):
        # likewise below: no renderer draws a label in a box's bottom, so a background there that runs past the
        # sides is one glued below the box, its top edge on the box's bottom line
        band = mask[ly1:ly2]
        fitted, want, past = [x1, y1, x2, ly1 + thick / 2], BELOW, _past(band, lx1, lx2, x1, x2, thick)
    else:
        return list(box)
    solid = past.size > 0 and float(past.mean()) >= SOLID_SHARE
    return _fitted_if(label, fitted, want, thick, size, box) if solid else list(box)


def _spans(a1: float, a2: float, b1: float, b2: float, thick: float, out: bool = True) -> bool:
    """Span [a1, a2] covers [b1, b2] (within an outline's width) and, with ``out``, sticks out past one end."""
    return a1 <= b1 + thick and a2 >= b2 - thick and (not out or a1 < b1 - thick or a2 > b2 + thick)


def _fitted_if(label: Sequence[float], fitted: list[float], want: int, thick: float, size: tuple[int, int],
               box: Sequence[float]) -> list[float]:
    """``fitted`` if the label then sits by side ``want`` of it (:func:`tools.regions.geom.side_of`), else ``box`` as
    it is."""
    return fitted if side_of(placement(label, fitted, thick, size)) == want else list(box)


def _text_off_right(mask: np.ndarray, label: Sequence[float], thick: float) -> bool:
    """A filled label left of its box, about as tall as it, glued to the box's left side (so it sticks out too
    little for :func:`_spans`): its letters (:func:`tools.regions.geom.text_shift`) sit at least half a
    line width further from the blob's right edge than from its left one, as the side adds a line width on the
    right of a label a renderer pads evenly. A found left side at the label's left edge is then the label's."""
    lx1, ly1, lx2, ly2 = (int(v) for v in label)
    shift = text_shift(~mask[ly1:ly2, lx1:lx2])
    return shift is not None and -shift >= thick / 2


def _past(band: np.ndarray, a1: int, a2: int, b1: float, b2: float, thick: float) -> np.ndarray:
    """The columns of ``band`` within [a1, a2) but more than an outline's width outside [b1, b2]."""
    span = band[:, a1:a2]
    cols = np.arange(a1, a1 + span.shape[1])
    return span[:, (cols < b1 - thick) | (cols > b2 + thick)]


def usual_place(labelled: Sequence[tuple[Sequence[float], Sequence[float], float]],
                size: tuple[int, int]) -> tuple[int, list[bool]]:
    """The place (index in :func:`label_anchors`) most (label box, box, outline width) triples take, and whether
    each agrees with it: at it, or inside its box's top-left corner where a label that size (DRAWN_HEIGHT x its
    letters' height) would leave the image at it (renderers draw it inside instead)."""
    placed = [placement(lb, box, t, size) for lb, box, t in labelled]
    place = max(set(placed), key=placed.count)
    agree = [p == place or (p == INSIDE_TOP_LEFT
                            and off_image(box, lb[2] - lb[0], DRAWN_HEIGHT * (lb[3] - lb[1]), t, size, place))
             for p, (lb, box, t) in zip(placed, labelled)]
    return place, agree


def _nearly_all(agree: list[bool]) -> bool:
    """Enough labels (ODD_MIN) agree on one place, and nearly all of them (ODD_SHARE) do."""
    return len(agree) >= ODD_MIN and sum(agree) >= ODD_SHARE * len(agree)


def image_place(out: list[Region], rects: Sequence[tuple[Sequence[float], float]], size: tuple[int, int]) -> int | None:
    """The place (index in :func:`label_anchors`) nearly all read labels of ``out`` (one region per rectangle of
    ``rects``) take beside their boxes (:func:`usual_place`, :func:`_nearly_all`), or None when they agree on none."""
    labelled = _labelled(out, rects)
    if not labelled:
        return None
    place, agree = usual_place(labelled, size)
    return place if _nearly_all(agree) else None


def _labelled(out: list[Region], rects: Sequence[tuple[Sequence[float], float]]) -> list[tuple]:
    """(label box, box, outline width) of each region of ``out`` (one per rectangle of ``rects``) with a label."""
    return [(r.label_box, r.bbox, t) for r, (_, t) in zip(out, rects) if r.label_box is not None]


def label_by_siblings(rgb: np.ndarray, regions: list[Region], allowed: set[int] | None, contested: set[int],
                      thick: float, sure: float, unsure: float = 0.0) -> list[Region]:
    """Boxes still unlabeled, boxes read less surely than ``unsure``, and boxes whose label was read at another
    place than nearly all others (ODD_SHARE): a renderer draws every label of an image alike, so each one's label
    is looked for at the place (:func:`label_anchors`) most surely read labels take beside their own boxes, at
    their median height and median width with one more digit than the longest number read (DIGIT_WIDTH x height
    each), and in windows narrower by a digit at a time, and read off the picture (the widest read stands). A read
    is taken when ``sure`` (read confidence) and surer than the box's own read (for a label read at an odd place: a
    new id read at least ODD_SURE), and its id is neither another box's nor read by several (``contested``, see
    :func:`tools.regions.ids.unique_ids`); ``thick``: outline width (px) assumed. A window that ends on a box's
    side is read cut off it too (:func:`tools.regions.ids.pictures_off_sides`). Where a label drawn so
    (DRAWN_HEIGHT x its letters' height) would leave the image, renderers may draw it inside the box's top-left
    corner instead, so it is looked for there too."""
    size = (rgb.shape[1], rgb.shape[0])
    read = [r for r in regions if r.id >= 0 and r.label_box is not None and r.confidence >= unsure]
    if not read:
        return regions
    place, agree = usual_place([(r.label_box, r.bbox, thick) for r in read], size)
    same = [r for r in read if placement(r.label_box, r.bbox, thick, size) == place]   # sized as drawn there
    h = float(np.median([r.label_box[3] - r.label_box[1] for r in same]))
    digit = DIGIT_WIDTH * h   # the label without its number (a word, padding) is as wide as the median one's
    rest = float(np.median([r.label_box[2] - r.label_box[0] - len(str(r.id)) * digit for r in same]))
    w = max(0.0, rest) + (max(len(str(r.id)) for r in same) + 1) * digit

    def fallback(box: Sequence[float]) -> bool:   # the usual place leaves the image: the label may be inside
        return place != INSIDE_TOP_LEFT and off_image(box, w, DRAWN_HEIGHT * h, thick, size, place)

    # ids (id()) of the regions whose label was read at an odd place
    odd = {id(r) for r, a in zip(read, agree) if not a} if _nearly_all(agree) else set()
    looked = [r for r in regions if r.id < 0 or r.confidence < unsure or id(r) in odd]
    if not looked:
        return regions
    # a label with fewer digits than the window allows for is narrower (one left of its box ends at the box, so
    # its narrower windows start further right), and the window's far part may hold another box's line or label:
    # narrower windows are read too, the widest read stands (every place: +7 exact regions on 18 analysis
    # seeds, extra regions unchanged, where only a label left of its box with no other looked-at box's window
    # beside it was read so)
    widths = _narrower(w, digit, max(len(str(r.id)) for r in same))
    jobs = []   # (region, label box); a label that does not fit there may be drawn inside the box instead
    places = []   # the place of each job's window
    for reg in looked:
        for p in (place, INSIDE_TOP_LEFT) if fallback(reg.bbox) else (place,):
            for wk in widths:
                window = _window(label_anchors(reg.bbox, wk, h, thick, size)[p], wk, h)
                if not within(reg.bbox, window, -thick):   # a window around the box: its "box" is a letter
                    jobs.append((reg, window))
                    places.append(p)
    seen, pics = pictures_off_sides(rgb, [LabelBlob(box, False) for _, box in jobs], [(r.bbox, thick) for r in regions])
    jobs = [(reg, tuple(b.box)) for (reg, _), b in zip(jobs, seen)]
    reads = _widest_read(jobs, places, pics)
    taken = {r.id for r in regions if r.id >= 0} | contested
    done: set[int] = set()   # a region read at one place is not read again at the other
    ranked = sorted(zip(jobs, reads), key=lambda job: -job[1][2])   # surest reads first
    while True:   # again while a region read anew gives up an id that another read names
        changed = False
        for (reg, box), (rid, text, conf) in ranked:
            need = ODD_SURE if id(reg) in odd and rid != reg.id else max(sure, reg.confidence)
            if id(reg) in done or conf < need or not free_id(rid, reg.id, taken, allowed):
                continue
            take_read(reg, (rid, text, conf), box, taken)
            done.add(id(reg))
            changed = True
        if not changed:
            return regions


def _window(anchor: tuple[float, float], w: float, h: float) -> tuple[int, int, int, int]:
    """The ``w`` x ``h`` px label box whose top-left corner is ``anchor``, in whole px."""
    return int(round(anchor[0])), int(round(anchor[1])), int(round(anchor[0] + w)), int(round(anchor[1] + h))


def _narrower(w: float, digit: float, longest: int) -> list[float]:
    """Label window widths (px) from ``w`` down by a ``digit`` width at a time, ``longest`` digits fewer at most,
    none narrower than a digit."""
    return [w - k * digit for k in range(longest + 1) if w - k * digit >= digit]


def _widest_read(jobs: list[tuple[Region, tuple[int, int, int, int]]], places: list[int],
                 reads: list[tuple[int | None, str, float]]) -> list[tuple[int | None, str, float]]:
    """The reads of ``jobs`` (region, window) at ``places``, every window of a region at a place read as no number
    but the widest of them that reads one."""
    best: dict[tuple[int, int], int] = {}   # (region, place) -> index of the widest window that reads a number
    for k, ((reg, box), p, read) in enumerate(zip(jobs, places, reads)):
        key = (id(reg), p)
        widest = jobs[best[key]][1] if key in best else None
        if read[0] is not None and (widest is None or box[2] - box[0] > widest[2] - widest[0]):
            best[key] = k
    return [read if best.get((id(reg), p), k) == k else (None, "", 0.0)
            for k, ((reg, _), p, read) in enumerate(zip(jobs, places, reads))]
