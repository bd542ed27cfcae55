"""The parser on relations and compositions: coordinated wh-phrases, sides and comparatives between regions, the
image centre by other names, and other words for the same quantities (phrasings written here, not copied from any
shared set)."""

from __future__ import annotations

import pytest

from planners.parse import parse_question
from planners.program import Ask


@pytest.mark.parametrize("question,first,then", [
    ("Which way and how far did the drone move between the two photos?", Ask.COMPASS, Ask.DISTANCE),
    ("In which direction, and over what distance, was the second shot taken from the first?", Ask.COMPASS,
     Ask.DISTANCE),
    ("How far apart were the two pictures taken, and in which compass direction?", Ask.DISTANCE, Ask.COMPASS),
    ("how far and in what direction did we fly from pic 1 to pic 2", Ask.DISTANCE, Ask.COMPASS),
])
def test_coordinated_wh_phrases_share_one_predicate(question, first, then):
    p = parse_question(question, 2)
    assert (p.ask, p.then.ask if p.then else None) == (first, then)


@pytest.mark.parametrize("question,form", [
    ("Is region #0 to the left or right of region #3?", "label"),
    ("Which side of box 2 is box 6 on?", "label"),
    ("Is box 4 to the left of box 2?", "yes_no"),
    ("is label 7 below label 1", "yes_no"),
])
def test_a_side_relation_between_regions(question, form):
    p = parse_question(question, 1)
    assert p.ask == Ask.SIDE and p.form == form and len(p.regions()) == 2


def test_a_comparative_between_named_regions_is_an_order_from_the_anchor():
    p = parse_question("Which area is nearer to region 5: region 2 or region 8?", 1)
    assert p.ask == Ask.ORDER and p.conventions.anchor.id == 5 and p.regions() == [5, 2, 8]


@pytest.mark.parametrize("question", [
    "The drone hovers over the middle of the frame. Which region is the shortest hop away?",
    "Which box is closest to the image centre?",
    "Which tag sits nearest the centre of this straight-down photo?",
])
def test_the_image_centre_by_other_names_anchors_an_order(question):
    assert parse_question(question, 1).conventions.anchor.kind == "centre"


def test_how_much_ground_a_photo_covers_is_its_footprint():
    assert parse_question("Roughly how much ground does this frame cover?", 1).ask == Ask.FOOTPRINT
    assert parse_question("What area of terrain is covered by this shot?", 1).ask == Ask.FOOTPRINT


def test_which_side_of_a_region_names_the_reference_second():
    assert parse_question("Which side of box 2 is box 6 on?", 1).regions() == [6, 2]


@pytest.mark.parametrize("ask,n,question", [
    (Ask.ALTITUDE, 1, "how far off the ground was the quad when it took this"),
    (Ask.GSD, 1, "what is the size of one px on the ground, in mm?"),
    (Ask.GSD, 1, "ground pixel spacing of this frame?"),
    (Ask.FOOTPRINT, 1, "how wide an area does this picture show, side-to-side and top-to-bottom?"),
    (Ask.TILT, 1, "is it a top down view"),
    (Ask.TILT, 1, "by how many degrees is the gimbal pitched?"),
    (Ask.QUALITY, 1, "Is the picture correctly exposed?"),
    (Ask.COMPASS, 2, "what bearing is the second photo's location from the first's?"),
    (Ask.OVERLAP, 3, "Which picture shares the largest area with photo 1?"),
    (Ask.MOTION, 4, "describe the drone's movement across these frames"),
    (Ask.TRANSFER, 2, "Which box in the 2nd image matches the outlined one in the 1st?"),
    (Ask.TRANSFER, 2, "Region 4 in image 1 corresponds to which region in image 2?"),
])
def test_other_words_for_the_same_quantities(ask, n, question):
    assert parse_question(question, n).ask == ask


def test_regions_corresponding_to_regions_are_pairs_one_region_is_a_transfer():
    assert parse_question("Which regions of the first image correspond to regions of the second? List the pairs.",
                          2).ask == Ask.CORRESPONDENCE
    assert parse_question("Box 3 of photo 1 corresponds to which box of photo 2?", 2).ask == Ask.TRANSFER
