"""Measure the region-label recognizer (tools.regions.label_reader) alone, on the true label boxes of the region-overlay
benchmark's overlays (benchmarks/measure/bench_regions.py: benchmark fonts, which the recognizer never trains on).

Each label is read as :func:`tools.regions.read_regions` asks for it (``READER.read``: the WINDOWS vote) at the box
:func:`benchmarks.synth.overlay.label_box` drew it in; a read is right when its number is the region's id. Figures are
split by label kind (filled background or stroke letters in the outline colour) and by font.

Run: ``.venv/bin/python -m benchmarks.measure.bench_label_reader [--n 200] [--seed 2024] [--model PATH]``; writes
docs/figures/label_reader.json.
"""

from __future__ import annotations

import argparse
import collections
import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from tqdm import tqdm  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.region_overlays import ROOT, load_pool, make_instance  # noqa: E402
from benchmarks.figures import write_figures  # noqa: E402
from benchmarks.synth.overlay import label_box  # noqa: E402
from tools.regions.label_reader import READER, LabelReader  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=320, help="number of overlays")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--model", default=None, help="recognizer ONNX file (default: the configured one)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "label_reader.json"))
    args = ap.parse_args()
    reader = LabelReader(args.model) if args.model else READER
    rng = np.random.default_rng(args.seed)
    pool = load_pool()
    right: collections.Counter[str] = collections.Counter()
    seen: collections.Counter[str] = collections.Counter()
    wrong = []
    for k in tqdm(range(args.n), desc="overlays", disable=None):
        _, img, real = pool[k % len(pool)]
        inst, regions, _, styles = make_instance(rng, img, real)
        size = (inst.shape[1], inst.shape[0])
        boxes = [label_box(b, st.label_format.format(id=rid), st, size) for (rid, b), st in zip(regions, styles)]
        for (rid, _), st, read in zip(regions, styles, reader.read(inst, boxes)):
            kind = "filled" if st.label_background else "stroke"
            for key in ("all", kind, f"{kind}/{st.font}"):
                seen[key] += 1
                right[key] += read[0] == rid
            if read[0] != rid:
                wrong.append({"overlay": k, "id": rid, "read": read[0], "confidence": round(read[2], 3),
                              "kind": kind, "font": st.font})
    figures = {
        "overlays": args.n, "seed": args.seed, "model": args.model or "configured (label_reader_model)",
        "labels": seen["all"], "read_right": right["all"], "rate": round(right["all"] / max(1, seen["all"]), 4),
        "by_kind": {key: {"labels": n, "right": right[key], "rate": round(right[key] / n, 4)}
                    for key, n in sorted(seen.items()) if key != "all"},
        "sure_wrong": sum(w["confidence"] >= 0.9 for w in wrong),
        "wrong": wrong,
    }
    write_figures(figures, args.out, echo=False)
    print({k: v for k, v in figures.items() if k != "wrong"})


if __name__ == "__main__":
    main()
