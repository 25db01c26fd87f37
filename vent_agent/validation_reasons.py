"""Chinese reasons for pydantic validation errors, shared by the API's 400 answers, the calculator
tools' error results and the ``vent-agent calc --tables`` check (pydantic's own messages are English)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

REASONS = {
    "missing": "必须给出",
    "string_too_long": "过长（最多 {max_length} 个字符）",
    "string_too_short": "过短（至少 {min_length} 个字符）",
    "too_long": "过长（最多 {max_length} 项）",
    "too_short": "过短（至少 {min_length} 项）",
    "string_pattern_mismatch": "格式不正确",
    "string_type": "应为字符串",
    "string_unicode": "应为合法的 Unicode 文本（含有单独的代理码元，如 \\ud800）",
    "id_type": "应为字符串或整数",
    "id_line_break": "不能含换行或制表符",
    "int_parsing": "应为整数",
    "int_type": "应为整数",
    "int_from_float": "应为整数",
    "float_parsing": "应为数字",
    "float_type": "应为数字",
    "finite_number": "应为有限的数（不能是 NaN 或无穷大）",
    "bool_parsing": "应为布尔值（true/false）",
    "bool_type": "应为布尔值（true/false）",
    "greater_than_equal": "应不小于 {ge}",
    "greater_than": "应大于 {gt}",
    "less_than_equal": "应不大于 {le}",
    "less_than": "应小于 {lt}",
    "literal_error": "取值无效，可选：{expected}",
    "enum": "取值无效，可选：{expected}",
    "extra_forbidden": "不允许的字段",
    "dict_type": "应为 JSON 对象",
    "list_type": "应为列表",
    "model_attributes_type": "应为 JSON 对象",
    "model_type": "应为 JSON 对象",
    "value_error": "{error}",
    "datetime_parsing": "应为日期时间（如 2026-08-01 08:00:00）",
    "datetime_from_date_parsing": "应为日期时间（如 2026-08-01 08:00:00）",
    "datetime_type": "应为日期时间（如 2026-08-01 08:00:00）",
    "date_parsing": "应为日期（如 2026-08-01）",
    "date_from_datetime_parsing": "应为日期（如 2026-08-01）",
    "date_type": "应为日期（如 2026-08-01）",
}
"""Pydantic error type → Chinese reason (a template over the error's ``ctx``)."""


def pydantic_reason(kind: str, err: Mapping[str, Any]) -> str:
    """A Chinese reason for a pydantic error type (the English message for types not listed)."""
    template = REASONS.get(kind)
    msg = str(err.get("msg", ""))
    if "UploadFile" in msg:
        return "应为上传的文件"
    if template is None:
        return msg
    ctx = dict(err.get("ctx") or {})
    if isinstance(ctx.get("expected"), str):  # "'plan' or 'fast'" → "plan、fast"
        ctx["expected"] = ctx["expected"].replace("'", "").replace(" or ", "、").replace(", ", "、")
    try:
        return template.format(**ctx)
    except (KeyError, IndexError):
        return msg


def located_reasons(
    err: ValidationError,
    where: Callable[[tuple[int | str, ...]], str],
    *,
    skip: Callable[[tuple[int | str, ...]], bool] = lambda loc: False,
) -> str:
    """Every error of ``err`` as ``<where(loc)>：<Chinese reason>``, joined by ``；`` (``skip``: errors left
    out by their location, such as a tool's injected runtime). ``where`` names the location as its
    reader knows it: ``days``, ``配置项 VENT_PORT``…"""
    return "；".join(
        f"{where(tuple(e['loc']))}：{pydantic_reason(e['type'], e)}"
        for e in err.errors()
        if not skip(tuple(e["loc"]))
    )


def dotted(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as dotted text (``location_qs.面``); empty for the whole value."""
    return ".".join(str(p) for p in loc)
