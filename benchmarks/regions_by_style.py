"""Region-reading figures broken down by how each region was drawn (used by :mod:`benchmarks.measure.bench_regions`).

Each drawn region falls in one group per attribute of its style (:class:`benchmarks.synth.overlay.RegionStyle`), of its
box and of its overlay's JPEG quality; a group's rate is the share of its regions recovered exactly (right id, IoU >=
0.9). Where the rates part shows which drawings the reader still fails on, and which overlay styles a user who draws
their own can rely on.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence

from benchmarks.synth.overlay import RegionStyle

Box = Sequence[float]


def _band(value: float, edges: Sequence[float]) -> str:
    """The band of ``edges`` that ``value`` falls in, e.g. "0.65-0.8" ("< first", ">= last" at the ends)."""
    if value < edges[0]:
        return f"< {edges[0]:g}"
    for lo, hi in zip(edges, edges[1:]):
        if value < hi:
            return f"{lo:g}-{hi:g}"
    return f">= {edges[-1]:g}"


# attribute -> its group of one drawn region (style, box [x1, y1, x2, y2] px, JPEG quality of the overlay)
ATTRIBUTES: dict[str, Callable[[RegionStyle, Box, int], str]] = {
    "label": lambda s, b, q: "filled" if s.label_background else "strokes",
    "placement": lambda s, b, q: s.label_position,
    "format": lambda s, b, q: s.label_format,
    "font": lambda s, b, q: s.font,
    "font_scale": lambda s, b, q: _band(s.font_scale, (0.65, 0.8, 0.95)),
    "line_width_px": lambda s, b, q: str(s.line_width),
    "box_short_side_px": lambda s, b, q: _band(min(b[2] - b[0], b[3] - b[1]), (40, 80, 160)),
    "jpeg_quality": lambda s, b, q: _band(q, (70, 80, 90)),
    "thin_small_strokes": lambda s, b, q: str(not s.label_background and s.font == "dejavu_sans"
                                              and s.font_scale < 0.65).lower(),
}


@dataclasses.dataclass
class StyleTally:
    """Drawn and exactly recovered regions per (attribute, group) over the overlays counted so far."""

    drawn: Counter = dataclasses.field(default_factory=Counter)
    exact: Counter = dataclasses.field(default_factory=Counter)

    def add(self, regions: Sequence[tuple[int, Box]], styles: Sequence[RegionStyle], quality: int,
            recovered: Sequence[bool]) -> None:
        """Count one overlay: its drawn ``regions`` with their ``styles``, JPEG ``quality`` and whether each was
        recovered exactly."""
        for (_, box), style, hit in zip(regions, styles, recovered):
            for name, group in ATTRIBUTES.items():
                key = (name, group(style, box, quality))
                self.drawn[key] += 1
                self.exact[key] += int(hit)

    def figures(self) -> dict[str, dict[str, dict[str, float]]]:
        """{attribute: {group: {regions, recovered_exactly, recovered_rate}}}, groups in sorted order."""
        out: dict[str, dict[str, dict[str, float]]] = {name: {} for name in ATTRIBUTES}
        for name, group in sorted(self.drawn):
            n, hits = self.drawn[(name, group)], self.exact[(name, group)]
            out[name][group] = {"regions": n, "recovered_exactly": hits, "recovered_rate": round(hits / n, 4)}
        return out
