"""``uav-agent synth``: render a ground-truth suite (SpatialUAV format) from real aerial textures."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add the ``synth`` command to ``app`` (heavy imports happen only when the command runs)."""

    @app.command("synth")
    def synth(
        out: Path = typer.Option(..., "--out", help="Output folder (annotations.jsonl, images/, manifest.json)."),
        tasks: str = typer.Option("all", "--tasks", help="Comma-separated task names, or 'all'."),
        per_task: int = typer.Option(50, "--per-task", min=1, help="Instances per task."),
        seed: int = typer.Option(0, "--seed", help="Random seed; the same seed gives the same suite."),
        tier: str = typer.Option("default", "--tier", help="Difficulty tier: easy, default or hard."),
        width: int = typer.Option(960, "--width", help="Image width in pixels."),
        height: int = typer.Option(540, "--height", help="Image height in pixels."),
        data_root: Path | None = typer.Option(None, "--data-root", help="Folder of the built-in textures "
                                              "(default ../shared/data)."),
        texture: list[Path] = typer.Option([], "--texture", help="A north-up orthophoto / nadir image to use "
                                           "instead of the built-in textures (repeatable)."),
        gsd: float | None = typer.Option(None, "--gsd", help="Metres per pixel of --texture (read from a "
                                         "GeoTIFF when omitted)."),
        annotations: Path | None = typer.Option(None, "--annotations", help="Pascal VOC boxes for a single "
                                                "--texture."),
    ) -> None:
        """Render benchmark instances whose answers are known exactly because the cameras are placed by us."""
        from benchmarks.synth.generate import TASKS, generate
        from benchmarks.synth.scene import SynthError
        from benchmarks.synth.sources import load_source
        from tools.common import ToolError

        names = list(TASKS) if tasks.strip() == "all" else [t.strip() for t in tasks.split(",") if t.strip()]
        try:
            if annotations is not None and len(texture) != 1:
                raise ValueError("--annotations needs exactly one --texture")
            sources = [load_source(p, gsd, annotations=annotations) for p in texture] or None
            path = generate(names, per_task, seed, out, tier, sources, image_size=(width, height),
                            data_root=data_root)
        except (ValueError, ToolError, SynthError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(str(path))
