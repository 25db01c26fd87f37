"""The eval cases (``evals/cases.yaml``) as typed models, loaded and checked once.

A case is one question as a mine's engineer writes it, in one :data:`CATEGORIES` category, with what a
right answer must show (:class:`Expect`), the recorded trajectory replayed offline (:class:`Turn` list:
the model's successive answers, each text and tool calls) and its budgets (:class:`Budget`). A file whose
shape is wrong raises :class:`CasesError` with every problem located (Chinese).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from vent_agent.validation_reasons import dotted, located_reasons

CATEGORIES = (
    "tool_routing",
    "calculation",
    "data",
    "citation",
    "refusal",
    "plan_mode",
    "degraded",
    "network",
)
"""Every category, in report order."""

Setup = Literal["replay", "no_model", "model_down", "model_cut"]
"""How the case's model is provided: ``replay`` (the configured model, or offline the recorded turns), or a
degraded model: none configured, an endpoint that refuses connections, a stream cut before its end."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolUse(_Strict):
    """A tool call: its ``name`` and arguments (expected: the arguments that must be passed, others free)."""

    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Turn(_Strict):
    """One recorded model answer: ``text`` and the tool ``calls`` it makes (offline replay)."""

    text: str = ""
    calls: list[ToolUse] = Field(default_factory=list)


class CalcOracle(_Strict):
    """A figure computed by ``calc/``: calculator ``calc`` (a ``CATALOG`` name) on ``args``; ``value``
    of its result (m³/min unless the method says otherwise)."""

    calc: str
    args: dict[str, Any]


class DataOracle(_Strict):
    """A figure of the mine's data: ``kind`` ``tunnel`` (a :class:`~vent_agent.upstream.models.Tunnel`
    field of tunnel ``id``: area m², length m, allocated_q m³/min …), ``reading`` (the latest value of
    quantity ``field`` of device ``id``) or ``rating`` (a main fan's rated ``field``)."""

    kind: Literal["tunnel", "reading", "rating"]
    id: str
    field: str


FlowField = Literal["q", "q_before", "dq"]
RegulatorField = Literal["added_resistance", "pressure_drop", "window_area"]


class NetworkOracle(_Strict):
    """A figure of the mine's network solve (the demo mine's network, ``vent_agent.network.service``).

    Flows: ``field`` ``q`` (after ``changes``, or as solved when there are none), ``q_before`` or ``dq``
    of ``branch``, in m³/min and unsigned (an answer says "减少 1054 m³/min", "反向 839 m³/min");
    ``changes`` as ``POST /api/network/what-if`` takes them. A regulator's sizing: ``target_q`` (m³/min)
    for ``branch`` (set in ``regulator_branch``, default the branch itself) and ``field``
    ``added_resistance`` (N·s²/m⁸), ``pressure_drop`` (Pa) or ``window_area`` (m²)."""

    branch: str
    field: FlowField | RegulatorField = "q"
    changes: list[dict[str, Any]] = Field(default_factory=list)
    target_q: float | None = Field(default=None, gt=0)
    regulator_branch: str | None = None

    @model_validator(mode="after")
    def _sizing_or_flow(self) -> NetworkOracle:
        sizing = self.field in ("added_resistance", "pressure_drop", "window_area")
        if sizing != (self.target_q is not None):
            raise ValueError(
                "调节风窗的数值（added_resistance、pressure_drop、window_area）须且只须给出 target_q"
            )
        if sizing and self.changes:
            raise ValueError("调节风窗的计算不接受 changes")
        return self


class Figure(_Strict):
    """A figure the answer must state: from a calculator, the mine's data or the network solve, in
    ``unit`` (as written after the number; m³/min figures are also accepted in m³/s), within ``rel_tol``
    (relative) or half the last decimal the answer writes."""

    calc: CalcOracle | None = None
    data: DataOracle | None = None
    network: NetworkOracle | None = None
    unit: str = ""
    rel_tol: float = 0.005

    @model_validator(mode="after")
    def _one_oracle(self) -> Figure:
        if sum(x is not None for x in (self.calc, self.data, self.network)) != 1:
            raise ValueError("figure 须且只须给出 calc、data 或 network 之一")
        return self


class Expect(_Strict):
    """What a right answer shows.

    - ``tools``: calls that must be made, in this order (other calls may come between), arguments as
      given; ``forbid_tools``: calls that must not be made; ``no_tools``: no call at all.
    - ``figures``: figures the answer must state (:class:`Figure`).
    - ``articles``: articles of 《煤矿安全规程》 the answer must cite; ``citations``: every citation of the
      answer must resolve (marker listed, article in the knowledge base, its quoted words in the article).
    - ``refuse``: True the answer must decline, False it must not.
    - ``interrupt``: plan mode stops for approval before any action; ``after_resume``: tools that must
      run once the plan is approved (none when rejected).
    - ``error``: words of the ``error`` event the run must end with (degraded models); ``answer``: words
      the answer must contain.
    """

    tools: list[ToolUse] = Field(default_factory=list)
    forbid_tools: list[str] = Field(default_factory=list)
    no_tools: bool = False
    figures: list[Figure] = Field(default_factory=list)
    articles: list[int] = Field(default_factory=list)
    citations: bool = False
    refuse: bool | None = None
    interrupt: bool = False
    after_resume: list[ToolUse] = Field(default_factory=list)
    error: str | None = None
    answer: list[str] = Field(default_factory=list)


class Budget(_Strict):
    """Budgets of one case: seconds to the first event and to the end, tool calls at most."""

    first_event_s: float = 10.0
    total_s: float = 60.0
    tool_calls: int = 8


class Case(_Strict):
    """One eval case. ``twin``: the benign twin of an unsafe request (refusal), which must not be
    refused; ``resume``: the decision sent after a plan-mode interrupt; ``replay`` and ``replay_resume``:
    the recorded model answers before and after the decision."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    category: Literal[
        "tool_routing", "calculation", "data", "citation", "refusal", "plan_mode", "degraded", "network"
    ]
    message: str = Field(min_length=1)
    mode: Literal["full", "plan"] = "full"
    setup: Setup = "replay"
    twin: str | None = None
    resume: Literal["approve", "reject"] | None = None
    expect: Expect
    replay: list[Turn] = Field(default_factory=list)
    replay_resume: list[Turn] = Field(default_factory=list)
    budget: Budget | None = None


class CategoryNote(_Strict):
    """A category's note in the report (``pending``: declared, its cases to come; a category without
    cases is shown with n = 0 and its note)."""

    note: str
    pending: bool = False


class CaseFile(_Strict):
    """The whole file: default budget, category notes, the cases (ids unique, twins existing)."""

    budget: Budget = Budget()
    categories: dict[str, CategoryNote] = Field(default_factory=dict)
    cases: list[Case]

    @model_validator(mode="after")
    def _consistent(self) -> CaseFile:
        ids = [c.id for c in self.cases]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"用例编号重复：{'、'.join(repeated)}")
        unknown = sorted(set(self.categories) - set(CATEGORIES))
        if unknown:
            raise ValueError(f"未知类别：{'、'.join(unknown)}")
        for case in self.cases:
            if case.twin is not None and case.twin not in ids:
                raise ValueError(f"用例 {case.id} 的对照用例 {case.twin} 不存在")
        return self

    def budget_of(self, case: Case) -> Budget:
        """The case's budget, else the file's default."""
        return case.budget or self.budget


class CasesError(ValueError):
    """The cases file cannot be read or has a wrong shape; the message says where (Chinese)."""


def load_cases(path: Path) -> CaseFile:
    """The cases of ``path`` (YAML). Raises :class:`CasesError` for a missing file, bad YAML or a wrong
    shape (every problem located)."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CasesError(f"无法读取用例文件 {path}：{exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise CasesError(f"用例文件 {path} 不是有效的 YAML：{exc}") from exc
    try:
        return CaseFile.model_validate(raw)
    except ValidationError as exc:
        raise CasesError(
            f"用例文件 {path} 格式错误：{located_reasons(exc, lambda loc: dotted(loc) or '文件')}"
        ) from exc


def select(cases: CaseFile, ids: list[str]) -> list[Case]:
    """The cases named by ``ids`` (all when empty), in file order. Raises :class:`CasesError` for an
    unknown id."""
    if not ids:
        return list(cases.cases)
    known = {c.id for c in cases.cases}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise CasesError(f"未知用例：{'、'.join(unknown)}")
    return [c for c in cases.cases if c.id in ids]
