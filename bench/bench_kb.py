"""Knowledge base: corpus load, index build and queries per second (a plain script, not a test).

Run: ``.venv/bin/python bench/bench_kb.py [--seconds 0.5]``. Prints the time to read the corpus
(jieba's dictionary included, as on a cold process), to build the BM25 indexes, and the queries per second
of BM25 questions, look-ups by article number and citation validation, each run for about ``--seconds``
(at most 2 s) measured with ``time.perf_counter``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from vent_agent.kb.citations import CitationRegistry, validate_citations
from vent_agent.kb.regulations import load_corpus
from vent_agent.kb.search import KnowledgeBase
from vent_agent.kb.tokens import warm_up

QUESTIONS = [
    "采煤工作面最高允许风速是多少",
    "总回风巷最高允许风速是多少",
    "局扇距回风口距离",
    "甲烷浓度达到1.5%怎么办",
    "每人每分钟供风量",
]
NUMBERS = ["第157条", "第一百九十二条", "2016版第136条", "article 183"]
ANSWER = (
    "采煤工作面最高允许风速为4 m/s[[R1]]；实测4.6 m/s，已超限。依据《煤矿安全规程》第999条必须撤人。"
    "按AQ 1056-2008核定通风能力。"
)


def rate(func: Callable[[], Any], seconds: float) -> tuple[float, int]:
    """Calls per second of ``func()`` over about ``seconds``, and the number of calls."""
    n, start = 0, time.perf_counter()
    while True:
        func()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=0.5)
    seconds = min(max(parser.parse_args().seconds, 0.05), 2.0)

    t0 = time.perf_counter()
    warm_up()
    t1 = time.perf_counter()
    articles, _ = load_corpus()
    t2 = time.perf_counter()
    kb = KnowledgeBase(articles)
    retriever = kb.index()
    t3 = time.perf_counter()
    print(f"jieba dictionary      {1000 * (t1 - t0):8.1f} ms")
    print(f"corpus ({len(articles)} articles)  {1000 * (t2 - t1):8.1f} ms")
    print(f"BM25 index ({len(retriever.passages)} passages) {1000 * (t3 - t2):8.1f} ms")

    registry = CitationRegistry(kb)
    registry.record(QUESTIONS[0], kb.search(QUESTIONS[0], k=3))
    qi = iter(range(10**9))
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("search (BM25 question)", lambda: kb.search(QUESTIONS[next(qi) % len(QUESTIONS)], k=5)),
        ("search (article number)", lambda: kb.search(NUMBERS[next(qi) % len(NUMBERS)], k=5)),
        ("validate_citations", lambda: validate_citations(ANSWER, registry)),
    ]
    for name, func in cases:
        per_s, n = rate(func, seconds)
        print(f"{name:26s} {per_s:10.0f} /s  ({n} calls)")


if __name__ == "__main__":
    main()
