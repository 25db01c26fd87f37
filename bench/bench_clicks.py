"""Benchmark of concurrent click interpretations against the real app (a plain script, not a test).

Run: ``.venv/bin/python bench/bench_clicks.py [--n 200 500] [--chunk-delay-ms 5] [--clients 2]
[--only WORD …] [--loop uvloop|asyncio]``.

The app (:func:`vent_agent.app.create_app`, SQLite in a temp data dir, the embedded demo mine) is served
by uvicorn (httptools, on uvloop by default, as ``vent-agent serve``) on loopback; a raw-socket client
(``bench/_rawclient.py``) in ``--clients`` processes of its own opens N ``POST /api/interpret/click/tun``
streams at once (tunnels of the demo mine in turn) and reads each to the end. For each N:

- *fast, no model*: the deterministic interpretation (the baseline);
- *fast, scripted model*: fast mode, the interpretation model a scripted chat model
  (``tests/scripted_model.py``) streaming a fixed text in 4-character chunks, ``--chunk-delay-ms`` apart;
- only with ``--only plan``: *plan, scripted agent* (the click agent driven by a scripted model that loads
  the skill, queries the clicked tunnel, searches the knowledge base and writes a report) and *plan, no
  model* (the same rules with a notice).

Printed per configuration: failed streams (HTTP error, client error, ``error`` event, or not ending with
``done``), streams with a fallback notice, time to first event and total time per stream (p50/p99),
streams and events per second, and the throughput as a ratio to *fast, no model* at the same N.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import (
    LOOPS,
    ROOT,
    LoadSummary,
    print_table,
    quiet_logs,
    raise_fd_limit,
    run_on_loop,
    serve,
    summarise,
)
from _rawclient import raw_load
from langchain_core.messages import AIMessage, BaseMessage

from vent_agent.app import create_app
from vent_agent.settings import Settings

sys.path.insert(0, str(ROOT))  # tests/ is not installed: the scripted model lives there
from tests.scripted_model import ScriptedChatModel, says, tool_call  # noqa: E402

FAST_TEXT = (
    "## 巷道实时数据解读\n"
    "当前风速 1.8 m/s，在该类巷道允许风速 0.25–6 m/s 之内，符合规定；风量 420 m³/min，与计划配风量相比"
    "偏差 3%，在允许范围内。甲烷浓度 0.12%，低于 0.8% 的回风流限值；一氧化碳 2 ppm，低于 24 ppm；"
    "温度 22.5 °C，低于 26 °C。近 24 小时无报警记录，数据时间为最新。\n"
    "结论：该巷道通风状况正常，建议按班次继续巡检风门与测风站。"
)
PLAN_REPORT = (
    "## 巷道点选解读报告\n数据时间：最新。\n"
    "| 项目 | 实测 | 限值 | 结论 |\n|---|---|---|---|\n"
    "| 风速 | 1.8 m/s | 0.25–6 m/s | 符合 |\n| 甲烷 | 0.12% | < 0.8% | 符合 |\n"
    "| 一氧化碳 | 2 ppm | < 24 ppm | 符合 |\n| 温度 | 22.5 °C | < 26 °C | 符合 |\n"
    "异常与处置建议：无。依据条款见下。"
)
SKILL = re.compile(r"技能「([^」]+)」")
DATA_TOOL = re.compile(r"调用 (\w+) 查询数据")
TARGET_ID = re.compile(r"\b(tun_id|device_id)=([^）),，\s]+)")


class ScriptedClickAgentModel(ScriptedChatModel):
    """A scripted model for the click agent under concurrency: each call's answer depends on that run's
    own messages (how many tool results it holds), not on a shared call counter. Calls in order:
    ``load_skill`` (the skill named in the system prompt), the data tool of the prompt with the id of
    the request, ``query_knowledge_base``, then ``report``. Nothing is recorded in ``seen``."""

    report: str = PLAN_REPORT

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        done = sum(m.type == "tool" for m in messages)
        system = next((str(m.content) for m in messages if m.type == "system"), "")
        request = next((str(m.content) for m in messages if m.type == "human"), "")
        if done == 0 and (skill := SKILL.search(system)):
            return says("", tool_call("load_skill", {"name": skill.group(1)}))
        if done <= 1 and (tool := DATA_TOOL.search(system)) and (target := TARGET_ID.search(request)):
            return says("", tool_call(tool.group(1), {target.group(1): target.group(2)}))
        if done <= 2:
            return says("", tool_call("query_knowledge_base", {"query": "巷道 允许风速 甲烷 一氧化碳 温度"}))
        return says(self.report)


def configurations(chunk_delay_s: float) -> list[tuple[str, str, Any]]:
    """(label, mode, model factory) of each configuration; the first is the baseline. ``plan, no model``
    runs only when asked for with ``--only``."""
    return [
        ("fast, no model", "fast", lambda: None),
        ("plan, no model", "plan", lambda: None),
        (
            "fast, scripted model",
            "fast",
            lambda: ScriptedChatModel(script=[], fallback=says(FAST_TEXT), delay_s=chunk_delay_s),
        ),
        ("plan, scripted agent", "plan", lambda: ScriptedClickAgentModel(script=[], delay_s=chunk_delay_s)),
    ]


async def main(args: argparse.Namespace) -> None:
    for name in [n for n in os.environ if n.startswith("VENT_")]:
        del os.environ[name]  # never a developer's model or database
    raise_fd_limit(4 * max(args.n) + 512)
    logged = quiet_logs(logging.WARNING)
    rows = []
    seen: dict[str, int] = {}
    failures: dict[str, int] = {}
    figures: dict[tuple[str, int], LoadSummary] = {}
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(_env_file=None, data_dir=Path(tmp) / "data"))
        async with serve(app) as url:
            host, port = url.removeprefix("http://").rsplit(":", 1)[0], int(url.rsplit(":", 1)[1])
            state = app.state.vent
            tunnels = await state.source.query_tunnel_list()
            for n in args.n:
                for label, mode, factory in configurations(args.chunk_delay_ms / 1000):
                    wanted = (
                        any(word in label for word in args.only) if args.only else label.startswith("fast")
                    )
                    if not wanted:
                        continue
                    state.interpret_model = factory()
                    bodies = [
                        {"tun_id": t.tun_id, "tun_name": t.name, "mode": mode}
                        for t in (tunnels[i % len(tunnels)] for i in range(n))
                    ]
                    requests = [
                        {"method": "POST", "path": "/api/interpret/click/tun", "json": b} for b in bodies
                    ]
                    if n == args.n[0]:  # warm-up of this path: imports, skill files, compiled statements
                        await raw_load(host, port, requests[:4], concurrency=4, timeout_s=args.timeout)
                    logged.reset()
                    wall, results = await raw_load(
                        host, port, requests, concurrency=n, clients=args.clients, timeout_s=args.timeout
                    )
                    s = summarise(wall, results)
                    warnings = logged.count
                    for kind, count in s.error_kinds.items():
                        failures[f"{label}, N={n}: {kind}"] = count
                    for text, count in logged.kinds.items():
                        seen[f"{label}, N={n}: {text}"] = count
                    figures[(label, n)] = s
                    base = figures.get(("fast, no model", n), s)
                    timed_out = "TimeoutError" in s.error_kinds or "TimeoutError" in base.error_kinds
                    rows.append(
                        (
                            f"{label}, N={n}",
                            s.errors,
                            s.notices,
                            warnings,
                            s.ttfe_p50_ms,
                            s.ttfe_p99_ms,
                            s.total_p50_ms,
                            s.total_p99_ms,
                            s.streams_per_s,
                            s.events_per_s,
                            # a wall time cut by time-outs makes the rate meaningless
                            "– (time-outs)" if timed_out else f"{s.streams_per_s / base.streams_per_s:.2f}×",
                        )
                    )
                    print(f"  done: {label}, N={n} in {wall:.1f} s, {s.errors} failed", file=sys.stderr)
    print_table(
        f"Concurrent click interpretations (POST /api/interpret/click/tun, all N at once; times in ms; "
        f"scripted model chunks {args.chunk_delay_ms:g} ms apart; notices: streams that fell back to the "
        "rules or said no model is configured; warnings: server log records ≥ WARNING)",
        [
            "configuration",
            "errors",
            "notices",
            "warnings",
            "TTFE p50",
            "TTFE p99",
            "total p50",
            "total p99",
            "streams/s",
            "events/s",
            "vs fast no-model",
        ],
        rows,
    )
    if failures:
        print("Failed streams, by kind:")
        for text, count in failures.items():
            print(f"  {count}× {text}")
    if seen:
        print("Server log records ≥ WARNING, by kind:")
        for text, count in seen.items():
            print(f"  {count}× {text}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, nargs="+", default=[200, 500], help="concurrent streams")
    parser.add_argument("--clients", type=int, default=2, help="client processes sharing the streams")
    parser.add_argument("--loop", choices=LOOPS, default="uvloop", help="the server's loop")
    parser.add_argument("--chunk-delay-ms", type=float, default=5.0, help="scripted model: ms between chunks")
    parser.add_argument("--only", nargs="+", help="run the configurations whose label contains a word")
    parser.add_argument("--timeout", type=float, default=120.0, help="time-out per stream, s")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    run_on_loop(arguments.loop, main(arguments))
