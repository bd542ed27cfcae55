"""Run the region reader on overlays drawn outside the project and write its predictions for their scorer.

Input: a ``regions.jsonl`` of foreign overlays (one line per image: ``image`` relative to the file's folder,
``style``, ``width``, ``height`` and the ground-truth ``regions``; see ``../shared/foreign/overlays/README.md``).
Output: one JSONL line per image in the ``read_regions`` MCP tool's shape (``regions`` with ``id`` and ``bbox``
[x1, y1, x2, y2] px, ``unlabeled_boxes``) plus ``style`` and ``seconds`` (wall time of the read), which
``../shared/foreign/score_overlays.py regions.jsonl PRED.jsonl`` scores; timing figures (median and p90 per image,
overall and for 1080p-class images, i.e. max side <= 1920 px) are printed, and written to ``--figures`` when given
(``docs/figures/foreign_overlays.json`` for the published figure: a subset or trial run does not overwrite it).

The ground truth in the file is never read here except ``style`` and the image size (to pick a subset and to
group timings): the reader sees the pixels only.

Run: ``nice .venv/bin/python -m benchmarks.measure.foreign_overlays ../shared/foreign/overlays/regions.jsonl
--out /tmp/pred.jsonl [--per-style 5] [--styles suav,som] [--workers 1]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import numpy as np  # noqa: E402

from benchmarks.figures import write_figures  # noqa: E402

HD_MAX_SIDE = 1920   # px: images no larger than a 1080p frame form the timing target's group


def select(records: list[dict[str, Any]], per_style: int | None, styles: set[str] | None) -> list[dict[str, Any]]:
    """The records to read: those of ``styles`` (all when None), the first ``per_style`` of each in file order."""
    taken: dict[str, int] = defaultdict(int)
    out = []
    for rec in records:
        style = str(rec.get("style", ""))
        if styles is not None and style not in styles:
            continue
        if per_style is not None and taken[style] >= per_style:
            continue
        taken[style] += 1
        out.append(rec)
    return out


def read_one(path: str) -> dict[str, Any]:
    """The read_regions tool's output for one image file, plus the read's wall time in seconds."""
    from tools.common import load_image, to_jsonable
    from tools.regions.pipeline import read_regions

    rgb = load_image(path)
    start = time.perf_counter()
    every = read_regions(rgb, include_unlabeled=True, outer_edges=True)   # as the read_regions tool reads
    seconds = time.perf_counter() - start
    return {"regions": to_jsonable([r for r in every if r.id >= 0]),
            "unlabeled_boxes": [list(map(float, r.bbox)) for r in every if r.id < 0],
            "image_size": [int(rgb.shape[1]), int(rgb.shape[0])], "seconds": round(seconds, 3)}


def timing(lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Median / p90 seconds per image, overall and for images no larger than :data:`HD_MAX_SIDE`."""
    def stats(values: list[float]) -> dict[str, float | int]:
        if not values:
            return {"n": 0}
        return {"n": len(values), "median_s": round(float(np.median(values)), 3),
                "p90_s": round(float(np.percentile(values, 90)), 3), "mean_s": round(float(np.mean(values)), 3)}

    lines = list(lines)
    hd = [ln["seconds"] for ln in lines if max(ln["image_size"]) <= HD_MAX_SIDE]
    return {"all": stats([ln["seconds"] for ln in lines]), "hd": stats(hd)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("regions", type=Path, help="regions.jsonl of the foreign overlays")
    ap.add_argument("--out", type=Path, required=True, help="predictions JSONL to write")
    ap.add_argument("--per-style", type=int, default=None, help="read only the first N images of each style")
    ap.add_argument("--styles", default=None, help="comma-separated styles to read (default: all)")
    ap.add_argument("--workers", type=int, default=1, help="processes (the machine's cores are shared)")
    ap.add_argument("--subset-gt", type=Path, default=None,
                    help="also write the chosen images' ground-truth lines here (to score a subset; keep it outside "
                         "the project)")
    ap.add_argument("--figures", type=Path, default=None,
                    help="write the timing figures here (docs/figures/foreign_overlays.json for the published run)")
    args = ap.parse_args(argv)

    records = [json.loads(line) for line in args.regions.read_text().splitlines() if line.strip()]
    styles = set(args.styles.split(",")) if args.styles else None
    chosen = select(records, args.per_style, styles)
    paths = [str(args.regions.parent / rec["image"]) for rec in chosen]
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        outputs = list(pool.map(read_one, paths))
    lines = [{"image": rec["image"], "style": rec.get("style"), **out} for rec, out in zip(chosen, outputs)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(ln) + "\n" for ln in lines))
    if args.subset_gt is not None:
        args.subset_gt.write_text("".join(json.dumps(rec) + "\n" for rec in chosen))
    figures = {"images": len(lines), "predictions": str(args.out), "timing": timing(lines)}
    if args.figures is not None:
        write_figures(figures, args.figures)
    else:
        print(json.dumps(figures["timing"]))


if __name__ == "__main__":
    main()
