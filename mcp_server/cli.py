"""``uav-agent mcp``: serve every tool over stdio (default) or streamable HTTP."""

from __future__ import annotations

import typer

from mcp_server.server import TOKEN_ENV_DEFAULT


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command to the ``uav-agent`` CLI."""

    @app.command("mcp")
    def mcp_command(
        http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
        host: str = typer.Option("127.0.0.1", "--host", help="HTTP bind address (non-loopback needs a token)."),
        port: int = typer.Option(8765, "--port", help="HTTP port."),
        token_env: str = typer.Option(TOKEN_ENV_DEFAULT, "--token-env",
                                      help="Environment variable holding the bearer token clients must send."),
        root: list[str] = typer.Option([], "--root", help="Allowed image root (repeatable; default: the current "
                                       "directory or UAV_AGENT_ALLOWED_ROOTS)."),
        list_tools: bool = typer.Option(False, "--list", help="Print the tool names and descriptions, then exit."),
    ) -> None:
        """Serve the vision tools over MCP (stdio for desktop/IDE clients, --http for remote ones)."""
        from agent.config import Config
        from mcp_server import server

        if list_tools:
            from mcp_server.registry import REGISTRY

            for spec in REGISTRY.values():
                typer.echo(f"{spec.name}: {spec.description}")
            return
        config = Config.from_env(**({"allowed_roots": list(root)} if root else {}))
        if not http:
            server.run_stdio(config)
            return
        try:
            server.run_http(config, host=host, port=port, token_env=token_env)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
