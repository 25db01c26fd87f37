"""Ids in JSON request bodies: a string, or an integer taken as its digits; nothing else.

A click's ``tun_id`` / ``device_id`` comes from the map, where an id may be numeric: ``15216`` and
``"15216"`` name the same tunnel. A float did not (``15216.0`` became ``"15216.0"``: 未找到巷道：15216.0),
nor does a boolean, a list or an object: those are refused with 400 ``字段 tun_id 无效：应为字符串或整数``
before any run starts, and an id holding a line break with ``字段 tun_id 无效：不能含换行或制表符``. The same holds for every id field of a JSON body (the resume's ``session_id`` and
``thread_id``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

ID_TYPE_ERROR = "id_type"
"""The pydantic error type of an id that is neither a string nor an integer (validation_reasons.REASONS)."""
ID_LINE_BREAK_ERROR = "id_line_break"
"""…and of an id holding a line break or a tab: no id has one, and echoed into an error message it would
read as a line the service wrote (other control characters are echoed escaped, see vent_agent.visible)."""


def id_text(value: object) -> str:
    """``value`` as an id's text: a string as is, an integer (not a boolean) as its digits; anything else
    raises the ``id_type`` validation error."""
    if isinstance(value, str):
        if any(ch in value for ch in "\n\r\t\v\f\u2028\u2029"):
            raise PydanticCustomError(ID_LINE_BREAK_ERROR, "不能含换行或制表符")
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise PydanticCustomError(ID_TYPE_ERROR, "应为字符串或整数")


IdText = Annotated[str, BeforeValidator(id_text)]
"""An id field: give it its length (and pattern) with ``Field`` as for a ``str``."""
