"""Each task's answer agrees with a second computation that does not go through the generator's own answer code:
image features (SIFT homographies, phase correlation), real VOC annotations read here, and plane geometry."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest

from benchmarks.synth.camera import PinholeCamera
from benchmarks.synth.generate import make_instance
from benchmarks.synth.sources import builtin_sources
from benchmarks.synth.tiers import DEFAULT, EASY

SIZE = (960, 540)
NADIR = EASY.with_(pitch_deg=(-90.0, -90.0), pair_pitch_deg=(-90.0, -90.0))


@pytest.fixture(scope="module")
def sources(shared_data):
    return builtin_sources(shared_data)


def cam_of(m: dict) -> PinholeCamera:
    return PinholeCamera(m["x_m"], m["y_m"], m["altitude_m"], m["yaw_deg"], m["pitch_deg"], m["roll_deg"],
                         m["focal_px"], m["width"], m["height"])


def ints(text: str) -> list[int]:
    return [int(v) for v in re.findall(r"-?\d+", text)]


def sift_homography(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray | None, int]:
    """Homography image a → image b from SIFT + ratio test + RANSAC, and its inlier count."""
    sift = cv2.SIFT_create(3000)
    ka, da = sift.detectAndCompute(cv2.cvtColor(a, cv2.COLOR_RGB2GRAY), None)
    kb, db = sift.detectAndCompute(cv2.cvtColor(b, cv2.COLOR_RGB2GRAY), None)
    if da is None or db is None or len(ka) < 8 or len(kb) < 8:
        return None, 0
    good = [m for m, n in cv2.BFMatcher().knnMatch(da, db, k=2) if m.distance < 0.75 * n.distance]
    if len(good) < 8:
        return None, 0
    pa = np.float32([ka[m.queryIdx].pt for m in good])
    pb = np.float32([kb[m.trainIdx].pt for m in good])
    h, mask = cv2.findHomography(pa, pb, cv2.RANSAC, 3.0)
    return h, int(mask.sum()) if mask is not None else 0


def test_camera_transformation_matches_homography_between_rendered_views(sources) -> None:
    # Nadir views: the homography between the images is a similarity whose rotation is minus the heading offset
    # (image y points down), and image 2's centre maps to the ground point below camera 2.
    checked = 0
    for i in range(6):
        inst, _ = make_instance("A2A_Camera_Transformation", i, 11, NADIR, sources, SIZE)
        h, inliers = sift_homography(inst.images[0], inst.images[1])
        if h is None or inliers < 30:
            continue
        vals = [float(v) for v in re.findall(r"-?\d+\.\d+", inst.gt)]
        rot = -np.degrees(np.arctan2(h[1, 0], h[0, 0]))
        assert abs((rot - vals[0] + 180) % 360 - 180) < 2.0
        if len(vals) == 2:
            a = inst.meta["cameras"][0]
            c = np.linalg.inv(h) @ np.array([SIZE[0] / 2, SIZE[1] / 2, 1.0])
            forward_m = (SIZE[1] / 2 - c[1] / c[2]) * a["altitude_m"] / a["focal_px"]
            assert forward_m == pytest.approx(vals[1], abs=1.0)
        checked += 1
    assert checked >= 3


def test_direction_answers_match_ground_bearings(sources) -> None:
    # Nadir, no roll: the clock direction equals the ground bearing of the object relative to the heading.
    tier = NADIR.with_(nuisance=EASY.nuisance)
    for i in range(8):
        inst, _ = make_instance("Direction_Recognition", i, 5, tier, sources, SIZE)
        cam = inst.meta["cameras"][0]
        reg = next(r for r in inst.meta["regions"][0] if r["id"] == inst.meta["target_region"])
        dx, dy = reg["ground_xy_m"][0] - cam["x_m"], reg["ground_xy_m"][1] - cam["y_m"]
        bearing = (np.degrees(np.arctan2(dx, dy)) - cam["yaw_deg"]) % 360
        hour = int(np.floor(bearing / 30 + 0.5)) % 12 or 12
        assert inst.gt == f"{hour} o'clock"
        assert f"Region {reg['id']} relative" in inst.question


def test_distance_ranking_matches_back_projected_boxes(sources) -> None:
    for i in range(8):
        inst, _ = make_instance("Distance_Comparison", i, 2, DEFAULT, sources, SIZE)
        cam = cam_of(inst.meta["cameras"][0])
        regs = inst.meta["regions"][0]
        centres = np.array([[(r["bbox"][0] + r["bbox"][2]) / 2, (r["bbox"][1] + r["bbox"][3]) / 2] for r in regs])
        ground = cam.image_to_ground(centres)
        d = np.hypot(ground[:, 0] - cam.x, ground[:, 1] - cam.y)
        order = [regs[j]["id"] for j in np.argsort(d)]
        gt = ints(inst.gt)
        if inst.meta["variant"] == "rank":
            assert gt == order
        else:
            assert gt == [order[0] if inst.meta["variant"] == "closest" else order[-1]]


def test_region_recognition_answers_lie_on_annotated_objects(sources) -> None:
    for i in range(6):
        inst, _ = make_instance("Region_Recognition", i, 4, DEFAULT, sources, SIZE)
        src = next(s for s in sources if s.name == inst.meta["source"])
        root = ET.parse(src.path.with_suffix(".xml") if src.path.with_suffix(".xml").is_file() else
                        src.path.parent.parent / "annotations_voc" / f"{src.path.stem}.xml").getroot()
        boxes = [(o.findtext("name"), [float(o.find("bndbox").findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax")])
                 for o in root.iter("object")]
        cam = cam_of(inst.meta["cameras"][0])
        scale_px = inst.meta["gsd_m"] / src.shrink  # world metres per annotation pixel
        tex_w, tex_h = src.load().shape[1] * src.shrink, src.load().shape[0] * src.shrink
        gt = set(ints(inst.gt))
        for r in inst.meta["regions"][0]:
            c = cam.image_to_ground(np.array([[(r["bbox"][0] + r["bbox"][2]) / 2, (r["bbox"][1] + r["bbox"][3]) / 2]]))[0]
            u, v = c[0] / scale_px + tex_w / 2, tex_h / 2 - c[1] / scale_px  # world → annotation pixels
            hit = any(n == inst.meta["class"] and b[0] - 1 <= u <= b[2] + 1 and b[1] - 1 <= v <= b[3] + 1 for n, b in boxes)
            assert hit == (r["id"] in gt), (inst.meta["source"], r)


def _transfer(a: PinholeCamera, b: PinholeCamera, box: list[float]) -> np.ndarray:
    c = np.array([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])
    g = a.image_to_ground(c)
    p, _ = b.project(np.c_[g, np.zeros(1)])
    return p[0]


def test_shared_pairs_and_matched_boxes_follow_the_plane_homography(sources) -> None:
    for i in range(4):
        inst, _ = make_instance("A2A_Shared_Association", i, 8, DEFAULT, sources, SIZE)
        a, b = (cam_of(m) for m in inst.meta["cameras"])
        ra, rb = ({r["id"]: r["bbox"] for r in regs} for regs in inst.meta["regions"])
        expect = set()
        for ida, box in ra.items():
            p = _transfer(a, b, box)
            hits = [idb for idb, bb in rb.items() if bb[0] <= p[0] <= bb[2] and bb[1] <= p[1] <= bb[3]]
            expect |= {(ida, idb) for idb in hits}
        assert {(int(x), int(y)) for x, y in re.findall(r"(\d+)-(\d+)", inst.gt)} == expect
    for i in range(4):
        inst, _ = make_instance("A2A_Object_Matching", i, 9, DEFAULT, sources, SIZE)
        a, b = (cam_of(m) for m in inst.meta["cameras"])
        rid = int(re.search(r"Region (\d+) in image1", inst.question).group(1))
        box = next(r["bbox"] for r in inst.meta["regions"][0] if r["id"] == rid)
        p = _transfer(a, b, box)
        if inst.meta["variant"] == "box":
            x1, y1, x2, y2 = ints(inst.gt)
            assert x1 <= p[0] <= x2 and y1 <= p[1] <= y2
        else:
            bb = next(r["bbox"] for r in inst.meta["regions"][1] if r["id"] == ints(inst.gt)[0])
            assert bb[0] <= p[0] <= bb[2] and bb[1] <= p[1] <= bb[3]


def test_occlusion_answers_are_outside_or_covered_in_image_two(sources) -> None:
    for i in range(4):
        inst, _ = make_instance("A2A_Occlusion_Removal", i, 6, DEFAULT, sources, SIZE)
        a, b = (cam_of(m) for m in inst.meta["cameras"])
        covers = inst.meta["occluder_boxes_b"]
        gone = set()
        for r in inst.meta["regions"][0]:
            p = _transfer(a, b, r["bbox"])
            outside = not (0 <= p[0] <= b.width and 0 <= p[1] <= b.height)
            covered = any(c[0] <= p[0] <= c[2] and c[1] <= p[1] <= c[3] for c in covers)
            if outside or covered:
                gone.add(r["id"])
        assert ints(inst.gt) == sorted(gone) and 0 < len(gone) < len(inst.meta["regions"][0])


def test_collaboration_answer_is_the_candidate_sharing_features(sources) -> None:
    inst, _ = make_instance("A2A_Collaboration_Recognition", 0, 3, EASY, sources, SIZE)
    counts = [sift_homography(inst.images[0], img)[1] for img in inst.images[1:]]
    assert "ABCD"[int(np.argmax(counts))] == inst.gt
    assert max(counts) >= 3 * max(sorted(counts)[:-1] + [5])


def test_motion_description_matches_image_flow(sources) -> None:
    # Phase correlation between consecutive frames: flying forward moves the content down the frame, etc.
    expect = {"forward": (0, 1), "backward": (0, -1), "left": (1, 0), "right": (-1, 0)}
    done = set()
    for i in range(40):
        if len(done) >= 2:
            break
        inst, _ = make_instance("Motion_Understanding", i, 1, NADIR, sources, (480, 270))
        kind = inst.meta["trajectory"]["kind"]
        assert len(inst.images) == 16
        if kind not in expect or kind in done:
            continue
        g = [np.float32(cv2.cvtColor(im, cv2.COLOR_RGB2GRAY)) for im in inst.images[:2]]
        (dx, dy), _ = cv2.phaseCorrelate(g[0], g[1])
        ex, ey = expect[kind]
        assert (np.sign(round(dx, 1)) * abs(ex), np.sign(round(dy, 1)) * abs(ey)) == (ex, ey)
        assert {"forward": "forward", "backward": "backward", "left": "left", "right": "right"}[kind] in inst.gt
        done.add(kind)
    assert done
