"""Which passes of the region reader change anything on overlays drawn outside the project.

Each pass that ``benchmarks.measure.ablate_regions`` can switch off is watched while the reader reads every image of
a foreign ``regions.jsonl``: on each call, the pass's real output is compared with what its stand-in (the pass
switched off) would have returned for the same input. A pass whose output never differs on a set changes nothing
there, so switching it off cannot change a single region on that set; this costs one read per image, where an
ablation costs one read per image and pass. The comparison runs on copies of the inputs, taken before the pass may
change them in place.

Run: ``nice .venv/bin/python -m benchmarks.measure.pass_activity ../shared/foreign/overlays/regions.jsonl
[--per-style N] [--workers 1] [--out docs/figures/regions_pass_activity.json]``. Prints, per pass, on how many
images it changed something (and per style), and writes the same, with the names of those images, to ``--out``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from tqdm import tqdm  # noqa: E402

from benchmarks.figures import write_figures  # noqa: E402
from benchmarks.measure.ablate_regions import PASSES  # noqa: E402
from benchmarks.measure.foreign_overlays import select  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "figures" / "regions_pass_activity.json"


def _watched(name: str, real: Callable, stand_in: Callable, changed: set[str]) -> Callable:
    """``real``, noting ``name`` in ``changed`` whenever its output differs from the stand-in's on the same input."""
    def call(*args: Any, **kw: Any) -> Any:
        off = stand_in(*copy.deepcopy(args), **copy.deepcopy(kw))
        out = real(*args, **kw)
        if repr(out) != repr(off):   # regions are dataclasses: their repr holds every public field
            changed.add(name)
        return out
    return call


def passes_changing(path: str) -> list[str]:
    """Names of the passes (keys of ``PASSES``) whose output differed from their stand-in's while reading ``path``
    as the read_regions tool reads it."""
    import tools.regions.pipeline as pipeline
    from tools.common import load_image

    changed: set[str] = set()
    originals = {}
    for name, (attr, make_stand_in) in PASSES.items():
        real = originals.setdefault(attr, getattr(pipeline, attr))
        setattr(pipeline, attr, _watched(name, getattr(pipeline, attr), make_stand_in(real), changed))
    try:
        pipeline.read_regions(load_image(path), include_unlabeled=True, outer_edges=True)
    finally:
        for attr, real in originals.items():
            setattr(pipeline, attr, real)
    return sorted(changed)


def activity(styles: list[str], changed: list[list[str]], images: list[str] | None = None) -> dict[str, Any]:
    """Per pass: images on which it changed something, overall and per style, and (given ``images``, their names in
    the order of ``changed``) which ones: an ablation of a rarely active pass need only read those."""
    per_style: dict[str, Counter] = defaultdict(Counter)
    for style, names in zip(styles, changed):
        per_style[style].update(names)
    total = Counter(n for names in changed for n in names)
    return {"images": len(changed), "styles": dict(Counter(styles)),
            "passes": {name: {"images_changed": total[name],
                              "per_style": {s: per_style[s][name] for s in sorted(per_style) if per_style[s][name]},
                              **({"changed_on": [img for img, names in zip(images, changed) if name in names]}
                                 if images is not None else {})}
                       for name in PASSES}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("regions", type=Path, help="regions.jsonl of foreign overlays (only images and styles are read)")
    ap.add_argument("--per-style", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    records = select([json.loads(ln) for ln in args.regions.read_text().splitlines() if ln.strip()],
                     args.per_style, None)
    paths = [str(args.regions.parent / rec["image"]) for rec in records]
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        changed = list(tqdm(pool.map(passes_changing, paths), total=len(paths), desc="images", disable=None))
    res = activity([str(rec.get("style", "")) for rec in records], changed, [str(rec["image"]) for rec in records])
    print(f"{res['images']} images; per pass, images on which it changed something:")
    for name, d in sorted(res["passes"].items(), key=lambda kv: kv[1]["images_changed"]):
        print(f"  {name:24} {d['images_changed']:4d}  {d['per_style']}")
    write_figures({"set": str(args.regions), **res}, args.out)


if __name__ == "__main__":
    main()
