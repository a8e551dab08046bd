"""Where a scenario's nodes are at a time, which pairs are in radio range,
and a flow's shortest path: the facts `plot topology` draws.

The radio's range is the engine's own (`_core.tx_range_m`, the link rule
of oracle.rs: linked while the distance is at most that range).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Mapping

import numpy as np

def resolved(sc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario with every default filled in (the engine's own resolution;
    raises `_core.ScenarioError` for an invalid one)."""
    import tomllib

    from .. import _core

    return tomllib.loads(_core.resolved_scenario(json.dumps(sc), "json"))


def tx_range_m(sc: Mapping[str, Any]) -> float:
    """The decode range of scenario ``sc``, in metres, as the engine resolves it."""
    from .. import _core

    return _core.tx_range_m(json.dumps(sc), "json")


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
