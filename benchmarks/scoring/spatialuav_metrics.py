"""The secondary figures ``eval_spatialuav.py`` prints beside the score, per task.

``row_metrics`` gives one reply's exact-match flag and the measurements its task reports (region and pair
precision/recall/F1, box IoU/centre/size/composite, camera answer format, angle and distance errors, relative
errors, token overlap); ``summarize`` folds them into the official summary: overall and per-task score and
exact-match accuracy, bbox means, mean angle error and the share within 5/10/20°, camera answer-format counts,
"Codabench" relative errors (lower is better), macro and micro pair P/R/F1, macro region P/R/F1, token P/R/F1.
Key names follow the official JSON summary so the two can be compared field by field.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmarks.scoring.common import extract_floats, extract_ints, normalize_text, text_tokens
from benchmarks.scoring.spatialuav import (CAMERA_ANGLE_THRESHOLD_DEG, CAMERA_DISTANCE_THRESHOLD_M, bbox_parts,
                                           parse_bbox, parse_pairs, rule_of)


@dataclass
class RowMetrics:
    """One reply: its task, score, official exact-match flag and task measurements (official key names)."""

    task: str
    score: float
    correct: bool
    meta: dict[str, Any] = field(default_factory=dict)


def _prf(matched: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    p = matched / n_pred if n_pred else 0.0
    r = matched / n_ref if n_ref else 0.0
    return p, r, (0.0 if p + r == 0 else 2 * p * r / (p + r))


def _relative(abs_error: float, gt_abs: float) -> float | None:
    """Error relative to |GT|; for a GT of 0, 0 when the error is 0 too, else undefined (None)."""
    if math.isclose(gt_abs, 0.0, abs_tol=1e-12):
        return 0.0 if math.isclose(abs_error, 0.0, abs_tol=1e-12) else None
    return abs_error / gt_abs


def camera_metrics(pred: str, gt: str) -> dict[str, Any]:
    """Answer format (angle_only | angle_distance | invalid), angle error on values mod 360, distance error,
    relative errors and the Codabench final score (mean of both relative errors)."""
    p, g = extract_floats(pred), extract_floats(gt)
    out: dict[str, Any] = {"answer_format": "invalid", "angle_error": math.inf, "distance_abs_error": math.inf,
                           "angle_rel_error": None, "distance_rel_error": None, "codabench_final_score": None,
                           "codabench_valid": False}
    if len(p) != len(g) or len(g) not in (1, 2):
        return out
    gt_angle = g[0] % 360.0
    diff = abs(p[0] % 360.0 - gt_angle) % 360.0
    out.update(answer_format="angle_only" if len(g) == 1 else "angle_distance", angle_error=min(diff, 360.0 - diff))
    if len(g) == 2:
        dist = abs(p[1] - g[1])
        a_rel, d_rel = _relative(out["angle_error"], abs(gt_angle)), _relative(dist, abs(g[1]))
        valid = a_rel is not None and d_rel is not None
        out.update(distance_abs_error=dist, angle_rel_error=a_rel, distance_rel_error=d_rel, codabench_valid=valid,
                   codabench_final_score=(a_rel + d_rel) / 2.0 if valid else None)
    return out


def _bbox_meta(pred: str, gt_box: tuple[int, ...]) -> dict[str, float]:
    box = parse_bbox(pred)
    if box is None:
        return {"iou": 0.0, "center_score": 0.0, "size_score": 0.0, "combined_score": 0.0}
    iou, centre, size, combined = bbox_parts(box, gt_box)
    return {"iou": iou, "center_score": centre, "size_score": size, "combined_score": combined}


def row_metrics(task: str, pred: str, gt: str, score: float, benchmark: str = "spatialuav",
                judged: bool = False) -> RowMetrics:
    """Exact-match flag and measurements of one reply already scored ``score`` (``judged``: by a semantic judge)."""
    rule = rule_of(task, benchmark).rule
    meta: dict[str, Any] = {}
    correct = score == 1.0
    if rule == "region_set":
        ps, gs = set(extract_ints(pred)), set(extract_ints(gt))
        p, r, f = _prf(len(ps & gs), len(ps), len(gs))
        meta.update(region_precision=p, region_recall=r, region_f1=f)
        correct = ps == gs
    elif rule == "pairs":
        pc, gc = Counter(parse_pairs(pred)), Counter(parse_pairs(gt))
        matched = sum((pc & gc).values())
        p, r, f = _prf(matched, sum(pc.values()), sum(gc.values()))
        meta.update(pair_precision=p, pair_recall=r, pair_f1=f, matched_pairs=matched,
                    pred_pairs=sum(pc.values()), gt_pairs=sum(gc.values()))
        correct = pc == gc
    elif rule == "object_matching" and (gt_box := parse_bbox(gt)) is not None:
        meta.update(_bbox_meta(pred, gt_box))
    elif rule == "camera":
        meta.update(camera_metrics(pred, gt))
    elif rule in ("judge", "token_f1"):
        correct = normalize_text(pred) == normalize_text(gt)
        if judged:
            meta["semantic_score"] = score
        else:
            pt, gt_t = Counter(text_tokens(pred)), Counter(text_tokens(gt))
            p, r, f = _prf(sum((pt & gt_t).values()), sum(pt.values()), sum(gt_t.values()))
            meta.update(token_precision=p, token_recall=r, token_f1=f)
    return RowMetrics(task, score, bool(correct), meta)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _pct(a: float, b: int) -> float:
    return 0.0 if b == 0 else 100.0 * a / b


def _collect(rows: list[RowMetrics], key: str) -> list:
    return [r.meta[key] for r in rows if r.meta.get(key) is not None]


def _task_summary(rows: list[RowMetrics]) -> dict[str, Any]:
    n = len(rows)
    total = sum(r.score for r in rows)
    correct = sum(r.correct for r in rows)
    out: dict[str, Any] = {"total": n, "score_pct": _pct(total, n), "score_sum": total,
                           "exact_match_accuracy_pct": _pct(correct, n), "exact_match_correct": correct}
    if boxes := _collect(rows, "combined_score"):
        out["bbox_metrics"] = {"threshold": 0.5, "mean_iou": _mean(_collect(rows, "iou")),
                               "mean_center_score": _mean(_collect(rows, "center_score")),
                               "mean_size_score": _mean(_collect(rows, "size_score")),
                               "mean_composite_score": _mean(boxes)}
    if valid := [e for e in _collect(rows, "angle_error") if math.isfinite(e)]:
        out["angle_metrics"] = {"threshold": CAMERA_ANGLE_THRESHOLD_DEG, "mean_absolute_error": _mean(valid),
                                **{f"within_{d}_deg_pct": _pct(sum(e <= d for e in valid), len(valid))
                                   for d in (5, 10, 20)}}
    formats = Counter(r.meta["answer_format"] for r in rows if "answer_format" in r.meta)
    if formats:
        out["camera_format_counts"] = {k: formats.get(k, 0) for k in ("angle_distance", "angle_only", "invalid")}
    if finals := _collect(rows, "codabench_final_score"):
        out["codabench_camera_metrics"] = {
            "final_score": _mean(finals), "distance_rel_error": _mean(_collect(rows, "distance_rel_error")),
            "angle_rel_error": _mean(_collect(rows, "angle_rel_error")), "valid_samples": len(finals),
            "invalid_samples": sum(1 for r in rows if r.meta.get("codabench_valid") is False),
            "mean_distance_abs_error": _mean([d for d in _collect(rows, "distance_abs_error") if math.isfinite(d)]),
            "distance_threshold": CAMERA_DISTANCE_THRESHOLD_M}
    if f1s := _collect(rows, "pair_f1"):
        matched, n_pred, n_gt = (sum(_collect(rows, k)) for k in ("matched_pairs", "pred_pairs", "gt_pairs"))
        mp, mr, mf = _prf(matched, n_pred, n_gt)
        out["pair_metrics"] = {"macro_precision": _mean(_collect(rows, "pair_precision")),
                               "macro_recall": _mean(_collect(rows, "pair_recall")), "macro_f1": _mean(f1s),
                               "micro_precision": mp, "micro_recall": mr, "micro_f1": mf}
    for kind in ("region", "token"):
        if values := _collect(rows, f"{kind}_f1"):
            out[f"{kind}_metrics"] = {"macro_precision": _mean(_collect(rows, f"{kind}_precision")),
                                      "macro_recall": _mean(_collect(rows, f"{kind}_recall")), "macro_f1": _mean(values)}
    if sem := _collect(rows, "semantic_score"):
        out["semantic_metrics"] = {"mean_semantic_score": _mean(sem)}
    return out


def summarize(rows: Iterable[RowMetrics]) -> dict[str, Any]:
    """The official summary: ``overall`` (score and exact-match accuracy, percent) and ``tasks`` (sorted)."""
    data = list(rows)
    by_task: dict[str, list[RowMetrics]] = defaultdict(list)
    for r in data:
        by_task[r.task].append(r)
    total, correct = sum(r.score for r in data), sum(r.correct for r in data)
    return {"total_samples": len(data),
            "overall": {"score_pct": _pct(total, len(data)), "score_sum": total,
                        "exact_match_accuracy_pct": _pct(correct, len(data)), "exact_match_correct": correct},
            "tasks": {t: _task_summary(v) for t, v in sorted(by_task.items())}}


def format_summary(summary: Mapping[str, Any]) -> list[str]:
    """Markdown lines: one row per task with score, exact match and the task's main secondary figure."""
    lines = ["| task | n | score | exact match | secondary |", "|---|---|---|---|---|"]
    for task, t in summary["tasks"].items():
        extra = []
        if "angle_metrics" in t:
            a = t["angle_metrics"]
            extra.append(f"mean angle error {a['mean_absolute_error']:.2f}°, within 5/10/20° "
                         f"{a['within_5_deg_pct']:.1f}/{a['within_10_deg_pct']:.1f}/{a['within_20_deg_pct']:.1f} %")
        if "camera_format_counts" in t:
            c = t["camera_format_counts"]
            extra.append(f"formats {c['angle_distance']} angle+distance, {c['angle_only']} angle-only, "
                         f"{c['invalid']} invalid")
        if "codabench_camera_metrics" in t:
            extra.append(f"Codabench final {t['codabench_camera_metrics']['final_score']:.4f}")
        if "bbox_metrics" in t:
            b = t["bbox_metrics"]
            extra.append(f"IoU {b['mean_iou']:.4f}, centre {b['mean_center_score']:.4f}, "
                         f"size {b['mean_size_score']:.4f}")
        for kind in ("pair", "region", "token"):
            if f"{kind}_metrics" in t:
                m = t[f"{kind}_metrics"]
                extra.append(f"{kind} P/R/F1 {m['macro_precision']:.3f}/{m['macro_recall']:.3f}/{m['macro_f1']:.3f}"
                             + (f" (micro F1 {m['micro_f1']:.3f})" if "micro_f1" in m else ""))
        lines.append(f"| {task} | {t['total']} | {t['score_pct']:.2f} | {t['exact_match_accuracy_pct']:.2f} | "
                     f"{'; '.join(extra) or '–'} |")
    return lines
