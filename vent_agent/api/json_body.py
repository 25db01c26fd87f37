"""JSON request bodies read strictly: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON.

Starlette reads a JSON body with :func:`json.loads`, which takes the literals ``NaN``, ``Infinity`` and
``-Infinity`` (JavaScript's, not JSON's: RFC 8259 §6 has no such numbers) and a number too large for a
float (``1e999``) as ``inf``. Such a body was accepted: ``{"tun_id": Infinity}`` started a run that ended
with ``未找到巷道：inf``. :class:`ApiRoute`, the route class of every API router, hands the endpoint a
:class:`StrictJsonRequest`, whose :meth:`~StrictJsonRequest.json` refuses a non-finite number anywhere in
the body with a :class:`json.JSONDecodeError`; FastAPI turns that into its ``json_invalid`` validation
error, answered 400 ``请求参数错误：请求体不是合法的 JSON：…`` (:func:`non_finite_reason`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from fastapi import Request, Response
from fastapi.routing import APIRoute

NON_FINITE = "non-finite number: "
"""The start of the :class:`json.JSONDecodeError` message for a non-finite number; the number follows."""
_SHOWN = 40
"""Characters of a refused number shown in the message."""


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


def loads_strict(body: bytes | str) -> Any:
    """``json.loads(body)`` refusing non-finite numbers with a :class:`json.JSONDecodeError` whose
    message is :data:`NON_FINITE` + the number as written (other errors as :func:`json.loads` raises)."""
    try:
        return json.loads(body, parse_constant=_constant, parse_float=_finite)
    except _NonFinite as exc:
        doc = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        number = str(exc.args[0])
        # the scanner does not tell where it was: the number's first occurrence, as good a position as any
        raise json.JSONDecodeError(NON_FINITE + number, doc, max(doc.find(number), 0)) from None


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
