"""HIT-UAV thermal frames as an ultralytics dataset, with every flight of the shared frames left out of training.

HIT-UAV (Suo et al., Scientific Data 10, 227, 2023; CC BY 4.0) ships Pascal VOC boxes for 2,898 thermal frames
(640x512) in ``normal_xml/`` with official ``train``/``val``/``test`` splits. The frames come from videos: a file name
``{S}_{ALT}_{TILT}_{W}_{ID}.jpg`` names the scenario (day/night), flight altitude, camera tilt, weather and frame
index, and frames of one flight with close indices are near-duplicates. So that figures measured on the frames in
``../shared/data/hit_uav_thermal`` stay honest, every training frame with the same ``S_ALT_TILT_W`` prefix as a
shared frame and a frame index within :data:`EXCLUDE_ID_RADIUS` of it is dropped.

Run: ``.venv/bin/python -m training.thermal_data --hituav /tmp/hituav --out /tmp/hituav_yolo``
(``--hituav``: a folder holding the dataset's ``normal_xml/``, e.g. extracted with
``git --git-dir=<mirror> archive HEAD normal_xml | tar x -C /tmp/hituav``). Writes YOLO label files, image links and
``data.yaml``; the dataset itself never enters the repository.
"""

from __future__ import annotations

import argparse
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_FRAMES = ROOT.parent / "shared" / "data" / "hit_uav_thermal" / "images"
# Class order of the shipped thermal weights; "DontCare" boxes are not trained on.
CLASSES = ("Person", "Car", "Bicycle", "OtherVehicle")
EXCLUDE_ID_RADIUS = 300  # frames of one flight closer than this are treated as the same scene


@dataclass(frozen=True)
class FrameName:
    """The parts of a HIT-UAV file name: flight prefix ``S_ALT_TILT_W`` and frame index."""

    flight: str
    frame_id: int


def parse_frame_name(name: str) -> FrameName:
    """``"1_130_30_0_03841.jpg"`` → FrameName("1_130_30_0", 3841)."""
    stem = Path(name).stem
    parts = stem.split("_")
    if len(parts) != 5 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a HIT-UAV frame name (S_ALT_TILT_W_ID): {name!r}")
    return FrameName("_".join(parts[:4]), int(parts[4]))


def excluded(name: str, held_out: list[FrameName], radius: int = EXCLUDE_ID_RADIUS) -> bool:
    """True when frame ``name`` is of the same flight as a held-out frame and within ``radius`` frames of it."""
    frame = parse_frame_name(name)
    return any(frame.flight == h.flight and abs(frame.frame_id - h.frame_id) <= radius for h in held_out)


def split_stems(hituav: Path, split: str) -> list[str]:
    """Frame names (no extension) of one official split, from ``normal_xml/ImageSets/Main/<split>.txt``."""
    return (hituav / "normal_xml" / "ImageSets" / "Main" / f"{split}.txt").read_text().split()


def held_out_frames(shared_frames: Path = SHARED_FRAMES) -> list[FrameName]:
    """The shared frames, whose flights are left out of fitting; FileNotFoundError when there are none."""
    held_out = [parse_frame_name(p.name) for p in sorted(shared_frames.glob("*.jpg"))]
    if not held_out:
        raise FileNotFoundError(f"no shared HIT-UAV frames in {shared_frames}")
    return held_out


def voc_boxes(xml_path: Path) -> tuple[int, int, list[tuple[str, float, float, float, float]]]:
    """Image width, height and the (class, x1, y1, x2, y2) boxes of one Pascal VOC file."""
    root = ET.parse(xml_path).getroot()
    width = int(root.findtext("size/width"))
    height = int(root.findtext("size/height"))
    boxes = []
    for obj in root.iter("object"):
        box = obj.find("bndbox")
        boxes.append((obj.findtext("name").strip(),
                      *(float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))))
    return width, height, boxes


def yolo_lines(xml_path: Path) -> list[str]:
    """YOLO label lines ``cls cx cy w h`` (normalised) of the known classes in one VOC file."""
    width, height, boxes = voc_boxes(xml_path)
    lines = []
    for name, x1, y1, x2, y2 in boxes:
        if name not in CLASSES or x2 <= x1 or y2 <= y1:
            continue
        x1, x2 = max(0.0, x1), min(float(width), x2)
        y1, y2 = max(0.0, y1), min(float(height), y2)
        lines.append(f"{CLASSES.index(name)} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


def build(hituav: Path, out: Path, shared_frames: Path = SHARED_FRAMES) -> dict[str, int]:
    """Write ``out/{train,val,test}/{images,labels}`` and ``out/data.yaml``; returns frames per split."""
    voc = hituav / "normal_xml"
    held_out = held_out_frames(shared_frames)
    counts = {}
    for split in ("train", "val", "test"):
        names = split_stems(hituav, split)
        if split == "train":
            names = [n for n in names if not excluded(n, held_out)]
        (out / split / "images").mkdir(parents=True, exist_ok=True)
        (out / split / "labels").mkdir(parents=True, exist_ok=True)
        for stem in names:
            link = out / split / "images" / f"{stem}.jpg"
            if not link.exists():
                os.symlink((voc / "JPEGImages" / f"{stem}.jpg").resolve(), link)
            lines = yolo_lines(voc / "Annotations" / f"{stem}.xml")
            (out / split / "labels" / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
        counts[split] = len(names)
    names_yaml = "\n".join(f"  {i}: {c}" for i, c in enumerate(CLASSES))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: train/images\nval: val/images\n"
                                   f"test: test/images\nnames:\n{names_yaml}\n")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--out", type=Path, required=True, help="where the YOLO dataset is written")
    args = parser.parse_args()
    print(build(args.hituav, args.out))


if __name__ == "__main__":
    main()
