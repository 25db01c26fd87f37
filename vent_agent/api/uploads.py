"""Multipart bodies read the way the users' clients send them: file names and text fields.

Starlette (1.x) parses multipart bodies with python-multipart, whose ``parse_options_header`` drops
RFC 5987 parameters (``filename*=``), so a part carrying only ``filename*`` became a text field (and the
upload "missing"); a text field or a file name whose bytes are not UTF-8 was silently decoded as
Latin-1 (mojibake); and its errors are English. :class:`UploadRoute` (set as ``route_class`` of the
routers that take uploads) hands the endpoint a :class:`FormRequest`, whose multipart parser:

- takes a part with ``filename`` or ``filename*`` as a file, its name decoded by
  :func:`~vent_agent.documents.file_names.header_file_name` (``filename*`` preferred; GB18030 bytes
  decoded; otherwise ``plan.pdf``, the file then an :class:`UnreadableNameFile`);
- refuses a text field that is not valid in the body's charset (UTF-8 unless the Content-Type says
  otherwise) with 400 ``字段 <name> 不是 UTF-8 编码的文本``;
- refuses a field (file or text) sent more than once with 400 ``字段 <name> 只能有一个``: every field of
  the API's forms is single, and Starlette would hand the endpoint the last one and drop the others
  unseen (a second ``file`` part reviewed instead of the first, with no word);
- refuses a body that ends before its closing boundary (truncated, or a client that never sent it) with
  400 ``请求体格式错误：multipart 表单不完整…``: Starlette would hand the endpoint the parts read so far
  and the request would fail as one missing a field it had sent;
- answers its errors in Chinese (400), saying why where python-multipart says only "Invalid multipart
  data": a header line of a part over python-multipart's limit is 400 ``请求参数错误：文件名过长…`` with
  the limit when it is the ``Content-Disposition`` line (a long file name, the way users meet it), or
  names the header otherwise (:meth:`_Parser.problem`);
- reads a urlencoded body (``/api/chat`` takes one) as strictly: a field whose bytes, percent-escapes
  decoded, are not UTF-8 is 400 ``字段 <name> 不是 UTF-8 编码的文本`` (Starlette made them U+FFFD);
- refuses a urlencoded body on a route that needs a file (review, skill upload) before reading it, with
  400 ``请求体格式错误：Content-Type 应为 multipart/form-data（收到 application/x-www-form-urlencoded）``.

Other content types are parsed by Starlette unchanged.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from contextlib import aclosing
from tempfile import SpooledTemporaryFile
from typing import Any
from urllib.parse import unquote_to_bytes

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import (
    DEFAULT_MAX_HEADER_COUNT,
    DEFAULT_MAX_HEADER_SIZE,
    parse_options_header,
)
from starlette.datastructures import FormData, Headers, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import FormParser, MultiPartException, MultiPartParser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vent_agent.api.errors import (
    content_type_problem,
    error_response,
    http_message,
    named_body_limit,
)
from vent_agent.api.json_body import ApiRoute, StrictJsonRequest
from vent_agent.documents.file_names import file_name_unreadable, header_file_name

_EXTENDED = re.compile(rb";\s*filename\*\s*=\s*([^;]*)", re.IGNORECASE)
_SIZE = re.compile(r"(\d+)KB")
NAME_CHARS = DEFAULT_MAX_HEADER_SIZE // 3 // 100 * 100
"""About how many Chinese characters (UTF-8, 3 bytes each) a file name may have within python-multipart's
limit on a part's header line, rounded down to hundreds."""


class _NotText(MultiPartException):
    """A text field whose bytes are not valid in the body's charset."""


def chinese_multipart_error(message: str) -> str:
    """A Chinese message for python-multipart/Starlette's English one (sizes kept)."""
    size = _SIZE.search(message)
    if message.startswith(("Field exceeded", "Part exceeded")) and size:
        return f"表单字段过大：单个字段上限 {size.group(1)} KB"
    if message.startswith("Too many files"):
        return "上传的文件过多"
    if message.startswith("Too many fields"):
        return "表单字段过多"
    if "boundary" in message:
        return "multipart 请求缺少 boundary"
    if "Content-Disposition" in message:
        return "表单部件缺少 Content-Disposition 的 name"
    return "multipart 请求体格式错误"


INCOMPLETE = "请求体格式错误：multipart 表单不完整（没有结束边界，请求体可能被截断）"
"""A multipart body that ends before its closing boundary (``--<boundary>--``)."""


class UnreadableNameFile(UploadFile):
    """An uploaded file whose client name decodes in no way tried
    (:func:`~vent_agent.documents.file_names.file_name_unreadable`): its ``filename`` is the neutral
    ``plan.pdf``, which a route that needs the name (the skill upload: a pack's name may be its zip's)
    must not take for the client's."""


class _Parser(MultiPartParser):
    """Starlette's multipart parser with RFC 5987 file names, GB18030 fallback and strict text fields,
    which knows whether the body reached its closing boundary (:attr:`ended`): python-multipart's
    ``finalize`` does not check it, and Starlette returns the parts read so far, the part cut short
    dropped, so a truncated form read as one missing a field."""

    ended = False

    def on_end(self) -> None:
        super().on_end()
        self.ended = True

    def on_headers_finished(self) -> None:
        super().on_headers_finished()
        raw = bytes(self._current_part.content_disposition or b"")
        _, options = parse_options_header(raw)
        match = _EXTENDED.search(raw)
        extended = match.group(1).decode("latin-1") if match else None
        name = header_file_name(options.get(b"filename"), extended)
        if name is None:
            return
        if file_name_unreadable(options.get(b"filename"), extended):
            name_cls: type[UploadFile] = UnreadableNameFile
        else:
            name_cls = UploadFile
        if self._current_part.file is None:  # only ``filename*``: Starlette took it for a text field
            self._current_fields -= 1
            self._current_files += 1
            if self._current_files > self.max_files:
                raise MultiPartException(f"Too many files. Maximum number of files is {self.max_files}.")
            spool: SpooledTemporaryFile[bytes] = SpooledTemporaryFile(max_size=self.spool_max_size)  # noqa: SIM115 - closed with the form
            self._files_to_close_on_error.append(spool)
            self._current_part.file = name_cls(
                file=spool,  # type: ignore[arg-type]  # as in Starlette's parser: a binary spool, not a BinaryIO to typeshed
                size=0,
                filename=name,
                headers=Headers(raw=self._current_part.item_headers),
            )
        elif name_cls is not UploadFile:
            file = self._current_part.file  # Starlette's, before any of its data is written
            self._current_part.file = name_cls(
                file=file.file, size=file.size, filename=name, headers=file.headers
            )
        else:
            self._current_part.file.filename = name

    def problem(self, exc: MultiPartException) -> str:
        """The Chinese 400 message for ``exc``, raised while parsing. python-multipart's own errors
        reach Starlette's parser as one "Invalid multipart data." whose cause says what broke; a header
        line over ``DEFAULT_MAX_HEADER_SIZE`` bytes is, when it is the ``Content-Disposition`` being read,
        a file name too long, named with the limit in bytes and about that many Chinese characters
        (3 bytes each in UTF-8, the line's other parameters left aside)."""
        cause = str(exc.__cause__) if isinstance(exc.__cause__, MultipartParseError) else ""
        if cause.startswith("Maximum header size"):
            if self._current_partial_header_name.strip().lower() == b"content-disposition":
                return (
                    f"请求参数错误：文件名过长（文件名所在的 Content-Disposition 头上限 "
                    f"{DEFAULT_MAX_HEADER_SIZE} 字节，UTF-8 下约 {NAME_CHARS} 个汉字），请缩短文件名后重新上传"
                )
            return f"请求参数错误：表单部件的头部有一行过长（单行上限 {DEFAULT_MAX_HEADER_SIZE} 字节）"
        if cause.startswith("Maximum header count"):
            return f"请求参数错误：表单部件的头部过多（上限 {DEFAULT_MAX_HEADER_COUNT} 个）"
        return chinese_multipart_error(exc.message)

    def on_part_end(self) -> None:
        part = self._current_part
        if part.file is None:
            try:
                bytes(part.data).decode(self._charset or "utf-8")
            except (UnicodeDecodeError, LookupError):
                raise _NotText(f"字段 {part.field_name} 不是 UTF-8 编码的文本") from None
        super().on_part_end()


class _UrlencodedParser(FormParser):
    """Starlette's urlencoded form parser with strict text: Starlette decodes each percent-escaped field
    with ``errors="replace"``, so ``message=%FF`` became "\ufffd" (stored, and the session titled with
    it); this refuses a field whose bytes are not valid in ``charset`` as the multipart parser does."""

    def __init__(
        self, headers: Headers, stream: AsyncGenerator[bytes, None], charset: str, **limits: Any
    ) -> None:
        super().__init__(headers, stream, **limits)
        self.charset = charset

    def _text(self, raw: bytearray, what: str) -> str:
        try:
            return unquote_to_bytes(bytes(raw).replace(b"+", b" ")).decode(self.charset)
        except (UnicodeDecodeError, LookupError):
            raise _NotText(f"{what} 不是 UTF-8 编码的文本") from None

    def on_field_end(self) -> None:
        self._current_fields += 1
        if self._current_fields > self.max_fields:
            raise MultiPartException(f"Too many fields. Maximum number of fields is {self.max_fields}.")
        name = self._text(self._field_name, "表单字段名")
        self._items.append((name, self._text(self._field_value, f"字段 {name}")))


class FormRequest(StrictJsonRequest):
    """A request whose multipart form is read by :class:`_Parser` (see the module docstring)."""

    async def _get_form(
        self,
        *,
        max_files: int | float = 1000,
        max_fields: int | float = 1000,
        max_part_size: int = 1024 * 1024,
    ) -> FormData:
        content_type, _ = parse_options_header(self.headers.get("Content-Type"))
        if self._form is None and content_type == b"application/x-www-form-urlencoded":
            # a route that needs a file given a urlencoded body (curl's --data-binary @plan.pdf): named
            # before the bytes are parsed (content_type_problem answers None where urlencoded is fine)
            if problem := content_type_problem(self):
                raise HTTPException(400, f"请求参数错误：{problem}")
            return await self._get_urlencoded(max_fields=max_fields, max_part_size=max_part_size)
        if self._form is not None or content_type != b"multipart/form-data":
            return await super()._get_form(
                max_files=max_files, max_fields=max_fields, max_part_size=max_part_size
            )
        try:
            async with aclosing(self.stream()) as stream:
                parser = _Parser(
                    self.headers,
                    stream,
                    max_files=max_files,
                    max_fields=max_fields,
                    max_part_size=max_part_size,
                )
                form = await parser.parse()
        except _NotText as exc:
            raise HTTPException(400, f"请求参数错误：{exc.message}") from exc
        except MultiPartException as exc:
            raise HTTPException(400, parser.problem(exc)) from exc
        if not parser.ended:
            await form.close()
            raise HTTPException(400, INCOMPLETE)
        repeated = sorted({key for key in form if len(form.getlist(key)) > 1})
        if repeated:
            await form.close()
            raise HTTPException(400, f"请求参数错误：字段 {'、'.join(repeated)} 只能有一个")
        self._form = form
        return form

    async def _get_urlencoded(self, *, max_fields: int | float, max_part_size: int) -> FormData:
        """The urlencoded form, read by :class:`_UrlencodedParser` in the body's charset (UTF-8 unless
        the Content-Type says otherwise); errors as 400 in Chinese."""
        _, options = parse_options_header(self.headers.get("Content-Type"))
        charset = options.get(b"charset", b"utf-8").decode("latin-1")
        try:
            async with aclosing(self.stream()) as stream:
                parser = _UrlencodedParser(
                    self.headers, stream, charset, max_fields=max_fields, max_part_size=max_part_size
                )
                form = await parser.parse()
        except _NotText as exc:
            raise HTTPException(400, f"请求参数错误：{exc.message}") from exc
        except MultiPartException as exc:
            raise HTTPException(400, chinese_multipart_error(exc.message)) from exc
        self._form = form
        return form


MULTIPART_OVERHEAD = 1 << 20
"""Bytes an upload route's body may hold on top of ``max_upload_mb`` for its other form fields and the
multipart framing."""


class UploadRoute(ApiRoute):
    """An :class:`~vent_agent.api.json_body.ApiRoute` whose endpoint gets a :class:`FormRequest`. Its
    routers take the body limit ``max_upload_mb`` + :attr:`body_overhead` (``create_app``); a 413 names
    ``max_upload_mb`` (:func:`~vent_agent.api.errors.named_body_limit`). JSON routes go on other routers,
    under the JSON body limit."""

    request_class = FormRequest
    body_overhead = MULTIPART_OVERHEAD


class ChineseBodyLimit:
    """ASGI middleware: Starlette's body-size limiter (FastAPI ``max_body_size``, set per router in
    ``create_app``) answers a body whose Content-Length is over the limit with a plain-text
    ``Content Too Large``, bypassing the exception handlers; this turns that answer into the spec's
    ``{"error": "请求体过大：上限 …"}`` (413). The limit named is the matched route's, as the exception
    handler names it for a chunked body over the limit (:func:`~vent_agent.api.errors.named_body_limit`):
    the route decides, not the request's Content-Type."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        replaced = False

        async def send_chinese(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 413:
                headers = Headers(raw=message.get("headers", []))
                if headers.get("content-type", "").startswith("text/plain"):
                    replaced = True
                    text = http_message(413, named_body_limit(scope))
                    response = error_response(text, 413)
                    await send(
                        {"type": "http.response.start", "status": 413, "headers": response.raw_headers}
                    )
                    await send({"type": "http.response.body", "body": response.body})
                    return
            if replaced:  # the plain-text body that followed
                return
            await send(message)

        await self.app(scope, receive, send_chinese)
