"""The notes of a device's interpretation: its model, rated point, standby state and where it stands.

Where a device stands is the airway it is installed in. A main fan or a sensor stands in its tunnel. A
local fan (局部通风机) does not stand in the heading it ventilates: a forcing local fan is installed in the
intake airway, at least 10 m outside the heading's return mouth (《煤矿安全规程》（2025版）第183条, 2016版
第164条: 压入式局部通风机和启动装置安装在进风巷道中，距掘进巷道回风口不得小于10m), and ventilates the
heading through its duct (风筒). Its tunnel in the monitoring data is the heading it serves; its place is
what the data say of its position, and, where the mine's network is loaded, the intake airway it draws its
air from (:func:`~vent_agent.network.local_fans.intake_airway`, the airway the map draws it in).
"""

from __future__ import annotations

from vent_agent.kb.thresholds import ThresholdTable
from vent_agent.upstream.models import Device, Tunnel

STANDBY = "备用"
LOCAL_FAN_PLACE_KEY = "aux_fan_distance"
"""The threshold whose clause places a forcing local fan (第183条: in the intake, ≥ 10 m outside)."""


def device_notes(device: Device, tunnel: Tunnel | None, table: ThresholdTable) -> list[str]:
    """The notes of ``device``: model, rated point, standby state, and where it stands (see the module
    doc; a local fan's heading is named as the place it ventilates, not as its airway)."""
    notes = []
    if device.model:
        notes.append(f"型号 {device.model}")
    if device.rated:
        r = device.rated
        pressure = f"、负压 {r.negative_pressure:g} Pa" if r.negative_pressure else ""
        notes.append(f"额定工况：风量 {r.air_volume:g} m³/min{pressure}；{r.motor_words()}")
    if device.state == STANDBY:
        notes.append("备用设备：停机时运行参数不作判断")
    if tunnel is None:
        return notes
    if device.device_type != "aux_fan":
        return [*notes, f"安装巷道：{tunnel.name}（{tunnel.roadway_class}）"]
    if device.position:
        notes.append(f"安装地点：{device.position}")
    try:
        cited = f"：{table.get(LOCAL_FAN_PLACE_KEY).article_label()}"
    except KeyError:  # a threshold table without the provision: the rule said without its clause
        cited = ""
    why = f"（局部通风机安装在进风巷道中，距掘进巷道回风口不得小于10m{cited}）"
    return [*notes, f"供风地点：经风筒向{tunnel.name}（{tunnel.roadway_class}）压入式供风{why}"]


def intake_note(airway: str) -> str:
    """The note naming the intake airway a local fan stands in, from the mine's network."""
    return f"安装巷道：{airway}（进风巷道，局部通风机从此吸风；通风网络模型）"
