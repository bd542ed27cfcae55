"""Promptable segmentation with segment-anything (SAM): box or point prompts → masks.

The checkpoint comes from ``Config.sam_checkpoint`` (architecture ``Config.sam_model_type``: vit_b, vit_l, vit_h);
none ships offline, so without one :class:`agent.config.MissingWeightsError` names the setting. Prompts are in
pixels of the input image: boxes ``[x1, y1, x2, y2]``, points ``(x, y)`` with labels 1 = object, 0 = background.
One box → one mask; with several boxes the points (if any) are applied to each box; points alone → one mask
(SAM's best of three when a single point is ambiguous).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import hashlib
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from agent.config import Config
from tools.common import ToolError, load_image

SAM_MODEL_TYPES = ("vit_b", "vit_l", "vit_h", "default")


@dataclass
class MaskResult:
    """A bool mask (H, W) of the input image, SAM's predicted IoU ``score``, and the mask's tight ``bbox``."""

    mask: np.ndarray = field(repr=False)
    score: float
    bbox: list[float]  # [x1, y1, x2, y2] pixels (x2/y2 exclusive); all zeros for an empty mask
    area_px: int = 0


@lru_cache(maxsize=2)
def _load_predictor(checkpoint: str, model_type: str) -> Any:
    """A ``SamPredictor`` for a checkpoint, loaded once per process."""
    if model_type not in SAM_MODEL_TYPES:
        raise ToolError(f"unknown Config.sam_model_type {model_type!r}; expected one of {SAM_MODEL_TYPES}")
    import torch
    from segment_anything import SamPredictor, sam_model_registry  # heavy: imported on use

    try:
        state = torch.load(checkpoint, map_location="cpu", weights_only=True)
        sam = sam_model_registry[model_type](checkpoint=None)
        sam.load_state_dict(state)
    except Exception as exc:  # corrupt file, or weights of another architecture
        raise ToolError(f"could not load SAM {model_type} checkpoint {checkpoint}: {exc}") from exc
    sam.to("cuda" if torch.cuda.is_available() else "cpu").eval()
    return SamPredictor(sam)


def _as_boxes(boxes: Any, width: int, height: int) -> np.ndarray:
    arr = np.asarray(boxes, float)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 4 or len(arr) == 0:
        raise ToolError(f"boxes must be a list of [x1, y1, x2, y2], got shape {np.shape(boxes)}")
    if not np.isfinite(arr).all() or (arr[:, 2] <= arr[:, 0]).any() or (arr[:, 3] <= arr[:, 1]).any():
        raise ToolError(f"each box needs finite x1 < x2 and y1 < y2: {arr.tolist()}")
    if (arr[:, 2] <= 0).any() or (arr[:, 3] <= 0).any() or (arr[:, 0] >= width).any() or (arr[:, 1] >= height).any():
        raise ToolError(f"a box lies outside the {width}x{height} image: {arr.tolist()}")
    return arr


def _as_points(points: Any, labels: Any, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    pts = np.asarray(points, float)
    if pts.ndim == 1:
        pts = pts[None]
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0:
        raise ToolError(f"points must be a list of (x, y), got shape {np.shape(points)}")
    if not np.isfinite(pts).all() or (pts < 0).any() or (pts[:, 0] >= width).any() or (pts[:, 1] >= height).any():
        raise ToolError(f"points must lie inside the {width}x{height} image: {pts.tolist()}")
    lab = np.ones(len(pts), int) if labels is None else np.asarray(labels).reshape(-1)
    if len(lab) != len(pts) or not np.isin(lab, (0, 1)).all():
        raise ToolError(f"point_labels must be one 0/1 label per point ({len(pts)} points), got {np.asarray(labels).tolist()}")
    return pts, lab.astype(int)


def _set_image(predictor: Any, rgb: np.ndarray) -> None:
    """Run SAM's image encoder unless this predictor already holds this exact image (prompts reuse it)."""
    key = (rgb.shape, hashlib.blake2b(rgb.tobytes(), digest_size=16).hexdigest())
    if getattr(predictor, "is_image_set", False) and getattr(predictor, "_uav_image_key", None) == key:
        return
    predictor.set_image(rgb, image_format="RGB")
    predictor._uav_image_key = key


def mask_bbox(mask: np.ndarray) -> list[float]:
    """Tight [x1, y1, x2, y2] of a bool mask (x2, y2 exclusive); [0, 0, 0, 0] when empty."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return [0.0, 0.0, 0.0, 0.0]
    return [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)]


def segment(
    image: Any,
    *,
    boxes: Sequence[Sequence[float]] | None = None,
    points: Sequence[Sequence[float]] | None = None,
    point_labels: Sequence[int] | None = None,
    config: Config | None = None,
) -> list[MaskResult]:
    """Masks for box and/or point prompts on an RGB image (array, path or bytes); one result per box."""
    rgb = load_image(image)
    h, w = rgb.shape[:2]
    if point_labels is not None and points is None:
        raise ToolError("point_labels given without points")
    if boxes is None and points is None:
        raise ToolError("segment needs box or point prompts (boxes=[[x1, y1, x2, y2]] or points=[(x, y)])")
    box_arr = _as_boxes(boxes, w, h) if boxes is not None else None
    pts, lab = _as_points(points, point_labels, w, h) if points is not None else (None, None)
    cfg = config or Config.from_env()
    predictor = _load_predictor(cfg.resolved_sam_checkpoint(), cfg.sam_model_type)
    _set_image(predictor, rgb)
    prompts = [None] if box_arr is None else list(box_arr)
    results = []
    for box in prompts:
        multimask = box is None and len(pts) == 1
        masks, scores, _ = predictor.predict(point_coords=pts, point_labels=lab, box=box, multimask_output=multimask)
        best = int(np.argmax(scores))
        mask = np.asarray(masks[best], bool)
        results.append(MaskResult(mask, float(scores[best]), mask_bbox(mask), int(mask.sum())))
    return results
