"""The ``uav-agent`` command line. Each subcommand group lives in its own module with ``register(app)``."""

from __future__ import annotations

import importlib
import os

import typer

from agent import __version__

# Modules that add subcommands (each defines ``register(app: typer.Typer) -> None`` and keeps heavy imports lazy).
COMMAND_MODULES: tuple[str, ...] = ("benchmarks.synth.cli", "mcp_server.cli", "agent.cli_ask",
                                    "benchmarks.cli")

app = typer.Typer(
    name="uav-agent",
    help="Spatial reasoning about drone (UAV) images with real vision tools.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: rendering it with rich costs ~0.3 s of imports on every --help
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"uav-agent {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """uav-spatial-agent: ask spatial questions about drone images, serve the tools over MCP, run benchmarks."""


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def use_user_cache() -> None:
    """Point model caches that would otherwise land in the working directory (ultralytics' settings and its
    first-run files) at the user's cache folder, unless the environment already says where."""
    if "YOLO_CONFIG_DIR" not in os.environ:
        from platformdirs import user_cache_dir

        path = os.path.join(user_cache_dir("uav-spatial-agent"), "ultralytics")
        os.makedirs(path, exist_ok=True)
        os.environ["YOLO_CONFIG_DIR"] = path


def main() -> None:
    use_user_cache()
    app()


if __name__ == "__main__":
    main()
