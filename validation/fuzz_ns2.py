#!/usr/bin/env python3
"""A randomized corpus of scenarios run in hoplab (compat = "ns2") and in
ns-2.35 through `hoplab crosscheck`'s machinery, seed by seed: how far the
ns2 reading holds away from the cases it was measured on, and, where it
does not, the first place in the two traces where the runs part.

    .venv/bin/python validation/fuzz_ns2.py [--n 100] [--seeds 1-10] [--draw 2027] [--only K[,K...]]
        [--jobs 1] [--out FILE.md] [--list] [--save-corpus] [--stored] [--fresh-ns2] [--keep-traces]

The corpus is drawn from a fixed seed (`--draw`, default DRAW below; the
draw of scenario K depends only on the seed and K, and is committed in
validation/fuzz_corpus.json by --save-corpus): chains, grids, nodes placed
at random and random-waypoint networks of 10-100 nodes (0-20 m/s), 1-6 FTP
or CBR flows, TCP Tahoe / Reno / NewReno / SACK, sinks with and without
delayed ACKs, window clamps (tcp.max_cwnd), RTS thresholds, AODV / DSR /
DSDV, 1 or 2 Mbit/s data, 60-150 s. Only what ns-2.35 can express is
drawn: hoplab's static routing has no ns-2 counterpart (the exporter
refuses it), so it is left out; a refusal that appears all the same is
recorded in the table.

Every scenario runs for each seed in both simulators (`hoplab.crosscheck`:
the same old-format trace at agent and router levels, one reader; ns-2's
run N is seeded with export.spread_seed(N), since its seeds 1, 2, 3 draw in
step). Ten seeds by default: with three, the seed-to-seed spread of a
random network alone puts a third of faithful scenarios outside ±5 %. ns-2's
results are kept by command line in validation/fuzz_ns2_runs.jsonl, as
validation/compare_ns2.py keeps its runs (`Ns2Cache`); the command is
`ns run.tcl` on the exported script, keyed by the script's hash, so a re-run
costs only hoplab's time unless hoplab draws different movement. Results per
scenario are appended to out/fuzz_ns2/results.jsonl as they finish, under
the hoplab build that made them: an interrupted run resumes, and a rebuilt
extension re-runs hoplab's side only (--stored reports what is stored,
whatever build made it). Each scenario runs in a worker process; an ns-2 run
that outlasts NS2_TIMEOUT_S is kept as failed and its seed left out on both
sides (ns-2.35's DSDV can loop for ever).

Printed (and with --out written as markdown): per scenario, hoplab / ns-2 of
the seed means of packets delivered (all flows), TCP retransmissions,
timeouts and routing packets (sent + forwarded); whether the two
simulators' seed ranges of delivered packets overlap, and the p of a paired
t test on the per-seed differences (seed N runs the same placement and
movement on both sides) and the 95 % interval of the ratio (`ratio_ci`);
the distribution of each ratio; and for every
scenario outside ±5 % the first divergences between the traces (see
`first_divergences`).
Needs `ns` (apt-get install ns2) for ns-2 runs not in the cache.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import hashlib
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Mapping

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(HERE))

from hoplab import crosscheck as cc  # noqa: E402
from hoplab.formats.ns2.trace_metrics import ROUTING_TYPES, parse_line  # noqa: E402

from compare_ns2 import Ns2Cache, int_list  # noqa: E402
from crosscheck_random import describe as _describe  # noqa: E402

DRAW = 2027
CORPUS = HERE / "fuzz_corpus.json"
NS2_CACHE = HERE / "fuzz_ns2_runs.jsonl"
STATE = ROOT / "out" / "fuzz_ns2"
# A seed of these scenarios takes ns-2 seconds; some scripts never end (ns-2.35's
# DSDV can loop in DSDV_Agent::processUpdate), and crosscheck's limit is an hour.
NS2_TIMEOUT_S = 300.0
# Part of every result's key: bump it when what is measured from a trace
# changes, so that stored results are not mixed with new ones.
MEASURE_VERSION = 1

# Seed N of both simulators runs the same placement and movement (ns-2 gets
# hoplab's), so runs are compared seed by seed. First divergence: a kind of
# event diverges at the first second at which, in every seed, the cumulative
# counts of the two simulators differ by more than ABS_TOL events and REL_TOL
# of the larger, all in the same direction, for PERSIST_S seconds in a row
# (or until the end of the run).
ABS_TOL = 5
REL_TOL = 0.10
PERSIST_S = 3
# Kinds one side writes and the other does not: hoplab logs the packets left
# in its queues when the run stops (`IFQ END`), ns-2 only when a script resets
# its nodes, which the exported one does not.
IGNORED_KINDS = frozenset({"drop IFQ END"})
METRICS = [("delivered", "delivered"), ("retransmissions", "TCP retransmissions"), ("timeouts", "TCP timeouts"),
           ("routing_packets", "routing packets")]


# --------------------------------------------------------------------------- the draw

def draw(draw_seed: int, k: int) -> dict[str, Any]:
    """Scenario ``k`` of the corpus drawn from ``draw_seed``; a string seed
    so that scenario k never depends on how many were drawn before it."""
    r = random.Random(f"fuzz_ns2:{draw_seed}:{k}")
    family = r.choices(["chain", "grid", "random", "waypoint"], weights=[25, 20, 25, 30])[0]
    proto = r.choice(["aodv", "dsr", "dsdv"])
    sc: dict[str, Any] = {"name": f"fuzz-{k}"}
    if family == "chain":
        n = r.randint(3, 11)
        sc["topology"] = {"kind": "chain", "nodes": n, "spacing_m": r.choice([150.0, 200.0, 240.0])}
    elif family == "grid":
        rows, cols = r.randint(3, 10), r.randint(3, 10)
        n = rows * cols
        sc["topology"] = {"kind": "grid", "rows": rows, "cols": cols, "spacing_m": r.choice([180.0, 200.0, 230.0])}
    else:
        # Large networks are the minority: they cost most, in ns-2 above all.
        n = r.randint(10, 50) if r.random() < 0.7 else r.randint(51, 100)
        # An area for about `degree` neighbours within the 250 m range, square or 3:1.
        degree = r.uniform(6.0, 12.0)
        area = n * math.pi * 250.0 ** 2 / degree
        aspect = r.choice([1.0, 1.0, 3.0])
        sc["topology"] = {"kind": "random", "nodes": n, "width_m": float(round(math.sqrt(area * aspect))),
                          "height_m": float(round(math.sqrt(area / aspect)))}
        if family == "waypoint":
            vmax = float(r.choice([1, 2, 5, 10, 15, 20]))
            sc["mobility"] = {"model": "waypoint", "speed_min_mps": r.choice([0.0, 0.0, round(vmax / 2, 3)]),
                              "speed_max_mps": vmax, "pause_s": float(r.choice([0, 0, 5, 30]))}
    sc["duration_s"] = float(r.choice([60, 90, 120, 150]))
    sc["routing"] = {"protocol": proto}
    data_rate = r.choice([1.0, 2.0, 2.0])
    sc["mac"] = {"data_rate_mbps": data_rate, "basic_rate_mbps": 1.0, "rts_threshold_bytes": r.choice([0, 300, 3000])}
    sc["tcp"] = {"variant": r.choice(["tahoe", "reno", "new_reno", "sack"]), "mss_bytes": r.choice([512, 1000, 1460]),
                 "delayed_ack": r.random() < 0.5, "max_cwnd": r.choice([0, 0, 0, 1, 2, 4, 8, 16, 32])}
    flows: list[dict[str, Any]] = []
    pairs: set[tuple[int, int]] = set()
    for i in range(r.randint(1, 6)):
        if family == "chain" and i == 0 and r.random() < 0.6:
            a, b = (0, n - 1) if r.random() < 0.5 else (n - 1, 0)
        else:
            a, b = r.sample(range(n), 2)
        if (a, b) in pairs:  # one flow per ordered pair: the traces' flows are told apart by their ends
            continue
        pairs.add((a, b))
        start = round(r.uniform(1.0, 10.0), 3)
        if r.random() < 0.7:
            flows.append({"kind": "ftp", "src": a, "dst": b, "start_s": start})
        else:
            flows.append({"kind": "cbr", "src": a, "dst": b, "start_s": start,
                          "rate_kbps": float(r.choice([16, 32, 64, 128, 256])),
                          "packet_size_bytes": r.choice([256, 512, 1000])})
    sc["flows"] = flows
    return sc


def corpus(n: int, draw_seed: int) -> list[dict[str, Any]]:
    return [draw(draw_seed, k) for k in range(n)]


def describe(sc: Mapping[str, Any]) -> str:
    """crosscheck_random's description, with what this corpus varies besides."""
    base = _describe(sc)
    extra = []
    mob = sc.get("mobility")
    if mob:
        lo, hi = mob["speed_min_mps"], mob["speed_max_mps"]
        extra.append(f"waypoint {lo:g}-{hi:g} m/s, pause {mob['pause_s']:g} s")
    t = sc["tcp"]
    extra.append("DelAck" if t["delayed_ack"] else "ACK every")
    if t["max_cwnd"]:
        extra.append(f"W={t['max_cwnd']}")
    extra.append(f"{sc['mac']['data_rate_mbps']:g} Mb/s")
    head, _, dur = base.rpartition(", ")
    return f"{head}, {', '.join(extra)}, {dur}"


def scenario_key(sc: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(sc, sort_keys=True).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- one scenario (a worker process)

def build_id() -> str:
    """What makes hoplab's side of the numbers: the engine, how it is run,
    and the ns2 reading, exporter and trace reader (Python); other parts of
    the package do not count, so that work on them keeps stored results."""
    from hoplab import _core

    pkg = ROOT / "python" / "hoplab"
    h = hashlib.sha256(Path(_core.__file__).read_bytes())
    for p in [pkg / "crosscheck.py", pkg / "_run.py", *sorted((pkg / "formats" / "ns2").rglob("*.py"))]:
        h.update(p.read_bytes())
    h.update(f"measure {MEASURE_VERSION}".encode())
    return h.hexdigest()[:12]


class ScriptCache(Ns2Cache):
    """compare_ns2's ns-2 cache (records {"cmd", "out"}, one a line), for
    scripts run as `ns run.tcl`: appends are locked, since two workers may
    write at once."""

    def put(self, cmd: str, out: dict[str, Any]) -> None:
        self.runs[cmd] = out
        append_line(self.path, {"cmd": cmd, "out": out})


def append_line(path: Path, rec: Mapping[str, Any]) -> None:
    """One JSON line appended in one write(2) under a lock: an interrupt
    does not cut it short (Ns2Cache reads every line as JSON), and two
    workers do not interleave."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(rec) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def ns2_command(script: str) -> str:
    """The cache key: ns-2's command line, with the script it runs named by
    its hash (run.tcl is cc's report hook and `source script.tcl`)."""
    digest = hashlib.sha256((cc._REPORT + "\0" + script).encode()).hexdigest()[:24]
    return f"ns run.tcl  # crosscheck script.tcl sha256:{digest}"


def _routing_kind(ev_ptype: str, line_tail: list[str]) -> str:
    """A routing packet's kind: its type, and for AODV and DSR what it is."""
    if ev_ptype == "AODV" and line_tail and line_tail[-1].startswith("("):
        return f"routing AODV {line_tail[-1].strip('()')}"
    if ev_ptype == "DSR":
        # format_dsr: "n [rreq seq] [rrep ...] [rerr ...]": the first number of each group is its flag
        flags = re.findall(r"\[(\d+)", " ".join(line_tail))
        names = [name for name, f in zip(("REQUEST", "REPLY", "ERROR"), flags[1:4]) if f == "1"]
        return f"routing DSR {'+'.join(names) or 'source route'}"
    return f"routing {ev_ptype}"


def timeline(trace: Path, duration_s: float) -> dict[str, list[int]]:
    """Per kind of event, its count in each second of the run: data sent
    and received at the agents (per flow, by its ends), routing packets
    sent + forwarded (per type, AODV's and DSR's by what they carry), and
    drops (per level and reason)."""
    nb = int(math.ceil(duration_s)) + 1
    out: dict[str, list[int]] = {}

    def add(kind: str, t: float) -> None:
        b = out.get(kind)
        if b is None:
            b = out[kind] = [0] * nb
        b[min(max(int(t), 0), nb - 1)] += 1

    with open(trace, encoding="latin-1") as fh:
        for line in fh:
            t = line.split()
            # Most lines of these traces are router receptions and relays of data, which no kind
            # counts: skip them by position (old format) before the reader parses the line.
            if (len(t) > 7 and t[1] != "-t" and t[0] != "D" and t[3] == "RTR"
                    and (t[0] == "r" or t[6] not in ROUTING_TYPES)):
                continue
            ev = parse_line(line)
            if ev is None:
                continue
            if ev.op == "D":
                add(f"drop {ev.level} {ev.reason}", ev.time)
            elif ev.level == "AGT" and ev.src is not None and ev.ptype in ("tcp", "cbr"):
                if ev.op == "s" and ev.node == ev.src:
                    add(f"sent {ev.ptype} {ev.src}->{ev.dst}", ev.time)
                elif ev.op == "r" and ev.node == ev.dst:
                    add(f"received {ev.ptype} {ev.src}->{ev.dst}", ev.time)
            elif ev.level == "RTR" and ev.op in ("s", "f") and ev.ptype in ROUTING_TYPES:
                # sent + forwarded, as crosscheck counts them: whether a relayed AODV reply is a send or a
                # forward has differed between the two simulators' traces
                tail = t[t.index("-------") + 5:] if "-------" in t else []
                add(_routing_kind(ev.ptype, tail), ev.time)
    for b in out.values():  # trailing zeros cost space in the cache and say nothing
        while b and b[-1] == 0:
            b.pop()
    return dict(sorted(out.items()))


def measure(trace: Path, flows: list[Mapping[str, Any]], timeouts: Mapping[int, float],
            writer: str) -> dict[str, float]:
    """One run's figures, as crosscheck measures them (`cc._measure`), with
    the totals it does not give: TCP retransmissions and timeouts over the
    flows. Keys are "row\\tmetric"."""
    side = cc.Side(writer)
    cc._measure(side, trace, flows, timeouts, writer)
    vals = {f"{row}\t{metric}": v[0] for (row, metric), v in side.values.items()}
    for metric in ("retransmissions", "timeouts"):
        per_flow = [v[0] for (row, m), v in side.values.items() if row.startswith("flow ") and m == metric
                    and math.isfinite(v[0])]
        vals[f"total\t{metric}"] = float(sum(per_flow))
    return vals


def prepared(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario as `cc.crosscheck` runs it: the ns2 reading, and the
    trace the exported script writes."""
    from hoplab.formats.ns2.script.export import ns2_reading

    sc = ns2_reading(scenario)
    sc["trace"] = {"formats": ["ns2"], "ns2_format": "old", "layers": ["AGT", "RTR"], "drop_levels": ["RTR", "IFQ"]}
    sc.setdefault("output", {})["timeseries"] = False
    return sc


def failure_text(msg: str) -> str:
    """crosscheck's message without the path of ns-2's output, which goes
    with the work directory."""
    return re.sub(r" \((its output: )?/[^)]*\)$", "", msg)[:160]


def run_one(k: int, scenario: dict[str, Any], seeds: list[int], cache: ScriptCache, work: Path) -> dict[str, Any]:
    """Scenario ``k`` for every seed in both simulators: `cc.crosscheck`'s
    loop, with ns-2's runs taken from the cache when it holds them."""
    rec: dict[str, Any] = {"k": k, "scenario": scenario, "seeds": seeds, "build": build_id(),
                           "describe": describe(scenario), "hoplab": [], "ns2": [],
                           "timeline": {"hoplab": [], "ns2": []},
                           "time": {"hoplab_s": 0.0, "ns2_s": 0.0, "ns2_cached": 0, "measure_s": 0.0},
                           "ns2_failed": {}}
    sc = prepared(scenario)
    try:
        drawn = cc.expressible(sc)
    except cc.CrosscheckError as e:
        rec["refused"] = str(e)
        return rec
    flows, dur = sc["flows"], float(sc["duration_s"])
    tm = rec["time"]
    for seed in seeds:
        one = {**sc, "seed": seed}
        t0 = time.perf_counter()
        t_hop, res = cc._run_hoplab(one, work / "hoplab" / f"seed-{seed}")
        tm["hoplab_s"] += time.perf_counter() - t0
        script = cc.ns2_script(one, res, drawn)
        cmd = ns2_command(script)
        got = cache.runs.get(cmd)
        if got is None:
            if cc.ns2_available() is None:
                raise cc.CrosscheckError(f"no cached ns-2 run for scenario {k} seed {seed} and no `ns` "
                                         "(apt-get install ns2)")
            nwork = work / "ns2" / f"seed-{seed}"
            t0 = time.perf_counter()
            try:
                t_ns = cc._run_ns2(script, nwork)
            except cc.CrosscheckError as e:
                # ns-2 is deterministic for a script: one that failed or hung does so again, so the
                # failure is kept like a result (--fresh-ns2 tries again).
                got = {"sim": "ns-2.35", "scenario": k, "seed": seed,
                       "run_seconds": round(time.perf_counter() - t0, 3),
                       "failed": failure_text(str(e))}
            else:
                ns_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                got = {"sim": "ns-2.35", "scenario": k, "seed": seed, "run_seconds": round(ns_s, 3),
                       "values": measure(nwork / "trace.tr", flows, t_ns, "ns2"),
                       "timeline": timeline(nwork / "trace.tr", dur)}
                tm["measure_s"] += time.perf_counter() - t0
            cache.put(cmd, got)
        else:
            tm["ns2_cached"] += 1
        tm["ns2_s"] += float(got["run_seconds"])
        if "failed" in got:  # the seed is left out on both sides, which are compared seed by seed
            rec["ns2_failed"][str(seed)] = got["failed"]
            continue
        hop_trace = res.trace_files.get("trace.tr")
        if hop_trace is None:
            raise cc.CrosscheckError("hoplab wrote no trace.tr")
        t0 = time.perf_counter()
        rec["hoplab"].append(measure(Path(hop_trace), flows, t_hop, "hoplab"))
        rec["timeline"]["hoplab"].append(timeline(Path(hop_trace), dur))
        tm["measure_s"] += time.perf_counter() - t0
        rec["ns2"].append(got["values"])
        rec["timeline"]["ns2"].append(got["timeline"])
    if not rec["ns2"]:
        raise cc.CrosscheckError("ns-2 failed for every seed: " + "; ".join(
            f"seed {s}: {m}" for s, m in rec["ns2_failed"].items()))
    return rec


def worker(a: argparse.Namespace) -> int:
    k = a.worker
    scenario = draw(a.draw, k)
    work = STATE / "work" / f"{a.draw}-{k}"
    shutil.rmtree(work, ignore_errors=True)
    cache = ScriptCache(a.cache, a.fresh_ns2)
    cc.NS_TIMEOUT_S = NS2_TIMEOUT_S
    t0 = time.perf_counter()
    try:
        rec = run_one(k, scenario, a.seed_list, cache, work)
    except cc.CrosscheckError as e:
        rec = {"k": k, "error": str(e)}
    rec.setdefault("time", {})["wall_s"] = round(time.perf_counter() - t0, 2)
    if not a.keep_traces:
        shutil.rmtree(work, ignore_errors=True)
    print("FUZZ-RESULT " + json.dumps(rec))
    return 0


# --------------------------------------------------------------------------- comparing

def sides(rec: Mapping[str, Any]) -> tuple[cc.Side, cc.Side]:
    """The stored runs as crosscheck's Sides. A drop reason some run never
    wrote counts 0 in that run (crosscheck leaves it out of the mean)."""
    hop, ns2 = cc.Side("hoplab"), cc.Side("ns-2.35")
    drops = {key for runs in (rec["hoplab"], rec["ns2"]) for r in runs for key in r if key.startswith("drops\t")}
    for side, runs in ((hop, rec["hoplab"]), (ns2, rec["ns2"])):
        for r in runs:
            for key in [*r, *sorted(drops - set(r))]:
                row, _, metric = key.partition("\t")
                side.add(row, metric, r.get(key, 0.0))
    return hop, ns2


def paired_p(a: list[float], b: list[float]) -> float:
    """Two-sided p of a paired t test on the per-seed differences (seed N of
    both sides shares placement and movement); NaN where it is undefined,
    and 1 or 0 when every difference is the same (0 or not)."""
    d = [x - y for x, y in zip(a, b)]
    if len(d) < 2:
        return math.nan
    if statistics.pvariance(d) == 0:
        return 1.0 if d[0] == 0 else 0.0
    try:
        from scipy import stats
    except ImportError:
        return math.nan
    return float(stats.ttest_1samp(d, 0.0).pvalue)


def ratio_ci(a: list[float], b: list[float]) -> tuple[float, float]:
    """95 % interval of R = mean(a) / mean(b) over paired runs (seed N of
    both sides shares placement and movement, which decide most of a
    random network's spread): the ratio estimator's standard error,
    sqrt(sum((a_i - R b_i)^2) / (k - 1) / k) / mean(b) (Cochran, Sampling
    Techniques, 3rd ed., §6.4), Student's t with k - 1 degrees of freedom.
    NaN where ns-2's mean is 0 or there is one pair."""
    k = len(a)
    if k < 2 or len(b) != k:
        return math.nan, math.nan
    mb = statistics.fmean(b)
    if mb <= 0:
        return math.nan, math.nan
    r = statistics.fmean(a) / mb
    se = math.sqrt(sum((x - r * y) ** 2 for x, y in zip(a, b)) / (k - 1) / k) / mb
    try:
        from scipy import stats
    except ImportError:
        return math.nan, math.nan
    h = float(stats.t.ppf(0.975, k - 1)) * se
    return r - h, r + h


def summary(rec: Mapping[str, Any]) -> dict[str, Any]:
    hop, ns2 = sides(rec)
    rows = {(x["row"], x["metric"]): x for x in cc.table_rows(hop, ns2)}
    out: dict[str, Any] = {"k": rec["k"], "describe": rec["describe"]}
    for metric, _ in METRICS:
        out[metric] = rows.get(("total", metric))
    h, n = hop.values[("total", "delivered")], ns2.values[("total", "delivered")]
    out["overlap"] = max(min(h), min(n)) <= min(max(h), max(n))
    out["p"] = paired_p(h, n)
    out["ci"] = ratio_ci(h, n)
    out["time"] = rec["time"]
    return out


def _cumulative(bins: list[int], nb: int) -> list[int]:
    c, s = [], 0
    for i in range(nb):
        s += bins[i] if i < len(bins) else 0
        c.append(s)
    return c


def _with_totals(tl: Mapping[str, list[int]]) -> dict[str, list[int]]:
    """The timeline with its sums over flows and over routing types: flows
    can trade places between the simulators from seed to seed (which one a
    shared relay favours) while the total parts in every seed."""
    out = {k: v for k, v in tl.items() if k not in IGNORED_KINDS}
    for prefix, name in (("sent ", "sent, all flows"), ("received ", "received, all flows"),
                         ("routing ", "routing, all types")):
        parts = [v for k, v in out.items() if k.startswith(prefix)]
        if len(parts) > 1:
            out[name] = [sum(v[i] for v in parts if i < len(v)) for i in range(max(map(len, parts)))]
    return out


_ORDER = ("routing", "drop", "sent", "received")  # causes before effects when two kinds part in the same second


def first_divergences(rec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per kind of event (`timeline`), the first second at which hoplab's and
    ns-2's cumulative counts part in every seed (ABS_TOL, REL_TOL, PERSIST_S:
    see above), earliest first."""
    th = [_with_totals(tl) for tl in rec["timeline"]["hoplab"]]
    tn = [_with_totals(tl) for tl in rec["timeline"]["ns2"]]
    nb = int(math.ceil(float(rec["scenario"]["duration_s"]))) + 1
    kinds = sorted({k for tl in (*th, *tn) for k in tl} - IGNORED_KINDS)
    found = []
    for kind in kinds:
        H = [_cumulative(tl.get(kind, []), nb) for tl in th]
        N = [_cumulative(tl.get(kind, []), nb) for tl in tn]
        run_start, run = 0, 0
        for t in range(nb):
            far = [abs(h[t] - x[t]) > max(ABS_TOL, REL_TOL * max(h[t], x[t])) for h, x in zip(H, N)]
            above = [h[t] > x[t] for h, x in zip(H, N)]
            apart = all(far) and (all(above) or not any(above))
            if not apart:
                run = 0
                continue
            if run == 0:
                run_start = t
            run += 1
            if run >= PERSIST_S or t == nb - 1:
                t0 = run_start
                found.append({"kind": kind, "t_s": t0 + 1,
                              "hoplab": statistics.fmean(h[t0] for h in H), "ns2": statistics.fmean(x[t0] for x in N),
                              "hoplab_end": statistics.fmean(h[-1] for h in H),
                              "ns2_end": statistics.fmean(x[-1] for x in N)})
                break
    order = {p: i for i, p in enumerate(_ORDER)}
    return sorted(found, key=lambda d: (d["t_s"], order.get(d["kind"].split()[0].rstrip(","), 9), d["kind"]))


# --------------------------------------------------------------------------- the report

def _ratio(r: Mapping[str, Any] | None) -> float:
    return r["ratio"] if r and math.isfinite(r["ratio"]) else math.nan


def _cell(r: Mapping[str, Any] | None) -> str:
    x = _ratio(r)
    if not math.isfinite(x):
        return "-" if not r or not (r["hoplab"] or r["ns2"]) else f"{r['hoplab']:.0f} / {r['ns2']:.0f}"
    return f"**{x:.2f}**" if abs(x - 1) > 0.05 else f"{x:.2f}"


def _quantiles(xs: list[float]) -> str:
    xs = sorted(xs)
    if not xs:
        return "-"

    def q(p: float) -> float:
        i = p * (len(xs) - 1)
        lo = int(math.floor(i))
        return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)

    text = (f"min {xs[0]:.3f}, 10 % {q(0.1):.3f}, 25 % {q(0.25):.3f}, median {q(0.5):.3f}, 75 % {q(0.75):.3f}, "
            f"90 % {q(0.9):.3f}, max {xs[-1]:.3f}")
    if all(x > 0 for x in xs):
        text += f"; geometric mean {math.exp(statistics.fmean(math.log(x) for x in xs)):.3f}"
    return text


def _divergence_text(d: Mapping[str, Any]) -> str:
    return (f"`{d['kind']}` by {d['t_s']} s ({d['hoplab']:.0f} in hoplab against {d['ns2']:.0f} in ns-2, seed means; "
            f"at the end {d['hoplab_end']:.0f} against {d['ns2_end']:.0f})")


def report(recs: list[dict[str, Any]], failed: list[dict[str, Any]], a: argparse.Namespace, head: str) -> str:
    seeds = a.seed_list
    lines = [head, "",
             f"hoplab (compat = \"ns2\") against ns-2.35 on scenarios drawn by validation/fuzz_ns2.py (draw {a.draw}), "
             f"seeds {','.join(map(str, seeds))} in both; ratio = hoplab / ns-2 of the seed means, bold outside ±5 %; "
             "a - where neither side has any, `x / 0` where only hoplab has some; s = wall seconds of the scenario "
             "(both simulators and the measuring, or hoplab alone when ns-2's runs were cached).", "",
             f"| # | scenario | delivered hoplab / ns-2 (mean over {len(seeds)} seeds) | ratio | 95 % interval | "
             "seed ranges overlap | paired p | retx ratio | RTO ratio | routing ratio | s |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    sums, refused = [], []
    for rec in sorted(recs, key=lambda r: r["k"]):
        if "refused" in rec:
            refused.append(rec)
            lines.append(f"| {rec['k']} | {rec['describe']} | refused: {rec['refused']} | | | | | | | | |")
            continue
        s = summary(rec)
        sums.append((s, rec))
        d = s["delivered"]
        t = rec["time"]
        p = f"{s['p']:.3f}" if math.isfinite(s["p"]) else "-"
        lost = "".join(f"; ns-2 seed {seed}: {failure_text(m)}, the seed left out"
                       for seed, m in rec.get("ns2_failed", {}).items())
        lo, hi = s["ci"]
        ci = f"{lo:.2f}-{hi:.2f}" if math.isfinite(lo) else "-"
        lines.append(f"| {rec['k']} | {rec['describe']}{lost} | {d['hoplab']:.0f} / {d['ns2']:.0f} | {_cell(d)} | "
                     f"{ci} | {'yes' if s['overlap'] else 'no'} | {p} | {_cell(s['retransmissions'])} | "
                     f"{_cell(s['timeouts'])} | "
                     f"{_cell(s['routing_packets'])} | {t.get('wall_s', 0):.0f} |")
    for f in failed:
        lines.append(f"| {f['k']} | {describe(draw(a.draw, f['k']))} | failed: {f['error']} | | | | | | | | |")
    lines += ["", f"Ratios hoplab / ns-2.35 of the seed means (n = {len(seeds)} runs a side; the run is the "
              "replicate); a ratio is counted where ns-2's mean is not 0:", ""]
    for metric, label in METRICS:
        xs = [_ratio(s[metric]) for s, _ in sums]
        xs = [x for x in xs if math.isfinite(x)]
        ok5 = sum(1 for x in xs if abs(x - 1) <= 0.05)
        ok10 = sum(1 for x in xs if abs(x - 1) <= 0.10)
        lines.append(f"- {label}: within ±5 %: {ok5} of {len(xs)}; within ±10 %: {ok10} of {len(xs)}; "
                     f"{_quantiles(xs)}.")
    out5 = [(s, rec) for s, rec in sums if abs(_ratio(s["delivered"]) - 1) > 0.05]
    empty = [rec["k"] for s, rec in sums if not math.isfinite(_ratio(s["delivered"]))]
    noise = sum(1 for s, _ in out5 if s["overlap"])
    signif = sum(1 for s, _ in out5 if math.isfinite(s["p"]) and s["p"] < 0.05)
    apart = [rec["k"] for s, rec in out5 if math.isfinite(s["ci"][0]) and not s["ci"][0] <= 1 <= s["ci"][1]]
    lines += ["", f"Of the {len(out5)} scenarios outside ±5 % in packets delivered, {noise} have overlapping seed "
              f"ranges (the difference may be seed noise), {len(out5) - noise} do not; the per-seed differences are "
              f"significant (paired t, p < 0.05) for {signif}. The 95 % interval of the ratio (n = {len(seeds)} "
              f"pairs of runs, the ratio estimator's standard error, Student's t) leaves out 1 for {len(apart)}"
              + (f": {', '.join(map(str, apart))}" if apart else "") + "; for the others the two simulators are "
              "not told apart by their seed-to-seed spread."]
    if empty:
        lines.append(f"Nothing delivered in ns-2 (no ratio): {', '.join(map(str, empty))}.")
    if refused or failed:
        lines.append(f"Refused by the exporter: {len(refused)}; failed: {len(failed)}.")
    if out5:
        lines += ["", "### First divergences of the scenarios outside ±5 %", "",
                  f"Per kind of event (agent sends and receptions per flow, routing packets sent + forwarded per "
                  f"type, drops per level and reason), the first second by which, in every seed, the cumulative "
                  f"counts of the two simulators differ by more than {ABS_TOL} events and {REL_TOL:.0%}, all in "
                  f"the same direction, for {PERSIST_S} s in a row (seed N of both runs the same placement and "
                  f"movement); {', '.join(f'`{k}`' for k in sorted(IGNORED_KINDS))} left out (one side does not "
                  "write it: see IGNORED_KINDS). The three earliest, with the seed means of the counts:", ""]
        for s, rec in out5:
            divs = first_divergences(rec)
            first = "; then ".join(_divergence_text(d) for d in divs[:3]) if divs else \
                "none found: no kind of event parts in every seed"
            key = "total\tdelivered"
            per_seed = " / ".join(f"{h[key] / n[key]:.2f}" if n[key] else "-"
                                  for h, n in zip(rec["hoplab"], rec["ns2"]))
            lines.append(f"- **{rec['k']}** ({rec['describe']}; {_ratio(s['delivered']):.3f}, per seed {per_seed}): "
                         f"{first}.")
    times = [rec["time"].get("wall_s", 0.0) for _, rec in sums]
    if times:
        hop_s = sum(rec["time"]["hoplab_s"] for _, rec in sums)
        ns_s = sum(rec["time"]["ns2_s"] for _, rec in sums)
        lines += ["", f"Wall time per scenario (both simulators, {len(seeds)} seeds, measuring included): median "
                  f"{statistics.median(times):.0f} s, max {max(times):.0f} s, total {sum(times) / 60:.1f} min; "
                  f"hoplab's runs {hop_s / 60:.1f} min, ns-2's {ns_s / 60:.1f} min (as first run, cached or not)."]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- driver

def _results_path() -> Path:
    return STATE / "results.jsonl"


def load_results() -> dict[str, dict[str, Any]]:
    """Stored results by key (the last one written wins)."""
    out: dict[str, dict[str, Any]] = {}
    p = _results_path()
    if p.exists():
        for line in p.read_text().splitlines():
            if line.strip():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:  # a line cut short by an interrupted write
                    continue
                out[rec["key"]] = rec
    return out


def result_key(sc: Mapping[str, Any], seeds: list[int], build: str) -> str:
    return f"{scenario_key(sc)} seeds {','.join(map(str, seeds))} build {build}"


def spawn(k: int, a: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(k), "--draw", str(a.draw), "--seeds",
           a.seeds, "--cache", str(a.cache)]
    cmd += ["--fresh-ns2"] * a.fresh_ns2 + ["--keep-traces"] * a.keep_traces
    # A worker process per scenario: each loads the extension as it is on disk when it starts, and a
    # crash (or the extension rebuilt under it) costs that scenario only.
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("FUZZ-RESULT "):
            return json.loads(line[len("FUZZ-RESULT "):])
    tail = " ".join((p.stderr or p.stdout).strip().splitlines()[-2:])[:300]
    return {"k": k, "error": f"worker exit {p.returncode}: {tail}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="scenarios 0..N-1 of the corpus")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--draw", type=int, default=DRAW, help="seed of the draw of scenarios")
    ap.add_argument("--only", default=None, help="these scenarios only, K[,K...]")
    ap.add_argument("--out", type=Path, default=None, help="write the report as markdown")
    ap.add_argument("--jobs", type=int, default=1, choices=[1, 2])
    ap.add_argument("--list", action="store_true", help="print the drawn corpus, run nothing")
    ap.add_argument("--save-corpus", action="store_true", help=f"write the drawn corpus to {CORPUS.relative_to(ROOT)}")
    ap.add_argument("--cache", type=Path, default=NS2_CACHE, help="ns-2 runs by command line")
    ap.add_argument("--fresh-ns2", action="store_true", help="ignore the ns-2 cache (re-run ns-2)")
    ap.add_argument("--keep-traces", action="store_true", help="keep both traces of each run under out/fuzz_ns2/work")
    ap.add_argument("--stored", action="store_true",
                    help="report the stored results (the latest of each scenario, whatever build made it); run nothing")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.seed_list = int_list(a.seeds)
    if a.worker is not None:
        return worker(a)
    ks = [int(x) for x in a.only.split(",")] if a.only else list(range(a.n))
    scs = {k: draw(a.draw, k) for k in ks}
    if a.save_corpus:
        CORPUS.write_text(json.dumps({"draw": a.draw, "scenarios": corpus(a.n, a.draw)}, indent=1) + "\n")
    if a.list:
        for k in ks:
            print(f"{k:3d}  {describe(scs[k])}")
        return 0
    build = build_id()
    done = load_results()
    keys = {k: result_key(scs[k], a.seed_list, build) for k in ks}
    if a.stored:
        for rec in done.values():  # in the order written: the latest of each scenario wins
            k = rec["k"]
            if k in keys and rec["key"].startswith(result_key(scs[k], a.seed_list, "")):
                keys[k] = rec["key"]
    todo = [] if a.stored else [k for k in ks if keys[k] not in done]
    print(f"fuzz_ns2: {len(ks)} scenarios, {len(ks) - len(todo)} already stored for build {build}; running {len(todo)}",
          file=sys.stderr)
    STATE.mkdir(parents=True, exist_ok=True)
    failed: list[dict[str, Any]] = []
    with ThreadPoolExecutor(a.jobs) as ex:
        futures = {ex.submit(spawn, k, a): k for k in todo}
        for i, fut in enumerate(as_completed(futures), 1):
            rec = fut.result()
            k = futures[fut]
            if "error" in rec:
                failed.append(rec)
                print(f"[{i}/{len(todo)}] {k}: failed: {rec['error']}", file=sys.stderr)
                continue
            # under the build the worker ran (the extension may have been rebuilt since this run began)
            rec["key"] = result_key(scs[k], a.seed_list, rec["build"])
            keys[k] = rec["key"]
            done[rec["key"]] = rec
            append_line(_results_path(), rec)
            if "refused" in rec:
                print(f"[{i}/{len(todo)}] {k}: refused: {rec['refused']}", file=sys.stderr)
            else:
                d = summary(rec)["delivered"]
                print(f"[{i}/{len(todo)}] {k}: {rec['describe']}: delivered {d['hoplab']:.0f} / {d['ns2']:.0f} = "
                      f"{d['ratio']:.3f} ({rec['time']['wall_s']:.0f} s, ns-2 cached {rec['time']['ns2_cached']})",
                      file=sys.stderr)
    recs = [done[keys[k]] for k in ks if keys[k] in done]
    builds = sorted({r["build"] for r in recs})
    only = (f" --only {a.only}" if a.only else "") + (" --stored" if a.stored else "")
    head = (f"<!-- validation/fuzz_ns2.py --n {a.n}{only} --seeds {a.seeds} --draw {a.draw}, {datetime.date.today()}, "
            f"{platform.node()} ({platform.machine()}), hoplab build {', '.join(builds)} -->")
    text = report(recs, failed, a, head)
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
