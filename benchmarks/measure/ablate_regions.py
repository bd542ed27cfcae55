"""Which passes of tools.regions.read_regions carry weight on overlays never used in development: each pass is
switched off in turn and the overlay benchmark's exact regions counted again, overlay by overlay.

The overlays are those of benchmarks/measure/bench_regions.py (same generator and scoring) drawn with seeds no pass was
written on. A pass is switched off by replacing the name tools.regions.pipeline calls with a stand-in that hands its input
back unchanged (a pass that adds or fixes nothing), so the passes themselves are not touched; this module is the only
place that knows their call signatures. A pass whose removal gains regions on unseen overlays was fitted to its
development cases; one whose removal loses many is the reader's backbone.

Run: ``.venv/bin/python -m benchmarks.measure.ablate_regions [--seeds 121 131 141 151] [--n 200] [--passes ...]``
(~1.5 min per pass for four seeds of 200 overlays on 2 cores); writes docs/figures/regions_ablation.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

import tools.regions.pipeline as regions  # noqa: E402
from benchmarks.region_overlays import load_pool, make_instance, score  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "figures" / "regions_ablation.json"
_pool = functools.cache(load_pool)   # the benchmark's pictures, loaded once per worker process, not once per job


def _unchanged(first: int) -> Callable:
    """A stand-in that returns its argument number ``first`` (0-based) unchanged."""
    return lambda *args, **kw: args[first]


def _nothing(*args: object, **kw: object) -> list:
    """A stand-in that finds nothing: a new empty list each call."""
    return []


# pass name -> (name in tools.regions.pipeline, its stand-in given the real function); one registry, in pipeline order
PASSES: dict[str, tuple[str, Callable[[Callable], Callable]]] = {
    "letter_rects": ("letter_rects", lambda f: _nothing),
    "filled_letters": ("filled_letters", lambda f: _nothing),
    "across_right_side": ("across_right_side", lambda f: _unchanged(0)),
    "with_cut_letters": ("with_cut_letters", lambda f: _unchanged(1)),
    "settle_disagreements": ("settle_disagreements", lambda f: _unchanged(3)),
    "unglued": ("unglued", lambda f: lambda box, *args: list(box)),
    "label_side": ("label_side", lambda f: lambda box, *args: list(box)),
    "boxes_from_labels": ("_boxes_from_labels", lambda f: _nothing),
    "label_by_siblings": ("label_by_siblings", lambda f: _unchanged(1)),
    "letter_boxes": ("letter_boxes", lambda f: _unchanged(1)),
    "label_by_detection": ("label_by_detection", lambda f: _unchanged(1)),
    "second_look": ("second_look", lambda f: _unchanged(1)),
}


@contextmanager
def switched_off(name: str | None) -> Iterator[None]:
    """Within the block, tools.regions.pipeline runs without the pass ``name`` (None: every pass on)."""
    if name is None:
        yield
        return
    attr, stand_in = PASSES[name]
    real = getattr(regions, attr)
    setattr(regions, attr, stand_in(real))
    try:
        yield
    finally:
        setattr(regions, attr, real)


def count(job: tuple[str | None, int, int]) -> tuple[str | None, int, list[tuple[int, int]]]:
    """(pass, seed, [(exact regions, extra regions)] per overlay) for ``n`` overlays of ``seed`` read without the
    pass."""
    name, seed, n = job
    rng = np.random.default_rng(seed)
    pool = _pool()
    per = []
    with switched_off(name):
        for k in range(n):
            _, img, real = pool[k % len(pool)]
            inst, drawn, _, _ = make_instance(rng, img, real)
            per.append(score(regions.read_regions(inst), drawn))
    return name, seed, per


def ablate(names: list[str], seeds: list[int], n: int, workers: int = 2) -> dict:
    """Exact and extra regions with every pass on, and the change in each when one pass of ``names`` is off."""
    jobs = [(name, seed, n) for name in [None, *names] for seed in seeds]
    with ProcessPoolExecutor(max_workers=workers) as ex:
        done = list(tqdm(ex.map(count, jobs), total=len(jobs), desc="ablation", disable=None))
    per = {(name, seed): rows for name, seed, rows in done}
    base = [row for seed in seeds for row in per[(None, seed)]]
    out = {"seeds": seeds, "overlays_per_seed": n, "exact": sum(h for h, _ in base),
           "extra": sum(e for _, e in base), "passes": {}}
    for name in names:
        rows = [row for seed in seeds for row in per[(name, seed)]]
        out["passes"][name] = {
            "exact_change": sum(h for h, _ in rows) - out["exact"],
            "extra_change": sum(e for _, e in rows) - out["extra"],
            "overlays_better": sum(r[0] > b[0] for r, b in zip(rows, base)),
            "overlays_worse": sum(r[0] < b[0] for r, b in zip(rows, base)),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[121, 131, 141, 151])
    ap.add_argument("--n", type=int, default=200, help="overlays per seed")
    ap.add_argument("--passes", nargs="+", default=list(PASSES), choices=list(PASSES))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    res = ablate(args.passes, args.seeds, args.n, args.workers)
    print(f"every pass on: {res['exact']} exact, {res['extra']} extra (seeds {args.seeds}, {args.n} overlays each)")
    print(f"{'pass switched off':24} {'exact':>6} {'extra':>6} {'better':>7} {'worse':>6}")
    for name, d in sorted(res["passes"].items(), key=lambda kv: kv[1]["exact_change"]):
        print(f"{name:24} {d['exact_change']:+6d} {d['extra_change']:+6d} {d['overlays_better']:7d} "
              f"{d['overlays_worse']:6d}")
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
