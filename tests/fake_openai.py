"""A loopback fake of an OpenAI-compatible chat-completions endpoint (streaming), for wire tests."""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route


class FakeOpenAI:
    """Streams ``reply`` in pieces (with optional ``reasoning``); records every request body.
    ``fail_status`` makes it answer that HTTP status instead."""

    def __init__(self, reply: str = "", reasoning: str = "", fail_status: int | None = None) -> None:
        self.reply = reply
        self.reasoning = reasoning
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.completions, methods=["POST"])])

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    async def completions(self, request: Request) -> Any:
        body = await request.json()
        self.requests.append(body)
        if self.fail_status:
            return JSONResponse({"error": {"message": "fake failure"}}, status_code=self.fail_status)

        async def gen():  # type: ignore[no-untyped-def]
            yield self._chunk({"role": "assistant", "content": ""})
            for i in range(0, len(self.reasoning), 8):
                yield self._chunk({"reasoning_content": self.reasoning[i : i + 8]})
            for i in range(0, len(self.reply), 5):
                yield self._chunk({"content": self.reply[i : i + 5]})
            yield self._chunk({}, finish="stop")
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            yield f"data: {json.dumps({'id': 'chatcmpl-fake', 'object': 'chat.completion.chunk', 'created': 0, 'model': 'fake-model', 'choices': [], 'usage': usage})}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(gen(), media_type="text/event-stream")
