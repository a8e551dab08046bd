"""The story of a route break, from a run's routing events: when the node
started moving, which links were declared broken (and how), the route
errors and discoveries, when data first arrived over a new path, and the
first ACK the source got after that (seed 003 §3-5)."""

from __future__ import annotations

from typing import Any

from ...result import Result


def _legs(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    return list(scenario.get("mobility", {}).get("legs", []))


def _leg(leg: dict[str, Any], key: str, old: str) -> Any:
    """A leg's value under its unit-suffixed key, or the deprecated one."""
    return leg[key] if key in leg else leg[old]


def window(scenario: dict[str, Any]) -> tuple[float, float]:
    """Default window: from 1 s before the last leg starts to 25 s after."""
    legs = _legs(scenario)
    t0 = max((float(_leg(l, "at_s", "at")) for l in legs), default=0.0)
    return max(0.0, t0 - 1.0), t0 + 25.0


def outage(res: Result, flow: int, after: float) -> dict[str, float] | None:
    """The first path change of `flow` after time `after`: when data first
    arrived over the new path, its hops, and how long nothing had arrived."""
    ev = res.route_events
    pc = ev[(ev.event == "path_change") & (ev.flow == flow) & (ev.time_s > after)]
    if not len(pc):
        return None
    r = pc.iloc[0]
    ts = res.timeseries
    acks = ts[(ts.flow == flow) & (ts.time_s >= r.time_s)]
    return {"new_path_s": float(r.time_s), "hops": int(r.peer), "outage_s": float(r.latency_s),
            "first_ack_s": float(acks.time_s.iloc[0]) if len(acks) else float("nan")}


def render(res: Result, scenario: dict[str, Any], start: float, end: float) -> str:
    lines = []
    for l in _legs(scenario):
        if start <= float(_leg(l, "at_s", "at")) <= end:
            lines.append((float(_leg(l, "at_s", "at")), f"node {l['node']} starts moving to ({l['to'][0]:g}, {l['to'][1]:g}) "
                                          f"at {_leg(l, 'speed_mps', 'speed'):g} m/s  [scenario]"))
    ev = res.route_events
    ev = ev[(ev.time_s >= start) & (ev.time_s <= end)]
    for r in ev.itertuples(index=False):
        if r.event == "link_broken":
            what = (f"node {r.node} declares its link to node {r.peer} broken ({r.cause})"
                    + ("  [false: still in range]" if r.false_failure else ""))
        elif r.event == "path_change":
            what = (f"flow {r.flow}: data reaches node {r.node} over a new {r.peer}-hop path "
                    f"({r.latency_s:.2f} s after the last packet over the old one)")
        elif r.event == "discovery_started":
            what = f"node {r.node} starts a route discovery for node {r.peer}"
        elif r.event == "discovery_done":
            what = f"node {r.node} has a route to node {r.peer} ({r.latency_s * 1e3:.0f} ms)"
        elif r.event == "discovery_failed":
            what = f"node {r.node} gives up discovering node {r.peer}"
        elif r.event == "rerr_sent":
            what = f"node {r.node} sends a route error"
        elif r.event == "salvaged":
            what = f"node {r.node} salvages a packet onto another route"
        else:
            what = f"node {r.node} {r.event}"
        lines.append((float(r.time_s), what))
    for f in res.flows.itertuples(index=False):
        o = outage(res, int(f.flow), start)
        if o and o["new_path_s"] <= end and o["first_ack_s"] == o["first_ack_s"]:
            lines.append((o["first_ack_s"], f"flow {f.flow}: first ACK at node {f.src} after the new path"))
    lines.sort(key=lambda x: x[0])
    return "\n".join(f"{t:9.3f} s  {w}" for t, w in lines) or "(no routing events in the window)"
