"""Measure tools.regions.read_regions on region overlays drawn in varied styles on real aerial images.

The overlays and their scoring are :mod:`benchmarks.region_overlays`'s: boxes at real annotated objects or at
random positions, random ids and styles, JPEG quality 60-95, layouts a person can read (after 50 illegible draws
the last one stands: 1 overlay in 2,000 on seeds 701-710); a region counts when its id and IoU >= 0.9 are right.
Timing: read_regions on 1920x1080 downscaled dji_survey_dev photos: the accuracy set's, then more drawn for timing
only, ``--time-1080p`` in all (median, p90 and mean; two shared cores make single runs vary by about 15 %).

Third suite (``--scaled-n``, seed + 1): overlays drawn on the images enlarged ``--scale`` times (default 2: the
1080p photos become 4K frames) with boxes, outline widths and fonts in proportion, as a high-resolution frame is
annotated (:mod:`tools.regions.scale`).

Second suite: the ground-truth generator's own overlays (``uav-agent synth``; each record's ``meta.regions``
holds the exact boxes, drawn rounded to whole pixels), generated with a seed not used while developing.

The accuracy set's figures are also broken down by how each region was drawn (``by_style``:
:mod:`benchmarks.regions_by_style`).

Run: ``.venv/bin/python -m benchmarks.measure.bench_regions [--n 320] [--synth DIR] [--out FILE]``; writes
docs/figures/regions.json unless ``--out`` names another file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from benchmarks.figures import write_figures  # noqa: E402
from benchmarks.region_overlays import ROOT, extra, hits, make_instance, misses, shared_pool  # noqa: E402
from benchmarks.regions_by_style import StyleTally  # noqa: E402
from benchmarks.synth.overlay import RegionStyle, draw_regions  # noqa: E402
from tools.regions.pipeline import read_regions  # noqa: E402


def warm_up() -> None:
    """Read two labelled boxes (a filled and a stroke label) on a grey picture, so that the OCR engine and the
    label reader start outside the timings (a blank picture starts neither)."""
    grey = np.full((360, 480, 3), 128, np.uint8)
    styles = [RegionStyle(color=(255, 0, 0), label_background=True, label_color=(255, 255, 255)),
              RegionStyle(color=(0, 0, 255), label_format="{id}", label_position="below")]
    read_regions(draw_regions(grey, [(3, [40.0, 60.0, 200.0, 200.0]), (12, [260.0, 80.0, 420.0, 240.0])], styles))


@dataclasses.dataclass
class Tally:
    """Exact-recovery counts over overlays read so far."""

    regions: int = 0
    exact: int = 0
    extra: int = 0
    why: Counter = dataclasses.field(default_factory=Counter)

    def add(self, every: list, drawn: list) -> tuple[list[bool], int]:
        """Count one overlay (``every``: all regions read, unlabeled ones too); returns whether each drawn region
        was recovered exactly (:func:`hits`) and the overlay's extra regions."""
        labelled = [r for r in every if r.id >= 0]
        h, e = hits(labelled, drawn), extra(labelled, drawn)
        self.regions, self.exact, self.extra = self.regions + len(drawn), self.exact + sum(h), self.extra + e
        self.why += misses(every, drawn)
        return h, e

    def figures(self) -> dict:
        return {"regions": self.regions, "recovered_exactly": self.exact,
                "recovered_rate": round(self.exact / max(self.regions, 1), 4), "extra_regions": self.extra,
                "missed_by_cause": dict(sorted(self.why.items()))}


def read_overlays(rng: np.random.Generator, pool: list, n: int, scale: float = 1.0, desc: str | None = None):
    """Draw ``n`` benchmark overlays (:func:`make_instance`) and read them: yields (index, picture name, picture
    width before scaling, JPEG quality, overlay, drawn regions, every region read, seconds read_regions took, the
    regions' styles)."""
    for k in tqdm(range(n), desc=desc, disable=True if desc is None else None):
        name, img, real = pool[k % len(pool)]
        inst, regions, q, styles = make_instance(rng, img, real, scale)
        t0 = time.perf_counter()
        every = read_regions(inst, include_unlabeled=True)
        yield k, name, img.shape[1], q, inst, regions, every, time.perf_counter() - t0, styles


def synth_suite(folder: Path) -> dict:
    """Exact-recovery figures on a ``uav-agent synth`` output folder (ground truth: ``meta.regions``)."""
    tally, images = Tally(), 0
    for line in (folder / "annotations.jsonl").read_text().splitlines():
        rec = json.loads(line)
        per_image = rec.get("meta", {}).get("regions") or []
        for path, gt in zip(rec["image"], per_image):
            if gt:
                tally.add(read_regions(folder / path, include_unlabeled=True),
                          [(int(g["id"]), [float(round(v)) for v in g["bbox"]]) for g in gt])
                images += 1
    manifest = json.loads((folder / "manifest.json").read_text()) if (folder / "manifest.json").is_file() else {}
    return {"folder": str(folder), "generator_seed": manifest.get("seed"), "tasks": manifest.get("tasks"),
            "per_task": manifest.get("per_task"), "dev_seed_not_reported": 1, "images": images, **tally.figures()}


def scaled_suite(n: int, seed: int, scale: float) -> dict:
    """Exact-recovery figures on ``n`` overlays drawn ``scale`` times larger (:func:`make_instance`), and the time
    per frame drawn from a 1080p photo (3840 x 2160 at 2x)."""
    tally, times = Tally(), []
    overlays = read_overlays(np.random.default_rng(seed), shared_pool(), n, scale, f"overlays at {scale:g}x")
    for _, _, width, _, _, regions, every, dt, _ in overlays:
        tally.add(every, regions)
        if width == 1920:
            times.append(dt)
    return {"scale": scale, "overlays": n, "seed": seed, **tally.figures(), "images_from_1080p": len(times),
            "time_median_s": round(float(np.median(times)), 3) if times else None,
            "time_p90_s": round(float(np.percentile(times, 90)), 3) if times else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=320, help="number of overlays")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--synth", type=Path, default=None, help="a `uav-agent synth` output folder to score too")
    ap.add_argument("--show-failures", type=int, default=0, help="save this many failing overlays to /tmp")
    ap.add_argument("--time-1080p", type=int, default=100,
                    help="1080p overlays timed in all (those of the accuracy set, then more drawn for timing only)")
    ap.add_argument("--scaled-n", type=int, default=100,
                    help="overlays drawn at --scale times the size (a different seed: --seed + 1); 0: none")
    ap.add_argument("--scale", type=float, default=2.0)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "regions.json",
                    help="where the figures are written")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    pool = shared_pool()   # scaled_suite draws on it too
    warm_up()
    tally, by_style, times_1080, failures = Tally(), StyleTally(), [], 0
    for k, name, width, q, inst, regions, every, dt, styles in read_overlays(rng, pool, args.n):
        if width == 1920:
            times_1080.append(dt)
        h, e = tally.add(every, regions)
        by_style.add(regions, styles, q, h)
        if (not all(h) or e) and failures < args.show_failures:
            failures += 1
            path = f"/tmp/regions_fail_{k}.png"
            cv2.imwrite(path, inst[:, :, ::-1])
            found = [(r.id, r.bbox, r.label_text) for r in every if r.id >= 0]
            print(f"FAIL {k} {name} q={q} gt={regions} got={found} -> {path}")
    big = [p for p in pool if p[1].shape[1] == 1920]
    for k in tqdm(range(max(0, args.time_1080p - len(times_1080))), desc="1080p timing", disable=None):
        inst = make_instance(rng, big[k % len(big)][1], [])[0]
        t0 = time.perf_counter()
        read_regions(inst)
        times_1080.append(time.perf_counter() - t0)
    figures = {
        "overlays": args.n,
        **tally.figures(),
        "time_1080p_median_s": round(float(np.median(times_1080)), 4) if times_1080 else None,
        "time_1080p_p90_s": round(float(np.percentile(times_1080, 90)), 4) if times_1080 else None,
        "time_1080p_mean_s": round(float(np.mean(times_1080)), 4) if times_1080 else None,
        "images_1080p": len(times_1080),
        "criterion": "right id and IoU >= 0.9; JPEG q 60-95; random styles; real VOC boxes (sides >= 20 px) or random",
        "seed": args.seed,
        "by_style": by_style.figures(),
        "synth_suite": synth_suite(args.synth) if args.synth else None,
        "scaled_suite": scaled_suite(args.scaled_n, args.seed + 1, args.scale) if args.scaled_n else None,
    }
    print(json.dumps(figures, indent=2))
    write_figures(figures, args.out, echo=False)


if __name__ == "__main__":
    main()
