"""Reading the benchmark's ``topology.csv`` and posing it (the networks README of the shared data):
columns ``edge_id, name, from, to, r_N_s2_m8, adjust_r, is_fan, a0_Pa, a1_Pa_s_m3, a2_Pa_s2_m6``; a
branch's R is ``r`` and its added resistance (doors, regulators) ``adjust_r``. Also a survey's
measurements (通风阻力测定) in the columns of the benchmark's solutions: ``edge_id, q_m3_s, h_Pa``."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ventnet.errors import NetworkError, quoted
from ventnet.network import MAX_FLOW, Branch, FanCurve, Network

COLUMNS = (
    "edge_id",
    "name",
    "from",
    "to",
    "r_N_s2_m8",
    "adjust_r",
    "is_fan",
    "a0_Pa",
    "a1_Pa_s_m3",
    "a2_Pa_s2_m6",
)


def read_topology(text: str) -> list[Branch]:
    """The branches of a topology CSV's text.

    Raises :class:`NetworkError` (Chinese, naming the row) on a missing column or a value that is not a
    finite number, and on text that is not CSV (a field over the csv module's limit, a stray quote).
    """
    with _as_network_error("拓扑 CSV"):
        return _topology_rows(text)


@contextmanager
def _as_network_error(what: str) -> Iterator[None]:
    """Turn the csv module's own error (English, about the text's form) into a :class:`NetworkError`."""
    try:
        yield
    except csv.Error:
        raise NetworkError(f"{what}无法按 CSV 解析（字段过长、引号不配对或含空字符）") from None


def _topology_rows(text: str) -> list[Branch]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise NetworkError(f"拓扑 CSV 缺少列：{', '.join(missing)}")
    branches = []
    for line, row in enumerate(reader, start=2):
        numbers = [_number(row, c, line, "拓扑 CSV") for c in COLUMNS[4:]]
        r, adjust_r, is_fan, a0, a1, a2 = numbers
        fan = FanCurve(a0, a1, a2) if is_fan else None
        branches.append(
            Branch(
                id=_text(row, "edge_id", line),
                from_node=_text(row, "from", line),
                to_node=_text(row, "to", line),
                resistance=r,
                added_resistance=adjust_r,
                fan=fan,
                kind="fan" if fan else "roadway",
                name=(row.get("name") or "").strip(),
            )
        )
    return branches


def load_topology(path: Path) -> list[Branch]:
    """:func:`read_topology` of a file (:func:`read_csv_text`); :class:`NetworkError` when it cannot be
    read."""
    return read_topology(read_csv_text(path, "拓扑文件"))


def read_csv_text(path: Path, what: str) -> str:
    """The text of a CSV file in UTF-8 (with or without a byte-order mark) or, failing that, GBK (as
    GB 18030, its superset: what Chinese Excel saves as CSV). Raises :class:`NetworkError` (Chinese)
    when the file cannot be read or is in neither encoding."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NetworkError(f"无法读取{what} {path}（{exc.strerror or '读取失败'}）") from exc
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise NetworkError(
        f"无法读取{what} {path}：文件须为 UTF-8 或 GBK 编码的 CSV（在 Excel 中另存为“CSV UTF-8（逗号分隔）”）"
    )


def pose(branches: list[Branch], total_airflow: float | None = None) -> Network:
    """The network as the benchmark poses it.

    The inlets are the nodes with no incoming branch, the outlets those with no outgoing one. With
    ``total_airflow`` (m³/s, > 0) it enters at the inlets and leaves at the outlets, each side joined as
    by zero resistance (inlets at p = 0, outlets sharing one pressure), the split between them part of
    the solution. Without it every inlet and outlet is open to the atmosphere (p = 0) and the fans drive
    the air. Raises :class:`NetworkError` when there is no inlet or outlet or the airflow is not positive.
    """
    heads = {b.from_node for b in branches}
    tails = {b.to_node for b in branches}
    inlets = sorted(heads - tails)
    outlets = sorted(tails - heads)
    if not inlets or not outlets:
        raise NetworkError("网络没有进风节点（无流入分支）或出风节点（无流出分支），无法确定风流的进出")
    if total_airflow is None:
        return Network(tuple(branches), reference_nodes=frozenset(inlets + outlets))
    if not math.isfinite(total_airflow) or not 0 < total_airflow <= MAX_FLOW:
        raise NetworkError(f"总风量 {total_airflow} 无效：须为不超过 {MAX_FLOW:g} 的正数（m³/s）")
    sink = outlets[0]
    return Network(
        tuple(branches),
        reference_nodes=frozenset(inlets),
        injections={sink: -total_airflow},
        joined={outlet: sink for outlet in outlets[1:]},
    )


SURVEY_COLUMNS = ("edge_id", "q_m3_s", "h_Pa")
"""A survey's columns: the branch, its measured flow (m³/s) and its measured drop ``p(from) − p(to)``
(Pa, negative along the flow); either measurement may be empty."""


def read_survey(text: str) -> tuple[dict[str, float], dict[str, float]]:
    """The measured flows and drops of a survey CSV (:data:`SURVEY_COLUMNS`; other columns ignored), as
    ``(measured_q, measured_h)`` by branch id. Raises :class:`NetworkError` (Chinese, naming the row) on
    a missing column, a value that is not a finite number, a row with neither measurement, or a branch
    measured twice, and on text that is not CSV."""
    with _as_network_error("测定 CSV"):
        return _survey_rows(text)


def _survey_rows(text: str) -> tuple[dict[str, float], dict[str, float]]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    fields = reader.fieldnames or []
    if "edge_id" not in fields or not {"q_m3_s", "h_Pa"} & set(fields):
        raise NetworkError("测定 CSV 须有列 edge_id 及 q_m3_s、h_Pa 中的至少一列")
    measured: tuple[dict[str, float], dict[str, float]] = ({}, {})
    seen: set[str] = set()
    for line, row in enumerate(reader, start=2):
        branch = _text(row, "edge_id", line, "测定 CSV")
        if branch in seen:
            raise NetworkError(f"测定 CSV 第 {line} 行：分支 {quoted(branch)} 重复")
        seen.add(branch)
        given = [c for c in SURVEY_COLUMNS[1:] if (row.get(c) or "").strip()]
        if not given:
            raise NetworkError(f"测定 CSV 第 {line} 行：分支 {quoted(branch)} 既无风量 q_m3_s 也无压差 h_Pa")
        for column in given:
            target = measured[SURVEY_COLUMNS.index(column) - 1]
            target[branch] = _number(row, column, line, "测定 CSV")
    return measured


def load_survey(path: Path) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`read_survey` of a file (:func:`read_csv_text`); :class:`NetworkError` when it cannot be
    read."""
    return read_survey(read_csv_text(path, "测定文件"))


def _number(row: dict[str, str], column: str, line: int, what: str) -> float:
    raw = (row.get(column) or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise NetworkError(f"{what} 第 {line} 行 {quoted(column)}={quoted(repr(raw))} 不是数") from None
    if not math.isfinite(value):
        raise NetworkError(f"{what} 第 {line} 行 {quoted(column)}={quoted(repr(raw))} 不是有限数")
    return value


def _text(row: dict[str, str], column: str, line: int, what: str = "拓扑 CSV") -> str:
    value = (row.get(column) or "").strip()
    if not value:
        raise NetworkError(f"{what} 第 {line} 行缺少 {column}")
    return value
