"""The camera pitch a "closest to / farthest from the drone" ranking uses when the question states none.

Ground distance from the drone depends on the pitch: on a forward-tilted (oblique) view it grows with the height
in the image, on a straight-down (nadir) view with the offset from the image centre. ``photo_geometry`` says what
the photo shows, and the ranking follows it:

- a pitch from the file's tags (or a north-up georeferenced raster): that pitch;
- an oblique view (sky above a horizon, or a confident texture estimate wholly outside the nadir band): no pitch,
  so ``planners.pitch_sweep`` ranks over the plausible and estimated pitches and abstains when they disagree;
- otherwise (a nadir estimate, or nothing that says oblique): the photo is taken as near-nadir. A near-nadir
  camera's small tilt has no known direction (an untagged survey camera rolls as much as it pitches), so the
  likeliest point below the drone is the image centre, and on flat ground a pinhole camera there sees a point at a
  ground distance proportional to its pixel offset from that centre: the ranking at pitch −90 is exactly that
  order. The nadir default holds because a camera tilted far enough forward to change the order shows it: sky at
  the top, or a texture-scale gradient down the rows that the estimate is confident about. The answer carries the
  assumption and a reduced confidence;
- no ``photo_geometry`` answer at all: no pitch (nothing was looked at, so nothing is assumed).
"""

from __future__ import annotations

from dataclasses import dataclass

from planners.evidence import Evidence
from planners.pitch_sweep import ASSUMED_PITCH_CONFIDENCE, ESTIMATED_PITCH_CONFIDENCE

NADIR_PITCH_DEG = -90.0


@dataclass(frozen=True)
class RankingView:
    """The pitch to rank at (deg, −90 = nadir; None: unknown), the altitude from the file (m), and for an assumed
    or estimated view the note and the confidence cap that go with the answer."""

    pitch_deg: float | None
    altitude_m: float | None = None
    note: str | None = None
    max_confidence: float = 1.0


def ranking_view(g: dict) -> RankingView:
    """The :class:`RankingView` for ``photo_geometry``'s answer ``g`` (``{}`` when the tool was not available)."""
    altitude = g.get("altitude_m")
    source = str(g.get("pitch_source") or "")
    if g.get("pitch_deg") is not None and "estimated" not in source:
        return RankingView(float(g["pitch_deg"]), altitude)
    # A view without a pitch comes from the sky cue, or from a texture estimate unsure of its pitch: such an
    # estimate is no evidence against the near-nadir default (on real photos it is wrong often enough to say so).
    sure = g.get("pitch_deg") is not None or "estimated" not in str(g.get("view_source") or "")
    if not g or (g.get("view") == "oblique" and sure):
        return RankingView(None, altitude)
    if g.get("view") == "nadir" and sure:
        return RankingView(NADIR_PITCH_DEG, altitude, f"nadir view {source or 'estimated from the image'}: distance "
                           "from the drone grows with the offset from the image centre", ESTIMATED_PITCH_CONFIDENCE)
    missing = g.get("missing") or {}
    why = missing.get("view") or missing.get("pitch_deg") or "no camera pitch known"
    return RankingView(NADIR_PITCH_DEG, altitude, "taken as a near-nadir view (no sky and no confident forward tilt "
                       f"seen; {why}): distance from the drone grows with the offset from the image centre",
                       ASSUMED_PITCH_CONFIDENCE)


def with_view_note(ev: Evidence, view: RankingView | None) -> Evidence:
    """``ev`` with the view's note in front of its reason and its confidence capped (an answer only)."""
    if view is None or view.note is None or ev.get("value") is None:
        return ev
    reason = view.note + (f"; {ev['reason']}" if ev.get("reason") else "")
    return {**ev, "confidence": min(float(ev["confidence"]), view.max_confidence), "reason": reason}
