"""Repeated content: a PDF carrying the plan several times (bound with appendices and other copies) is
reviewed once, gets one form finding listing the copies' pages, and each finding lists every copy's page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf_edit import bind
from tests.pdf_factory import Page, build_pdf
from tests.review_runs import Events, finding_keys, review_file
from vent_agent.documents.pdf_text import ExtractedPdf, PageText, extract_pdf
from vent_agent.documents.reading import read_plan
from vent_agent.documents.repeats import find_repeats
from vent_agent.kb.search import get_knowledge_base
from vent_agent.review.checks.form_rules import review_form
from vent_agent.review.checks.repeat_rules import RULE_ID, page_ranges
from vent_agent.review.findings import Severity
from vent_agent.review.outputs.provenance import build_record, trace_finding

DATA = Path(__file__).parent / "data"
PLAN_B = DATA / "plan-2026-08-b.pdf"


def _appendix(title: str, n_lines: int = 12) -> bytes:
    page = Page()
    page.para(title, 14)
    for i in range(n_lines):
        page.para(f"附件说明第{i + 1}条：{title}中的测风记录与巷道断面实测数据，仅供参考。")
    return build_pdf([page])


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory):
    return review_file(PLAN_B, tmp_path_factory.mktemp("single"))


def _split(result):
    repeated = [f for f in result.findings if f.rule_id == RULE_ID]
    return repeated, [f for f in result.findings if f.rule_id != RULE_ID]


@pytest.mark.parametrize(
    ("layout", "copies"),
    [
        (["b"] * 12, [[1 + 5 * k + i for i in range(5)] for k in range(12)]),
        (["b"] * 2, [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]),
        (["b"] * 3, [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]]),
        (["b", "x", "b", "y", "b"], [[1, 2, 3, 4, 5], [7, 8, 9, 10, 11], [13, 14, 15, 16, 17]]),
    ],
    ids=["twelve", "two", "three", "appendices-between"],
)
def test_a_plan_bound_several_times_gives_each_finding_once(
    layout: list[str],
    copies: list[list[int]],
    single,
    tmp_path: Path,
) -> None:
    parts: dict[str, bytes | Path] = {
        "b": PLAN_B,
        "x": _appendix("附件一 测风报表"),
        "y": _appendix("附件二 断面测量"),
    }
    pdf = tmp_path / "bound.pdf"
    pdf.write_bytes(bind([parts[x] for x in layout]))
    got = review_file(pdf, tmp_path / "d")
    repeated, rest = _split(got)
    assert finding_keys(rest) == finding_keys(single.findings)
    (one,) = repeated
    assert one.severity == Severity.INFO and one.category.value == "form" and one.location is None
    assert one.figures["copies"] == len(copies)
    for cp in copies:
        assert f"第{page_ranges(cp)}页" in one.message
    assert got.repeats is not None and got.repeats.copies == copies
    # a finding read on page p of the reviewed copy lists the same page of every other copy
    for f in rest:
        if f.page:
            pages = {e.page for e in f.evidence if e.kind == "pdf"} | {f.page}
            assert {cp[f.page - 1] for cp in copies} <= pages, (f.message, pages)


def test_plan_a_bound_three_times_has_no_major(tmp_path: Path) -> None:
    pdf = tmp_path / "a3.pdf"
    pdf.write_bytes(bind([DATA / "plan-2026-08-a.pdf"] * 3))
    got = review_file(pdf, tmp_path / "d")
    single = review_file(DATA / "plan-2026-08-a.pdf", tmp_path / "s")
    repeated, rest = _split(got)
    assert len(repeated) == 1 and finding_keys(rest) == finding_keys(single.findings)
    assert not [f for f in got.findings if f.severity in (Severity.MAJOR, Severity.CRITICAL)]


def test_the_most_complete_copy_is_reviewed(tmp_path: Path) -> None:
    """A first copy without its last two pages, then the whole plan: the whole one is read."""
    import pypdfium2 as pdfium

    short = pdfium.PdfDocument(PLAN_B)
    short.del_page(4)
    short.del_page(3)
    part = tmp_path / "short.pdf"
    short.save(part)
    short.close()
    pdf = tmp_path / "bound.pdf"
    pdf.write_bytes(bind([part, PLAN_B]))
    ex = extract_pdf(pdf, max_pages=50)
    rep = find_repeats(ex)
    assert rep is not None and rep.reviewed == [4, 5, 6, 7, 8]
    assert rep.copies == [[4, 5, 6], [1, 2, 3]] and rep.same_as == {1: 4, 2: 5, 3: 6}


def test_a_table_repeated_in_an_appendix_is_read_once() -> None:
    ex = extract_pdf(PLAN_B, max_pages=50)
    alloc = next(t for t in ex.tables if t.n_rows > 8)
    appendix = PageText(page=6, text="附件：风量分配表（复印）\n" + "说明文字不同于正文\n" * 3)
    copy = alloc.model_copy(
        update={"page": 6, "index": 0, "cells": [c.model_copy(update={"page": 6}) for c in alloc.cells]}
    )
    bound = ExtractedPdf(page_count=6, pages=[*ex.pages, appendix], tables=[*ex.tables, copy])
    plan, once = read_plan(bound), read_plan(ex)
    assert plan.repeats is not None and plan.repeats.tables_same_as == {"6:0": f"{alloc.page}:{alloc.index}"}
    assert [r.location for r in plan.allocation] == [r.location for r in once.allocation]
    (one,) = [f for f in review_form(plan) if f.rule_id == RULE_ID]
    assert one.page == alloc.page and [e.page for e in one.evidence] == [6] and "第6页" in one.message


def test_a_single_plan_has_no_repeats() -> None:
    ex = extract_pdf(PLAN_B, max_pages=50)
    assert find_repeats(ex) is None and read_plan(ex).repeats is None
    # running headers alone, or short pages (a divider, a stamp) repeated, are not copies
    header = "示范煤矿2026年8月份矿井配风计划"
    pages = [PageText(page=1, text=header + "\n一、编制依据\n" + "正文内容" * 30)]
    pages += [PageText(page=n, text=f"{header}\n附件\n第{n}页") for n in (2, 3)]
    pages += [PageText(page=4, text=header + "\n二、用风地点\n" + "其他内容" * 30)]
    assert find_repeats(ExtractedPdf(page_count=4, pages=pages)) is None


def test_page_ranges() -> None:
    assert page_ranges([1, 2, 3, 5, 7, 8]) == "1–3、5、7–8" and page_ranges([4]) == "4"


def test_the_provenance_of_a_bound_plan_traces_every_copy(tmp_path: Path) -> None:
    pdf = tmp_path / "b2.pdf"
    pdf.write_bytes(bind([PLAN_B, PLAN_B]))
    events = Events()
    result = review_file(pdf, tmp_path / "d", events=events)
    record = build_record(result, report_id="r", run_id=None, session_id=None, events=[], artifacts=[])
    assert record.repeats is not None and record.repeats.same_as == {6: 1, 7: 2, 8: 3, 9: 4, 10: 5}
    assert [p.page for p in record.pages_read] == list(range(1, 11))
    kb = get_knowledge_base()
    copies = 0
    for i, f in enumerate(record.findings, start=1):
        links = [lk for lk in trace_finding(record, i, kb).links if lk.kind == "pdf"]
        assert all(lk.status == "ok" for lk in links), (f.message, [lk.reason for lk in links])
        copies += sum(1 for lk in links if (lk.detail.get("page") or 0) > 5)
    assert copies >= len(record.findings) - 2  # every finding with a page also points at its copy


PLAN_A = DATA / "plan-2026-08-a.pdf"


@pytest.mark.parametrize(
    ("first", "second", "reviewed"),
    [(PLAN_A, PLAN_B, [1, 2, 3, 4, 5]), (PLAN_B, PLAN_A, [6, 7, 8, 9, 10])],
    ids=["a-then-b", "b-then-a"],
)
def test_two_differing_versions_are_not_mixed(
    first: Path, second: Path, reviewed: list[int], tmp_path: Path
) -> None:
    """Two versions bound together: the most complete copy (plan a: it has a location plan b lacks) is
    reviewed alone, never one version's calculations against the other's tables, and one major finding
    says the effective version is unclear."""
    pdf = tmp_path / "versions.pdf"
    pdf.write_bytes(bind([first, second]))
    got = review_file(pdf, tmp_path / "d")
    alone = review_file(PLAN_A, tmp_path / "s")
    conflicting = [f for f in got.findings if f.rule_id == "form.conflicting_versions"]
    rest = [f for f in got.findings if f.rule_id != "form.conflicting_versions"]
    (one,) = conflicting
    assert one.severity == Severity.MAJOR and "生效版本不明" in one.message
    assert f"仅审查了第{page_ranges(reviewed)}页" in one.message
    assert got.repeats is not None and got.repeats.reviewed == reviewed
    shift = reviewed[0] - 1
    expected = [f.model_copy(update={"page": f.page + shift if f.page else f.page}) for f in alone.findings]
    assert finding_keys(rest) == finding_keys(expected)
    assert not [f for f in got.findings if f.rule_id == RULE_ID]


def test_copies_differing_only_in_page_numbers_are_copies() -> None:
    from vent_agent.documents.repeats import _differs, _lines

    body = "\n".join(f"第{i}行：15216综采工作面需风量 1132.2 m³/min" for i in range(8))
    for a, b in [("第 1 页", "第 6 页"), ("- 1 -", "- 6 -"), ("1/5", "6/10"), ("第1页共5页", "第6页共10页")]:
        assert not _differs(_lines(f"{body}\n{a}"), _lines(f"{body}\n{b}"))
    assert _differs(_lines(body), _lines(body.replace("1132.2", "1123.2")))
