"""'Which region is closest to / farthest from the drone?' with no pitch stated or tagged, through the real agent
and tools, on ground views rendered with known cameras: the truth is the horizontal ground distance from the
drone's nadir point to each box's ground point, computed from the render's camera.

- A straight-down render (no sky, no forward tilt) is ranked as near-nadir: the box nearest the image centre is
  nearest on the ground even when it sits at the top of the image, where a forward-tilted reading would put the
  farthest ground.
- A forward-tilted render that shows sky above the horizon is not ranked as nadir: the agent answers with the
  true ground order or abstains, never with the image-centre order (which the scene makes wrong).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render
from benchmarks.synth.overlay import draw_regions
from tools.common import load_image

YELL = "deepforest_neon/2019_YELL_2_541000_4977000_image_crop.png"
HALF_BOX_PX = 24
QUESTION = "Which region is {} the drone? Answer with only the region label, formatted exactly like `Region 1`."


def _texture(shared_data: Path, gsd_m: float, tiles: int) -> GroundTexture:
    """The orthophoto tiled ``tiles`` x ``tiles`` (mirrored, so the seams stay textured), centred on the origin."""
    img = load_image(shared_data / YELL)
    row = np.concatenate([img if k % 2 == 0 else img[:, ::-1] for k in range(tiles)], axis=1)
    big = np.concatenate([row if k % 2 == 0 else row[::-1] for k in range(tiles)], axis=0)
    h, w = big.shape[:2]
    return GroundTexture(big, gsd_m, x0=-w * gsd_m / 2, y0=h * gsd_m / 2)


def _ground_distance(cam: PinholeCamera, pixel: tuple[float, float]) -> float:
    """Horizontal metres from the camera's nadir point to the ground seen at ``pixel``."""
    xy = cam.image_to_ground(np.array([pixel], float))[0]
    return float(math.hypot(xy[0] - cam.x, xy[1] - cam.y))


def _scene(tmp_path: Path, texture: GroundTexture, cam: PinholeCamera, centres: list[tuple[float, float]],
           sky: int = 0) -> tuple[str, list[float], list[float]]:
    """Render ``cam``, box each pixel of ``centres`` as region 0, 1, ... and save it; returns the path, the true
    ground distances and the pixel distances from the image centre."""
    img, _ = render(texture, cam, fill=sky)
    boxes = [[x - HALF_BOX_PX, y - HALF_BOX_PX, x + HALF_BOX_PX, y + HALF_BOX_PX] for x, y in centres]
    path = tmp_path / "view.png"
    Image.fromarray(draw_regions(img, list(enumerate(boxes)))).save(path)
    ground = [_ground_distance(cam, c) for c in centres]
    radial = [math.hypot(x - cam.width / 2, y - cam.height / 2) for x, y in centres]
    return str(path), ground, radial


def test_a_straight_down_view_is_ranked_by_the_offset_from_the_image_centre(agent, shared_data, tmp_path) -> None:
    cam = PinholeCamera(0.0, 0.0, 40.0, pitch_deg=-90.0, focal_px=700.0, width=960, height=720)
    # Region 0 130 px above the centre, region 1 150 px below it, region 2 far out at the bottom left: nadir, 0 is
    # the nearest, while a forward tilt of only 3 deg (which moves the nadir point 37 px down) makes 1 the nearest.
    centres = [(480.0, 230.0), (480.0, 510.0), (150.0, 650.0)]
    path, ground, _ = _scene(tmp_path, _texture(shared_data, 0.1, 2), cam, centres)
    nearest, farthest = int(np.argmin(ground)), int(np.argmax(ground))
    assert (nearest, farthest) == (0, 2)
    tilted = cam.with_(pitch_deg=-87.0)
    assert _ground_distance(tilted, centres[1]) < _ground_distance(tilted, centres[0])
    for word, truth in (("closest to", nearest), ("farthest from", farthest)):
        ans = agent.ask([path], QUESTION.format(word))
        assert not ans.abstained and ans.text == f"Region {truth}", (word, ans.reason)
        assert "nadir" in (ans.reason or "")


def test_a_forward_tilted_view_with_sky_is_not_ranked_as_nadir(agent, shared_data, tmp_path) -> None:
    cam = PinholeCamera(0.0, -150.0, 60.0, pitch_deg=-25.0, focal_px=600.0, width=960, height=720)
    # Region 0 at the image centre (about 130 m ahead); region 1 low at the left (about 50 m away); region 2 right.
    path, ground, radial = _scene(tmp_path, _texture(shared_data, 0.3, 4), cam, [(480, 360), (160, 640), (820, 420)],
                                  sky=235)
    truth, centre_nearest = int(np.argmin(ground)), int(np.argmin(radial))
    assert (truth, centre_nearest) == (1, 0)  # the image-centre order is wrong here by construction
    ans = agent.ask([path], QUESTION.format("closest to"))
    assert ans.abstained or ans.text == f"Region {truth}", ans.reason
