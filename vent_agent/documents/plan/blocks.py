"""One location's calculation block → :class:`LocationPlan`: inputs (基础参数), stated methods with their
operands and results, the stated maximum (取最大值 Q需) and the stated wind-speed check.

A method statement reads ``按瓦斯涌出量计算：Q = 100 × q × k = 100 × 4.20 × 1.5 = 630.0 m³/min``: the
label gives the method key, the part after the last ``=`` the stated result and its unit, the last
part with numbers before it the operands (``70%`` → 0.7), and the symbolic part before that, when it
lines up term for term, the value of each symbol (``q`` = 4.20, ``k`` = 1.5). Inputs that the 基础参数
text does not state are filled from those symbols (a chamber's ΣW, θ, Δt; a store's V).
"""

from __future__ import annotations

import re

from vent_agent.documents.plan.methods import method_key, symbol_input
from vent_agent.documents.plan.model import (
    Figure,
    LocationPlan,
    MethodStatement,
    SourceRef,
    SpeedCheckStatement,
)
from vent_agent.documents.plan.sections import Block, Statement, split_statements
from vent_agent.documents.plan.text_primitives import (
    NUM,
    NUM_RE,
    TextDoc,
    numbers,
    operand_value,
    squeeze,
    unit_after,
)
from vent_agent.documents.plan.units import FLOW_UNITS, read_figure

_PARAMS: list[tuple[str, str]] = [
    ("face_length", r"(?:工作面)?(?:长度|斜长)|面长"),
    ("mining_height", r"采高|采煤高度|割煤高度|采放高度|采厚"),
    ("roof_control_max", r"最大控顶距"),
    ("roof_control_min", r"最小控顶距"),
    ("gas_emission", r"(?:绝对)?(?:瓦斯|CH4|CH₄|甲烷)(?:绝对)?涌出量"),
    ("co2_emission", r"(?:绝对)?(?:二氧化碳|CO2|CO₂)(?:绝对)?涌出量"),
    ("h2_emission", r"氢气涌出量|H2涌出量|H₂涌出量"),
    ("intake_temp", r"进风(?:流)?温度|入风(?:流)?温度|工作面温度|温度"),
    ("workers", r"人数|作业人员|工作人员"),
    ("area", r"断面(?:积)?"),
    ("explosive_kg", r"炸药量|装药量"),
    ("fan_intake_q", r"吸风量"),
    ("vehicle_kw", r"单台(?:车)?功率|(?:胶轮车|车辆)功率"),
    ("power_kw", r"(?:总|运行|装机|设备)功率|[Σ∑]W"),
    ("theta", r"发热系数|散热系数|θ"),
    ("delta_t", r"温差|[Δ△]t"),
    ("volume_m3", r"库容|容积|体积"),
]
_PARAM_RES = [(k, re.compile(rf"(?:{p})[^\d\n]{{0,12}}?({NUM})")) for k, p in _PARAMS]
_ROCK = [("half_coal", "半煤岩"), ("rock", "岩巷"), ("coal", "煤巷")]


def rock_of(text: str) -> str | None:
    """coal / half_coal / rock from 煤巷 / 半煤岩巷 / 岩巷 (None when the text names none)."""
    for rock, word in _ROCK:
        if word in text:
            return rock
    return None


def _ref(doc: TextDoc, offset: int, text: str) -> SourceRef:
    return SourceRef(page=doc.page_at(offset), text=squeeze(text))


def _figure(doc: TextDoc, st: Statement, text: str, base: int, m: re.Match[str], context: str) -> Figure:
    """The number ``m`` found in ``text`` (which starts at ``st.body[base]``), with the unit after it."""
    value = operand_value(m.group(0)) if m.group(0).endswith("%") else float(m.group(0))
    return read_figure(value, unit_after(text, m.end()), _ref(doc, st.offset(base + m.start()), context))


def _tokens(expr: str) -> list[str]:
    return [t for t in re.split(r"\s*[×*·/+\-()\[\]{}]\s*|\s+", squeeze(expr)) if t]


def _symbols(symbolic: str, numeric: str) -> dict[str, float]:
    """Symbol → value when the symbolic and the substituted expressions line up term for term."""
    sym, num = _tokens(symbolic), _tokens(numeric)
    if len(sym) != len(num) or not sym:
        return {}
    out: dict[str, float] = {}
    for s, n in zip(sym, num, strict=True):
        if NUM_RE.fullmatch(s) or not NUM_RE.fullmatch(n):
            continue
        out[s] = operand_value(n)
    return out


def _strip_names(text: str, names: list[str]) -> str:
    for name in sorted(names, key=len, reverse=True):
        pattern = r"\s*".join(map(re.escape, name.replace(" ", "")))
        text = re.sub(pattern, " ", text)
    return text


def parse_method(doc: TextDoc, st: Statement, names: list[str]) -> MethodStatement:
    """A ``method`` statement → :class:`MethodStatement` (stated result with unit and page)."""
    lo, hi = _result_clause(st.body)
    body = st.body[lo:hi].rstrip(" 。.;,")
    parts = body.split("=")
    while len(parts) > 2 and _PLAIN.fullmatch(parts[-1].strip()) and _PLAIN.fullmatch(parts[-2].strip()):
        # "= 630.0 m³/min = 10.50 m³/s": the result restated in another unit; the first one counts
        parts.pop()
        body = "=".join(parts)
    last_start = lo + len(body) - len(parts[-1])
    last = parts[-1]
    stated = None
    operand_text = ""
    trailing = re.search(rf"({NUM})(?:\s*(?:m\S*|立方米\S*))?\s*$", last)
    if trailing and re.search(r"\d\s*[×*·/+]\s*\d", last[: trailing.start()]):
        # "Q = 100 × 4.2 × 1.5  630.0": the result follows the substituted expression without "="
        stated = _figure(doc, st, last, last_start, _rematch(last, trailing.start(1)), st.label + body)
        operand_text = last[: trailing.start()]
    else:
        m = NUM_RE.search(last)
        if m:
            stated = _figure(doc, st, last, last_start, m, st.label + body)
        operand_text = next((p for p in reversed(parts[:-1]) if re.search(r"\d", p)), "")
    symbolic = ""
    if operand_text:
        idx = parts.index(operand_text) if operand_text in parts else -1
        symbolic = (
            next((p for p in reversed(parts[:idx]) if re.search(r"[A-Za-zΣ∑θΔ△ρ]", p)), "") if idx > 0 else ""
        )
    expression = squeeze(body)
    ms = MethodStatement(
        method=method_key(st.label, expression),
        label=st.label,
        expression=expression,
        operands=numbers(_strip_names(operand_text, names)),
        stated=stated,
    )
    if symbolic:
        ms.symbols = _symbols(_strip_names(symbolic, names), operand_text)
    return ms


_NEED = re.compile(r"需风(?:量)?\s*(?:为|是)?\s*(?=[\d(（])")
_CLAUSE_END = re.compile(r"[;；。]|[，,](?!\d{3}(?!\d))")
"""The end of a clause: a semicolon or full stop, or a comma that is not a thousands separator."""


def _result_clause(body: str) -> tuple[int, int]:
    """The span of ``body`` holding the method's own calculation, as ``(start, end)``: in a sentence
    (``…，k 面长取 1.1，需风 60×0.7×…×1.1=1,153.2。按人数 4×38=152.0``) from the first ``需风`` before a
    calculation, unless the words before it already hold one, and up to the end of the clause holding its first ``=`` (never the figures of the next
    clause, ``；选用 FBD-No6.3/2×30 局部通风机``)."""
    need = next((m for m in _NEED.finditer(body) if "=" in body[m.end() :]), None)
    lo = need.end() if need and not _own_calculation(body[: need.start()]) else 0
    eq = body.find("=", lo)
    if eq < 0:
        return lo, len(body)
    result = re.search(rf"=\s*{NUM}", body[eq:])
    tail = eq + (result.end() if result else 1)
    while (more := re.match(r"\s*[×*·/+\-−÷]\s*|\s*=\s*", body[tail:])) and re.match(
        NUM, body[tail + more.end() :]
    ):  # the rest of a chain: "=100×4.2×1.5=630.0"
        nxt = re.match(rf"{NUM}", body[tail + more.end() :])
        assert nxt is not None
        tail += more.end() + nxt.end()
    end = _CLAUSE_END.search(body, tail)
    return lo, end.start() if end else len(body)


def _own_calculation(text: str) -> bool:
    """Whether ``text`` (a statement's words before a ``需风``) already holds the method's calculation: a
    clause whose first ``=`` follows a number or ``Q`` (``100×4.8×1.4=672.0``), not a parameter worked out
    on the way (``断面 S=3.2×（5.8+4.6）/2=16.640``)."""
    for clause in _CLAUSE_END.split(text):
        if "=" in clause and not re.search(
            r"(?<![A-Za-z])[A-PR-Za-z][\w\u4e00-\u9fff]{0,3}\s*$", clause.split("=")[0]
        ):
            return True
    return False


_PLAIN = re.compile(rf"{NUM}\s*(?:m\s*\^?[³3]\s*/\s*(?:min|s|h)|立方米?\s*/\s*\S{{1,2}})?")
"""A result alone: a number with, at most, a flow unit."""


def _rematch(text: str, pos: int) -> re.Match[str]:
    m = NUM_RE.match(text, pos)
    assert m is not None
    return m


def _bound_after(text: str) -> float | None:
    """The bound written after ``≤``: up to the clause end, the number after the last ``=``."""
    seg = re.split(r"[,，;；。]", text)[0]
    m = NUM_RE.search(seg.split("=")[-1])
    return float(m.group(0).rstrip("%")) if m else None


def _bound_before(text: str) -> float | None:
    nums = list(NUM_RE.finditer(text))
    return float(nums[-1].group(0).rstrip("%")) if nums else None


def parse_speed_check(doc: TextDoc, st: Statement) -> SpeedCheckStatement | None:
    """The stated wind-speed bounds (m³/min): ``194.9 ≤ Q需 ≤ 2473.0`` (also ``<=``, each bound with
    its own formula), one-sided ``Q需 = 1132.2 ≤ 2473.0`` / ``194.9 ≤ Q需``, or labelled clauses
    ``Q最小 = … = 194.9，Q最大 = … = 2473.0``."""
    lower, upper = speed_bounds(st.body)
    if lower is None and upper is None:
        return None
    return SpeedCheckStatement(
        lower=lower, upper=upper, ref=_ref(doc, st.offset(0), st.label + "：" + st.body)
    )


def speed_bounds(body: str) -> tuple[float | None, float | None]:
    """The (lower, upper) bounds a speed check's text states (see :func:`parse_speed_check`); None for a
    bound it does not state."""
    ops = list(re.finditer(r"≤|<=|<|≦", body))
    lower = upper = None
    if len(ops) >= 2:
        lower, upper = _bound_before(body[: ops[0].start()]), _bound_after(body[ops[1].end() :])
    elif len(ops) == 1:
        before, after = body[: ops[0].start()], body[ops[0].end() :]
        if re.match(r"\s*Q", after):
            lower = _bound_before(before)
        else:
            upper = _bound_after(after)
    else:
        for clause in re.split(r"[,，;；。]", body):
            if re.search(r"最小|下限|最低", clause):
                lower = _bound_after(clause.split("=")[-1]) if "=" in clause else _bound_before(clause)
            elif re.search(r"最大|上限|最高", clause):
                upper = _bound_after(clause.split("=")[-1]) if "=" in clause else _bound_before(clause)
    return lower, upper


def _clauses(text: str) -> list[tuple[int, str]]:
    """Split at commas/semicolons/full stops outside parentheses: [(offset, clause)]."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "(（":
            depth += 1
        elif ch in ")）":
            depth = max(0, depth - 1)
        elif ch in ",，;；。、" and depth == 0:
            out.append((start, text[start:i]))
            start = i + 1
    out.append((start, text[start:]))
    return [(o, c) for o, c in out if c.strip()]


_BARE_K = re.compile(rf"(?<![A-Za-z\u4e00-\u9fff])[kK]\s*(?:=|取|为)\s*({NUM})(?!\s*[~～\-—至])")
"""A bare ``k=1.8`` among a location's parameters: the emission coefficient of the emission named before
it (never ``k 采高=…`` or ``k 面长=…``, which name their own coefficient, nor a range ``k取1.2~1.6``)."""


_RANGE_CHOICE = re.compile(rf"({NUM})\s*[~～\-—至]\s*({NUM})\s*(?:之间)?\s*(?:中的|之间的|中取|中)\s*({NUM})")


def _chosen_in_range(text: str) -> str:
    """``k 取 1.2~1.6 中的 1.4`` → ``k 取 1.4``: of a coefficient written with its range, the value the
    plan chose is the one it uses (the range itself is calc's to check), padded to keep offsets."""
    return _RANGE_CHOICE.sub(lambda m: m.group(3).rjust(len(m.group(0))), text)


def parse_params(doc: TextDoc, st: Statement, kind: str) -> tuple[dict[str, Figure], str | None]:
    """A 基础参数 statement → (inputs by glossary key, rock of a heading)."""
    inputs: dict[str, Figure] = {}
    rock = rock_of(st.body)
    last_emission = "gas"
    for off, clause in _clauses(_chosen_in_range(st.body)):
        base = off
        found = _roof_control_pair(doc, st, clause, base, inputs)
        for key, rx in _PARAM_RES:
            if key in found or (key == "intake_temp" and "温差" in clause):
                continue
            m = rx.search(clause)
            if not m:
                continue
            if (
                key == "power_kw"
                and ("车" in clause or kind == "diesel_roadway")
                and "vehicle_kw" not in inputs
            ):
                key = "vehicle_kw"
            if key in inputs:
                continue
            num = _worked_value(clause, NUM_RE.match(clause, m.start(1)))
            inputs[key] = _figure(doc, st, clause, base, num, clause)
            found.add(key)
        if "co2_emission" in found:
            last_emission = "co2"
        elif "gas_emission" in found:
            last_emission = "gas"
        _count_inputs(doc, st, clause, base, inputs)
        k = re.search(rf"(?<![热需备])系数[^\d\n]{{0,6}}?({NUM})", clause) or _BARE_K.search(clause)
        if k and not (found - {"gas_emission", "co2_emission"}):
            key = "k_co2" if ("二氧化碳" in clause or "CO2" in clause or last_emission == "co2") else "k_gas"
            if key not in inputs:
                inputs[key] = _figure(doc, st, clause, base, _rematch(clause, k.start(1)), clause)
    return inputs, rock


_ROOF_PAIR = re.compile(
    rf"(最大\s*[/／、]\s*最小|最小\s*[/／、]\s*最大)?\s*控顶距(?:离)?\s*[:：=为]?\s*({NUM})\s*(?:m|米)?\s*[/／、]\s*({NUM})"
)
"""Both roof-control distances in one clause: ``最大/最小控顶距5.8/4.6m`` or ``控顶距5.8/4.6m``."""


def _roof_control_pair(
    doc: TextDoc, st: Statement, clause: str, base: int, inputs: dict[str, Figure]
) -> set[str]:
    """Read ``最大/最小控顶距 a/b`` (in the order its words give, else the larger as the maximum) into
    ``inputs``; the keys read (so that the single-value patterns do not read ``a`` as the minimum)."""
    m = _ROOF_PAIR.search(clause)
    if not m:
        return set()
    first, second = _rematch(clause, m.start(2)), _rematch(clause, m.start(3))
    min_first = bool(m.group(1)) and m.group(1).lstrip().startswith("最小")
    if min_first or (not m.group(1) and float(first.group(0)) < float(second.group(0))):
        first, second = second, first
    inputs.setdefault("roof_control_max", _figure(doc, st, clause, base, first, clause))
    inputs.setdefault("roof_control_min", _figure(doc, st, clause, base, second, clause))
    return {"roof_control_max", "roof_control_min"}


def _worked_value(clause: str, num: re.Match[str] | None) -> re.Match[str]:
    """The value a parameter takes: the number read, or, when it starts a worked expression
    (``断面 S=3.2×（5.8+4.6）/2=16.640``), the result after the expression's last ``=``."""
    assert num is not None
    rest = clause[num.end() :]
    if re.match(r"\s*[×*·/+\-−÷(（]", rest) and "=" in rest:
        tail = rest.rsplit("=", 1)[1]
        result = NUM_RE.search(tail)
        if result is not None:
            return _rematch(clause, len(clause) - len(tail) + result.start())
    return num


def _count_inputs(doc: TextDoc, st: Statement, clause: str, base: int, inputs: dict[str, Figure]) -> None:
    for m in re.finditer(rf"({NUM})\s*(台|辆)", clause):
        if "车" in clause or m.group(2) == "辆":
            key = "vehicles"
        elif re.search(r"通风机|风机|局扇", clause):
            key = "fan_count"
        else:
            continue
        if key not in inputs:
            inputs[key] = _figure(doc, st, clause, base, _rematch(clause, m.start(1)), clause)


def _outside(start: int, end: int, skip: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside the ``skip`` spans."""
    out, pos = [], start
    for a, b in sorted(skip):
        if b <= pos or a >= end:
            continue
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < end:
        out.append((pos, end))
    return out


def _speed_check_unit(loc: LocationPlan, flow_unit: str | None) -> None:
    """A speed check written without a unit (``3.25 ≤ Q需 ≤ 41.22``) is in the unit of the block's
    calculation table, else of its stated maximum (``Q需 = 18.87 m³/s``): converted to m³/min."""
    sc = loc.speed_check
    if sc is None or re.search(r"/\s*min|/\s*分", sc.ref.text):
        return
    unit = flow_unit or (loc.stated_required.unit_written if loc.stated_required else None)
    factor = FLOW_UNITS.get(unit or "", 1.0)
    if factor != 1.0:
        sc.lower = round(sc.lower * factor, 6) if sc.lower is not None else None
        sc.upper = round(sc.upper * factor, 6) if sc.upper is not None else None


def parse_block(
    doc: TextDoc,
    block: Block,
    names: list[str],
    kind: str,
    *,
    skip: list[tuple[int, int]] | None = None,
    tabled: list[MethodStatement] | None = None,
    tabled_required: Figure | None = None,
    tabled_speed: SpeedCheckStatement | None = None,
    flow_unit: str | None = None,
) -> tuple[LocationPlan, list[str]]:
    """A block → (LocationPlan with inputs, methods, stated maximum and speed check; warnings).

    ``skip``: document spans (a calculation table's lines) left out of the prose reading; ``tabled`` and
    ``tabled_required``: the methods and the maximum read from that table, ``tabled_speed`` its speed
    check row; ``flow_unit``: the table's
    result unit, which a speed check written without a unit shares (``3.25 ≤ Q需 ≤ 41.22`` in m³/s)."""
    warnings: list[str] = []
    loc = LocationPlan(name=block.name, ref=SourceRef(page=block.page, text=squeeze(block.heading)))
    inputs: dict[str, Figure] = {}
    rock = None
    statements = [
        st for a, b in _outside(block.start, block.end, skip or []) for st in split_statements(doc, a, b)
    ]
    loc.methods.extend(tabled or [])
    loc.stated_required = tabled_required
    loc.speed_check = tabled_speed
    for st in statements:
        if st.kind == "params":
            got, r = parse_params(doc, st, kind)
            rock = rock or r
            for k, v in got.items():
                inputs.setdefault(k, v)
        elif st.kind == "method":
            loc.methods.append(parse_method(doc, st, names))
            # a sentence gives parameters before its calculation (``进风温度 22.5℃，…，需风 60×…``) and
            # goes on after it with the next ones (``=45.0；一次最大装药量 24kg，…``)
            start, end = _result_clause(st.body)
            for a, b in ((0, start), (end, len(st.body))):
                if b > a:
                    words = Statement("params", "", st.body[a:b], st.pos[a:b])
                    got, r = parse_params(doc, words, kind)
                    rock = rock or r
                    for k, v in got.items():
                        inputs.setdefault(k, v)
        elif st.kind == "max":
            m = list(NUM_RE.finditer(st.body.split("=")[-1]))
            if m and tabled_required is None:
                tail = st.body.split("=")[-1]
                off = len(st.body) - len(tail)
                loc.stated_required = _figure(doc, st, tail, off, m[0], st.label + st.body)
        elif st.kind == "speed":
            loc.speed_check = parse_speed_check(doc, st) or loc.speed_check
    _speed_check_unit(loc, flow_unit)
    for ms in loc.methods:
        for sym, value in ms.symbols.items():
            key = symbol_input(ms.method, sym)
            if not key:
                continue
            if key in inputs and abs(inputs[key].value - value) > 1e-9:
                warnings.append(
                    f"{block.name}: {key} 基础参数为 {inputs[key].value:g}，{ms.label} 中代入 {value:g}"
                )
            elif key not in inputs:
                ref = ms.stated.ref if ms.stated else SourceRef(page=block.page, text=ms.expression)
                # read from the substituted expression, term for term with the symbols
                ref = ref.model_copy(update={"text": ms.expression, "confidence": "inferred"})
                inputs[key] = Figure(value=value, unit=None, ref=ref)
    if not loc.methods:
        warnings.append(f"{block.name}: 未找到需风量计算方法 / no calculation method found")
    if loc.stated_required is None and loc.methods:
        warnings.append(f"{block.name}: 未找到取最大值 Q需 / no stated required Q")
    return loc.model_copy(update={"inputs": inputs, "rock": rock}), warnings
