"""The seeded corpus of issue 10's reproducers: scenarios that once panicked,
hung, livelocked or aborted. Each must now give a clean ScenarioError (its
field's valid range, or the cost estimate) or a finished run within seconds (test_reproducers.py, the Rust twin in
crates/hoplab-sim/tests/reproducers.rs, and the fuzz suites start from them).
"""

from __future__ import annotations

import copy
from typing import Any

#: A 2-node chain with one FTP flow: the base every reproducer mutates.
BASE: dict[str, Any] = {
    "name": "repro",
    "duration_s": 1.0,
    "topology": {"kind": "chain", "nodes": 2, "spacing_m": 200.0},
    "flows": [{"kind": "ftp", "src": 0, "dst": 1}],
}


def _with(path: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    d = copy.deepcopy(base or BASE)
    keys = path.split(".")
    cur: Any = d
    for k in keys[:-1]:
        if k.isdigit():
            cur = cur[int(k)]
        else:
            cur = cur.setdefault(k, {})
    cur[keys[-1]] = value
    return d


def _cbr(rate: float) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d["flows"] = [{"kind": "cbr", "src": 0, "dst": 1, "rate_kbps": rate}]
    return d


def _routing(proto: str, **fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d["duration_s"] = 10.0
    d["routing"] = {"protocol": proto, proto: fields}
    return d


#: name -> scenario dict. Names are stable: tests and reports cite them.
CORPUS: dict[str, dict[str, Any]] = {
    "data_rate_1e-7": _with("mac.data_rate_mbps", 1e-7),
    "basic_rate_1e-7": _with("mac.basic_rate_mbps", 1e-7),
    "initial_rto_1e-12": _with("tcp.initial_rto_s", 1e-12, _with("duration_s", 0.001)),
    "max_rto_1e-12": _with("tcp.max_rto_s", 1e-12, _with("tcp.min_rto_s", 1e-12, _with("duration_s", 0.001))),
    "max_rto_1e-12_long": _with("tcp.max_rto_s", 1e-12, _with("tcp.min_rto_s", 1e-12, _with("duration_s", 100.0))),
    "tx_range_1e9": _with("radio.tx_range_m", 1e9),
    "initial_cwnd_u32_max": _with("tcp.initial_cwnd", 4294967295),
    "chain_1e6_nodes": _with("topology", {"kind": "chain", "nodes": 1_000_000, "spacing_m": 200.0}),
    "random_65535_in_500m": _with("topology", {"kind": "random", "nodes": 65535, "width_m": 500.0, "height_m": 500.0}),
    "mobility_step_1e-9": _with("mobility", {"step_m": 1e-9, "legs": [{"node": 1, "at_s": 0.0, "to": [400.0, 0.0], "speed_mps": 10.0}]},
                                _with("duration_s", 10.0)),
    "cbr_1e12_kbps": _cbr(1e12),
    "aodv_hello_1e-9": _routing("aodv", hello_interval_s=1e-9, hello_jitter_s=0.0),
    "olsr_timers_1e-9": _routing("olsr", hello_interval_s=1e-9, refresh_interval_s=1e-9, tc_interval_s=1e-9),
    "dsdv_update_1e-9": _routing("dsdv", periodic_update_s=1e-9),
}
