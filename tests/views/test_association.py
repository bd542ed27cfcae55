"""Region association and view overlap, with ground truth from known homographies and rendered cameras."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render
from tools.views.association import (associate_regions, patch_ncc, rank_candidate_views, region_visibility,
                                     transfer_box, view_overlap, visible_in)
from tools.common import ToolError, load_image
from tools.views.matching import match_views

YELL = "deepforest_neon/2019_YELL_2_541000_4977000_image_crop"


def test_transfer_box_by_scale_and_shift() -> None:
    H = np.array([[2.0, 0, 10], [0, 2.0, -5], [0, 0, 1]])
    assert transfer_box([10, 20, 30, 40], H) == pytest.approx([30, 35, 70, 75])
    # clipped to image b
    assert transfer_box([10, 20, 30, 40], H, (50, 60)) == pytest.approx([30, 35, 50, 60])
    assert transfer_box([10, 20, 30, 40], H, (20, 20)) is None  # lands outside b


def test_transfer_box_under_rotation_is_the_hull() -> None:
    # 90° clockwise on screen about the origin: (x, y) → (−y, x), then shifted by +100 in x
    H = np.array([[0, -1.0, 100], [1.0, 0, 0], [0, 0, 1]])
    assert transfer_box([10, 20, 30, 60], H) == pytest.approx([40, 10, 80, 30])


def test_visible_fraction() -> None:
    H = np.eye(3)
    assert visible_in([80, 0, 120, 10], H, (100, 100)) == pytest.approx(0.5)
    assert visible_in([10, 10, 20, 20], H, (100, 100)) == pytest.approx(1.0)
    assert visible_in([200, 200, 220, 220], H, (100, 100)) == 0.0


def test_bad_boxes_and_homographies() -> None:
    with pytest.raises(ToolError, match="x2 > x1"):
        transfer_box([30, 20, 10, 40], np.eye(3))
    with pytest.raises(ToolError, match="no homography"):
        associate_regions([(0, [0, 0, 5, 5])], [(1, [0, 0, 5, 5])], None, (10, 10))
    with pytest.raises(ToolError, match="3x3"):
        transfer_box([0, 0, 5, 5], np.eye(2))


def _tree_boxes(xml: Path) -> np.ndarray:
    boxes = []
    for obj in ET.parse(xml).getroot().iter("object"):
        bb = obj.find("bndbox")
        boxes.append([float(bb.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")])
    return np.array(boxes)


def _boxes_in_view(tex: GroundTexture, cam: PinholeCamera, boxes_tex: np.ndarray) -> dict[int, list[float]]:
    """Annotated tree boxes (texture px) as axis-aligned boxes in the camera image, only those fully inside."""
    H = cam.ground_to_image() @ tex.pixel_to_world()
    out = {}
    for i, (x1, y1, x2, y2) in enumerate(boxes_tex):
        c = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]]) @ H.T
        p = c[:, :2] / c[:, 2:]
        lo, hi = p.min(0), p.max(0)
        if lo.min() >= 0 and hi[0] <= cam.width and hi[1] <= cam.height:
            out[i] = [*lo, *hi]
    return out


@pytest.fixture(scope="module")
def scene(shared_data: Path) -> tuple[GroundTexture, PinholeCamera, PinholeCamera]:
    tex = GroundTexture(load_image(shared_data / f"{YELL}.png"), 0.1)
    cx, cy = tex.centre
    a = PinholeCamera(cx - 8, cy + 3, 60.0, yaw_deg=0, focal_px=500, width=480, height=360)
    b = a.with_(x=cx + 6, y=cy - 2, yaw_deg=40, altitude=70.0)
    return tex, a, b


def test_associate_real_tree_boxes_between_rendered_views(scene, shared_data: Path) -> None:
    tex, ca, cb = scene
    boxes = _tree_boxes(shared_data / f"{YELL}.xml")
    in_a, in_b = _boxes_in_view(tex, ca, boxes), _boxes_in_view(tex, cb, boxes)
    shared = set(in_a) & set(in_b)
    assert len(shared) >= 10  # the scene really has shared trees
    # ids in b are relabelled so that the association cannot lean on equal ids
    relabel = {k: 1000 + j for j, k in enumerate(sorted(in_b, reverse=True))}
    regions_a = list(in_a.items())
    regions_b = [(relabel[k], v) for k, v in in_b.items()]
    r = match_views(render(tex, ca)[0], render(tex, cb)[0], method="sift")
    assert r.confident
    pairs = associate_regions(regions_a, regions_b, r.H, (cb.width, cb.height))
    truth = {(k, relabel[k]) for k in shared}
    found = {(a, b) for a, b, _ in pairs}
    precision = len(found & truth) / max(len(found), 1)
    recall = len(found & truth) / len(truth)
    assert precision >= 0.9 and recall >= 0.9, (precision, recall)


def _footprint_overlap(tex: GroundTexture, a: PinholeCamera, b: PinholeCamera) -> float:
    """Ground truth: share of a's frame that b also sees, by Monte Carlo over a's pixels (from the cameras)."""
    rng = np.random.default_rng(0)
    px = rng.uniform([0, 0], [a.width, a.height], size=(20000, 2))
    ground = a.image_to_ground(px)
    pb, depth = b.project(np.column_stack([ground, np.zeros(len(ground))]))
    inside = (depth > 0) & (pb[:, 0] >= 0) & (pb[:, 0] < b.width) & (pb[:, 1] >= 0) & (pb[:, 1] < b.height)
    return float(inside.mean())


def test_view_overlap_matches_camera_geometry(scene) -> None:
    tex, ca, cb = scene
    score = view_overlap(render(tex, ca)[0], render(tex, cb)[0], method="sift")
    assert score.confident
    # overlap of a's image inside b; H maps a's frame into b, so the truth is the share of a seen by b
    assert score.overlap_fraction == pytest.approx(_footprint_overlap(tex, ca, cb), abs=0.05)


def test_rank_candidate_views_picks_the_overlapping_one(scene, shared_data: Path) -> None:
    tex, ca, cb = scene
    other = GroundTexture(load_image(shared_data / "dji_survey_dev/images/DJI_0034.JPG"), 0.017)
    ox, oy = other.centre
    far = PinholeCamera(ox, oy, 12.0, focal_px=500, width=480, height=360)
    candidates = [render(other, far)[0], render(tex, cb)[0], load_image(shared_data / "deepforest_neon/OSBS_029.png")]
    ranking = rank_candidate_views(render(tex, ca)[0], candidates, method="sift")
    assert ranking[0].candidate_index == 1 and ranking[0].confident
    assert not any(s.confident for s in ranking[1:])


def test_patch_ncc_basics() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 255, (12, 12))
    assert patch_ncc(p, 2 * p + 7) == pytest.approx(1.0)
    assert patch_ncc(p, -p) == pytest.approx(-1.0)
    assert patch_ncc(p, np.full_like(p, 5.0)) == 0.0  # flat patch: no evidence either way


def test_region_visibility_outside_hidden_and_seen(scene, shared_data: Path) -> None:
    """Truth by construction: the tree boxes' positions in b come from the cameras; one visible tree is covered in
    b by a patch of b's own ground copied from elsewhere (as an occluder), one tree lies outside b's frame."""
    tex, ca, cb = scene
    ia, ib = render(tex, ca)[0], render(tex, cb)[0].copy()
    boxes = _tree_boxes(shared_data / f"{YELL}.xml")
    in_a, in_b = _boxes_in_view(tex, ca, boxes), _boxes_in_view(tex, cb, boxes)
    big = lambda d: [k for k, v in d.items() if (v[2] - v[0]) >= 20 and (v[3] - v[1]) >= 20]  # noqa: E731
    shared = sorted(set(big(in_a)) & set(big(in_b)))
    outside = [k for k in big(in_a) if k not in in_b]
    H_true = cb.ground_to_image() @ np.linalg.inv(ca.ground_to_image())
    outside = [k for k in outside if visible_in(in_a[k], H_true, (cb.width, cb.height)) == 0.0]
    assert len(shared) >= 2 and outside, "scene must hold shared and unseen trees"
    hidden, seen = shared[0], shared[1]
    x1, y1, x2, y2 = (int(round(v)) for v in in_b[hidden])
    h, w = y2 - y1, x2 - x1
    sx, sy = (0, 0) if x1 > cb.width // 2 else (cb.width - w, cb.height - h)  # a far corner of b, same size
    ib[y1:y2, x1:x2] = np.rot90(ib[sy:sy + h, sx:sx + w], 2)
    r = match_views(ia, ib, method="sift")
    assert r.confident
    vis = {v.id: v for v in region_visibility(ia, ib, [(k, in_a[k]) for k in (hidden, seen, outside[0])], r.H)}
    assert vis[seen].visible and vis[seen].content_ncc > 0.6
    assert not vis[hidden].visible and vis[hidden].visible_fraction > 0.9
    assert not vis[outside[0]].visible and vis[outside[0]].visible_fraction < 0.5


def test_region_visibility_rejects_bad_homography() -> None:
    img = np.zeros((20, 20, 3), np.uint8)
    with pytest.raises(ToolError):
        region_visibility(img, img, [(1, [1, 1, 5, 5])], None)


def test_transfer_ellipse_keeps_a_turned_disc_the_same_size() -> None:
    """A disc of radius 10 at (50, 50) has the box [40, 40, 60, 60] whatever the rotation: turning the view by
    45° about the disc's centre must leave its box unchanged ("ellipse"), while the box hull grows by √2."""
    c, s = np.cos(np.radians(45)), np.sin(np.radians(45))
    T = np.array([[1, 0, 50], [0, 1, 50], [0, 0, 1.0]])
    H = T @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ np.linalg.inv(T)
    assert transfer_box([40, 40, 60, 60], H, outline="ellipse") == pytest.approx([40, 40, 60, 60], abs=0.1)
    hull = transfer_box([40, 40, 60, 60], H, outline="box")
    assert hull[2] - hull[0] == pytest.approx(20 * np.sqrt(2), abs=0.1)
    with pytest.raises(ToolError):
        transfer_box([40, 40, 60, 60], H, outline="circle")
