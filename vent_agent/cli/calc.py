"""``vent-agent calc``: run one calculator from the command line and print the worked formula.

Usage::

    vent-agent calc --list
    vent-agent calc METHOD --help
    vent-agent calc METHOD --param value [--param value …] [--json] [--tables FILE]

Parameters take their glossary names in kebab-case or snake_case (``--gas-emission 4.2`` or
``--gas_emission=4.2``). A switch alone means true (``--dust-suppression``), or give ``true``/``false``.
Lists are comma-separated (``--vehicle-kw 70,55``), named values ``name=value`` pairs
(``--location-qs 面=1132.2,掘=633``). ``--tables FILE`` reads a JSON object of coefficient-table
overrides (see :meth:`calc.CoefficientTables.override`). ``--json`` prints the result as JSON.
Exit status: 0 on success, 2 for an unknown method, a bad or missing parameter, or invalid input; every
error is one Chinese line on stderr (``vent-agent calc 出错：参数 gas_emission=-1 无效：不能小于 0``).
"""

from __future__ import annotations

import collections.abc
import errno
import inspect
import json
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import NoneType
from typing import Any

from pydantic import ValidationError

from calc import CATALOG, DEFAULT_TABLES, PARAMS, CalcInfo, CalcInputError, CoefficientTables, render_text
from calc.render import in_words
from vent_agent.validation_reasons import dotted, located_reasons

EXIT_OK = 0
EXIT_USAGE = 2
USAGE = "用法：vent-agent calc --list | 方法名 --help | 方法名 --参数 值 … [--json] [--tables 文件]"
KIND_CN = {
    "coal_face": "采煤工作面",
    "heading": "掘进工作面",
    "chamber": "硐室",
    "other_roadway": "其他用风巷道",
    "mine": "矿井",
    "survey": "测风报表反算",
}
"""The Chinese name of each location kind of :data:`calc.CATALOG`, as ``--list`` shows it."""
FILE_ERRORS = {errno.ENOENT: "不存在", errno.EACCES: "没有读取权限", errno.EISDIR: "是目录，不是文件"}
TRUE_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


class CliUsageError(Exception):
    """A command-line mistake: unknown method or parameter, a value that does not parse, a bad file."""


@dataclass
class Invocation:
    """The parsed command line of one calculator."""

    kwargs: dict[str, Any] = field(default_factory=dict)
    as_json: bool = False
    tables_file: str | None = None
    help: bool = False


def _types(annotation: Any) -> set[Any]:
    """The member types of an annotation (``float | None`` → {float}), None removed."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return (set(typing.get_args(annotation)) if union else {annotation}) - {NoneType}


def _is_generic(members: set[Any], base: Any) -> bool:
    return any(typing.get_origin(t) is base for t in members)


def _number(option: str, raw: str) -> float | int:
    try:
        value = float(raw)
    except ValueError:
        raise CliUsageError(f"参数 {option} 的值 {raw!r} 不是数字") from None
    return int(value) if value.is_integer() and "." not in raw and "e" not in raw.lower() else value


def convert(option: str, annotation: Any, raw: str) -> Any:
    """``raw`` as the calculator parameter's type: bool words, str, a number, a list or a name=value map.

    Raises CliUsageError for a value that does not parse.
    """
    members = _types(annotation)
    if bool in members:
        if raw.lower() not in TRUE_WORDS:
            raise CliUsageError(f"参数 {option} 应为 true 或 false，而不是 {raw!r}")
        return TRUE_WORDS[raw.lower()]
    if str in members:
        return raw
    items = [part.strip() for part in raw.split(",") if part.strip()]
    if _is_generic(members, collections.abc.Mapping) and "=" in raw:
        pairs = [item.partition("=") for item in items]
        if any(not sep or not name.strip() for name, sep, _ in pairs):
            raise CliUsageError(
                f"参数 {option} 应为以逗号分隔的 名称=数值（如 面=1132.2,掘=633），而不是 {raw!r}"
            )
        return {name.strip(): _number(option, value) for name, _, value in pairs}
    if _is_generic(members, collections.abc.Sequence) and ("," in raw or not members & {float, int}):
        return [_number(option, item) for item in items]
    return _number(option, raw)


def _option(name: str) -> str:
    """The command-line spelling of a parameter (``gas_emission`` → ``--gas-emission``)."""
    return "--" + name.replace("_", "-")


def parse_params(func: Callable[..., Any], params: list[str]) -> Invocation:
    """Parse ``--name value`` / ``--name=value`` / switches against the calculator's signature.

    Raises CliUsageError for an unknown or repeated parameter, a missing value or a missing required one.
    """
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func)
    names = [name for name in signature.parameters if name != "tables"]
    out = Invocation()
    tokens = list(params)
    while tokens:
        token = tokens.pop(0)
        if token in ("-h", "--help"):
            out.help = True
            continue
        if not token.startswith("--"):
            raise CliUsageError(f"多余的参数 {token!r}（参数应写作 --名称 值）")
        key, has_value, inline = token[2:].partition("=")
        name = key.replace("-", "_")
        if name == "json":
            out.as_json = True
            continue
        if name == "tables":
            out.tables_file = inline if has_value else (tokens.pop(0) if tokens else None)
            if not out.tables_file:
                raise CliUsageError("--tables 缺少文件名")
            continue
        if name not in names:
            raise CliUsageError(f"未知参数 --{key}；可用参数：{', '.join(_option(n) for n in names)}")
        if name in out.kwargs:
            raise CliUsageError(f"参数 --{key} 重复给出")
        annotation = hints[name]
        if has_value:
            raw = inline
        elif annotation is bool and (not tokens or tokens[0].lower() not in TRUE_WORDS):
            raw = "true"
        elif tokens and not tokens[0].startswith("--"):
            raw = tokens.pop(0)
        else:
            raise CliUsageError(f"参数 --{key} 缺少取值")
        out.kwargs[name] = convert(f"--{key}", annotation, raw)
    if not out.help:
        missing = [
            n
            for n in names
            if signature.parameters[n].default is inspect.Parameter.empty and n not in out.kwargs
        ]
        if missing:
            raise CliUsageError(f"缺少必填参数：{', '.join(_option(n) for n in missing)}")
    return out


def load_tables(path: str) -> CoefficientTables:
    """The default tables with the JSON overrides in ``path``; CliUsageError (in Chinese) when the file
    is missing or unreadable, not JSON, not a JSON object, or its overrides do not validate."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        problem = FILE_ERRORS.get(err.errno or 0, f"无法读取（错误码 {err.errno}）")
        raise CliUsageError(f"--tables 指定的文件 {path} {problem}") from None
    except UnicodeDecodeError:
        raise CliUsageError(f"--tables 指定的文件 {path} 不是 UTF-8 编码的文本") from None
    try:
        changes = json.loads(text)
    except json.JSONDecodeError as err:
        raise CliUsageError(
            f"--tables 指定的文件 {path} 不是有效的 JSON（第 {err.lineno} 行第 {err.colno} 列）"
        ) from None
    if not isinstance(changes, dict):
        raise CliUsageError(f"--tables 指定的文件 {path} 应为 JSON 对象")
    try:
        return DEFAULT_TABLES.override(changes)
    except ValidationError as err:
        problems = located_reasons(err, lambda loc: dotted(loc) or "系数表")
        raise CliUsageError(f"--tables 指定的文件 {path} 中的系数表覆盖无效：{problems}") from None


def list_text() -> str:
    """Every calculator by location kind, with its Chinese title."""
    lines = []
    for kind in dict.fromkeys(info.kind for info in CATALOG.values()):
        lines.append(f"[{kind}] {KIND_CN.get(kind, '')}".rstrip())
        lines += [f"  {name:<32} {info.title_cn}" for name, info in CATALOG.items() if info.kind == kind]
    return "\n".join(lines)


def help_text(name: str, info: CalcInfo) -> str:
    """A calculator's title, formula and parameters (required ones marked, defaults shown)."""
    signature = inspect.signature(info.func)
    lines = [f"{name}：{info.title_cn}", f"  {info.description_cn}", "参数："]
    for pname, param in signature.parameters.items():
        if pname == "tables":
            continue
        default = "必填" if param.default is inspect.Parameter.empty else f"默认 {_shown(param.default)}"
        lines.append(f"  {_option(pname):<28} {PARAMS[pname].describe()} [{default}]")
    lines.append(f"  {'--json':<28} 以 JSON 输出结果")
    lines.append(f"  {'--tables 文件':<26} 系数表覆盖（JSON 文件）")  # 文件 takes four columns
    return "\n".join(lines)


def _shown(default: Any) -> str:
    """A default as the command line writes it (``false``, ``无`` for None)."""
    if default is None:
        return "无"
    return str(default).lower() if isinstance(default, bool) else str(default)


def _fail(message: str, hint: str = "") -> int:
    print(f"vent-agent calc 出错：{message}", file=sys.stderr)
    if hint:
        print(hint, file=sys.stderr)
    return EXIT_USAGE


def run_calc(method: str, params: list[str]) -> int:
    """Run ``vent-agent calc METHOD …``: print the result (or the list / help) and return the exit code.

    ``method`` is the calculator name (``--list`` lists them; ``--help`` or nothing prints the usage);
    ``params`` the raw arguments after it. Errors go to stderr with exit code 2.
    """
    if method in ("--list", "-l", "list") or (not method and "--list" in params):
        print(list_text())
        return EXIT_OK
    if method in ("", "-h", "--help", "help"):
        print(USAGE)
        print(list_text())
        return EXIT_OK
    name = method.replace("-", "_")
    info = CATALOG.get(name)
    if info is None:
        return _fail(f"未知的计算方法 {method!r}", "运行 `vent-agent calc --list` 查看全部计算方法")
    try:
        invocation = parse_params(info.func, params)
        if invocation.help:
            print(help_text(name, info))
            return EXIT_OK
        tables = load_tables(invocation.tables_file) if invocation.tables_file else DEFAULT_TABLES
        result = info.func(**invocation.kwargs, tables=tables)
    except CliUsageError as err:
        return _fail(str(err), f"运行 `vent-agent calc {name} --help` 查看参数说明")
    except CalcInputError as err:
        return _fail(in_words(err.describe(), options_only=True))
    if invocation.as_json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        print(render_text(result))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``run_calc`` over a raw argument list (``argv[0]`` is the method)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run_calc(args[0] if args else "", args[1:])
