"""Property tests: monotone in emission, people and area; the maximum bounds every method; finite results."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from calc import (
    calc_chamber_by_equipment,
    calc_face_air_volume_max,
    calc_face_by_climate,
    calc_face_by_gas,
    calc_face_by_workers,
    calc_gas_emission_from_wind,
    calc_tunnel_air_volume_max,
    calc_tunnel_by_fan_intake,
    calc_tunnel_by_gas,
    calc_tunnel_by_wind_speed,
    calc_tunnel_by_workers,
)

FAST = settings(max_examples=60, deadline=None, derandomize=True)

emission = st.floats(min_value=0.0, max_value=60.0, allow_nan=False)
k_face = st.floats(min_value=1.2, max_value=1.6)
area = st.floats(min_value=1.0, max_value=40.0)
people = st.integers(min_value=0, max_value=500)
heading_type = st.sampled_from(["coal", "half_coal", "rock"])


@FAST
@given(q1=emission, q2=emission, k=k_face)
def test_face_gas_is_monotone_in_emission(q1, q2, k):
    lo, hi = sorted((q1, q2))
    a = calc_face_by_gas(gas_emission=lo, k_gas=k, mining_method="综采")
    b = calc_face_by_gas(gas_emission=hi, k_gas=k, mining_method="综采")
    assert a.unrounded is not None and b.unrounded is not None
    assert a.value <= b.value and a.unrounded <= b.unrounded


@FAST
@given(q1=emission, q2=emission)
def test_heading_gas_is_monotone_in_emission(q1, q2):
    lo, hi = sorted((q1, q2))
    assert calc_tunnel_by_gas(gas_emission=lo).value <= calc_tunnel_by_gas(gas_emission=hi).value


@FAST
@given(n1=people, n2=people)
def test_people_methods_are_monotone(n1, n2):
    lo, hi = sorted((n1, n2))
    assert calc_face_by_workers(workers=lo).value <= calc_face_by_workers(workers=hi).value
    assert calc_tunnel_by_workers(workers=lo).value <= calc_tunnel_by_workers(workers=hi).value


@FAST
@given(s1=area, s2=area, kind=heading_type, q_fan=st.floats(min_value=50, max_value=1500))
def test_area_methods_are_monotone(s1, s2, kind, q_fan):
    lo, hi = sorted((s1, s2))
    fan = [calc_tunnel_by_fan_intake(fan_intake_q=q_fan, area=s, heading_type=kind).value for s in (lo, hi)]
    assert fan[0] <= fan[1]
    speed = [calc_tunnel_by_wind_speed(area=s, heading_type=kind) for s in (lo, hi)]
    assert speed[0].lower is not None and speed[1].lower is not None
    assert speed[0].upper is not None and speed[1].upper is not None
    assert speed[0].lower <= speed[1].lower and speed[0].upper <= speed[1].upper


@FAST
@given(
    h1=st.floats(min_value=1.0, max_value=6.0),
    h2=st.floats(min_value=1.0, max_value=6.0),
    l_min=st.floats(min_value=2.0, max_value=6.0),
    extra=st.floats(min_value=0.0, max_value=3.0),
)
def test_climate_is_monotone_in_the_face_section(h1, h2, l_min, extra):
    lo, hi = sorted((h1, h2))
    common = {"roof_control_max": l_min + extra, "roof_control_min": l_min, "v_climate": 1.2, "k_l": 1.1}
    a = calc_face_by_climate(mining_height=lo, k_h=1.1, **common)
    b = calc_face_by_climate(mining_height=hi, k_h=1.1, **common)
    assert a.value <= b.value


face_inputs = st.fixed_dictionaries(
    {},
    optional={
        "gas_emission": emission,
        "co2_emission": emission,
        "workers": people,
        "explosive_kg": st.floats(min_value=0.0, max_value=200.0),
        "mining_height": st.floats(min_value=1.0, max_value=6.0),
    },
)


@FAST
@given(
    inputs=face_inputs,
    temp=st.floats(min_value=0.0, max_value=26.0),
    length=st.floats(min_value=5, max_value=350),
)
def test_face_maximum_bounds_every_method_and_is_finite(inputs, temp, length):
    kwargs = {"mining_method": "综采", "intake_temp": temp, "face_length": length, "workers": 1, **inputs}
    if "mining_height" in kwargs:
        kwargs |= {"roof_control_max": 5.8, "roof_control_min": 4.6}
    r = calc_face_air_volume_max(**kwargs)
    assert all(r.value >= m.value for m in r.methods)
    assert r.governing in {m.method for m in r.methods}
    assert math.isfinite(r.value) and r.value >= 0
    assert len(r.checks) == (1 if "mining_height" in kwargs else 0)


@FAST
@given(
    gas=emission,
    kg=st.floats(min_value=0.0, max_value=100.0),
    q_fan=st.floats(min_value=50, max_value=1500),
    s=area,
    kind=heading_type,
    n=people,
    kw=st.lists(st.floats(min_value=10, max_value=200), min_size=1, max_size=4),
)
def test_heading_maximum_bounds_every_method_and_is_finite(gas, kg, q_fan, s, kind, n, kw):
    r = calc_tunnel_air_volume_max(
        gas_emission=gas,
        explosive_kg=kg,
        fan_intake_q=q_fan,
        area=s,
        heading_type=kind,
        workers=n,
        vehicle_kw=kw,
    )
    assert all(r.value >= m.value for m in r.methods)
    assert math.isfinite(r.value) and r.value >= 0 and len(r.checks) == 1


@FAST
@given(
    power=st.floats(min_value=1, max_value=5000),
    theta=st.floats(min_value=0.005, max_value=0.3),
    dt=st.floats(min_value=0.5, max_value=15),
)
def test_chamber_heat_is_finite_and_non_negative(power, theta, dt):
    r = calc_chamber_by_equipment(power_kw=power, theta=theta, delta_t=dt)
    assert math.isfinite(r.value) and r.value >= 0


@FAST
@given(
    v=st.floats(min_value=0, max_value=10),
    s=area,
    c_in=st.floats(min_value=0, max_value=0.5),
    rise=st.floats(min_value=0, max_value=1.5),
)
def test_survey_emission_is_finite_and_non_negative(v, s, c_in, rise):
    r = calc_gas_emission_from_wind(wind_speed=v, area=s, ch4_return=c_in + rise, ch4_intake=c_in)
    assert math.isfinite(r.value) and r.value >= 0 and r.air_q >= 0
