"""The project's own MCP server: the plan review's four reference-data tools over any
:class:`~vent_agent.review.reference.ReferenceData` backend (FastMCP, ``mcp`` SDK).

Tools (each ``(mine, month)``, ``month`` = the plan's month ``YYYY-MM``; answers in
:mod:`vent_agent.mcp.schemas`, with JSON input and output schemas and Chinese descriptions):

- ``query_monthly_mining_plan`` — the month's faces and headings, and those that stopped;
- ``query_working_face_procedure`` — each face's 作业规程 parameters (length, height, roof control, workers);
- ``query_gas_identification_report`` — absolute CH₄ emission by location from the gas-grade report, m³/min;
- ``query_ventilation_report`` — the **latest air survey taken before the month starts** (the one the
  month's plan is drawn up from; see :func:`vent_agent.review.reference.build_months`), its date, and
  the roadways' 表6 classes.

A mine or month the backend does not have gives ``available: false`` with a reason (not an MCP error);
a malformed argument (``month`` not ``YYYY-MM``) is an MCP tool error.

Default backend: the demo mine (every month of ``vent_agent/data/demo_mine.json``), or the files of
``--reference-dir`` / ``VENT_REFERENCE_DIR`` (docs/REFERENCE_DATA.md).

Run standalone::

    python -m vent_agent.mcp.server --transport stdio
    python -m vent_agent.mcp.server --transport streamable-http --host 127.0.0.1 --port 8765   # URL …/mcp

or in-process: :func:`create_server` returns the FastMCP server; the review talks to it over in-memory
streams (:mod:`vent_agent.mcp.client`), and ``create_server(...).streamable_http_app()`` is an ASGI app
to mount (the parent's lifespan must then run ``server.session_manager.run()``).
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

from vent_agent.mcp.schemas import (
    FACE_PROCEDURE_TOOL,
    GAS_REPORT_TOOL,
    MINING_PLAN_TOOL,
    VENTILATION_REPORT_TOOL,
    FaceProcedureAnswer,
    GasReportAnswer,
    MineArg,
    MiningPlanAnswer,
    MonthArg,
    ToolAnswer,
    VentilationReportAnswer,
    face_procedure_answer,
    gas_report_answer,
    mining_plan_answer,
    ventilation_report_answer,
)
from vent_agent.review.reference import (
    MonthlyReference,
    ReferenceData,
    ReferenceFileError,
    StaticReferenceData,
    default_reference,
    same_mine,
)

log = logging.getLogger(__name__)

SERVER_NAME = "vent-agent-reference"
INSTRUCTIONS = (
    "煤矿月度配风计划审查的参考数据服务：按矿井名称与计划月份（YYYY-MM）查询月度采掘计划、工作面作业规程参数、"
    "瓦斯等级鉴定报告与测风报表（计划月份之前最近一次）。无数据时 available 为 false 并给出原因。"
)
_READ_ONLY = ToolAnnotations(
    readOnlyHint=True, idempotentHint=True, destructiveHint=False, openWorldHint=False
)
A = TypeVar("A", bound=ToolAnswer)


def _not_found(backend: ReferenceData, mine: str, month: str) -> str:
    """Why ``backend`` has nothing for (mine, month), in Chinese."""
    if isinstance(backend, StaticReferenceData):
        known = [m for m in backend.months if same_mine(mine, m.mine)]
        if known:
            months = "、".join(sorted({m.month for m in known}))
            return f"数据源中没有{mine} {month} 的数据（已有月份：{months}）"
    return f"数据源中没有矿井“{mine}”{month} 的数据"


@dataclass(frozen=True)
class ReviewTool(Generic[A]):
    """One review tool as served: its MCP ``name``, ``title`` and Chinese ``description``, the
    :class:`~vent_agent.mcp.schemas.ToolAnswer` subclass it answers (its output schema) and ``build``,
    which makes that answer from the month's reference data."""

    name: str
    title: str
    description: str
    answer: type[A]
    build: Callable[[MonthlyReference], A]


TOOLS: tuple[ReviewTool[Any], ...] = (
    ReviewTool(
        MINING_PLAN_TOOL,
        "查询月度采掘计划",
        "查询煤矿某月的月度采掘计划：本月作业的采煤工作面、掘进工作面及其状态（回采、掘进、备用、开工日期），"
        "以及本月或之前已贯通、停掘、回采结束的地点。用于核对配风计划是否列全本月采掘地点、有无已停止的地点。",
        MiningPlanAnswer,
        mining_plan_answer,
    ),
    ReviewTool(
        FACE_PROCEDURE_TOOL,
        "查询工作面作业规程参数",
        "查询煤矿某月各采煤工作面作业规程中的通风计算参数：工作面长度（m）、采高（m）、最大与最小控顶距（m）、"
        "同时作业最多人数。用于核对配风计划中的工作面参数与作业规程是否一致。",
        FaceProcedureAnswer,
        face_procedure_answer,
    ),
    ReviewTool(
        GAS_REPORT_TOOL,
        "查询瓦斯等级鉴定报告",
        "查询煤矿某月适用的瓦斯等级鉴定报告中各用风地点的瓦斯（CH₄）绝对涌出量（风排瓦斯，m³/min）。"
        "用于核对配风计划采用的瓦斯涌出量（容差 ±10%）。",
        GasReportAnswer,
        gas_report_answer,
    ),
    ReviewTool(
        VENTILATION_REPORT_TOOL,
        "查询测风报表",
        "查询煤矿在计划月份首日之前最近一次的测风报表（即编制该月配风计划所依据的测风结果）：各测风地点的平均风速"
        "（m/s）、断面积（m²）、回风流与进风流 CH₄ 浓度（%）、温度（℃），测定日期，以及巷道按《煤矿安全规程》"
        "表6的类别。用于核对实测风速与断面、按测风反算瓦斯涌出量。",
        VentilationReportAnswer,
        ventilation_report_answer,
    ),
)
"""The four review tools, in the order of :data:`~vent_agent.mcp.schemas.TOOL_NAMES`."""


def _handler(backend: ReferenceData, tool: ReviewTool[A]) -> Callable[[str, str], Awaitable[A]]:
    """The MCP handler of ``tool`` over ``backend``: the month's answer, or ``available: false`` with
    the reason (:func:`_not_found`) when the backend has no such mine and month. Its annotations are
    the ones FastMCP reads the input and output schemas from."""

    async def handler(mine: str, month: str) -> A:
        ref = await anyio.to_thread.run_sync(backend.monthly, mine, month)
        if ref is None or not same_mine(ref.mine, mine):
            reason = _not_found(backend, mine, month)
            return tool.answer(mine=mine, month=month, available=False, reason=reason)
        return tool.build(ref)

    handler.__name__ = handler.__qualname__ = tool.name
    handler.__annotations__ = {"mine": MineArg, "month": MonthArg, "return": tool.answer}
    return handler


def create_server(
    reference: ReferenceData | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    streamable_http_path: str = "/mcp",
) -> FastMCP:
    """A FastMCP server serving the four review tools over ``reference`` (default: the demo mine).

    ``host``/``port`` are used by ``run("streamable-http")``; a loopback ``host`` keeps the SDK's
    DNS-rebinding protection on (only ``localhost``/``127.0.0.1``/``[::1]`` Host headers accepted).
    The HTTP transport is stateless with JSON responses, so any worker can answer any request.
    FastMCP configures the root logger when none is set; that is undone here so that embedding the
    server does not change the service's logging.
    """
    backend = reference if reference is not None else default_reference()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        server = FastMCP(
            SERVER_NAME,
            instructions=INSTRUCTIONS,
            host=host,
            port=port,
            streamable_http_path=streamable_http_path,
            stateless_http=True,
            json_response=True,
            log_level="WARNING",
        )
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)

    for tool in TOOLS:
        server.tool(name=tool.name, title=tool.title, description=tool.description, annotations=_READ_ONLY)(
            _handler(backend, tool)
        )
    return server


def backend_from(reference_dir: Path | None) -> ReferenceData:
    """The backend to serve: the files of ``reference_dir`` when given, else the demo mine. Raises
    :class:`~vent_agent.review.reference.ReferenceFileError` naming a broken file and field."""
    if reference_dir is None:
        return default_reference()
    from vent_agent.mcp.files import load_reference_dir

    return load_reference_dir(reference_dir)


def main(argv: list[str] | None = None) -> None:
    """``python -m vent_agent.mcp.server``: run the server on stdio or streamable HTTP."""
    from vent_agent.settings import Settings

    parser = argparse.ArgumentParser(
        prog="python -m vent_agent.mcp.server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http: address to listen on")
    parser.add_argument("--port", type=int, default=8765, help="streamable-http: port")
    parser.add_argument("--path", default="/mcp", help="streamable-http: endpoint path")
    parser.add_argument(
        "--reference-dir",
        type=Path,
        default=None,
        help="reference data files (docs/REFERENCE_DATA.md); default VENT_REFERENCE_DIR, else the demo mine",
    )
    args = parser.parse_args(argv)
    reference_dir = args.reference_dir or Settings().reference_dir
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("mcp").setLevel(logging.WARNING)  # not one line per request
    try:
        backend = backend_from(reference_dir)
    except ReferenceFileError as exc:
        raise SystemExit(str(exc)) from exc
    server = create_server(backend, host=args.host, port=args.port, streamable_http_path=args.path)
    transport: Literal["stdio", "streamable-http"] = args.transport
    if transport == "streamable-http":
        log.info("MCP reference server on http://%s:%d%s", args.host, args.port, args.path)
    server.run(transport)


if __name__ == "__main__":
    main()
