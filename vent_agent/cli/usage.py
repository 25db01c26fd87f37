"""Command-line usage errors in Chinese: what :func:`vent_agent.cli.main` prints instead of click's English
box (``Invalid value for 'plan': file '/x.pdf' does not exist.``).

Typer raises click's exceptions, either from the ``click`` package or from the copy it vendors
(``typer._click``) depending on its version, so they are told apart by class name
(``UsageError``, ``NoSuchOption``…) and read through the attributes both share (``option_name``,
``possibilities``, ``param``, ``message``, ``ctx``). Nothing here changes what a command does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError

from vent_agent.validation_reasons import pydantic_reason

PROG = "vent-agent"
CJK = re.compile(r"[\u4e00-\u9fff]")
_CLICK_REASONS = (
    (re.compile(r"valid integer|is not a valid int"), "应为整数"),
    (re.compile(r"valid (?:float|number)"), "应为数字"),
    (re.compile(r"valid boolean|is not a valid bool"), "应为 true 或 false"),
    (re.compile(r"does not exist"), "不存在"),
    (re.compile(r"is a directory"), "是目录，不是文件"),
    (re.compile(r"is not readable"), "没有读取权限"),
    (re.compile(r"is not one of|valid choice|Input should be"), "不在可选范围内"),
)
"""Click's and typer's English reasons for a bad value → Chinese (first match wins)."""


def is_click_error(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` is click's (or typer's vendored click's) exception class ``name`` or a subclass."""
    return any(cls.__name__ == name for cls in type(exc).__mro__)


def _param_name(param: Any) -> tuple[str, str]:
    """("参数" or "选项", the name as typed): ``PLAN`` for an argument, ``--port`` for an option."""
    if getattr(param, "param_type_name", "") == "argument":
        return "参数", str(getattr(param, "name", "") or "").upper()
    opts = getattr(param, "opts", None) or [getattr(param, "name", "")]
    return "选项", " / ".join(str(o) for o in opts)


def _value_reason(exc: BaseException) -> str:
    """The reason a value was refused, in Chinese: as written when already Chinese, from the pydantic
    error typer coerced with, or from click's English message."""
    message = str(getattr(exc, "message", "") or "")
    if CJK.search(message):
        return message
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and cause.errors():
        first = cause.errors()[0]
        return pydantic_reason(first["type"], first)
    for pattern, reason in _CLICK_REASONS:
        if pattern.search(message):
            return reason
    return f"取值无效（{message}）" if message else "取值无效"


def usage_message(exc: BaseException) -> str:
    """A click usage error as one Chinese line (no program name, no hint)."""
    message = str(getattr(exc, "message", "") or "")
    if is_click_error(exc, "NoSuchOption"):
        option = getattr(exc, "option_name", "")
        close = getattr(exc, "possibilities", None) or []
        return f"未知选项 {option}" + (f"（是不是要用 {'、'.join(close)}？）" if close else "")
    if is_click_error(exc, "BadOptionUsage"):
        option = getattr(exc, "option_name", "")
        return f"选项 {option} 缺少取值" if "requires" in message else f"选项 {option} 用法有误"
    if is_click_error(exc, "MissingParameter"):
        kind, name = _param_name(getattr(exc, "param", None))
        return f"缺少{kind} {name}"
    if is_click_error(exc, "BadParameter"):
        param = getattr(exc, "param", None)
        if param is None:
            return f"取值无效：{_value_reason(exc)}"
        kind, name = _param_name(param)
        return f"{kind} {name} 无效：{_value_reason(exc)}"
    if m := re.match(r"No such command '(.+)'", message):
        return f"未知命令 '{m.group(1)}'（可用命令：serve、review、calc、chat、network、graph）"
    if m := re.match(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)", message):
        return f"多余的参数：{m.group(1)}"
    if message.startswith("Missing command"):
        return "缺少命令（可用命令：serve、review、calc、chat、network、graph）"
    return (
        f"命令行用法有误：{message}" if message and not CJK.search(message) else message or "命令行用法有误"
    )


def usage_lines(exc: BaseException) -> list[str]:
    """What the command line prints for a usage error: the Chinese line and the hint to ask for help."""
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", "") or PROG
    return [f"{PROG} 出错：{usage_message(exc)}", f"运行 `{command} --help` 查看用法"]


def existing_file(value: Path | None) -> Path | None:
    """A typer callback: ``value`` when it is a readable file; BadParameter in Chinese otherwise (click's
    own ``exists=True`` check answers in English)."""
    if value is None:
        return value
    if not value.exists():
        raise typer.BadParameter(f"文件 {value} 不存在")
    if value.is_dir():
        raise typer.BadParameter(f"{value} 是目录，不是文件")
    try:
        with value.open("rb"):
            pass
    except OSError:
        raise typer.BadParameter(f"文件 {value} 无法读取（没有读取权限）") from None
    return value
