"""Schemathesis against the service's own OpenAPI (``/openapi.json``), on the embedded defaults: SQLite,
the demo mine, no model, the built-in user service (``x-access-token: demo-token``, user zhangsan).

Every operation of the schema is called with generated requests, valid ones (positive) and, where the
schema can express something invalid, invalid ones (negative); then again with the path pointing at
real resources (a session, a finished run, a review report, an installed skill) so that generated
bodies, queries and headers reach past the 404. Each answer must be:

- never a 5xx (the spec's auth statuses 500/502/504 cannot happen with the built-in user service);
- an invalid request (negative data) refused with a 4xx;
- every 4xx in the spec's shape ``{"error": "<Chinese message>"}``;
- every 200 event stream ending with its ``done`` (or a plan-mode ``interrupt``), never with the generic
  internal-error event.

Deterministic: Hypothesis derandomised, no example database, no shrinking (a failure prints the
example as generated, with a curl line); ``MAX_EXAMPLES`` per operation and mode bounds the time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from jsonschema import Draft202012Validator
from schemathesis import CheckContext, CheckFunction, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import negative_data_rejection

from tests.chat_helpers import answering
from tests.scripted_model import ScriptedChatModel, says
from vent_agent.app import create_app
from vent_agent.settings import Settings

DATA = Path(__file__).parent / "data"
MAX_EXAMPLES = 12
"""Generated requests per operation and mode (the whole module stays well under a minute)."""
CALL_TIMEOUT_S = 30.0
"""Read time-out of one call; every stream of the embedded service ends long before."""
TOKEN = {"x-access-token": "demo-token"}
CJK = re.compile(r"[\u4e00-\u9fff]")
INTERNAL_ERROR = "内部错误"
STREAM_END = {"done", "interrupt"}

HYPOTHESIS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
CONFIG = schemathesis.Config.from_dict(
    {"max-stream-events": 1000, "generation": {"with-security-parameters": False}}
)
"""Read a stream to its end (the embedded service's streams are short), not the first 20 events. The
``x-access-token`` security scheme is not generated: every call sends the demo token (``TOKEN``)."""

PATH_RESOURCE = {"session_id": "session", "run_id": "run", "report_id": "report", "name": "skill"}
"""Path parameters that name a resource, and which seeded resource to put there."""


SPEC = create_app(Settings(_env_file=None)).openapi()
"""The app's OpenAPI document (the app is built, not started)."""
OPERATIONS = [(m.upper(), p, op) for p, ops in SPEC["paths"].items() for m, op in ops.items()]
PATH_PARAMETERS = {
    (method, path): {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
    for method, path, op in OPERATIONS
}
NUMBERS_AS_STRINGS = {"/api/interpret/click/tun", "/api/interpret/click/device"}
"""Routes whose JSON string fields accept numbers (``15216`` as ``"15216"``), as the API documentation
says (click bodies, ``coerce_numbers_to_str``) though the schema only says ``string``."""


def _can_negate(op: dict[str, Any]) -> bool:
    """True when the schema can express an invalid request: a body, a query or header parameter, or a
    constrained path parameter (a free-form string path parameter accepts anything)."""
    if "requestBody" in op:
        return True
    for param in op.get("parameters", []):
        schema = param.get("schema", {})
        if param["in"] != "path" or schema.get("type") != "string" or set(schema) & {"pattern", "maxLength"}:
            return True
    return False


def _params(live: bool) -> list[Any]:
    """Test parameters ``(METHOD, path, mode)``: every operation (``live``: those with a resource in
    their path, which is then fixed), negative mode only where something is left to make invalid."""
    out = []
    for method, path, op in OPERATIONS:
        fixed = PATH_PARAMETERS[method, path] & set(PATH_RESOURCE) if live else set()
        if live and not fixed:
            continue
        rest = {**op, "parameters": [p for p in op.get("parameters", []) if p["name"] not in fixed]}
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            if mode is GenerationMode.NEGATIVE and not _can_negate(rest):
                continue
            out.append(pytest.param(method, path, mode, id=f"{method} {path} {mode.value}"))
    return out


@dataclass
class Target:
    """The running app, its loaded schema, and the seeded resources' ids."""

    app: Any
    schema: Any
    report: str
    skill: str


def _stream_events(text: str) -> list[dict[str, Any]]:
    """The JSON payloads of an SSE body (spec frames and ``id:``-numbered frames alike)."""
    events = []
    for frame in text.replace("\r\n", "\n").split("\n\n"):
        for line in frame.split("\n"):
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
    return events


def spec_error_shape(
    ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case[Any]
) -> bool:
    """A 4xx is ``{"error": "<message with Chinese>"}`` (docs/API_DOCUMENTATION.md §错误处理)."""
    if 400 <= response.status_code < 500:
        body = response.json()
        assert isinstance(body, dict) and set(body) == {"error"}, f"not the spec's error shape: {body!r}"
        assert isinstance(body["error"], str) and CJK.search(body["error"]), f"no Chinese message: {body!r}"
    return True


def stream_ends_with_done(
    ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case[Any]
) -> bool:
    """A 200 event stream ends with ``done`` (``interrupt`` in plan mode), not cut short, and carries no
    generic internal-error event (an unexpected exception in the run, a hidden 500)."""
    content_type = " ".join(response.headers.get("content-type", []))
    if response.status_code != 200 or "text/event-stream" not in content_type:
        return True
    assert not response.stream_cut_short, "the stream did not end within the time-out"
    events = _stream_events(response.content.decode("utf-8"))
    assert events and events[-1]["type"] in STREAM_END, f"stream does not end with done: {events[-3:]}"
    for e in events:
        if e["type"] == "error":
            assert INTERNAL_ERROR not in e.get("message", ""), f"internal error in the stream: {e}"
    return True


def _body_validator(case: schemathesis.Case[Any]) -> Draft202012Validator | None:
    operation = SPEC["paths"][case.operation.path][case.method.lower()]
    content = operation.get("requestBody", {}).get("content", {}).get(case.media_type or "")
    if content is None:
        return None
    return Draft202012Validator({**content["schema"], "components": SPEC["components"]})


def documented_leniency(case: schemathesis.Case[Any]) -> bool:
    """True when the request breaks the schema only in ways the API documentation accepts
    (docs/API_DOCUMENTATION.md §输入校验补充 and the click body tables): an empty multipart field is an
    absent field; on the click routes a JSON number is taken as its string."""
    body = case.body
    if not isinstance(body, dict):
        return False
    if case.media_type == "multipart/form-data":
        normalized = {k: ("file" if isinstance(v, bytes) else v) for k, v in body.items() if v != ""}
    elif case.media_type == "application/json" and case.operation.path in NUMBERS_AS_STRINGS:
        normalized = {
            k: str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
            for k, v in body.items()
        }
    else:
        return False
    validator = _body_validator(case)
    return normalized != body and validator is not None and validator.is_valid(normalized)


def invalid_request_refused(
    ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case[Any]
) -> bool:
    """Schemathesis's ``negative_data_rejection`` (a request the schema calls invalid gets a 4xx), except
    for the documented leniencies of :func:`documented_leniency`."""
    if documented_leniency(case):
        return True
    negative_data_rejection(ctx, response, case)
    return True


CHECKS: list[CheckFunction] = [
    not_a_server_error,
    invalid_request_refused,
    spec_error_shape,
    stream_ends_with_done,
]


def _seed_report(schema: Any) -> str:
    """Review the correct sample plan through the schema's own review operation; the report id."""
    pdf = DATA / "plan-2026-08-a.pdf"
    case = schema["/api/vent/review/pdf"]["POST"].Case(
        body={"file": pdf.read_bytes()}, media_type="multipart/form-data"
    )
    response = case.call(timeout=120)
    assert response.status_code == 200, response.text
    done = _stream_events(response.text)[-1]
    assert done["type"] == "done", done
    url = done.get("download_url")
    assert isinstance(url, str) and url, done
    return url.rsplit("/", 1)[1].removesuffix(".docx")


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """The app on the embedded defaults, started by schemathesis's ASGI client (its lifespan runs in
    schemathesis's event-loop thread until the module ends), with a review report seeded."""
    data_dir = tmp_path_factory.mktemp("fuzz") / "data"
    app = create_app(Settings(_env_file=None, data_dir=data_dir, ocr_engine="none"))
    try:
        schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)
        skills = schema["/api/skills"]["GET"].Case().call().json()["skills"]
        yield Target(app, schema, report=_seed_report(schema), skill=skills[0]["name"])
    finally:
        asgi.shutdown_lifespans()


def _session_and_run(target: Target) -> tuple[str, str]:
    """A new session of the demo user with one finished chat run, answered by a scripted model set for
    this call only (a turn without a model opens no session; the fuzzed calls keep having none).
    Schemathesis ends the app's lifespan after each test and starts it again at the test's first call,
    with a new ``app.state.vent``: a first call starts it before the model is set on it."""
    target.schema["/api/skills"]["GET"].Case().call(timeout=CALL_TIMEOUT_S)
    case = target.schema["/api/chat"]["POST"].Case(
        body={"message": "你好"}, media_type="multipart/form-data", headers=TOKEN
    )
    with answering(target.app, ScriptedChatModel(script=[], fallback=says("你好，我是通风助手。"))):
        response = case.call(timeout=CALL_TIMEOUT_S)
    assert response.status_code == 200, response.text
    return response.headers["x-session-id"][0], response.headers["x-run-id"][0]


def _fuzz(operation: Any, mode: GenerationMode, path_parameters: dict[str, str] | None = None) -> None:
    """Call ``operation`` with generated requests and run the checks on every answer."""

    @HYPOTHESIS
    @given(case=operation.as_strategy(mode, path_parameters=path_parameters))
    def run(case: schemathesis.Case[Any]) -> None:
        response = case.call(headers=TOKEN, timeout=CALL_TIMEOUT_S)
        case.validate_response(response, checks=CHECKS, headers=TOKEN)

    run()


@pytest.mark.parametrize(("method", "path", "mode"), _params(live=False))
def test_generated_requests(target: Target, method: str, path: str, mode: GenerationMode) -> None:
    _fuzz(target.schema[path][method], mode)


@pytest.mark.parametrize(("method", "path", "mode"), _params(live=True))
def test_generated_requests_on_real_resources(
    target: Target, method: str, path: str, mode: GenerationMode
) -> None:
    session, run = _session_and_run(target)
    ids = {"session": session, "run": run, "report": target.report, "skill": target.skill}
    fixed = {n: ids[PATH_RESOURCE[n]] for n in PATH_PARAMETERS[method, path] if n in PATH_RESOURCE}
    _fuzz(target.schema[path][method], mode, fixed)
