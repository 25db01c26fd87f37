"""Follow-up suggestions read from the model's reply: a JSON array of questions (bare or in a code
fence) is several suggestions, not one; plain lines and numbered lists as before."""

from __future__ import annotations

import pytest

from vent_agent.chat.suggest import parse_suggestions

QUESTIONS = ["15216 风量是否满足需风量？", "近24小时有无一氧化碳报警？", "如何提高该巷道风速？"]


@pytest.mark.parametrize(
    "reply",
    [
        '["15216 风量是否满足需风量？", "近24小时有无一氧化碳报警？", "如何提高该巷道风速？"]',
        '```json\n[\n  "15216 风量是否满足需风量？",\n  "近24小时有无一氧化碳报警？",\n  "如何提高该巷道风速？"\n]\n```',
        "1. 15216 风量是否满足需风量？\n2. 近24小时有无一氧化碳报警？\n3. 如何提高该巷道风速？",
        "- 15216 风量是否满足需风量？\n- 近24小时有无一氧化碳报警？\n\n- 如何提高该巷道风速？\n- 第四个问题？",
    ],
)
def test_each_reply_shape_gives_the_three_questions(reply: str) -> None:
    assert parse_suggestions(reply) == QUESTIONS


def test_a_json_array_keeps_only_its_strings_and_a_broken_one_is_read_as_lines() -> None:
    assert parse_suggestions('["风量够吗？", 3, null, "风速呢？"]') == ["风量够吗？", "风速呢？"]
    assert parse_suggestions('["风量够吗？",\n"风速呢？"') == ["风量够吗？", "风速呢？"]
