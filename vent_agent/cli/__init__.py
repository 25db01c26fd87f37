"""Command line: ``vent-agent serve | review | calc | chat``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="vent-agent：矿井通风智能助手服务")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="listen address (default VENT_HOST or 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="listen port (default VENT_PORT or 8070)")] = None,
    log_level: Annotated[
        str | None, typer.Option(help="debug, info, warning (default VENT_LOG_LEVEL)")
    ] = None,
) -> None:
    """Start the HTTP service on the embedded defaults (SQLite in VENT_DATA_DIR, the demo mine)."""
    import uvicorn

    from vent_agent.app import create_app
    from vent_agent.settings import Settings

    settings = Settings()
    from vent_agent.observability.logging import configure_logging

    level = (log_level or settings.log_level).lower()
    configure_logging(settings.log_format, level.upper())
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level=level,
        log_config=None,
        loop="auto",  # uvloop where installed (a dependency except on Windows)
        http="auto",  # httptools where installed
    )


@app.command()
def review(
    plan: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="plan PDF")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Word report to write")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print only a JSON list of findings")] = False,
    force_refresh: Annotated[bool, typer.Option(help="ignore the extraction cache")] = False,
) -> None:
    """Review an air-distribution plan PDF offline; print the findings (exit 1 on critical/major)."""
    from vent_agent.cli.review import run_cli_review

    code = asyncio.run(run_cli_review(plan, output, as_json=as_json, force_refresh=force_refresh))
    raise typer.Exit(code)


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    help="Run one air-volume calculator: vent-agent calc METHOD --param value …  (--list lists them)",
)
def calc(ctx: typer.Context) -> None:
    """Pass the raw arguments to the calculator command."""
    from vent_agent.cli.calc import run_calc

    args = list(ctx.args)
    method = args.pop(0) if args and not args[0].startswith("-") else (args.pop(0) if args else "--list")
    raise typer.Exit(run_calc(method, args))


@app.command()
def chat(
    message: Annotated[str, typer.Argument(help="the question, in Chinese or English")],
    url: Annotated[str, typer.Option(envvar="VENT_URL", help="service base URL")] = "http://127.0.0.1:8070",
    token: Annotated[str, typer.Option(envvar="VENT_TOKEN", help="x-access-token")] = "demo-token",
    session: Annotated[str | None, typer.Option(help="continue this session")] = None,
    mode: Annotated[str | None, typer.Option(help="plan or full (new sessions only)")] = None,
    approve: Annotated[bool, typer.Option(help="approve a plan-mode plan without asking")] = False,
) -> None:
    """Ask the ventilation assistant; the answer streams in the terminal and survives a broken
    connection (reconnects with Last-Event-ID, or reads the history once the run has ended)."""
    from vent_agent.cli.chat import run_chat

    raise typer.Exit(
        asyncio.run(run_chat(message, url=url, token=token, session=session, mode=mode, approve=approve))
    )


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return app(args=argv if argv is not None else sys.argv[1:], prog_name="vent-agent")


def dumps(obj: Any) -> str:
    """JSON with Chinese kept readable."""
    return json.dumps(obj, ensure_ascii=False, indent=2)
