"""SAM segmentation: a randomly initialised ViT-B loaded from the configured path; the prompting path on a random
SAM of the same classes with a small image encoder; prompt validation; errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from tools.common import ToolError
from tools.perception.segment import mask_bbox, segment

IMAGE = np.zeros((48, 64, 3), np.uint8)
IMAGE[10:30, 20:40] = (200, 50, 50)  # a red block on black


def test_missing_checkpoint_names_the_setting() -> None:
    with pytest.raises(MissingWeightsError, match="sam_checkpoint"):
        segment(IMAGE, boxes=[[20, 10, 40, 30]], config=Config(sam_checkpoint=None))
    with pytest.raises(MissingWeightsError, match="UAV_AGENT_SAM_CHECKPOINT"):
        segment(IMAGE, points=[(30, 20)], config=Config(sam_checkpoint="/nonexistent/sam_vit_b.pth"))


@pytest.mark.parametrize("kwargs,match", [
    ({}, "box or point prompts"),
    ({"boxes": [[40, 10, 20, 30]]}, "x1 < x2"),
    ({"boxes": [[100, 60, 120, 80]]}, "outside"),
    ({"boxes": [[1, 2, 3]]}, r"\[x1, y1, x2, y2\]"),
    ({"points": [(70, 10)]}, "inside"),
    ({"points": [(10, 10), (20, 20)], "point_labels": [1]}, "one 0/1 label per point"),
    ({"points": [(10, 10)], "point_labels": [2]}, "0/1"),
    ({"point_labels": [1]}, "without points"),
])
def test_bad_prompts_are_rejected_before_loading(kwargs: dict, match: str) -> None:
    # a missing checkpoint would raise MissingWeightsError: ToolError here proves the prompt was checked first
    with pytest.raises(ToolError, match=match):
        segment(IMAGE, config=Config(sam_checkpoint=None), **kwargs)


def test_mask_bbox_is_tight_and_exclusive() -> None:
    mask = np.zeros((10, 12), bool)
    mask[2:5, 3:9] = True
    assert mask_bbox(mask) == [3.0, 2.0, 9.0, 5.0]
    assert mask_bbox(np.zeros((4, 4), bool)) == [0.0, 0.0, 0.0, 0.0]


def test_corrupt_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "sam.pth"
    bad.write_bytes(b"garbage")
    with pytest.raises(ToolError, match="could not load SAM vit_b checkpoint"):
        segment(IMAGE, boxes=[[20, 10, 40, 30]], config=Config(sam_checkpoint=str(bad)))


def _save_random(build, path: Path):
    """A randomly initialised SAM from ``build`` (a segment_anything builder), its state dict saved to ``path``."""
    import torch

    torch.manual_seed(0)
    sam = build(checkpoint=None)
    torch.save(sam.state_dict(), path)
    return sam


def _small_sam(checkpoint=None):
    """SAM of the same classes as ViT-B (image encoder, prompt encoder, mask decoder) with a 2-block, 64-wide image
    encoder: the prompting path at a twentieth of ViT-B's encoder cost (the encoder runs on 1024x1024 either way)."""
    from segment_anything.build_sam import _build_sam

    return _build_sam(encoder_embed_dim=64, encoder_depth=2, encoder_num_heads=2, encoder_global_attn_indexes=[1],
                      checkpoint=checkpoint)


def test_random_vit_b_loads_from_configured_path(tmp_path: Path) -> None:
    """Random ViT-B weights saved to a file load through the loader into its ViT-B architecture, unchanged."""
    import torch
    from segment_anything import build_sam_vit_b

    from tools.perception.segment import _load_predictor

    path = tmp_path / "sam_vit_b_random.pth"
    sam = _save_random(build_sam_vit_b, path)
    loaded = _load_predictor(str(path), "vit_b").model
    assert torch.equal(loaded.image_encoder.pos_embed.cpu(), sam.image_encoder.pos_embed)
    assert torch.equal(loaded.mask_decoder.iou_prediction_head.layers[0].weight.cpu(),
                       sam.mask_decoder.iou_prediction_head.layers[0].weight)
    _load_predictor.cache_clear()   # ViT-B's 360 MB are not kept for the rest of the run


def test_configured_checkpoint_is_prompted_with_boxes_then_points(tmp_path: Path, monkeypatch) -> None:
    """A random SAM (the ViT-B classes, a small image encoder, registered as vit_b) loaded through
    Config.sam_checkpoint, prompted with boxes then points; the image embedding is computed once."""
    import segment_anything

    from tools.perception.segment import _load_predictor

    monkeypatch.setitem(segment_anything.sam_model_registry, "vit_b", _small_sam)
    _load_predictor.cache_clear()
    path = tmp_path / "sam_small_random.pth"
    _save_random(_small_sam, path)
    cfg = Config(sam_checkpoint=str(path), sam_model_type="vit_b")

    boxes = [[20, 10, 40, 30], [0, 0, 63, 47]]
    results = segment(IMAGE, boxes=boxes, config=cfg)
    assert len(results) == 2
    for r in results:
        assert r.mask.shape == IMAGE.shape[:2] and r.mask.dtype == bool
        assert np.isfinite(r.score)
        assert r.bbox == mask_bbox(r.mask) and r.area_px == int(r.mask.sum())

    # same image again: the cached embedding is reused, so point prompts cost only the decoder
    predictor = _load_predictor(str(path), "vit_b")
    encoder = predictor.model.image_encoder
    calls = []
    hook = encoder.register_forward_hook(lambda *_: calls.append(1))
    by_points = segment(IMAGE, points=[(30, 20), (5, 5)], point_labels=[1, 0], config=cfg)
    single = segment(IMAGE, points=[(30, 20)], config=cfg)
    hook.remove()
    assert calls == []
    assert len(by_points) == 1 and len(single) == 1
    assert by_points[0].mask.shape == IMAGE.shape[:2] and np.isfinite(single[0].score)
    _load_predictor.cache_clear()
