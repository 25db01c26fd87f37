"""A catalogue of hostile inputs against every route, on the embedded defaults (SQLite, demo mine,
built-in user service, no model), with an upload cap of 1 MB so oversized bodies stay cheap.

Each case names its route, what is sent and the status the service must answer. Whatever the input,
a refusal is a 4xx in the spec's shape ``{"error": "<Chinese message>"}`` (docs/API_DOCUMENTATION.md
§错误处理); a stream that starts (200) ends with ``done``, an ``error`` event before it when the input
could not be served, and never with the generic internal-error event. Never a 500, never a traceback.

Categories: bad JSON, wrong content types, deeply nested JSON, unknown fields, numbers where strings
are expected, NUL bytes, unicode and path characters in ids, huge titles and texts, very long and
non-ASCII headers, negative and huge ``limit``/``offset``/``after``/``n``, ``Last-Event-ID`` garbage,
oversized and malformed multipart bodies.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from tests.chat_helpers import answering
from tests.helpers import parse_spec_stream, parse_standard_stream
from tests.pg import pg_database
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.api.json_body import ApiRoute
from vent_agent.app import create_app
from vent_agent.settings import Settings

pytestmark = pytest.mark.asyncio(loop_scope="module")

DATA = Path(__file__).parent / "data"
MAX_UPLOAD_MB = 1
TOKEN = {"x-access-token": "demo-token"}
CJK = re.compile(r"[\u4e00-\u9fff]")
INTERNAL_ERROR = "内部错误"
"""The generic stream error of an unexpected exception in a run (api docs §运行的结束): a hidden 500."""


TUN = {"tun_id": "15216", "tun_name": "15216 辅运起坡段", "mode": "fast"}
DEVICE = {"device_id": "FAN-001", "device_name": "主通风机", "device_type": "fan", "mode": "fast"}
OVER_CAP = b"%PDF-1.4\n" + b"0" * (MAX_UPLOAD_MB << 20)


@dataclass(frozen=True)
class Ids:
    """Real resources of the module's service, substituted for ``{session}``, ``{run}``, ``{chat_run}``,
    ``{report}`` and ``{skill}`` in a case's path."""

    session: str
    run: str
    chat_run: str
    report: str
    skill: str


@dataclass
class Service:
    backend: str
    client: httpx.AsyncClient
    ids: Ids


@dataclass(frozen=True)
class Hostile:
    """One hostile request and the answer it must get.

    ``expect``: the status. ``stream``: for a 200 stream, ``"error"`` (an ``error`` event, then
    ``done``) or ``"ok"`` (``done`` without ``error``). ``token``: send the demo token. ``request``:
    the keyword arguments of :meth:`httpx.AsyncClient.request` (json, content, data, files, params,
    headers; a callable ``content`` is called for each request, for a chunked body from a generator).
    ``says``: a text the refusal's ``error`` must contain. ``bug``: a known service bug on the stores
    ``bug_on``, where the case is a strict xfail.
    """

    method: str
    path: str
    expect: int
    stream: str | None = None
    token: bool = True
    request: dict[str, Any] | None = None
    bug: str | None = None
    bug_on: tuple[str, ...] = ()
    says: str | None = None


BACKENDS = ("sqlite", "postgres")


def case(
    name: str,
    method: str,
    path: str,
    expect: int,
    *,
    stream: str | None = None,
    token: bool = True,
    bug: str | None = None,
    bug_on: tuple[str, ...] = BACKENDS,
    says: str | None = None,
    **request: Any,
) -> Any:
    """A catalogue entry as a pytest param named ``name``; ``bug`` describes a known service bug on the
    stores ``bug_on`` (the case is then a strict xfail there, removed by whoever fixes the bug);
    ``says``: a text the refusal's message must contain."""
    return pytest.param(Hostile(method, path, expect, stream, token, request, bug, bug_on, says), id=name)


def nested(depth: int, leaf: Any = 1) -> Any:
    """``[[[…leaf…]]]`` ``depth`` levels deep, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


async def chunked(body: bytes, size: int = 64 << 10) -> AsyncIterator[bytes]:
    """``body`` sent without Content-Length (chunked), ``size`` bytes at a time."""
    for i in range(0, len(body), size):
        yield body[i : i + size]


def zip_bytes(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


SKILL_MD = b"---\nname: evil-pack\ndescription: x\n---\nbody\n"
TOO_DEEP = b"[" * 100_000 + b"]" * 100_000
TOO_DEEP_OBJECT = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
JSON = {"content-type": "application/json"}
ID_TYPE = "请求参数错误：字段 {} 无效：应为字符串或整数"
NOT_JSON = "请求参数错误：请求体不是合法的 JSON"
WANT_JSON = "请求体格式错误：Content-Type 应为 application/json"
NOT_UTF8_BODY = "请求参数错误：请求体不是 UTF-8 编码"
TOO_LONG_NUMBER = "请求参数错误：请求体无法解析：数字过长（整数最多 4300 位）"
NESTED_TOO_DEEP = "请求参数错误：请求体无法解析：嵌套层数过多（最多 500 层）"
WANT_FORM = "请求体格式错误：Content-Type 应为 multipart/form-data"
URLENCODED = {"content-type": "application/x-www-form-urlencoded"}
NOT_UTF8 = "请求参数错误：字段 {} 不是 UTF-8 编码的文本"
BOUNDARY = "xBOUNDARYx"
MULTIPART = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


ZIP_PART = 'Content-Disposition: form-data; name="file"; {}'
"""A file part's headers, ``{}`` its file name parameter."""
UNREADABLE_NAME = "技能包的文件名无效：不是 UTF-8（或 GB18030）编码的文本"
CLOSE = f"--{BOUNDARY}--\r\n".encode()
"""The closing boundary :func:`multipart` ends a body with."""
INCOMPLETE = "请求体格式错误：multipart 表单不完整"


def multipart(*parts: tuple[str, bytes]) -> bytes:
    """A hand-made multipart body: each part is (its header lines, its content); a lone surrogate
    ``\\udcXX`` of the headers is sent as the raw byte ``XX`` (a file name that is not UTF-8)."""
    out = b""
    for headers, content in parts:
        out += f"--{BOUNDARY}\r\n{headers}\r\n\r\n".encode("utf-8", "surrogateescape") + content + b"\r\n"
    return out + CLOSE


PDF_PART = 'Content-Disposition: form-data; name="file"; filename="p.pdf"\r\nContent-Type: application/pdf'

CLICK = "/api/interpret/click/tun"
DEVICE_PATH = "/api/interpret/click/device"
REVIEW = "/api/vent/review/pdf"
CHAT = "/api/chat"
RESUME = "/api/chat/resume"
SESSION = "/api/sessions/{session}"
EVENTS = "/api/runs/{run}/events"
CHAT_EVENTS = "/api/runs/{chat_run}/events"
HISTORY = "/api/chat/history/{session}"
TRACE = "/api/reports/{{report}}/findings/{n}/trace"
SKILL = "/api/skills/{skill}"

# fmt: off
CATALOGUE = [
    # ---- bad JSON -------------------------------------------------------------------------------------
    case("json-truncated", "POST", CLICK, 400, content=b'{"tun_id": "1"', headers=JSON),
    case("json-empty-body", "POST", CLICK, 400, content=b"", headers=JSON),
    case("json-null", "POST", CLICK, 400, json=None),
    case("json-array", "POST", CLICK, 400, json=[TUN]),
    case("json-string", "POST", CLICK, 400, json="15216"),
    case("json-single-quotes", "POST", CLICK, 400, content=b"{'tun_id': '1'}", headers=JSON),
    case("json-invalid-utf8", "POST", CLICK, 400, content=b'{"tun_id": "\xff\xfe", "tun_name": "x"}',
         headers=JSON, says=NOT_UTF8_BODY + "（第 13 个字节"),
    case("json-huge-int", "POST", CLICK, 400, content=b'{"tun_id": ' + b"9" * 5000 + b', "tun_name": "x"}',
         headers=JSON, says=TOO_LONG_NUMBER),
    # a body not in UTF-8, an integer past Python's digit limit: named, not a bare 请求体解析失败
    case("json-gbk-click", "POST", CLICK, 400, says=NOT_UTF8_BODY, headers=JSON,
         content=json.dumps({**TUN, "tun_name": "辅运起坡段"}, ensure_ascii=False).encode("gbk")),
    case("json-gbk-charset-click", "POST", CLICK, 400, says=NOT_UTF8_BODY,
         content=json.dumps({**TUN, "tun_name": "辅运起坡段"}, ensure_ascii=False).encode("gbk"),
         headers={"content-type": "application/json; charset=gbk"}),
    case("json-gbk-title", "PUT", SESSION + "/title", 400, says=NOT_UTF8_BODY, headers=JSON,
         content='{"title": "通风系统"}'.encode("gbk")),
    case("json-invalid-utf8-in-string-resume", "POST", RESUME, 400, says=NOT_UTF8_BODY, headers=JSON,
         content=b'{"session_id": "{session}", "action": "appr\xc3ove"}'),
    case("json-truncated-utf8-thinking", "POST", "/api/model/thinking", 400, says=NOT_UTF8_BODY, headers=JSON,
         content=b'{"level": "\xe9\xab"}'),
    case("json-cesu-surrogate-switch", "POST", "/api/model/switch", 400, says=NOT_UTF8_BODY, headers=JSON,
         content=b'{"model": "\xed\xa0\x80"}'),
    case("json-huge-int-resume", "POST", RESUME, 400, says=TOO_LONG_NUMBER, headers=JSON,
         content=b'{"session_id": "{session}", "action": "approve", "n": -' + b"1" * 5000 + b"}"),
    case("json-huge-int-toggle", "POST", SKILL + "/toggle", 400, says=TOO_LONG_NUMBER, headers=JSON,
         content=b'{"enabled": true, "x": [' + b"7" * 4301 + b"]}"),
    # NaN, Infinity and -Infinity are not JSON, nor a number too large for a float: anywhere in the body
    case("json-nan-id", "POST", CLICK, 400, says=NOT_JSON + "：不能含 NaN",
         content=b'{"tun_id": NaN, "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("json-infinity-id", "POST", CLICK, 400, says=NOT_JSON + "：不能含 Infinity",
         content=b'{"tun_id": Infinity, "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("json-minus-infinity-name", "POST", CLICK, 400, says=NOT_JSON + "：不能含 -Infinity",
         content=b'{"tun_id": "15216", "tun_name": -Infinity, "mode": "fast"}', headers=JSON),
    case("json-nan-device-id", "POST", DEVICE_PATH, 400, says=NOT_JSON,
         content=b'{"device_id": NaN, "device_name": "x", "device_type": "fan", "mode": "fast"}', headers=JSON),
    case("json-nan-unknown-field", "POST", CLICK, 400, says=NOT_JSON,
         content=b'{"tun_id": "15216", "tun_name": "x", "mode": "fast", "extra": {"a": [1, NaN]}}', headers=JSON),
    case("json-overflow-id", "POST", CLICK, 400, says=NOT_JSON + "：数 1e999 超出范围",
         content=b'{"tun_id": 1e999, "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("json-minus-overflow-field", "POST", CLICK, 400, says=NOT_JSON + "：数 -1E+400 超出范围",
         content=b'{"tun_id": "15216", "tun_name": "x", "zoom": -1E+400}', headers=JSON),
    case("json-infinity-resume", "POST", RESUME, 400, says=NOT_JSON,
         content=b'{"session_id": "{session}", "action": "approve", "n": Infinity}', headers=JSON),
    case("json-nan-title", "PUT", SESSION + "/title", 400, says=NOT_JSON, content=b'{"title": NaN}',
         headers=JSON),
    case("json-nan-mode", "PUT", SESSION + "/mode", 400, says=NOT_JSON, content=b'{"mode": NaN}', headers=JSON),
    case("json-infinity-switch", "POST", "/api/model/switch", 400, says=NOT_JSON, content=b'{"model": Infinity}',
         headers=JSON),
    case("json-nan-thinking", "POST", "/api/model/thinking", 400, says=NOT_JSON, content=b'{"level": NaN}',
         headers=JSON),
    case("json-nan-toggle", "POST", SKILL + "/toggle", 400, says=NOT_JSON, content=b'{"enabled": NaN}',
         headers=JSON),
    case("json-finite-float-field-accepted", "POST", CLICK, 200, stream="ok",
         content=b'{"tun_id": "15216", "tun_name": "x", "mode": "fast", "zoom": 1.5e300}', headers=JSON),
    case("json-nan-in-string-accepted", "POST", CLICK, 200, stream="ok",
         content=b'{"tun_id": "15216", "tun_name": "NaN Infinity", "mode": "fast"}', headers=JSON),
    case("json-bad-resume", "POST", RESUME, 400, content=b"{,}", headers=JSON),
    case("json-bad-title", "PUT", SESSION + "/title", 400, content=b'{"title": ', headers=JSON),
    case("json-bad-mode", "PUT", SESSION + "/mode", 400, content=b"plan", headers=JSON),
    case("json-bad-switch", "POST", "/api/model/switch", 400, content=b"{\x00}", headers=JSON),
    case("json-bad-thinking", "POST", "/api/model/thinking", 400, content=b"[", headers=JSON),
    case("json-bad-toggle", "POST", SKILL + "/toggle", 400, content=b"{true}", headers=JSON),
    # a lone surrogate escape (\ud800) is JSON but no Unicode text: a Chinese reason, not pydantic's English
    case("json-lone-surrogate-id", "POST", CLICK, 400, says="字段 tun_id 无效：应为合法的 Unicode 文本",
         content=b'{"tun_id": "\\ud800", "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("json-lone-surrogate-name", "POST", CLICK, 400, says="字段 tun_name 无效：应为合法的 Unicode 文本",
         content=b'{"tun_id": "15216", "tun_name": "a\\udfffb", "mode": "fast"}', headers=JSON),
    case("json-lone-surrogate-title", "PUT", SESSION + "/title", 400, says="字段 title 无效：应为合法的 Unicode 文本",
         content=b'{"title": "\\ud83d"}', headers=JSON),
    case("json-lone-surrogate-resume", "POST", RESUME, 400, says="字段 action 无效",
         content=b'{"session_id": "abc", "action": "\\ud800"}', headers=JSON),
    case("json-lone-surrogate-thinking", "POST", "/api/model/thinking", 400,
         says="字段 level 无效：应为合法的 Unicode 文本", content=b'{"level": "\\ud800"}', headers=JSON),
    case("json-lone-surrogate-thinking-suffix", "POST", "/api/model/thinking", 400,
         says="字段 level 无效：应为合法的 Unicode 文本", content=b'{"level": "high\\udfff"}', headers=JSON),
    case("json-lone-surrogate-switch", "POST", "/api/model/switch", 400,
         says="字段 model 无效：应为合法的 Unicode 文本", content=b'{"model": "\\ud800"}', headers=JSON),
    case("json-surrogate-pair-accepted", "POST", CLICK, 200, stream="ok",
         content=b'{"tun_id": "15216", "tun_name": "\\ud83d\\ude87", "mode": "fast"}', headers=JSON),
    # ---- deeply nested JSON ---------------------------------------------------------------------------
    case("deep-array-click", "POST", CLICK, 400, content=TOO_DEEP, headers=JSON, says=NESTED_TOO_DEEP),
    case("deep-object-device", "POST", DEVICE_PATH, 400, content=TOO_DEEP_OBJECT, headers=JSON,
         says=NESTED_TOO_DEEP),
    case("deep-object-resume", "POST", RESUME, 400, content=TOO_DEEP_OBJECT, headers=JSON, says=NESTED_TOO_DEEP),
    case("deep-object-title", "PUT", SESSION + "/title", 400, content=TOO_DEEP_OBJECT, headers=JSON,
         says=NESTED_TOO_DEEP),
    case("deep-array-toggle", "POST", SKILL + "/toggle", 400, content=TOO_DEEP, headers=JSON, says=NESTED_TOO_DEEP),
    case("deep-50000-thinking", "POST", "/api/model/thinking", 400, headers=JSON, says=NESTED_TOO_DEEP,
         content=b'{"level": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
    case("deep-501-click", "POST", CLICK, 400, json={**TUN, "extra": nested(501)}, says=NESTED_TOO_DEEP),
    case("deep-900-switch", "POST", "/api/model/switch", 400, json={"model": nested(900, "m")},
         says=NESTED_TOO_DEEP),
    case("deep-500-accepted", "POST", CLICK, 200, stream="ok", json={**TUN, "extra": nested(499)}),
    case("deep-value-as-id", "POST", CLICK, 400, json={**TUN, "tun_id": nested(200)}),
    case("deep-unknown-field-ignored", "POST", CLICK, 200, stream="ok", json={**TUN, "extra": nested(200)}),
    case("deep-unknown-field-forbidden", "POST", SKILL + "/toggle", 400,
         json={"enabled": True, "extra": nested(200)}),
    case("deep-title", "PUT", SESSION + "/title", 400, json={"title": nested(200, "t")}),
    # ---- unknown fields -------------------------------------------------------------------------------
    case("unknown-field-click", "POST", CLICK, 200, stream="ok", json={**TUN, "__proto__": {"admin": True}}),
    case("unknown-field-device", "POST", DEVICE_PATH, 200, stream="ok",
         json={**DEVICE, "sql": "'; DROP TABLE runs;--"}),
    case("unknown-field-resume", "POST", RESUME, 409, says="该会话没有待审批的计划",
         json={"session_id": "{session}", "action": "approve", "x": 1}),
    case("unknown-field-title", "PUT", SESSION + "/title", 200, json={"title": "正常标题", "pinned": True}),
    case("unknown-field-mode", "PUT", SESSION + "/mode", 200, json={"mode": "full", "user_name": "lisi"}),
    case("unknown-field-toggle", "POST", SKILL + "/toggle", 400, json={"enabled": True, "x": 1}),
    case("unknown-field-switch", "POST", "/api/model/switch", 400, json={"model": "gpt", "force": True}),
    # ---- numbers (and other types) where strings are expected -----------------------------------------
    case("number-ids-coerced", "POST", CLICK, 200, stream="ok",
         json={"tun_id": 15216, "tun_name": 15216, "mode": "fast"}),
    # an id is a string or an integer (as its digits): a float, a boolean, null, a list, an object are not
    case("number-float-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"),
         json={"tun_id": 15216.0, "tun_name": "x", "mode": "fast"}),
    case("number-huge-float-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"),
         json={"tun_id": 1e308, "tun_name": "x", "mode": "fast"}),
    case("number-exponent-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"),
         content=b'{"tun_id": 15216e0, "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("number-negative-zero-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"),
         content=b'{"tun_id": -0.0, "tun_name": "x", "mode": "fast"}', headers=JSON),
    case("number-float-device-id", "POST", DEVICE_PATH, 400, says=ID_TYPE.format("device_id"),
         json={**DEVICE, "device_id": 1.5}),
    case("null-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"), json={**TUN, "tun_id": None}),
    # a line break in an id would be echoed as a line the service wrote: refused at the boundary
    case("line-break-id", "POST", CLICK, 400, says="请求参数错误：字段 tun_id 无效：不能含换行或制表符",
         json={**TUN, "tun_id": "15216\n伪造行"}),
    case("tab-device-id", "POST", DEVICE_PATH, 400, says="字段 device_id 无效：不能含换行或制表符",
         json={**DEVICE, "device_id": "FAN-001\t"}),
    case("number-device-id-coerced", "POST", DEVICE_PATH, 200, stream="error", json={**DEVICE, "device_id": 42}),
    case("number-negative-id-coerced", "POST", CLICK, 200, stream="error", json={**TUN, "tun_id": -15216}),
    case("number-huge-int-id", "POST", CLICK, 400, says="字段 tun_id 无效：过长",
         content=b'{"tun_id": ' + b"9" * 200 + b', "tun_name": "x"}', headers=JSON),
    case("number-device-type", "POST", DEVICE_PATH, 400, json={**DEVICE, "device_type": 7}),
    case("bool-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"), json={**TUN, "tun_id": True}),
    case("bool-device-id", "POST", DEVICE_PATH, 400, says=ID_TYPE.format("device_id"),
         json={**DEVICE, "device_id": False}),
    case("list-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"), json={**TUN, "tun_id": ["15216"]}),
    case("object-id", "POST", CLICK, 400, says=ID_TYPE.format("tun_id"), json={**TUN, "tun_id": {"$gt": ""}}),
    case("number-mode", "POST", CLICK, 400, json={**TUN, "mode": 1}),
    case("number-resume-session", "POST", RESUME, 404, json={"session_id": 123, "action": "approve"},
         says="会话 123 不存在"),
    case("float-resume-session", "POST", RESUME, 400, json={"session_id": 123.0, "action": "approve"},
         says=ID_TYPE.format("session_id")),
    case("bool-resume-thread", "POST", RESUME, 400, says=ID_TYPE.format("thread_id"),
         json={"session_id": "{session}", "thread_id": True, "action": "approve"}),
    case("float-resume-thread", "POST", RESUME, 400, says=ID_TYPE.format("thread_id"),
         json={"session_id": "{session}", "thread_id": 2.5, "action": "approve"}),
    case("number-resume-action", "POST", RESUME, 400, json={"session_id": "{session}", "action": 1}),
    case("number-title", "PUT", SESSION + "/title", 400, json={"title": 12345}),
    case("number-session-mode", "PUT", SESSION + "/mode", 400, json={"mode": 0}),
    case("number-model", "POST", "/api/model/switch", 400, json={"model": 1}),
    case("number-thinking", "POST", "/api/model/thinking", 400, json={"level": 0}),
    case("number-enabled", "POST", SKILL + "/toggle", 400, json={"enabled": 2}),
    case("number-chat-mode", "POST", CHAT, 400, data={"message": "你好", "mode": "1"}),
    case("word-force-refresh", "POST", REVIEW, 400, files={"file": ("p.pdf", b"%PDF-1.4\n")},
         data={"force_refresh": "maybe"}),
    # ---- wrong content types --------------------------------------------------------------------------
    # a JSON route names the Content-Type, not the body it could then not read as an object; a form route
    # names it too, not the fields it then found missing
    case("text-plain-click", "POST", CLICK, 400, content=json.dumps(TUN).encode(),
         headers={"content-type": "text/plain"}, says=WANT_JSON + "（收到 text/plain）"),
    case("text-plain-device", "POST", DEVICE_PATH, 400, content=json.dumps(DEVICE).encode(),
         headers={"content-type": "text/plain; charset=utf-8"}, says=WANT_JSON + "（收到 text/plain）"),
    case("form-click", "POST", CLICK, 400, data={"tun_id": "15216", "tun_name": "x"},
         says=WANT_JSON + "（收到 application/x-www-form-urlencoded）"),
    case("multipart-click", "POST", CLICK, 400, files={"tun_id": ("a", b"15216")},
         says=WANT_JSON + "（收到 multipart/form-data）"),
    case("no-content-type-click", "POST", CLICK, 400, content=json.dumps(TUN).encode(),
         says=WANT_JSON + "（请求未给出 Content-Type）"),
    case("json-suffix-click", "POST", CLICK, 200, stream="ok", content=json.dumps(TUN).encode(),
         headers={"content-type": "application/problem+json"}),
    case("json-charset-click", "POST", CLICK, 200, stream="ok", content=json.dumps(TUN).encode(),
         headers={"content-type": "Application/JSON; charset=UTF-8"}),
    case("json-array-names-the-object", "POST", CLICK, 400, json=[TUN], says="请求体格式错误：应为 JSON 对象"),
    case("text-plain-empty-click", "POST", CLICK, 400, content=b"", headers={"content-type": "text/plain"},
         says="缺少请求体"),
    case("form-resume", "POST", RESUME, 400, data={"session_id": "{session}", "action": "approve"},
         says=WANT_JSON),
    case("text-plain-resume", "POST", RESUME, 400, headers={"content-type": "text/plain"},
         content=b'{"session_id": "abc", "action": "approve"}', says=WANT_JSON),
    case("text-title", "PUT", SESSION + "/title", 400, content=b'{"title": "x"}',
         headers={"content-type": "text/plain"}, says=WANT_JSON),
    case("form-mode", "PUT", SESSION + "/mode", 400, data={"mode": "plan"}, says=WANT_JSON),
    case("no-content-type-switch", "POST", "/api/model/switch", 400, content=b'{"model": "x"}', says=WANT_JSON),
    case("text-thinking", "POST", "/api/model/thinking", 400, content=b'{"level": "off"}',
         headers={"content-type": "text/plain"}, says=WANT_JSON),
    case("text-toggle", "POST", SKILL + "/toggle", 400, content=b'{"enabled": true}',
         headers={"content-type": "text/plain"}, says=WANT_JSON),
    case("json-chat", "POST", CHAT, 400, json={"message": "你好"}, says=WANT_FORM + "（收到 application/json）"),
    case("text-chat", "POST", CHAT, 400, content="message=你好".encode(), headers={"content-type": "text/plain"},
         says=WANT_FORM),
    case("no-content-type-chat", "POST", CHAT, 400, content=b"message=hi", says=WANT_FORM),
    case("json-review", "POST", REVIEW, 400, json={"file": "%PDF-1.4"}, says=WANT_FORM),
    case("raw-pdf-review", "POST", REVIEW, 400, content=b"%PDF-1.4\n",
         headers={"content-type": "application/pdf"}, says=WANT_FORM + "（收到 application/pdf）"),
    case("json-skill-upload", "POST", "/api/skills/upload", 400, json={"file": "x"}, says=WANT_FORM),
    case("zip-skill-upload", "POST", "/api/skills/upload", 400, content=zip_bytes({"SKILL.md": SKILL_MD}),
         headers={"content-type": "application/zip"}, says=WANT_FORM),
    # a route that needs a file cannot get it urlencoded (curl's default type for --data-binary @plan.pdf)
    case("urlencoded-pdf-review", "POST", REVIEW, 400, says=WANT_FORM + "（收到 application/x-www-form-urlencoded）",
         content=(DATA / "plan-2026-08-a.pdf").read_bytes(), headers=URLENCODED),
    case("urlencoded-scanned-pdf-review", "POST", REVIEW, 400, says=WANT_FORM + "（收到 application/x-www-form-urlencoded）",
         content=(DATA / "plan-2026-08-b-scanned.pdf").read_bytes(), headers=URLENCODED),
    case("urlencoded-fields-review", "POST", REVIEW, 400, says=WANT_FORM + "（收到 application/x-www-form-urlencoded）",
         data={"file": "%PDF-1.4", "message": "审查"}),
    case("urlencoded-zip-skill-upload", "POST", "/api/skills/upload", 400,
         says=WANT_FORM + "（收到 application/x-www-form-urlencoded）", content=zip_bytes({"SKILL.md": SKILL_MD}),
         headers=URLENCODED),
    case("urlencoded-fields-skill-upload", "POST", "/api/skills/upload", 400,
         says=WANT_FORM + "（收到 application/x-www-form-urlencoded）", data={"file": "pack.zip"}),
    case("urlencoded-chat-accepted", "POST", CHAT, 200, stream="error", data={"message": "你好"}),
    # urlencoded text is UTF-8 as multipart text is: not made U+FFFD and stored (a session titled "���")
    case("urlencoded-chat-surrogate-bytes", "POST", CHAT, 400, says=NOT_UTF8.format("message"),
         content=b"message=%ED%A0%80", headers=URLENCODED),
    case("urlencoded-chat-ff", "POST", CHAT, 400, says=NOT_UTF8.format("message"), content=b"message=%FF",
         headers=URLENCODED),
    case("urlencoded-chat-raw-byte", "POST", CHAT, 400, says=NOT_UTF8.format("message"),
         content=b"message=\xe9t\xe9", headers=URLENCODED),
    case("urlencoded-chat-gbk", "POST", CHAT, 400, says=NOT_UTF8.format("message"),
         content=b"message=%C4%E3%BA%C3", headers=URLENCODED),
    case("urlencoded-chat-truncated-utf8", "POST", CHAT, 400, says=NOT_UTF8.format("message"),
         content=b"message=%E4%BD", headers=URLENCODED),
    case("urlencoded-chat-mode", "POST", CHAT, 400, says=NOT_UTF8.format("mode"),
         content=b"message=hi&mode=%80", headers=URLENCODED),
    case("urlencoded-chat-field-name", "POST", CHAT, 400, says="表单字段名 不是 UTF-8 编码的文本",
         content=b"message=hi&%FF=1", headers=URLENCODED),
    case("urlencoded-chat-utf8-accepted", "POST", CHAT, 200, stream="error",
         content=b"message=%E5%AE%A1%E6%9F%A5+%E9%A3%8E%E9%87%8F", headers=URLENCODED),
    case("multipart-no-boundary", "POST", REVIEW, 400, content=b"--x\r\n",
         headers={"content-type": "multipart/form-data"}),
    case("multipart-garbage", "POST", REVIEW, 400, content=b"\x00\xff garbage \r\n\r\n--", headers=MULTIPART),
    # a body that ends before its closing boundary is an incomplete form, not one missing a field it sent
    case("multipart-unterminated", "POST", REVIEW, 400, says=INCOMPLETE,
         content=f"--{BOUNDARY}\r\n{PDF_PART}\r\n\r\n%PDF-1.4 no end".encode(), headers=MULTIPART),
    case("multipart-no-closing-chat", "POST", CHAT, 400, says=INCOMPLETE, headers=MULTIPART,
         content=multipart(('Content-Disposition: form-data; name="message"', "你好".encode()))[: -len(CLOSE)]),
    case("multipart-no-closing-review", "POST", REVIEW, 400, says=INCOMPLETE, headers=MULTIPART,
         content=multipart((PDF_PART, b"%PDF-1.4\n%%EOF"))[: -len(CLOSE)]),
    case("multipart-no-closing-skill", "POST", "/api/skills/upload", 400, says=INCOMPLETE, headers=MULTIPART,
         content=multipart((PDF_PART.replace("p.pdf", "s.zip"), zip_bytes({"SKILL.md": SKILL_MD})))[: -len(CLOSE)]),
    case("multipart-closing-cut", "POST", CHAT, 400, says=INCOMPLETE, headers=MULTIPART,
         content=multipart(('Content-Disposition: form-data; name="message"', b"hi"))[:-4]),
    case("multipart-cut-in-headers", "POST", CHAT, 400, says=INCOMPLETE, headers=MULTIPART,
         content=f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n'
                 f'--{BOUNDARY}\r\nContent-Disposition: form-da'.encode()),
    case("multipart-cut-in-second-part", "POST", CHAT, 400, says=INCOMPLETE, headers=MULTIPART,
         content=multipart(('Content-Disposition: form-data; name="message"', "审查".encode()),
                           (PDF_PART, b"%PDF-1.4\n" + b"0" * 1000))[:-200]),
    case("multipart-empty-body", "POST", REVIEW, 400, says=INCOMPLETE, headers=MULTIPART, content=b""),
    case("multipart-chunked-no-closing", "POST", CHAT, 400, says=INCOMPLETE, headers=MULTIPART,
         content=lambda: chunked(multipart(('Content-Disposition: form-data; name="message"', b"hi"))[:-len(CLOSE)])),
    case("multipart-epilogue-accepted", "POST", CHAT, 200, stream="error", headers=MULTIPART,
         content=multipart(('Content-Disposition: form-data; name="message"', b"hi")) + b"epilogue\r\n"),
    case("multipart-closing-without-crlf-accepted", "POST", CHAT, 200, stream="error", headers=MULTIPART,
         content=multipart(('Content-Disposition: form-data; name="message"', b"hi"))[:-2]),
    case("multipart-no-disposition", "POST", CHAT, 400,
         content=multipart(("Content-Type: text/plain", b"hello")), headers=MULTIPART),
    case("multipart-chat-garbage", "POST", CHAT, 400, content=b"\r\n--" * 1000, headers=MULTIPART),
    # ---- NUL bytes ------------------------------------------------------------------------------------
    case("nul-tun-id", "POST", CLICK, 200, stream="error", json={**TUN, "tun_id": "\x00"}),
    case("nul-tun-name", "POST", CLICK, 200, stream="ok", json={**TUN, "tun_name": "a\x00b"}),
    case("nul-device-type", "POST", DEVICE_PATH, 400, json={**DEVICE, "device_type": "\x00"}),
    case("nul-title", "PUT", SESSION + "/title", 400, json={"title": "a\x00b"}),
    case("nul-chat-message", "POST", CHAT, 400, data={"message": "你好\x00"}),
    case("nul-chat-message-in-session", "POST", CHAT, 400, data={"message": "\x00", "session_id": "{session}"}),
    case("nul-chat-session", "POST", CHAT, 400, data={"message": "你好", "session_id": "a\x00"}),
    case("nul-resume-session", "POST", RESUME, 400, json={"session_id": "\x00", "action": "approve"}),
    case("nul-session-path", "GET", "/api/sessions/%00/mode", 400),
    case("nul-run-path", "GET", "/api/runs/%00/events", 404),
    case("nul-cancel-path", "POST", "/api/runs/a%00b/cancel", 404),
    case("nul-skill-path", "GET", "/api/skills/%00", 400),
    case("nul-report-path", "GET", "/static/reports/%00.docx", 404),
    case("nul-provenance-path", "GET", "/api/reports/%00/provenance", 404),
    case("nul-model", "POST", "/api/model/switch", 400, json={"model": "\x00"}),
    case("nul-thinking", "POST", "/api/model/thinking", 400, json={"level": "off\x00"}),
    case("nul-pdf-filename", "POST", REVIEW, 400, headers=MULTIPART,
         content=multipart((PDF_PART.replace("p.pdf", "a\x00.pdf"), b"not a pdf"))),
    case("nul-pdf-body", "POST", REVIEW, 200, stream="error",
         files={"file": ("p.pdf", b"%PDF-1.4\n" + b"\x00" * 4096)}),
    case("nul-review-message", "POST", REVIEW, 200, stream="error",
         files={"file": ("p.pdf", b"%PDF-1.4\n\x00")}, data={"message": "\x00"}),
    # ---- unicode and path characters in ids -----------------------------------------------------------
    case("traversal-tun-id", "POST", CLICK, 200, stream="error", json={**TUN, "tun_id": "../../etc/passwd"}),
    case("unicode-tun-id", "POST", CLICK, 200, stream="error", json={**TUN, "tun_id": "巷道🚇\u202e\u0301"}),
    case("max-length-emoji-id", "POST", DEVICE_PATH, 200, stream="error",
         json={**DEVICE, "device_id": "🚇" * 128}),
    case("over-length-id", "POST", CLICK, 400, json={**TUN, "tun_id": "1" * 129}),
    case("whitespace-id", "POST", CLICK, 400, json={**TUN, "tun_id": " \t\n "}),
    case("traversal-session-path", "GET", "/api/sessions/..%2F..%2Fetc%2Fpasswd/mode", 404),
    case("dotdot-session-path", "GET", "/api/sessions/../mode", 404),
    case("unicode-session-path", "GET", "/api/sessions/%E4%BC%9A%E8%AF%9D/mode", 400),
    case("space-session-path", "DELETE", "/api/sessions/a%20b", 400),
    case("newline-session-path", "PUT", "/api/sessions/abc%0A/pin", 400),
    case("long-session-path", "GET", "/api/sessions/" + "a" * 129 + "/context", 400),
    case("unknown-session", "GET", "/api/chat/history/no-such-session", 404),
    case("colon-dots-session", "GET", "/api/sessions/..:..:../mode", 404),
    case("unicode-chat-session", "POST", CHAT, 400, data={"message": "你好", "session_id": "会话"}),
    case("traversal-chat-thread", "POST", CHAT, 400, data={"message": "你好", "thread_id": "../x"}),
    case("traversal-review-session", "POST", REVIEW, 400, files={"file": ("p.pdf", b"%PDF-1.4\n")},
         data={"session_id": "../../x"}),
    case("unicode-resume-thread", "POST", RESUME, 400,
         json={"session_id": "{session}", "thread_id": "线程", "action": "approve"}),
    case("traversal-run", "GET", "/api/runs/..%2F..%2Fhealthz/events", 404),
    case("unicode-run", "POST", "/api/runs/%F0%9F%9A%87/cancel", 404),
    case("overlong-utf8-run", "GET", "/api/runs/%C0%AF/events", 404),
    case("long-run-id", "GET", "/api/runs/" + "r" * 5000 + "/events", 404),
    case("traversal-report", "GET", "/static/reports/..%2Fvent_agent.db", 404),
    case("dotdot-report", "GET", "/static/reports/%2E%2E.docx", 404),
    case("newline-report-id", "GET", "/api/reports/{report}%0A/provenance", 404),
    case("traversal-trace", "GET", "/api/reports/..%2F..%2Fx/findings/1/trace", 404),
    case("dotdot-skill", "GET", "/api/skills/%2E%2E", 400),
    case("traversal-skill", "POST", "/api/skills/..%2F..%2Fetc/toggle", 404, json={"enabled": False}),
    case("unicode-skill", "GET", "/api/skills/%E6%8A%80%E8%83%BD", 400),
    case("newline-skill", "GET", SKILL + "%0A", 400),
    case("newline-skill-toggle", "POST", SKILL + "%0A/toggle", 400, json={"enabled": False}),
    case("traversal-upload-name", "POST", "/api/skills/upload", 400,
         files={"file": ("../../evil.zip", zip_bytes({"SKILL.md": SKILL_MD}))}),
    # a zip name that is no text is refused as such (not "仅支持 .zip 格式" for the plan.pdf put in its place)
    case("unreadable-extended-name-skill", "POST", "/api/skills/upload", 400, says=UNREADABLE_NAME, headers=MULTIPART,
         content=multipart((ZIP_PART.format("filename*=UTF-8''%ED%A0%80.zip"), zip_bytes({"SKILL.md": SKILL_MD})))),
    case("unreadable-extended-ff-skill", "POST", "/api/skills/upload", 400, says=UNREADABLE_NAME, headers=MULTIPART,
         content=multipart((ZIP_PART.format("filename*=utf-8''%FF%FEpack.zip"), zip_bytes({"SKILL.md": SKILL_MD})))),
    case("unreadable-raw-name-skill", "POST", "/api/skills/upload", 400, says=UNREADABLE_NAME, headers=MULTIPART,
         content=multipart((ZIP_PART.format('filename="\udcff\udcfe.zip"'), b"PK"))),
    case("unreadable-name-review-accepted", "POST", REVIEW, 200, stream="error", headers=MULTIPART,
         content=multipart((ZIP_PART.format("filename*=UTF-8''%ED%A0%80.pdf"), b"%PDF-1.4\n%%EOF"))),
    case("traversal-zip-member", "POST", "/api/skills/upload", 400,
         files={"file": ("evil.zip", zip_bytes({"../evil-pack/SKILL.md": SKILL_MD}))}),
    case("zip-bomb", "POST", "/api/skills/upload", 400,
         files={"file": ("bomb.zip", zip_bytes({"SKILL.md": SKILL_MD, "big.txt": b"\x00" * (16 << 20)}))}),
    case("traversal-pdf-filename", "POST", REVIEW, 200, stream="error",
         files={"file": ("../../../etc/cron.d/x.pdf", b"%PDF-1.4\n%%EOF")}),
    # ---- huge titles and texts ------------------------------------------------------------------------
    case("title-101", "PUT", SESSION + "/title", 400, json={"title": "标" * 101}),
    case("title-100-cjk", "PUT", SESSION + "/title", 200, json={"title": "标" * 100}),
    case("title-100-emoji", "PUT", SESSION + "/title", 200, json={"title": "🚇" * 100}),
    case("title-huge", "PUT", SESSION + "/title", 413, json={"title": "x" * (2 << 20)}),  # over the JSON body limit
    case("title-blank", "PUT", SESSION + "/title", 400, json={"title": " \u3000\t "}),
    case("title-rtl-override", "PUT", SESSION + "/title", 400, json={"title": "abc\u202edef"}),
    case("chat-message-over-limit", "POST", CHAT, 400, data={"message": "风" * 8001}),
    case("chat-message-huge-part", "POST", CHAT, 413, data={"message": "x" * (2 << 20)}),  # over the body limit
    case("chat-message-blank", "POST", CHAT, 400, data={"message": "\u3000 \n"}),
    case("tun-name-over-limit", "POST", CLICK, 400, json={**TUN, "tun_name": "名" * 201}),
    case("review-message-over-limit", "POST", REVIEW, 400, files={"file": ("p.pdf", b"%PDF-1.4\n")},
         data={"message": "x" * 4001}),
    case("many-form-fields", "POST", CHAT, 400, headers=MULTIPART,
         content=multipart(*[(f'Content-Disposition: form-data; name="f{i}"', b"1") for i in range(1100)])),
    # ---- oversized multipart bodies -------------------------------------------------------------------
    case("oversized-review-pdf", "POST", REVIEW, 413,
         files={"file": ("big.pdf", OVER_CAP, "application/pdf")}),
    case("oversized-chat-attachment", "POST", CHAT, 413, data={"message": "审查这份计划"},
         files={"file": ("big.pdf", OVER_CAP, "application/pdf")}),
    case("oversized-skill-zip", "POST", "/api/skills/upload", 413, files={"file": ("big.zip", OVER_CAP)}),
    # one limit named however the body comes: with a Content-Length, chunked, with a Content-Type the route
    # does not take (the chunked upload named the cap plus the framing allowance, 2 MB)
    case("oversized-review-sized", "POST", REVIEW, 413, says="请求体过大：上限 1 MB", headers=MULTIPART,
         content=multipart((PDF_PART, OVER_CAP + b"0" * (1 << 20)))),
    case("oversized-review-chunked", "POST", REVIEW, 413, says="请求体过大：上限 1 MB", headers=MULTIPART,
         content=lambda: chunked(multipart((PDF_PART, OVER_CAP + b"0" * (1 << 20))))),
    case("oversized-chat-chunked", "POST", CHAT, 413, says="请求体过大：上限 1 MB", headers=MULTIPART,
         content=lambda: chunked(multipart((PDF_PART, OVER_CAP + b"0" * (1 << 20))))),
    case("oversized-skill-chunked", "POST", "/api/skills/upload", 413, says="请求体过大：上限 1 MB",
         headers=MULTIPART, content=lambda: chunked(multipart((PDF_PART, OVER_CAP + b"0" * (1 << 20))))),
    case("oversized-json-as-multipart", "POST", CLICK, 413, says="请求体过大：上限 1 MB", headers=MULTIPART,
         content=b"x" * (3 << 20)),
    case("oversized-toggle", "POST", SKILL + "/toggle", 413, says="请求体过大：上限 1 MB", headers=JSON,
         content=b'{"enabled": true' + b" " * (3 << 19) + b"}"),  # JSON: under the JSON limit, not the upload one
    case("oversized-json-chunked", "POST", RESUME, 413, says="请求体过大：上限 1 MB", headers=JSON,
         content=lambda: chunked(b"[" + b" " * (3 << 20) + b"]")),
    case("many-files", "POST", REVIEW, 400, content=multipart(*[(PDF_PART, b"%PDF-1.4\n")] * 1100),
         headers=MULTIPART),
    case("empty-pdf", "POST", REVIEW, 400, files={"file": ("p.pdf", b"")}),
    case("not-a-pdf", "POST", REVIEW, 400, files={"file": ("p.pdf", b"PK\x03\x04 a zip")}),
    case("not-a-zip", "POST", "/api/skills/upload", 400, files={"file": ("s.zip", b"%PDF-1.4")}),
    # ---- very long and non-ASCII headers --------------------------------------------------------------
    case("long-token", "GET", "/api/sessions", 401, token=False, headers={"x-access-token": "t" * 100_000}),
    case("non-ascii-token", "GET", "/api/sessions", 401, token=False,
         headers={"x-access-token": "令牌".encode()}),
    case("control-char-token", "GET", "/api/sessions", 401, token=False,
         headers={"x-access-token": "demo-token\x01"}),
    case("blank-token", "PUT", SESSION + "/pin", 401, token=False, headers={"x-access-token": "   "}),
    case("long-junk-header", "GET", "/api/sessions", 200, headers={"x-junk": "j" * (1 << 20)}),
    case("long-content-type", "POST", CLICK, 400, content=b"{}",
         headers={"content-type": "application/json; " + "a=b; " * 20_000}),
    case("long-last-event-id", "GET", EVENTS, 400, headers={"last-event-id": "1" * 100_000}),
    # ---- negative and huge limit / offset / after / n -------------------------------------------------
    case("limit-zero", "GET", "/api/sessions", 400, params={"limit": "0"}),
    case("limit-negative", "GET", "/api/sessions", 400, params={"limit": "-1"}),
    case("limit-huge", "GET", "/api/sessions", 400, params={"limit": "9" * 40}),
    case("limit-float", "GET", "/api/sessions", 400, params={"limit": "1.5"}),
    case("limit-exponent", "GET", "/api/sessions", 400, params={"limit": "1e3"}),
    case("limit-nan", "GET", "/api/sessions", 400, params={"limit": "NaN"}),
    case("limit-nul", "GET", "/api/sessions", 400, params={"limit": "\x00"}),
    case("limit-fullwidth", "GET", "/api/sessions", 400, params={"limit": "２０"}),
    case("offset-negative", "GET", "/api/sessions", 400, params={"offset": "-5"}),
    case("offset-huge", "GET", "/api/sessions", 400, params={"offset": str(10**9 + 1)}),
    case("offset-max", "GET", "/api/sessions", 200, params={"offset": str(10**9), "limit": "200"}),
    case("history-limit-over", "GET", HISTORY, 400, params={"limit": "1001"}),
    case("history-offset-negative", "GET", HISTORY, 400, params={"offset": "-1"}),
    case("history-offset-max", "GET", HISTORY, 200, params={"offset": str(10**9)}),
    case("history-repeated-limit", "GET", HISTORY, 200, params=[("limit", "1"), ("limit", "5")]),
    case("after-negative", "GET", EVENTS, 400, params={"after": "-1"}),
    case("after-huge", "GET", EVENTS, 400, params={"after": str(10**18 + 1)}),
    case("after-text", "GET", EVENTS, 400, params={"after": "abc"}),
    case("after-max", "GET", EVENTS, 204, params={"after": str(10**18)}),
    case("trace-n-zero", "GET", TRACE.format(n="0"), 400),
    case("trace-n-negative", "GET", TRACE.format(n="-1"), 400),
    case("trace-n-huge", "GET", TRACE.format(n="9" * 40), 400),
    case("trace-n-text", "GET", TRACE.format(n="abc"), 400),
    case("trace-n-beyond", "GET", TRACE.format(n="10000"), 404),
    # ---- Last-Event-ID garbage ------------------------------------------------------------------------
    case("lei-text", "GET", EVENTS, 400, headers={"last-event-id": "abc"}),
    case("lei-negative", "GET", EVENTS, 400, headers={"last-event-id": "-1"}),
    case("lei-float", "GET", EVENTS, 400, headers={"last-event-id": "1.0"}),
    case("lei-hex", "GET", EVENTS, 400, headers={"last-event-id": "0x10"}),
    case("lei-exponent", "GET", EVENTS, 400, headers={"last-event-id": "1e3"}),
    case("lei-list", "GET", EVENTS, 400, headers={"last-event-id": "1,2"}),
    case("lei-empty", "GET", EVENTS, 400, headers={"last-event-id": ""}),
    case("lei-19-digits", "GET", EVENTS, 400, headers={"last-event-id": "9" * 19}),
    case("lei-arabic-digits", "GET", EVENTS, 400, headers={"last-event-id": "٣".encode()}),
    case("lei-nul", "GET", EVENTS, 400, headers={"last-event-id": "1\x00"}),
    case("lei-beyond-end", "GET", EVENTS, 204, headers={"last-event-id": "999999"}),
    case("lei-padded", "GET", EVENTS, 200, stream="ok", headers={"last-event-id": " 0 "}),
    case("lei-session-run-no-token", "GET", CHAT_EVENTS, 401, token=False,
         headers={"last-event-id": "garbage"}),
    case("lei-session-run-other-user", "GET", CHAT_EVENTS, 404, token=False,
         headers={"last-event-id": "1", "x-access-token": "demo-token-2"}),
    # ---- methods and paths that do not exist ----------------------------------------------------------
    case("unknown-route", "GET", "/api/../../etc/passwd", 404),
    case("wrong-method", "PATCH", SESSION + "/title", 405, json={"title": "x"}),
    case("wrong-method-click", "GET", CLICK, 405),
    case("ops-junk-query", "GET", "/healthz", 200, params={"x": "\x00" * 100}),
    case("metrics-junk-query", "GET", "/metrics", 200, params={"name[]": "🚇"}),
]
# fmt: on


async def _seed(app: Any, client: httpx.AsyncClient) -> Ids:
    """Make the resources the catalogue aims at: a session with a finished chat run (answered by a
    scripted model: the service has none, and a turn without one opens no session), a finished click
    run, a review report, and the name of an installed skill."""
    with answering(app, ScriptedChatModel(script=[], fallback=says("你好。"))):
        chat = await client.post(CHAT, data={"message": "你好"}, headers=TOKEN)
    assert chat.status_code == 200, chat.text
    click = await client.post(CLICK, json=TUN)
    assert click.status_code == 200, click.text
    pdf = DATA / "plan-2026-08-a.pdf"
    review = await client.post(REVIEW, files={"file": (pdf.name, pdf.read_bytes(), "application/pdf")})
    done = parse_spec_stream(review.text)[-1]
    assert done["type"] == "done" and done.get("download_url"), done
    report = done["download_url"].rsplit("/", 1)[1].removesuffix(".docx")
    skills = (await client.get("/api/skills")).json()["skills"]
    return Ids(
        session=chat.headers["x-session-id"],
        run=click.headers["x-run-id"],
        chat_run=chat.headers["x-run-id"],
        report=report,
        skill=skills[0]["name"],
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Service]:
    """The service on the embedded defaults (upload cap 1 MB, no OCR), with its resources seeded; its
    store SQLite, or (``request.param == "postgres"``) a fresh PostgreSQL database (tests/pg.py: skipped
    without PostgreSQL, failed under ``CI=true``). Unhandled exceptions come back as the 500 the client
    would see, not raised into the test."""
    data_dir = tmp_path_factory.mktemp("hostile") / "data"
    with ExitStack() as stack:
        url = stack.enter_context(pg_database()) if request.param == "postgres" else None
        settings = Settings(
            _env_file=None,
            data_dir=data_dir,
            database_url=url,
            max_upload_mb=MAX_UPLOAD_MB,
            ocr_engine="none",
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://testserver", timeout=60
            ) as client:
                yield Service(request.param, client, await _seed(app, client))


def _api_routes(routes: list[BaseRoute]) -> Iterator[APIRoute]:
    """The API routes among ``routes``, those of included routers too (FastAPI keeps them apart)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _api_routes(inner.routes)


async def test_every_api_route_reads_json_strictly(tmp_path: Path) -> None:
    """Every route of the app is an :class:`ApiRoute` (its JSON body read without NaN or Infinity): a
    router made without ``route_class=ApiRoute`` fails here."""
    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d"))
    routes = list(_api_routes(app.router.routes))
    assert len(routes) > 20
    plain = [f"{sorted(r.methods or ())} {r.path}" for r in routes if not isinstance(r, ApiRoute)]
    assert plain == []


def _fill(value: Any, ids: Ids) -> Any:
    """``value`` with ``{session}``-style placeholders in its strings replaced by the seeded ids."""
    if isinstance(value, str) and "{" in value:
        for name, real in vars(ids).items():
            value = value.replace("{" + name + "}", real)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


def assert_spec_error(resp: httpx.Response) -> None:
    """A refusal in the spec's shape: JSON ``{"error": "<message with Chinese>"}``, no traceback."""
    assert resp.headers.get("content-type", "").startswith("application/json"), resp.headers
    body = resp.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    assert isinstance(body["error"], str) and CJK.search(body["error"]), body
    assert "Traceback" not in resp.text


def assert_stream(resp: httpx.Response, *, standard: bool, want_error: bool) -> None:
    """A 200 stream that ends with ``done``; an ``error`` event before it iff ``want_error``; never the
    generic internal error."""
    assert resp.headers["content-type"].startswith("text/event-stream")
    events = [e for _, e in parse_standard_stream(resp.text)] if standard else parse_spec_stream(resp.text)
    assert events and events[-1]["type"] == "done", events[-3:]
    errors = [e for e in events if e["type"] == "error"]
    assert bool(errors) == want_error, errors or events[-3:]
    for e in errors:
        assert CJK.search(e["message"]) and INTERNAL_ERROR not in e["message"], e


@pytest.mark.parametrize("hostile", CATALOGUE)
@pytest.mark.parametrize("service", BACKENDS, indirect=True)
async def test_hostile_input_is_refused_in_spec_shape(
    service: Service, hostile: Hostile, request: pytest.FixtureRequest
) -> None:
    if hostile.bug and service.backend in hostile.bug_on:
        request.applymarker(pytest.mark.xfail(strict=True, reason=hostile.bug))
    kwargs = dict(hostile.request or {})
    if callable(kwargs.get("content")):
        kwargs["content"] = kwargs["content"]()
    headers = {**(TOKEN if hostile.token else {}), **kwargs.pop("headers", {})}
    for key in ("json", "data"):
        if key in kwargs:
            kwargs[key] = _fill(kwargs[key], service.ids)
    path = _fill(hostile.path, service.ids)
    resp = await service.client.request(hostile.method, path, headers=headers, **kwargs)
    assert resp.status_code == hostile.expect, resp.text[:600]
    if resp.status_code >= 400:
        assert_spec_error(resp)
        if hostile.says:
            assert hostile.says in resp.json()["error"], resp.json()
    elif resp.status_code == 200 and hostile.stream:
        assert_stream(resp, standard=path.startswith("/api/runs/"), want_error=hostile.stream == "error")
