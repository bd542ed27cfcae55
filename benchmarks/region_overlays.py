"""The overlay benchmark's instances and scoring: numbered region boxes drawn in random benchmark-like styles on
real aerial images, and how a read of them is scored.

Ground truth is the geometry we draw: boxes at the real annotated objects (Pascal VOC boxes of deepforest_neon and
hit_uav_thermal, sides >= 20 px) or at random positions (overlaps allowed), random ids 0-20, one random style per
image or one per region (:func:`benchmarks.synth.overlay.random_style`), JPEG re-encoding at quality 60-95. Layouts
that a person could not read either are redrawn (:func:`benchmarks.synth.overlay.legible_layout`: labels that cover
each other, labels that hide more than a quarter of a box's outline, or a stroke label with a digit that loses more
than a quarter of its pixels on outlines of its own colour); after 50 illegible draws the last one stands.
A region counts as recovered exactly when a returned region has its id and IoU >= 0.9 with its box.

Used by the overlay benchmark (:mod:`benchmarks.measure.bench_regions`), its ablation and style breakdowns, the
label reader's measurement and the region tests (``nth_overlay`` gives the k-th overlay a benchmark seed draws).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one Tesseract thread per label read (set before it loads)

import cv2  # noqa: E402
import defusedxml.ElementTree as ET  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.synth.overlay import (RegionStyle, draw_regions, label_box, legible_layout,  # noqa: E402
                                      random_style)
from tools.common import jpeg_roundtrip, load_image  # noqa: E402
from tools.regions.pipeline import iou  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]  # the project root
DATA = ROOT.parent / "shared" / "data"
MIN_REAL_SIDE = 20
FRAMED_ORIGIN = (150.0, 120.0)  # top-left corner (px) of the framed-label boxes of bench_framed


def voc_boxes(xml: Path) -> list[list[float]]:
    """Pascal VOC boxes [x1, y1, x2, y2] with both sides >= MIN_REAL_SIDE px."""
    out = []
    for obj in ET.parse(xml).getroot().iter("object"):
        bb = obj.find("bndbox")
        b = [float(bb.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")]
        if b[2] - b[0] >= MIN_REAL_SIDE and b[3] - b[1] >= MIN_REAL_SIDE:
            out.append(b)
    return out


def load_pool() -> list[tuple[str, np.ndarray, list[list[float]]]]:
    """(name, RGB image, real boxes or []) for every image used."""
    pool = []
    for xml in sorted((DATA / "hit_uav_thermal" / "annotations_voc").glob("*.xml")):
        pool.append((xml.stem, load_image(DATA / "hit_uav_thermal" / "images" / f"{xml.stem}.jpg"), voc_boxes(xml)))
    for stem in ("OSBS_029", "SOAP_061", "2019_YELL_2_541000_4977000_image_crop"):
        pool.append((stem, load_image(DATA / "deepforest_neon" / f"{stem}.png"), voc_boxes(DATA / "deepforest_neon" / f"{stem}.xml")))
    for p in sorted((DATA / "open3d-vqa" / "images").glob("rgb_*.png")):
        img = load_image(p)
        if min(img.shape[:2]) >= 300:
            pool.append((p.stem, img, []))
    for p in sorted((DATA / "dji_survey_dev" / "images").glob("*.JPG"))[:3]:
        pool.append((p.stem, cv2.resize(load_image(p), (1920, 1080), interpolation=cv2.INTER_AREA), []))
    return pool


def random_boxes(rng: np.random.Generator, w: int, h: int, n: int) -> list[list[float]]:
    out = []
    for _ in range(n):
        bw = rng.uniform(0.06, 0.3) * w
        bh = rng.uniform(0.06, 0.3) * h
        x1, y1 = rng.uniform(2, w - bw - 2), rng.uniform(2, h - bh - 2)
        out.append([round(x1), round(y1), round(x1 + bw), round(y1 + bh)])
    return out


def draw_layout(rng: np.random.Generator, size: tuple[int, int], real: list[list[float]]):
    """The random draws of one overlay on a ``size`` (w, h) picture, nothing rendered: ([(id, box)], one RegionStyle
    per region, JPEG quality), in a layout a person can read (:func:`benchmarks.synth.overlay.legible_layout`; after
    50 draws that are not, the last one). It takes from ``rng`` exactly what :func:`make_instance` takes."""
    w, h = size
    for _ in range(50):
        n = int(rng.integers(2, 11))
        if real and rng.random() < 0.6:
            idx = rng.choice(len(real), size=min(n, len(real)), replace=False)
            boxes = [real[i] for i in idx]
        else:
            boxes = random_boxes(rng, w, h, n)
        ids = [int(i) for i in rng.choice(21, size=len(boxes), replace=False)]
        styles = [random_style(rng)] * len(boxes) if rng.random() < 0.7 else [random_style(rng) for _ in boxes]
        if legible_layout(list(zip(ids, boxes)), styles, (w, h)):
            break
    return list(zip(ids, boxes)), styles, int(rng.integers(60, 96))


def make_instance(rng: np.random.Generator, img: np.ndarray, real: list[list[float]], scale: float = 1.0):
    """(overlaid JPEG-decoded image, [(id, box)], jpeg quality, one RegionStyle per region) of the layout
    :func:`draw_layout` draws. ``scale``: the overlay is drawn on the image enlarged that much, boxes, outline widths
    and fonts in proportion (a high-resolution frame annotated alike); the random draws do not depend on it."""
    regions, styles, q = draw_layout(rng, (img.shape[1], img.shape[0]), real)
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        regions = [(rid, [v * scale for v in b]) for rid, b in regions]
        styles = [dataclasses.replace(s, line_width=max(1, round(s.line_width * scale)),
                                      font_scale=s.font_scale * scale) for s in styles]
    return jpeg_roundtrip(draw_regions(img, regions, styles), q), regions, q, styles


@functools.cache
def shared_pool() -> list[tuple[str, np.ndarray, list[list[float]]]]:
    """:func:`load_pool`, read once per process (its images are only read: make_instance draws on copies)."""
    return load_pool()


def nth_overlays(seed: int, ks: Sequence[int]) -> dict[int, tuple[np.ndarray, list]]:
    """Overlays ``ks`` (from 0) of the benchmark's draws at ``seed`` (what :func:`read_overlays` reads k-th), each
    with its drawn regions [(id, box)], drawn in one pass."""
    rng, pool, out = np.random.default_rng(seed), shared_pool(), {}
    for j in range(max(ks) + 1):
        _, img, real = pool[j % len(pool)]
        if j in ks:
            inst, regions, _, _ = make_instance(rng, img, real)
            out[j] = (inst, regions)
        else:   # only the draws, to keep rng where the benchmark has it (rendering costs twice what they do)
            draw_layout(rng, (img.shape[1], img.shape[0]), real)
    return out


def nth_overlay(seed: int, k: int) -> tuple[np.ndarray, list]:
    """Overlay ``k`` of the benchmark's draws at ``seed`` and its drawn regions (:func:`nth_overlays`)."""
    return nth_overlays(seed, [k])[k]


def recovered(found, rid: int, box) -> bool:
    """A found region has the id ``rid`` and IoU >= 0.9 with ``box``."""
    return any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found)


def hits(found, regions) -> list[bool]:
    """Whether each drawn region of ``regions`` ([(id, box)]) is recovered exactly by ``found``."""
    return [recovered(found, rid, box) for rid, box in regions]


def extra(found, regions) -> int:
    """Regions of ``found`` that match no drawn region (another id, or IoU < 0.9 with every drawn box)."""
    gt_ids = {rid for rid, _ in regions}
    return sum(1 for r in found if r.id not in gt_ids or not any(iou(r.bbox, b) >= 0.9 for _, b in regions))


def score(found, regions) -> tuple[int, int]:
    """(regions recovered exactly, extra regions returned)."""
    return sum(hits(found, regions)), extra(found, regions)


def misses(found, regions) -> Counter:
    """Why each region not recovered exactly was missed, from all boxes found (``found``: unlabeled ones too):
    ``box_missing`` (no found box overlaps it at IoU >= 0.5), ``box_misfit`` (the closest one has IoU < 0.9),
    ``unlabeled`` (found, label not read) or ``wrong_id`` (found, read as another id)."""
    out: Counter = Counter()
    for rid, box in regions:
        if recovered(found, rid, box):
            continue
        best = max(found, key=lambda r: iou(r.bbox, box), default=None)
        overlap = iou(best.bbox, box) if best is not None else 0.0
        out["box_missing" if overlap < 0.5 else "box_misfit" if overlap < 0.9
            else "unlabeled" if best.id < 0 else "wrong_id"] += 1
    return out


def framed_box(rid: int, style: RegionStyle, gap_x: int, gap_y: int) -> list[float]:
    """The box [x1, y1, x2, y2] at line centres, from :data:`FRAMED_ORIGIN`, that leaves ``gap_x`` / ``gap_y`` px
    between its centred label and the inner edge of its outline (a label framed tightly by its own box)."""
    lx1, ly1, lx2, ly2 = label_box([0, 0, 0, 0], str(rid), style, (10**4, 10**4))
    reach = -(-style.line_width // 2)   # px the drawn line reaches in from its centre (OpenCV: a 3 px line too)
    w, h = lx2 - lx1 + 2 * (gap_x + reach + 1), ly2 - ly1 + 2 * (gap_y + reach + 1)
    return [FRAMED_ORIGIN[0], FRAMED_ORIGIN[1], FRAMED_ORIGIN[0] + w, FRAMED_ORIGIN[1] + h]
