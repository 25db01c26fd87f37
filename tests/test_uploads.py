"""Uploads as users' clients send them: file names (RFC 5987, GBK bytes, percent-encoded, full-width
punctuation), text fields that are not UTF-8, Chinese 4xx texts, body size limits, the review's session
(ownership, history), the upload disk cap, retention of review files outside sessions, /metrics."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote

import httpx
import pytest
from fastapi import APIRouter, FastAPI, File, Form, UploadFile

from tests.helpers import parse_spec_stream
from vent_agent.api.errors import install_error_handlers
from vent_agent.api.uploads import UploadRoute
from vent_agent.documents.file_names import file_name_unreadable, header_file_name, safe_file_name
from vent_agent.review.service.retention import ReviewFileSweep
from vent_agent.sessions import store
from vent_agent.settings import Settings
from vent_agent.store.models import ReportRow, utcnow

NAME = "配风计划（8月）.pdf"
TOKEN = {"x-access-token": "demo-token"}


def _echo_app() -> FastAPI:
    """An app with one upload route behind UploadRoute that answers the file name and the message."""
    app = FastAPI()
    install_error_handlers(app)
    router = APIRouter(route_class=UploadRoute)

    @router.post("/up")
    async def up(
        file: Annotated[UploadFile, File()], message: Annotated[str | None, Form()] = None
    ) -> dict[str, Any]:
        return {"name": safe_file_name(file.filename), "message": message, "size": len(await file.read())}

    app.include_router(router)
    return app


def _multipart(disposition: bytes, body: bytes = b"%PDF-1.4 x", extra: bytes = b"") -> tuple[bytes, str]:
    boundary = b"XyZ123"
    data = (
        extra
        + b"--"
        + boundary
        + b'\r\nContent-Disposition: form-data; name="file"; '
        + disposition
        + b"\r\nContent-Type: application/pdf\r\n\r\n"
        + body
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )
    return data, f"multipart/form-data; boundary={boundary.decode()}"


def _field(name: bytes, value: bytes) -> bytes:
    return b'--XyZ123\r\nContent-Disposition: form-data; name="' + name + b'"\r\n\r\n' + value + b"\r\n"


async def _post(disposition: bytes, extra: bytes = b"") -> httpx.Response:
    data, ctype = _multipart(disposition, extra=extra)
    transport = httpx.ASGITransport(app=_echo_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        return await c.post("/up", content=data, headers={"content-type": ctype})


@pytest.mark.parametrize(
    ("disposition", "shown"),
    [
        (b"filename*=UTF-8''%E9%85%8D%E9%A3%8E%E8%AE%A1%E5%88%92%EF%BC%888%E6%9C%88%EF%BC%89.pdf", NAME),
        (
            b"filename=\"plan.pdf\"; filename*=UTF-8''%E9%85%8D%E9%A3%8E.pdf",
            "配风.pdf",
        ),  # filename* preferred
        (b'filename="' + NAME.encode("gbk") + b'"', NAME),
        (b'filename="' + "通风月报.pdf".encode("gb18030") + b'"', "通风月报.pdf"),
        (b'filename="' + NAME.encode() + b'"', NAME),
        (b'filename="%E9%85%8D%E9%A3%8E%E8%AE%A1%E5%88%92.pdf"', "配风计划.pdf"),
        (b'filename="100%.pdf"', "100%.pdf"),
        (b'filename="caf\xc3\xa9 plan.pdf"', "café plan.pdf"),
        (b'filename="\xff\xfe\xff.pdf"', "plan.pdf"),  # neither UTF-8 nor GB18030
        (b'filename="../../etc/\xe9\x85\x8d\xe9\xa3\x8e.pdf"', "配风.pdf"),
        (b'filename="C:\\\\docs\\\\a\tb\x01.pdf"', "ab.pdf"),
        (b'filename=".."', "plan.pdf"),
    ],
)
async def test_file_names_as_clients_send_them(disposition: bytes, shown: str) -> None:
    resp = await _post(disposition)
    assert resp.status_code == 200, resp.text
    assert resp.json()["name"] == shown and resp.json()["size"] == 10


def test_file_name_helpers() -> None:
    assert header_file_name(None, None) is None
    assert header_file_name(None, "garbage") == "plan.pdf"
    assert header_file_name(None, "gbk''%C5%E4%B7%E7.pdf") == "配风.pdf"
    # a name that decodes in no way tried falls back to plan.pdf, and says so
    assert file_name_unreadable(None, "UTF-8''%ED%A0%80.zip") and file_name_unreadable(b"\xff\xfe.zip", None)
    assert file_name_unreadable(None, "garbage") and file_name_unreadable(b"\x80.zip", "UTF-8''%FF.zip")
    assert not file_name_unreadable(None, None) and not file_name_unreadable(b"p.pdf", "UTF-8''%FF.zip")
    assert not file_name_unreadable(None, "UTF-8''%E9%85%8D.zip") and not file_name_unreadable(
        "配".encode("gbk"), None
    )
    assert (
        safe_file_name("x" * 300 + ".pdf").endswith(".pdf") and len(safe_file_name("x" * 300 + ".pdf")) == 120
    )


@pytest.mark.parametrize("value", ["你好".encode("gbk"), "通風".encode("big5"), b"\xff\xfe"])
async def test_text_field_not_utf8_is_400(value: bytes) -> None:
    resp = await _post(b'filename="a.pdf"', extra=_field(b"message", value))
    assert resp.status_code == 400
    assert resp.json() == {"error": "请求参数错误：字段 message 不是 UTF-8 编码的文本"}


def _file_part(name: bytes, body: bytes) -> bytes:
    return (
        b'--XyZ123\r\nContent-Disposition: form-data; name="file"; filename="'
        + name
        + b'"\r\nContent-Type: application/pdf\r\n\r\n'
        + body
        + b"\r\n"
    )


@pytest.mark.parametrize(
    ("extra", "repeated"),
    [
        (_file_part(b"text.pdf", b"not a pdf"), "file"),  # the first of two files would be dropped unseen
        (_file_part(b"a.pdf", b"%PDF-1.4 x"), "file"),
        (_field(b"message", "第一条".encode()) + _field(b"message", "第二条".encode()), "message"),
        (
            _file_part(b"b.pdf", b"%PDF-1.4 y") + _field(b"message", b"1") + _field(b"message", b"2"),
            "file、message",
        ),
    ],
)
async def test_a_field_sent_twice_is_400(extra: bytes, repeated: str) -> None:
    resp = await _post(b'filename="plan.pdf"', extra=extra)
    assert resp.status_code == 400
    assert resp.json() == {"error": f"请求参数错误：字段 {repeated} 只能有一个"}


async def test_multipart_errors_are_chinese() -> None:
    transport = httpx.ASGITransport(app=_echo_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        big = _field(b"message", b"x" * (1100 << 10))
        data, ctype = _multipart(b'filename="a.pdf"', extra=big)
        r1 = await c.post("/up", content=data, headers={"content-type": ctype})
        r2 = await c.post("/up", content=b"--nope", headers={"content-type": "multipart/form-data"})
        r3 = await c.post(
            "/up", content=b"garbage", headers={"content-type": "multipart/form-data; boundary=b"}
        )
    assert r1.status_code == 400 and r1.json()["error"] == "表单字段过大：单个字段上限 1024 KB"
    assert r2.status_code == 400 and r2.json()["error"] == "multipart 请求缺少 boundary"
    assert r3.status_code == 400
    for r in (r1, r2, r3):
        assert not r.json()["error"].isascii()


async def _chunks() -> AsyncIterator[bytes]:
    """A JSON body without Content-Length (chunked), 70 KiB in all."""
    yield b"{"
    for _ in range(70):
        yield b" " * 1024
    yield b"}"


async def test_json_body_over_the_limit_is_413(tmp_path: Path) -> None:
    from vent_agent.app import create_app

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", max_json_body_kb=64))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        body = {"tun_id": "T1", "tun_name": "x" * (100 << 10), "mode": "fast"}
        resp = await c.post("/api/interpret/click/tun", json=body)
        streamed = await c.post(
            "/api/interpret/click/tun",
            content=_chunks(),
            headers={"content-type": "application/json"},
        )
        # the resume route takes JSON: the JSON limit, not the chat route's upload limit
        resume = await c.post(
            "/api/chat/resume",
            json={"session_id": "abc", "action": "approve", "feedback": "x" * (100 << 10)},
            headers={"x-access-token": "demo-token"},
        )
    assert resp.status_code == 413 and resp.json() == {"error": "请求体过大：上限 64 KB"}
    assert streamed.status_code == 413 and streamed.json() == {"error": "请求体过大：上限 64 KB"}
    assert resume.status_code == 413 and resume.json() == {"error": "请求体过大：上限 64 KB"}


async def _in_chunks(body: bytes, size: int = 64 << 10) -> AsyncIterator[bytes]:
    """``body`` sent without Content-Length (chunked), ``size`` bytes at a time."""
    for i in range(0, len(body), size):
        yield body[i : i + size]


UPLOAD_ROUTES = ("/api/vent/review/pdf", "/api/chat", "/api/skills/upload")


@pytest.mark.parametrize("route", UPLOAD_ROUTES)
async def test_upload_over_the_limit_names_one_limit_however_sent(tmp_path: Path, route: str) -> None:
    """A body over an upload route's limit names ``VENT_MAX_UPLOAD_MB`` with a Content-Length and sent
    chunked alike (the chunked one named the body limit, the cap plus the 1 MiB allowed for framing)."""
    from vent_agent.app import create_app

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", max_upload_mb=1))
    data, ctype = _multipart(b'filename="big.pdf"', body=b"%PDF-1.4\n" + b"0" * (5 << 19))
    headers = {"content-type": ctype, **TOKEN}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c,
    ):
        sized = await c.post(route, content=data, headers=headers)
        chunked = await c.post(route, content=_in_chunks(data), headers=headers)
    assert sized.status_code == 413 and sized.json() == {"error": "请求体过大：上限 1 MB"}
    assert chunked.status_code == 413 and chunked.json() == {"error": "请求体过大：上限 1 MB"}


@pytest.mark.parametrize(
    ("route", "content_type", "limit", "chunked"),
    [
        ("/api/interpret/click/tun", "multipart/form-data; boundary=x", "64 KB", False),
        ("/api/interpret/click/tun", "multipart/form-data; boundary=x", "64 KB", True),
        ("/api/chat/resume", "multipart/form-data; boundary=x", "64 KB", False),
        ("/api/chat/resume", "multipart/form-data; boundary=x", "64 KB", True),
        ("/api/skills/vent-chat/toggle", "application/json", "64 KB", False),
        ("/api/skills/vent-chat/toggle", "application/json", "64 KB", True),
        # a form route reads no body of another type when it is chunked: only the Content-Length counts
        ("/api/vent/review/pdf", "application/json", "1 MB", False),
        ("/api/chat", "application/json", "1 MB", False),
    ],
)
async def test_the_route_not_the_content_type_decides_the_limit_named(
    tmp_path: Path, route: str, content_type: str, limit: str, chunked: bool
) -> None:
    """A body over the limit names the route's limit whatever its Content-Type says (a JSON route
    named the upload cap for a multipart Content-Type, an upload route the JSON limit for a JSON one)."""
    from vent_agent.app import create_app

    settings = Settings(_env_file=None, data_dir=tmp_path / "d", max_upload_mb=1, max_json_body_kb=64)
    app = create_app(settings)
    body = b"{" + b" " * (3 << 20) + b"}"
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c,
    ):
        resp = await c.post(
            route,
            content=_in_chunks(body) if chunked else body,
            headers={"content-type": content_type, **TOKEN},
        )
    assert resp.status_code == 413 and resp.json() == {"error": f"请求体过大：上限 {limit}"}


@pytest.mark.parametrize(("kb", "named"), [(1536, "1536 KB"), (2048, "2 MB"), (1000, "1000 KB")])
async def test_a_json_limit_of_part_of_a_mb_is_named_in_kb(tmp_path: Path, kb: int, named: str) -> None:
    """``VENT_MAX_JSON_BODY_KB=1536`` is named ``1536 KB``, not rounded to ``2 MB``."""
    from vent_agent.app import create_app

    app = create_app(Settings(_env_file=None, data_dir=tmp_path / "d", max_json_body_kb=kb))
    body = b"{" + b" " * (3 << 20) + b"}"
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c,
    ):
        sized = await c.post(
            "/api/interpret/click/tun", content=body, headers={"content-type": "application/json"}
        )
        chunked = await c.post(
            "/api/interpret/click/tun", content=_in_chunks(body), headers={"content-type": "application/json"}
        )
    assert sized.json() == chunked.json() == {"error": f"请求体过大：上限 {named}"}


async def test_device_type_must_be_a_known_kind(client: httpx.AsyncClient) -> None:
    body = {"device_id": "FAN-001", "device_name": "主通风机", "device_type": "toaster", "mode": "fast"}
    resp = await client.post("/api/interpret/click/device", json=body)
    assert resp.status_code == 400
    assert resp.json()["error"].startswith(
        "请求参数错误：字段 device_type 无效：取值无效，可选：fan、aux_fan"
    )


async def test_review_session_must_be_the_callers(client: httpx.AsyncClient, app, plan_a_pdf: Path) -> None:
    db = app.state.vent.db
    other = await store.create_session(db, "lisi", title="别人的会话")
    files = {"file": ("a.pdf", plan_a_pdf.read_bytes(), "application/pdf")}
    no_token = await client.post("/api/vent/review/pdf", files=files, data={"session_id": other.id})
    assert no_token.status_code == 401 and "x-access-token" in no_token.json()["error"]
    wrong = await client.post(
        "/api/vent/review/pdf", files=files, data={"session_id": other.id}, headers=TOKEN
    )
    assert wrong.status_code == 404 and wrong.json() == {"error": f"会话 {other.id} 不存在"}
    unknown = await client.post(
        "/api/vent/review/pdf", files=files, data={"session_id": "nope"}, headers=TOKEN
    )
    assert unknown.status_code == 404
    assert (await store.history(db, other.id, limit=10, offset=0))[
        1
    ] == 0  # nothing joined another user's session


async def test_review_joins_the_callers_session_with_the_original_name(
    client: httpx.AsyncClient, app, settings: Settings, plan_a_pdf: Path
) -> None:
    session = await store.create_session(app.state.vent.db, "zhangsan", title="八月配风")
    data, ctype = _multipart(b'filename="' + NAME.encode("gbk") + b'"', body=plan_a_pdf.read_bytes())
    data = _field(b"session_id", session.id.encode()) + data
    resp = await client.post("/api/vent/review/pdf", content=data, headers={"content-type": ctype, **TOKEN})
    assert resp.status_code == 200 and resp.headers["x-session-id"] == session.id
    events = parse_spec_stream(resp.text)
    assert events[0]["file_name"] == NAME and NAME in events[0]["message"]
    assert NAME in "".join(e["content"] for e in events if e["type"] == "token")
    done = events[-1]
    assert done["type"] == "done" and done["session_id"] == session.id and done["download_url"]
    history = (await client.get(f"/api/chat/history/{session.id}", headers=TOKEN)).json()
    turns = history.get("messages") or history.get("history") or history
    user, assistant = turns[-2], turns[-1]
    assert user["role"] == "user" and user["attachment"] == NAME and NAME in user["content"]
    assert assistant["role"] == "assistant" and assistant["download_url"] == done["download_url"]
    assert assistant["content"].startswith(f"已完成《{NAME}》的配风计划审查")
    report = await client.get(done["download_url"].split("testserver", 1)[1])
    assert report.status_code == 200
    disposition = report.headers["content-disposition"]
    assert unquote(disposition.split("filename*=utf-8''")[1]) == f"审查报告_{NAME[:-4]}.docx"
    assert (settings.uploads_dir / session.id).is_dir()  # the upload stays with the session


async def test_upload_disk_cap_is_507(tmp_path: Path, plan_a_pdf: Path) -> None:
    from vent_agent.app import create_app

    settings = Settings(_env_file=None, data_dir=tmp_path / "d", max_upload_disk_mb=1)
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as c,
    ):
        (settings.uploads_dir / "old.pdf").write_bytes(b"0" * (1 << 20))
        files = {"file": ("a.pdf", plan_a_pdf.read_bytes(), "application/pdf")}
        resp = await c.post("/api/vent/review/pdf", files=files)
        metrics = (await c.get("/metrics")).text
    assert resp.status_code == 507 and resp.json()["error"].startswith("上传文件的存储空间已满（上限 1 MB）")
    assert "vent_upload_disk_cap_bytes 1.048576e+06" in metrics
    assert "vent_upload_disk_used_bytes 1.048576e+06" in metrics
    assert "vent_upload_retention_hours 168.0" in metrics


async def test_retention_sweeps_review_files_outside_sessions(app, settings: Settings) -> None:
    # the app's own sweep at start-up runs in the background: stopped first, so that it cannot take (and
    # count) some of the files below before the sweep under test does
    await app.state.vent.runs.retention.stop()
    db = app.state.vent.db
    uploads, reports = settings.uploads_dir, settings.reports_dir
    old_upload, new_upload = uploads / "a.pdf", uploads / "b.pdf"
    session_dir = uploads / "session-1"
    session_dir.mkdir(parents=True, exist_ok=True)
    for p in (old_upload, new_upload, session_dir / "c.pdf"):
        p.write_bytes(b"%PDF-1.4")
    week_ago = time.time() - 8 * 24 * 3600
    for p in (old_upload, session_dir / "c.pdf"):
        os.utime(p, (week_ago, week_ago))
    rows = {}
    async with db.session() as s:
        for rid, sid, age in (("old", None, 200), ("new", None, 1), ("kept", "session-1", 200)):
            docx = reports / f"vent_review_{rid}.docx"
            docx.write_bytes(b"docx")
            (reports / f"vent_review_{rid}.provenance.json").write_text("{}")
            row = ReportRow(
                id=f"vent_review_{rid}",
                session_id=sid,
                file_name="a.pdf",
                path=str(docx),
                sha256="0",
                created_at=utcnow() - timedelta(hours=age),
            )
            rows[rid] = row
            s.add(row)
        await s.commit()
    deleted = await ReviewFileSweep(settings, db).sweep()
    assert deleted == 3
    assert not old_upload.exists() and new_upload.exists() and (session_dir / "c.pdf").exists()
    assert not (reports / "vent_review_old.docx").exists()
    assert not (reports / "vent_review_old.provenance.json").exists()
    assert (reports / "vent_review_new.docx").exists() and (reports / "vent_review_kept.docx").exists()
    async with db.session() as s:
        assert await s.get(ReportRow, "vent_review_old") is None
        assert await s.get(ReportRow, "vent_review_kept") is not None


@pytest.mark.parametrize(
    "disposition",
    [
        b'filename="' + ("配风计划" * 500).encode() + b'.pdf"',  # 2,000 characters, 6,000 bytes
        b"filename*=UTF-8''" + ("%E9%85%8D" * 2000).encode() + b".pdf",
        b'filename="' + b"x" * 5000 + b'.pdf"',
    ],
)
async def test_a_file_name_over_the_header_limit_is_400_saying_so(disposition: bytes) -> None:
    resp = await _post(disposition)
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error.startswith("请求参数错误：文件名过长") and "4224 字节" in error and "1400 个汉字" in error


async def test_another_header_over_the_limit_is_400_naming_no_file_name() -> None:
    data, ctype = _multipart(b'filename="a.pdf"')
    data = data.replace(b"Content-Type: application/pdf", b"X-Note: " + b"n" * 5000)
    transport = httpx.ASGITransport(app=_echo_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        resp = await c.post("/up", content=data, headers={"content-type": ctype})
    assert resp.status_code == 400
    assert resp.json() == {"error": "请求参数错误：表单部件的头部有一行过长（单行上限 4224 字节）"}


async def test_review_of_a_2000_character_file_name_is_400_saying_why(client: httpx.AsyncClient) -> None:
    name = "配" * 1996 + ".pdf"
    resp = await client.post("/api/vent/review/pdf", files={"file": (name, b"%PDF-1.4 x", "application/pdf")})
    assert resp.status_code == 400 and resp.json()["error"].startswith("请求参数错误：文件名过长")
