"""How a change tried on the network names what it changes: the device, as the mine's data name it, not
the branch that models it. A main fan's branch is its drift (风硐): stopping it is "停止主要通风机 1号主通风机
（FAN-001）", never "停止主要通风机风硐"; a local fan's branch is the fan with its duct: the running fan is
named; a door or regulator is its branch, named without the state its name was written with (a door's
"（关闭）" is its state before the change).

``names`` maps a branch id to the label of the device it models (``名称（编号）``), where the mine's data
give one (:func:`~vent_agent.network.service.demo_device_names` for the demo mine); a branch without one
is named by its own name and id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ventnet import Branch, Network
from ventnet.changes import Change

MAIN_FAN = "主要通风机"
LOCAL_FAN = "局部通风机"
_STATE_SUFFIX = re.compile(r"（(关闭|打开|开启|常闭|常开)）$")


def branch_label(branch: Branch) -> str:
    """``名称（编号）`` of a branch (a door's name without its state), or its id when it has no name."""
    name = _STATE_SUFFIX.sub("", branch.name or "")
    return f"{name}（{branch.id}）" if name else branch.id


def fan_word(branch: Branch) -> str:
    """The kind of fan a branch with a fan is: 主要通风机 (a fan curve) or 局部通风机 (a fixed quantity)."""
    return MAIN_FAN if branch.fan is not None else LOCAL_FAN


def device_label(branch: Branch, names: Mapping[str, str]) -> str:
    """What a branch is called when its device is meant: a fan's name from ``names`` after its kind
    (``主要通风机 1号主通风机（FAN-001）``; the kind not repeated when the name says it), else
    :func:`branch_label`."""
    named = names.get(branch.id)
    if named is None or (branch.fan is None and branch.fixed_q is None):
        return branch_label(branch)
    word = fan_word(branch)
    return named if word in named else f"{word} {named}"


def change_words(network: Network, change: Change, names: Mapping[str, str]) -> str:
    """The change in Chinese, naming the device it changes (see the module doc)."""
    branch = next((b for b in network.branches if b.id == change.branch), None)
    if branch is None:  # a branch the change adds
        return change.describe()
    if change.action == "set_regulator":
        r = change.added_resistance or 0.0
        to = "全部打开（附加风阻降为 0）" if r == 0 else f"附加风阻设为 {r:g} N·s²/m⁸"
        return f"将{branch_label(branch)}的调节风窗{to}"
    verbs = {"open_door": "打开", "close_door": "关闭", "stop_fan": "停止", "start_fan": "开启"}
    is_fan = branch.fan is not None or branch.fixed_q is not None
    if change.action in ("open_door", "close_door"):
        word, label = "风门", branch_label(branch)
    elif change.action in ("stop_fan", "start_fan") and is_fan:
        word, label = fan_word(branch), device_label(branch, names)
    else:
        return change.describe()
    what = verbs[change.action]
    return f"{what}{label}" if word in label else f"{what}{word} {label}"
