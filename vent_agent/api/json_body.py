"""JSON request bodies read strictly: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON.

Starlette reads a JSON body with :func:`json.loads`, which takes the literals ``NaN``, ``Infinity`` and
``-Infinity`` (JavaScript's, not JSON's: RFC 8259 §6 has no such numbers) and a number too large for a
float (``1e999``) as ``inf``. Such a body was accepted: ``{"tun_id": Infinity}`` started a run that ended
with ``未找到巷道：inf``. :class:`ApiRoute`, the route class of every API router, hands the endpoint a
:class:`StrictJsonRequest`, whose :meth:`~StrictJsonRequest.json` refuses a non-finite number anywhere in
the body with a :class:`json.JSONDecodeError`; FastAPI turns that into its ``json_invalid`` validation
error, answered 400 ``请求参数错误：请求体不是合法的 JSON：…`` (:func:`non_finite_reason`). So does a body
Starlette's parser failed on with an error FastAPI answered as a bare ``请求体解析失败``: one not in UTF-8
(``请求体不是 UTF-8 编码…``), an integer of thousands of digits (``数字过长…``), arrays or objects nested
deeper than :data:`MAX_DEPTH` (``嵌套层数过多（最多 500 层）``); see :func:`json_error_text`.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from fastapi import Request, Response
from fastapi.routing import APIRoute

NON_FINITE = "non-finite number: "
"""The start of the :class:`json.JSONDecodeError` message for a non-finite number; the number follows."""
_SHOWN = 40
"""Characters of a refused number shown in the message."""


NOT_UTF8 = "not UTF-8 at byte: "
"""The start of the :class:`json.JSONDecodeError` message for a body that is not UTF-8; the offset of
the first byte that does not decode follows."""
TOO_LONG = "integer too long: "
"""The start of the message for an integer over Python's digit limit; the limit follows."""
TOO_DEEP = "nested too deep: "
"""The start of the message for a body nested over :data:`MAX_DEPTH` levels; the limit follows."""
MAX_DEPTH = 500
"""Most levels of arrays and objects a JSON body may nest. Python's parser recurses per level and fails
near its recursion limit (about 1,000 less the stack in use); a body under this bound always parses, one
over it is refused, whichever way it fails (:func:`loads_strict`)."""


class _NonFinite(ValueError):
    """A non-finite number met while parsing; its argument is the number as written."""


def _constant(name: str) -> NoReturn:
    """``parse_constant`` of :func:`json.loads`: called for ``NaN``, ``Infinity`` and ``-Infinity``."""
    raise _NonFinite(name)


def _finite(text: str) -> float:
    """``parse_float`` of :func:`json.loads`: a finite float, else :class:`_NonFinite` (``1e999``)."""
    value = float(text)
    if not math.isfinite(value):
        raise _NonFinite(text)
    return value


def _depth(value: Any) -> int:
    """Levels of arrays and objects in a parsed JSON ``value`` (a scalar: 0), found without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in item if isinstance(child, (dict, list)))
    return deepest


def _text(body: bytes | str) -> str:
    """``body`` as the document of a :class:`json.JSONDecodeError` (bad bytes replaced)."""
    return body.decode("utf-8", "replace") if isinstance(body, bytes) else body


def loads_strict(body: bytes | str) -> Any:
    """``json.loads(body)`` strictly: every refusal is a :class:`json.JSONDecodeError`, whose message for
    what :func:`json.loads` takes or fails on otherwise starts with

    - :data:`NON_FINITE` + the number as written: ``NaN``, ``Infinity``, ``-Infinity``, ``1e999``;
    - :data:`NOT_UTF8` + the offset of the first bad byte: a body not in UTF-8 (GBK, a stray ``\xff``,
      the bytes of a surrogate);
    - :data:`TOO_LONG` + the limit: an integer of more digits than Python converts;
    - :data:`TOO_DEEP` + :data:`MAX_DEPTH`: arrays and objects nested deeper than that.

    Other errors as :func:`json.loads` raises them."""
    try:
        # json.loads would decode bytes with "surrogatepass", taking CESU-8 bytes (\xed\xa0\x80) as text
        text = body.decode(json.detect_encoding(body)) if isinstance(body, bytes) else body
        value = json.loads(text, parse_constant=_constant, parse_float=_finite)
    except _NonFinite as exc:
        number = str(exc.args[0])
        # the scanner does not tell where it was: the number's first occurrence, as good a position as any
        doc = _text(body)
        raise json.JSONDecodeError(NON_FINITE + number, doc, max(doc.find(number), 0)) from None
    except UnicodeDecodeError as exc:
        raise json.JSONDecodeError(f"{NOT_UTF8}{exc.start}", _text(body), 0) from None
    except RecursionError:
        raise json.JSONDecodeError(f"{TOO_DEEP}{MAX_DEPTH}", _text(body), 0) from None
    except json.JSONDecodeError:
        raise
    except (
        ValueError
    ) as exc:  # int("9" * 5000): "Exceeds the limit (4300 digits) for integer string conversion"
        if "integer string conversion" not in str(exc):
            raise
        raise json.JSONDecodeError(f"{TOO_LONG}{sys.get_int_max_str_digits()}", _text(body), 0) from None
    if isinstance(value, (dict, list)) and _depth(value) > MAX_DEPTH:
        raise json.JSONDecodeError(f"{TOO_DEEP}{MAX_DEPTH}", _text(body), 0)
    return value


def json_error_text(message: str) -> str:
    """What is wrong with a JSON body, in Chinese, for the message of a :class:`json.JSONDecodeError`
    raised by :func:`loads_strict` (the generic ``请求体不是合法的 JSON`` for a syntax error)."""
    if message.startswith(NOT_UTF8):
        offset = message.removeprefix(NOT_UTF8)
        return (
            f"请求体不是 UTF-8 编码（第 {int(offset) + 1} 个字节起无法按 UTF-8 解码；JSON 请求体须用 UTF-8）"
        )
    if message.startswith(TOO_LONG):
        return f"请求体无法解析：数字过长（整数最多 {message.removeprefix(TOO_LONG)} 位）"
    if message.startswith(TOO_DEEP):
        return f"请求体无法解析：嵌套层数过多（最多 {message.removeprefix(TOO_DEEP)} 层）"
    reason = non_finite_reason(message)
    return f"请求体不是合法的 JSON：{reason}" if reason else "请求体不是合法的 JSON"


def non_finite_reason(message: str) -> str | None:
    """The Chinese reason for a :class:`json.JSONDecodeError` message of :func:`loads_strict` that
    refused a non-finite number, else ``None``."""
    if not message.startswith(NON_FINITE):
        return None
    number = message.removeprefix(NON_FINITE)
    shown = number if len(number) <= _SHOWN else number[:_SHOWN] + "…"
    if number in ("NaN", "Infinity", "-Infinity"):
        return f"不能含 {shown}（JSON 没有 NaN、Infinity、-Infinity）"
    return f"数 {shown} 超出范围（不是有限数）"


class StrictJsonRequest(Request):
    """A request whose JSON body is read by :func:`loads_strict`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads_strict(await self.body())
        return self._json


class ApiRoute(APIRoute):
    """The route class of every API router: the endpoint gets a :attr:`request_class` instance (a
    :class:`StrictJsonRequest`), so FastAPI reads its JSON body strictly."""

    request_class: type[Request] = StrictJsonRequest

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        request_class = self.request_class

        async def route_handler(request: Request) -> Response:
            return await handler(request_class(request.scope, request.receive))

        return route_handler
