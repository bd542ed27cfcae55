"""Build the demo's region image from a real HIT-UAV thermal frame and its VOC person boxes (CC BY 4.0).

Writes ``regions_nadir.png`` (numbered region boxes drawn with ``benchmarks.synth.overlay``) and ``regions_nadir.json``
with the ground truth. The frame is a nadir view (camera tilt 90 deg, 60 m), so the ground distance of a point from the
drone's nadir point is proportional to its pixel distance from the image centre, whatever the focal length; the
clock direction is the image-plane angle from the image centre (12 = image up, nearest hour). Both answers
follow from the annotation boxes alone. Run: ``python examples/make_examples.py``.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PIL import Image

from benchmarks.synth.overlay import RegionStyle, draw_regions

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[1] / "shared" / "data" / "hit_uav_thermal"
FRAME = "0_60_90_0_01830"
# Region id -> index of the person box in the VOC file (chosen: spread out, no clock hour near a boundary).
CHOSEN = {1: 0, 3: 4, 4: 12, 5: 3}
MIN_SIDE = 40


def person_boxes(xml_path: Path) -> list[list[int]]:
    root = ET.parse(xml_path).getroot()
    return [[int(float(o.find("bndbox").find(k).text)) for k in ("xmin", "ymin", "xmax", "ymax")]
            for o in root.findall("object") if o.find("name").text == "Person"]


def padded(box: list[int], size: tuple[int, int]) -> list[int]:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    half = max(MIN_SIDE, box[2] - box[0], box[3] - box[1]) / 2
    w, h = size
    return [int(max(2, cx - half)), int(max(2, cy - half)), int(min(w - 3, cx + half)), int(min(h - 3, cy + half))]


def main() -> None:
    img = np.asarray(Image.open(SOURCE / "images" / f"{FRAME}.jpg").convert("RGB"))
    h, w = img.shape[:2]
    boxes = person_boxes(SOURCE / "annotations_voc" / f"{FRAME}.xml")
    regions = {rid: padded(boxes[i], (w, h)) for rid, i in CHOSEN.items()}
    out = draw_regions(img, [(rid, b) for rid, b in regions.items()], RegionStyle(color=(255, 255, 0), font_scale=0.7, label_position="outside_left"))
    Image.fromarray(out).save(HERE / "regions_nadir.png")
    truth = {}
    for rid, i in CHOSEN.items():
        b = boxes[i]
        dx, dy = (b[0] + b[2]) / 2 - w / 2, (b[1] + b[3]) / 2 - h / 2
        angle = math.degrees(math.atan2(dx, -dy)) % 360
        truth[rid] = {"person_box": b, "clock_angle_deg": round(angle, 1), "clock": (round(angle / 30) % 12) or 12,
                      "pixel_distance_from_centre": round(math.hypot(dx, dy), 1)}
    order = sorted(truth, key=lambda r: truth[r]["pixel_distance_from_centre"])
    meta = {"source": f"hit_uav_thermal/images/{FRAME}.jpg (CC BY 4.0, Suo et al. 2023)", "altitude_m": 60,
            "camera": "nadir (tilt 90 deg)", "regions": regions, "truth": truth, "nearest_first": order}
    (HERE / "regions_nadir.json").write_text(json.dumps(meta, indent=2))
    print(json.dumps({r: truth[r]["clock"] for r in truth}), "nearest first:", order)


if __name__ == "__main__":
    main()
