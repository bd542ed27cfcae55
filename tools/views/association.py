"""Region association across two views through a homography, and view-overlap ranking.

Boxes are ``[x1, y1, x2, y2]`` pixels (origin top-left). ``H`` maps image a pixels to image b pixels, as in
:class:`tools.views.matching.MatchResult`. One-to-one association is an assignment problem solved with
``scipy.optimize.linear_sum_assignment`` on the IoU of a's boxes transferred into b.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from agent.config import Config
from tools.common import ToolError
from tools.views.homography_checks import corners, homography_problem, warp_points
from tools.views.matching import Image, MatchResult, coarse_side, match_views

DEFAULT_MIN_IOU = 0.3  # a transferred box overlapping a candidate by less than this is "a different object"
EDGE_SAMPLES = 8  # points per box edge warped to hull a box (a homography bends straight edges' extents)

Box = Sequence[float]


@dataclass
class OverlapScore:
    """How much of view a's footprint falls inside view b (via the fitted homography)."""

    candidate_index: int  # position of b among the candidates (0 for a single pair)
    overlap_fraction: float  # area of H(a's frame) ∩ b's frame / area of H(a's frame), 0..1
    match_confidence: float  # MatchResult.confidence
    score: float  # overlap_fraction × match_confidence, used for ranking
    confident: bool
    reason: str | None
    n_inliers: int


def _check_box(bbox: Box) -> np.ndarray:
    b = np.asarray(bbox, float).ravel()
    if b.shape != (4,) or not np.all(np.isfinite(b)) or b[2] <= b[0] or b[3] <= b[1]:
        raise ToolError(f"a box must be [x1, y1, x2, y2] with x2 > x1 and y2 > y1, got {list(np.ravel(bbox))}")
    return b


def _check_H(H: np.ndarray | None) -> np.ndarray:
    if H is None:
        raise ToolError("no homography: the views could not be related (see the match result's reason)")
    H = np.asarray(H, float)
    if H.shape != (3, 3) or not np.all(np.isfinite(H)):
        raise ToolError(f"H must be a finite 3x3 matrix, got shape {H.shape}")
    return H


def _check_size(size: Sequence[int]) -> tuple[int, int]:
    if len(size) != 2 or min(size) <= 0:
        raise ToolError(f"image size must be (width, height) > 0, got {size}")
    return int(size[0]), int(size[1])


def _box_outline(b: np.ndarray) -> np.ndarray:
    t = np.linspace(0.0, 1.0, EDGE_SAMPLES, endpoint=False)
    x1, y1, x2, y2 = b
    top = np.column_stack([x1 + t * (x2 - x1), np.full_like(t, y1)])
    right = np.column_stack([np.full_like(t, x2), y1 + t * (y2 - y1)])
    bottom = np.column_stack([x2 - t * (x2 - x1), np.full_like(t, y2)])
    left = np.column_stack([np.full_like(t, x1), y2 - t * (y2 - y1)])
    return np.vstack([top, right, bottom, left])


def _warp_ahead(pts: np.ndarray, H: np.ndarray) -> np.ndarray | None:
    """Points warped into image b, or None when any maps behind the camera (w ≤ 0)."""
    w = np.column_stack([pts, np.ones(len(pts))]) @ H[2]
    if not np.all(w > 0):
        return None
    return warp_points(H, pts)


def _warped_box(bbox: Box, H: np.ndarray) -> np.ndarray | None:
    """Outline of the box in image b, or None when part of it maps behind the camera (w ≤ 0)."""
    return _warp_ahead(_box_outline(_check_box(bbox)), H)


def _ellipse_outline(b: np.ndarray) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, 4 * EDGE_SAMPLES * 2, endpoint=False)
    cx, cy, rx, ry = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, (b[2] - b[0]) / 2, (b[3] - b[1]) / 2
    return np.column_stack([cx + rx * np.cos(t), cy + ry * np.sin(t)])


def transfer_box(bbox: Box, H: np.ndarray, image_b_size: Sequence[int] | None = None,
                 outline: str = "box") -> list[float] | None:
    """Axis-aligned box in b of the object boxed in a, warped by ``H`` (a → b), clipped to b when its size is given.

    A box is the extent of an object of unknown shape and orientation. ``outline="ellipse"`` warps the
    ellipse inscribed in the box, the orientation-neutral shape touching all four sides, and boxes its image;
    ``"box"`` (default) warps the box itself (its hull grows under rotation: a square turned 45° gets a box twice the area,
    though the object need not have grown). Both agree for scale, shift and quarter turns. On the development seed
    (71 synthetic object pairs) the ellipse gave IoU ≥ 0.5 with the true box in b for all, the box hull for 72 %.
    Returns None when the outline maps (partly) beyond the horizon of b or lands entirely outside image b.
    """
    if outline not in ("ellipse", "box"):
        raise ToolError(f"outline must be 'ellipse' or 'box', got {outline!r}")
    H = _check_H(H)
    out = _warped_box(bbox, H) if outline == "box" else _warp_ahead(_ellipse_outline(_check_box(bbox)), H)
    if out is None:
        return None
    x1, y1 = out.min(axis=0)
    x2, y2 = out.max(axis=0)
    if image_b_size is not None:
        w, h = _check_size(image_b_size)
        x1, x2 = np.clip([x1, x2], 0, w)
        y1, y2 = np.clip([y1, y2], 0, h)
        if x2 <= x1 or y2 <= y1:
            return None
    return [float(x1), float(y1), float(x2), float(y2)]


def visible_in(bbox: Box, H: np.ndarray, image_b_size: Sequence[int]) -> float:
    """Fraction (0..1) of the box's warped area that lands inside image b (0 when it maps behind the camera)."""
    out = _warped_box(bbox, _check_H(H))
    if out is None:
        return 0.0
    poly = cv2.convexHull(out.astype(np.float32))
    full = float(cv2.contourArea(poly))
    if full <= 0:
        return 0.0
    inside, _ = cv2.intersectConvexConvex(poly, corners(_check_size(image_b_size)).astype(np.float32))
    return float(np.clip(inside / full, 0.0, 1.0))


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two ``[x1, y1, x2, y2]`` boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def associate_regions(regions_a: Sequence[tuple[Hashable, Box]], regions_b: Sequence[tuple[Hashable, Box]],
                      H: np.ndarray, image_b_size: Sequence[int], min_iou: float = DEFAULT_MIN_IOU,
                      outline: str = "ellipse") -> list[tuple[Hashable, Hashable, float]]:
    """One-to-one pairs ``(id_a, id_b, iou)`` maximising total IoU of a's boxes transferred into b
    (by :func:`transfer_box` with ``outline``: a box holds an object of unknown orientation).

    Pairs below ``min_iou`` are dropped (objects not seen in both views stay unpaired). Sorted by id_a order.
    """
    if not 0.0 < min_iou <= 1.0:
        raise ToolError(f"min_iou must be in (0, 1], got {min_iou}")
    H = _check_H(H)
    for rid, box in list(regions_a) + list(regions_b):
        _check_box(box)
    if not regions_a or not regions_b:
        return []
    moved = [transfer_box(box, H, image_b_size, outline) for _, box in regions_a]
    iou = np.array([[box_iou(m, bb) if m is not None else 0.0 for _, bb in regions_b] for m in moved])
    rows, cols = linear_sum_assignment(-iou)
    pairs = [(regions_a[r][0], regions_b[c][0], float(iou[r, c])) for r, c in zip(rows, cols) if iou[r, c] >= min_iou]
    return pairs


def overlap_fraction(H: np.ndarray | None, size_a: tuple[int, int], size_b: tuple[int, int]) -> float:
    """Area of a's frame mapped into b that lies inside b, over the mapped area; 0 for an insane ``H``."""
    if H is None or homography_problem(H, size_a) is not None:
        return 0.0
    quad = warp_points(H, corners(size_a)).astype(np.float32)
    full = float(cv2.contourArea(quad))
    inside, _ = cv2.intersectConvexConvex(quad, corners(size_b).astype(np.float32))
    return float(np.clip(inside / full, 0.0, 1.0)) if full > 0 else 0.0


def overlap_from_match(result: MatchResult, candidate_index: int = 0) -> OverlapScore:
    """:class:`OverlapScore` of an existing match result."""
    frac = overlap_fraction(result.H, result.image_a_size, result.image_b_size) if result.confident else 0.0
    return OverlapScore(candidate_index, frac, result.confidence, frac * result.confidence, result.confident,
                        result.reason, result.n_inliers)


def view_overlap(image_a: Image, image_b: Image, *, method: str = "auto", max_side: int = 1024,
                 config: Config | None = None, candidate_index: int = 0) -> OverlapScore:
    """Match a to b and report the fraction of a's footprint inside b (0 when the match is not confident)."""
    return overlap_from_match(match_views(image_a, image_b, method=method, max_side=max_side, config=config),
                              candidate_index)


def rank_candidate_views(query: Image, candidates: Sequence[Image], *, method: str = "auto", max_side: int = 1024,
                         config: Config | None = None) -> list[OverlapScore]:
    """Overlap of the query with each candidate, best first (confident before not confident, then by score).

    ``method="auto"`` matches every candidate with SIFT, then (only when no candidate is confident) with SIFT at
    the coarse size, then with the (slower) learned matcher: one clear overlap costs no learned matching.
    """
    if not candidates:
        raise ToolError("rank_candidate_views needs at least one candidate image")
    passes = [("sift", max_side), ("sift", coarse_side(max_side)), ("aliked", max_side)] if method == "auto" \
        else [(method, max_side)]
    for m, side in passes:  # the next pass runs only when no candidate was confident
        scores = [view_overlap(query, c, method=m, max_side=side, config=config, candidate_index=i)
                  for i, c in enumerate(candidates)]
        if any(s.confident for s in scores):
            break
    return sorted(scores, key=lambda s: (s.confident, s.score, s.match_confidence), reverse=True)


# ---- visibility of image a's regions in image b -------------------------------------------------------------
# An object of a is hidden in b when b shows other content where the homography puts it. Whether content "differs"
# is judged against the region's own surroundings: the ground just around the region is (almost always) seen in
# both views, so its a→b residual measures what registration, relief, blur, exposure and noise alone leave there.
# A visible region leaves a residual of that size whatever its texture; a covered one leaves the difference of two
# unrelated contents. A correlation alone cannot tell a flat visible patch (NCC of noise ≈ 0) from a covered one.
MIN_VISIBLE = 0.5  # a region whose warped box is less than half inside image b is "outside its view"
# above a quarter of the way from "same" to "unrelated": covered (dev seeds 11, 23: visible ≤ 0.02, hidden ≥ 0.27)
MAX_CONTENT_RATIO = 0.25
INNER_MARGIN = 0.15  # share of the box trimmed on each side before comparing (drawn box outlines, labels)
RING = (0.5, 1.0)  # surroundings: the box grown by these shares of its size per side (ring's inner, outer edge)
SEARCH_PX = 4  # ± shift searched when comparing (residual misregistration, px of b)
MIN_PATCH_PX = 6  # a compared patch must be at least this many pixels on each side
NOISE_FLOOR = 1.0  # grey levels: residual floor (JPEG and sensor noise), keeps the ratio finite on clean renders
BLUR_SIGMA = 1.5  # px: both views are smoothed alike so different blur and resampling leave little residual


@dataclass
class RegionVisibility:
    """Whether one region of image a can be seen in image b."""

    id: Hashable
    visible_fraction: float  # share of the warped box inside image b (0..1)
    content_ncc: float | None  # normalised cross-correlation of warped a-patch and b-patch (None when not compared)
    visible: bool
    content_ratio: float | None = None  # 0 = residual of seen ground, 1 = of unrelated content (None: not compared)


def patch_ncc(p: np.ndarray, q: np.ndarray) -> float:
    """Zero-mean normalised cross-correlation (−1..1) of two same-shape grey patches; 0 for a flat patch."""
    p, q = p.astype(float).ravel(), q.astype(float).ravel()
    p, q = p - p.mean(), q - q.mean()
    den = float(np.sqrt((p @ p) * (q @ q)))
    return float(p @ q / den) if den > 1e-9 else 0.0


def shifted_ncc(template: np.ndarray, image: np.ndarray, top_left: tuple[int, int], search_px: int) -> float:
    """Best NCC of ``template`` placed in ``image`` within ±``search_px`` of ``top_left`` (x, y): absorbs the
    few-pixel misregistration a ground-plane homography leaves on relief (trees, buildings)."""
    x, y = top_left
    h, w = template.shape[:2]
    x0, y0 = max(0, x - search_px), max(0, y - search_px)
    x1, y1 = min(image.shape[1], x + w + search_px), min(image.shape[0], y + h + search_px)
    window = image[y0:y1, x0:x1]
    if window.shape[0] < h or window.shape[1] < w or float(template.std()) < 1e-6:
        return 0.0
    return float(cv2.matchTemplate(window.astype(np.float32), template.astype(np.float32), cv2.TM_CCOEFF_NORMED).max())


def _grow(box: np.ndarray, share: float) -> np.ndarray:
    """Box grown by ``share`` of its width/height on each side (negative shrinks)."""
    w, h = box[2] - box[0], box[3] - box[1]
    return box + np.array([-share * w, -share * h, share * w, share * h])


def _inner(box: np.ndarray, margin: float) -> np.ndarray:
    return _grow(box, -margin)


def _shifted_crops(gb: np.ndarray, origin: tuple[int, int], shape: tuple[int, int], search_px: int):
    """Crops of ``gb`` of ``shape`` (h, w) at every shift within ±``search_px`` of ``origin`` (x, y) that fits."""
    x, y = origin
    h, w = shape
    for dy in range(-search_px, search_px + 1):
        for dx in range(-search_px, search_px + 1):
            x0, y0 = x + dx, y + dy
            if 0 <= x0 and 0 <= y0 and x0 + w <= gb.shape[1] and y0 + h <= gb.shape[0]:
                yield gb[y0:y0 + h, x0:x0 + w]


def _fit_ring(wa: np.ndarray, gb: np.ndarray, ring: np.ndarray, origin: tuple[int, int]) -> tuple[float, float, float]:
    """Gain, offset (a → b grey levels, exposure) and mean squared residual of the surroundings ring at its best
    shift: the residual that registration, relief, blur and noise leave on content seen in both views.
    By hand: a masked (ring-shaped) comparison with a photometric fit, which ``cv2.matchTemplate`` does not offer."""
    av = wa[ring].astype(float)
    design = np.column_stack([av, np.ones_like(av)])
    best = (1.0, 0.0, np.inf)
    for crop in _shifted_crops(gb, origin, wa.shape, SEARCH_PX):
        bv = crop[ring].astype(float)
        keep = np.ones(len(bv), bool)
        for _ in range(2):  # least squares, then again without pixels beyond 2.5 robust sigmas (a neighbour's
            coef, *_ = np.linalg.lstsq(design[keep], bv[keep], rcond=None)  # occluder or label in the ring)
            r = bv - design @ coef
            keep = np.abs(r) <= 2.5 * 1.4826 * float(np.median(np.abs(r))) + 1e-9
        mse = float(np.mean(r[keep] ** 2))
        if mse < best[2]:
            best = (float(coef[0]), float(coef[1]), mse)
    return best


def _content_ratio(warped: np.ndarray, valid: np.ndarray, gb: np.ndarray, moved: np.ndarray,
                   inner: np.ndarray) -> float | None:
    """Where the region's residual lies between "same content" (0: the surroundings' residual) and "unrelated
    content" (1: the residual of a's region against b's region paired at random, i.e. both variances plus the
    mean difference); None when a part is too small, leaves the warped area, or the region's content is too faint
    to tell from the noise (unrelated residual within twice the noise)."""
    hb, wb = gb.shape
    x1, y1, x2, y2 = np.clip(np.round(_grow(moved, RING[1])), 0, [wb, hb, wb, hb]).astype(int)
    if x2 - x1 < 3 * MIN_PATCH_PX or y2 - y1 < 3 * MIN_PATCH_PX:
        return None
    yy, xx = np.mgrid[y1:y2, x1:x2] + 0.5
    inside = lambda b: (xx >= b[0]) & (xx < b[2]) & (yy >= b[1]) & (yy < b[3])  # noqa: E731
    ok = valid[y1:y2, x1:x2] > 0
    core, ring = inside(inner) & ok, ~inside(_grow(moved, RING[0])) & ok
    if core.sum() < MIN_PATCH_PX ** 2 or ring.sum() < MIN_PATCH_PX ** 2:
        return None
    wa = warped[y1:y2, x1:x2].astype(float)
    gain, offset, noise = _fit_ring(wa, gb, ring, (x1, y1))
    noise = max(noise, NOISE_FLOOR ** 2)
    pred = gain * wa[core] + offset
    same = min(float(np.mean((c[core] - pred) ** 2)) for c in _shifted_crops(gb, (x1, y1), wa.shape, SEARCH_PX))
    bv = gb[y1:y2, x1:x2][core].astype(float)
    unrelated = float(bv.var() + pred.var() + (bv.mean() - pred.mean()) ** 2)
    if unrelated < 2 * noise:
        return None
    return float((same - noise) / (unrelated - noise))


def _drawn_marks(rgb: np.ndarray) -> np.ndarray:
    """uint8 0/1 mask of the region overlays drawn on image a (box outlines, label plates and their text): the
    overlay-coloured pixels of :func:`tools.regions.overlay_mask`, closed over text strokes and grown by 2 px."""
    from tools.regions.pipeline import colour_masks

    layers = colour_masks(rgb)  # only the overlay hues: bright foliage is saturated too
    m = np.any(layers, axis=0).astype(np.uint8) if layers else np.zeros(rgb.shape[:2], np.uint8)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9)))
    return cv2.dilate(m, np.ones((5, 5), np.uint8))


def region_visibility(image_a: np.ndarray, image_b: np.ndarray, regions_a: Sequence[tuple[Hashable, Box]],
                      H: np.ndarray) -> list[RegionVisibility]:
    """For each ``(id, box)`` of image a: is it inside image b (``visible_in`` ≥ ``MIN_VISIBLE``) and does image b
    show the same content there? Image a is warped into b by ``H``; the residual of the region (box trimmed by
    ``INNER_MARGIN``) is compared with the residual of the ground around it (``RING``); above
    ``MAX_CONTENT_RATIO`` times the surroundings' residual the region is hidden (something else covers it).
    ``content_ncc`` is reported for reference. Both images are RGB uint8 (H, W, 3)."""
    H = _check_H(H)
    hb, wb = image_b.shape[:2]
    ga = cv2.GaussianBlur(cv2.cvtColor(image_a, cv2.COLOR_RGB2GRAY), (0, 0), BLUR_SIGMA).astype(np.float32)
    gb = cv2.GaussianBlur(cv2.cvtColor(image_b, cv2.COLOR_RGB2GRAY), (0, 0), BLUR_SIGMA).astype(np.float32)
    warped = cv2.warpPerspective(ga, H, (wb, hb), flags=cv2.INTER_LINEAR, borderValue=0)
    valid = cv2.warpPerspective(np.ones(ga.shape, np.uint8), H, (wb, hb), flags=cv2.INTER_NEAREST, borderValue=0)
    valid = cv2.erode(valid, np.ones((3, 3), np.uint8))  # border pixels mix in the black fill
    drawn = cv2.warpPerspective(_drawn_marks(image_a), H, (wb, hb), flags=cv2.INTER_NEAREST, borderValue=0)
    usable = valid & (1 - drawn)  # content comparison only: the drawn marks are no scene content
    out = []
    for rid, box in regions_a:
        b = _check_box(box)
        frac = visible_in(b, H, (wb, hb))
        full = transfer_box(b, H, (wb, hb), "ellipse") if frac > 0 else None
        inner = transfer_box(_inner(b, INNER_MARGIN), H, (wb, hb)) if frac > 0 else None
        ncc = ratio = None
        if full is not None and inner is not None:
            x1, y1, x2, y2 = (int(round(v)) for v in inner)
            if x2 - x1 >= MIN_PATCH_PX and y2 - y1 >= MIN_PATCH_PX and valid[y1:y2, x1:x2].all():
                ncc = shifted_ncc(warped[y1:y2, x1:x2], gb, (x1, y1), SEARCH_PX)
            ratio = _content_ratio(warped, usable, gb, np.asarray(full), np.asarray(inner))
        seen = frac >= MIN_VISIBLE and (ratio is None or ratio <= MAX_CONTENT_RATIO)
        out.append(RegionVisibility(rid, frac, ncc, bool(seen), ratio))
    return out
