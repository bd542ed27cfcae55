"""Where labels sit beside their boxes, for :mod:`tools.regions.marks`: the places renderers put a label (PLACES,
and for light boxes :data:`tools.regions.light.LIGHT_PLACES`), a piece's distance from them in label heights, and
the place an image's labels share (renderers draw an image's labels alike: one preferred corner per image).
Boxes and pieces are (x1, y1, x2, y2) px.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tools.regions.light import LIGHT_PLACES, NOT_LIGHT_PLACES

# labels are drawn alike: where USUAL_SHARE of at least USUAL_MIN matched labels take one place, a piece at another
# place costs PLACE_PENALTY label heights more (a white twig inside a box beside its white label)
USUAL_SHARE, USUAL_MIN, PLACE_PENALTY = 0.75, 3, 1.0
NEAR_PLACE = 1.0          # label heights: a piece this near a place's anchor may be the label drawn there
Box = Sequence[float]
Point = tuple[float, float]


def _pt(x: float, y: float) -> Point:
    return (x, y)


# placement name -> (the piece's reference point, the box's anchor point); boxes are (x1, y1, x2, y2)
PLACES: dict[str, tuple[Callable[[Box], Point], Callable[[Box], Point]]] = {
    "above_centre": (lambda p: _pt((p[0] + p[2]) / 2, p[3]), lambda b: _pt((b[0] + b[2]) / 2, b[1])),
    "below_centre": (lambda p: _pt((p[0] + p[2]) / 2, p[1]), lambda b: _pt((b[0] + b[2]) / 2, b[3])),
    "above_left": (lambda p: _pt(p[0], p[3]), lambda b: _pt(b[0], b[1])),
    "above_left_out": (lambda p: _pt(p[2], p[3]), lambda b: _pt(b[0], b[1])),
    "above_right": (lambda p: _pt(p[2], p[3]), lambda b: _pt(b[2], b[1])),
    "inside_top_left": (lambda p: _pt(p[0], p[1]), lambda b: _pt(b[0], b[1])),
    "left_of_top_left": (lambda p: _pt(p[2], p[1]), lambda b: _pt(b[0], b[1])),
    "below_left": (lambda p: _pt(p[0], p[1]), lambda b: _pt(b[0], b[3])),
    "centre": (lambda p: _pt((p[0] + p[2]) / 2, (p[1] + p[3]) / 2),
               lambda b: _pt((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)),
}


def place_cost(piece: Box, box: Box, height: float, usual: str | None = None, light: bool = False
               ) -> tuple[float, str]:
    """The piece's least distance (label heights) from one of ``box``'s anchors, and that placement's name; with
    ``usual`` (the place nearly all of the image's labels take), PLACE_PENALTY is added at every other place.
    ``light``: a white, light grey or pale box, whose label may sit at LIGHT_PLACES too, never at
    NOT_LIGHT_PLACES (:mod:`tools.regions.light`)."""
    best = (np.inf, "")
    places = _places(light)
    for name in places:
        d = place_distance(piece, box, height, name, light)
        d += PLACE_PENALTY if usual in places and usual != name else 0.0
        if d < best[0]:
            best = (d, name)
    return best


def place_distance(piece: Box, box: Box, height: float, name: str, light: bool = False) -> float:
    """The piece's distance (label heights) from ``box``'s anchor of the place ``name``."""
    ref, anchor = _places(light)[name]
    (px, py), (ax, ay) = ref(piece), anchor(box)
    return float(np.hypot(px - ax, py - ay)) / height


def anchor_point(box: Box, name: str, light: bool = False) -> Point:
    """``box``'s anchor point (px) of the place ``name``."""
    return _places(light)[name][1](box)


# the places a light box's label is looked for at: PLACES less NOT_LIGHT_PLACES, with LIGHT_PLACES
_LIGHT = {k: v for k, v in PLACES.items() if k not in NOT_LIGHT_PLACES} | LIGHT_PLACES


def _places(light: bool) -> dict[str, tuple[Callable[[Box], Point], Callable[[Box], Point]]]:
    """The places a label is looked for at: PLACES, for a light box less NOT_LIGHT_PLACES and with LIGHT_PLACES."""
    return _LIGHT if light else PLACES


def usual_place(places: Sequence[str]) -> str | None:
    """The place that at least USUAL_SHARE of ``places`` (of at least USUAL_MIN labels) take, if any: renderers
    draw an image's labels alike (one preferred corner per image)."""
    if len(places) < USUAL_MIN:
        return None
    top = max(set(places), key=list(places).count)
    return top if places.count(top) >= USUAL_SHARE * len(places) else None


def supported_place(boxes: Sequence[Box], pieces: Sequence[Box], height: float, light: bool) -> str | None:
    """The place at which at least USUAL_SHARE of the (at least USUAL_MIN) ``boxes`` have one of the label
    ``pieces`` within NEAR_PLACE label heights (``height``: the label height looked for, px), the least summed
    distance of those that do: where the image's labels are drawn, though the picture's own pieces (white twigs
    beside white boxes) lie nearer to some boxes elsewhere."""
    if len(boxes) < USUAL_MIN:
        return None
    best: tuple[float, str] | None = None
    for name in _places(light):
        near = [min((place_distance(p, b, max(p[3] - p[1] + 1, 0.5 * height), name, light) for p in pieces),
                    default=np.inf) for b in boxes]
        if sum(d <= NEAR_PLACE for d in near) >= USUAL_SHARE * len(boxes):
            total = sum(d for d in near if d <= NEAR_PLACE)
            if best is None or total < best[0]:
                best = (total, name)
    return None if best is None else best[1]
