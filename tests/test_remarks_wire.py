"""The remarks model on the wire: ``make_remarks_model`` from settings against a loopback fake
OpenAI-compatible endpoint (never a real one)."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from tests.fake_openai import FakeOpenAI
from tests.helpers import live_server
from vent_agent.documents.plan.model import Plan
from vent_agent.review.findings import Severity
from vent_agent.review.outputs.remarks import make_remarks_model, model_name, review_remarks
from vent_agent.settings import ModelConfig, Settings


def test_no_model_configured_by_default(tmp_path: Path) -> None:
    assert make_remarks_model(Settings(_env_file=None, data_dir=tmp_path)) is None


def test_the_default_model_of_the_list_is_chosen(tmp_path: Path) -> None:
    models = [
        ModelConfig(name="a", base_url="http://127.0.0.1:9/v1"),
        ModelConfig(name="b", base_url="http://127.0.0.1:9/v1", model="qwen-plus", provider="qwen"),
    ]
    model = make_remarks_model(Settings(_env_file=None, data_dir=tmp_path, models=models, default_model="b"))
    assert isinstance(model, BaseChatModel) and model_name(model) == "qwen-plus"
    first = make_remarks_model(Settings(_env_file=None, data_dir=tmp_path, models=models))
    assert isinstance(first, BaseChatModel) and model_name(first) == "a"


async def test_remarks_through_a_loopback_openai_endpoint(plan_b: Plan, tmp_path: Path) -> None:
    reply = json.dumps(
        {"remarks": [{"location": "中央变电所", "severity": "minor", "message": "硐室温差取值未说明依据。"}]},
        ensure_ascii=False,
    )
    fake = FakeOpenAI(reply=reply)
    with live_server(fake.app) as url:
        settings = Settings(
            _env_file=None, data_dir=tmp_path, llm_base_url=f"{url}/v1", llm_model="fake-model"
        )
        model = make_remarks_model(settings)
        result = await review_remarks("calc-verifier", plan_b, [], model=model, timeout_s=30)
    assert result.model == "fake-model" and result.note is None
    (remark,) = result.remarks
    assert remark.location == "中央变电所" and remark.severity == Severity.MINOR
    (body,) = fake.requests
    assert body["model"] == "fake-model" and [m["role"] for m in body["messages"]] == ["system", "user"]


async def test_an_endpoint_error_gives_no_remarks(plan_b: Plan, tmp_path: Path) -> None:
    fake = FakeOpenAI(fail_status=500)
    with live_server(fake.app) as url:
        settings = Settings(
            _env_file=None, data_dir=tmp_path, llm_base_url=f"{url}/v1", llm_model="fake-model"
        )
        result = await review_remarks("form-reviewer", plan_b, [], model=make_remarks_model(settings))
    assert result.remarks == [] and result.note is not None and "模型调用失败" in result.note
