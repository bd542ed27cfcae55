"""Run a solver over benchmark samples and write SpatialUAV-style prediction rows (JSONL), resumably.

Row: ``question_id, question, gt, prediction, raw_prediction, source, image, model_id`` (SpatialUAV's prediction
format; ``prediction`` is ``raw_prediction`` without ``<think>…</think>``) plus ``benchmark, task, options,
metadata`` (what scoring needs, so a file can be scored without the data), ``solver, trace, timings, seconds,
worker`` and ``error`` (``None``, or ``"Type: message"`` when solving failed; the run goes on).

Resumption: rows are appended and flushed as they finish. Restarting the same command reads the file, drops a torn
last line (a kill mid-write), skips every sample with an error-free row and runs the rest (failed samples are
retried; readers take the last row per ``question_id``). Engines: ``inline`` (this process), ``process`` (a local
process pool; the solver is built once per worker by the pool initializer) and ``ray`` (Ray tasks on an existing
cluster at ``address``, or on a local instance started and shut down here; each Ray worker process builds the
solver once and keeps it). Image paths must be readable from every worker.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.sample import Sample
from benchmarks.scoring.common import strip_think
from benchmarks.solvers import Solver, SolverSpec, make_solver, prompt

ENGINES = ("process", "ray", "inline")
SCORING_METADATA = ("question_index", "rotation", "question_type", "qa_info", "image_size", "answer_type")
INIT_ERROR = "SolverInitError"
_WORKER: dict[str, Any] = {"spec": None, "solver": None, "loads": 0, "error": None}


class RunnerError(RuntimeError):
    """The run cannot go on (the solver cannot be built, an engine is unavailable, a bad output file)."""


@dataclass
class RunStats:
    """What one ``run`` did. ``wall_s``: from the start of solving to the last row written (seconds);
    ``first_error``: the error of the first failed row (``None`` when none failed)."""

    total: int
    skipped: int
    done: int
    errors: int
    wall_s: float
    first_error: str | None = None

    @property
    def all_failed(self) -> bool:
        """Every sample solved in this run failed (a broken endpoint or solver, not a hard benchmark)."""
        return self.done > 0 and self.errors == self.done

    @property
    def per_minute(self) -> float:
        return 60.0 * self.done / self.wall_s if self.wall_s > 0 else 0.0


# --- samples --------------------------------------------------------------------------------------------------
def select(samples: Sequence[Sample], tasks: Iterable[str] | None = None, limit: int | None = None) -> list[Sample]:
    """Samples of the given tasks (all when ``None``), then the first ``limit`` questions; the rotated copies of a
    TDBench question (same ``metadata.question_index``) count as one question and stay together."""
    wanted = set(tasks) if tasks else None
    out = [s for s in samples if wanted is None or s.task in wanted]
    if wanted and not out:
        known = sorted({s.task for s in samples})
        raise ValueError(f"no samples of task(s) {sorted(wanted)}; tasks in this data: {', '.join(known)}")
    if limit is None:
        return out
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    keys: dict[str, None] = {}
    kept = []
    for s in out:
        key = str(s.metadata.get("question_index", s.id))
        if key not in keys and len(keys) >= limit:
            continue
        keys[key] = None
        kept.append(s)
    return kept


def load_samples(suite: str, data: str | Path, tasks: Iterable[str] | None = None, limit: int | None = None,
                 rotations: bool = True, **loader_kw: Any) -> list[Sample]:
    """Load a suite with ``benchmarks.loaders.load`` (TDBench with its four-rotation protocol unless
    ``rotations=False``) and ``select`` tasks and a limit."""
    from benchmarks.loaders import load

    if suite == "tdbench":
        loader_kw.setdefault("rotations", rotations)
    return select(load(suite, data, **loader_kw), tasks, limit)


# --- rows -----------------------------------------------------------------------------------------------------
def prediction_row(sample: Sample, spec: SolverSpec, model_id: str, raw: str | None, *, trace: list | None = None,
                   timings: dict | None = None, extra: dict | None = None, seconds: float = 0.0,
                   error: str | None = None) -> dict[str, Any]:
    """One prediction row (see the module docstring)."""
    raw = raw or ""
    meta = {k: sample.metadata[k] for k in SCORING_METADATA if k in sample.metadata}
    return {
        "question_id": sample.id, "question": prompt(sample), "gt": sample.target, "prediction": strip_think(raw),
        "raw_prediction": raw, "source": str(sample.metadata.get("source") or sample.benchmark),
        "image": list(sample.images), "model_id": model_id, "benchmark": sample.benchmark, "task": sample.task,
        "options": dict(sample.options), "metadata": meta, "solver": spec.name, **(extra or {}),
        "trace": trace or [], "timings": timings or {}, "seconds": round(seconds, 4),
        "worker": {"pid": os.getpid(), "solver_loads": _WORKER["loads"]}, "error": error,
    }


def sample_from_row(row: dict[str, Any]) -> Sample:
    """The scoring-relevant ``Sample`` stored in a row (no data folder needed)."""
    try:
        return Sample(id=str(row["question_id"]), benchmark=row["benchmark"], task=row["task"],
                      images=list(row.get("image") or []), question=row.get("question", ""), target=row["gt"],
                      options=dict(row.get("options") or {}), metadata=dict(row.get("metadata") or {}))
    except KeyError as exc:
        raise ValueError(f"prediction row {row.get('question_id', '?')!r} lacks {exc.args[0]!r}") from None


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a predictions file, last row per ``question_id`` wins; a torn (unterminated) last line is ignored.

    ``ValueError`` naming the line for a malformed complete line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"predictions file not found: {path}")
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not text.endswith("\n"):
        lines = lines[:-1]  # unterminated: a write cut short by a kill
    rows: dict[str, dict[str, Any]] = {}
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows[str(row["question_id"])] = row
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{no}: not a prediction row ({exc})") from None
    return list(rows.values())


def _prepare_output(path: Path) -> set[str]:
    """Ids already finished without error; truncates a torn last line so appends start on a fresh line."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        return set()
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
    return {str(r["question_id"]) for r in read_rows(path) if not r.get("error")}


# --- workers --------------------------------------------------------------------------------------------------
def init_worker(spec: SolverSpec) -> None:
    """Build the solver for this process once (pool initializer; Ray workers call it on first use)."""
    if _WORKER["spec"] == spec and (_WORKER["solver"] is not None or _WORKER["error"]):
        return
    _WORKER.update(spec=spec, solver=None, error=None)
    try:
        _WORKER["solver"] = make_solver(spec)
        _WORKER["loads"] += 1
    except Exception as exc:  # reported on the first sample; the runner stops the run with this message
        _WORKER["error"] = f"{type(exc).__name__}: {exc}"


def solve_one(spec: SolverSpec, sample: Sample) -> dict[str, Any]:
    """Solve one sample with this process's solver; any exception becomes the row's ``error``."""
    init_worker(spec)
    solver: Solver | None = _WORKER["solver"]
    if solver is None:
        return prediction_row(sample, spec, "", None, error=f"{INIT_ERROR}: {_WORKER['error']}")
    t0 = time.perf_counter()
    try:
        sol = solver.solve(sample)
    except Exception as exc:  # a failing sample is recorded and the run goes on
        return prediction_row(sample, spec, solver.model_id, None, seconds=time.perf_counter() - t0,
                              error=f"{type(exc).__name__}: {exc}")
    return prediction_row(sample, spec, solver.model_id, sol.raw, trace=sol.trace, timings=sol.timings,
                          extra=sol.extra, seconds=time.perf_counter() - t0)


def _init_pool_worker(spec: SolverSpec) -> None:
    """Pool initializer: one OCR thread per worker process (the workers already use every core), then the solver."""
    os.environ.setdefault("UAV_AGENT_OCR_THREADS", "1")
    init_worker(spec)


def _inline(samples: list[Sample], spec: SolverSpec, workers: int, address: str | None) -> Iterator[dict]:
    for s in samples:
        yield solve_one(spec, s)


def _process(samples: list[Sample], spec: SolverSpec, workers: int, address: str | None) -> Iterator[dict]:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawn: the parent may hold threads (tqdm, torch) that fork would copy in a broken state
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"), initializer=_init_pool_worker,
                             initargs=(spec,)) as pool:
        futures = [pool.submit(solve_one, spec, s) for s in samples]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            for fut in futures:
                fut.cancel()


def _ray(samples: list[Sample], spec: SolverSpec, workers: int, address: str | None) -> Iterator[dict]:
    try:
        import ray
    except ImportError:
        raise RunnerError("engine 'ray' needs the ray package (pip install ray)") from None
    started = not ray.is_initialized()
    if started:
        kw: dict[str, Any] = {"address": address} if address else {"num_cpus": workers}
        ray.init(include_dashboard=False, log_to_driver=False, **kw)
    remote = ray.remote(num_cpus=1)(solve_one)
    try:
        todo, pending = list(samples), []
        while todo or pending:
            while todo and len(pending) < 2 * workers:  # bounded in-flight: results stream back as they finish
                pending.append(remote.remote(spec, todo.pop(0)))
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        if started:
            ray.shutdown()


_ENGINES = {"inline": _inline, "process": _process, "ray": _ray}


def run(samples: Sequence[Sample], spec: SolverSpec, output: str | Path, *, workers: int = 1,
        engine: str = "process", address: str | None = None, progress: bool = True) -> RunStats:
    """Solve every sample not yet finished in ``output`` and append its row; see the module docstring.

    ``workers`` processes (``process``) or concurrent Ray tasks (``ray``); ``process`` with one worker runs inline.
    ``RunnerError`` when the solver cannot be built (nothing is written for that sample).
    """
    if engine not in _ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate sample ids: resumption needs unique ids")
    out = Path(output)
    done_ids = _prepare_output(out)
    todo = [s for s in samples if s.id not in done_ids]
    if engine == "process" and workers == 1:
        engine = "inline"
    from tqdm import tqdm

    errors, first_error, t0 = 0, None, time.perf_counter()
    t_last = t0  # wall time ends at the last row: a pool may wait on exit for tool threads that timed out
    bar = tqdm(total=len(todo), unit="sample", desc=f"{spec.name}", disable=not progress, smoothing=0.1)
    with out.open("a", encoding="utf-8") as fh, bar:
        for row in _ENGINES[engine](todo, spec, workers, address):
            if str(row.get("error") or "").startswith(INIT_ERROR):
                raise RunnerError(f"solver {spec.name!r} could not be built: {row['error'][len(INIT_ERROR) + 2:]}")
            fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            fh.flush()
            errors += bool(row.get("error"))
            first_error = first_error or row.get("error")
            t_last = time.perf_counter()
            bar.update(1)
            bar.set_postfix(errors=errors, refresh=False)
    return RunStats(len(samples), len(samples) - len(todo), len(todo), errors, t_last - t0, first_error)
