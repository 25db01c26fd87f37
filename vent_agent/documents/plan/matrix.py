"""Calculations written as a method matrix: a row per location, a column per method, and the maximum
taken (``序号 | 用风地点 | 按瓦斯 | 按CO₂ | 按人数 | 按炸药 | 按温度/风速 | 按局扇 | 按其他 | 取最大值``), the unit
once in a (merged) header cell (``各方法计算风量（单位：m³/s）``), as spreadsheet workbooks print them.

Each row becomes a :class:`~vent_agent.documents.plan.calc_tables.CalcGroup` for its location: one
:class:`MethodStatement` per method cell holding a number (the stated result, no formula: the matrix
gives none), and the stated maximum. A dash is a method that does not apply; a row whose name does not
read as a location is left out (never guessed). Part of :mod:`vent_agent.documents.plan.parser`.
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.calc_tables import CalcGroup, result_figure
from vent_agent.documents.plan.location_names import is_location_name, strip_enumerator
from vent_agent.documents.plan.methods import method_key
from vent_agent.documents.plan.model import MethodStatement
from vent_agent.documents.plan.tables import LogicalTable, column_unit, header_labels

_METHOD_HEAD = re.compile(r"^按")
_MAX_HEAD = re.compile(r"取最大值|最大值|取大值|需风量取值")
_NAME_HEAD = re.compile(r"用风地点|地点|名称")
_UNIT_NOTE = re.compile(r"单\s*位\s*[:：]\s*([^)）\s]+)")


def _labels(t: LogicalTable) -> tuple[list[str], int]:
    """The matrix's column labels (its header may take two rows: the unit cell merged over the method
    columns above their names) and the number of header rows."""
    for n_header in (1, 2):
        labels = header_labels(t.rows[:n_header], t.n_cols)
        if sum(1 for label in labels if _METHOD_HEAD.search(_last_part(label))) >= 2:
            return labels, n_header
    return [], 0


def _last_part(label: str) -> str:
    """A label without the merged cell written above it: ``各方法计算风量（单位：m³/s）按瓦斯`` → ``按瓦斯``."""
    m = re.search(r"按[^按]*$", label)
    return m.group(0) if m else label


def is_method_matrix(t: LogicalTable) -> bool:
    """A table with a location column, at least two method columns (``按…``) and a maximum column."""
    labels, n_header = _labels(t)
    return (
        bool(n_header)
        and any(_NAME_HEAD.search(x) for x in labels)
        and any(_MAX_HEAD.search(x) for x in labels)
    )


def matrix_groups(t: LogicalTable) -> list[CalcGroup]:
    """One :class:`CalcGroup` per location row of a method matrix, results in m³/min (converted from the
    unit of the header: its column's, or the merged cell's ``单位：…``)."""
    labels, n_header = _labels(t)
    name_col = next(i for i, x in enumerate(labels) if _NAME_HEAD.search(x))
    max_col = next(i for i, x in enumerate(labels) if _MAX_HEAD.search(x))
    methods = [i for i, x in enumerate(labels) if _METHOD_HEAD.search(_last_part(x)) and i != max_col]
    note = next((m.group(1) for x in labels if (m := _UNIT_NOTE.search(x))), None)
    groups: list[CalcGroup] = []
    for row in t.rows[n_header:]:
        if name_col >= len(row) or not is_location_name(row[name_col].text):
            continue
        group = CalcGroup(location=strip_enumerator(row[name_col].text), page=row[0].page)
        for i in methods:
            label = _last_part(labels[i])
            figure = (
                result_figure(row[i], labels[i], column_unit(labels[i]) or note) if i < len(row) else None
            )
            if figure is not None:
                group.methods.append(
                    MethodStatement(method=method_key(label), label=label, expression="", stated=figure)
                )
        if max_col < len(row):
            group.stated_required = result_figure(
                row[max_col], labels[max_col], column_unit(labels[max_col]) or note
            )
        if group.methods or group.stated_required:
            group.unit = note
            groups.append(group)
    return groups
