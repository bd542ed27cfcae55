"""Measure tools.regions.read_regions on boxes drawn tight around their own filled label ("framed labels").

``bench_regions`` draws random boxes, so a box only a few px bigger than its centred label is rare there, though
it is how a small object is often annotated. Here every overlay is one such box: a filled label ("8", "13" or
"20", white on red) centred in a box that leaves ``gap_x`` / ``gap_y`` px of picture between label and outline
(:func:`benchmarks.synth.overlay.label_box` sizes the label), over every combination of three fonts, three font scales,
two line widths and seven gaps (2-6 px, measured on the drawing), on a real orthophoto, JPEG-encoded at quality 63 and
80. Layouts that :func:`benchmarks.synth.overlay.legible_layout` rejects (the outline hidden under the label) are
skipped. A region counts when a returned region has its id and IoU >= 0.9 with the drawn box; any other region returned
is an extra.

Run: ``.venv/bin/python -m benchmarks.measure.bench_framed [--out FILE]``; writes docs/figures/regions_framed.json.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from tqdm import tqdm  # noqa: E402

from benchmarks.region_overlays import DATA, ROOT, framed_box, score  # noqa: E402
from benchmarks.figures import write_figures  # noqa: E402
from tools.common import jpeg_roundtrip, load_image  # noqa: E402
from benchmarks.synth.overlay import RegionStyle, draw_regions, legible_layout  # noqa: E402
from tools.regions.pipeline import read_regions  # noqa: E402

FONTS = ("hershey_simplex", "dejavu_sans", "hershey_duplex")
FONT_SCALES = (0.55, 0.63, 0.75)
LINE_WIDTHS = (3, 4)
GAPS = ((2, 2), (3, 3), (4, 3), (5, 3), (4, 4), (5, 4), (6, 4))   # (gap_x, gap_y) px of picture beside the label
IDS = (20, 13, 8)
QUALITIES = (63, 80)
IMAGE = DATA / "deepforest_neon" / "OSBS_029.png"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "regions_framed.json")
    args = ap.parse_args()
    image = load_image(IMAGE)
    size = (image.shape[1], image.shape[0])
    tally, by_id, by_gap, skipped = Counter(), Counter(), Counter(), 0
    cases = list(itertools.product(FONTS, FONT_SCALES, LINE_WIDTHS, GAPS, IDS))
    for font, scale, width, (gap_x, gap_y), rid in tqdm(cases, desc="framed labels", disable=None):
        style = RegionStyle(color=(255, 0, 0), line_width=width, label_format="{id}",
                            label_position="inside_center", font_scale=scale, label_background=True,
                            label_color=(255, 255, 255), font=font)
        box = framed_box(rid, style, gap_x, gap_y)
        if not legible_layout([(rid, box)], [style], size):
            skipped += len(QUALITIES)
            continue
        for q in QUALITIES:
            hit, extra = score(read_regions(jpeg_roundtrip(draw_regions(image, [(rid, box)], style), q)),
                               [(rid, box)])
            tally["regions"] += 1
            tally["recovered_exactly"] += hit
            tally["extra_regions"] += extra
            by_id[f"{rid}_recovered"] += hit
            by_id[f"{rid}_regions"] += 1
            by_gap[f"{gap_x}x{gap_y}_lines{width}_recovered"] += hit
            by_gap[f"{gap_x}x{gap_y}_lines{width}_regions"] += 1
    figures = {**tally, "recovered_rate": round(tally["recovered_exactly"] / max(tally["regions"], 1), 4),
               "by_id": dict(by_id), "by_gap": dict(by_gap), "illegible_skipped": skipped,
               "criterion": "right id and IoU >= 0.9; one box around its own filled label per image"}
    write_figures(figures, args.out)


if __name__ == "__main__":
    main()
