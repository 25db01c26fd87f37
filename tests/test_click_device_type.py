"""A device clicked with a ``device_type`` that is not its own (``{"device_id": "FAN-001", "device_type":
"ch4_sensor"}``) is interpreted by its real type and the interpretation says so: one ``progress`` with
``notice: "device_type_mismatch"`` and the warning first in the text, for every device type of the demo
mine and in every path (rules, fast mode's model, plan mode's agent and its fallback)."""

from __future__ import annotations

from typing import Any, get_args

import httpx
import pytest
from langchain_core.messages import AIMessage

from tests.helpers import parse_spec_stream
from tests.scripted_model import ScriptedChatModel, says, tool_call
from vent_agent.upstream.models import DEVICE_TYPE_LABELS, DeviceType

TYPES: list[str] = list(get_args(DeviceType))
MISMATCH = "device_type_mismatch"


async def click(
    client: httpx.AsyncClient, device_id: str, device_type: str, **body: str
) -> list[dict[str, Any]]:
    resp = await client.post(
        "/api/interpret/click/device",
        json={"device_id": device_id, "device_name": "点选的设备", "device_type": device_type, **body},
    )
    assert resp.status_code == 200, resp.text
    return parse_spec_stream(resp.text)


def notices(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "progress" and e.get("notice") == MISMATCH]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["content"] for e in events if e["type"] == "token")


async def one_device_of(app, device_type: str) -> str:
    devices = await app.state.vent.source.get_device_list_by_kind(device_type)
    assert devices, f"the demo mine has no {device_type}"
    device_id: str = devices[0].device_id
    return device_id


def test_the_demo_mine_has_only_these_device_types() -> None:
    """The tests below cover each type of the device-type dictionary, which is the demo mine's."""
    assert set(TYPES) == set(DEVICE_TYPE_LABELS)


@pytest.mark.parametrize("real", TYPES)
async def test_a_device_clicked_as_another_type_is_interpreted_by_its_own(app, client, real: str) -> None:
    device_id = await one_device_of(app, real)
    claimed = TYPES[(TYPES.index(real) + 1) % len(TYPES)]
    events = await click(client, device_id, claimed, mode="fast")
    (notice,) = notices(events)
    message = notice["message"]
    assert notice["source"] == "fast" and device_id in message
    assert f"「{DEVICE_TYPE_LABELS[claimed]}」（{claimed}）" in message
    assert f"「{DEVICE_TYPE_LABELS[real]}」（{real}）" in message and "按实际类型解读" in message
    text = text_of(events)
    assert f"- 类型：{DEVICE_TYPE_LABELS[real]}" in text
    assert f"> **注意**：{message}" in text  # stated in the interpretation, before the table
    assert text.index(message) < text.index("### 监测值与限值")
    assert events[-1]["type"] == "done" and events[-1]["message"] == "解读完成"


@pytest.mark.parametrize("real", TYPES)
async def test_a_device_clicked_as_its_own_type_gets_no_notice(app, client, real: str) -> None:
    events = await click(client, await one_device_of(app, real), real, mode="fast")
    assert notices(events) == [] and "设备类型与实际不符" not in text_of(events)


async def test_plan_mode_without_a_model_says_it_too(client: httpx.AsyncClient) -> None:
    events = await click(client, "FAN-001", "ch4_sensor")  # plan mode, the spec's default
    assert len(notices(events)) == 1 and "主要通风机" in notices(events)[0]["message"]
    assert "- 类型：主要通风机" in text_of(events) and "设备类型与实际不符" in text_of(events)


async def test_fast_mode_model_is_told_to_say_it(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=[says("1号主通风机运行正常。")])
    app.state.vent.interpret_model = model
    events = await click(client, "FAN-001", "ch4_sensor", mode="fast")
    (notice,) = notices(events)
    prompt = str(model.seen[0][-1].content)
    assert "提醒" in prompt and notice["message"] in prompt and '"类别": "主要通风机"' in prompt


def device_script(device_id: str) -> list[AIMessage]:
    return [
        says("", tool_call("load_skill", {"name": "click-interpret-device"})),
        says("", tool_call("query_device_data_by_id", {"device_id": device_id})),
        says("## 解读\n设备类型与请求不符，按实际类型解读。"),
    ]


async def test_plan_mode_agent_gets_the_real_type_and_the_warning(app, client: httpx.AsyncClient) -> None:
    model = ScriptedChatModel(script=device_script("CH4-15216"))
    app.state.vent.interpret_model = model
    events = await click(client, "CH4-15216", "fan")
    (notice,) = notices(events)
    assert notice["source"] == "main" and events[0] is notice  # before the agent starts
    request = str(model.seen[0][-1].content)
    assert "类型 ch4_sensor" in request and "类型 fan" not in request
    assert notice["message"] in request
    assert events[-1]["type"] == "done" and "error" not in [e["type"] for e in events]


async def test_plan_mode_agent_failing_falls_back_with_one_notice(app, client: httpx.AsyncClient) -> None:
    app.state.vent.interpret_model = ScriptedChatModel(script=device_script("JF-15220-YS-1"), fail_at={0})
    events = await click(client, "JF-15220-YS-1", "wind_sensor")
    (notice,) = notices(events)
    assert any(e.get("notice") == "rule_fallback" for e in events)
    text = text_of(events)
    assert notice["message"] in text and "- 类型：局部通风机" in text


async def test_an_unknown_device_still_fails_plainly(app, client: httpx.AsyncClient) -> None:
    app.state.vent.interpret_model = ScriptedChatModel(script=[], fallback=says("未找到设备。"))
    for mode in ("fast", "plan"):
        events = await click(client, "NO-SUCH", "fan", mode=mode)
        assert notices(events) == [] and events[-1]["type"] == "done"
