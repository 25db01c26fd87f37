"""Chat messages (OpenAI format) asking a language model to write the interpretation from the facts only.

The system message states the rules (no figure, time, device or article that is not in the facts; cite
the article labels exactly as given; keep every status as determined; say the data time and warn when
stale); the user message carries the facts as JSON with Chinese keys and times in the mine time zone.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from vent_agent.interpret.assess import STATUS_CN
from vent_agent.interpret.facts import InterpretationFacts
from vent_agent.interpret.render import chunk_text
from vent_agent.kb.thresholds import breach_text
from vent_agent.network.device_effect import effect_lines

__all__ = ["SYSTEM_PROMPT", "build_messages", "chunk_text"]

SYSTEM_PROMPT = """你是煤矿通风专业助手，为通风工程师解读巷道或设备的实时监测数据。
严格遵守：
1. 只依据用户消息中的“事实”JSON 写作；不得编造或推算任何未给出的数值、时间、设备、测点或原因；可以照抄事实中的数值和单位。
2. 只能引用“可引用条款”列表中的条款，且须原样使用其中的标签（如《煤矿安全规程》（2025版）第157条）；不得引用其他条款或其他标准。
3. 每一项的状态（正常/预警/超限）以事实为准，不得改变、弱化或遗漏超限项；“要求措施”须如实转述。
4. 写明数据时间（已为矿井时区）；若“数据过时”为 true，须在开头醒目提示数据已过时、结论仅供参考；若“有监测测点”为 false，写明该设备没有监测数据，不得说数据过时或近24小时无报警；若有“提醒”，须在开头逐条照写。
5. 用中文 Markdown 输出，结构：标题（名称）→ 当前状态（逐项列出当前值、允许范围、状态（用文字“正常”“预警”“超限”并加粗，不用图标或表情符号）与依据）→ 近24小时异常 → 结论与措施 → 所依据的规程版本。简洁、专业，不写客套话。
6. 若事实中有“调整影响”（通风网络模拟），在结论前单列“调整影响”一节，照写其中的分支、风量（m³/min）与新出现的问题及条款，并说明仅为模拟、须经审批，本系统不操作任何设施。"""


def _facts_payload(f: InterpretationFacts) -> dict[str, Any]:
    tz = ZoneInfo(f.timezone)

    def local(t: datetime | None) -> str | None:
        return t.astimezone(tz).strftime("%Y-%m-%d %H:%M") if t else None

    return {
        "对象": {
            "类型": "巷道" if f.target == "tunnel" else "设备",
            "编号": f.target_id,
            "名称": f.name,
            "类别": f.kind_label,
        },
        "数据时间": local(f.data_time),
        "时区": f.timezone,
        "数据距今分钟": f.age_minutes,
        "数据过时": f.stale,
        "有监测测点": f.monitored,
        "过时阈值分钟": f.stale_after_minutes,
        "规程版本": f.edition_label,
        "总体状态": STATUS_CN[f.status],
        "监测项": [
            {
                "项目": a.label,
                "测点": a.point or "计算值",
                "当前值": a.value_text,
                "允许范围": a.limit_text,
                "状态": STATUS_CN[a.status],
                "依据": a.source,
                "要求措施": a.action or None,
                "说明": a.basis or None,
            }
            for a in f.assessments
        ],
        "近24小时异常": [
            {
                "项目": a.label,
                "测点": a.device_name,
                "开始": local(a.start),
                "结束": local(a.end),
                "峰值": f"{a.value:g} {a.unit}".strip(),
                "峰值时间": local(a.time),
                "状态": STATUS_CN[a.status],
                "限值": breach_text(a.breach_op, a.limit, a.unit),
                "预警值": breach_text(a.breach_op, a.warn_at, a.unit) if a.warn_at is not None else None,
                "依据": a.article or a.source,
                "仍在持续": a.ongoing,
            }
            for a in f.anomalies
        ],
        "监测系统报警": [a.message + ("（仍在持续）" if a.active else "") for a in f.alarms],
        "相关规定": [{"条款": r.article, "条文": r.clause, "要求": r.requirement} for r in f.references],
        "备注": f.notes,
        **({"提醒": f.warnings} if f.warnings else {}),
        **({"调整影响": effect_lines(f.network)} if f.network is not None else {}),
    }


def build_messages(facts: InterpretationFacts) -> list[dict[str, str]]:
    """``[{"role": "system", …}, {"role": "user", …}]`` asking for the interpretation of ``facts``."""
    what = "巷道" if facts.target == "tunnel" else "设备"
    allowed = "\n".join(f"- {label}" for label in facts.articles()) or "- （无）"
    payload = json.dumps(_facts_payload(facts), ensure_ascii=False, indent=1)
    user = (
        f"请解读{what}「{facts.name}」（{facts.target_id}）的监测数据。\n\n"
        f"可引用条款（仅限以下）：\n{allowed}\n\n"
        f"事实：\n```json\n{payload}\n```"
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
