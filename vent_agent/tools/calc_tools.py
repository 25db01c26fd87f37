"""LangChain tools over the pure calculators of :mod:`calc`, one per calculator, under its name.

Each tool's args schema is built from the calculator's signature (types and defaults) with the Chinese
labels and units of :data:`calc.PARAMS`; ``tables`` is not an argument: :func:`calc_tools` binds the
mine's :class:`calc.CoefficientTables` (default :data:`calc.DEFAULT_TABLES`).

A tool returns the result as a JSON-able dict (``CalcResult.model_dump(mode="json")``). Bad input never
raises into the agent run: a :class:`calc.CalcInputError`, and an argument that fails the schema, become a
tool error (a ``ToolMessage`` with ``status="error"`` when called with a tool call) whose content is the
JSON string of ``{"error", "param", "reason", "method"}``, in Chinese.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator
from pydantic_core import ErrorDetails

from calc import CATALOG, DEFAULT_TABLES, PARAMS, CalcInfo, CalcInputError, CoefficientTables
from calc.result import MaxResult
from vent_agent.validation_reasons import pydantic_reason

RESULT_NOTE = (
    "风量单位 m³/min。返回 value（结果）、unit、method、method_cn、formula（公式）、substituted（代入数值的算式）、"
    "inputs、coefficients（系数及来源 given/table/default 与取值范围）、source（依据条款）、warnings（警告）；"
    "取最大值的工具另有 methods、governing、checks（风速验算）与 not_computed（缺少输入未计算的方法）："
    "not_computed 非空时 value 只是已算方法的最大值（下限），不是需风量，回答时须说明缺哪些方法。"
    "输入有误时返回 {error, param, reason}（中文说明）。"
)
INCOMPLETE_NOTE = "以下方法因缺少输入未计算：{names}。value 只是已算方法的最大值（下限），不能作为需风量。"


def _not_bool(cls: Any, value: Any) -> Any:
    """A before-validator: true/false is not a number (pydantic would otherwise read True as 1.0)."""
    if isinstance(value, bool):
        raise ValueError("应为数字，不能是 true/false")
    return value


_TYPE_CN = {float: "数字", int: "整数", str: "文字", bool: "true 或 false"}


def expected_cn(annotation: Any) -> str:
    """What a calculator parameter takes, in Chinese (``float | Sequence[float]`` → ``数字或数字列表``)."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    members = [m for m in (typing.get_args(annotation) if union else (annotation,)) if m is not type(None)]
    names = []
    for member in members:
        origin = typing.get_origin(member)
        if isinstance(origin, type) and issubclass(origin, Mapping):
            names.append("名称→数值的键值表")
        elif isinstance(origin, type) and issubclass(origin, Sequence):
            names.append("数字列表")
        else:
            names.append(_TYPE_CN.get(member, getattr(member, "__name__", str(member))))
    return "或".join(dict.fromkeys(names))


def args_schema(name: str, func: Callable[..., Any]) -> type[BaseModel]:
    """The pydantic args schema of a calculator: every keyword but ``tables``, typed and described.

    Raises KeyError when a parameter is missing from the glossary :data:`calc.PARAMS` (a bug).
    """
    hints = typing.get_type_hints(func)
    fields: dict[str, Any] = {}
    numeric = []
    for pname, param in inspect.signature(func).parameters.items():
        if pname == "tables":
            continue
        annotation = hints[pname]
        if annotation not in (bool, str, str | None):
            numeric.append(pname)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, Field(default, description=PARAMS[pname].describe()))
    return create_model(
        f"{name}_args",
        __config__=ConfigDict(extra="forbid"),
        __validators__={"no_bools": field_validator(*numeric, mode="before")(_not_bool)} if numeric else {},
        **fields,
    )


def run_calculator(
    name: str, func: Callable[..., Any], tables: CoefficientTables, **kwargs: Any
) -> dict[str, Any]:
    """Call a calculator and return its result as a dict, or an error dict for a CalcInputError.

    A maximum over an incomplete set of methods gets ``incomplete: true`` and a Chinese ``note`` naming
    the methods not computed (docs/DOMAIN.md §2: never presented as the requirement)."""
    try:
        result = func(**kwargs, tables=tables)
    except CalcInputError as err:
        return {**err.to_dict(), "method": name}
    out: dict[str, Any] = result.model_dump(mode="json")
    if isinstance(result, MaxResult) and result.not_computed:
        out["incomplete"] = True
        out["note"] = INCOMPLETE_NOTE.format(names="；".join(result.not_computed))
    return out


def _problem(param: str, errors: list[ErrorDetails], hints: dict[str, Any]) -> str:
    """One parameter's schema errors as a Chinese sentence (several errors: a union none of whose members
    fits, e.g. ``vehicle_kw`` neither a number nor a list of numbers)."""
    kind = errors[0]["type"]
    if kind == "missing":
        return f"缺少必填参数 {param}"
    if kind == "extra_forbidden":
        known = ", ".join(p for p in hints if p not in ("tables", "return"))
        return f"没有参数 {param}（可用参数：{known}）"
    if len(errors) > 1 and param in hints:
        return f"参数 {param} 无效：应为{expected_cn(hints[param])}"
    return f"参数 {param} 无效：{pydantic_reason(kind, errors[0])}"


def _validation_error(name: str, func: Callable[..., Any], err: ValidationError) -> str:
    """The tool result of arguments that fail the schema: ``{"error", "param", "reason", "method"}``, in
    Chinese (pydantic's own messages are English)."""
    by_param: dict[str, list[ErrorDetails]] = {}
    for e in err.errors():
        by_param.setdefault(str(e["loc"][0]) if e["loc"] else "", []).append(e)
    hints = typing.get_type_hints(func)
    problems = "；".join(
        _problem(p, errors, hints) if p else "参数格式错误" for p, errors in by_param.items()
    )
    return json.dumps(
        {
            "error": f"调用参数有误：{problems}",
            "param": next(iter(by_param), ""),
            "reason": problems,
            "method": name,
        },
        ensure_ascii=False,
    )


def make_tool(name: str, info: CalcInfo, tables: CoefficientTables = DEFAULT_TABLES) -> BaseTool:
    """The LangChain tool of one calculator of :data:`calc.CATALOG`.

    The tool's function is a plain closure (not a ``functools.partial``): LangGraph's ToolNode reads its
    type hints to find injected arguments, which a partial does not have."""

    def calculate(**kwargs: Any) -> dict[str, Any]:
        out = run_calculator(name, info.func, tables, **kwargs)
        if "error" in out:  # bad input: a tool error (status "error"), its content the same JSON
            raise ToolException(json.dumps(out, ensure_ascii=False))
        return out

    calculate.__name__ = name
    return StructuredTool.from_function(
        func=calculate,
        name=name,
        description=f"{info.title_cn}：{info.description_cn}。{RESULT_NOTE}",
        args_schema=args_schema(name, info.func),
        handle_validation_error=partial(_validation_error, name, info.func),
        handle_tool_error=_input_error_text,
    )


def _input_error_text(exc: ToolException) -> str:
    return str(exc)


def calc_tools(tables: CoefficientTables | None = None) -> list[BaseTool]:
    """One tool per calculator, named like the calculator (``calc_face_by_gas``…), bound to ``tables``
    (the mine's coefficient tables; default :data:`calc.DEFAULT_TABLES`)."""
    bound = tables if tables is not None else DEFAULT_TABLES
    return [make_tool(name, info, bound) for name, info in CATALOG.items()]
