"""Every error answer encodes, whatever the message echoes: a lone surrogate of the user's input
(``\\ud800``, valid in JSON's escapes but not in UTF-8) is written as its escape, never a 500."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from vent_agent.api.errors import ApiError, error_response, install_error_handlers, safe_text


class _Raw(BaseModel):
    text: str  # no bound: a lone surrogate gets through, as it did to the model routes' registry


def _app() -> FastAPI:
    """Routes whose errors echo the text sent in the body."""
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/api-error")
    async def api_error(body: _Raw) -> None:
        raise ApiError(400, f"未知模型「{body.text}」")

    @app.post("/http-error")
    async def http_error(body: _Raw) -> None:
        raise HTTPException(404, f"资源「{body.text}」不存在")

    return app


async def _post(path: str, body: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=_app()), base_url="http://t") as client:
        return await client.post(path, content=body.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("text", ["\\ud800", "a\\udfffb", "\\ud83d", "\\udc00\\ud800"])
def test_safe_text_escapes_only_lone_surrogates(text: str) -> None:
    raw = text.encode().decode("unicode_escape")
    assert safe_text(raw) == text
    assert safe_text("配风🚇 \\ud800") == "配风🚇 \\ud800"
    assert (
        bytes(error_response(raw, 400).body).decode("utf-8")
        == '{"error":"' + text.replace("\\", "\\\\") + '"}'
    )


@pytest.mark.parametrize(
    ("path", "status", "said"),
    [("/api-error", 400, "未知模型「{}」"), ("/http-error", 404, "资源「{}」不存在")],
)
@pytest.mark.parametrize("text", ["\\ud800", "high\\udfff", "\\ud83d", "\\udc00\\ud800"])
async def test_an_error_echoing_a_lone_surrogate_encodes(
    path: str, status: int, said: str, text: str
) -> None:
    resp = await _post(path, f'{{"text": "{text}"}}')
    assert resp.status_code == status, resp.text
    assert resp.json() == {"error": said.format(text)}
