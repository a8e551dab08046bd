"""Seed 002's expected throughput per flow (Östergren §7.1.1, Eq. 1, after
Holland & Vaidya 1999), from a run's ``oracle_paths`` table.

    B_exp = sum_i t_i T_i / sum_i t_i

t_i is the time the flow's shortest path in the true topology was i hops
while the flow was active (the engine's oracle, ``oracle_paths``; 0 hops is
"no path", whose T is 0), and T_i what one TCP transfer reaches over a static
("ZERO"-routed) chain of i hops with the same TCP settings (`chain_kbps`
measures it the thesis's way: a finite transfer on a static chain).

The measured throughput set against it is the thesis's (§7.1): the time to
acknowledge the payload, ``transfer_throughput_kbps`` for a finished transfer,
else ``throughput_kbps`` (delivered bytes over the active time).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from ...models import expected_throughput as _eq1

__all__ = ["with_expected", "chain_kbps", "measured_kbps"]


def measured_kbps(flows: pd.DataFrame) -> pd.Series:
    """Seed 002 §7.1's measured throughput per flow: the time to acknowledge
    the payload (``transfer_throughput_kbps``) for a finished transfer, else
    delivered bytes over the active time (``throughput_kbps``)."""
    return flows.transfer_throughput_kbps.where(flows.transfer_throughput_kbps.notna(), flows.throughput_kbps)


def with_expected(result: Any, chain: Mapping[int, float]) -> pd.DataFrame:
    """``result.flows`` with two columns appended: ``expected_throughput_kbps``
    (Eq. 1 over the flow's oracle rows, ``chain`` = {hops: T_i in kbit/s}) and
    ``fraction_of_expected`` (measured / expected). A flow without oracle rows,
    or whose expected throughput is 0 (never a path), gets NaN. A hop count
    the oracle saw but ``chain`` lacks raises KeyError naming it."""
    T = {0: 0.0, **{int(h): float(v) for h, v in chain.items()}}
    flows = result.flows.copy()
    oracle = result.oracle_paths
    expected = []
    for f in flows.flow:
        rows = oracle[oracle.flow == f]
        t = {int(h): float(s) for h, s in zip(rows.hops, rows.time_s)}
        expected.append(float(_eq1(t, T)) if t and sum(t.values()) > 0 else float("nan"))
    flows["expected_throughput_kbps"] = expected
    measured = measured_kbps(flows)
    exp = flows.expected_throughput_kbps.replace(0.0, np.nan)
    flows["fraction_of_expected"] = measured / exp
    return flows


def chain_kbps(max_hops: int, *, bytes: int = 4_000_000, tcp: Mapping[str, Any] | None = None,
               spacing_m: float = 200.0, duration_s: float = 3000.0, seed: int = 1,
               base: Mapping[str, Any] | None = None) -> dict[int, float]:
    """T_i for i = 1..``max_hops``: one ``bytes`` transfer (seed 002: 4 MB)
    from node 0 to node i of a static chain ``spacing_m`` apart under static
    routing (seed 002's ZERO), with ``tcp`` as the ``[tcp]`` table and
    ``base`` merged into the scenario (e.g. ``{"mac": {...}}``). Each value is
    the transfer's ``transfer_throughput_kbps`` (``throughput_kbps`` if it did
    not finish within ``duration_s``)."""
    from ..._run import run  # the engine; imported here so that models stay light

    out = {}
    for i in range(1, int(max_hops) + 1):
        sc: dict[str, Any] = {
            **dict(base or {}),
            "name": f"chain{i}",
            "duration_s": duration_s,
            "topology": {"kind": "chain", "nodes": i + 1, "spacing_m": spacing_m},
            "routing": {"protocol": "static"},
            "tcp": dict(tcp or {}),
            "flows": [{"kind": "ftp", "src": 0, "dst": i, "bytes": int(bytes)}],
            "output": {"timeseries": False},
        }
        r = run(sc, seed=seed).flows.iloc[0]
        out[i] = float(r.transfer_throughput_kbps) if r.completed else float(r.throughput_kbps)
    return out
