"""Log set-up: plain text for people, or one JSON object a line for log collectors; either way every
record made inside a run carries ``run_id`` and ``session_id`` (from :mod:`.context`)."""

from __future__ import annotations

import logging
import sys
from typing import Literal, TextIO

from pythonjsonlogger.json import JsonFormatter

from vent_agent.observability.context import run_id_var, session_id_var

LogFormat = Literal["plain", "json"]
PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [run=%(run_id)s session=%(session_id)s] %(message)s"
JSON_FIELDS = ["asctime", "levelname", "name", "message", "run_id", "session_id"]
_HANDLER_NAME = "vent-agent"


class ContextFilter(logging.Filter):
    """Adds ``run_id`` and ``session_id`` (None outside a run) to every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.run_id = run_id_var.get()
        record.session_id = session_id_var.get()
        return True


def make_handler(fmt: LogFormat = "plain", stream: TextIO | None = None) -> logging.Handler:
    """A stream handler (stderr by default) with the context filter and the chosen format."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(ContextFilter())
    if fmt == "json":
        handler.setFormatter(
            JsonFormatter(
                JSON_FIELDS, rename_fields={"levelname": "level", "asctime": "time"}, json_ensure_ascii=False
            )
        )
    else:
        handler.setFormatter(logging.Formatter(PLAIN_FORMAT))
    return handler


QUIET_LIBRARIES = ("bm25s",)
"""Libraries whose loggers are held at WARNING or above, whatever the service's level."""


def configure_logging(
    fmt: LogFormat = "plain", level: str | int = "INFO", stream: TextIO | None = None
) -> None:
    """Send the root logger (and uvicorn's loggers) to one handler in ``fmt``; idempotent: a second call
    replaces the handler it installed before. ``level``: a logging level name or number."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if h.get_name() == _HANDLER_NAME:
            root.removeHandler(h)
    root.addHandler(make_handler(fmt, stream))
    root.setLevel(level)
    for name in QUIET_LIBRARIES:  # they set their own loggers to DEBUG
        logging.getLogger(name).setLevel(max(root.level, logging.WARNING))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
