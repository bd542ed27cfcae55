"""``uav-agent mcp``: serve every tool over stdio (default) or streamable HTTP.

Allowed roots are explicit: ``--root`` (repeatable) or ``UAV_AGENT_ALLOWED_ROOTS``; without either the working
directory is served, but only when that is safe (not ``/``, not the home folder or a folder above it) and it is
said on stderr. An empty or nonexistent root is refused before the server starts. Imports of the MCP SDK and the
tools happen only when the command runs, so ``uav-agent --help`` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

TOKEN_ENV_DEFAULT = "UAV_AGENT_MCP_TOKEN"  # same value as mcp_server.server.TOKEN_ENV_DEFAULT (not imported: slow)


def unsafe_default_root(cwd: Path) -> str | None:
    """Why ``cwd`` must not be served by default (the filesystem root, the home folder or above it), else None."""
    cwd, home = cwd.resolve(), Path.home().resolve()
    if cwd == Path(cwd.anchor):
        return "it is the filesystem root"
    if cwd == home or home.is_relative_to(cwd):
        return "it is the home folder or contains it"
    return None


def choose_roots(given: list[str], env_roots: list[str], cwd: Path) -> tuple[list[str], str]:
    """The roots to serve and a sentence saying where they came from; ValueError with the fix when none is safe."""
    from mcp_server.images import RequestError, check_roots

    roots, source = (given, "--root") if given else (env_roots, "UAV_AGENT_ALLOWED_ROOTS")
    if not roots and os.environ.get("UAV_AGENT_ALLOWED_ROOTS") is None:
        why = unsafe_default_root(cwd)
        if why:
            raise ValueError(f"not serving the working directory {cwd} by default: {why}; pass --root FOLDER "
                             "(repeatable) or set UAV_AGENT_ALLOWED_ROOTS")  # fmt: skip
        roots, source = [str(cwd)], "the working directory (default; choose with --root)"
    if not roots:
        raise ValueError("no allowed root: UAV_AGENT_ALLOWED_ROOTS is empty; pass --root FOLDER")
    try:
        resolved = check_roots(roots)
    except RequestError as exc:
        raise ValueError(str(exc)) from None
    return [str(r) for r in resolved], source


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command to the ``uav-agent`` CLI."""

    @app.command("mcp")
    def mcp_command(
        http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
        host: str = typer.Option("127.0.0.1", "--host", help="HTTP bind address (non-loopback needs a token)."),
        port: int = typer.Option(8765, "--port", help="HTTP port."),
        token_env: str = typer.Option(TOKEN_ENV_DEFAULT, "--token-env",
                                      help="Environment variable holding the bearer token clients must send."),
        root: list[str] = typer.Option([], "--root", help="Folder whose images clients may name by path "
                                       "(repeatable; default UAV_AGENT_ALLOWED_ROOTS, else the working directory "
                                       "unless it is / or your home folder)."),
        call_timeout: float | None = typer.Option(None, "--call-timeout", min=0.1, help="Seconds a tool call may "
                                                  "run before it is stopped (default 120; UAV_AGENT_CALL_TIMEOUT_S)."),
        workers: int | None = typer.Option(None, "--workers", min=1, help="Worker processes running tool calls "
                                           "(default 2; UAV_AGENT_TOOL_WORKERS)."),
        list_tools: bool = typer.Option(False, "--list", help="Print the tool names and descriptions, then exit."),
    ) -> None:
        """Serve the vision tools over MCP (stdio for desktop/IDE clients, --http for remote ones)."""
        from agent.config import Config

        if list_tools:
            from mcp_server.catalog import REGISTRY
            from mcp_server.server import SERVER_TOOLS

            for spec in REGISTRY.values():
                typer.echo(f"{spec.name}: {spec.description}")
            for name in SERVER_TOOLS:
                typer.echo(f"{name}: (server) the allowed roots and limits")
            return
        overrides: dict = {}
        if call_timeout is not None:
            overrides["call_timeout_s"] = call_timeout
        if workers is not None:
            overrides["tool_workers"] = workers
        config = Config.from_env(**overrides)
        try:
            config.allowed_roots, source = choose_roots(list(root), config.allowed_roots, Path.cwd())
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"uav-agent mcp: allowed roots {', '.join(config.allowed_roots)} ({source})", err=True)
        from mcp_server import server

        if not http:
            server.run_stdio(config)
            return
        try:
            server.run_http(config, host=host, port=port, token_env=token_env)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
