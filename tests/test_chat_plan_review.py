"""Plan mode asks before a review: a chat turn in a plan-mode session with a plan PDF and a review
intent ends in the approval interrupt (no review yet); approving runs the review (no model needed),
rejecting ends the turn without one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_helpers import TOKEN, use_model
from tests.helpers import parse_spec_stream


async def _ask_review(client: httpx.AsyncClient, pdf: Path) -> tuple[str, list[dict[str, Any]]]:
    resp = await client.post(
        "/api/chat",
        data={"message": "请审查这份配风计划", "mode": "plan"},
        files={"file": ("配风计划（8月）.pdf", pdf.read_bytes(), "application/pdf")},
        headers=TOKEN,
    )
    assert resp.status_code == 200
    return resp.headers["x-session-id"], parse_spec_stream(resp.text)


@pytest.mark.parametrize("action", ["approve", "reject"])
async def test_plan_mode_review_waits_for_approval(
    app, client: httpx.AsyncClient, plan_a_pdf: Path, action: str
) -> None:
    use_model(app, None)  # the review and its approval need no model
    sid, events = await _ask_review(client, plan_a_pdf)
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "interrupt" and "done" not in kinds
    assert not any(e["type"] == "agent_start" and e.get("agent") == "form-reviewer" for e in events)
    assert "配风计划（8月）.pdf" in str(events[-1])
    resp = await client.post("/api/chat/resume", json={"session_id": sid, "action": action}, headers=TOKEN)
    assert resp.status_code == 200
    after = parse_spec_stream(resp.text)
    assert after[-1]["type"] == "done"
    reviewed = any(e["type"] == "agent_start" and e.get("agent") == "form-reviewer" for e in after)
    urls = [e["download_url"] for e in after if e.get("download_url")]
    if action == "approve":
        assert reviewed and urls and "error" not in [e["type"] for e in after]
    else:
        assert not reviewed and not urls
        assert any(e["type"] == "error" and e["message"] == "用户拒绝了工具执行" for e in after)
