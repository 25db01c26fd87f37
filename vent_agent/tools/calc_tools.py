"""LangChain tools over the pure calculators of :mod:`calc`, one per calculator, under its name.

Each tool's args schema is built from the calculator's signature (types and defaults) with the Chinese
labels and units of :data:`calc.PARAMS`; ``tables`` is not an argument: :func:`calc_tools` binds the
mine's :class:`calc.CoefficientTables` (default :data:`calc.DEFAULT_TABLES`).

A tool returns the result as a JSON-able dict (``CalcResult.model_dump(mode="json")``). Bad input never
raises into the agent run: a :class:`calc.CalcInputError` becomes ``{"error", "param", "reason",
"method"}`` and an argument that fails the schema becomes the same shape as a JSON string (LangChain's
validation-error hook must return a string).
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from functools import partial
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

from calc import CATALOG, DEFAULT_TABLES, PARAMS, CalcInfo, CalcInputError, CoefficientTables
from calc.result import MaxResult

RESULT_NOTE = (
    "风量单位 m³/min。返回 value（结果）、unit、method、method_cn、formula（公式）、substituted（代入数值的算式）、"
    "inputs、coefficients（系数及来源 given/table/default 与取值范围）、source（依据条款）、warnings（警告）；"
    "取最大值的工具另有 methods、governing、checks（风速验算）与 not_computed（缺少输入未计算的方法）："
    "not_computed 非空时 value 只是已算方法的最大值（下限），不是需风量，回答时须说明缺哪些方法。"
    "输入有误时返回 {error, param, reason}。"
)
INCOMPLETE_NOTE = "以下方法因缺少输入未计算：{names}。value 只是已算方法的最大值（下限），不能作为需风量。"


def _not_bool(cls: Any, value: Any) -> Any:
    """A before-validator: true/false is not a number (pydantic would otherwise read True as 1.0)."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not a bool")
    return value


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
    the methods not computed (DOMAIN.md §2: never presented as the requirement)."""
    try:
        result = func(**kwargs, tables=tables)
    except CalcInputError as err:
        return {**err.to_dict(), "method": name}
    out: dict[str, Any] = result.model_dump(mode="json")
    if isinstance(result, MaxResult) and result.not_computed:
        out["incomplete"] = True
        out["note"] = INCOMPLETE_NOTE.format(names="；".join(result.not_computed))
    return out


def _validation_error(name: str, err: ValidationError) -> str:
    errors = err.errors()
    problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in errors)
    param = str(errors[0]["loc"][0]) if errors and errors[0]["loc"] else ""
    return json.dumps(
        {"error": f"invalid arguments: {problems}", "param": param, "reason": problems, "method": name},
        ensure_ascii=False,
    )


def make_tool(name: str, info: CalcInfo, tables: CoefficientTables = DEFAULT_TABLES) -> BaseTool:
    """The LangChain tool of one calculator of :data:`calc.CATALOG`.

    The tool's function is a plain closure (not a ``functools.partial``): LangGraph's ToolNode reads its
    type hints to find injected arguments, which a partial does not have."""

    def calculate(**kwargs: Any) -> dict[str, Any]:
        return run_calculator(name, info.func, tables, **kwargs)

    calculate.__name__ = name
    return StructuredTool.from_function(
        func=calculate,
        name=name,
        description=f"{info.title_cn}：{info.description_cn}。{RESULT_NOTE}",
        args_schema=args_schema(name, info.func),
        handle_validation_error=partial(_validation_error, name),
    )


def calc_tools(tables: CoefficientTables | None = None) -> list[BaseTool]:
    """One tool per calculator, named like the calculator (``calc_face_by_gas``…), bound to ``tables``
    (the mine's coefficient tables; default :data:`calc.DEFAULT_TABLES`)."""
    bound = tables if tables is not None else DEFAULT_TABLES
    return [make_tool(name, info, bound) for name, info in CATALOG.items()]
