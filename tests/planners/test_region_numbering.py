"""An unread box's id from the consecutive numbering of the others (planners.region_numbering): the truth is the
numbering each case is built from; a case that two numberings fit, or with two boxes unread, names no id."""

from __future__ import annotations

import pytest

from planners.region_numbering import INFERRED_ID_CONFIDENCE, ids_left_over, infer_unread_id, with_inferred_id

BOX = [10.0, 20.0, 50.0, 60.0]


@pytest.mark.parametrize("read, unread_id", [
    ([0, 1, 2, 3, 4], 5),      # 0..5 with the last one unread (1..6 would not hold 0)
    ([0, 1, 3, 4, 5], 2),      # 0..5 with a gap
    ([1, 3], 2),               # 1..3 (0..2 would not hold 3)
    ([1, 2, 4], 3),            # 1..4 with a gap
    ([1, 2], None),            # 0..2 leaves 0, 1..3 leaves 3: either could be the unread box
    ([1, 2, 3, 4], None),
])
def test_the_one_unread_box_gets_the_id_its_numbering_leaves(read: list[int], unread_id: int | None) -> None:
    assert infer_unread_id(read, [BOX]) == ({} if unread_id is None else {unread_id: BOX})


def test_two_numberings_that_fit_name_no_id() -> None:
    assert ids_left_over([1, 2, 3], 4) is None  # 0..3 leaves 0, 1..4 leaves 4
    assert infer_unread_id([1, 2, 3], [BOX]) == {}


def test_an_id_outside_any_numbering_names_no_id() -> None:
    assert ids_left_over([0, 1, 7], 4) is None
    assert infer_unread_id([0, 1, 7], [BOX]) == {}


def test_two_unread_boxes_name_no_id() -> None:
    assert infer_unread_id([0, 1, 2], [BOX, BOX]) == {}


def test_with_inferred_id_adds_the_box_at_reduced_confidence() -> None:
    regions = {0: {"id": 0, "bbox": [0, 0, 5, 5], "confidence": 1.0}, 2: {"id": 2, "bbox": [9, 9, 15, 15]}}
    out, unread = with_inferred_id(regions, [BOX])
    assert unread == [] and out[1]["bbox"] == BOX and out[1]["confidence"] == INFERRED_ID_CONFIDENCE
    assert out[1]["id_from"] == "numbering" and out[0] == regions[0]
    same, still = with_inferred_id(regions, [BOX, BOX])
    assert same == regions and still == [BOX, BOX]
