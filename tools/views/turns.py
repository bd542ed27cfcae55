"""Quarter turns of a working view, and pixel coordinates carried back from a turned view to the original.

Learned local features (ALIKED, DISK) and LightGlue are trained on upright image pairs: a second photo turned on
screen by a large angle (a drone that yawed half round, a copy rotated in an editor) leaves them few matches. The
matcher therefore also tries photo B turned by quarter turns (:data:`QUARTER_TURNS`); whatever it matches in a
turned copy is carried back to B's own pixels with :func:`unturn_points`, so every later step (homography, pose,
heading) sees ordinary matches of A and B and needs no rotation bookkeeping of its own.

Convention: one turn is ``numpy.rot90`` (90 degrees counter-clockwise on screen); pixel coordinates are x right,
y down, pixel centres at integers (the full-resolution convention of :func:`tools.common.to_full_res`).
"""

from __future__ import annotations

import numpy as np

from tools.feature_cache import WorkingView

QUARTER_TURNS = (1, 2, 3)  # counter-clockwise quarter turns of photo B tried when the upright match is unsure


def turned_view(view: WorkingView, turns: int) -> WorkingView:
    """``view`` turned ``turns`` quarter turns counter-clockwise (its full size and cache key turned with it)."""
    k = turns % 4
    w, h = view.full_size
    key = None if view.key is None else (view.key, "quarter_turns", k)
    return WorkingView(np.ascontiguousarray(np.rot90(view.rgb, k)), view.scale, (h, w) if k % 2 else (w, h), key)


def unturn_points(points: np.ndarray, turns: int, full_size: tuple[int, int]) -> np.ndarray:
    """(N, 2) full-resolution pixels of the image turned ``turns`` quarter turns counter-clockwise → the same
    points in the original image of ``full_size`` = (width, height).

    One counter-clockwise turn of a W-wide image sends original pixel (x, y) to (y, W − 1 − x), so a turned pixel
    (x', y') came from (W − 1 − y', x'); several turns are undone one at a time, last first.
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    k = turns % 4
    if k and len(full_size) != 2:
        raise ValueError(f"full_size must be (width, height), got {full_size!r}")
    for step in range(k, 0, -1):  # undo turn number `step`; the image before it was turned step - 1 times
        width_before = full_size[0] if (step - 1) % 2 == 0 else full_size[1]
        pts = np.column_stack([width_before - 1 - pts[:, 1], pts[:, 0]])
    return pts
