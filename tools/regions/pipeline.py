"""Read region overlays (drawn boxes with neutral labels such as "Region 3" or "3") back from image pixels.

Pipeline of :func:`read_regions`:

1. Overlay colours: hue peaks of the near-pure pixels (S >= CORE_SATS[0], lower when none are, and bright ones
   at the lower levels as well, for a thin outline JPEG desaturated beside thick ones); one mask per colour holds
   the saturated, bright pixels (S, V >= 120 of 255) within HUE_TOL of that hue. Sunlit vegetation is saturated
   too but spread over yellow-green hues and rarely near S = 255, so it stays out. Grey, white or black outlines
   have no hue for this pass (:mod:`tools.regions.colours`); thin white and light grey ones are found in step 6.
2. Rectangles per colour: :mod:`tools.regions.lines` (straight line pieces, bands drawn across pairs of vertical
   lines, off the filled label backgrounds of :mod:`tools.regions.fill`; labels glued to an outline told apart from
   the outline; an outline drawn around its own filled label, :mod:`tools.regions.frames`) and
   :mod:`tools.regions.prune` (duplicates, pieces of crossing boxes and glued labels dropped; a rectangle with
   nothing drawn inside, or with a filled label centred in it spanning less than half its width, is no label);
   each side is then checked against its corners (:mod:`tools.regions.sides`: a
   side on another box's line moves to where the box's own lines end, a side on the image border half a line in),
   and a rectangle closed at the bottom edge of a filled label glued below the box and as wide as it ends at the
   box's own bottom line (:func:`tools.regions.sides.off_label_below`).
3. Labels: what is left of the mask once the outlines are removed (a label background drawn over an outline is
   kept whole) is grouped into label blobs (:mod:`tools.regions.labels`: filled backgrounds with letter holes, or
   letters in coloured strokes joined into words), each blob is matched to the box it annotates (label above /
   below / inside / left of the box: the usual renderer conventions; ``scipy.optimize.linear_sum_assignment`` on
   the placement distances) and
   read by the OCR engine (:mod:`tools.regions.ocr`: PP-OCRv4 via rapidocr, or Tesseract), and read again off
   the picture's own pixels at the blob (a filled one grown over letters cut at its trimmed edge,
   :func:`tools.regions.fill.with_cut_letters`) by the label recognizer (:mod:`tools.regions.label_reader`;
   :func:`tools.regions.ids.combine_reads` settles the two reads; a label box that ends on an outline's vertical
   side is read cut off it too, :func:`tools.regions.ids.pictures_off_sides`; a label drawn as a disc, off its
   letters on its fill, :func:`tools.regions.fill.disc_pictures`); a label that runs into its box's
   right side, or into another box's left side, is read past it (:func:`tools.regions.labels.across_right_side`;
   a "Region N" centred across both sides of a narrow box, past both: :func:`tools.regions.labels.centred_across`).
   Two label backgrounds drawn one against the other (beside stacked or crossing boxes) are split between their
   rows of letters (:func:`tools.regions.rows.stacked_rows`).
   A rectangle that is a letter of a label (a stroke "0" next to its "1", no taller than the letters beside it; one
   half under a label, a small label's fill around a bold letter) is dropped and the labels found again; a box
   that took in the label background glued to it is fitted back (:func:`tools.regions.places.unglued`; where the
   image's labels sit above their boxes, a label found inside a box's top-left corner that would fit above it is one
   glued above and as wide as it, :func:`tools.regions.sides.off_label_above`), and a left
   side found on another box's line inside the box moves out to where its label begins, or ends for a label left of
   it, and either side of a box whose label is centred in it to where the label's centre puts it
   (:func:`tools.regions.sides.label_side`); an unlabeled box found where another box's
   label was read is that label's background, dropped (:func:`tools.regions.places.labels_only`). A filled label
   that no box took, read alike off the mask and the picture, finds its box from where the colour's labels sit
   beside their boxes, or the one place where a box closes around it (:mod:`tools.regions.anchored`: the lines
   closing a rectangle with the corner or centre the label fixes).
4. An id read on several boxes stays with the one box whose two reads agree (:func:`tools.regions.ids.unique_ids`);
   a box that loses it so takes its label's mask read where the picture read overruled one of as many digits.
5. :data:`LABEL_PASSES`, in order, each a :data:`Pass` over every colour's boxes. Boxes still unlabeled, read
   unsurely, or whose label sits at another place than nearly all others: their label is read off the picture
   where the image's read labels sit beside their own boxes, or inside the top-left corner where that place leaves
   the image (:func:`tools.regions.places.label_by_siblings`; the surer read stands; a window ending on a box's
   side is read cut off it as well); a letter-sized box at an unlabeled box's label place (a stroke "0" closes a
   small rectangle) is read with the label it took as that box's label (:func:`tools.regions.places.letter_boxes`);
   then the engine's text detector looks at a crop around each unlabeled box; a number is taken where a label of
   that box goes (:func:`tools.regions.detect.label_by_detection`; two text lines on one row, the first without
   digits, are one label a box's side crossed). A label box narrower than its read digits need (the one stem of a
   thin label that the colour mask kept) is read again off the picture grown around it
   (:func:`tools.regions.ids.grown_fragments`).
6. :data:`FINISHING` (steps 6 and 7), once, on the image's own pixels. With ``outer_edges``, the boxes found so far
   (at their lines' centres) move out to their lines' outer edges, measured in the pixels
   (:mod:`tools.regions.edges`). Thin outlines that JPEG took the colour from, or drawn in white, light grey or a
   pale colour, are found by their line profile, at their outer edges, and labelled where renderers put labels
   (:mod:`tools.regions.union`, :mod:`tools.regions.marks`; a box lying in a read label's word is a letter of it
   closed into a rectangle, :func:`tools.regions.marks.letter_of`); then a label glued on a box's top or bottom
   line is cut off it (:func:`tools.regions.edges.off_glued_labels`).
7. Translucent masks: a numbered marker that no box took as its label, with a tinted area closing around it, is a
   region whose box is the mask's extent (:mod:`tools.regions.masks`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from tools.common import ToolError, load_image
from tools.regions.region import Region
from tools.regions.geom import (ABOVE, INSIDE_TOP_LEFT, PLACES, SAME_BOX, iou,  # noqa: F401 - iou re-exported
                                match_limit, occluders, off_image, placement, placement_cost, side_of, within)
from tools.regions.ids import grown_fragments, pictures_off_sides, settle_reads, unique_ids
from tools.regions.labels import across_right_side, filled_letters, label_blobs, letter_rects, may_be_filled
from tools.regions.anchored import box_from_label, colour_lines, explained, orphan_labels
from tools.regions.colours import CORE_MIN, colour_layers, colour_masks, overlay_mask  # noqa: F401 - re-exported
from tools.regions.detect import label_by_detection
from tools.regions.fill import disc_pictures, filled_areas, with_cut_letters
from tools.regions.lines import find_rectangles
from tools.regions.ocr import LabelBlob, read_labels, read_pictures, settle_disagreements
from tools.regions.places import (DRAWN_HEIGHT, image_place, label_by_siblings, labels_only, letter_boxes,
                                  unglued)
from tools.regions.sides import label_side, off_label_above, off_label_below, refit_sides
from tools.regions.scale import read_scaled, second_look, working_scale
from tools.regions.union import with_thin_rects
from tools.regions.masks import with_masks
from tools.regions.edges import off_glued_labels, outer_box

SURE_READ = 0.85              # OCR confidence above which the other polarity of a label is not tried
# a label read where the image's other labels sit, beside a box found there, needs less: on dev overlays (seeds 1/11)
# sibling reads taken at >= 0.9 / 0.5 / 0.3 gave 888/850, 896/856, 899/857 exact regions, wrong ids 19/23 -> 20/25
SIBLING_SURE = 0.3
# a read less sure than this is looked for where the image's other labels sit too, and the surer read stands: dev
# overlays (seeds 1/11/21) 899/862/853 exact without; from 0.6 / 0.8 / 0.9 / 0.97: 902/863/856, 905/867/856,
# 905/868/857, 907/870/855
UNSURE_READ = 0.9
DET_THICK = 3.0              # px, outline thickness assumed when placing a detected label


@dataclasses.dataclass(frozen=True)
class Page:
    """What a pass over every colour's boxes sees: the picture (RGB, at the scale being read), the ids the caller
    allows (None: any), the ids that several boxes' labels were read as and none kept
    (:func:`tools.regions.ids.unique_ids`), and whether boxes are reported at their outlines' outer edges."""

    rgb: np.ndarray
    allowed: set[int] | None
    contested: frozenset[int] = frozenset()
    outer_edges: bool = False


# A pass takes the page and the regions found so far and returns them, relabelled, refitted, added to or dropped.
# Each one below calls its module's function by the name this module imports it under, so that
# benchmarks.measure.ablate_regions can switch a pass off by replacing that name.
Pass = Callable[[Page, list[Region]], list[Region]]


def _labels_at_siblings_place(page: Page, regions: list[Region]) -> list[Region]:
    """Unread or unsurely read labels read where the image's other labels sit (:func:`label_by_siblings`)."""
    return label_by_siblings(page.rgb, regions, page.allowed, set(page.contested), DET_THICK, SIBLING_SURE,
                             UNSURE_READ)


def _letters_taken_for_boxes(page: Page, regions: list[Region]) -> list[Region]:
    """A letter-sized box at an unlabeled box's label place read as its label (:func:`letter_boxes`)."""
    return letter_boxes(page.rgb, regions, page.allowed, DET_THICK, SIBLING_SURE)


def _labels_by_text_detector(page: Page, regions: list[Region]) -> list[Region]:
    """The text detector around each box still unlabeled (:func:`label_by_detection`)."""
    return label_by_detection(page.rgb, regions, page.allowed, DET_THICK)


def _fragments_read_grown(page: Page, regions: list[Region]) -> list[Region]:
    """A label box narrower than its digits need read again grown (:func:`grown_fragments`)."""
    return grown_fragments(page.rgb, regions, page.allowed)


def _at_outer_edges(page: Page, regions: list[Region]) -> list[Region]:
    """With ``outer_edges``: boxes found at their lines' centres moved to the lines' outer edges
    (:func:`outer_box`; the thin outlines' pass finds outer edges itself)."""
    return _refit_with_outer_edges(page, regions, outer_box)


def _thin_outlines(page: Page, regions: list[Region]) -> list[Region]:
    """Outlines too thin (or too pale) for the colour masks, found by their line profile (:func:`with_thin_rects`)."""
    return with_thin_rects(page.rgb, regions, page.allowed, Region)


def _without_glued_labels(page: Page, regions: list[Region]) -> list[Region]:
    """With ``outer_edges``: a label glued on a box's top or bottom line cut off the box (:func:`off_glued_labels`)."""
    return _refit_with_outer_edges(page, regions, off_glued_labels)


def _refit_with_outer_edges(page: Page, regions: list[Region],
                            refit: Callable[[np.ndarray, list[float]], list[float]]) -> list[Region]:
    """Each box refitted by ``refit`` (image, box) -> box when the caller asked for outer edges; else unchanged."""
    if page.outer_edges:
        for r in regions:
            r.bbox = refit(page.rgb, r.bbox)
    return regions


def _translucent_masks(page: Page, regions: list[Region]) -> list[Region]:
    """Tinted areas closing around a numbered marker no box took (:func:`with_masks`)."""
    return with_masks(page.rgb, regions, page.allowed, Region)


# step 5 of the module docstring: over every colour's boxes, after unique_ids, at each scale read
LABEL_PASSES: tuple[Pass, ...] = (_labels_at_siblings_place, _letters_taken_for_boxes, _labels_by_text_detector,
                                  _fragments_read_grown)
# steps 6 and 7: once, on the image's own pixels, after the scaled reads are settled
FINISHING: tuple[Pass, ...] = (_at_outer_edges, _thin_outlines, _without_glued_labels, _translucent_masks)


# ----------------------------------------------------------------------------------------------- public API
def read_regions(
    image: Any,
    *,
    expected_ids: Sequence[int] | None = None,
    min_side: float = 12.0,
    include_unlabeled: bool = False,
    outer_edges: bool = False,
) -> list[Region]:
    """Find drawn region boxes and read their labels ("Region 3" or "3") from the pixels.

    image: RGB array, path or encoded bytes. expected_ids: ids known to be present (labels read as other
    numbers are dropped). min_side: smallest box side in px. include_unlabeled: also return boxes whose
    label could not be read, with ``id = -1``. outer_edges: report each box at the outer edge of its drawn
    outline, measured in the pixels (:mod:`tools.regions.edges`; the convention of overlays drawn by others and of
    the read_regions tool), instead of at the centres of its lines (the project's overlay generator and the tests
    written on it). A translucent mask's box is its extent either way (:mod:`tools.regions.masks`).
    Returns regions sorted by id; ``[]`` when none are found. An
    image whose outlines are 9 px thick or more (a high-resolution frame) is read scaled down to 5 px lines
    (:mod:`tools.regions.scale`); boxes come back in the image's own pixels. Where a box is left unlabeled or a
    label unconfirmed, the image is read again at 0.8 and 0.67 of that scale, and what those two reads agree on
    stands (:func:`tools.regions.scale.second_look`).
    Raises :class:`ToolError` for inputs that are not images.
    """
    if not isinstance(image, (str, Path, bytes, bytearray, np.ndarray)):
        raise ToolError(f"read_regions needs an image (array, path or bytes), got {type(image).__name__}")
    rgb = load_image(image)
    if rgb.size == 0:
        raise ToolError("read_regions got an empty image")
    allowed = set(int(i) for i in expected_ids) if expected_ids is not None else None
    # outlines drawn thicker than the reader's pixel constants allow are read where they are WORK_THICK px thick
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    scale = working_scale(overlay_mask(rgb, hsv))

    def read(img: np.ndarray, s: float) -> list[Region]:   # the image scaled by s
        return _read_image(img, allowed, min_side * s, hsv if img is rgb else None)

    # where labels were left unread or unconfirmed, two more reads at other scales may outvote the first
    regions = second_look(rgb, read_scaled(rgb, scale, read), scale, read)
    page = Page(rgb, allowed, outer_edges=outer_edges)
    for step in FINISHING:
        regions = step(page, regions)
    if not include_unlabeled:
        regions = [r for r in regions if r.id >= 0]
    return sorted(regions, key=lambda r: (r.id, r.bbox))


def _read_image(rgb: np.ndarray, allowed: set[int] | None, min_side: float,
                hsv: np.ndarray | None = None) -> list[Region]:
    """:func:`read_regions` (unlabeled boxes too) on an image whose outlines are no thicker than the reader's pixel
    constants allow (``hsv``: the image in OpenCV's HSV when already converted)."""
    regions: list[Region] = []
    layers = colour_layers(rgb, hsv)
    filled = [filled_areas(mask.astype(np.uint8)) for mask, _ in layers]
    hidden = occluders([mask for mask, _ in layers], filled)
    for (mask, strength), fill, occluded in zip(layers, filled, hidden):
        regions += _read_colour(rgb, mask, strength, fill, min_side, allowed, occluded)
    contested = unique_ids(rgb, regions, allowed)
    page = Page(rgb, allowed, contested=frozenset(read.id for contest in contested for _, read in contest))
    for step in LABEL_PASSES:
        regions = step(page, regions)
    return sorted(regions, key=lambda r: (r.id, r.bbox))


def _read_colour(rgb: np.ndarray, mask: np.ndarray, strength: np.ndarray, filled: np.ndarray, min_side: float,
                 allowed: set[int] | None, occluded: np.ndarray) -> list[Region]:
    """Boxes and labels drawn in one overlay colour (``mask``, ``strength``: see :func:`colour_layers`;
    ``filled``: :func:`filled_areas` of the mask; ``occluded``: what the other overlay colours cover)."""
    rects = find_rectangles(mask, min_side, filled, occluded)
    if not rects:   # a filled label may still anchor its box
        return _boxes_from_labels(rgb, [], rects, mask, strength, filled, occluded, allowed)
    rects = [(off_label_below(refit_sides(box, t, mask), t, mask), t) for box, t in rects]
    size = (mask.shape[1], mask.shape[0])
    blobs, letters = label_blobs(mask, rects, filled)
    glyphs = set(letter_rects(rects, blobs)) | set(filled_letters(rects, rgb, mask, filled))
    if glyphs:   # a letter taken for a box: its strokes were erased as an outline, so the label is found again
        rects = [r for i, r in enumerate(rects) if i not in glyphs]
        blobs, letters = label_blobs(mask, rects, filled)
    # stroke letters are read off the mask without the outlines (a crossing line is no letter); a filled
    # label keeps its own pixels (regions_ocr reads only the holes it encloses)
    near = cv2.dilate(letters.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    strokes = np.where(near, strength, 0).astype(np.uint8)
    cost = np.array([[placement_cost(b.box, box, t, size) for b in blobs] for box, t in rects]).reshape(
        len(rects), len(blobs))
    limit = np.array([[match_limit(b.box) for b in blobs]] * len(rects)).reshape(cost.shape)
    reads: dict[int, tuple[int, str, float, bool | None]] = {}
    overruled: dict[int, tuple[int, str, float]] = {}   # blob index -> its mask read, where the picture's stood
    near_ids = [int(j) for j in np.flatnonzero((cost <= limit).any(axis=0))] if blobs else []
    first = read_labels([_ocr_job(blobs[j], mask, strength, letters, strokes) for j in near_ids])
    unsure = [k for k, (rid, _, conf) in enumerate(first)
              if (rid is None or conf < SURE_READ) and may_be_filled(mask, blobs[near_ids[k]])]
    # a small label background and a bold digit look alike: the unsure ones are read the other way too
    flipped = read_labels([_ocr_job(LabelBlob(blobs[near_ids[k]].box, not blobs[near_ids[k]].filled), mask,
                                    strength, letters, strokes) for k in unsure])
    read_as = [blobs[j] for j in near_ids]   # the kind of label each first read took it for
    for k, alt in zip(unsure, flipped):
        if alt[0] is not None and (first[k][0] is None or alt[2] > first[k][2]):
            first[k], read_as[k] = alt, LabelBlob(read_as[k].box, not read_as[k].filled)
    wide = [across_right_side(read_as[k], rects, blobs) for k in range(len(near_ids))]
    # every label is read off the picture too (dev overlays: reading a sure stroke read once saved ~5 % of the time
    # at 1080p and cost 4 exact regions and 5 extra ones on seeds 1/11/21/41/51/61/71)
    # a filled label's letters cut at its trimmed edge are read whole; a label ending on a box side, off it too
    grown = [with_cut_letters(mask, b) for b in wide]
    seen, pictures = pictures_off_sides(rgb, grown, rects, [g != b for g, b in zip(grown, wide)])
    # a disc's mask read (as stroke letters, the disc is a "0") and the third reader's are no vote on it
    pictures = disc_pictures(rgb, mask, seen, settle_disagreements(rgb, seen, first, pictures))
    for k, j in enumerate(near_ids):
        mask_read = first[k]
        first[k], both = settle_reads(first[k], pictures[k], allowed)
        rid, text, conf = first[k]
        if rid is not None and (allowed is None or rid in allowed):
            reads[j] = (rid, text, conf, both)
            # an other reading of as many digits (a shorter mask read lost digits to an outline across them)
            if (mask_read[0] is not None and mask_read[0] != rid and len(str(mask_read[0])) == len(str(rid))
                    and (allowed is None or mask_read[0] in allowed)):
                overruled[j] = (int(mask_read[0]), mask_read[1], mask_read[2])
    out = _assign(rects, cost, limit, reads, blobs, overruled)
    usual = image_place(out, rects, size)   # labels are drawn alike: where nearly all sit, this one does too
    for reg, (_, t) in zip(out, rects):
        if reg.label_box is not None:
            box = unglued(reg.bbox, reg.label_box, t, mask)
            # labels are drawn alike
            if usual is not None and side_of(usual) == ABOVE and _inside_odd(reg.label_box, box, t, size):
                box = off_label_above(box, t, mask)
            place = usual if usual is not None else placement(reg.label_box, box, t, size)
            box = label_side(box, reg.label_box, t, place, mask)
            reg.bbox = [round(float(v), 1) for v in box]
    out = labels_only(out)
    return out + _boxes_from_labels(rgb, out, rects, mask, strength, filled, occluded, allowed)


def _inside_odd(label: Sequence[float], box: Sequence[float], thick: float, size: tuple[int, int]) -> bool:
    """The label (its letters) sits inside the box's top-left corner though a label that size would fit above the
    box (:func:`tools.regions.geom.off_image`), where renderers draw it when they can: a label drawn above a box as
    wide as it, glued to its line, and found with it."""
    w, h = label[2] - label[0], DRAWN_HEIGHT * (label[3] - label[1])
    return placement(label, box, thick, size) == INSIDE_TOP_LEFT and not off_image(box, w, h, thick, size, ABOVE)


def _boxes_from_labels(rgb: np.ndarray, out: list[Region], rects, mask: np.ndarray, strength: np.ndarray,
                       filled: np.ndarray, occluded: np.ndarray, allowed: set[int] | None) -> list[Region]:
    """Boxes of this colour's filled labels that no found box took (:mod:`tools.regions.anchored`): each read off
    the mask and the picture alike, as an id no box of this colour has, and placed where this colour's labels go."""
    if not (filled > 0).any():   # no filled label at all (the lines are looked for only where one is left over)
        return []
    place = image_place(out, rects, (mask.shape[1], mask.shape[0]))
    matched = [r.label_box for r in out if r.label_box is not None]
    if place is None and matched:   # the colour's labels sit at several places
        return []
    lines = None if rects else colour_lines(mask)   # a colour without rectangles: its lines' thickness
    thick = lines[2] if lines is not None else float(np.median([t for _, t in rects]))
    if thick is None:
        return []
    height = float(np.median([b[3] - b[1] for b in matched])) if matched else None
    labels = orphan_labels(filled, matched, mask, height, thick)
    if not labels:
        return []
    lines = lines or colour_lines(mask)
    blobs = [LabelBlob(b, True) for b in labels]
    reads = zip(read_labels([(mask, b, strength) for b in blobs]), read_pictures(rgb, blobs))
    drawn, known = mask | (filled > 0) | occluded, explained([b for b, _ in rects], mask.shape)
    taken = {r.id for r in out}
    found = []
    for blob, (mask_read, picture_read) in zip(blobs, reads):
        rid, text, conf = mask_read
        if rid is None or rid != picture_read[0] or rid in taken or (allowed is not None and rid not in allowed):
            continue
        # no label of this colour matched: the place where exactly one box closes, around the label's background
        # (its own edges close one inside it)
        boxes = [b for p in ([place] if place is not None else PLACES)
                 if (b := box_from_label(blob.box, p, thick, lines[:2], mask, drawn, known))
                 and (place is not None or not within(b, blob.box, -thick))]
        if len(boxes) != 1:
            continue
        same = [r for r in out if iou(r.bbox, boxes[0]) >= SAME_BOX]
        if any(r.id >= 0 for r in same):
            continue
        taken.add(rid)
        reg = same[0] if same else Region(-1, [round(float(v), 1) for v in boxes[0]])
        reg.relabel(rid, text, max(conf, picture_read[2]), blob.box)   # a found unlabeled box takes it, or a new one
        reg.confirmed = True   # both reads agree
        if not same:
            found.append(reg)
    return found


def _ocr_job(blob: LabelBlob, mask: np.ndarray, strength: np.ndarray, letters: np.ndarray,
             strokes: np.ndarray) -> tuple[np.ndarray, LabelBlob, np.ndarray]:
    """What to OCR for one label blob: a filled label from the whole colour mask, stroke text from the
    outline-free one."""
    return (mask, blob, strength) if blob.filled else (letters, blob, strokes)


def _assign(rects, cost, limit, reads, blobs: list[LabelBlob], overruled: dict[int, tuple[int, str, float]]
            ) -> list[Region]:
    """Match read labels (``reads``: blob index -> (id, text, confidence, confirmed)) to boxes (min total placement
    distance), one label per box and per id; a pair further apart than
    ``limit`` is never matched. ``overruled``: blob index -> its mask read, where the picture read stood over it."""
    out = [Region(-1, [round(v, 1) for v in box], "", 0.0) for box, _ in rects]
    cols = sorted(reads)
    if cols:
        sub = cost[:, cols]
        big = 1e6
        rows_i, cols_i = linear_sum_assignment(np.where(sub <= limit[:, cols], sub, big))
        for r, c in zip(rows_i, cols_i):
            if sub[r, c] <= limit[r, cols[c]]:
                rid, text, conf, both = reads[cols[c]]
                out[r] = Region(rid, out[r].bbox, text, round(conf, 3), both, [int(v) for v in blobs[cols[c]].box],
                                mask_read=overruled.get(cols[c]))
    return out
