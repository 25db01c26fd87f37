"""Coefficient tables of the required-air-volume methods, as data with their sources.

Everything a mine may set differently lives in one :class:`CoefficientTables` object; every calculator
takes it as the keyword ``tables`` and uses :data:`DEFAULT_TABLES` when none is given. A mine overrides
part of it with a nested mapping (e.g. read from its own JSON file)::

    tables = DEFAULT_TABLES.override({"k_gas_face": {"entries": {"综采": {"low": 1.3, "high": 1.5}}},
                                      "regulation_edition": "2016"})
    calc_face_by_gas(gas_emission=4.2, mining_method="综采", tables=tables)

``override`` merges mappings key by key (lists and scalars are replaced) and validates the result, so a
band table must stay ordered and a default must stay inside its range. Tables are frozen: treat them as
immutable values.

Sources: AQ 1056-2008 《煤矿通风能力核定标准》 for the methods; 《煤矿安全规程》 (edition ``2025``, articles
156–197; the 2016 edition amended 2022 numbers the same provisions 135–176) for wind speeds (表6, 第157条),
air per person and per kW (第159条), auxiliary fans (第183条), explosives store (第185条), charging
chambers (第186条), electro-mechanical chambers (第187条). Ranges marked *practice* are common
engineering practice without a primary text at hand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from calc.errors import CalcInputError

AQ1056 = "AQ 1056-2008《煤矿通风能力核定标准》"
PRACTICE = "工程实践"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CoefRange(_Frozen):
    """A coefficient with its documented range; ``default`` (the midpoint unless set) is used when none is given."""

    low: float
    high: float
    default: float | None = None
    note: str = ""

    @model_validator(mode="after")
    def _check(self) -> CoefRange:
        if self.low > self.high:
            raise ValueError(f"下限 low {self.low} 大于上限 high {self.high}")
        if self.default is not None and not self.low <= self.default <= self.high:
            raise ValueError(f"默认值 default {self.default} 不在范围 {self.low}–{self.high} 内")
        return self

    @property
    def value(self) -> float:
        """The default value: ``default`` or the midpoint of the range."""
        return self.default if self.default is not None else round((self.low + self.high) / 2, 6)

    @property
    def valid_range(self) -> tuple[float, float]:
        return (self.low, self.high)


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


class ChoiceTable(_Frozen):
    """Coefficients by a named kind (mining method, chamber type, fan mode…) with aliases."""

    what: str
    entries: dict[str, CoefRange]
    aliases: dict[str, str] = Field(default_factory=dict)
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> ChoiceTable:
        unknown = {target for target in self.aliases.values() if target not in self.entries}
        if unknown:
            raise ValueError(f"别名 aliases 指向不存在的条目 {sorted(unknown)}")
        return self

    def resolve(self, param: str, name: str) -> tuple[str, CoefRange]:
        """The canonical name and entry for ``name`` (an entry or an alias, case- and dash-insensitive).

        Raises CalcInputError(param) for an unknown name, listing the known ones.
        """
        wanted = _key(name) if isinstance(name, str) else None
        if wanted is not None:
            for key, entry in self.entries.items():
                if _key(key) == wanted:
                    return key, entry
            for alias, target in self.aliases.items():
                if _key(alias) == wanted:
                    return target, self.entries[target]
        known = "/".join([*self.entries, *self.aliases])
        raise CalcInputError(param, f"未知的{self.what}；可选：{known}", name)

    def envelope(self) -> tuple[float, float]:
        """The smallest low and the largest high over all entries."""
        return (min(e.low for e in self.entries.values()), max(e.high for e in self.entries.values()))

    def choices(self) -> list[str]:
        return [*self.entries, *self.aliases]


class Band(_Frozen):
    """One row of a look-up table keyed by a measured quantity (temperature, height, length).

    The row covers values from the previous row's ``upper`` up to ``upper`` (``upper_inclusive`` says
    whether ``upper`` itself belongs here; None means no upper bound). ``coef`` is the value and range.
    docs/DOMAIN.md §2's one band-edge rule: a row written "a–b" includes b (``upper_inclusive=True``), a row
    written "<a" excludes a.
    """

    upper: float | None
    upper_inclusive: bool = False
    coef: CoefRange
    label: str


class BandTable(_Frozen):
    """A look-up table of :class:`Band` rows in increasing order."""

    what: str
    bands: tuple[Band, ...]
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> BandTable:
        uppers = [b.upper for b in self.bands]
        if not self.bands or any(u is None for u in uppers[:-1]):
            raise ValueError("分档 bands 不能为空，且只有最后一档可以没有上界")
        bounded = [u for u in uppers if u is not None]
        if bounded != sorted(bounded) or len(set(bounded)) != len(bounded):
            raise ValueError("各档上界 upper 必须递增且不重复")
        return self

    def lookup(self, x: float) -> Band | None:
        """The band holding ``x``, or None when ``x`` is beyond the last bounded band."""
        for band in self.bands:
            if band.upper is None or x < band.upper or (band.upper_inclusive and x == band.upper):
                return band
        return None

    def edges(self) -> list[float]:
        """Every bounded row edge, in increasing order."""
        return [b.upper for b in self.bands if b.upper is not None]

    def near_edge(self, x: float, near: float) -> float | None:
        """The row edge within ``near`` (a fraction, 0.05 = 5 %) of ``x``, or None."""
        return next((e for e in self.edges() if e and abs(x - e) <= near * abs(e)), None)


class SpeedClass(_Frozen):
    """One row of 表6 (允许风流速度, m/s): ``v_min``/``v_max`` None where the table sets no bound."""

    name_cn: str
    v_min: float | None = None
    v_max: float | None = None
    v_min_gas_free: float | None = None
    v_max_dust: float | None = None
    note: str = ""


class SpeedTable(_Frozen):
    """表6 of 《煤矿安全规程》 第157条 by roadway class, with Chinese aliases."""

    classes: dict[str, SpeedClass]
    aliases: dict[str, str] = Field(default_factory=dict)
    source: str = ""

    def resolve(self, param: str, name: str) -> tuple[str, SpeedClass]:
        """The canonical class and its row; raises CalcInputError(param) for an unknown class."""
        wanted = _key(name) if isinstance(name, str) else None
        for key, row in self.classes.items():
            if wanted in (_key(key), _key(row.name_cn)):
                return key, row
        for alias, target in self.aliases.items():
            if wanted == _key(alias):
                return target, self.classes[target]
        known = "/".join([*self.classes, *self.aliases])
        raise CalcInputError(param, f"未知的巷道类别；可选：{known}", name)


class Constants(_Frozen):
    """Fixed multipliers of the formulas (1 ÷ allowed concentration and the like)."""

    gas_factor: float = 100.0  # CH₄ 1.0 %
    co2_factor: float = 67.0  # CO₂ 1.5 %
    h2_factor: float = 200.0  # H₂ 0.5 %
    explosive_factor: float = 25.0  # m³/min per kg of the largest single blast [AQ 1056]
    explosive_factor_variant: float = 10.0  # seen in one source: flagged, never used
    air_per_person: float = 4.0  # m³/min [R 第159条]
    air_per_kw: float = 4.0  # m³/min per kW of diesel power [R 第159条]
    standby_ratio: CoefRange = CoefRange(low=0.5, high=1.0, default=0.5, note="备用工作面 ≥ 50 %")
    effective_section: float = 0.70  # effective-ventilation-section coefficient
    climate_factor: float = 0.70  # the 70 % of the AQ 1056 climate form
    descending_v_min: float = 1.0  # m/s, descending ventilation of a face [R 第171条]
    air_density: float = 1.2  # ρ, kg/m³
    air_heat_capacity: float = 1.0006  # c_p, kJ/(kg·K)
    store_air_changes: float = 4.0  # air changes per hour [R 第185条]
    charging_min_q: float = 100.0  # m³/min (practice)
    small_chamber_q: tuple[float, float] = (60.0, 80.0)  # m³/min by experience
    near_bound: float = 0.05  # warn when a value is within 5 % of a bound


class HighGasThresholds(_Frozen):
    """High-gas classification thresholds (a value strictly above one classifies as high-gas)."""

    mine_relative: float = 10.0  # m³/t
    mine_absolute: float = 40.0  # m³/min
    heading_absolute: float = 3.0  # m³/min, any heading
    face_absolute: float = 5.0  # m³/min, any coal face
    source: str = "《煤矿瓦斯等级鉴定办法》：高瓦斯矿井判定条件"


class CoefficientTables(_Frozen):
    """Every coefficient table of :mod:`calc`, with the regulation edition the articles refer to."""

    regulation_edition: str = "2025"
    articles: dict[str, dict[str, int]]
    k_gas_face: ChoiceTable
    k_co2_face: ChoiceTable
    k_gas_heading: CoefRange
    v_climate: BandTable
    k_h: BandTable
    k_l: BandTable
    theta: ChoiceTable
    store_minimum: ChoiceTable
    k_mine: ChoiceTable
    gas_factor_scope: ChoiceTable
    heading_types: dict[str, str]
    heading_aliases: dict[str, str] = Field(default_factory=dict)
    wind_speed: SpeedTable
    constants: Constants = Constants()
    high_gas: HighGasThresholds = HighGasThresholds()

    def article(self, topic: str) -> str:
        """The 《煤矿安全规程》 clause of ``topic`` in this edition, e.g. ``《煤矿安全规程》（2025版）第157条``
        (the review's one citation format, see :func:`vent_agent.review.rules.cite_article`)."""
        numbers = self.articles.get(topic, {})
        if self.regulation_edition not in numbers:
            raise CalcInputError(
                "regulation_edition",
                f"《煤矿安全规程》该版本没有「{topic}」对应的条文编号",
                self.regulation_edition,
            )
        return f"《煤矿安全规程》（{self.regulation_edition}版）第{numbers[self.regulation_edition]}条"

    def heading_class(self, param: str, heading_type: str) -> tuple[str, str]:
        """The canonical heading type (coal/half_coal/rock) and its 表6 class; CalcInputError if unknown."""
        wanted = _key(heading_type) if isinstance(heading_type, str) else None
        for key in self.heading_types:
            if wanted == _key(key):
                return key, self.heading_types[key]
        for alias, target in self.heading_aliases.items():
            if wanted == _key(alias):
                return target, self.heading_types[target]
        known = "/".join([*self.heading_types, *self.heading_aliases])
        raise CalcInputError(param, f"未知的掘进巷道类别；可选：{known}", heading_type)

    def override(self, changes: Mapping[str, Any]) -> CoefficientTables:
        """A copy with ``changes`` merged in (nested mappings merged key by key) and validated.

        Raises pydantic's ValidationError when the merged tables are inconsistent.
        """
        return CoefficientTables.model_validate(_merge(self.model_dump(), changes))


def _merge(base: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _fixed(value: float) -> CoefRange:
    return CoefRange(low=value, high=value)


def _band(upper: float | None, coef: CoefRange, label: str, inclusive: bool = False) -> Band:
    return Band(upper=upper, upper_inclusive=inclusive, coef=coef, label=label)


_MINING_ALIASES = {"fully_mechanized": "综采", "blasting": "炮采", "hydraulic": "水采"}

_K_FACE = {
    "综采": CoefRange(low=1.2, high=1.6),
    "炮采": CoefRange(low=1.4, high=2.0),
    "水采": CoefRange(low=2.0, high=3.0),
}

DEFAULT_TABLES = CoefficientTables(
    # topic -> article number by edition (2016 edition amended 2022 = renumbered − 21).
    articles={
        "air_composition": {"2025": 156, "2016": 135},
        "wind_speed": {"2025": 157, "2016": 136},
        "air_per_person": {"2025": 159, "2016": 138},
        "capacity": {"2025": 160, "2016": 139},
        "descending": {"2025": 171, "2016": 150},
        "main_fan": {"2025": 177, "2016": 158},
        "aux_fan": {"2025": 183, "2016": 164},
        "explosives_store": {"2025": 185, "2016": 166},
        "charging": {"2025": 186, "2016": 167},
        "chamber": {"2025": 187, "2016": 168},
        "return_gas": {"2025": 192, "2016": 173},
    },
    k_gas_face=ChoiceTable(
        what="采煤方法",
        entries=_K_FACE,
        aliases=_MINING_ALIASES,
        source=f"{AQ1056}；系数范围：{PRACTICE}",
    ),
    k_co2_face=ChoiceTable(
        what="采煤方法",
        entries=_K_FACE,
        aliases=_MINING_ALIASES,
        source=f"{AQ1056}（与甲烷法相同）；系数范围：{PRACTICE}",
    ),
    k_gas_heading=CoefRange(low=1.5, high=2.0, note="掘进工作面瓦斯涌出不均匀系数"),
    v_climate=BandTable(
        what="工作面风速 v 按进风温度（°C）分档表",
        bands=(
            _band(20.0, _fixed(1.0), "<20 °C"),
            _band(23.0, CoefRange(low=1.0, high=1.5), "20–23 °C", inclusive=True),
            _band(26.0, CoefRange(low=1.5, high=1.8), "23–26 °C", inclusive=True),
        ),
        source=AQ1056,
    ),
    k_h=BandTable(
        what="采高调整系数 k_h 按采高（m）分档表",
        bands=(
            _band(2.0, _fixed(1.0), "<2.0 m"),
            _band(2.5, _fixed(1.1), "2.0–2.5 m", inclusive=True),
            _band(None, _fixed(1.2), ">2.5 m 或放顶煤"),
        ),
        source=AQ1056,
    ),
    k_l=BandTable(
        what="长度调整系数 k_l 按工作面长度（m）分档表",
        bands=(
            _band(15.0, _fixed(0.8), "<15 m"),
            _band(80.0, _fixed(0.85), "15–80 m", inclusive=True),
            _band(120.0, _fixed(1.0), "80–120 m", inclusive=True),
            _band(150.0, _fixed(1.1), "120–150 m", inclusive=True),
            _band(180.0, _fixed(1.2), "150–180 m", inclusive=True),
            _band(None, CoefRange(low=1.30, high=1.40, default=1.35), ">180 m"),
        ),
        source=f"{AQ1056}；系数范围：{PRACTICE}",
    ),
    theta=ChoiceTable(
        what="硐室类型",
        entries={
            "compressor": CoefRange(low=0.20, high=0.23, note="空压机房"),
            "pump": CoefRange(low=0.01, high=0.03, note="水泵房"),
            "substation": CoefRange(low=0.02, high=0.04, note="变电所"),
            "hoist": CoefRange(low=0.02, high=0.04, note="绞车房"),
        },
        aliases={
            "空压机房": "compressor",
            "空压机硐室": "compressor",
            "水泵房": "pump",
            "主排水泵房": "pump",
            "泵房": "pump",
            "变电所": "substation",
            "中央变电所": "substation",
            "采区变电所": "substation",
            "绞车房": "hoist",
            "提升机房": "hoist",
        },
        source=AQ1056,
    ),
    store_minimum=ChoiceTable(
        what="爆炸材料库库型",
        entries={
            "large": CoefRange(low=100.0, high=100.0, note="大型库"),
            "medium": CoefRange(low=60.0, high=60.0, note="中型库"),
            "small": CoefRange(low=60.0, high=60.0, note="小型库"),
        },
        aliases={"大型": "large", "中型": "medium", "小型": "small"},
        source=PRACTICE,
    ),
    k_mine=ChoiceTable(
        what="主要通风机工作方式",
        entries={
            "exhausting": CoefRange(low=1.15, high=1.20),
            "forcing": CoefRange(low=1.25, high=1.30),
        },
        aliases={"抽出式": "exhausting", "压入式": "forcing", "exhaust": "exhausting", "force": "forcing"},
        source=PRACTICE,
    ),
    gas_factor_scope=ChoiceTable(
        what="巷道位置",
        entries={
            "district": CoefRange(low=100.0, high=100.0, note="采区内，CH₄ 1.0 %"),
            "main_return": CoefRange(low=133.0, high=133.0, note="总回风巷或一翼回风巷，CH₄ 0.75 %"),
        },
        aliases={
            "采区": "district",
            "采区内": "district",
            "总回风巷": "main_return",
            "一翼回风巷": "main_return",
            "wing_return": "main_return",
        },
        source=f"{AQ1056}；系数为允许甲烷浓度的倒数",
    ),
    heading_types={"coal": "coal_face_heading", "half_coal": "coal_face_heading", "rock": "rock_heading"},
    heading_aliases={"煤巷": "coal", "半煤岩巷": "half_coal", "岩巷": "rock", "half-coal": "half_coal"},
    wind_speed=SpeedTable(
        classes={
            "fan_drift": SpeedClass(name_cn="无提升设备的风井和风硐", v_max=15),
            "materials_shaft": SpeedClass(name_cn="专为升降物料的井筒", v_max=12),
            "air_crossing": SpeedClass(name_cn="风桥", v_max=10),
            "men_materials_shaft": SpeedClass(
                name_cn="升降人员和物料的井筒", v_max=8, note="设有梯子间或修理中的井筒 ≤ 8 m/s"
            ),
            "main_intake_return": SpeedClass(name_cn="总进风巷和总回风巷", v_max=8),
            "trolley_roadway": SpeedClass(
                name_cn="架线电机车巷道",
                v_min=1.0,
                v_max=8,
                v_min_gas_free=0.5,
                note="无瓦斯涌出时最低可至 0.5 m/s",
            ),
            "skip_shaft_intake": SpeedClass(name_cn="箕斗提升井兼作进风的井筒", v_max=6),
            "belt_shaft_return": SpeedClass(name_cn="装有带式输送机兼作回风的井筒", v_max=6),
            "district_roadway": SpeedClass(name_cn="输送机巷，采区进、回风巷", v_min=0.25, v_max=6),
            "belt_shaft_intake": SpeedClass(name_cn="装有带式输送机兼作进风的井筒", v_max=4),
            "coal_face_heading": SpeedClass(
                name_cn="采煤工作面、掘进中的煤巷和半煤岩巷",
                v_min=0.25,
                v_max=4,
                v_max_dust=5,
                note="综采工作面采取煤层注水和采煤机喷雾降尘等措施后最高 5 m/s",
            ),
            "rock_heading": SpeedClass(name_cn="掘进中的岩巷", v_min=0.15, v_max=4),
            "other_walkway": SpeedClass(
                name_cn="其他通风人行巷道", v_min=0.15, note="安设风门的联络巷不受最低风速限制"
            ),
        },
        aliases={
            "总进风巷": "main_intake_return",
            "总回风巷": "main_intake_return",
            "main_intake": "main_intake_return",
            "main_return": "main_intake_return",
            "输送机巷": "district_roadway",
            "采区进风巷": "district_roadway",
            "采区回风巷": "district_roadway",
            "conveyor_roadway": "district_roadway",
            "district_intake": "district_roadway",
            "district_return": "district_roadway",
            "采煤工作面": "coal_face_heading",
            "煤巷": "coal_face_heading",
            "半煤岩巷": "coal_face_heading",
            "coal_face": "coal_face_heading",
            "岩巷": "rock_heading",
            "trolley": "trolley_roadway",
        },
        source="表6 井巷中的允许风流速度",
    ),
)
"""The tables as published (edition 2025 of 《煤矿安全规程》, AQ 1056-2008, practice ranges)."""
