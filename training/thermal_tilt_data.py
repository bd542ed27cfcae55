"""HIT-UAV frames with their camera tilt, and their backbone features, for the learned thermal tilt estimate.

The tilt is in each file name (``S_ALT_TILT_W_ID.jpg``, :mod:`training.thermal_data`): degrees of the camera axis
below the horizontal, 30 to 90 in steps of 10 (90 = straight down). Frames of the flights of the shared frames
(``../shared/data/hit_uav_thermal``, :func:`training.thermal_data.excluded`) are dropped from the splits a model
is fitted or chosen on (train and val); the test split is kept whole for the figures.

Features (:func:`tools.geometry.thermal_tilt_features.tilt_features`) cost ~0.3 s of one CPU core per frame; they
are cached per frame under ``--cache`` (a folder per backbone weights, named by the file's SHA-256) so that the
training and the figures scripts share them.

Run (fills the cache for all three splits, one core): ``.venv/bin/python -m training.thermal_tilt_data --hituav
/tmp/hituav [--cache /tmp/thermal_tilt_features]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from agent.config import Config
from tools.common import file_sha256
from training.thermal_data import SHARED_FRAMES, excluded, held_out_frames, parse_frame_name, split_stems

SPLITS = ("train", "val", "test")
FITTED_SPLITS = ("train", "val")  # splits the shared frames' flights are dropped from
DEFAULT_CACHE = Path("/tmp/thermal_tilt_features")


def frame_tilt_deg(name: str) -> float:
    """Camera tilt below the horizontal (deg, 90 = straight down) of a HIT-UAV frame name."""
    return float(parse_frame_name(name).flight.split("_")[2])


def split_names(hituav: Path, split: str, shared_frames: Path = SHARED_FRAMES) -> list[str]:
    """Frame names (no extension) of one official split; for train and val without the shared frames' flights."""
    names = split_stems(hituav, split)
    if split not in FITTED_SPLITS:
        return names
    held_out = held_out_frames(shared_frames)
    return [n for n in names if not excluded(n, held_out)]


def features(hituav: Path, names: list[str], weights: str, cache: Path = DEFAULT_CACHE) -> np.ndarray:
    """(N, D) backbone features of the named frames, computed once per frame and weights file, then read back."""
    import torch

    from tools.common import load_image
    from tools.geometry.thermal_tilt_features import detector_layers, tilt_features

    torch.set_num_threads(1)  # the machine is shared: one core
    folder = cache / file_sha256(weights)[:16]
    folder.mkdir(parents=True, exist_ok=True)
    layers = None
    rows = []
    for i, name in enumerate(names):
        path = folder / f"{name}.npy"
        if not path.exists():
            layers = layers or detector_layers(weights)
            feat = tilt_features(load_image(hituav / "normal_xml" / "JPEGImages" / f"{name}.jpg"), layers)
            np.save(path, feat)
            if i % 100 == 0:
                print(f"features {i}/{len(names)}", flush=True)
        rows.append(np.load(path))
    return np.stack(rows)


def all_frames(hituav: Path, seed: int = 0) -> list[str]:
    """The shared frames, then every frame of the three splits in a random order: a run stopped early has
    features for a random subset of each split."""
    names = sorted({n for split in SPLITS for n in split_names(hituav, split)})
    np.random.default_rng(seed).shuffle(names)
    return sorted(p.stem for p in SHARED_FRAMES.glob("*.jpg")) + names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="feature cache folder")
    parser.add_argument("--weights", help="backbone weights (default: Config.thermal_yolo_weights)")
    args = parser.parse_args()
    weights = args.weights or Config.from_env().resolved_thermal_yolo_weights()
    names = all_frames(args.hituav)
    print("features", features(args.hituav, names, weights, args.cache).shape, flush=True)


if __name__ == "__main__":
    main()
