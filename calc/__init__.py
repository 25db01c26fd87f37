"""Pure air-volume calculators (需风量计算) of DOMAIN §2: no I/O, no model.

Every function takes keyword arguments named after the glossary (``gas_emission``, ``k_gas``,
``mining_height``, ``area``…; units m³/min, m/s, m², kW, °C, kg) and an optional ``tables``
(:class:`CoefficientTables`, default :data:`DEFAULT_TABLES`), and returns a :class:`CalcResult` (one
method), a :class:`MaxResult` (several methods and their maximum) or a :class:`SpeedCheckResult` (speed
bounds). Invalid input raises :class:`CalcInputError`. ``CALCULATORS`` maps each name to its function.
"""

from calc.catalog import CALCULATORS, CATALOG, PARAMS, CalcInfo, ParamDoc
from calc.chamber import (
    calc_chamber_by_equipment,
    calc_chamber_by_wind_speed,
    calc_charging_chamber,
    calc_explosives_store,
)
from calc.climate import calc_face_by_climate, calc_face_by_climate_textbook
from calc.errors import CalcInputError
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
from calc.render import render_text
from calc.result import (
    BoundCheck,
    CalcResult,
    Coefficient,
    EffectiveAreaResult,
    GasEmissionResult,
    MaxResult,
    SpeedCheckResult,
)
from calc.roadway import calc_other_by_gas, calc_other_by_vehicle, calc_other_by_wind_speed
from calc.survey import calc_gas_emission_from_wind
from calc.tables import DEFAULT_TABLES, CoefficientTables
from calc.units import m3min_to_m3s, m3s_to_m3min, q_from_speed, speed_from_q

__all__ = [
    "CALCULATORS",
    "CATALOG",
    "DEFAULT_TABLES",
    "PARAMS",
    "BoundCheck",
    "CalcInfo",
    "CalcInputError",
    "CalcResult",
    "Coefficient",
    "CoefficientTables",
    "EffectiveAreaResult",
    "GasEmissionResult",
    "MaxResult",
    "ParamDoc",
    "SpeedCheckResult",
    "calc_chamber_by_equipment",
    "calc_chamber_by_wind_speed",
    "calc_charging_chamber",
    "calc_effective_area",
    "calc_explosives_store",
    "calc_face_air_volume_max",
    "calc_face_by_climate",
    "calc_face_by_climate_textbook",
    "calc_face_by_co2",
    "calc_face_by_explosives",
    "calc_face_by_gas",
    "calc_face_by_wind_speed",
    "calc_face_by_workers",
    "calc_gas_emission_from_wind",
    "calc_other_by_gas",
    "calc_other_by_vehicle",
    "calc_other_by_wind_speed",
    "calc_standby_face",
    "calc_total_air_volume",
    "calc_tunnel_air_volume_max",
    "calc_tunnel_by_explosives",
    "calc_tunnel_by_fan_intake",
    "calc_tunnel_by_gas",
    "calc_tunnel_by_vehicle",
    "calc_tunnel_by_wind_speed",
    "calc_tunnel_by_workers",
    "m3min_to_m3s",
    "m3s_to_m3min",
    "q_from_speed",
    "render_text",
    "speed_from_q",
]
