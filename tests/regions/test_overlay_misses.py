"""The miss/extra sorter of benchmarks.measure.overlay_misses on hand-made truth and predictions."""

from __future__ import annotations

from benchmarks.measure.overlay_misses import buckets


def test_each_miss_and_extra_lands_in_its_bucket():
    truth = [{"image": "images/a.jpg", "style": "tag_out", "regions": [
        {"id": 0, "bbox": [10, 40, 60, 90], "label_bbox": [10, 20, 50, 39]},     # read exactly
        {"id": 1, "bbox": [100, 40, 150, 90], "label_bbox": [100, 20, 140, 39]},  # its tag taken in
        {"id": 2, "bbox": [200, 40, 250, 90], "label_bbox": [200, 20, 240, 39]},  # found unlabeled
        {"id": 3, "bbox": [300, 40, 350, 90], "label_bbox": [300, 20, 340, 39]},  # not found
    ]}]
    preds = [{"image": "images/a.jpg", "regions": [
        {"id": 0, "bbox": [10, 40, 60, 90]},
        {"id": 1, "bbox": [100, 20, 150, 90]},
        {"id": 7, "bbox": [300, 20, 340, 39]},   # a tag read as a box
        {"id": 8, "bbox": [400, 400, 420, 420]},  # picture
    ], "unlabeled_boxes": [[200, 40, 250, 90]]}]
    found = {key: len(cases) for key, cases in buckets(truth, preds).items()}
    assert found == {
        ("miss", "tag_out", "box larger (took in a label or neighbour)"): 1,
        ("miss", "tag_out", "box found, label unread"): 1,
        ("miss", "tag_out", "box not found"): 1,
        ("extra", "tag_out", "piece of a box"): 1,
        ("extra", "tag_out", "label read as a box"): 1,
        ("extra", "tag_out", "on the picture"): 1,
    }
