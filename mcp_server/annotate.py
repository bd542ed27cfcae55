"""Annotated PNGs returned by tools when asked (``annotate=true``): boxes with ids, clock rays, matches, arrows.

Drawing only (no geometry): every function takes what a tool already computed, in pixel coordinates of the input
image (origin top-left, x right, y down), draws on a copy and returns RGB ``uint8``. :func:`png` encodes the result,
downscaled so that its longer side is at most ``max_side`` pixels (keeps MCP messages small).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

PALETTE: tuple[tuple[int, int, int], ...] = (
    (255, 64, 64), (64, 200, 64), (64, 128, 255), (255, 200, 0), (255, 0, 255), (0, 220, 220), (255, 128, 0),
)  # fmt: skip
MAX_SIDE = 1280


def _thickness(img: np.ndarray) -> int:
    return max(2, round(max(img.shape[:2]) / 500))


def _font_scale(img: np.ndarray) -> float:
    return max(0.5, max(img.shape[:2]) / 1400)


def _pt(xy: Sequence[float]) -> tuple[int, int]:
    return int(round(float(xy[0]))), int(round(float(xy[1])))


def label(img: np.ndarray, text: str, xy: Sequence[float], color: tuple[int, int, int]) -> None:
    """Write ``text`` with a filled background whose bottom-left corner is at ``xy`` (in place)."""
    scale, thick = _font_scale(img), max(1, _thickness(img) // 2)
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = _pt(xy)
    y = max(y, h + base)
    cv2.rectangle(img, (x, y - h - base), (x + w, y), color, -1)
    cv2.putText(img, text, (x, y - base), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick, cv2.LINE_AA)


def boxes(rgb: np.ndarray, items: Sequence[tuple[str, Sequence[float]]]) -> np.ndarray:
    """Draw ``(text, [x1, y1, x2, y2])`` boxes with their text above the top-left corner."""
    out = rgb.copy()
    for i, (text, bbox) in enumerate(items):
        color = PALETTE[i % len(PALETTE)]
        cv2.rectangle(out, _pt(bbox[:2]), _pt(bbox[2:4]), color, _thickness(out))
        if text:
            label(out, text, (bbox[0], bbox[1] - 2), color)
    return out


def polygon(rgb: np.ndarray, points: np.ndarray | Sequence[Sequence[float]], text: str = "") -> np.ndarray:
    """Draw a closed polygon (e.g. a transferred box or a view footprint)."""
    out = rgb.copy()
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    cv2.polylines(out, [np.round(pts).astype(np.int32)], True, PALETTE[0], _thickness(out))
    if text and len(pts):
        label(out, text, pts[0], PALETTE[0])
    return out


def arrows(rgb: np.ndarray, segments: Sequence[tuple[Sequence[float], Sequence[float]]],
           texts: Sequence[str] = ()) -> np.ndarray:  # fmt: skip
    """Draw arrows from start to end points, with optional text at each tip."""
    out = rgb.copy()
    for i, (start, end) in enumerate(segments):
        color = PALETTE[i % len(PALETTE)]
        cv2.arrowedLine(out, _pt(start), _pt(end), color, _thickness(out), cv2.LINE_AA, tipLength=0.15)
        if i < len(texts) and texts[i]:
            label(out, texts[i], end, color)
    return out


def clock_ray(rgb: np.ndarray, anchor: Sequence[float], target: Sequence[float], hour: int) -> np.ndarray:
    """A ray from ``anchor`` to ``target`` labelled ``N o'clock``, plus a short tick towards 12 o'clock (image up)."""
    out = arrows(rgb, [(anchor, target)], [f"{hour} o'clock"])
    up_len = max(out.shape[:2]) * 0.08
    cv2.line(out, _pt(anchor), _pt((anchor[0], anchor[1] - up_len)), (255, 255, 255), _thickness(out), cv2.LINE_AA)
    cv2.circle(out, _pt(anchor), _thickness(out) * 2, (255, 255, 255), -1)
    return out


def masks(rgb: np.ndarray, mask_list: Sequence[np.ndarray], alpha: float = 0.45) -> np.ndarray:
    """Blend each bool mask (H, W) in its own colour."""
    out = rgb.astype(np.float32)
    for i, m in enumerate(mask_list):
        color = np.array(PALETTE[i % len(PALETTE)], np.float32)
        sel = np.asarray(m, bool)
        out[sel] = (1 - alpha) * out[sel] + alpha * color
    return np.clip(out, 0, 255).astype(np.uint8)


def side_by_side(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float, float, int]:
    """Both images at a common height: (canvas, scale of a, scale of b, x offset of b)."""
    h = max(a.shape[0], b.shape[0])
    sa, sb = h / a.shape[0], h / b.shape[0]
    ra = cv2.resize(a, (max(1, round(a.shape[1] * sa)), h))
    rb = cv2.resize(b, (max(1, round(b.shape[1] * sb)), h))
    return np.hstack([ra, rb]), sa, sb, ra.shape[1]


def matches(a: np.ndarray, b: np.ndarray, points_a: np.ndarray, points_b: np.ndarray,
            inliers: np.ndarray | None = None, max_lines: int = 150) -> np.ndarray:  # fmt: skip
    """Two views side by side with lines between matched points (inliers green, outliers red, at most ``max_lines``)."""
    canvas, sa, sb, off = side_by_side(a, b)
    pa = np.asarray(points_a, np.float64).reshape(-1, 2)
    pb = np.asarray(points_b, np.float64).reshape(-1, 2)
    good = np.ones(len(pa), bool) if inliers is None else np.asarray(inliers, bool)
    order = np.argsort(~good, kind="stable")[:max_lines]  # inliers first
    for i in order:
        color = (0, 220, 0) if good[i] else (255, 40, 40)
        p, q = pa[i] * sa, pb[i] * sb + (off, 0)
        cv2.line(canvas, _pt(p), _pt(q), color, 1, cv2.LINE_AA)
        cv2.circle(canvas, _pt(p), 3, color, -1)
        cv2.circle(canvas, _pt(q), 3, color, -1)
    return canvas


def summary_lines(data: dict, limit: int = 10) -> list[str]:
    """``key: value`` lines of a result's scalar values (nested dicts one level down as ``outer.key``), numbers
    rounded, at most ``limit`` lines: what a caption shows of a tool that has no picture of its own."""
    lines: list[str] = []
    for key, value in data.items():
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, v in items:
            if v is None or isinstance(v, (dict, list)):
                continue
            text = f"{v:.4g}" if isinstance(v, float) else str(v)
            lines.append(f"{key}.{sub}: {text[:60]}" if sub is not None else f"{key}: {text[:60]}")
    return lines[:limit]


def caption(rgb: np.ndarray, lines: Sequence[str]) -> np.ndarray:
    """A copy with ``lines`` written top-left, one per row, each on a filled background."""
    out = rgb.copy()
    _, h = cv2.getTextSize("Ag", cv2.FONT_HERSHEY_SIMPLEX, _font_scale(out), max(1, _thickness(out) // 2))[0]
    for i, text in enumerate(lines):
        label(out, text, (4, (i + 1) * (h * 1.6) + 4), PALETTE[3])
    return out


def png(rgb: np.ndarray, max_side: int = MAX_SIDE) -> bytes:
    """PNG bytes of an RGB image, downscaled (area interpolation) so its longer side is at most ``max_side``."""
    scale = max_side / max(rgb.shape[:2])
    if scale < 1:
        rgb = cv2.resize(rgb, (max(1, round(rgb.shape[1] * scale)), max(1, round(rgb.shape[0] * scale))),
                         interpolation=cv2.INTER_AREA)  # fmt: skip
    ok, buf = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    if not ok:
        raise RuntimeError("PNG encoding failed")
    return buf.tobytes()
