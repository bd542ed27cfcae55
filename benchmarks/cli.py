"""``uav-agent bench run|score``: run a solver over a benchmark (resumable) and score prediction files."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

SUITE_HELP = "spatialuav, bedi, open3dvqa, aircopbench, tdbench or synth."


def _label(rows: list[dict], path: Path, taken: set[str]) -> str:
    base = str(rows[0].get("solver") or path.stem) if rows else path.stem
    label, n = base, 2
    while label in taken:
        label, n = f"{base}-{n}", n + 1
    return label


def _rotations(suite: str, data: Path, asked: bool) -> bool:
    """TDBench's four-rotation protocol, unless the data are the official per-rotation TSVs (already rotated)."""
    from benchmarks.loaders.tdbench import file_rotation

    return asked and not (suite == "tdbench" and (data.is_dir() or file_rotation(data) is not None))


def register(app: typer.Typer) -> None:
    """Add the ``bench`` group (``run``, ``score``) to ``app``; heavy imports happen only when a command runs."""
    bench = typer.Typer(help="Run solvers over UAV benchmarks and score/report their predictions.",
                        no_args_is_help=True)
    app.add_typer(bench, name="bench")

    @bench.command("run")
    def run_command(
        suite: str = typer.Option(..., "--suite", help=SUITE_HELP),
        data: Path = typer.Option(..., "--data", help="Benchmark file (or BEDI folder) in the benchmark's format."),
        solver: str = typer.Option("agent", "--solver", help="agent, vlm, agent+vlm or random."),
        output: Path = typer.Option(..., "--output", help="Predictions JSONL (appended; rerun to resume)."),
        tasks: str | None = typer.Option(None, "--tasks", help="Comma-separated task names (default: all)."),
        limit: int | None = typer.Option(None, "--limit", min=1, help="First N questions only."),
        workers: int = typer.Option(1, "--workers", min=1, help="Worker processes / concurrent Ray tasks."),
        engine: str = typer.Option("process", "--engine", help="process (local pool) or ray."),
        address: str | None = typer.Option(None, "--address", help="Ray cluster address (default: start a local "
                                           "instance)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the random solver."),
        vlm_base_url: str | None = typer.Option(None, "--vlm-base-url", help="OpenAI-compatible endpoint, e.g. "
                                                "http://127.0.0.1:8000/v1 (vlm, agent+vlm)."),
        vlm_model: str | None = typer.Option(None, "--vlm-model", help="Model name at that endpoint."),
        vlm_api_key_env: str = typer.Option("OPENAI_API_KEY", "--vlm-api-key-env", help="Variable holding the key."),
        cache_dir: Path = typer.Option(Path(".cache/vlm"), "--cache-dir", help="VLM response cache folder."),
        mcp_url: str | None = typer.Option(None, "--mcp-url", help="Remote MCP tool server for the agent."),
        no_rotations: bool = typer.Option(False, "--no-rotations", help="TDBench: ask each question once only."),
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    ) -> None:
        """Solve every sample not already in --output and append its prediction row (exit 1 when every sample
        solved in this run failed, 2 on bad options or data)."""
        from benchmarks.runner import RunnerError, load_samples, run
        from benchmarks.sample import RecordError
        from benchmarks.solvers import SOLVERS, SolverSpec

        if solver not in SOLVERS:
            typer.echo(f"error: unknown solver {solver!r}; choose from {', '.join(SOLVERS)}", err=True)
            raise typer.Exit(2)
        options: dict = {"random": {"seed": seed}, "agent": {"mcp_url": mcp_url},
                         "vlm": {"base_url": vlm_base_url, "model": vlm_model, "api_key_env": vlm_api_key_env,
                                 "cache_dir": str(cache_dir)},
                         "agent+vlm": {"base_url": vlm_base_url, "model": vlm_model, "api_key_env": vlm_api_key_env,
                                       "mcp_url": mcp_url}}[solver]
        task_list = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
        try:
            samples = load_samples(suite, data, task_list, limit, rotations=_rotations(suite, data, not no_rotations))
            stats = run(samples, SolverSpec.of(solver, **options), output, workers=workers, engine=engine,
                        address=address, progress=progress)
        except (ValueError, RecordError, RunnerError, FileNotFoundError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"{stats.done} solved ({stats.errors} errors), {stats.skipped} already done, "
                   f"{stats.per_minute:.1f}/min -> {output}")
        if stats.all_failed:  # nothing was solved: say so in the exit status, not only in the rows
            typer.echo(f"error: all {stats.done} samples failed; first: {stats.first_error}", err=True)
            raise typer.Exit(1)

    @bench.command("score")
    def score_command(
        suite: str = typer.Option(..., "--suite", help=SUITE_HELP),
        predictions: list[Path] = typer.Option(..., "--predictions", help="Predictions JSONL (repeat to compare "
                                               "several runs in one report); for bedi also a folder of its own "
                                               "*_ans.json answer files."),
        data: Path | None = typer.Option(None, "--data", help="Benchmark data: targets come from it and samples "
                                         "without a prediction score 0 (default: targets stored in the rows)."),
        out: Path = typer.Option(..., "--out", help="Report folder (report.md, report.json, PNG plots)."),
        tasks: str | None = typer.Option(None, "--tasks", help="Comma-separated task names (with --data)."),
        no_rotations: bool = typer.Option(False, "--no-rotations", help="TDBench data was run without rotations."),
        judge: str = typer.Option("default", "--judge", help="Free-text judge: default (strict SpatialUAV motion: "
                                  "token F1 as the official --motion-judge-mode token_f1; otherwise MiniLM, else "
                                  "token F1) or token_f1."),
        mode: str = typer.Option("strict", "--mode", help="strict: each benchmark's own evaluation rules, quirks "
                                 "included (comparable with published numbers); lenient: our reading, for "
                                 "diagnostics."),
        seed: int = typer.Option(0, "--seed", help="Seed of AirCopBench's official random letter (strict)."),
    ) -> None:
        """Score one or more prediction files and write tables and plots; the report names the mode used."""
        from benchmarks.judge import TokenF1Judge
        from benchmarks.prediction_files import bedi_answer_rows, read_prediction_rows
        from benchmarks.report import build_report, write_report
        from benchmarks.runner import load_samples
        from benchmarks.sample import RecordError
        from benchmarks.scoring.modes import check_mode

        try:
            check_mode(mode)
            runs: dict[str, list[dict]] = {}
            for path in predictions:
                if suite == "bedi" and (path.is_dir() or path.name.endswith("_ans.json")):
                    rows = bedi_answer_rows(path)  # BEDI's own answer files: their stored Generated Answers
                else:
                    rows = read_prediction_rows(path, keep_duplicates=mode == "strict" and suite == "spatialuav")
                runs[_label(rows, path, set(runs))] = rows
            task_list = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
            # scoring needs no images: only TDBench's loader (images inside its TSV) has no check to skip
            kw = {} if suite == "tdbench" else {"check_images": False}
            samples = (load_samples(suite, data, task_list, rotations=_rotations(suite, data, not no_rotations), **kw)
                       if data else None)
            if samples is None and task_list:
                runs = {k: [r for r in v if r.get("task") in task_list] for k, v in runs.items()}
            report = build_report(runs, suite, samples, TokenF1Judge() if judge == "token_f1" else None, mode, seed)
            paths = write_report(report, out, command=shlex.join(["uav-agent", *sys.argv[1:]]))
        except (ValueError, RecordError, FileNotFoundError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        for lbl, r in report["runs"].items():
            typer.echo(f"{lbl}: overall {r['summary']['overall']:.2f} over {r['summary']['count']} samples "
                       f"({mode} scoring)")
        typer.echo(f"wrote {', '.join(str(p) for p in paths)}")
