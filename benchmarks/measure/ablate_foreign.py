"""What each rarely active pass of the region reader is worth on overlays drawn outside the project.

``benchmarks.measure.pass_activity`` names the images on which a pass changes anything; elsewhere switching it off
changes nothing. So a pass is ablated on those images only: each is read with the pass switched off
(``benchmarks.measure.ablate_regions.switched_off``) and with every pass on, and both reads are scored by the foreign
set's own scorer (same id and IoU >= 0.9, ``score_overlays.score_image``), loaded from beside the set.

Run: ``.venv/bin/python -m benchmarks.measure.ablate_foreign ../shared/foreign/overlays/regions.jsonl
docs/figures/regions_pass_activity.json [--most 8] [--out docs/figures/regions_ablation_foreign.json]``: every pass
active on at most ``--most`` images. Prints, per pass, the change in exact and extra regions when it is off.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from benchmarks.figures import write_figures  # noqa: E402
from benchmarks.measure.ablate_regions import PASSES, switched_off  # noqa: E402
from benchmarks.measure.foreign_overlays import read_one  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "figures" / "regions_ablation_foreign.json"
IOU = 0.9


def foreign_scorer(regions: Path) -> ModuleType:
    """The scorer shipped beside a foreign set (``score_overlays.py`` in the folder above ``regions.jsonl``)."""
    path = regions.resolve().parent.parent / "score_overlays.py"
    spec = importlib.util.spec_from_file_location("score_overlays", path)
    if spec is None or spec.loader is None or not path.exists():
        raise SystemExit(f"no scorer at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exact_extra(scorer: ModuleType, truth: list[dict], read: dict[str, Any]) -> tuple[int, int]:
    s = scorer.score_image(truth, read["regions"], IOU)
    return s["exact"], s["extra"]


def ablate(regions: Path, activity: dict[str, Any], most: int) -> dict[str, Any]:
    """Per pass active on 1..``most`` images: exact and extra regions there with it on and off."""
    scorer = foreign_scorer(regions)
    truth = {json.loads(ln)["image"]: json.loads(ln)["regions"] for ln in regions.read_text().splitlines()
             if ln.strip()}
    out: dict[str, Any] = {}
    for name, d in activity["passes"].items():
        images = d.get("changed_on", [])
        if not 0 < len(images) <= most:
            continue
        if name not in PASSES:   # an activity file measured before the pass was removed from the reader
            print(f"{name:22} is no pass of the reader now: skipped", flush=True)
            continue
        on, off = [0, 0], [0, 0]
        for image in images:
            path = str(regions.parent / image)
            with_pass = exact_extra(scorer, truth[image], read_one(path))
            with switched_off(name):
                without = exact_extra(scorer, truth[image], read_one(path))
            on = [a + b for a, b in zip(on, with_pass)]
            off = [a + b for a, b in zip(off, without)]
        out[name] = {"images": images, "exact_on": on[0], "exact_off": off[0], "extra_on": on[1],
                     "extra_off": off[1]}
        print(f"{name:22} {len(images)} images: exact {on[0]} -> {off[0]} off, extra {on[1]} -> {off[1]} off",
              flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("regions", type=Path, help="regions.jsonl of the foreign overlays")
    ap.add_argument("activity", type=Path, help="benchmarks.measure.pass_activity output (with image names)")
    ap.add_argument("--most", type=int, default=8, help="ablate passes active on at most this many images")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    res = ablate(args.regions, json.loads(args.activity.read_text()), args.most)
    write_figures({"set": str(args.regions), "activity": str(args.activity), "passes": res}, args.out, echo=False)


if __name__ == "__main__":
    main()
