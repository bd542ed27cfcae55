"""Train the thermal detector (Person, Car, Bicycle, OtherVehicle) on HIT-UAV and export the shipped weights.

First build the dataset with :mod:`training.thermal_data` (it leaves out the flights of the shared frames). Then:

    .venv/bin/python -m training.thermal_train --data /tmp/hituav_yolo/data.yaml --init <weights> --hours 1.0

``--init`` is the starting point: an ultralytics model yaml (``yolov8n.yaml``: from scratch) or a ``.pt`` whose
weights are transferred where their shapes match (the bundled fall-detection YOLOv8s person detector: its backbone
and neck, the class head is new). ``--hours`` bounds the wall time (ultralytics fits its learning-rate schedule to
it); a checkpoint is written after every epoch under ``--project``. ``--ship`` copies the best checkpoint, stripped
to half precision, to ``tools/weights/thermal_detector.pt``. Everything runs on the CPU, seed 0, deterministic.
Then ``training.thermal_calibrate`` picks the per-class count thresholds on the validation split.

Pilot (same data, 640 px, batch 8, 2 shared CPU cores): YOLOv8n from scratch ran 6 s a step and after 6 minutes
(~60 steps, loss box/cls/dfl 4.8/6.0/4.4) found nothing on val (mAP50 0.000); the fall-detection YOLOv8s with its
backbone frozen (``--freeze 10``) ran ~13 s a step and started at loss 3.0/5.0/1.9 (the scratch model's start:
5.1/5.9/4.9), so the transfer was trained. The shipped weights: ``--init <fall_detection>/models/best.pt
--freeze 10 --hours 1.0``, its first epoch (231 steps, 55 min; the run was stopped at the start of the second),
copied with :func:`ship`; ultralytics' validation after that epoch: mAP50 0.453 (P 0.70, R 0.45) on val. The file
is 22.5 MB (11.1 M parameters in half precision). Figures on the held-out test split:
``docs/figures/detect_thermal.json``.

The shipped weights now continue from that epoch's ``last.pt`` (``--init .../last.pt --freeze 10 --warmup-epochs 0
--hours 0.45``: 135 steps, about half an epoch at 12 s a step on the loaded cores): ultralytics' val mAP50 0.453 →
0.492 (P 0.735, R 0.473); on the test split AP50 person 0.69 → 0.71, car 0.73 → 0.83, bicycle 0.41 → 0.52.
One more epoch from that ``last.pt`` (same options, ``--hours 1.9``, stopped after its first epoch: 231 steps, 80 min at
19 s a step on cores loaded by other work) gave the shipped weights: val mAP50 0.492 → 0.541 (P 0.778, R 0.486); on
the test split AP50 person 0.71 → 0.76, car 0.83 → 0.87, bicycle 0.52 → 0.61. The shipped weights now add 176 steps
more from that run's ``last.pt`` (same options, ``--hours 0.7``: the time budget stopped it at 76 % of the epoch,
10-17 s a step on loaded cores): val mAP50 0.541 → 0.553 (P 0.780, R 0.522); recalibrated (thresholds and
suppression IoU, :mod:`training.thermal_calibrate`), on the test split AP50 person 0.756 → 0.754, car 0.870 → 0.877,
bicycle 0.611 → 0.717. The backbone (layers 0-9) stays bit-identical under ``--freeze 10``, so the thermal tilt head
fitted on it stays valid.
Without ``--freeze`` and with the default warm-up the loss rose within 20 steps: ultralytics' warm-up starts the
bias learning rate at 0.1, which with AdamW upsets the unfrozen backbone's batch-norm biases; unfreeze only with
``--warmup-epochs 0``.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "tools" / "weights" / "thermal_detector.pt"


def _offline_env(threads: int) -> None:
    # before ultralytics is imported: no download, a writable settings folder, and all the cores for torch
    os.environ["YOLO_OFFLINE"] = "true"
    os.environ.setdefault("YOLO_CONFIG_DIR", "/tmp/ultralytics_cfg")
    os.environ["OMP_NUM_THREADS"] = str(threads)


def train(data: Path, init: str, hours: float, project: Path, name: str, *, imgsz: int = 640, batch: int = 8,
          fraction: float = 1.0, freeze: int = 0, warmup_epochs: float = 0.5, threads: int = os.cpu_count() or 1,
          seed: int = 0) -> Path:
    """Train and return the path of the best checkpoint (by validation fitness)."""
    _offline_env(threads)
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(threads)
    # from a checkpoint, ultralytics rebuilds its architecture for our 4 classes and transfers the matching weights
    model = YOLO(init)
    pretrained = not init.endswith(".yaml")
    model.train(data=str(data), epochs=100, time=hours, imgsz=imgsz, batch=batch, device="cpu", workers=2,
                seed=seed, deterministic=True, pretrained=pretrained, fraction=fraction, project=str(project),
                name=name, exist_ok=True, close_mosaic=0, warmup_epochs=warmup_epochs, patience=100, plots=False,
                amp=False, cache=False, save_period=1, verbose=True, freeze=freeze or None)
    return project / name / "weights" / "best.pt"


def ship(best: Path, out: Path = SHIPPED) -> Path:
    """Copy a checkpoint without optimizer state (ultralytics' strip_optimizer keeps the half-precision EMA)."""
    from ultralytics.utils.torch_utils import strip_optimizer

    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(best, out)
    strip_optimizer(str(out))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="data.yaml written by training.thermal_data")
    parser.add_argument("--init", required=True, help="model yaml (from scratch) or .pt to transfer from")
    parser.add_argument("--hours", type=float, default=1.0, help="wall-time budget of the training")
    parser.add_argument("--project", type=Path, default=Path("/tmp/thermal_runs"))
    parser.add_argument("--name", default="thermal")
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--fraction", type=float, default=1.0, help="share of the training frames used")
    parser.add_argument("--freeze", type=int, default=0, help="first N layers kept as initialised (0: none)")
    parser.add_argument("--warmup-epochs", type=float, default=0.5, help="learning-rate warm-up (at least 100 steps)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ship", action="store_true", help="copy the best checkpoint to " + str(SHIPPED))
    args = parser.parse_args()
    best = train(args.data, args.init, args.hours, args.project, args.name, imgsz=args.imgsz, batch=args.batch,
                 fraction=args.fraction, freeze=args.freeze, warmup_epochs=args.warmup_epochs, seed=args.seed)
    print("best checkpoint:", best)
    if args.ship:
        print("shipped:", ship(best))


if __name__ == "__main__":
    main()
