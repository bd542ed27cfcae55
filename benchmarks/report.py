"""Score prediction files and write a report: Markdown + JSON tables and PNG plots.

Tables: overall, per task (with the published reference rows of ``benchmarks.published`` beside ours), per answer
format, per group, TDBench's rotation ``hit_all`` when present, and error statistics. Plots: per-task bars for
every compared run side by side (``per_task.png``) and error histograms (``errors_<kind>.png``) for angle and
distance tasks. Several prediction files (runs) can be compared in one report; each is labelled by its solver.

Error kinds (per sample, only where both prediction and target can be read): ``heading_deg`` (circular error of
the camera-transformation angle), ``distance_m`` (absolute error of its distance), ``clock_hours`` (clock-face
hours apart, 0–6), ``quantity_ratio`` (Open3D-VQA quantities, |pred/gt − 1|).
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.task_types import CLOCK_TASKS, TaskType
from benchmarks.aggregate import aggregate
from benchmarks.published import AGENT_TARGETS, NOTES, reference_rows
from benchmarks.prediction_files import sample_for_row, scoring_pairs
from benchmarks.sample import Sample
from benchmarks.scoring import ScoreResult, reply_text, score_detailed
from benchmarks.scoring.aircopbench import DEFAULT_SEED, LetterDraw
from benchmarks.scoring.modes import DEFAULT_MODE, STRICT, Mode, OfficialCrash
from benchmarks.scoring.spatialuav_metrics import format_summary, row_metrics, summarize
from benchmarks.scoring.common import extract_floats, extract_ints

ERROR_UNITS = {"heading_deg": "deg", "distance_m": "m", "clock_hours": "h", "quantity_ratio": "x"}


def score_rows(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None = None,
               judge: Any = None, mode: Mode = DEFAULT_MODE, suite: str | None = None,
               seed: int = DEFAULT_SEED) -> list[ScoreResult]:
    """Score each row with its benchmark's rules in ``mode``.

    Strict SpatialUAV (``suite`` "spatialuav") follows the official script: every row's ``prediction`` is read
    as written (already think-stripped by the official inference), targets come from the rows (``samples`` fill
    missing ones) and samples without a row are not scored. Otherwise, with ``samples`` (from the data) targets
    come from them and a sample without a row scores 0 (``metadata.missing``); without, from the rows themselves.
    An errored row scores its (empty) prediction and is flagged ``metadata.error``. AirCopBench's random letters
    (strict) come from one ``LetterDraw`` per file, in row order. A reply the official code crashes on scores 0
    with ``metadata.official_crash`` (the official script would stop there).
    """
    official_file = mode == STRICT and suite == "spatialuav"
    pairs = scoring_pairs(rows, samples, mode, suite)
    draw = LetterDraw(seed)
    out = []
    for sample, row in pairs:
        prediction = None if row is None else row.get("prediction", "")
        try:
            res = score_detailed(sample, prediction, judge, mode, raw=not official_file, draw=draw)
        except OfficialCrash as exc:
            res = ScoreResult(sample.id, sample.benchmark, sample.task, 0.0, "official_crash", "official_crash",
                              False, None, {"official_crash": str(exc)}, True, mode)
        res.metadata.update(missing=row is None, error=bool(row and row.get("error")),
                            abstained=bool(row and row.get("abstained")),
                            seconds=float(row.get("seconds", 0.0) or 0.0) if row else 0.0)
        out.append(res)
    return out


def official_metrics(pairs: Sequence[tuple[Sample, Mapping[str, Any] | None]], scored: Sequence[ScoreResult],
                     raw: bool = True) -> dict[str, Any] | None:
    """SpatialUAV's secondary figures (``benchmarks.scoring.spatialuav_metrics``) for the SpatialUAV-rule rows;
    ``pairs`` and ``scored`` in the same order (``scoring_pairs``, ``score_rows``); ``raw`` as in
    ``score_detailed``."""
    metrics = []
    for (sample, row), res in zip(pairs, scored):
        if res.benchmark not in ("spatialuav", "synth") or not res.counted or row is None:
            continue
        text = reply_text(sample, row.get("prediction", ""), res.mode, raw)
        metrics.append(row_metrics(res.task, str(text or ""), str(sample.target or ""), res.score, res.benchmark,
                                   judged=res.judge not in (None, "token_f1")))
    return summarize(metrics) if metrics else None


def sample_errors(sample: Sample, prediction: str) -> dict[str, float]:
    """Numeric errors of one prediction (see the module docstring); empty when nothing numeric applies."""
    from benchmarks.scoring.open3dvqa import to_metres
    from benchmarks.scoring.spatialuav import circular_angle_error

    gt, pred = str(sample.target), prediction or ""
    if sample.task == TaskType.A2A_CAMERA_TRANSFORMATION:
        g, p = extract_floats(gt), extract_floats(pred)
        out = {"heading_deg": circular_angle_error(p[0], g[0])} if g and p else {}
        if len(g) == 2 and len(p) >= 2:
            out["distance_m"] = abs(p[1] - g[1])
        return out
    if sample.task in CLOCK_TASKS or (sample.benchmark == "open3dvqa" and "o'clock" in gt.lower()):
        g, p = extract_ints(gt), extract_ints(pred)
        if g and p:
            d = abs(p[0] - g[0]) % 12
            return {"clock_hours": float(min(d, 12 - d))}
        return {}
    if sample.benchmark == "open3dvqa":
        g, p = to_metres(gt), to_metres(pred)
        if g and p is not None:
            return {"quantity_ratio": abs(p / g - 1.0)}
    return {}


def _error_table(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None,
                 suite: str) -> dict[str, list[float]]:
    by_id = {s.id: s for s in samples} if samples is not None else {}
    errs: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        sample = by_id.get(str(r["question_id"])) or sample_for_row(r, suite)
        if sample.target is None:
            continue
        for kind, v in sample_errors(sample, str(r.get("prediction") or "")).items():
            if math.isfinite(v):  # "1e400 degrees" reads as inf: no error to plot
                errs[kind].append(float(v))
    return dict(errs)


def _stats(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)} if values else {"n": 0}


def build_report(runs: Mapping[str, Sequence[Mapping[str, Any]]], suite: str,
                 samples: Sequence[Sample] | None = None, judge: Any = None,
                 mode: Mode = DEFAULT_MODE, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Report dict over several runs (label → prediction rows) of one suite, scored in ``mode`` (``seed``: of
    AirCopBench's official random letters)."""
    if not runs:
        raise ValueError("no prediction files to report on")
    out: dict[str, Any] = {"suite": suite, "mode": mode, "seed": seed, "runs": {}, "published": reference_rows(suite),
                           "note": NOTES.get(suite), "targets": AGENT_TARGETS if suite == "synth" else {}}
    for label, rows in runs.items():
        scored = score_rows(rows, samples, judge, mode, suite, seed)
        agg = aggregate(scored)
        secs: dict[str, list[float]] = defaultdict(list)
        for r in scored:
            secs[r.task].append(r.metadata["seconds"])
        errors = _error_table(rows, samples, suite)
        out["runs"][label] = {
            "model_id": next((str(r.get("model_id")) for r in rows if r.get("model_id")), label),
            "summary": {k: v for k, v in agg.items() if k != "per_benchmark"},
            "errors": sum(r.metadata["error"] for r in scored),
            "missing": sum(r.metadata["missing"] for r in scored),
            "abstained": sum(r.metadata["abstained"] for r in scored),
            "seconds_per_sample": {t: statistics.fmean(v) for t, v in sorted(secs.items())},
            "error_stats": {k: _stats(v) for k, v in sorted(errors.items())},
            "error_values": errors,
            "official_crashes": sum(1 for r in scored if "official_crash" in r.metadata),
            "official_metrics": official_metrics(scoring_pairs(rows, samples, mode, suite), scored,
                                                 raw=not (mode == STRICT and suite == "spatialuav")),
        }
    return out


# --- Markdown ------------------------------------------------------------------------------------------------
def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.1f}" if isinstance(v, float) else str(v)


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]


def _keyed_table(report: dict, key: str, title: str, with_published: bool = False) -> list[str]:
    labels = list(report["runs"])
    keys = sorted({k for r in report["runs"].values() for k in r["summary"].get(key, {})})
    pub = report["published"] if with_published else {}
    header = [title, "n", *labels, *(f"{p} (published)" for p in pub)]
    if with_published and report["targets"]:
        header.append("target")
    rows = []
    for k in keys:
        cells = [r["summary"].get(key, {}).get(k, {}) for r in report["runs"].values()]
        row: list[Any] = [k, max(c.get("count", 0) for c in cells), *(c.get("score") for c in cells)]
        row += [p.get(k) for p in pub.values()]
        if with_published and report["targets"]:
            row.append(report["targets"].get(k))
        rows.append(row)
    return _md_table(header, rows)


def render_markdown(report: dict, command: str | None = None) -> str:
    """The report as Markdown (scores are micro means ×100)."""
    mode = report.get("mode", DEFAULT_MODE)
    lines = [f"# Benchmark report: {report['suite']}", "",
             f"Scoring mode: **{mode}** ("
             + ("each benchmark's own evaluation rules, quirks included" if mode == STRICT
                else "our lenient reading, for diagnostics; not comparable with published numbers") + ").", ""]
    if command:
        lines += ["Produced by:", "```bash", command, "```", ""]
    lines += ["## Overall", ""]
    lines += _md_table(["run", "model_id", "n", "overall", "unparseable", "errors", "abstained", "missing", "judge"],
                       [[lbl, r["model_id"], r["summary"]["count"], r["summary"]["overall"],
                         r["summary"]["unparseable"], r["errors"], r["abstained"], r["missing"], r["summary"]["judge"]]
                        for lbl, r in report["runs"].items()])
    if report["published"]:
        lines += ["", "Published rows are the paper's results on the real SpatialUAV test set (different instances; "
                  "shown for scale)." + (" Targets: issue #8, for the agent on this suite." if report["targets"] else "")]
    lines += ["", "## Per task", "", *_keyed_table(report, "per_task", "task", with_published=True)]
    lines += ["", "## Per answer format", "", *_keyed_table(report, "per_answer_format", "answer format")]
    lines += ["", "## Per group", "", *_keyed_table(report, "per_group", "group")]
    if any("per_dataset" in r["summary"] for r in report["runs"].values()):
        for key, title in (("per_dataset", "dataset"), ("per_dataset_group", "dataset----group"),
                           ("per_dataset_task", "dataset----task")):
            lines += ["", f"## Per {title}", "", *_keyed_table(report, key, title)]
    for lbl, r in report["runs"].items():
        summ = r["summary"]
        notes = []
        if summ.get("not_scored"):
            notes.append(f"{summ['not_scored']} replies left out of the denominator as the official pipeline does")
        if summ.get("guessed"):
            notes.append(f"{summ['guessed']} unparseable replies given the official random letter; counted wrong "
                         f"instead the overall is {summ['overall_without_guesses']:.1f}")
        if summ.get("action_structure"):
            notes.append(f"BEDI action structure score {summ['action_structure']['score']:.2f} over "
                         f"{summ['action_structure']['count']} answers")
        if r.get("official_crashes"):
            notes.append(f"{r['official_crashes']} replies the official code crashes on (scored 0 here)")
        if notes:
            lines += ["", f"{lbl}: " + "; ".join(notes) + "."]
        if r.get("official_metrics"):
            lines += ["", f"## Official secondary metrics ({lbl})", "", *format_summary(r["official_metrics"])]
    rot = {lbl: r["summary"].get("rotation_hit_all") for lbl, r in report["runs"].items()}
    if any(rot.values()):
        lines += ["", "## TDBench rotation score (hit_all)", ""]
        lines += _md_table(["run", "score", "questions", "incomplete", "mean"],
                           [[lbl, v["score"], v["questions"], v["incomplete"], v.get("mean")]
                            for lbl, v in rot.items() if v])
        for lbl, v in rot.items():
            if v and v.get("table"):
                cols = ["total_questions", "hit_all", "miss_all", "rot0", "rot90", "rot180", "rot270"]
                lines += ["", f"Per category ({lbl}, VLMEvalKit's table; shares in [0, 1]):", ""]
                lines += _md_table(["category", *cols], [[cat, *(f"{e[c]:.3f}" if isinstance(e[c], float) else e[c]
                                                                  for c in cols)] for cat, e in v["table"].items()])
    kinds = sorted({k for r in report["runs"].values() for k in r["error_stats"]})
    if kinds:
        lines += ["", "## Errors (where prediction and target are both numeric)", ""]
        lines += _md_table(["run", "error", "n", "median", "mean", "max"],
                           [[lbl, f"{k} ({ERROR_UNITS[k]})", *(r["error_stats"][k].get(f)
                                                                 for f in ("n", "median", "mean", "max"))]
                            for lbl, r in report["runs"].items() for k in kinds if k in r["error_stats"]])
    lines += ["", "## Seconds per sample (wall, in the worker)", ""]
    tasks = sorted({t for r in report["runs"].values() for t in r["seconds_per_sample"]})
    secs = [[t, *(r["seconds_per_sample"].get(t) for r in report["runs"].values())] for t in tasks]
    lines += _md_table(["task", *report["runs"]], [[row[0], *("–" if v is None else f"{v:.3f}" for v in row[1:])]
                                                   for row in secs])
    if report.get("note"):
        lines += ["", f"Published: {report['note']}"]
    return "\n".join(lines) + "\n"


# --- plots ---------------------------------------------------------------------------------------------------
def plot_per_task(report: dict, path: Path) -> Path:
    """Grouped bars: per-task score of every run side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = list(report["runs"])
    tasks = sorted({t for r in report["runs"].values() for t in r["summary"]["per_task"]})
    width = 0.8 / max(1, len(labels))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(tasks) + 2), 4.5))
    x = np.arange(len(tasks))
    for i, lbl in enumerate(labels):
        per = report["runs"][lbl]["summary"]["per_task"]
        ax.bar(x + i * width - 0.4 + width / 2, [per.get(t, {}).get("score", 0.0) for t in tasks], width, label=lbl)
    ax.set_xticks(x, tasks, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("score (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"{report['suite']}: score per task")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_errors(report: dict, kind: str, path: Path) -> Path:
    """Overlaid histograms of one error kind, one per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for lbl, r in report["runs"].items():
        values = r["error_values"].get(kind) or []
        if values:
            ax.hist(values, bins=30, alpha=0.55, label=f"{lbl} (n={len(values)})")
    ax.set_xlabel(f"{kind} ({ERROR_UNITS[kind]})")
    ax.set_ylabel("samples")
    ax.set_title(f"{report['suite']}: {kind} error")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(report: dict, out_dir: str | Path, command: str | None = None) -> list[Path]:
    """Write ``report.md``, ``report.json`` (without the raw error values), ``per_task.png`` and one
    ``errors_<kind>.png`` per error kind into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "report.md"
    md.write_text(render_markdown(report, command), encoding="utf-8")
    slim = {**report, "command": command,
            "runs": {k: {f: v for f, v in r.items() if f != "error_values"} for k, r in report["runs"].items()}}
    js = out / "report.json"
    js.write_text(json.dumps(slim, indent=1, default=str) + "\n", encoding="utf-8")
    paths = [md, js, plot_per_task(report, out / "per_task.png")]
    kinds = sorted({k for r in report["runs"].values() for k in r["error_values"]})
    paths += [plot_errors(report, k, out / f"errors_{k}.png") for k in kinds]
    return paths
