"""Command line: ``vent-agent serve | review | calc | chat | network | graph rebuild | eval``."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from vent_agent.cli.usage import PROG, existing_file, is_click_error, usage_lines

app = typer.Typer(add_completion=False, no_args_is_help=True, help="vent-agent：矿井通风智能助手服务")


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="监听地址（默认取 VENT_HOST，再默认 127.0.0.1）"),
    ] = None,
    port: Annotated[int | None, typer.Option(help="监听端口（默认取 VENT_PORT，再默认 8070）")] = None,
    log_level: Annotated[
        str | None,
        typer.Option(help="日志级别：debug、info、warning（默认取 VENT_LOG_LEVEL）"),
    ] = None,
) -> None:
    """启动 HTTP 服务（内置默认配置：VENT_DATA_DIR 下的 SQLite、示范煤矿）。"""
    import uvicorn

    from vent_agent.cli.listen import ServeError, bind_listener, load_settings
    from vent_agent.cli.preflight import prepare
    from vent_agent.observability.logging import configure_logging

    # before anything starts: a bad setting or a port in use is one Chinese line, exit 2; a database
    # that cannot be reached or is stamped by a newer release, exit 3
    sock: socket.socket | None = None
    try:
        settings = load_settings()
        listen_host = host if host is not None else settings.host
        listen_port = port if port is not None else settings.port
        sock = bind_listener(listen_host, listen_port)
        prepare(settings)  # before logging is configured: a refusal is the one line below, nothing else
    except ServeError as err:
        if sock is not None:
            sock.close()
        print(f"{PROG} serve 出错：{err}", file=sys.stderr)
        raise typer.Exit(err.exit_code) from None
    level = (log_level or settings.log_level).lower()
    configure_logging(settings.log_format, level.upper())
    from vent_agent.app import create_app  # after the checks: the app's imports take seconds

    config = uvicorn.Config(
        create_app(settings),
        host=listen_host,
        port=listen_port,
        log_level=level,
        log_config=None,
        loop="auto",  # uvloop where installed (a dependency except on Windows)
        http="auto",  # httptools where installed
    )
    server = uvicorn.Server(config)
    shown = f"[{listen_host}]" if ":" in listen_host else listen_host
    logging.getLogger("vent_agent.cli").info("listening on http://%s:%d (Ctrl+C to stop)", shown, listen_port)
    server.run(sockets=[sock])  # the socket bound above (uvicorn then logs no address of its own)
    if not server.started:  # the app's start-up failed (logged): uvicorn.run's exit code
        raise typer.Exit(3)


@app.command()
def review(
    plan: Annotated[Path, typer.Argument(callback=existing_file, help="配风计划 PDF 文件")],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="写出 Word 审查报告的路径"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="只输出审查发现的 JSON 列表")] = False,
    force_refresh: Annotated[bool, typer.Option(help="不用已缓存的文字提取结果，重新读取 PDF")] = False,
) -> None:
    """离线审查一份配风计划 PDF，输出审查发现（有严重或重大问题时退出码为 1）。"""
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
    message: Annotated[str, typer.Argument(help="要问的问题")],
    url: Annotated[str, typer.Option(envvar="VENT_URL", help="服务地址")] = "http://127.0.0.1:8070",
    token: Annotated[
        str, typer.Option(envvar="VENT_TOKEN", help="访问令牌（x-access-token）")
    ] = "demo-token",
    session: Annotated[str | None, typer.Option(help="继续这个会话")] = None,
    mode: Annotated[str | None, typer.Option(help="权限模式：plan 或 full（只用于新会话）")] = None,
    approve: Annotated[bool, typer.Option(help="计划模式下不询问，直接批准执行计划")] = False,
) -> None:
    """向通风对话助手提问：回答在终端中流式显示；连接中断时用 Last-Event-ID 重连，运行已结束时从历史读取。"""
    from vent_agent.cli.chat import run_chat

    raise typer.Exit(
        asyncio.run(run_chat(message, url=url, token=token, session=session, mode=mode, approve=approve))
    )


def _add_network_commands() -> None:
    from vent_agent.cli.network import network_app

    app.add_typer(
        network_app,
        name="network",
        help="通风网络解算：solve（解算）、what-if（调整后会怎样）与 fit（风阻反演）",
    )


_add_network_commands()


graph_app = typer.Typer(no_args_is_help=True, help="溯源图（任务链与引用链）")
app.add_typer(graph_app, name="graph")


@graph_app.command("rebuild")
def graph_rebuild() -> None:
    """按事件日志重建溯源图（图表丢失或 Neo4j 落后时运行；服务可以在运行中）。"""
    from vent_agent.cli.graph import run_rebuild
    from vent_agent.cli.listen import ServeError, load_settings

    try:
        settings = load_settings()
    except ServeError as err:
        print(f"{PROG} graph rebuild 出错：{err}", file=sys.stderr)
        raise typer.Exit(2) from None
    raise typer.Exit(asyncio.run(run_rebuild(settings)))


@app.command(name="eval")
def eval_(
    out: Annotated[
        Path | None, typer.Option("--out", help="写出 REPORT.md 与 results.json 的目录（默认临时目录）")
    ] = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="离线：回放录制的模型轨迹，不连接任何模型，忽略环境设置")
    ] = False,
    model: Annotated[str | None, typer.Option("--model", help="评测的模型（VENT_MODELS 中的名称）")] = None,
    case: Annotated[
        list[str] | None, typer.Option("--case", help="只运行这些用例（可重复）；此时不做审查评测与基线比较")
    ] = None,
    url: Annotated[
        str | None, typer.Option("--url", help="评测运行中的服务（默认在本进程内启动服务）")
    ] = None,
    review: Annotated[bool, typer.Option("--review/--no-review", help="是否评测配风计划审查")] = True,
    ocr: Annotated[bool, typer.Option("--ocr", help="扫描件重新 OCR（默认离线用录制的识别结果）")] = False,
    write_baseline: Annotated[
        bool, typer.Option("--write-baseline", help="以本次结果改写 evals/baseline.json")
    ] = False,
    judge: Annotated[
        bool,
        typer.Option("--judge", help="确定性检查之外，再由配置的模型评审回答（需 VENT_MODELS，离线不可用）"),
    ] = False,
) -> None:
    """运行评测用例（evals/cases.yaml）与审查评测，写出报告；有类别低于基线时退出码为 1。"""
    from vent_agent.cli.eval import run_cli_eval
    from vent_agent.evals.run import EvalOptions

    if offline and (model or url or judge):
        print(f"{PROG} eval 出错：--offline 不能与 --model、--url 或 --judge 同用", file=sys.stderr)
        raise typer.Exit(2)
    opts = EvalOptions(
        out=out or Path(tempfile.mkdtemp(prefix="vent-eval-")),
        offline=offline,
        model=model,
        url=url,
        case_ids=list(case or []),
        review=review,
        ocr=ocr,
        write_baseline=write_baseline,
        judge=judge,
    )
    raise typer.Exit(run_cli_eval(opts))


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
