"""Multi-image tasks: A2A_Collaboration_Recognition (reference + 4 candidates) and Motion_Understanding
(16 frames along a known trajectory, with a reference description of the motion)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchmarks.synth.camera import PinholeCamera
from benchmarks.synth.instance import (Instance, SynthError, TaskContext, jpeg_quality, pick_source, place_camera,
                                       sample_spec, scene_with_objects, uniform_in)
from benchmarks.synth.scene import (CameraSpec, Scene, camera_meta, footprint, footprint_radius, overlap_fraction,
                                    render_view)
from benchmarks.synth.tasks_pair import sample_pair

LETTERS = "ABCD"
N_FRAMES = 16
MOTIONS = ("forward", "backward", "left", "right", "ascend", "descend", "rotate_left", "rotate_right", "tilt_up",
           "tilt_down")


def _spec_of(cam: PinholeCamera) -> CameraSpec:
    return CameraSpec(cam.altitude, cam.pitch_deg, cam.focal_px, cam.width, cam.height, cam.roll_deg)


def _distractor(ctx: TaskContext, scene: Scene, ref: PinholeCamera, like: PinholeCamera) -> tuple[Scene, PinholeCamera]:
    """A view that shares no ground with ``ref``: from the same scene when the tier asks (and it fits), else
    from another texture."""
    rng = ctx.rng
    if rng.random() < ctx.tier.same_scene_distractors or len(ctx.sources) < 2:
        for _ in range(40):
            try:
                cam = place_camera(rng, scene, _spec_of(like), tries=20)
            except SynthError:
                continue
            if overlap_fraction(ref, cam) == 0.0 and overlap_fraction(cam, ref) == 0.0:
                return scene, cam
        if len(ctx.sources) < 2:
            raise SynthError(f"no room for a non-overlapping view on {scene.source.name}")
    other = pick_source(ctx, exclude=scene.source.name)
    spec = sample_spec(rng, ctx.tier, ctx.size, pitch=ctx.tier.pair_pitch_deg)
    sc = scene_with_objects(ctx, other, [spec], room=1.2)
    return sc, place_camera(rng, sc, spec)


def collaboration_recognition(ctx: TaskContext) -> Instance:
    """Image 1 = reference view; images 2–5 = options A–D; exactly one option overlaps the reference by a share
    in ``tier.overlap``, the others share no ground with it."""
    rng = ctx.rng
    scene, a, b = sample_pair(ctx, room=2.6)
    views = [_distractor(ctx, scene, a, b) for _ in range(3)]
    pos = int(rng.integers(4))
    views.insert(pos, (scene, b))
    ref, nz0 = render_view(scene, a, rng, ctx.tier.nuisance)
    imgs, nz = [ref], [nz0]
    for sc, cam in views:
        img, n = render_view(sc, cam, rng, ctx.tier.nuisance)
        imgs.append(img)
        nz.append(n)
    q = ("The first image is a UAV image. Images 2-5 are candidate UAV images corresponding to options A-D, "
         "respectively. Which option can collaborate with the given UAV viewpoint, i.e., capture imagery of the "
         "same area? Answer with only one option letter: A, B, C, or D. Provide no explanation.")
    meta = {"source": scene.source.name, "scene_scale": scene.scale, "cameras": [camera_meta(a)] + [
        camera_meta(c) for _, c in views], "candidate_sources": [sc.source.name for sc, _ in views],
        "overlaps": [round(overlap_fraction(a, c), 4) if sc is scene else 0.0 for sc, c in views], "nuisance": nz}
    return Instance(imgs, q, LETTERS[pos], meta, jpeg_quality(ctx))


def _trajectory(kind: str, rng: np.random.Generator, spec: CameraSpec) -> dict:
    """Motion parameters: horizontal move (forward, right) m, altitude end/start ratio, yaw change (deg,
    clockwise +), pitch start/end (deg)."""
    half_h = float(np.linalg.norm(footprint(spec.at(0, 0, 0))[0] - footprint(spec.at(0, 0, 0))[3])) / 2
    d = uniform_in(rng, 0.5, 1.0) * half_h
    move = {"forward": (d, 0.0), "backward": (-d, 0.0), "left": (0.0, -d), "right": (0.0, d)}.get(kind, (0.0, 0.0))
    ratio = {"ascend": uniform_in(rng, 1.3, 1.7), "descend": uniform_in(rng, 0.6, 0.77)}.get(kind, 1.0)
    turn = uniform_in(rng, 45.0, 120.0) * {"rotate_left": -1, "rotate_right": 1}.get(kind, 0)
    p0 = spec.pitch_deg
    tilt = {"tilt_up": (-90.0, uniform_in(rng, -65.0, -55.0)), "tilt_down": (uniform_in(rng, -65.0, -55.0), -90.0)}
    pitch = tilt.get(kind, (p0, p0))
    return {"kind": kind, "move_forward_right_m": move, "altitude_ratio": ratio, "yaw_change_deg": turn,
            "pitch_start_end_deg": pitch}


def _frames(start: PinholeCamera, traj: dict) -> list[PinholeCamera]:
    f, r = traj["move_forward_right_m"]
    psi = np.radians(start.yaw_deg)
    dx, dy = f * np.sin(psi) + r * np.cos(psi), f * np.cos(psi) - r * np.sin(psi)
    p0, p1 = traj["pitch_start_end_deg"]
    out = []
    for t in np.linspace(0.0, 1.0, N_FRAMES):
        out.append(replace(start, x=start.x + t * dx, y=start.y + t * dy,
                           altitude=start.altitude * (1 + t * (traj["altitude_ratio"] - 1)),
                           yaw_deg=(start.yaw_deg + t * traj["yaw_change_deg"]) % 360.0, pitch_deg=p0 + t * (p1 - p0)))
    return out


def _pitch_words(pitch: float) -> str:
    return "the camera pointing straight down" if pitch <= -88 else f"the camera tilted about {-pitch:.0f}° below the horizon"


def describe(traj: dict, start: PinholeCamera, end: PinholeCamera) -> str:
    """Reference description of a trajectory, in the benchmark's style (motion, camera angle, how the scene
    shifts in the frame, final viewpoint)."""
    k = traj["kind"]
    cam = _pitch_words(start.pitch_deg)
    f, r = traj["move_forward_right_m"]
    dist = abs(f) + abs(r)
    if k in ("forward", "backward", "left", "right"):
        verb = {"forward": "flew forward", "backward": "flew backward", "left": "moved sideways to the left",
                "right": "moved sideways to the right"}[k]
        slide = {"forward": "bottom", "backward": "top", "left": "right", "right": "left"}[k]
        return (f"The drone {verb} about {dist:.0f} meters while maintaining a stable altitude and heading, with "
                f"{cam}; the ground scene slid steadily toward the {slide} of the frame, and the drone finally "
                f"reached a new viewpoint {dist:.0f} meters {'ahead of' if k == 'forward' else 'away from'} "
                f"its starting position.")
    if k in ("ascend", "descend"):
        how = "climbed" if k == "ascend" else "descended"
        eff = "shrank toward the centre of the frame, covering a wider area" if k == "ascend" else \
            "grew larger in the frame as the view zoomed in on a smaller area"
        return (f"The drone {how} vertically from about {start.altitude:.0f} meters to {end.altitude:.0f} meters "
                f"without moving horizontally or turning, with {cam}; the ground scene {eff}, ending with a "
                f"{'wider' if k == 'ascend' else 'closer'} view of the same spot.")
    if k in ("rotate_left", "rotate_right"):
        side = "left (counter-clockwise)" if k == "rotate_left" else "right (clockwise)"
        spin = "clockwise" if k == "rotate_left" else "counter-clockwise"
        return (f"The drone rotated in place to the {side} by about {abs(traj['yaw_change_deg']):.0f} degrees while "
                f"maintaining a stable altitude, with {cam}; the ground scene turned {spin} around the centre of the "
                f"frame, and the drone finally faced a new heading from the same position.")
    up = k == "tilt_up"
    return (f"The drone hovered at a stable altitude while the camera tilted {'up' if up else 'down'} from "
            f"{'straight down' if up else f'about {-start.pitch_deg:.0f}° below the horizon'} to "
            f"{f'about {-end.pitch_deg:.0f}° below the horizon' if up else 'straight down'}; the scene slid toward "
            f"the {'bottom' if up else 'top'} of the frame as the view moved {'ahead, showing more of the area in front' if up else 'back to the area directly below'}"
            f", ending with {'an oblique forward view' if up else 'a nadir view beneath the drone'}.")


def motion_understanding(ctx: TaskContext) -> Instance:
    """16 clean frames along one known motion (translation, climb/descent, rotation or camera tilt)."""
    rng, tier = ctx.rng, ctx.tier
    kind = MOTIONS[int(rng.integers(len(MOTIONS)))]
    source = pick_source(ctx)
    steep = (min(tier.pitch_deg[1], -80.0), -80.0) if tier.pitch_deg[1] > -80 else tier.pitch_deg
    spec = sample_spec(rng, tier, ctx.size, pitch=steep if kind.startswith("tilt") else None)
    traj = _trajectory(kind, rng, spec)
    big = replace(spec, altitude=spec.altitude * max(1.0, traj["altitude_ratio"]),
                  pitch_deg=max(spec.pitch_deg, *traj["pitch_start_end_deg"]))
    reach = footprint_radius(big) + float(np.hypot(*traj["move_forward_right_m"]))
    # footprint radius grows linearly with altitude: size the scene for a camera whose radius is ``reach``
    scene = scene_with_objects(ctx, source, [replace(big, altitude=big.altitude * reach / footprint_radius(big))],
                               room=1.1)
    for _ in range(40):
        start = place_camera(rng, scene, replace(spec, pitch_deg=traj["pitch_start_end_deg"][0]))
        frames = _frames(start, traj)
        if all(scene.contains(footprint(c), scene.texture.gsd_m * 0.5) for c in frames):
            break
    else:
        raise SynthError(f"trajectory {kind} does not fit on {source.name}")
    imgs, nz = [], []
    for cam in frames:
        img, n = render_view(scene, cam, rng, tier.nuisance, nz[0] if nz else None)  # one setting per video
        imgs.append(img)
        nz.append(n)
    q = ("This video is captured from a drone-mounted camera. Please describe, in temporal order, how the drone moves, "
         "how the camera angle changes, and how the main object shifts in the frame, ending with the final viewing "
         "focus.")
    meta = {"source": source.name, "scene_scale": scene.scale, "trajectory": traj,
            "cameras": [camera_meta(c) for c in frames], "nuisance": nz[:1]}
    return Instance(imgs, q, describe(traj, frames[0], frames[-1]), meta, jpeg_quality(ctx))
