"""Difficulty tiers: the ranges that camera placement, view overlap and image nuisances are drawn from.

The default tier is set from what real low-altitude UAV benchmarks show (30–120 m altitude, nadir to
moderately oblique views, half-overlapping pairs, consumer-camera JPEG), NOT from what our agent solves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

Range = tuple[float, float]


@dataclass(frozen=True)
class Nuisance:
    """Photometric nuisances applied to every rendered image (each drawn uniformly from its range)."""

    jpeg_quality: tuple[int, int] = (85, 95)  # JPEG quality of the written files
    blur_sigma_px: Range = (0.0, 0.0)  # Gaussian blur sigma in pixels
    noise_std: Range = (0.0, 0.0)  # additive Gaussian noise, grey levels (0–255)
    exposure_gain: Range = (1.0, 1.0)  # multiplicative brightness
    roll_deg: float = 0.0  # camera roll drawn from [−roll_deg, roll_deg]


@dataclass(frozen=True)
class Tier:
    """Parameters of one difficulty tier (angles in degrees, distances in metres, overlap as a fraction)."""

    name: str
    altitude_m: Range = (40.0, 100.0)
    pitch_deg: Range = (-90.0, -60.0)  # −90 = nadir; obliques up to about −45
    hfov_deg: Range = (60.0, 80.0)  # horizontal field of view
    overlap: Range = (0.3, 0.7)  # pair tasks: share of image 1's ground footprint that image 2 also sees
    yaw_change_deg: float = 180.0  # pair tasks: |yaw_b − yaw_a| ≤ this
    altitude_change: float = 0.25  # pair tasks: altitude_b / altitude_a within 1 ± this
    pair_pitch_deg: Range = (-90.0, -75.0)  # pitch of the pair views (Camera_Transformation, matching ...)
    nuisance: Nuisance = Nuisance()
    regions: tuple[int, int] = (3, 6)  # number of drawn regions per image
    clock_margin_deg: float = 5.0  # targets at least this far from a half-hour boundary (ambiguity guard)
    distance_gap: float = 0.10  # ranked ground distances differ by at least this fraction
    same_scene_distractors: float = 0.5  # Collaboration_Recognition: share of distractors from the same texture

    def with_(self, **changes: object) -> "Tier":
        return replace(self, **changes)


EASY = Tier(
    "easy", altitude_m=(50.0, 70.0), pitch_deg=(-90.0, -80.0), hfov_deg=(65.0, 75.0), overlap=(0.6, 0.9),
    yaw_change_deg=60.0, altitude_change=0.05, pair_pitch_deg=(-90.0, -90.0),
    nuisance=Nuisance(jpeg_quality=(92, 95)), regions=(3, 4), clock_margin_deg=10.0, distance_gap=0.25,
    same_scene_distractors=0.0,
)
DEFAULT = Tier(
    "default",
    nuisance=Nuisance(jpeg_quality=(75, 95), blur_sigma_px=(0.0, 1.0), noise_std=(0.0, 4.0),
                      exposure_gain=(0.85, 1.15), roll_deg=2.0),
)
HARD = Tier(
    "hard", altitude_m=(30.0, 150.0), pitch_deg=(-90.0, -45.0), hfov_deg=(50.0, 90.0), overlap=(0.15, 0.45),
    yaw_change_deg=180.0, altitude_change=0.5, pair_pitch_deg=(-90.0, -55.0),
    nuisance=Nuisance(jpeg_quality=(50, 85), blur_sigma_px=(0.5, 2.0), noise_std=(2.0, 10.0),
                      exposure_gain=(0.6, 1.4), roll_deg=5.0),
    regions=(5, 9), clock_margin_deg=2.0, distance_gap=0.05, same_scene_distractors=1.0,
)
TIERS: dict[str, Tier] = {t.name: t for t in (EASY, DEFAULT, HARD)}


def get_tier(tier: str | Tier) -> Tier:
    """A :class:`Tier` by name (``easy``, ``default``, ``hard``) or the tier itself."""
    if isinstance(tier, Tier):
        return tier
    try:
        return TIERS[tier]
    except KeyError:
        raise ValueError(f"unknown tier {tier!r}; choose one of {sorted(TIERS)}") from None
