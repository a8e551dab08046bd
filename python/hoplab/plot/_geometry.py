"""Where a scenario's nodes are at a time, which pairs are in radio range,
and a flow's shortest path: the facts `plot topology` draws.

The engine does not report its resolved range, so `tx_range_m` computes it
as crates/hoplab-sim/src/phy/propagation.rs does (`RadioParams::from_config`,
`PathLoss::range_for_power`); tests/python/test_plot_topology.py checks it
against runs just inside and just outside it. Links follow the oracle's
true topology (oracle.rs: linked while the distance is at most tx_range).
"""

from __future__ import annotations

import json
import math
from collections import deque
from typing import Any, Mapping

import numpy as np

SPEED_OF_LIGHT = 299_792_458.0  # m/s, as propagation.rs
FLAT_RANGE_M = 250.0  # propagation.rs PathLoss::from_config: Flat without tx_range_m


def resolved(sc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario with every default filled in (the engine's own resolution;
    raises `_core.ScenarioError` for an invalid one)."""
    import tomllib

    from .. import _core

    return tomllib.loads(_core.resolved_scenario(json.dumps(sc), "json"))


def tx_range_m(radio: Mapping[str, Any]) -> float:
    """The decode range of a resolved `[radio]` table, in metres."""
    prop = radio.get("propagation", "two_ray_ground")
    if prop == "flat":
        return float(radio.get("tx_range_m", FLAT_RANGE_M))
    if "tx_range_m" in radio:  # a range given as a distance is the range
        return float(radio["tx_range_m"])
    pt, loss, p = float(radio["tx_power_w"]), float(radio["system_loss"]), float(radio["rx_threshold_w"])
    lam = SPEED_OF_LIGHT / float(radio["frequency_hz"])
    friis = math.sqrt(pt * lam * lam / ((4 * math.pi) ** 2 * p * loss))
    if prop == "free_space":
        return friis
    h = float(radio["antenna_height_m"])
    two_ray = (pt * h ** 4 / (p * loss)) ** 0.25
    return two_ray if two_ray >= 4 * math.pi * h * h / lam else friis  # beyond the crossover: two-ray


def positions_at(movement: Any, t: float, nodes: int) -> np.ndarray:
    """(nodes, 2) positions at time ``t`` from a `movement` table (a row per
    leg started; each node's first row is where it starts)."""
    from ..formats.ns2.movement import tracks

    m = movement.sort_values(["node", "time_s"], kind="stable")
    first = m.groupby("node").first()
    starts = [(float(first.at[i, "x"]), float(first.at[i, "y"])) for i in range(nodes)]
    legs = [(int(r.node), float(r.time_s), (float(r.to_x), float(r.to_y)), float(r.speed_mps))
            for r in m.itertuples() if r.speed_mps > 0]
    return np.array([trk.at(t) for trk in tracks(starts, legs)], dtype=float).reshape(nodes, 2)


def links(pos: np.ndarray, range_m: float) -> list[tuple[int, int]]:
    """Every pair (a < b) at most ``range_m`` apart."""
    n = len(pos)
    out: list[tuple[int, int]] = []
    for a in range(n - 1):
        d = np.hypot(*(pos[a + 1:] - pos[a]).T)
        out += [(a, a + 1 + int(k)) for k in np.flatnonzero(d <= range_m)]
    return out


def shortest_path(n: int, pairs: list[tuple[int, int]], src: int, dst: int) -> list[int] | None:
    """A fewest-hops path src..dst over ``pairs`` (breadth first, lower ids
    first among equals), or None when they are not connected."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        adj[a].append(b)
        adj[b].append(a)
    before = {src: -1}
    queue = deque([src])
    while queue and dst not in before:
        u = queue.popleft()
        for v in sorted(adj[u]):
            if v not in before:
                before[v] = u
                queue.append(v)
    if dst not in before:
        return None
    path = [dst]
    while path[-1] != src:
        path.append(before[path[-1]])
    return path[::-1]
