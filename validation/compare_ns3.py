#!/usr/bin/env python3
"""Run hoplab scenarios and their ns-3 counterparts with matched settings, and
print both side by side (docs/VALIDATION.md records the tables).

    ./hoplab --help >/dev/null            # once: builds .venv and the extension
    .venv/bin/python validation/compare_ns3.py [--peer PEER_DIR] [--set chain|grid|all]
        [--hops 1-8] [--routing static,aodv,olsr] [--seeds 1,2,3] [--duration 120]
        [--tcp ns3|ns2] [--sack] [--jsonl OUT.jsonl]

PEER_DIR is the folder holding the ns-3 peer's programs (`chain`, `grid`),
built against the ns-3.44 wheel by the peer's `setup.sh`, which prints that
folder on its last line. The ns-3 runs are slow (1-5 s each for a chain,
15 s for the grid) and are never part of the test suite. Their results are
kept by command line in validation/ns3_runs.jsonl and reused, so the
comparison can be re-run after a change to hoplab without ns-3 (and without
--peer, for the runs the file holds).

What is matched, and how (the peer's README lists its settings):
- topology, radio and MAC: the peer's defaults are ns-2's (250 m / 550 m,
  2 Mbit/s data, 1 Mbit/s basic rate, RTS/CTS above 100 B, 50-packet queue)
  and so are hoplab's; ns-3 runs with `--rxModel=ns2` (ns-2's reception:
  lock on any sensed frame, CPThresh capture, EIFS after undecodable frames).
- TCP: NewReno, 1460 B, flows from 1 s; both windows end at 65535 bytes
  (44 segments; ns-3 has no window scaling, hoplab's receive_window).
  `--tcp ns3` (default) gives hoplab ns-3's timers: minimum RTO 1 s, delayed
  ACK timer 200 ms, initial window 2 segments (ns-3 livelocks on spurious
  timeouts with ns-2's 200 ms minimum RTO, peer README problem 2).
  `--tcp ns2` gives both sides ns-2's 200 ms / 100 ms and hoplab's RFC 5681
  initial window of 3.
- routing: static = shortest paths on both; aodv = hoplab's `rfc3561` preset
  (link-layer detection) against ns-3 AODV with dynamic ARP (`--staticArp=0`,
  the only setup in which ns-3's link-layer feedback works); aodv_hello =
  hoplab's `aodv-uu` (HELLO detection) against ns-3 AODV with its pre-filled
  ARP cache (HELLO only, peer README problem 5); olsr = hoplab's default
  OLSR preset against ns-3's OLSR helper defaults.
- grid: 7x7, 200 m; row 3 (21 -> 27) from 1.0 s and column 3 (3 -> 45) from
  1.5 s, as the peer's `grid --pattern=cross`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from statistics import mean
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import hoplab  # noqa: E402
from hoplab import scenario as S  # noqa: E402

TCP_PROFILES: dict[str, dict[str, Any]] = {
    # hoplab fields; the ns-3 flags follow from them.
    "ns3": {"min_rto_s": 1.0, "delack_timeout_s": 0.2, "initial_cwnd": 2},
    "ns2": {"min_rto_s": 0.2, "delack_timeout_s": 0.1, "initial_cwnd": 3},
}

ROUTING: dict[str, tuple[dict[str, Any] | None, list[str]]] = {
    "static": (None, ["--routing=static"]),
    "aodv": ({"protocol": "aodv", "preset": "rfc3561"}, ["--routing=aodv", "--staticArp=0"]),
    "aodv_hello": ({"protocol": "aodv", "preset": "aodv-uu"}, ["--routing=aodv", "--staticArp=1"]),
    "olsr": ({"protocol": "olsr"}, ["--routing=olsr"]),
}

GRID_FLOWS = ((21, 27, 1.0), (3, 45, 1.5))


def hoplab_run(sc: dict[str, Any], seed: int) -> dict[str, Any]:
    r = hoplab.run(sc, seed=seed)
    f = r.flows
    d = r.drops
    ret = d[d.reason == "RET"] if len(d) else d
    return {
        "sim": "hoplab",
        "kbps": float(f.throughput_kbps.sum()),
        "flows_kbps": [round(float(x), 1) for x in f.throughput_kbps],
        "retx_pct": 100.0 * float(f.retransmissions.sum()) / max(1, float(f.packets_sent.sum())),
        "rtos": int(f.timeouts.sum()),
        "mac_retry_drops": int(ret["count"].sum()) if len(ret) else 0,
        "mac_retry_drops_ack": int(ret[ret.packet_type == "ack"]["count"].sum()) if len(ret) else 0,
        "wall_s": float(r.info["wall_s"]),
    }


class Ns3Cache:
    """ns-3's results by command line, kept in a JSON-lines file so that the
    comparison can be re-printed (and hoplab re-run after a model change)
    without re-running ns-3, whose results do not change."""

    def __init__(self, path: Path | None, fresh: bool) -> None:
        self.path = path
        self.runs: dict[str, dict[str, Any]] = {}
        if path and path.exists() and not fresh:
            for line in path.read_text().splitlines():
                if line.strip():
                    rec = json.loads(line)
                    self.runs[rec["cmd"]] = rec["out"]

    def run(self, peer: Path, prog: str, args: list[str]) -> dict[str, Any]:
        cmd = " ".join([prog, *args])
        if cmd not in self.runs:
            out = subprocess.run([str(peer / prog), *args], check=True, capture_output=True, text=True).stdout
            self.runs[cmd] = json.loads(out.strip().splitlines()[-1])
            if self.path:
                with self.path.open("a") as f:
                    f.write(json.dumps({"cmd": cmd, "out": self.runs[cmd]}) + "\n")
        return self.runs[cmd]


def ns3_result(j: dict[str, Any]) -> dict[str, Any]:
    return {
        "sim": "ns-3",
        "kbps": float(j["sum_flow_goodput_kbps"]),
        "flows_kbps": [round(float(f["goodput_kbps"]), 1) for f in j["flows"]],
        "retx_pct": float(j["retx_pct"]),
        "rtos": int(j["rto"]),
        "mac_retry_drops": int(j["mac_retry_drops"]),
        "mac_retry_drops_ack": None,  # the peer does not split them by type
        "wall_s": float(j["wall_seconds"]),
    }


def tcp_fields(a: argparse.Namespace) -> dict[str, Any]:
    t = dict(S.DEFAULT_TCP, max_cwnd=a.max_cwnd, **TCP_PROFILES[a.tcp])
    if a.sack:
        t["variant"] = "sack"
    return t


def ns3_tcp_flags(a: argparse.Namespace, seed: int) -> list[str]:
    p = TCP_PROFILES[a.tcp]
    flags = [f"--minRto={p['min_rto_s']}", f"--delAckTimeout={p['delack_timeout_s']}", f"--initCwnd={p['initial_cwnd']}",
             f"--maxCwnd={a.max_cwnd}", "--rxModel=ns2", f"--seed={seed}", f"--duration={a.duration}"]
    # ns-3's SACK: RFC 6675 scoreboard in TcpSocketBase (with its default
    # PRR recovery); hoplab's: RFC 6675 pipe recovery (docs/ARCHITECTURE.md).
    return flags + ["--sack=1"] if a.sack else flags


def chain_pair(hops: int, routing: str, seed: int, a: argparse.Namespace) -> tuple[dict, list[str]]:
    sc = S.chain(hops, duration=a.duration, seed=seed, tcp=tcp_fields(a),
                 flows=[S.ftp(0, hops, start=1.0)], timeseries=False)
    if ROUTING[routing][0]:
        sc["routing"] = dict(ROUTING[routing][0])
    return sc, ["--start=1", f"--hops={hops}", *ROUTING[routing][1], *ns3_tcp_flags(a, seed)]


def grid_pair(routing: str, seed: int, a: argparse.Namespace) -> tuple[dict, list[str]]:
    flows = [S.ftp(s, d, start=t) for s, d, t in GRID_FLOWS]
    sc = S.grid(7, 7, duration=a.duration, seed=seed, tcp=tcp_fields(a), flows=flows, timeseries=False)
    if ROUTING[routing][0]:
        sc["routing"] = dict(ROUTING[routing][0])
    return sc, ["--pattern=cross", "--start=1", "--stagger=0.5", *ROUTING[routing][1],
                *ns3_tcp_flags(a, seed)]


def hop_list(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(",")]


def fmt(x: float | None, nd: int = 1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", type=Path, help="folder with the ns-3 peer's chain and grid programs "
                    "(without it, only runs already in the cache can be compared)")
    ap.add_argument("--set", default="all", choices=["chain", "grid", "all"])
    ap.add_argument("--hops", default="1-8", help="chain lengths: 1-8 or 1,3,4")
    ap.add_argument("--routing", default="static,aodv,olsr", help=f"comma list of {', '.join(ROUTING)}")
    ap.add_argument("--grid-routing", default="static", help="routing for the grid (comma list)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--duration", type=float, default=120.0)
    ap.add_argument("--max-cwnd", type=int, default=0, help="window clamp in segments on both sides (0 = none)")
    ap.add_argument("--tcp", default="ns3", choices=sorted(TCP_PROFILES), help="whose TCP timers both sides use")
    ap.add_argument("--sack", action="store_true", help="SACK on both sides (hoplab variant sack, ns-3 --sack=1)")
    ap.add_argument("--jsonl", type=Path, help="append every run as one JSON line")
    ap.add_argument("--cache", type=Path, default=Path(__file__).with_name("ns3_runs.jsonl"),
                    help="ns-3 results by command line (default validation/ns3_runs.jsonl); reused when present")
    ap.add_argument("--fresh", action="store_true", help="re-run ns-3 even where the cache has the run")
    a = ap.parse_args()
    cache = Ns3Cache(a.cache, a.fresh)
    for prog in ("chain", "grid"):
        if a.peer is not None and not (a.peer / prog).exists():
            print(f"compare_ns3: error: --peer {a.peer}: no '{prog}' program there (run the peer's setup.sh)", file=sys.stderr)
            return 2
    routings = [r for r in a.routing.split(",") if r]
    for r in routings + a.grid_routing.split(","):
        if r not in ROUTING:
            print(f"compare_ns3: error: unknown routing {r!r} (one of {', '.join(ROUTING)})", file=sys.stderr)
            return 2
    seeds = [int(s) for s in a.seeds.split(",")]
    cases: list[tuple[str, str, int | None]] = []
    if a.set in ("chain", "all"):
        cases += [("chain", r, h) for r in routings for h in hop_list(a.hops)]
    if a.set in ("grid", "all"):
        cases += [("grid", r, None) for r in a.grid_routing.split(",")]

    print(f"TCP{' SACK' if a.sack else ''} timers: {a.tcp} ({TCP_PROFILES[a.tcp]}), {a.duration:g} s, seeds {seeds}, max_cwnd {a.max_cwnd or 'none (64 KB window)'}\n")
    print("| scenario | routing | hoplab kbit/s | ns-3 kbit/s | hoplab/ns-3 | per flow hoplab / ns-3 | retx % hoplab / ns-3 "
          "| RTOs hoplab / ns-3 | MAC retry drops hoplab (ACK) / ns-3 |")
    print("|---|---|---:|---:|---:|---|---|---|---|")
    sink = a.jsonl.open("a") if a.jsonl else None
    for kind, routing, hops in cases:
        runs: dict[str, list[dict]] = {"hoplab": [], "ns-3": []}
        for seed in seeds:
            if kind == "chain":
                sc, args = chain_pair(hops, routing, seed, a)
                prog = "chain"
            else:
                sc, args = grid_pair(routing, seed, a)
                prog = "grid"
            if a.peer is None and " ".join([prog, *args]) not in cache.runs:
                print(f"compare_ns3: error: no --peer, and the cache has no run of `{prog} {' '.join(args)}`", file=sys.stderr)
                return 2
            for res in (hoplab_run(sc, seed), ns3_result(cache.run(a.peer, prog, args))):
                res.update(scenario=kind, hops=hops, routing=routing, seed=seed, tcp=a.tcp, max_cwnd=a.max_cwnd,
                           duration=a.duration)
                runs[res["sim"]].append(res)
                if sink:
                    sink.write(json.dumps(res) + "\n")
                    sink.flush()
        h, n = runs["hoplab"], runs["ns-3"]
        hk, nk = mean(r["kbps"] for r in h), mean(r["kbps"] for r in n)
        name = f"chain {hops} hop{'s' if hops != 1 else ''}" if kind == "chain" else "grid 7x7 cross"
        per_flow = ""
        if kind == "grid":
            per_flow = "; ".join(f"{'+'.join(map(str, x['flows_kbps']))} / {'+'.join(map(str, y['flows_kbps']))}"
                                 for x, y in zip(h, n))
        print(f"| {name} | {routing} | {hk:.1f} | {nk:.1f} | {hk / nk if nk else float('nan'):.2f} | {per_flow} "
              f"| {fmt(mean(r['retx_pct'] for r in h), 2)} / {fmt(mean(r['retx_pct'] for r in n), 2)} "
              f"| {fmt(mean(r['rtos'] for r in h))} / {fmt(mean(r['rtos'] for r in n))} "
              f"| {fmt(mean(r['mac_retry_drops'] for r in h), 0)} ({fmt(mean(r['mac_retry_drops_ack'] for r in h), 0)}) "
              f"/ {fmt(mean(r['mac_retry_drops'] for r in n), 0)} |", flush=True)
    if sink:
        sink.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
