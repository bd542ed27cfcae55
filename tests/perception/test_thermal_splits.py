"""HIT-UAV's official splits as the thermal training scripts read them: for fitting (train, val) without the frames
near the shared frames' flights, the test split whole. Truth: the frame names written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.thermal_data import EXCLUDE_ID_RADIUS, split_stems
from training.thermal_tilt_data import frame_tilt_deg, split_names


def _dataset(root: Path, splits: dict[str, list[str]], shared: list[str]) -> tuple[Path, Path]:
    lists = root / "hituav" / "normal_xml" / "ImageSets" / "Main"
    lists.mkdir(parents=True)
    for split, names in splits.items():
        (lists / f"{split}.txt").write_text("\n".join(names) + "\n")
    frames = root / "shared"
    frames.mkdir()
    for name in shared:
        (frames / f"{name}.jpg").write_bytes(b"")
    return root / "hituav", frames


def test_fitting_splits_leave_out_the_shared_frames_flights_and_test_stays_whole(tmp_path: Path) -> None:
    near, far = f"0_100_60_0_{1000 + EXCLUDE_ID_RADIUS:05d}", f"0_100_60_0_{1001 + EXCLUDE_ID_RADIUS:05d}"
    other_flight = "0_100_90_0_01000"
    splits = {"train": [near, far, other_flight], "val": ["0_100_60_0_00900", other_flight], "test": [near]}
    hituav, shared = _dataset(tmp_path, splits, ["0_100_60_0_01000"])
    assert split_stems(hituav, "train") == [near, far, other_flight]
    assert split_names(hituav, "train", shared) == [far, other_flight]
    assert split_names(hituav, "val", shared) == [other_flight]
    assert split_names(hituav, "test", shared) == [near]
    assert (frame_tilt_deg(near), frame_tilt_deg(other_flight)) == (60.0, 90.0)


def test_fitting_without_the_shared_frames_is_refused(tmp_path: Path) -> None:
    hituav, shared = _dataset(tmp_path, {"train": ["0_100_60_0_01000"]}, [])
    with pytest.raises(FileNotFoundError, match="no shared HIT-UAV frames"):
        split_names(hituav, "train", shared)
