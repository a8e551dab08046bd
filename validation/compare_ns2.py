#!/usr/bin/env python3
"""Run hoplab scenarios and their ns-2.35 counterparts with matched settings, and
print both side by side (docs/VALIDATION.md §5 records the tables).

    ./hoplab --help >/dev/null            # once: builds .venv and the extension
    .venv/bin/python validation/compare_ns2.py EXPERIMENT [--seeds 1-5] [--hops 1-8]
        [--profiles standard,ns2] [--mss 1460] [--duration 120] [--jsonl OUT.jsonl] [--fresh]

EXPERIMENT: chain-static, chain-aodv, window, dsr, grid, rwp, or all.

  chain-static  chain 1-8 hops, static routing, unclamped (64 KB window), RTS for data only
  chain-aodv    chain 1-8 hops, AODV
  window        seed 000 Fig. 3: chains 1-4 hops, AODV, max window 2/3/4/unclamped
  dsr           seed 001 Table 1: 6-hop chain and 7x7 grid row, 2 flows from 0 s, static
                and DSR, RTS for every unicast frame (ns-2's default)
  grid          7x7 grid, two crossing flows (row 3 from 1 s, column 3 from 1.5 s), static, DSR
  rwp           150 nodes, 2000 x 2000 m, random waypoint (0-10 m/s, no pause), 32 flows,
                AODV, 200 s; the movement and the flows of the ns-2 run (seeds 1-3)

The ns-2 side is validation/ns2/*.tcl (Debian's stock ns-2.35, `apt-get install -y ns2`).
Its results are kept by command line in validation/ns2_runs.jsonl and reused (ns-2 is
deterministic for a seed), so the comparison re-runs after a change to hoplab without ns-2
for the runs the file holds; rwp's movement files are kept in validation/ns2/scen/.

hoplab runs in-process, once per profile:
  standard  hoplab's defaults (IEEE 802.11, the RFCs): AODV `rfc3561`, DSR `ns2` preset
  ns2       `compat = "ns2"` (scenario/schema/compat.rs): ns-2.35's MAC, AODV, DSR and TCP
            rules; RTS threshold 300 counted as ns-2 counts it (with `mac.rts_threshold_basis`)

What is matched on both: 2 Mbit/s data, 1 Mbit/s basic rate, two-ray ground with 250 m /
550 m thresholds, 50-packet queue, 7/4 retries; TCP NewReno, 1460 B (or --mss), ns-2's
DelAck receiver (every 2nd segment, 100 ms), minimum RTO 200 ms, initial RTO 3 s, initial
window 2, 64 KB window (ns-2 window_ 44); window clamp W: ns-2 window_ = W, hoplab
max_cwnd = W. Data frames use RTS/CTS and TCP ACKs do not (ns-2 RTSThreshold_ 300 on
frames that include 58 B of PLCP and MAC header; hoplab 100 on its MPDU under `standard`).
ns-2's "static" is DSDV that never expires a route (validation/ns2/README.md); it adds a
second 20-byte IP header to every TCP segment (1.3 % more airtime per data frame).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import hoplab  # noqa: E402
from hoplab import scenario as S  # noqa: E402
from hoplab.formats.ns2 import merge_movement, read_movement  # noqa: E402
from hoplab.formats.ns2.script.export import spread_seed  # noqa: E402

HERE = ROOT / "validation"
TCL = HERE / "ns2"
SCEN = TCL / "scen"
NS = os.environ.get("NS", "ns")

TCP = {"variant": "new_reno", "mss_bytes": 1460, "min_rto_s": 0.2, "delack_timeout_s": 0.1,
       "initial_cwnd": 2, "initial_rto_s": 3.0, "receiver": "ns2", "delayed_ack": True}
# hoplab's routing table per profile; ns-2's name
ROUTING: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None, str]] = {
    "static": (None, None, "static"),
    "aodv": ({"protocol": "aodv", "preset": "rfc3561"}, {"protocol": "aodv"}, "AODV"),
    "dsr": ({"protocol": "dsr"}, {"protocol": "dsr"}, "DSR"),
}
PROFILES = ("standard", "ns2")


class Ns2Cache:
    """ns-2 results by command line (validation/ns2_runs.jsonl)."""

    def __init__(self, path: Path, fresh: bool) -> None:
        self.path = path
        self.runs: dict[str, dict[str, Any]] = {}
        if path.exists() and not fresh:
            for line in path.read_text().splitlines():
                if line.strip():
                    rec = json.loads(line)
                    self.runs[rec["cmd"]] = rec["out"]

    def run(self, script: str, args: list[str], cwd: Path | None = None) -> dict[str, Any]:
        cmd = " ".join([script, *args])
        if cmd not in self.runs:
            if shutil.which(NS) is None:
                raise SystemExit(f"compare_ns2: no cached ns-2 result for `{cmd}` and no `{NS}` "
                                 "(apt-get install -y ns2)")
            p = subprocess.run([NS, str(TCL / script), *args], capture_output=True, text=True, check=True,
                               cwd=cwd)
            line = [x for x in p.stdout.splitlines() if x.startswith('{"sim"')][-1]
            self.runs[cmd] = json.loads(line)
            with self.path.open("a") as f:
                f.write(json.dumps({"cmd": cmd, "out": self.runs[cmd]}) + "\n")
        return self.runs[cmd]


def hoplab_result(sc: dict[str, Any], seed: int) -> dict[str, Any]:
    r = hoplab.run(sc, seed=seed)
    f = r.flows
    return {"kbps": float(f.throughput_kbps.sum()), "flows": [round(float(x), 1) for x in f.throughput_kbps],
            "retx_pct": 100.0 * float(f.retransmissions.sum()) / max(1.0, float(f.packets_sent.sum())),
            "rto": int(f.timeouts.sum()), "engine_s": float(r.info["wall_s"]), "events": int(r.info["events"])}


def ns2_result(j: dict[str, Any]) -> dict[str, Any]:
    return {"kbps": float(j["sum_flow_goodput_kbps"]), "flows": [round(float(x["goodput_kbps"]), 1) for x in j["flows"]],
            "retx_pct": float(j["retx_pct"]), "rto": int(j["rto"]), "engine_s": float(j["run_seconds"]),
            "events": int(j["events"])}


def hoplab_base(profile: str, routing: str, a: argparse.Namespace, *, max_cwnd: int, rts_all: bool) -> dict[str, Any]:
    """The settings every scenario of a profile shares (topology, flows and duration apart)."""
    tcp = dict(TCP, max_cwnd=max_cwnd, mss_bytes=a.mss)
    mac: dict[str, Any] = {"data_rate_mbps": 2.0, "basic_rate_mbps": 1.0}
    if profile == "ns2":
        mac["rts_threshold_bytes"] = 0 if rts_all else 300
    else:
        mac["rts_threshold_bytes"] = 0 if rts_all else 100
    sc: dict[str, Any] = {"tcp": tcp, "mac": mac}
    if profile == "ns2":
        sc["compat"] = "ns2"
    rt = ROUTING[routing][0 if profile == "standard" else 1]
    if rt:
        sc["routing"] = json.loads(json.dumps(rt))
    return sc


def hoplab_scenario(profile: str, kind: str, routing: str, a: argparse.Namespace, *, hops: int = 0,
                    max_cwnd: int = 0, flows: list[tuple[int, int, float]], rts_all: bool) -> dict[str, Any]:
    base = hoplab_base(profile, routing, a, max_cwnd=max_cwnd, rts_all=rts_all)
    fl = [S.ftp(s, d, start=t) for s, d, t in flows]
    if kind == "chain":
        sc = S.chain(hops, duration=a.duration, tcp=base["tcp"], mac=base["mac"], flows=fl, timeseries=False)
    else:
        sc = S.grid(7, 7, duration=a.duration, tcp=base["tcp"], mac=base["mac"], flows=fl, timeseries=False)
    sc.update({k: v for k, v in base.items() if k not in ("tcp", "mac")})
    return sc


def ns2_args(routing: str, seed: int, a: argparse.Namespace, *, max_cwnd: int = 0, rts_all: bool,
             extra: list[str]) -> list[str]:
    # the order of the peer's cache keys
    mss = ["-mss", str(a.mss)] if a.mss != 1460 else []
    # ns-2's seeds 1, 2, 3... draw in step (export.spread_seed): replicate N runs ns-2 seeded
    # with spread_seed(N), hoplab with N
    return ["-routing", ROUTING[routing][2], "-seed", str(spread_seed(seed)), "-duration", f"{a.duration:g}",
            "-maxcwnd", str(max_cwnd), "-rts", "0" if rts_all else "300", *mss, *extra]


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kbps": mean(r["kbps"] for r in runs), "per_seed": [round(r["kbps"], 1) for r in runs],
            "flows": [round(mean(x["flows"][i] for x in runs), 1) for i in range(len(runs[0]["flows"]))],
            "retx_pct": mean(r["retx_pct"] for r in runs), "rto": mean(r["rto"] for r in runs),
            "engine_s": mean(r["engine_s"] for r in runs), "events": mean(r["events"] for r in runs)}


class Comparison:
    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        self.cache = Ns2Cache(a.cache, a.fresh)
        self.rows: list[dict[str, Any]] = []
        self.rwp_runs: dict[str, list[dict[str, Any]]] = {}
        self.sink = a.jsonl.open("a") if a.jsonl else None

    def case(self, label: str, kind: str, routing: str, *, hops: int = 0, max_cwnd: int = 0,
             flows: list[tuple[int, int, float]], rts_all: bool, ns2_extra: list[str]) -> None:
        a = self.a
        script = "chain.tcl" if kind == "chain" else "grid.tcl"
        res: dict[str, list[dict[str, Any]]] = {"ns2-2.35": []}
        for seed in a.seed_list:
            res["ns2-2.35"].append(ns2_result(self.cache.run(
                script, ns2_args(routing, seed, a, max_cwnd=max_cwnd, rts_all=rts_all, extra=ns2_extra))))
            for p in a.profile_list:
                sc = hoplab_scenario(p, kind, routing, a, hops=hops, max_cwnd=max_cwnd, flows=flows, rts_all=rts_all)
                res.setdefault(p, []).append(hoplab_result(sc, seed))
        self.add(label, routing, {"hops": hops, "max_cwnd": max_cwnd}, res)

    def add(self, label: str, routing: str, extra: dict[str, Any], res: dict[str, list[dict[str, Any]]]) -> None:
        row = {"label": label, "routing": routing, "mss": self.a.mss, "seeds": self.a.seed_list, **extra}
        row.update({k: summarise(v) for k, v in res.items()})
        self.rows.append(row)
        if self.sink:
            self.sink.write(json.dumps(row) + "\n")
            self.sink.flush()
        print_row(row, self.a.profile_list)

    def rwp(self, seed: int) -> None:
        """150-node random waypoint: ns-2 draws the movement (rwp.tcl -movement tcl) and the
        flows from the seed; hoplab runs the same movement file and flows."""
        a = self.a
        SCEN.mkdir(parents=True, exist_ok=True)
        args = ["-nodes", "150", "-flows", "32", "-duration", "200", "-movement", "tcl", "-seed", str(seed)]
        key_args = args + ["-scenDir", "SCEN"]
        cmd = " ".join(["rwp.tcl", *key_args])
        gz = SCEN / f"rwp-150-seed{seed}.tcl.gz"
        if cmd not in self.cache.runs or not gz.exists():
            with tempfile.TemporaryDirectory() as tmp:
                self.cache.runs.pop(cmd, None)
                j = self.cache.run("rwp.tcl", args + ["-scenDir", tmp])
                # keep the run under its directory-free key, and its movement file
                self.cache.runs[cmd] = j
                with self.cache.path.open("a") as f:
                    f.write(json.dumps({"cmd": cmd, "out": j}) + "\n")
                gz.write_bytes(gzip.compress(Path(j["scen"]).read_bytes(), mtime=0))
        j = self.cache.runs[cmd]
        with tempfile.NamedTemporaryFile("wb", suffix=".tcl") as f:
            f.write(gzip.decompress(gz.read_bytes()))
            f.flush()
            mv = read_movement(f.name, nodes=150)
        res: dict[str, list[dict[str, Any]]] = {"ns2-2.35": [ns2_result(j)]}
        flows = [(int(x["src"]), int(x["dst"]), float(x["start"])) for x in j["flows"]]
        for p in a.profile_list:
            base = hoplab_base(p, "aodv", a, max_cwnd=0, rts_all=False)
            base.update({"name": "rwp150", "duration_s": 200.0, "output": {"timeseries": False},
                         "flows": [S.ftp(s, d, start=t) for s, d, t in flows]})
            sc, _ = merge_movement(base, mv)
            res[p] = [hoplab_result(sc, seed)]
        self.add(f"rwp 150 nodes AODV seed {seed}", "aodv", {"seed": seed}, res)
        for k, v in res.items():
            self.rwp_runs.setdefault(k, []).extend(v)


def print_header(profiles: list[str]) -> None:
    cols = [f"hoplab {p}" for p in profiles] + ["ns-2.35"] + [f"{p}/ns-2" for p in profiles]
    cols += ["retx % " + " / ".join(profiles + ["ns-2"]), "RTOs " + " / ".join(profiles + ["ns-2"]),
             "per flow " + " / ".join(profiles + ["ns-2"])]
    print("| case | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * (2 * len(profiles) + 1) + "---|---|---|", flush=True)


def print_row(r: dict[str, Any], profiles: list[str]) -> None:
    n = r["ns2-2.35"]
    cells = [f"{r[p]['kbps']:.1f}" for p in profiles] + [f"{n['kbps']:.1f}"]
    cells += [f"**{r[p]['kbps'] / n['kbps']:.2f}**" if abs(r[p]['kbps'] / n['kbps'] - 1) > 0.05
              else f"{r[p]['kbps'] / n['kbps']:.2f}" for p in profiles]
    who = profiles + ["ns2-2.35"]
    cells.append(" / ".join(f"{r[p]['retx_pct']:.2f}" for p in who))
    cells.append(" / ".join(f"{r[p]['rto']:.1f}" for p in who))
    if 1 < len(n["flows"]) <= 4:
        cells.append(" / ".join(" + ".join(f"{x:.0f}" for x in r[p]["flows"]) for p in who))
    else:
        cells.append("")
    print(f"| {r['label']} | " + " | ".join(cells) + " |", flush=True)


def int_list(s: str) -> list[int]:
    if "-" in s and "," not in s:
        lo, hi = s.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in s.split(",")]


def experiments(c: Comparison, name: str) -> Iterator[None]:
    a = c.a
    if name in ("chain-static", "chain-aodv"):
        routing = "static" if name == "chain-static" else "aodv"
        for h in a.hop_list:
            yield c.case(f"{routing} {h} hop{'s' if h > 1 else ''}", "chain", routing, hops=h,
                         flows=[(0, h, 1.0)], rts_all=False, ns2_extra=["-hops", str(h)])
    elif name == "window":
        for h in [h for h in a.hop_list if h <= 4]:
            for w in (2, 3, 4, 0):
                yield c.case(f"AODV {h} hop{'s' if h > 1 else ''} W={w or 'unclamped'}", "chain", "aodv", hops=h,
                             max_cwnd=w, flows=[(0, h, 1.0)], rts_all=False, ns2_extra=["-hops", str(h)])
    elif name == "dsr":
        for routing in ("static", "dsr"):
            yield c.case(f"6-hop chain, 2 flows, {routing}, {a.mss} B", "chain", routing, hops=6,
                         flows=[(0, 6, 0.0), (0, 6, 0.0)], rts_all=True,
                         ns2_extra=["-hops", "6", "-nflows", "2", "-start", "0"])
        for routing in ("static", "dsr"):
            yield c.case(f"7x7 grid row, 2 flows, {routing}, {a.mss} B", "grid", routing,
                         flows=[(21, 27, 0.0), (21, 27, 0.0)], rts_all=True,
                         ns2_extra=["-pattern", "row", "-start", "0", "-stagger", "0"])
    elif name == "grid":
        for routing in ("static", "dsr"):
            yield c.case(f"7x7 grid cross, {routing}", "grid", routing, flows=[(21, 27, 1.0), (3, 45, 1.5)],
                         rts_all=False, ns2_extra=["-pattern", "cross", "-start", "1", "-stagger", "0.5"])
    elif name == "rwp":
        seeds = [s for s in a.seed_list if s <= 3]
        for seed in seeds:
            yield c.rwp(seed)
        if len(seeds) > 1:
            yield c.add(f"rwp 150 nodes AODV, mean of seeds {seeds[0]}-{seeds[-1]}", "aodv", {}, c.rwp_runs)


ALL = ["chain-static", "chain-aodv", "window", "dsr", "grid", "rwp"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment", choices=ALL + ["all"])
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--hops", default="1-8")
    ap.add_argument("--profiles", default="standard,ns2")
    ap.add_argument("--duration", type=float, default=120.0)
    ap.add_argument("--mss", type=int, default=1460, help="TCP payload bytes on both sides (ns-2's default is 1000)")
    ap.add_argument("--jsonl", type=Path, help="append every row (means, per seed) to this file")
    ap.add_argument("--cache", type=Path, default=HERE / "ns2_runs.jsonl")
    ap.add_argument("--fresh", action="store_true", help="ignore the cache (re-run ns-2)")
    a = ap.parse_args()
    a.seed_list = int_list(a.seeds)
    a.hop_list = int_list(a.hops)
    a.profile_list = [p for p in a.profiles.split(",") if p]
    bad = [p for p in a.profile_list if p not in PROFILES]
    if bad:
        ap.error(f"unknown profile {bad[0]!r} (known: {', '.join(PROFILES)})")
    c = Comparison(a)
    for name in ALL if a.experiment == "all" else [a.experiment]:
        dur = "200 s, seeds 1-3" if name == "rwp" else f"{a.duration:g} s, seeds {a.seeds}"
        print(f"\n### {name}: {dur}, MSS {a.mss} B\n")
        print_header(a.profile_list)
        for _ in experiments(c, name):
            pass
    if c.sink:
        c.sink.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
