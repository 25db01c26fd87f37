"""A start-up refusal told to the ASGI server in one line, not as a traceback.

Starlette answers a lifespan that raised with ``lifespan.startup.failed`` whose ``message`` is the
exception's whole traceback, which uvicorn logs (a database stamped by a newer release: over 100 lines on
``uvicorn --factory vent_agent.app:create_app``). :class:`StartupRefusalMessage` (ASGI middleware) holds
that message back until the lifespan's exception reaches it: for a
:class:`~vent_agent.store.refusal.StartupRefused` the server is sent the refusal's one Chinese line
instead, for anything else the original message. The server still sees the start-up fail (uvicorn: exit
code 3). HTTP requests pass through untouched.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vent_agent.store.refusal import StartupRefused


class StartupRefusalMessage:
    """ASGI middleware: a lifespan start-up that raised :class:`StartupRefused` is reported to the server
    as ``lifespan.startup.failed`` with the refusal's line as its message (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def hold_failure(message: Message) -> None:
            if message["type"] == "lifespan.startup.failed":
                held.append(message)  # sent once the exception behind it is known
                return
            await send(message)

        try:
            await self.app(scope, receive, hold_failure)
        except StartupRefused as exc:
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            raise
        except BaseException:
            for message in held:
                await send(message)
            raise
        for message in held:  # a failure reported without an exception reaching here
            await send(message)
