"""A distance ranking when the camera pitch is not known but the view may be oblique: the orders given by the
plausible pitches, or by the pitches of the interval that ``estimate_pitch`` measures on the image, and the answer
that most of them agree on (``planners.plans.rank_strategy`` calls it; ``planners.ranking_view`` decides when)."""

from __future__ import annotations

import math
from collections import Counter

from planners.evidence import Evidence, found, undecided
from planners.router import Understanding
from planners.toolbox import ToolCallError, ToolContext

# Plausible gimbal pitches of a drone photo (degrees, −90 = nadir): used when the question states none.
PITCH_SWEEP_DEG = (-30.0, -45.0, -60.0, -75.0, -90.0)
ASSUMED_PITCH_CONFIDENCE = 0.5  # an answer that holds for every plausible pitch, but rests on no measured pitch
ESTIMATED_PITCH_CONFIDENCE = 0.6  # an answer that holds over the interval of a pitch estimated from the image
INTERVAL_STEP_DEG = 2.5  # spacing of the pitches ranked inside the estimated interval
MAJORITY_SHARE = 0.5  # an answer that is not certain must hold for more than this share of the interval's pitches


def _interval_pitches(lo: float, hi: float) -> tuple[float, ...]:
    """Pitches (deg) from ``lo`` to ``hi`` inclusive, at most INTERVAL_STEP_DEG apart."""
    n = max(0, math.ceil((hi - lo) / INTERVAL_STEP_DEG))
    return tuple(lo + (hi - lo) * k / n for k in range(n + 1)) if n else (lo,)


async def _asked_orders(ctx: ToolContext, u: Understanding, regions: dict[int, dict], ids: list[int],
                        pitches: tuple[float, ...]) -> Counter[tuple[int, ...]]:
    """How many pitches of ``pitches`` give each asked part of the ranking (whole order, or its first id)."""
    conv = u.conventions
    asked: Counter[tuple[int, ...]] = Counter()
    for pitch in pitches:
        r = await ctx.call("rank_by_distance", image=ctx.images[0],
                           regions=[{"id": i, "bbox": regions[i]["bbox"]} for i in ids], altitude_m=conv.altitude_m,
                           pitch_deg=pitch, focal_px=conv.focal_px, order=conv.order)
        order = [int(i) for i in r["order"]]
        asked[tuple(order if conv.want_all else order[:1])] += 1
    return asked


async def rank_pitch_sweep(ctx: ToolContext, u: Understanding, regions: dict[int, dict],
                           ids: list[int]) -> Evidence:
    """Pitch not stated: answer when the asked part of the order (the whole order, or its first id) is the same
    for every pitch of :data:`PITCH_SWEEP_DEG`; otherwise give the answer that holds for most pitches of the
    interval that ``estimate_pitch`` measured on the image (more than half of them), its confidence scaled by that
    share. An estimate that is not confident still bounds the pitch; its reason goes with the answer. Abstain when
    there is no estimate or no answer holds for more than half of its interval."""
    if len(asked := await _asked_orders(ctx, u, regions, ids, PITCH_SWEEP_DEG)) == 1:
        return found({"ids": list(next(iter(asked)))}, ASSUMED_PITCH_CONFIDENCE,
                     f"camera pitch unknown; the same ranking holds for every pitch in {PITCH_SWEEP_DEG} deg")
    try:
        est = await ctx.call("estimate_pitch", image=ctx.images[0], focal_px=u.conventions.focal_px)
    except ToolCallError as exc:  # the estimate is optional: without it the old abstention stands
        return undecided(f"camera pitch unknown, the ranking changes with it and estimate_pitch failed ({exc})")
    lo, hi = (float(v) for v in est["interval_deg"])
    asked = await _asked_orders(ctx, u, regions, ids, _interval_pitches(lo, hi))
    (best, n), total = asked.most_common(1)[0], sum(asked.values())
    caveat = "" if est.get("confident", False) else f" (estimate not confident: {est.get('reason')})"
    if n / total <= MAJORITY_SHARE:
        return undecided(f"ranking changes with the pitch over the estimated interval {lo:.0f}…{hi:.0f} deg "
                         f"(estimate {float(est['pitch_deg']):.0f} deg{caveat}; the likeliest answer holds for {n} "
                         f"of {total} pitches)")
    holds = "the same ranking holds over" if n == total else f"this ranking holds for {n} of {total} pitches in"
    return found({"ids": list(best)}, ESTIMATED_PITCH_CONFIDENCE * n / total,
                 f"camera pitch estimated from the image: {float(est['pitch_deg']):.0f} deg{caveat}; {holds} "
                 f"{lo:.0f}…{hi:.0f} deg")
