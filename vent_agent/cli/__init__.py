"""Command line: ``vent-agent serve | review | calc | chat``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from vent_agent.cli.usage import PROG, existing_file, is_click_error, usage_lines

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
    plan: Annotated[Path, typer.Argument(callback=existing_file, help="配风计划 PDF 文件")],
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
    add_help_option=False,  # --help goes to run_calc: a method's own Chinese help, or the usage
    help="运行一个需风量计算器：vent-agent calc 方法名 --参数 值 …（--list 列出全部方法）",
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


def main(argv: list[str] | None = None) -> NoReturn:
    """Console-script entry point: runs the command and exits with its code.

    Usage errors (an unknown option or command, a missing or bad argument, a missing file) print one
    Chinese line and the hint to run ``--help`` on stderr, exit code 2, instead of click's English box.
    """
    args = argv if argv is not None else sys.argv[1:]
    try:
        code = app(args=args, prog_name=PROG, standalone_mode=False)
    except typer.Abort:
        print(f"{PROG}：已中止", file=sys.stderr)
        raise SystemExit(1) from None
    except Exception as exc:
        if is_click_error(exc, "NoArgsIsHelpError"):  # no command: the help (already printed by typer)
            text = str(getattr(exc, "message", "") or "")
            if text.strip():
                print(text, file=sys.stderr)
            raise SystemExit(2) from None
        if not is_click_error(exc, "ClickException"):
            raise
        lines = usage_lines(exc) if is_click_error(exc, "UsageError") else [f"{PROG} 出错：{exc}"]
        print("\n".join(lines), file=sys.stderr)
        raise SystemExit(getattr(exc, "exit_code", 1)) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def dumps(obj: Any) -> str:
    """JSON with Chinese kept readable."""
    return json.dumps(obj, ensure_ascii=False, indent=2)
