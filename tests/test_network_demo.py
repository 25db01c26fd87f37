"""The demo mine as one connected network: its solve reproduces the demo monitoring's air volumes
within 5 %, the main fan's operating point its monitored pressure, and the fan's motor data are
physically consistent."""

from __future__ import annotations

import networkx as nx
import pytest

from tests.helpers import present
from vent_agent.network.demo import demo_data, demo_network, main_fan_motor
from vent_agent.upstream.demo_mine import DemoMine
from ventnet import solve


def _monitored_q() -> dict[str, float]:
    """Each tunnel's monitored air volume (m³/s): its wind sensor's baseline speed × the tunnel's area."""
    mine = DemoMine()
    out = {}
    for device_id, profiles in mine._profiles.items():
        if "wind_speed" in profiles:
            tunnel = mine.tunnels[present(mine.devices[device_id].tun_id)]
            assert tunnel.area is not None
            out[tunnel.tun_id] = profiles["wind_speed"].base * tunnel.area
    return out


def test_every_monitored_tunnel_is_an_airway_carrying_its_air_within_5_percent() -> None:
    solution = solve(demo_network())
    monitored = _monitored_q()
    assert len(monitored) == 17 and set(monitored) <= set(solution.q)
    for tun_id, q in monitored.items():
        assert solution.q[tun_id] == pytest.approx(q, rel=0.05), tun_id
    assert not solution.reversed


def test_the_network_is_connected_and_every_demo_tunnel_is_in_it() -> None:
    network = demo_network()
    graph: nx.Graph[str] = nx.Graph()
    graph.add_edges_from((b.from_node, b.to_node) for b in network.branches)
    graph.add_edges_from(network.joined.items())
    assert nx.is_connected(graph)
    tunnels = set(DemoMine().tunnels)
    assert tunnels <= {b.id for b in network.branches}


def test_the_main_fan_runs_at_its_monitored_point_on_the_falling_side_of_its_curve() -> None:
    solution = solve(demo_network())
    fan = demo_data()["main_fan"]
    (point,) = solution.fans
    assert point.q == pytest.approx(fan["monitored_q"], rel=0.05)
    assert point.h_fan == pytest.approx(fan["monitored_pressure"], rel=0.05)
    assert not point.rising and not point.off_range


def test_the_main_fan_motors_are_physically_consistent() -> None:
    motor = main_fan_motor()
    mine = DemoMine()
    fan = mine.devices["FAN-001"]
    assert fan.rated is not None and fan.rated.power == pytest.approx(motor.motors * motor.rated_kw_each)
    # the rated current (per motor) of two 355 kW, 10 kV motors
    assert fan.rated.motor_current == pytest.approx(motor.rated_current(), rel=0.05)
    # the device's rating says so itself: how many motors, at what voltage
    assert (fan.rated.motors, fan.rated.voltage_kv) == (motor.motors, motor.voltage_kv)
    profiles = mine._profiles["FAN-001"]
    power, current = profiles["power"].base, profiles["motor_current"].base
    assert current == pytest.approx(motor.current_per_motor(power), rel=0.05)
    # the air power Q·H over the motors' input is a fan efficiency a real fan reaches (0.7–0.9)
    air_kw = profiles["air_volume"].base / 60.0 * profiles["negative_pressure"].base / 1000.0
    assert 0.7 <= air_kw / (power * motor.efficiency) <= 0.9
