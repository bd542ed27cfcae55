"""Cross-view feature matching with robust model fitting and an overlap-aware confidence.

Backends: classical SIFT (ratio test) and ORB through OpenCV; learned ALIKED/DISK + LightGlue through kornia
(:mod:`tools.views.matchers_learned`; "aliked_rot" = rotation-trained ALIKED weights). ``method="auto"`` runs SIFT
(low-contrast mode when an image gives few keypoints), retries SIFT at half the working size, then ALIKED+LightGlue,
then ALIKED+LightGlue on quarter turns of image b (:mod:`tools.views.turns`), stopping at the first confident result. Models are fitted with OpenCV's MAGSAC (``cv2.USAC_MAGSAC``).

Conventions: pixel coordinates of the full-resolution inputs (origin top-left, x right, y down) even though
features are found on images downscaled to ``max_side``; ``H`` maps image a pixels to image b pixels.

Confidence (0..1) is the product of two geometric terms, each clipped to [0, 1]:
- evidence: −log10 NFA / ``NFA_DECISIVE_LOG10``, where NFA is the a-contrario "number of false alarms" of the
  inlier set (Moisan & Stival's ORSA): the expected number of model hypotheses that would gather that many
  inliers by chance if the matches were random points, given the inlier tolerance and the image area;
- spread: area of the inliers' convex hull in image a / (``SPREAD_FULL`` × area of the overlap seen in a),
  so that inliers piled in one corner of the overlap do not count as a full view-to-view fit;
and it is 0 when the homography is not physically sane (see :func:`homography_problem`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from agent.config import Config, MissingWeightsError
from tools.common import ToolError, load_image, to_full_res, to_gray
from tools.views.homography_checks import homography_problem, hull_area, log10_nfa, overlap_area_in_a, warp_points
from tools.feature_cache import WorkingView, features, remember, working_view
from tools.views.turns import QUARTER_TURNS, turned_view, unturn_points

METHODS = ("auto", "sift", "orb", "aliked", "aliked_rot", "disk")
LEARNED = ("aliked", "aliked_rot", "disk")
MODELS = ("homography", "fundamental", "essential")
RATIO_TEST = 0.8  # Lowe's ratio for SIFT/ORB nearest neighbours
SIFT_FEATURES = 4000
ORB_FEATURES = 5000
# Low-contrast imagery (thermal, hazy, upsampled) gives SIFT few keypoints at OpenCV's default contrast threshold
# (0.04). When either image yields fewer than LOW_CONTRAST_SHARE x SIFT_FEATURES, both are re-detected on
# CLAHE-equalised grey images with a 4x lower threshold. Development seed thermal pairs: 0-6 → 20-60 inliers.
LOW_CONTRAST_SHARE = 0.25
SIFT_LC_CONTRAST = 0.01
CLAHE_CLIP = 2.0  # OpenCV's CLAHE clip limit
CLAHE_TILES = 8  # tiles per side
LEARNED_MAX_SIDE = 640  # learned extractors are ~10x slower than SIFT per pixel on 2 CPU cores (ALIKED ≈ 3 s per 768 px image there)
INLIER_TOL_WORK_PX = 2.5  # MAGSAC threshold in pixels of the downscaled working image
MIN_MATCHES = 8  # fewer tentative matches cannot support a fit
MIN_INLIERS = 15  # below this no answer is "confident" whatever the statistics say
NFA_DECISIVE_LOG10 = 20.0  # NFA of 1e-20 → full evidence; the floor 0.5 below then means NFA ≤ 1e-10
SPREAD_FULL = 0.10  # inlier hull covering ≥ 10 % of the overlap counts as well spread
CONFIDENCE_FLOOR = 0.5
MIN_TEXTURE_STD = 2.0  # grey-level standard deviation below which an image is "a single colour"
MIN_SIDE_PX = 16
# Blurred or upsampled views (thermal, digital zoom) keep their detail only at coarse scales, where SIFT's
# capped feature budget is otherwise spent on fine-scale noise: "auto" retries SIFT at half the working size
# before the (much slower) learned matcher. Development seed: 0-10 → 15-40 inliers on such pairs.
COARSE_FACTOR = 0.5
MIN_COARSE_SIDE = 320

Image = str | Path | np.ndarray


@dataclass
class MatchResult:
    """Matches between image a and image b and the fitted model (all coordinates in full-resolution pixels)."""

    method: str
    model: str
    points_a: np.ndarray  # (N, 2) tentative matches in a
    points_b: np.ndarray  # (N, 2) their partners in b
    inliers: np.ndarray  # (N,) bool, inliers of the requested model
    n_matches: int
    n_inliers: int
    H: np.ndarray | None  # 3x3 homography a → b (None when absent or not sane)
    F: np.ndarray | None = None  # fundamental matrix, x_b^T F x_a = 0 (model="fundamental")
    E: np.ndarray | None = None  # essential matrix in normalised coordinates (model="essential")
    residual_px: float | None = None  # median inlier reprojection (H) or Sampson (F/E, in px) error
    confidence: float = 0.0
    confident: bool = False
    reason: str | None = None
    image_a_size: tuple[int, int] = (0, 0)  # (width, height)
    image_b_size: tuple[int, int] = (0, 0)
    timings: dict[str, float] = field(default_factory=dict)  # seconds
    tried: list[str] = field(default_factory=list)  # methods run ("auto" adds "method@max_side" per fallback)


# ---- image preparation ------------------------------------------------------------------------------------
def prepare_image(image: Image, name: str) -> np.ndarray:
    try:
        rgb = load_image(image)
    except ToolError as exc:
        raise ToolError(f"image {name}: {exc}") from exc
    if min(rgb.shape[:2]) < MIN_SIDE_PX:
        raise ToolError(f"image {name} is too small to match ({rgb.shape[1]}x{rgb.shape[0]} px)")
    if float(to_gray(rgb).std()) < MIN_TEXTURE_STD:
        raise ToolError(f"image {name} is a single colour (no texture to match)")
    return rgb


def prepare_view(image: Image | bytes, name: str, max_side: int) -> WorkingView:
    """:func:`prepare_image`'s checks on the working-size view the matcher uses (a JPEG is never decoded in full;
    views and features of files are cached per process, see :mod:`tools.feature_cache`)."""
    try:
        view = working_view(image, max_side)
    except ToolError as exc:
        raise ToolError(f"image {name}: {exc}") from exc
    w, h = view.full_size
    if min(w, h) < MIN_SIDE_PX:
        raise ToolError(f"image {name} is too small to match ({w}x{h} px)")
    if float(to_gray(view.rgb).std()) < MIN_TEXTURE_STD:
        raise ToolError(f"image {name} is a single colour (no texture to match)")
    return view


# ---- tentative matches ------------------------------------------------------------------------------------
def detect_classical(method: str, rgb: np.ndarray, n_features: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray | None]:
    """SIFT, low-contrast SIFT ("sift_lc") or ORB keypoints ((N, 2) px of ``rgb``) and descriptors (None when
    nothing was found)."""
    gray = to_gray(rgb)
    if method == "sift":
        det = cv2.SIFT_create(nfeatures=n_features or SIFT_FEATURES)
    elif method == "sift_lc":  # low-contrast mode, see LOW_CONTRAST_SHARE
        det = cv2.SIFT_create(nfeatures=n_features or SIFT_FEATURES, contrastThreshold=SIFT_LC_CONTRAST)
        gray = cv2.createCLAHE(CLAHE_CLIP, (CLAHE_TILES, CLAHE_TILES)).apply(gray)
    elif method == "orb":
        det = cv2.ORB_create(nfeatures=n_features or ORB_FEATURES)
    else:
        raise ToolError(f"not a classical method: {method!r}")
    kps, desc = det.detectAndCompute(gray, None)
    return np.array([k.pt for k in kps], float).reshape(-1, 2), desc


def match_descriptors(method: str, fa: tuple[np.ndarray, Any], fb: tuple[np.ndarray, Any]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest-neighbour matches with Lowe's ratio test between two :func:`detect_classical` outputs."""
    (ka, da), (kb, db) = fa, fb
    if da is None or db is None or len(ka) < 2 or len(kb) < 2:
        return np.zeros((0, 2)), np.zeros((0, 2))
    if method == "sift":  # approximate k-d tree search: ~5x faster than brute force at 4000 features
        matcher = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4}, {"checks": 64})
    else:
        matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    knn = matcher.knnMatch(da, db, k=2)
    good = [p[0] for p in knn if len(p) == 2 and p[0].distance < RATIO_TEST * p[1].distance]
    ia = np.array([m.queryIdx for m in good], int)
    ib = np.array([m.trainIdx for m in good], int)
    return ka[ia].reshape(-1, 2), kb[ib].reshape(-1, 2)


def _classical_features(method: str, view: WorkingView, side: int) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`detect_classical` on ``view`` at ``side`` (cached per image content, method and size)."""
    return features(view, (method, side, SIFT_FEATURES, ORB_FEATURES),
                    lambda: detect_classical(method, view.at_side(side)[0]))


def _classical_matches(method: str, a: WorkingView, b: WorkingView, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Ratio-test matches of ``a`` and ``b`` at ``side`` (cached per pair of image contents)."""
    return remember(("matches", method, side, SIFT_FEATURES, ORB_FEATURES, RATIO_TEST),
                    lambda: _match_features(method, a, b, side), a, b)


def _match_features(method: str, a: WorkingView, b: WorkingView, side: int) -> tuple[np.ndarray, np.ndarray]:
    fa, fb = _classical_features(method, a, side), _classical_features(method, b, side)
    if method == "sift" and min(len(fa[0]), len(fb[0])) < LOW_CONTRAST_SHARE * SIFT_FEATURES:
        fa, fb = _classical_features("sift_lc", a, side), _classical_features("sift_lc", b, side)  # comparable
    return match_descriptors("sift" if method == "sift_lc" else method, fa, fb)


def _working_scale(view: WorkingView, side: int) -> float:
    """Scale (working px / full px) of ``view`` at ``side``, as :meth:`WorkingView.at_side` makes it."""
    return view.scale * min(1.0, side / max(view.rgb.shape[:2]))


def _tentative(method: str, a: WorkingView, b: WorkingView, max_side: int, config: Config | None,
               timings: dict[str, float]) -> tuple[np.ndarray, np.ndarray, float]:
    """Tentative matches in full-res pixels and the working-to-full scale of image b's tolerance."""
    t0 = time.perf_counter()
    if method in LEARNED:
        from tools.views.matchers_learned import extract_learned, get_matcher, match_learned_features

        matcher = get_matcher(method, config)
        timings[f"{method}_load"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        max_side = min(max_side, LEARNED_MAX_SIDE)
    sa, sb = _working_scale(a, max_side), _working_scale(b, max_side)
    if method in LEARNED:  # seconds of CPU per image and pair: remembered per image content, like SIFT's
        what = ("learned", method, max_side, id(matcher))  # the matcher: one per weights folder

        def described(view: WorkingView) -> Any:
            return features(view, what, lambda: extract_learned(matcher, view.at_side(max_side)[0]))

        pa, pb = remember(what, lambda: match_learned_features(matcher, described(a), described(b)), a, b)
    else:
        pa, pb = _classical_matches(method, a, b, max_side)
    timings[f"{method}_match"] = time.perf_counter() - t0
    return to_full_res(pa, sa), to_full_res(pb, sb), sb


# ---- robust fitting ---------------------------------------------------------------------------------------
@dataclass
class _Fit:
    inliers: np.ndarray
    H: np.ndarray | None
    F: np.ndarray | None
    E: np.ndarray | None
    residual_px: float | None
    p_chance: float  # probability that a random match lands within the tolerance
    sample_size: int


def _homography_fit(pa: np.ndarray, pb: np.ndarray, tol: float) -> tuple[np.ndarray | None, np.ndarray]:
    if len(pa) < 4:
        return None, np.zeros(len(pa), bool)
    H, mask = cv2.findHomography(pa, pb, cv2.USAC_MAGSAC, tol, maxIters=10000, confidence=0.9999)
    if H is None or mask is None:
        return None, np.zeros(len(pa), bool)
    return H / H[2, 2] if abs(H[2, 2]) > 1e-12 else H, mask.ravel().astype(bool)


def _sampson(F: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Sampson distance (in the units of the points) of each pair to x_b^T F x_a = 0."""
    xa = np.column_stack([pa, np.ones(len(pa))])
    xb = np.column_stack([pb, np.ones(len(pb))])
    fa, fb = xa @ F.T, xb @ F
    num = np.sum(xb * fa, axis=1) ** 2
    den = fa[:, 0] ** 2 + fa[:, 1] ** 2 + fb[:, 0] ** 2 + fb[:, 1] ** 2
    return np.sqrt(num / np.maximum(den, 1e-18))


def _check_K(K: Any, name: str) -> np.ndarray:
    K = np.asarray(K, float) if K is not None else None
    if K is None or K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0:
        raise ToolError(f"model='essential' needs {name} as a 3x3 camera matrix with positive focal lengths")
    return K


def _fit(model: str, pa: np.ndarray, pb: np.ndarray, tol: float, size_b: tuple[int, int],
         K_a: Any = None, K_b: Any = None) -> _Fit:
    """Fit ``model`` with MAGSAC at tolerance ``tol`` (full-res px of b); H is fitted for every model."""
    H, h_in = _homography_fit(pa, pb, tol)
    area_b = float(size_b[0] * size_b[1])
    if model == "homography":
        res = np.linalg.norm(warp_points(H, pa[h_in]) - pb[h_in], axis=1) if H is not None and h_in.any() else []
        return _Fit(h_in, H, None, None, float(np.median(res)) if len(res) else None,
                    np.pi * tol ** 2 / area_b, 4)
    band = 2 * tol * float(np.hypot(*size_b)) / area_b  # chance of falling within tol of an epipolar line
    if len(pa) < 8:
        return _Fit(np.zeros(len(pa), bool), H, None, None, None, band, 7)
    if model == "fundamental":
        F, mask = cv2.findFundamentalMat(pa, pb, cv2.USAC_MAGSAC, tol, 0.9999, 10000)
        if F is None or F.shape != (3, 3):
            return _Fit(np.zeros(len(pa), bool), H, None, None, None, band, 7)
        inl = mask.ravel().astype(bool)
        return _Fit(inl, H, F, None, float(np.median(_sampson(F, pa[inl], pb[inl]))) if inl.any() else None,
                    band, 7)
    Ka, Kb = _check_K(K_a, "K_a"), _check_K(K_b, "K_b")
    na = cv2.undistortPoints(pa.reshape(-1, 1, 2), Ka, None).reshape(-1, 2)
    nb = cv2.undistortPoints(pb.reshape(-1, 1, 2), Kb, None).reshape(-1, 2)
    f = float(np.mean([Ka[0, 0], Ka[1, 1], Kb[0, 0], Kb[1, 1]]))
    E, mask = cv2.findEssentialMat(na, nb, np.eye(3), cv2.USAC_MAGSAC, 0.9999, tol / f)
    if E is None or E.shape != (3, 3):
        return _Fit(np.zeros(len(pa), bool), H, None, None, None, band, 5)
    inl = mask.ravel().astype(bool)
    res = float(np.median(_sampson(E, na[inl], nb[inl])) * f) if inl.any() else None
    return _Fit(inl, H, None, E, res, band, 5)


# ---- confidence -------------------------------------------------------------------------------------------
def _score(fit: _Fit, model: str, pa: np.ndarray, size_a: tuple[int, int],
           size_b: tuple[int, int]) -> tuple[float, bool, str | None, np.ndarray | None]:
    """(confidence, confident, reason, sane H or None) from geometric evidence only (see module docstring)."""
    n, k = len(pa), int(fit.inliers.sum())
    h_problem = homography_problem(fit.H, size_a)
    H = fit.H if h_problem is None else None
    if n < MIN_MATCHES:
        return 0.0, False, f"too few tentative matches ({n}); the views may not overlap", H
    if model == "homography" and h_problem is not None:
        return 0.0, False, h_problem, None
    lnfa = log10_nfa(n, k, fit.p_chance, fit.sample_size)
    evidence = float(np.clip(-lnfa / NFA_DECISIVE_LOG10, 0.0, 1.0))
    spread = hull_area(pa[fit.inliers]) / (SPREAD_FULL * overlap_area_in_a(H, size_a, size_b))
    conf = evidence * float(np.clip(spread, 0.0, 1.0))
    if k < MIN_INLIERS:
        return conf, False, f"only {k} inliers of {n} matches; the views may not overlap", H
    if evidence < CONFIDENCE_FLOOR:
        return conf, False, f"{k} inliers of {n} matches are not clearly better than chance (log10 NFA {lnfa:.1f})", H
    if conf < CONFIDENCE_FLOOR:
        return conf, False, "inliers cluster in a small part of the overlap (degenerate fit)", H
    return conf, True, None, H


# ---- public entry point -----------------------------------------------------------------------------------
def result_from_matches(method: str, model: str, pa: np.ndarray, pb: np.ndarray, tol_px: float,
                        size_a: tuple[int, int], size_b: tuple[int, int], timings: dict[str, float] | None = None,
                        K_a: Any = None, K_b: Any = None) -> MatchResult:
    """Fit ``model`` to full-res tentative matches (inlier tolerance ``tol_px`` in b) and score it."""
    timings = dict(timings or {})
    t0 = time.perf_counter()
    fit = _fit(model, pa, pb, tol_px, size_b, K_a, K_b)
    conf, ok, reason, H = _score(fit, model, pa, size_a, size_b)
    timings["fit"] = time.perf_counter() - t0
    return MatchResult(method, model, pa, pb, fit.inliers, len(pa), int(fit.inliers.sum()), H, fit.F, fit.E,
                       fit.residual_px, conf, ok, reason, size_a, size_b, timings, [method])


def _run_method(method: str, a: WorkingView, b: WorkingView, model: str, max_side: int, config: Config | None,
                K_a: Any, K_b: Any) -> MatchResult:
    timings: dict[str, float] = {}
    size_a, size_b = a.full_size, b.full_size
    pa, pb, sb = _tentative(method, a, b, max_side, config, timings)
    return result_from_matches(method, model, pa, pb, INLIER_TOL_WORK_PX / sb, size_a, size_b, timings, K_a, K_b)


def _run_turned(method: str, a: WorkingView, b: WorkingView, turns: int, model: str, max_side: int,
                config: Config | None, K_a: Any, K_b: Any) -> MatchResult:
    """:func:`_run_method` on b turned ``turns`` quarter turns counter-clockwise, its matches carried back to b's
    own pixels before the fit (see :mod:`tools.views.turns`)."""
    timings: dict[str, float] = {}
    pa, pb_turned, sb = _tentative(method, a, turned_view(b, turns), max_side, config, timings)
    pb = unturn_points(pb_turned, turns, b.full_size)
    return result_from_matches(method, model, pa, pb, INLIER_TOL_WORK_PX / sb, a.full_size, b.full_size, timings,
                               K_a, K_b)


def _retry_turned(result: MatchResult, a: WorkingView, b: WorkingView, model: str, max_side: int,
                  config: Config | None, K_a: Any, K_b: Any) -> MatchResult:
    """The learned matcher on b turned by each of :data:`QUARTER_TURNS` until one is confident; the most
    confident of ``result`` and those tried is returned (``tried`` names each as "aliked@side+turnN")."""
    best, tried, timings = result, list(result.tried), dict(result.timings)
    for turns in QUARTER_TURNS:
        second = _run_turned("aliked", a, b, turns, model, max_side, config, K_a, K_b)  # weights: checked before
        tried.append(f"aliked@{max_side}+turn{90 * turns}")
        for name, seconds in second.timings.items():
            timings[name] = timings.get(name, 0.0) + seconds
        if second.confident or second.confidence > best.confidence:
            best = second
        if best.confident:
            break
    best.timings, best.tried = timings, tried
    return best


def coarse_side(max_side: int) -> int:
    """Working size of the coarse SIFT retry: half of ``max_side``, at least ``MIN_COARSE_SIDE`` px."""
    return max(MIN_COARSE_SIDE, int(max_side * COARSE_FACTOR))


def match_views(image_a: Image | bytes, image_b: Image | bytes, *, method: str = "auto", model: str = "homography",
                max_side: int = 1024, config: Config | None = None, K_a: Any = None,
                K_b: Any = None) -> MatchResult:
    """Match two views and fit ``model`` robustly; coordinates are full-resolution pixels.

    ``method``: "sift" | "orb" | "aliked" | "aliked_rot" | "disk" | "auto" (SIFT; when it is not confident SIFT
    again at :func:`coarse_side`, then ALIKED+LightGlue, then ALIKED+LightGlue on b turned by quarter turns with
    the matches carried back to b's pixels; the first confident, else the most confident result is returned,
    ``tried`` lists what ran). ``model``: "homography" |
    "fundamental" | "essential" (needs 3x3 ``K_a``, ``K_b``). Features are found on copies downscaled so that the
    longer side is ≤ ``max_side`` px (learned backends ≤ ``LEARNED_MAX_SIDE``). Raises ``ToolError`` for bad input
    and ``agent.config.MissingWeightsError`` when a learned backend's weights are absent.
    """
    if method not in METHODS:
        raise ToolError(f"unknown matching method {method!r}; choose from {', '.join(METHODS)}")
    if model not in MODELS:
        raise ToolError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")
    if not isinstance(max_side, int) or max_side < 64:
        raise ToolError(f"max_side must be an integer ≥ 64, got {max_side!r}")
    if model == "essential":
        K_a, K_b = _check_K(K_a, "K_a"), _check_K(K_b, "K_b")
    t0 = time.perf_counter()
    a, b = prepare_view(image_a, "a", max_side), prepare_view(image_b, "b", max_side)
    load_s = time.perf_counter() - t0
    result = _run_method("sift" if method == "auto" else method, a, b, model, max_side, config, K_a, K_b)
    if method == "auto":
        for fallback, side in (("sift", coarse_side(max_side)), ("aliked", max_side)):
            if result.confident:
                break
            try:
                second = _run_method(fallback, a, b, model, side, config, K_a, K_b)
            except MissingWeightsError as exc:  # keep the classical answer (not confident) and say why
                result.reason = f"{result.reason}; learned fallback unavailable: {exc}"
                return _finish_timings(result, load_s, t0)
            timings = {**second.timings, **{k: v for k, v in result.timings.items() if k not in second.timings}}
            timings["fit"] = result.timings["fit"] + second.timings["fit"]
            tried = result.tried + [f"{fallback}@{side}"]
            if second.confident or second.confidence > result.confidence:
                result = second
            result.timings, result.tried = timings, tried
        if not result.confident:  # learned features are not rotation-invariant: try b turned by quarter turns
            result = _retry_turned(result, a, b, model, max_side, config, K_a, K_b)
    return _finish_timings(result, load_s, t0)


def _finish_timings(result: MatchResult, load_s: float, t0: float) -> MatchResult:
    result.timings["load_images"] = load_s
    result.timings["total"] = time.perf_counter() - t0
    return result
