"""Write a SpatialUAV-format suite: ``annotations.jsonl`` + ``images/`` + ``manifest.json``.

Record: ``{"id": "<Task>_<00001>", "image": ["images/<id>_<k>.jpg", ...] (relative to the jsonl's folder),
"conversations": [{"from": "human", "value": question}], "source": "SpatialUAV-synth", "GT": answer,
"meta": {exact geometry}}``. ``BEDI_Clock`` is our name for BEDI-style clock questions (scored with BEDI's
partial credit). Each instance draws from its own random stream ``(seed, crc32(task), index, attempt)``, so a
suite is reproducible from the seed and one task's instances do not depend on which other tasks were asked.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import cv2
import numpy as np

from agent.task_types import TaskType
from benchmarks.synth import tasks_multi, tasks_pair, tasks_single
from benchmarks.synth.instance import Instance, TaskContext
from benchmarks.synth.scene import SynthError
from benchmarks.synth.sources import Source, builtin_sources
from benchmarks.synth.tiers import Tier, get_tier

SOURCE_NAME = "SpatialUAV-synth"
MAX_ATTEMPTS = 100
DEFAULT_DATA_ROOT = Path(__file__).resolve().parents[3] / "shared" / "data"

#: The task types the generator renders (names from the shared vocabulary, ``agent.task_types``).
TASKS: dict[TaskType, Callable[[TaskContext], Instance]] = {
    TaskType.DIRECTION_RECOGNITION: tasks_single.direction_recognition,
    TaskType.BEDI_CLOCK: tasks_single.bedi_clock,
    TaskType.DISTANCE_COMPARISON: tasks_single.distance_comparison,
    TaskType.REGION_RECOGNITION: tasks_single.region_recognition,
    TaskType.A2A_CAMERA_TRANSFORMATION: tasks_pair.camera_transformation,
    TaskType.A2A_SHARED_ASSOCIATION: tasks_pair.shared_association,
    TaskType.A2A_OBJECT_MATCHING: tasks_pair.object_matching,
    TaskType.A2A_COLLABORATION_RECOGNITION: tasks_multi.collaboration_recognition,
    TaskType.A2A_OCCLUSION_REMOVAL: tasks_pair.occlusion_removal,
    TaskType.MOTION_UNDERSTANDING: tasks_multi.motion_understanding,
}

CONVENTIONS = {
    "world": "x east, y north, z up, metres; origin at the texture centre; scene_scale multiplies the source GSD",
    "camera": "OpenCV camera frame; yaw clockwise from north (top of a nadir image); pitch -90 = nadir; roll "
              "positive turns the image content counter-clockwise",
    "clock": "image-plane angle from the image centre to the region box centre, 12 = image up, nearest hour, 0 -> 12",
    "distance": "horizontal ground distance from the drone's nadir point to the object's ground centre",
    "camera_transformation": "heading offset = yaw2 - yaw1 in (-180, 180], clockwise +; distance = signed "
                             "horizontal displacement of camera 2 along image 1's forward (top) direction, metres",
    "BEDI_Clock": "BEDI Spatial_PosRelDis-style clock question; partial credit 1 - min(|d|, 12 - |d|)/6",
}


def instance_rng(seed: int, task: str, index: int, attempt: int) -> np.random.Generator:
    """The random stream of one instance attempt (independent of the other tasks asked)."""
    return np.random.default_rng([seed, zlib.crc32(task.encode()), index, attempt])


def make_instance(task: str, index: int, seed: int, tier: Tier, sources: list[Source],
                  size: tuple[int, int]) -> tuple[Instance, int]:
    """(instance, attempts used); retries with fresh streams when a draw cannot be placed (SynthError)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {sorted(TASKS)}")
    last: Exception | None = None
    for attempt in range(MAX_ATTEMPTS):
        ctx = TaskContext(instance_rng(seed, task, index, attempt), tier, sources, size,
                          slot_rng=instance_rng(seed, task, index, 1_000_000))
        try:
            return TASKS[task](ctx), attempt + 1
        except SynthError as exc:
            last = exc
    raise SynthError(f"{task} #{index}: no valid instance in {MAX_ATTEMPTS} attempts (last: {last})")


def _write_jpeg(path: Path, rgb: np.ndarray, quality: int) -> None:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise SynthError(f"JPEG encoding failed for {path}")
    path.write_bytes(buf.tobytes())


def _record(task: str, index: int, inst: Instance, images_dir: Path) -> dict:
    rid = f"{task}_{index + 1:05d}"
    names = []
    for k, img in enumerate(inst.images):
        name = f"{rid}_{k}.jpg"
        _write_jpeg(images_dir / name, img, inst.jpeg_quality)
        names.append(f"images/{name}")
    meta = dict(inst.meta, jpeg_quality=inst.jpeg_quality)
    return {"id": rid, "image": names, "conversations": [{"from": "human", "value": inst.question}],
            "source": SOURCE_NAME, "GT": inst.gt, "meta": meta}


def generate(tasks: list[str], per_task: int, seed: int, out_dir: Path, tier: str | Tier = "default",
             sources: list[Source] | None = None, *, image_size: tuple[int, int] = (960, 540),
             data_root: Path | None = None, progress: bool = True) -> Path:
    """Render ``per_task`` instances of each task into ``out_dir``; returns the ``annotations.jsonl`` path.

    ``sources`` default to the textures in ``data_root`` (``../shared/data``). ``image_size`` = (width, height)
    px. Writes ``manifest.json`` with the sources (paths, GSD, licenses), the tier and all parameters.
    """
    from tqdm import tqdm

    from tools.common import to_jsonable

    bad = [t for t in tasks if t not in TASKS]
    if bad:
        raise ValueError(f"unknown task(s) {bad}; choose from {sorted(TASKS)}")
    if per_task < 1:
        raise ValueError(f"per_task must be >= 1, got {per_task}")
    w, h = image_size
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise ValueError(f"image_size must be within 64..4096 px per side, got {image_size}")
    tier_obj = get_tier(tier)
    srcs = list(sources) if sources is not None else builtin_sources(data_root or DEFAULT_DATA_ROOT)
    if not srcs:
        raise ValueError(f"no texture sources: none found under {data_root or DEFAULT_DATA_ROOT} and none given")
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    ann = out / "annotations.jsonl"
    attempts: dict[str, int] = {}
    t0 = time.perf_counter()
    jobs = [(t, i) for t in tasks for i in range(per_task)]
    with ann.open("w", encoding="utf-8") as f:
        for task, i in tqdm(jobs, desc="synth", unit="inst", disable=not progress):
            inst, n = make_instance(task, i, seed, tier_obj, srcs, (w, h))
            attempts[task] = attempts.get(task, 0) + n
            f.write(json.dumps(to_jsonable(_record(task, i, inst, out / "images")), ensure_ascii=False) + "\n")
    manifest = {
        "generator": "benchmarks.synth", "format": "SpatialUAV annotations.jsonl + meta", "seed": seed,
        "tasks": tasks, "per_task": per_task, "image_size": [w, h], "tier": asdict(tier_obj),
        "sources": [{"name": s.name, "path": str(s.path), "gsd_m": s.gsd_m, "license": s.license, "note": s.note,
                     "objects": len(s.objects)} for s in srcs],
        "conventions": CONVENTIONS, "attempts_per_task": attempts,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    (out / "manifest.json").write_text(json.dumps(to_jsonable(manifest), indent=2))
    return ann
