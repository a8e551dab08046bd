"""`hoplab bench`: fixed scenarios, each run in a fresh subprocess so that
wall time and peak memory belong to that scenario alone.

(a) chain4:  4-hop chain (5 nodes, 200 m), one FTP NewReno flow, 120 s.
(b) grid7:   7x7 grid, 200 m spacing, two crossing FTP flows (middle row
             left->right, middle column top->bottom), 120 s.
(c) rand200: 200 nodes uniformly at random in 2000 x 2000 m (positions from
             random.Random(42), so fixed), 20 FTP flows between random pairs
             in the largest connected component of the 250 m unit-disk
             graph (same RNG), 100 s.

These three use static routing. The routing scenarios are the same
topologies and flows with a routing protocol at its default preset, and are
judged against the static run of the same topology (wall time <= 3x):

(d) grid7-dsr:    grid7 with DSR.
(e) rand200-aodv: rand200 with AODV.
(f) rand200-olsr: rand200 with OLSR.

A TCP-variant scenario is a scenario above with one [tcp] change, judged
against that scenario (wall time <= 1.5x):

(g) grid7-dsr-sack: grid7-dsr with SACK, variant = "sack" (RFC 2018, RFC 6675).
(h) grid7-dsr-few: grid7-dsr with FeW, few_alpha = 0.01 (seed 001 §4).

Seed 001's mobile scenario (§5.4, issue 12) and a 1,000-node version, each
with AODV and with DSR (default presets), judged against absolute targets
(< 10 s and < 2 min, < 500 MB):

(i) mobile150-aodv, mobile150-dsr: 150 nodes, random waypoint (ns-2 setdest
    semantics) at 0-10 m/s with no pause in 2000 x 2000 m, 32 FTP flows
    between random pairs (random.Random(1)), 200 s. The minimum speed is 0
    as in seed 001 (setdest's original version), with the plain start, not
    the steady state (which needs a positive minimum speed): see
    docs/BENCHMARKS.md for the speed decay this implies over 200 s.
(j) mobile1000-aodv, mobile1000-dsr: 1,000 nodes in a square scaled to keep
    the density (side 2000 * sqrt(1000 / 150) = 5164 m), the same 32 flows'
    count (random pairs), speeds, pause and duration.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import deque
from typing import Any

from .. import scenario as sc
from .._table import markdown_table, text_table

RANGE_M = 250.0  # default two-ray-ground transmission range

# name -> (description, wall-time target in s or None)
SCENARIOS: dict[str, tuple[str, float | None]] = {
    "chain4": ("4-hop chain, 1 FTP flow, 120 s", 0.15),
    "grid7": ("7x7 grid, 2 crossing FTP flows, 120 s", None),
    "rand200": ("200 random nodes, 20 FTP flows, 100 s", 6.0),
    "grid7-dsr": ("grid7 with DSR", None),
    "rand200-aodv": ("rand200 with AODV", None),
    "rand200-olsr": ("rand200 with OLSR", None),
    "grid7-dsr-sack": ("grid7-dsr with SACK", None),
    "grid7-dsr-few": ("grid7-dsr with FeW, alpha 0.01", None),
    "mobile150-aodv": ("150 mobile nodes, 32 FTP flows, AODV, 200 s", 10.0),
    "mobile150-dsr": ("150 mobile nodes, 32 FTP flows, DSR, 200 s", 10.0),
    "mobile1000-aodv": ("1,000 mobile nodes, 32 FTP flows, AODV, 200 s", 120.0),
    "mobile1000-dsr": ("1,000 mobile nodes, 32 FTP flows, DSR, 200 s", 120.0),
}
RSS_TARGET_MB = 200.0
# Issue 12: the mobile scenarios' memory target.
RSS_TARGETS_MB: dict[str, float] = {name: 500.0 for name in SCENARIOS if name.startswith("mobile")}

# mobile scenario -> (nodes, routing protocol); seed 001 §5.4: random waypoint,
# max speed 10 m/s, no pause, 150 nodes in 2000 x 2000 m, 32 flows, 200 s.
MOBILE: dict[str, tuple[int, str]] = {
    "mobile150-aodv": (150, "aodv"),
    "mobile150-dsr": (150, "dsr"),
    "mobile1000-aodv": (1000, "aodv"),
    "mobile1000-dsr": (1000, "dsr"),
}
MOBILE_SIDE_M = 2000.0
MOBILE_NODES = 150
MOBILE_FLOWS = 32

# routing scenario -> (static-routing baseline of the same topology, protocol)
ROUTED: dict[str, tuple[str, str]] = {
    "grid7-dsr": ("grid7", "dsr"),
    "rand200-aodv": ("rand200", "aodv"),
    "rand200-olsr": ("rand200", "olsr"),
}
# A routing scenario's wall time may be at most this multiple of its baseline's.
ROUTING_RATIO_TARGET = 3.0

# TCP-variant scenario -> (the scenario it changes, its [tcp] changes)
TCP_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "grid7-dsr-sack": ("grid7-dsr", {"variant": "sack"}),
    "grid7-dsr-few": ("grid7-dsr", {"few_alpha": 0.01}),
}
# A TCP-variant scenario's wall time may be at most this multiple of its base's.
TCP_RATIO_TARGET = 1.5


def largest_component(pos: list[tuple[float, float]], radius: float) -> list[int]:
    """Nodes of the largest connected component of the unit-disk graph (BFS)."""
    n = len(pos)
    r2 = radius * radius
    adj = [[j for j in range(n) if j != i and (pos[i][0] - pos[j][0]) ** 2 + (pos[i][1] - pos[j][1]) ** 2 <= r2]
           for i in range(n)]
    seen = [False] * n
    best: list[int] = []
    for s in range(n):
        if seen[s]:
            continue
        comp, q = [], deque([s])
        seen[s] = True
        while q:
            u = q.popleft()
            comp.append(u)
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    q.append(v)
        if len(comp) > len(best):
            best = comp
    return sorted(best)


def random200() -> dict[str, Any]:
    rng = random.Random(42)
    pos = [(rng.uniform(0, 2000.0), rng.uniform(0, 2000.0)) for _ in range(200)]
    comp = largest_component(pos, RANGE_M)
    flows = []
    for _ in range(20):
        src, dst = rng.sample(comp, 2)
        flows.append(sc.ftp(src, dst))
    return sc.explicit(pos, duration=100.0, flows=flows, name="bench-rand200")


def mobile(nodes: int, protocol: str) -> dict[str, Any]:
    """Seed 001's mobile scenario with `nodes` nodes at its density."""
    side = MOBILE_SIDE_M * math.sqrt(nodes / MOBILE_NODES)  # same nodes per square metre
    rng = random.Random(1)
    flows = [sc.ftp(*rng.sample(range(nodes), 2)) for _ in range(MOBILE_FLOWS)]
    scenario = sc.explicit([(0.0, 0.0)], duration=200.0, flows=flows, routing={"protocol": protocol},
                           name=f"bench-mobile{nodes}-{protocol}")
    scenario["topology"] = {"kind": "random", "nodes": nodes, "width_m": side, "height_m": side}
    scenario["mobility"] = {"model": "waypoint", "speed_min_mps": 0.0, "speed_max_mps": 10.0, "pause_s": 0.0}
    return scenario


def build(name: str) -> dict[str, Any]:
    if name in MOBILE:
        return mobile(*MOBILE[name])
    if name in ROUTED:
        base, protocol = ROUTED[name]
        scenario = build(base)
        scenario["name"] = f"bench-{name}"
        scenario["routing"] = {"protocol": protocol}  # the protocol's default preset
        return scenario
    if name in TCP_VARIANTS:
        base, tcp = TCP_VARIANTS[name]
        scenario = build(base)
        scenario["name"] = f"bench-{name}"
        scenario["tcp"] = {**scenario.get("tcp", {}), **tcp}
        return scenario
    if name == "chain4":
        return sc.chain(4, 200.0, duration=120.0, name="bench-chain4")
    if name == "grid7":
        return sc.grid(7, 7, 200.0, duration=120.0, name="bench-grid7")
    if name == "rand200":
        return random200()
    raise KeyError(name)


def run_child(name: str, module: str = "hoplab._bench.one") -> dict[str, Any]:
    """Run one scenario in a fresh `python -m MODULE NAME` (one JSON line out)."""
    proc = subprocess.run([sys.executable, "-m", module, name],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"bench scenario {name} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_bench(repeat: int = 1, progress=None, names: Any = None) -> list[dict[str, Any]]:
    """Best wall time and highest peak RSS over ``repeat`` runs per scenario
    (all of them, or those in ``names``)."""
    out = []
    for name, (desc, target) in SCENARIOS.items():
        if names is not None and name not in names:
            continue
        runs = []
        for i in range(repeat):
            runs.append(run_child(name))
            if progress:
                progress(f"{name} run {i + 1}/{repeat}: {runs[-1]['wall_s']:.3f} s")
        best = min(runs, key=lambda r: r["wall_s"])
        out.append({
            "scenario": name, "description": desc, "nodes": best["nodes"], "flows": best["flows"],
            "events": best["events"], "wall_s": best["wall_s"],
            "events_per_s": best["events"] / best["wall_s"] if best["wall_s"] > 0 else math.nan,
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            "baseline_rss_mb": min(r["baseline_rss_mb"] for r in runs),
            "wall_target_s": target, "repeat": repeat,
            "rss_target_mb": RSS_TARGETS_MB.get(name, RSS_TARGET_MB),
        })
    walls = {r["scenario"]: r["wall_s"] for r in out}
    for r in out:
        base = ROUTED.get(r["scenario"], (None, None))[0] or TCP_VARIANTS.get(r["scenario"], (None, None))[0]
        r["baseline"] = base
        r["ratio_target"] = TCP_RATIO_TARGET if r["scenario"] in TCP_VARIANTS else ROUTING_RATIO_TARGET
        r["ratio_to_static"] = r["wall_s"] / walls[base] if base in walls and walls[base] > 0 else None
    return out


def _verdict(row: dict[str, Any]) -> str:
    ok_wall = row["wall_target_s"] is None or row["wall_s"] < row["wall_target_s"]
    if row.get("ratio_to_static") is not None:
        ok_wall = ok_wall and row["ratio_to_static"] <= row.get("ratio_target", ROUTING_RATIO_TARGET)
    ok_rss = row["peak_rss_mb"] < row.get("rss_target_mb", RSS_TARGET_MB)
    return "ok" if ok_wall and ok_rss else "MISSED"


def table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = ["scenario", "nodes", "flows", "events", "wall s", "events/s", "peak RSS MB",
               "x static", "target", "verdict"]
    body = []
    for r in rows:
        tgt = (f"< {r['wall_target_s']:g} s, " if r["wall_target_s"] else "")
        if r.get("baseline"):
            tgt += f"<= {r.get('ratio_target', ROUTING_RATIO_TARGET):g}x {r['baseline']}, "
        tgt += f"< {r.get('rss_target_mb', RSS_TARGET_MB):g} MB"
        ratio = r.get("ratio_to_static")
        body.append([f"{r['scenario']} ({r['description']})", r["nodes"], r["flows"], f"{r['events']:,}",
                     f"{r['wall_s']:.3f}", f"{r['events_per_s']:,.0f}", f"{r['peak_rss_mb']:.1f}",
                     "-" if ratio is None else f"{ratio:.2f}", tgt, _verdict(r)])
    fn = markdown_table if markdown else text_table
    text = fn(headers, body, align="lrrrrrrrll")
    note = (f"Wall time: best of {rows[0]['repeat']} run(s) of the simulation call in a fresh process; "
            "peak RSS: the whole child process (Python, pandas and the engine; "
            f"the interpreter alone after imports: ~{min(r['baseline_rss_mb'] for r in rows):.0f} MB). "
            "x static: wall time over the best wall time of the static-routing run of the same "
            "topology in this bench call (for a TCP-variant scenario, of the scenario it changes). "
            f"{os.cpu_count()} CPU(s).") if rows else ""
    return text + "\n\n" + note
