"""Sort a region reader's misses and extra regions by cause, against the ground truth of an overlay set.

    python -m benchmarks.measure.overlay_misses regions.jsonl predictions.jsonl [--examples out.json]

``regions.jsonl``: the ground truth (``regions`` with ``id``, ``bbox``, ``label_bbox``; inclusive px of the drawn
line's outer edge). ``predictions.jsonl``: :mod:`benchmarks.measure.foreign_overlays`' output (``regions`` and
``unlabeled_boxes``). A region is exact when a prediction has its id and IoU >= 0.9 (the scorer's rule). Each miss
is put in one bucket: the box found but unlabeled, found with another id, its id read on a box that is off
(larger than it: a label taken in; within 4 px: an edge off; elsewhere: the label given to another box), or no box
there; each extra region: a label read as a box, a duplicate or wrong id of a found box, a piece of a box, inside
a box, or on the picture. Counts are printed per bucket and per style; ``--examples`` writes every case.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tools.regions.geom import pixel_iou

EXACT = 0.9


def _box(b: list[float]) -> list[int]:
    return [int(round(v)) for v in b]


def _miss(gt: dict[str, Any], preds: list[dict[str, Any]], free: set[int], unlabeled: list[list[float]]) -> str:
    """The bucket of a ground-truth region that no prediction matched exactly."""
    g = gt["bbox"]
    same = [j for j in free if preds[j]["id"] == gt["id"]]
    if same:
        p = _box(max((preds[j] for j in same), key=lambda q: pixel_iou(g, _box(q["bbox"])))["bbox"])
        d = [p[k] - g[k] for k in range(4)]
        if pixel_iou(g, p) < 0.3:
            return "id read on another box"
        if all(abs(v) <= 4 for v in d):
            return "box edge off by <= 4 px"
        if d[0] <= 4 and d[1] <= 4 and d[2] >= -4 and d[3] >= -4:
            return "box larger (took in a label or neighbour)"
        return "box off"
    best = max((pixel_iou(g, _box(q["bbox"])) for q in preds), default=0.0)
    if best >= EXACT:
        return "box right, id wrong"
    if any(pixel_iou(g, _box(b)) >= EXACT for b in unlabeled):
        return "box found, label unread"
    return "box not found"


def _extra(pred: dict[str, Any], regions: list[dict[str, Any]]) -> str:
    """The bucket of a prediction that matched no ground-truth region."""
    p = _box(pred["bbox"])
    if any(pixel_iou(p, r["label_bbox"]) >= 0.3 for r in regions):
        return "label read as a box"
    best = max((pixel_iou(p, r["bbox"]) for r in regions), default=0.0)
    if best >= EXACT:
        return "duplicate or wrong id"
    if best >= 0.3:
        return "piece of a box"
    if any(all(p[k] >= r["bbox"][k] - 3 for k in (0, 1)) and all(p[k] <= r["bbox"][k] + 3 for k in (2, 3))
           for r in regions):
        return "inside a box"
    return "on the picture"


def buckets(truth: list[dict[str, Any]], predicted: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[Any]]:
    """(kind, style, bucket) -> cases, kind "miss" or "extra"."""
    by_name = {Path(p["image"]).name: p for p in predicted}
    out: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    for rec in truth:
        pred = by_name.get(Path(rec["image"]).name, {"regions": []})
        preds = pred["regions"]
        free = set(range(len(preds)))
        exact = set()
        for i, r in enumerate(rec["regions"]):
            hits = [j for j in free if preds[j]["id"] == r["id"] and pixel_iou(r["bbox"], _box(preds[j]["bbox"])) >= EXACT]
            if hits:
                free.discard(hits[0])
                exact.add(i)
        for i, r in enumerate(rec["regions"]):
            if i not in exact:
                cause = _miss(r, preds, free, pred.get("unlabeled_boxes", []))
                out["miss", r.get("style", rec["style"]), cause].append({"image": rec["image"], **r})
        for j in sorted(free):
            out["extra", rec["style"], _extra(preds[j], rec["regions"])].append({"image": rec["image"], **preds[j]})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("regions", type=Path)
    ap.add_argument("predictions", type=Path)
    ap.add_argument("--examples", type=Path, default=None, help="write every case here (JSON)")
    args = ap.parse_args(argv)
    load = lambda p: [json.loads(line) for line in p.read_text().splitlines() if line.strip()]  # noqa: E731
    found = buckets(load(args.regions), load(args.predictions))
    totals: Counter[tuple[str, str]] = Counter()
    for (kind, _, cause), cases in found.items():
        totals[kind, cause] += len(cases)
    for (kind, cause), n in sorted(totals.items(), key=lambda kv: (kv[0][0], -kv[1])):
        styles = ", ".join(f"{s} {len(c)}" for (k, s, b), c in sorted(found.items()) if k == kind and b == cause)
        print(f"{kind:5s} {n:4d}  {cause}  ({styles})")
    if args.examples is not None:
        args.examples.write_text(json.dumps({" | ".join(k): v for k, v in found.items()}, indent=1))


if __name__ == "__main__":
    main()
