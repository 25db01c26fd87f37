"""Citation validation: markers assigned per run, fabricated and unretrieved articles removed, figures
checked against the clause, sources outside the knowledge base named; and a scripted agent's answer."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.helpers import present
from vent_agent.kb.citations import CitationRegistry, ValidatedText, consecutive, validate_citations
from vent_agent.kb.search import KnowledgeBase, get_knowledge_base
from vent_agent.tools.kb_tools import kb_tools


class Scripted(BaseChatModel):
    """Answers the n-th call with the n-th scripted message; keeps what it was sent."""

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted-kb"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Scripted:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.script[len(self.seen) - 1])])


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return get_knowledge_base()


@pytest.fixture
def registry(kb: KnowledgeBase) -> CitationRegistry:
    """A run that retrieved 表6 (第157条, R1) and the gas articles 第192/193条."""
    reg = CitationRegistry(kb)
    reg.record("采煤工作面最高允许风速是多少", kb.search("采煤工作面最高允许风速是多少", k=1))
    reg.record("第192条 第193条", kb.search("第192条 第193条"))
    return reg


def kinds(result: ValidatedText) -> list[str]:
    return [w.kind for w in result.warnings]


def test_markers_assigned_once_per_article(kb: KnowledgeBase, registry: CitationRegistry) -> None:
    assert [(r.marker, r.article) for r in registry.retrieved()] == [("R1", 157), ("R2", 192), ("R3", 193)]
    again = registry.record("第136条", kb.search("第136条"))  # the same article through its 2016 alias
    assert again == ["R1"] and present(registry.by_marker("[[R1]]")).queries == [
        "采煤工作面最高允许风速是多少",
        "第136条",
    ]
    assert [c["articles"] for c in registry.calls] == [["R1"], ["R2", "R3"], ["R1"]]
    assert registry.by_marker("R9") is None and registry.get("2025", 158) is None


def test_registry_is_thread_safe(kb: KnowledgeBase) -> None:
    reg = CitationRegistry(kb)
    clauses = [kb.lookup(n) for n in range(156, 188)]
    threads = [threading.Thread(target=reg.record, args=(f"q{i}", clauses[i::4])) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    markers = [r.marker for r in reg.retrieved()]
    assert sorted(markers, key=lambda m: int(m[1:])) == [f"R{i}" for i in range(1, 33)]


def test_valid_citations_kept_with_references(registry: CitationRegistry) -> None:
    text = (
        "采煤工作面最高允许风速为4 m/s[[R1]]，最低0.25 m/s；回风巷甲烷浓度达到1.0%必须停止工作（第192条）。"
    )
    result = validate_citations(text, registry)
    assert result.text == text and result.warnings == []
    assert [(r.marker, r.article, r.edition, r.in_kb) for r in result.references] == [
        ("R1", 157, "2025", True),
        ("R2", 192, "2025", True),
    ]
    assert "采煤工作面、掘进中的煤巷和半煤岩巷" in result.references[0].excerpt
    event = result.event()
    assert (
        event["type"] == "references"
        and event["references"][0]["label"] == "《煤矿安全规程》（2025版）第157条"
    )


def test_fabricated_article_removed(registry: CitationRegistry) -> None:
    result = validate_citations("根据《煤矿安全规程》第999条，必须立即撤人。", registry)
    assert result.text == "必须立即撤人。"
    (w,) = result.warnings
    assert (w.kind, w.article, w.removed) == ("not_in_kb", 999, True)
    assert result.references == []


def test_real_article_not_retrieved_removed(registry: CitationRegistry) -> None:
    result = validate_citations(
        "进风井口以下空气温度必须在2℃以上（第一百五十八条）。另据第161条每旬测风。", registry
    )
    assert result.text == "进风井口以下空气温度必须在2℃以上。另据每旬测风。"
    assert [(w.kind, w.article) for w in result.warnings] == [("not_retrieved", 158), ("not_retrieved", 161)]


def test_unknown_marker_removed(registry: CitationRegistry) -> None:
    result = validate_citations("风速合格[[R7]]。", registry)
    assert result.text == "风速合格。" and kinds(result) == ["unknown_marker"]


@pytest.mark.parametrize(
    ("text", "figure", "expected"),
    [
        ("采煤工作面最高允许风速为6 m/s[[R1]]。", "6 m/s", [4.0, 5.0]),  # 5: 综采 with dust suppression
        ("依据第157条，掘进中的岩巷最低风速为0.25 m/s。", "0.25 m/s", [0.15]),
        ("总回风巷风速不得超过10m/s（第157条）。", "10 m/s", [8.0]),
        ("按第157条，采煤工作面风速应在0.25~6 m/s之间。", "6 m/s", [0.25, 4.0, 5.0]),
        ("| 采煤工作面 | 4 m/s | 第157条 |\n| 风桥 | 12 m/s | 第157条 |", "12 m/s", [10.0]),
    ],
)
def test_wrong_figure_flagged(
    registry: CitationRegistry, text: str, figure: str, expected: list[float]
) -> None:
    result = validate_citations(text, registry)
    assert result.text == text  # flagged, not removed
    (w,) = result.warnings
    assert (w.kind, w.article, w.figure, w.expected) == ("figure_mismatch", 157, figure, expected)
    assert figure in w.message and "第157条" in w.message


@pytest.mark.parametrize(
    "text",
    [
        "采煤工作面风速应在0.25~4 m/s之间[[R1]]。",
        "当前风速4.5 m/s，超过第157条规定的最高允许风速4 m/s。",
        "实测风速4.5m/s，超过[[R1]]规定的采煤工作面最高允许风速4m/s。",
        "架线电机车巷道最低风速1.0 m/s，无瓦斯涌出时不得低于0.5 m/s[[R1]]。",
        "综合机械化采煤工作面采取降尘措施后最高风速不得超过5 m/s[[R1]]。",
        "采区回风巷甲烷浓度达到1.0%或二氧化碳浓度达到1.5%时停止工作[[R2]]。",
        "工作面计算需风量为1200 m³/min，风速校核见第157条。",
    ],
)
def test_right_figures_pass(registry: CitationRegistry, text: str) -> None:
    result = validate_citations(text, registry)
    assert result.warnings == [] and result.text == text


def test_ppm_and_percent_are_one_quantity(kb: KnowledgeBase) -> None:
    reg = CitationRegistry(kb)
    reg.record("CO", kb.search("一氧化碳最高允许浓度", k=1))
    assert validate_citations("一氧化碳最高允许浓度为24 ppm[[R1]]。", reg).warnings == []
    assert validate_citations("一氧化碳最高允许浓度为0.0024%[[R1]]。", reg).warnings == []
    (w,) = validate_citations("一氧化碳最高允许浓度为50 ppm[[R1]]。", reg).warnings
    assert w.kind == "figure_mismatch" and w.figure == "50 ppm"


def test_2016_numbers_accepted_as_aliases(registry: CitationRegistry) -> None:
    result = validate_citations("按2016版第136条，采煤工作面最高风速4 m/s。", registry)
    assert result.text == "按2016版第136条，采煤工作面最高风速4 m/s。"
    (w,) = result.warnings
    assert (w.kind, w.article, w.message) == ("alias", 157, "2016版第136条即2025版第157条")
    assert [r.article for r in result.references] == [157]
    gone = validate_citations("见2016版第157条。", registry)  # 2016's 157 has no known counterpart
    assert kinds(gone) == ["not_in_kb"] and gone.text == "见。"


def test_partly_valid_list_kept(registry: CitationRegistry) -> None:
    result = validate_citations("见第192、999条。", registry)
    assert result.text == "见第192、999条。"
    (w,) = result.warnings
    assert (w.kind, w.article, w.removed) == ("not_in_kb", 999, False)


def test_sources_outside_the_kb(registry: CitationRegistry) -> None:
    text = (
        "需风量按AQ 1056-2008计算，瓦斯涌出不均匀系数取1.5（工程实践）；《煤矿防治水细则》第10条另有规定；"
        "作业规程第3条规定了风筒口距离；第2条联络巷风速偏低。"
    )
    result = validate_citations(text, registry)
    assert result.text == text and result.warnings == []  # no 第N条 here is an article of the 规程
    assert [(r.label, r.in_kb) for r in result.references] == [
        ("AQ 1056-2008《煤矿通风能力核定标准》", False),
        ("《煤矿防治水细则》", False),
        ("工程实践", False),
    ]
    assert all("知识库外" in (r.note or "") or "工程实践" in (r.note or "") for r in result.references)


def test_a_known_standard_named_by_its_title_alone_is_listed(registry: CitationRegistry) -> None:
    """《煤矿井工开采通风技术条件》 without its code is still a source (listed with its code, once when both
    are written); a title that is only part of a known one's is a source of its own."""
    alone = validate_citations("风速按《煤矿井工开采通风技术条件》执行，另见《通风能力》。", registry)
    assert [(r.label, r.in_kb) for r in alone.references] == [
        ("AQ 1028-2006《煤矿井工开采通风技术条件》", False),
        ("《通风能力》", False),
    ]
    both = validate_citations(
        "按AQ 1028-2006《煤矿井工开采通风技术条件》执行；《煤矿井工开采通风技术条件》另有规定。", registry
    )
    assert [r.label for r in both.references] == ["AQ 1028-2006《煤矿井工开采通风技术条件》"]


@pytest.mark.parametrize(
    "title",
    [
        "plan-2026-08-b.pdf",
        "8月配风计划.DOCX",
        "通风说明.txt",
        "旧版配风计划.doc",
        "风量分配表.xlsx",
        "配风计划（8月）．ＰＤＦ",  # full-width dot and letters
        "三采区配风计划 .Pdf",
        "矿井通风报告.wps",
    ],
)
def test_a_file_name_in_quotes_is_not_a_source(registry: CitationRegistry, title: str) -> None:
    """A document title with a file extension names a file (an upload, a report), not a source one can
    cite; a real document outside the knowledge base beside it is still listed."""
    text = f"根据《{title}》，15216工作面需风量为630 m³/min；另见《煤矿防治水细则》。"
    result = validate_citations(text, registry)
    assert result.text == text and result.warnings == []
    assert [(r.label, r.in_kb) for r in result.references] == [("《煤矿防治水细则》", False)]


def test_an_attachment_named_without_its_extension_is_not_a_source(registry: CitationRegistry) -> None:
    """The user's attached files, named in 《》 without their extension (any case, spaces or full-width
    forms), are not sources; an attachment's name does not hide a real document, nor does a title that
    only contains it."""
    attachments = ["8月配风计划（修订）.pdf", "Plan-2026-08-B.pdf", "《三采区》通风设计.docx", "readme"]
    text = (
        "《8月配风计划（修订）》中15216需风量为630 m³/min，《plan-2026-08-b》与《PLAN-2026-08-B》同，"
        "《 8月配风计划（修订） 》另有说明，《三采区通风设计》和《README》亦同；"
        "风速按AQ 1028-2006《煤矿井工开采通风技术条件》，另见《8月配风计划（修订）说明》。"
    )
    result = validate_citations(text, registry, attachments=attachments)
    assert [r.label for r in result.references] == [
        "AQ 1028-2006《煤矿井工开采通风技术条件》",
        "《8月配风计划（修订）说明》",
    ]
    # without the attachments, every name but the standard's is taken for a source
    listed = [r.label for r in validate_citations(text, registry).references]
    assert "《8月配风计划（修订）》" in listed and "《plan-2026-08-b》" in listed and "《README》" in listed


def test_edition_written_before_a_citation_is_cut_with_it(registry: CitationRegistry) -> None:
    result = validate_citations("根据《煤矿安全规程》（2016版）第999条的规定，必须停止作业。", registry)
    assert result.text == "必须停止作业。" and result.warnings[0].edition == "2016"


def test_scripted_agent_answer_checked(kb: KnowledgeBase) -> None:
    """A scripted model queries the knowledge base, then answers with one valid citation, a fabricated
    article, a real article it never retrieved, a marker it invented and a wrong figure."""
    registry = CitationRegistry(kb)
    answer = (
        "采煤工作面最高允许风速为4 m/s[[R1]]；该工作面实测风速4.6 m/s，已超限。"
        "依据《煤矿安全规程》第二百零八条，必须立即调整风量。"
        "风速超限时应停止作业（第184条）。"
        "掘进中的煤巷最低风速为0.5 m/s[[R1]]。"
        "局部通风机另见[[R5]]。"
    )
    model = Scripted(
        script=[
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "query_knowledge_base",
                        "id": "c1",
                        "type": "tool_call",
                        "args": {"query": "采煤工作面最高允许风速是多少", "top_k": 1},
                    }
                ],
            ),
            AIMessage(content=answer),
        ]
    )
    agent = create_agent(model, kb_tools(registry))
    state = agent.invoke({"messages": [HumanMessage("15216工作面风速4.6 m/s是否超限？")]})
    tool_msg = next(m for m in state["messages"] if isinstance(m, ToolMessage))
    assert '"marker": "[[R1]]"' in tool_msg.content and '"article": 157' in tool_msg.content
    final = state["messages"][-1].content
    assert final == answer

    result = validate_citations(final, registry)
    assert [(w.kind, w.article) for w in result.warnings if w.kind != "figure_mismatch"] == [
        ("unknown_marker", None),
        ("not_in_kb", 208),
        ("not_retrieved", 184),
    ]
    (fig,) = [w for w in result.warnings if w.kind == "figure_mismatch"]
    assert (fig.figure, fig.expected) == ("0.5 m/s", [0.25])
    assert "第二百零八条" not in result.text and "第184条" not in result.text and "[[R5]]" not in result.text
    assert "[[R1]]" in result.text and "必须立即调整风量。" in result.text
    assert [(r.marker, r.article) for r in result.references] == [("R1", 157)]
    # without the figure check (the service's rule-based text): the same result but that warning
    unchecked = validate_citations(final, registry, figures=False)
    assert unchecked.warnings == [w for w in result.warnings if w.kind != "figure_mismatch"]
    assert (unchecked.text, unchecked.references) == (result.text, result.references)


def test_marker_after_full_stop_and_sentence_opening_citation(registry: CitationRegistry) -> None:
    (w,) = validate_citations("采煤工作面最高风速6 m/s。[[R1]]", registry).warnings
    assert (w.kind, w.figure) == ("figure_mismatch", "6 m/s")
    # a citation opening its own sentence does not reach back to the measured value before it
    assert (
        validate_citations("实测风速5 m/s。第157条规定，采煤工作面最高风速4 m/s。", registry).warnings == []
    )


def test_other_document_in_kb_dir(tmp_path) -> None:
    (tmp_path / "water.txt").write_text(
        "---\ntitle: 《煤矿防治水细则》\nedition: 2018\n---\n第十条 矿井应当建立防治水技术管理制度。\n",
        encoding="utf-8",
    )
    kb = get_knowledge_base(tmp_path)
    reg = CitationRegistry(kb)
    (hit,) = kb.search("防治水技术管理制度", k=1)
    assert (hit.document, hit.article, hit.label) == (
        "《煤矿防治水细则》",
        10,
        "《煤矿防治水细则》（2018版）第10条",
    )
    assert reg.record("防治水", [hit]) == ["R1"]
    result = validate_citations("矿井应当建立防治水技术管理制度[[R1]]（《煤矿防治水细则》第10条）。", reg)
    assert result.warnings == []
    assert [(r.label, r.in_kb) for r in result.references] == [("《煤矿防治水细则》（2018版）第10条", True)]


def test_a_one_off_text_numbers_its_references_without_gaps(registry: CitationRegistry) -> None:
    """R2 (第192条) retrieved but not cited: the text's R1 and R3 become R1 and R2, in the text, the
    reference list and the warnings alike."""
    text = "采煤工作面最高允许风速为4 m/s[[R1]]。掘进工作面甲烷浓度达到7%时停止工作[[R3]]，另见[[R3]]。"
    checked = validate_citations(text, registry)
    assert [r.marker for r in checked.references] == ["R1", "R3"]
    result = consecutive(checked)
    assert [(r.marker, r.article) for r in result.references] == [("R1", 157), ("R2", 193)]
    assert result.text == text.replace("[[R3]]", "[[R2]]")
    (w,) = result.warnings
    assert (w.kind, w.citation) == ("figure_mismatch", "[[R2]]")
    # nothing to change: the same object back
    gapless = validate_citations("风速4 m/s[[R1]]，甲烷1.0%[[R2]]。", registry)
    assert consecutive(gapless) is gapless
