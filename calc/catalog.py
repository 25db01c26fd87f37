"""The catalogue of calculators: name → function, Chinese title and description, and the glossary of
their parameters (Chinese label and unit). Used by the LangChain tools and the CLI; pure data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calc.chamber import (
    calc_chamber_by_equipment,
    calc_chamber_by_wind_speed,
    calc_charging_chamber,
    calc_explosives_store,
)
from calc.climate import calc_face_by_climate, calc_face_by_climate_textbook
from calc.face import (
    calc_effective_area,
    calc_face_by_co2,
    calc_face_by_explosives,
    calc_face_by_gas,
    calc_face_by_wind_speed,
    calc_face_by_workers,
    calc_standby_face,
)
from calc.heading import (
    calc_tunnel_by_explosives,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_gas,
    calc_tunnel_by_vehicle,
    calc_tunnel_by_wind_speed,
    calc_tunnel_by_workers,
)
from calc.maxima import calc_face_air_volume_max, calc_tunnel_air_volume_max
from calc.mine import calc_total_air_volume
from calc.roadway import calc_other_by_gas, calc_other_by_vehicle, calc_other_by_wind_speed
from calc.survey import calc_gas_emission_from_wind


@dataclass(frozen=True)
class CalcInfo:
    """One calculator: its function, the location kind, a Chinese title and a one-line description."""

    func: Callable[..., Any]
    kind: str
    title_cn: str
    description_cn: str


@dataclass(frozen=True)
class ParamDoc:
    """A parameter of the glossary: Chinese label and unit ('' when dimensionless)."""

    label_cn: str
    unit: str = ""

    def describe(self) -> str:
        return f"{self.label_cn}（{self.unit}）" if self.unit else self.label_cn


_M3 = "m³/min"

PARAMS: dict[str, ParamDoc] = {
    "gas_emission": ParamDoc("瓦斯（CH₄）绝对涌出量 q", _M3),
    "k_gas": ParamDoc("瓦斯涌出不均匀系数 k"),
    "co2_emission": ParamDoc("二氧化碳绝对涌出量 q_CO₂", _M3),
    "k_co2": ParamDoc("二氧化碳涌出不均匀系数 k"),
    "mining_method": ParamDoc("采煤方法：综采/炮采/水采"),
    "mining_height": ParamDoc("采高 h", "m"),
    "roof_control_max": ParamDoc("最大控顶距", "m"),
    "roof_control_min": ParamDoc("最小控顶距", "m"),
    "face_length": ParamDoc("工作面长度", "m"),
    "intake_temp": ParamDoc("工作面进风流温度", "°C"),
    "v_climate": ParamDoc("按气象条件选取的工作面风速 v", "m/s"),
    "k_h": ParamDoc("采高调整系数 k_h"),
    "k_l": ParamDoc("工作面长度调整系数 k_l"),
    "k_t": ParamDoc("温度调整系数 K_t（旧式）"),
    "q_base": ParamDoc("基本风量 Q_base（旧式）", _M3),
    "top_coal_caving": ParamDoc("是否放顶煤开采（k_h 取 1.2）"),
    "workers": ParamDoc("同时作业最多人数 N", "人"),
    "explosive_kg": ParamDoc("一次爆破最大炸药量 A", "kg"),
    "required_q": ParamDoc("需风量 Q（用于风速验算）", _M3),
    "dust_suppression": ParamDoc("综采工作面采取煤层注水和喷雾降尘（最高风速 5 m/s）"),
    "descending": ParamDoc("下行通风（最低风速 1 m/s）"),
    "working_face_q": ParamDoc("在用采煤工作面需风量", _M3),
    "standby_ratio": ParamDoc("备用工作面风量比例（默认 0.5）"),
    "fan_intake_q": ParamDoc("局部通风机吸风量 Q_f（每台）", _M3),
    "fan_count": ParamDoc("局部通风机台数 I", "台"),
    "full_pressure_q": ParamDoc("局部通风机安装地点全风压供风量", _M3),
    "area": ParamDoc("巷道断面 S", "m²"),
    "heading_type": ParamDoc("掘进巷道类别：coal 煤巷 / half_coal 半煤岩巷 / rock 岩巷"),
    "vehicle_kw": ParamDoc("防爆柴油胶轮车功率（单台，或各台功率列表）", "kW"),
    "vehicles": ParamDoc("同时运行最多车辆数", "台"),
    "power_kw": ParamDoc("硐室运行设备总功率 ΣW（或各台功率列表）", "kW"),
    "delta_t": ParamDoc("硐室进、回风温差 Δt", "°C"),
    "theta": ParamDoc("发热系数 θ"),
    "chamber_type": ParamDoc("硐室类型：compressor 空压机房/pump 水泵房/substation 变电所/hoist 绞车房"),
    "roadway_class": ParamDoc("巷道类别（表6），如 district_roadway 采区进、回风巷"),
    "gas_free": ParamDoc("无瓦斯涌出的架线电机车巷道（最低风速 0.5 m/s）"),
    "scope": ParamDoc("巷道位置：district 采区内 / main_return 总回风巷或一翼回风巷"),
    "volume_m3": ParamDoc("爆炸材料库总容积 V", "m³"),
    "store_size": ParamDoc("爆炸材料库库型：large 大型 / medium 中型 / small 小型"),
    "h2_emission": ParamDoc("氢气涌出量 q_H₂", _M3),
    "location_qs": ParamDoc("各用风地点需风量（名称→风量，或列表）", _M3),
    "k_mine": ParamDoc("矿井需风系数 k_mine"),
    "fan_mode": ParamDoc("主要通风机工作方式：exhausting 抽出式 / forcing 压入式"),
    "max_people_underground": ParamDoc("井下同时工作最多人数", "人"),
    "capacity": ParamDoc("矿井通风能力", _M3),
    "wind_speed": ParamDoc("测风站平均风速 v", "m/s"),
    "ch4_return": ParamDoc("回风流甲烷浓度", "%"),
    "ch4_intake": ParamDoc("进风流甲烷浓度", "%"),
    "drained": ParamDoc("瓦斯抽采量", _M3),
    "daily_output": ParamDoc("日产煤量", "t/d"),
    "location_kind": ParamDoc("判定对象：mine 矿井 / coal_face 采煤工作面 / heading 掘进工作面"),
}
"""Every calculator parameter, by its glossary name."""


def _info(func: Callable[..., Any], kind: str, title_cn: str, description_cn: str) -> tuple[str, CalcInfo]:
    return func.__name__, CalcInfo(func, kind, title_cn, description_cn)


CATALOG: dict[str, CalcInfo] = dict(
    [
        _info(calc_face_by_gas, "coal_face", "采煤工作面按瓦斯涌出量计算", "Q = 100·q·k，k 按采煤方法取值（综采 1.2–1.6，炮采 1.4–2.0，水采 2.0–3.0）"),
        _info(calc_face_by_co2, "coal_face", "采煤工作面按二氧化碳涌出量计算", "Q = 67·q_CO₂·k"),
        _info(calc_face_by_climate, "coal_face", "采煤工作面按气象条件计算（AQ 1056）", "Q = 60·0.70·v·S·k_h·k_l，S = 采高 × 平均控顶距；v 按进风温度、k_h 按采高、k_l 按工作面长度查表"),
        _info(calc_face_by_climate_textbook, "coal_face", "采煤工作面按气象条件计算（旧式）", "Q = Q_base·K_h·K_l·K_t，旧教材公式，结果提示使用了旧式"),
        _info(calc_face_by_workers, "coal_face", "采煤工作面按人数计算", "Q = 4·N"),
        _info(calc_face_by_explosives, "coal_face", "采煤工作面按炸药量计算", "Q = 25·A（10·A 的变体仅作提示）"),
        _info(calc_face_by_wind_speed, "coal_face", "采煤工作面风速验算", "60·0.25·S_eff,max ≤ Q ≤ 60·4·S_eff,min，S_eff = 0.7 × 控顶距 × 采高；综采喷雾降尘最高 5 m/s"),
        _info(calc_face_air_volume_max, "coal_face", "采煤工作面需风量（各方法取最大值）", "按给定参数计算全部适用方法，取最大值，并附风速验算"),
        _info(calc_standby_face, "coal_face", "备用工作面需风量", "Q ≥ 50% × 在用工作面需风量"),
        _info(calc_effective_area, "coal_face", "采煤工作面有效断面", "S_eff = 0.7 × 控顶距 × 采高（最大、最小控顶距），及其平均值"),
        _info(calc_tunnel_by_gas, "heading", "掘进工作面按瓦斯涌出量计算", "Q = 100·q·k，k 1.5–2.0"),
        _info(calc_tunnel_by_explosives, "heading", "掘进工作面按炸药量计算", "Q = 25·A"),
        _info(calc_tunnel_by_fan_intake, "heading", "掘进工作面按局部通风机吸风量计算", "Q = Q_f·I + 60·v_min·S，v_min 岩巷 0.15、煤巷和半煤岩巷 0.25 m/s"),
        _info(calc_tunnel_by_workers, "heading", "掘进工作面按人数计算", "Q = 4·N"),
        _info(calc_tunnel_by_wind_speed, "heading", "掘进工作面风速验算", "岩巷 60·0.15·S ≤ Q ≤ 60·4·S；煤巷、半煤岩巷 60·0.25·S ≤ Q ≤ 60·4·S"),
        _info(calc_tunnel_by_vehicle, "heading", "掘进工作面按胶轮车功率计算", "Q = 4·ΣP，每千瓦不小于 4 m³/min（同时运行最多车辆）"),
        _info(calc_tunnel_air_volume_max, "heading", "掘进工作面需风量（各方法取最大值）", "按给定参数计算全部适用方法，取最大值，并附风速验算"),
        _info(calc_chamber_by_equipment, "chamber", "机电硐室按发热量计算", "Q = 3600·ΣW·θ/(ρ·c_p·60·Δt)，θ 按硐室类型取值"),
        _info(calc_chamber_by_wind_speed, "chamber", "硐室风速验算", "按巷道类别（表6）的风速上下限验算"),
        _info(calc_explosives_store, "chamber", "爆炸材料库需风量", "Q = 4·V/60，且大型库不小于 100、中小型库不小于 60 m³/min，取大值"),
        _info(calc_charging_chamber, "chamber", "充电硐室需风量", "Q = 200·q_H₂，且不小于 100 m³/min，取大值"),
        _info(calc_other_by_wind_speed, "other_roadway", "其他用风巷道风速验算", "按巷道类别（表6）：采区进回风巷、输送机巷 0.25–6，架线电机车巷道 1.0–8，总进回风巷 ≤ 8，其他通风人行巷道 ≥ 0.15 m/s"),
        _info(calc_other_by_gas, "other_roadway", "其他用风巷道按瓦斯涌出量计算", "采区内 Q = 100·q·k，总回风巷或一翼回风巷 Q = 133·q·k"),
        _info(calc_other_by_vehicle, "other_roadway", "其他用风巷道按胶轮车功率计算", "Q = 4·ΣP，每千瓦不小于 4 m³/min（同时运行最多车辆）"),
        _info(calc_total_air_volume, "mine", "矿井总需风量", "Q_mine = ΣQ·k_mine，且不小于 4 × 井下同时工作最多人数；可与通风能力比较"),
        _info(calc_gas_emission_from_wind, "survey", "按测风报表反算瓦斯涌出量", "Q = 60·v·S，q = Q·(C_回 − C_进)/100，可加抽采量、算相对涌出量并判定高瓦斯"),
    ]
)  # fmt: skip
"""Every calculator by name, in the order of DOMAIN §2."""

CALCULATORS: dict[str, Callable[..., Any]] = {name: info.func for name, info in CATALOG.items()}
"""Calculator name → function (the registry)."""
