"""`hoplab reproduce seed001`: the simulations of seed 001 (Nahm, Helmy,
Kuo, MobiHoc 2005) over DSR, with static routing as the bound.

* Table 1 (§3.1): two TCP flows over a 6-hop chain and a 7x7 grid, static
  routing against DSR, 120 s: throughput per flow and in total, route
  changes, and the share of time on the shortest path.
* Fig. 9 (§5.3): 1 and 4 flows over 4- to 22-hop chains for TCP (alpha 1)
  with static routing (the bound) and over DSR: TCP alpha 1, FeW (TCP
  alpha 0.01), ADTCP alpha 1 and ADTCP alpha 0.01; 200 s. Throughput
  (Fig. 9a, b) and the average congestion window (Fig. 9c, d).
* Fig. 12 (§5.5): 2 flows, TCP and TCP-ECN (link-layer LRED marking) at
  alpha 1 and 0.01 over DSR; 200 s.
* On request (--only), being costlier: Figs. 5 and 8 (W against p beside
  Eq. 1, `window_loss.py`) and Figs. 10 and 11 (grids and mobile nodes,
  `grids.py`), each with its readings in its docstring.

The figures' plots did not survive the paper's text; its §5.3 and §5.5
state relative gains, which are printed beside the measured ones
(data/seed001_claims.csv). Table 1's numbers are data/seed001_table1.csv.

Settings (seed 001 §3.1, §5.1): 2 Mbit/s, two-ray ground, transmission
range 250 m, carrier sense and interference range 550 m; DSR with the
`ns2` preset (ns-2's CMU DSR, which the paper ran); long-lived FTP flows.
What the paper leaves open, and our reading:
* chain spacing: 200 m (ns-2's usual chain, as seed 000): neighbours
  decode each other, nodes two hops apart only sense each other;
* grid: 7x7 nodes 200 m apart (no diagonal links at 283 m);
* the flows: every flow of a run goes from the same source to the same
  destination, one end of the chain to the other (on the 7x7 grid: along
  the middle row, node 21 to node 27, 6 hops). The paper calls Table 1's
  flows "overlapping" and its static grid total (202 kbit/s) is close to its
  static chain total (207): both are two flows over one 6-hop path. For
  Fig. 9's "4 flows" on a chain we read the same: four flows, one path;
* all flows start at 0 s; TCP NewReno, 1460-byte segments, delayed ACKs
  (hoplab's default receiver, ns-2's DelAck), MAC defaults of ns-2
  (1 Mbit/s basic rate, RTS/CTS for every unicast frame).

FeW, ADTCP and ECN are the scenario fields `[tcp] few_alpha`, `[tcp] adtcp`,
`[tcp] ecn` with `[lred] enabled`. A build of hoplab without one of them
rejects the scenario: the run stops before simulating anything, naming the
curves and the field (``--schemes tcp`` runs the rest).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from ... import scenario
from ..._table import text_table
from ...result import event_hash_text
from ... import lab
from .._grid import run_grid
from .._framework import ReproduceError, data_frame

# Seed 001 §3.1: 2 Mbps, two-ray ground, transmission range 250 m, carrier
# sensing range 550 m, interference range 550 m. The rest of the MAC is
# ns-2's Mac/802_11 default (hoplab's default): 1 Mbit/s basic rate, RTS/CTS always.
RADIO: dict[str, Any] = {"propagation": "two_ray_ground", "tx_range_m": 250.0, "cs_range_m": 550.0,
                         "interference_range_m": 550.0}
MAC: dict[str, Any] = {"data_rate_mbps": 2.0}
# Seed 001 names no TCP variant or segment size; 1460 B as seed 000 §3 (an
# Ethernet-sized 1500-byte IP MTU less 40 bytes of TCP/IP headers), NewReno
# as hoplab's default.
TCP: dict[str, Any] = {"variant": "new_reno", "mss_bytes": 1460}
DSR: dict[str, Any] = {"protocol": "dsr", "preset": "ns2"}
STATIC: dict[str, Any] = {"protocol": "static"}
# ns-2's reading (--reading ns2, the default): the paper ran ns-2, whose
# defaults `compat = "ns2"` gives: its MAC rules, CMU DSR, and its TCP
# (packetSize_ 1000 B, Agent/TCPSink's ACK per segment, a SYN then windowInit_ 2, its RTO
# estimator). Only window_ 20 (packets) is set here: 20 segments of 1000 B.
NS2_TCP: dict[str, Any] = {"variant": "new_reno", "receive_window_bytes": 20 * 1000}
NS2_DSR: dict[str, Any] = {"protocol": "dsr"}
READING_TEXT = {
    "ns2": "ns-2's reading (compat = \"ns2\": ns-2.35's MAC, CMU DSR, TCP with 1000 B segments, an ACK per "
           "segment, window_ 20)",
    "standard": "the standards' reading (IEEE 802.11, the RFCs; DSR ns2 preset; TCP NewReno 1460 B, delayed "
                "ACKs, 64 KB window)",
}
SPACING_M = 200.0

FIG_DURATION_S = 200.0    # §5.1: "long-lived TCP flows (of 200 seconds)"
TABLE1_DURATION_S = 120.0  # §3.1: "a 120-second simulation session"
FEW_ALPHA = 0.01           # §5.3: FeW is TCP with alpha = 0.01

# Defaults of the command, chosen to finish in about 10-20 minutes on 2
# cores: every other chain length and 5 seeds (README: what more costs).
DEFAULT_HOPS = tuple(range(4, 23, 2))
DEFAULT_REPLICAS = 5
ALL_HOPS = tuple(range(4, 23))
# --quick, a first look (about a tenth of the runs): one seed and every sixth chain length.
QUICK_HOPS = tuple(range(4, 23, 6))
QUICK_REPLICAS = 1


@dataclass(frozen=True)
class Scheme:
    """A transport variant: the [tcp] fields and top-level tables it sets."""

    key: str
    label: str
    tcp: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    tables: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def fields(self) -> list[str]:
        return [f"tcp.{k}" for k in self.tcp] + [f"{t}.{k}" for t, v in self.tables.items() for k in v]


# The agreed schema (issue 9): [tcp] few_alpha, adtcp, ecn; [lred] enabled.
SCHEMES: dict[str, Scheme] = {s.key: s for s in (
    Scheme("tcp", "TCP a=1"),
    Scheme("few", "FeW a=0.01", {"few_alpha": FEW_ALPHA}),
    Scheme("adtcp", "ADTCP a=1", {"adtcp": True}),
    Scheme("adtcp+few", "ADTCP a=0.01", {"adtcp": True, "few_alpha": FEW_ALPHA}),
    # §5.1, §5.5: ECN with LRED's link-layer marking, without adaptive pacing.
    Scheme("ecn", "TCP-ECN a=1", {"ecn": True}, {"lred": {"enabled": True}}),
    Scheme("ecn+few", "TCP-ECN a=0.01", {"ecn": True, "few_alpha": FEW_ALPHA}, {"lred": {"enabled": True}}),
)}

# A curve of a figure: (routing, scheme). "static" is TCP alpha 1 over
# static routing, the bound of Fig. 9.
Curve = tuple[str, str]
CURVE_KEYS: dict[str, Curve] = {"static": ("static", "tcp"), **{k: ("dsr", k) for k in SCHEMES}}
FIG9_CURVES = ("static", "tcp", "few", "adtcp", "adtcp+few")
FIG12_CURVES = ("tcp", "ecn", "few", "ecn+few")
EXPERIMENTS = ("table1", "fig9", "fig12")
# Not run by default: at 5 seeds they add some 2,250 CPU seconds, 20-30 minutes on 2 cores (docs/PAPERS.md).
OPTIONAL_EXPERIMENTS = ("fig5", "fig8", "fig11")


def curve_label(key: str) -> str:
    return "TCP a=1, static" if key == "static" else SCHEMES[key].label


@dataclass(frozen=True)
class Task:
    topology: str  # "chain" or "grid" ((hops+1) x (hops+1), flows along the middle row)
    hops: int
    flows: int
    routing: str   # "static" or "dsr"
    scheme: str    # a SCHEMES key
    seed: int
    duration: float
    reading: str = "ns2"  # "ns2" or "standard" (READING_TEXT)

    def key(self) -> tuple:
        return (self.topology, int(self.hops), int(self.flows), self.routing, self.scheme, int(self.seed),
                float(self.duration), self.reading)

    def endpoints(self) -> tuple[int, int]:
        if self.topology == "chain":
            return 0, self.hops
        side = self.hops + 1
        mid = side // 2
        return mid * side, mid * side + self.hops

    def scenario(self) -> dict[str, Any]:
        s = SCHEMES[self.scheme]
        src, dst = self.endpoints()
        flows = [scenario.ftp(src, dst) for _ in range(self.flows)]
        ns2 = self.reading == "ns2"
        routing = dict((NS2_DSR if ns2 else DSR) if self.routing == "dsr" else STATIC)
        tcp = {**(NS2_TCP if ns2 else TCP), **s.tcp}
        name = f"seed001-{self.topology}{self.hops}-{self.flows}f-{self.routing}-{self.scheme}-{self.reading}"
        kw = dict(duration=self.duration, seed=self.seed, flows=flows, mac=dict(MAC), tcp=tcp, radio=dict(RADIO),
                  routing=routing, timeseries=True, name=name)
        if self.topology == "chain":
            sc = scenario.chain(self.hops, SPACING_M, **kw)
        else:
            sc = scenario.grid(self.hops + 1, self.hops + 1, SPACING_M, **kw)
        for table, values in s.tables.items():
            sc[table] = dict(values)
        if ns2:
            sc["compat"] = "ns2"
        return sc


RUN_COLUMNS = [
    "topology", "hops", "flows", "routing", "scheme", "reading", "seed", "duration_s",
    "throughput_kbps", "flow_kbps", "avg_cwnd", "route_changes", "link_breaks", "false_link_breaks",
    "discoveries", "shortest_path_share", "timeouts", "retransmissions", "loss_rate", "rtt_mean_ms",
    "stream_errors", "events", "wall_s", "event_hash",
]


def time_average_cwnd(ts: pd.DataFrame, flow: int, start: float, end: float) -> float:
    """cwnd averaged over time from ``start`` to ``end`` (samples are taken
    whenever it changes, so each holds until the next)."""
    d = ts[ts["flow"] == flow]
    if len(d) == 0 or end <= start:
        return math.nan
    t = np.append(d["time_s"].to_numpy().clip(start, end), end)
    return float(np.sum(d["cwnd"].to_numpy() * np.diff(t)) / (end - start))


def run_task(task: Task) -> dict[str, Any]:
    """Run one configuration and return its row."""
    from ..._run import run

    return row_of(task, run(task.scenario(), seed=task.seed))


def row_of(task: Task, res: Any) -> dict[str, Any]:
    """The row of one run from its result (a `Result` or a run read back from the store)."""
    f = res.flows
    ev = res.route_events
    broken = ev[ev["event"] == "link_broken"]
    data_paths = res.paths[res.paths["direction"] == "data"]
    on_path = float(data_paths["time_s"].sum())
    sent = int(f["packets_sent"].sum())
    samples = int(f["rtt_samples"].sum())
    cwnds = [time_average_cwnd(res.timeseries, int(r.flow), float(r.start_s), float(r.end_s))
             for r in f.itertuples(index=False)]
    return {
        "topology": task.topology, "hops": task.hops, "flows": task.flows, "routing": task.routing,
        "scheme": task.scheme, "reading": task.reading, "seed": task.seed, "duration_s": float(task.duration),
        "throughput_kbps": float(f["throughput_kbps"].sum()),
        "flow_kbps": ";".join(f"{v:.3f}" for v in f["throughput_kbps"]),
        "avg_cwnd": float(sum(cwnds) / len(cwnds)),
        # Path changes seen at the sinks (a new source route for the data);
        # a chain has one path, so only link breaks and rediscoveries show there.
        "route_changes": int(f["route_changes"].sum()),
        "link_breaks": int(len(broken)),
        "false_link_breaks": int(broken["false_failure"].sum()),
        "discoveries": int((ev["event"] == "discovery_started").sum()),
        # §3.1: how long the data took a shortest (hops-long) path.
        "shortest_path_share": float(data_paths.loc[data_paths["hops"] == task.hops, "time_s"].sum() / on_path)
        if on_path > 0 else math.nan,
        "timeouts": int(f["timeouts"].sum()),
        "retransmissions": int(f["retransmissions"].sum()),
        "loss_rate": float(f["retransmissions"].sum() / sent) if sent else 0.0,
        "rtt_mean_ms": float((f["rtt_mean_ms"] * f["rtt_samples"]).sum() / samples) if samples else math.nan,
        "stream_errors": int(f["stream_errors"].sum()),
        "events": int(res.info["events"]), "wall_s": float(res.info["wall_s"]),
        "event_hash": event_hash_text(res.info["event_hash"]),
    }


@dataclass(frozen=True)
class Plan:
    """What to run: the experiments, their chain lengths, schemes, replicas."""

    experiments: tuple[str, ...] = EXPERIMENTS
    hops: tuple[int, ...] = DEFAULT_HOPS
    schemes: tuple[str, ...] = tuple(SCHEMES)
    replicas: int = DEFAULT_REPLICAS
    duration: float | None = None  # None: 200 s for the figures, 120 s for Table 1
    readings: tuple[str, ...] = ("ns2",)  # of the figures; Table 1 (cheap) runs both

    def table1_readings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.readings + ("ns2", "standard")))

    def fig_duration(self) -> float:
        return FIG_DURATION_S if self.duration is None else float(self.duration)

    def table1_duration(self) -> float:
        return TABLE1_DURATION_S if self.duration is None else float(self.duration)

    def curves(self, keys: Iterable[str]) -> list[str]:
        return [k for k in keys if CURVE_KEYS[k][1] in self.schemes]

    def tasks(self) -> list[Task]:
        seeds = range(1, self.replicas + 1)
        out: dict[tuple, Task] = {}

        def add(t: Task) -> None:
            out.setdefault(t.key(), t)

        for s in seeds:
            if "table1" in self.experiments and "tcp" in self.schemes:
                for reading in self.table1_readings():
                    for topo in ("chain", "grid"):
                        for routing in ("static", "dsr"):
                            add(Task(topo, 6, 2, routing, "tcp", s, self.table1_duration(), reading))
            for exp, flow_counts, keys in (("fig9", (1, 4), FIG9_CURVES), ("fig12", (2,), FIG12_CURVES)):
                if exp not in self.experiments:
                    continue
                for n in flow_counts:
                    for h in self.hops:
                        for k in self.curves(keys):
                            routing, scheme = CURVE_KEYS[k]
                            for reading in self.readings:
                                add(Task("chain", h, n, routing, scheme, s, self.fig_duration(), reading))
        # Longest first, so that the pool is not left waiting for a 22-hop run.
        return sorted(out.values(), key=lambda t: (-(t.hops * t.flows), t.key()))


def check_schemes(tasks: Iterable[Task]) -> None:
    """Validate one scenario per scheme before running anything: a build of
    hoplab without a scheme's fields fails here, naming every such curve and
    field, so that no curve is silently left out."""
    from ... import _core

    seen: dict[str, Task] = {}
    for t in tasks:
        seen.setdefault(t.scheme, t)
    problems = []
    for key, t in sorted(seen.items(), key=lambda kv: list(SCHEMES).index(kv[0])):
        try:
            _core.validate_json(json.dumps(t.scenario()))
        except _core.ScenarioError as e:
            s = SCHEMES[key]
            message = str(getattr(e, "message", e)).split(", expected one of")[0]
            problems.append(f"  {s.label} (--schemes {key}) sets {' and '.join(s.fields()) or 'nothing new'}: "
                            f"{getattr(e, 'field', '') or '?'}: {message}")
    if problems:
        raise ReproduceError(
            "this build of hoplab rejects the scenario of some curves:\n" + "\n".join(problems)
            + "\nRebuild hoplab with those features, or choose the curves with --schemes (e.g. --schemes tcp).")


def _describe(row: dict[str, Any]) -> str:
    return (f"{row['topology']} {row['hops']}-hop {row['flows']} flow(s) {row['routing']} {row['scheme']} "
            f"{row['reading']} "
            f"seed {row['seed']}: {row['throughput_kbps']:.1f} kbit/s, {row['route_changes']} route changes, "
            f"{row['link_breaks']} link breaks ({row['wall_s']:.1f} s)")


def run_tasks(tasks: list[Any], row_of: Callable[..., dict[str, Any]], *, name: str, columns: list[str],
              out: Path | None, jobs: int, progress: Callable[[str], None] | None,
              describe: Callable[[dict[str, Any]], str], csv_name: str | None = None) -> pd.DataFrame:
    """The runs of ``tasks`` (one figure's) through the lab store, checked
    scheme by scheme first; no tasks (only other figures asked for): no rows."""
    if not tasks:
        return pd.DataFrame(columns=columns)
    check_schemes(tasks)
    extra = {"csv_name": csv_name} if csv_name else {}
    try:
        rows = run_grid(tasks, row_of, name=name, columns=columns, out=out, jobs=jobs,
                        progress=progress, describe=describe, **extra)
    except (lab.LabError, lab.StoreError, ValueError) as e:
        raise ReproduceError(str(e)) from None
    return pd.DataFrame(rows, columns=columns)


def run_seed001(plan: Plan, *, out: Path | None = None, jobs: int = 2,
                progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Run every task of ``plan`` and return one row per run, as a lab design
    through a result store (with ``out``: ``out/store``, resumable; `papers._grid`)."""
    df = run_tasks(plan.tasks(), row_of, name="seed001", columns=RUN_COLUMNS, out=out, jobs=jobs,
                   progress=progress, describe=_describe)
    return df.sort_values(["reading", "topology", "flows", "hops", "routing", "scheme", "seed"]).reset_index(drop=True)


# ---------------------------------------------------------------- report


def table1_reference() -> pd.DataFrame | None:
    return data_frame(__package__, "seed001_table1.csv")


def claims() -> pd.DataFrame | None:
    return data_frame(__package__, "seed001_claims.csv")


def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.1f}%"


def _num(x: float, digits: int = 1) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _select(runs: pd.DataFrame, topology: str, hops: int, flows: int, curve: str, duration: float,
            reading: str) -> pd.DataFrame:
    routing, scheme = CURVE_KEYS[curve]
    return runs[(runs["topology"] == topology) & (runs["hops"] == hops) & (runs["flows"] == flows)
                & (runs["routing"] == routing) & (runs["scheme"] == scheme) & (runs["duration_s"] == duration)
                & (runs["reading"] == reading)]


def _flow_values(d: pd.DataFrame, i: int) -> pd.Series:
    return d["flow_kbps"].astype(str).str.split(";").map(lambda v: float(v[i]) if len(v) > i else math.nan)


def report_table1(runs: pd.DataFrame, plan: Plan, reading: str) -> str:
    dur = plan.table1_duration()
    ref = table1_reference()
    head = ["topology", "routing", "flow 1", "flow 2", "total", "paper 1", "paper 2", "paper total",
            "route changes", "paper", "link breaks", "shortest path", "paper"]
    rows = []
    for topo, label in (("chain", "6-hop chain"), ("grid", "7x7 grid")):
        means = {}
        for routing in ("static", "dsr"):
            d = _select(runs, topo, 6, 2, "static" if routing == "static" else "tcp", dur, reading)
            if not len(d):
                continue
            m = {"flow1": _flow_values(d, 0).mean(), "flow2": _flow_values(d, 1).mean(),
                 "total": d["throughput_kbps"].mean()}
            means[routing] = m
            p = ref[(ref["topology"] == label) & (ref["routing"] == routing)] if ref is not None else pd.DataFrame()
            pv = [f"{p[c].iloc[0]:.2f}" for c in ("flow1", "flow2", "total")] if len(p) else ["-"] * 3
            paper_rc = "130" if (topo, routing) == ("grid", "dsr") else "-"
            paper_sp = "~50%" if (topo, routing) == ("grid", "dsr") else "-"
            rows.append([label, routing, _num(m["flow1"], 2), _num(m["flow2"], 2), _num(m["total"], 2), *pv,
                         _num(d["route_changes"].mean()), paper_rc, _num(d["link_breaks"].mean()),
                         f"{d['shortest_path_share'].mean() * 100:.0f}%", paper_sp])
        if "static" in means and "dsr" in means:
            s, dd = means["static"], means["dsr"]
            gain = [100 * (s[c] / dd[c] - 1) if dd[c] else math.nan for c in ("flow1", "flow2", "total")]
            pg = ["-"] * 3
            if ref is not None:
                ps = ref[(ref["topology"] == label) & (ref["routing"] == "static")]
                pdd = ref[(ref["topology"] == label) & (ref["routing"] == "dsr")]
                if len(ps) and len(pdd):
                    pg = [_pct(100 * (ps[c].iloc[0] / pdd[c].iloc[0] - 1)) for c in ("flow1", "flow2", "total")]
            rows.append([label, "(S-D)/D", *[_pct(g) for g in gain], *pg, "", "", "", "", ""])
    if not rows:
        return "Table 1: not run."
    return (f"Table 1 (seed 001 §3.1), {READING_TEXT[reading]}.\nTCP throughput (kbit/s), two flows over one "
            f"6-hop path, {dur:g} s; mean over {plan.replicas} replica(s).\n"
            "paper: seed 001 Table 1 (ns-2, one run). route changes: new paths taken by the data, both flows "
            "together\n(paper: 130 for DSR on the grid, from its Fig. 2); shortest path: share of the time the "
            "data took a\n6-hop path (paper: ~50% on the grid).\n"
            + text_table(head, rows, align="ll" + "r" * (len(head) - 2)))


def _curve_table(runs: pd.DataFrame, plan: Plan, flows: int, keys: Sequence[str], metric: str, digits: int,
                 spread: bool, reading: str) -> str:
    dur = plan.fig_duration()
    keys = list(keys)
    head = ["hops"]
    for k in keys:
        head += [curve_label(k)] + (["min-max"] if spread else [])
    rows = []
    for h in plan.hops:
        r = [str(h)]
        for k in keys:
            d = _select(runs, "chain", h, flows, k, dur, reading)
            if not len(d):
                r += ["not run"] + (["-"] if spread else [])
                continue
            r.append(_num(d[metric].mean(), digits))
            if spread:
                r.append(f"{d[metric].min():.{digits}f}-{d[metric].max():.{digits}f}")
        rows.append(r)
    return text_table(head, rows)


def _mean_of(runs: pd.DataFrame, plan: Plan, flows: int, hops: int, curve: str, reading: str) -> float:
    d = _select(runs, "chain", hops, flows, curve, plan.fig_duration(), reading)
    return float(d["throughput_kbps"].mean()) if len(d) else math.nan


def report_claims(runs: pd.DataFrame, plan: Plan, figure: str, reading: str) -> str:
    c = claims()
    if c is None:
        return "(data/seed001_claims.csv not found)"
    c = c[c["figure"] == figure]
    head = ["flows", "hops", "comparison", "paper", "measured", "better at", "the paper says (seed 001)"]
    rows = []
    for r in c.itertuples(index=False):
        comp = f"{curve_label(r.better)} vs {curve_label(r.worse)}"
        quote = f"{r.section}: {r.quote}"
        if not math.isnan(r.hops):
            h = int(r.hops)
            b, w = _mean_of(runs, plan, int(r.flows), h, r.better, reading), _mean_of(runs, plan, int(r.flows), h, r.worse, reading)
            if math.isnan(b) or math.isnan(w):
                why = "not run" if h in plan.hops else f"not run (add {h} to --hops)"
                rows.append([r.flows, h, comp, f"+{r.gain_pct:g}%", why, "", quote])
                continue
            rows.append([r.flows, h, comp, f"+{r.gain_pct:g}%", _pct(100 * (b / w - 1)), "yes" if b > w else "no",
                         quote])
        else:
            gains = []
            for h in plan.hops:
                b, w = _mean_of(runs, plan, int(r.flows), h, r.better, reading), _mean_of(runs, plan, int(r.flows), h, r.worse, reading)
                if not (math.isnan(b) or math.isnan(w)) and w > 0:
                    gains.append(100 * (b / w - 1))
            if not gains:
                rows.append([r.flows, "all", comp, r.expect, "not run", "", quote])
                continue
            held = sum(g > 0 for g in gains)
            rows.append([r.flows, "all", comp, r.expect, f"{_pct(sum(gains) / len(gains))} mean",
                         f"{held}/{len(gains)} hops", quote])
    return ("The paper's statements beside the measured gains (better / worse - 1, of the mean aggregate "
            "throughputs):\n" + text_table(head, rows, align="rrlrrll"))


NOT_REPRODUCED = """\
Not reproduced here (say so rather than guess):
  Fig. 2 (route changes over time, 7x7 grid) and Fig. 3 (cwnd over time, 6-hop chain): only their counts and
    averages above; a run's timeseries and route_events tables hold the traces (hoplab.run(...)).
  Fig. 4 (the connection blackout cycle): a diagram.
  Fig. 6 and Fig. 7, Table 2: analytic (hoplab.models.timeout_factor, window_bound, loss_bound).
  Fig. 9(e, f) (cwnd over time, 7-hop chain, 2 flows): not printed.
  The figures' plotted values did not survive the paper's text, so only the stated gains are compared."""
OPTIONAL_TEXT = {
    "fig5": "Fig. 5 (W against p beside Eq. 1, static chains, 500 s)",
    "fig8": "Fig. 8 (the same with FeW's alpha 0.1, 0.04, 0.01)",
    "fig11": "Figs. 10 and 11 (7x7, 13x13 and 13x5 grids with 2-14 flows; 150 mobile nodes)",
}


def not_reproduced(plan: Plan) -> str:
    left = [k for k in OPTIONAL_EXPERIMENTS if k not in plan.experiments]
    if not left:
        return NOT_REPRODUCED
    return (NOT_REPRODUCED + f"\n  Not run this time, being costlier (--only {','.join(left)} runs them; --quick "
            "for a first look):\n" + "\n".join(f"    {OPTIONAL_TEXT[k]}" for k in left))


def report_seed001(runs: pd.DataFrame, plan: Plan, sections: Sequence[str] = ()) -> str:
    """The report; ``sections``: the optional figures' texts, put before the
    list of what is not reproduced."""
    shown = plan.table1_readings() if "table1" in plan.experiments else plan.readings
    out = ["Seed 001 (Nahm, Helmy, Kuo, MobiHoc 2005), simulated: chains and a 7x7 grid, nodes 200 m apart, "
           "2 Mbit/s,\ntwo-ray ground (250 m tx / 550 m carrier sense and interference), DSR or static routing, "
           "TCP NewReno;\nevery flow from one end of the path to the other, all starting at 0 s. Readings:\n"
           + "\n".join(f"  {r}: {READING_TEXT[r]}" for r in shown)
           + f"\nSeeds 1..{plan.replicas}; curves: "
           + ", ".join(curve_label(k) for k in CURVE_KEYS if CURVE_KEYS[k][1] in plan.schemes) + "."]
    if "table1" in plan.experiments:
        for reading in plan.table1_readings():
            out += ["", report_table1(runs, plan, reading)]
    dur = plan.fig_duration()
    for reading in plan.readings:
        rtext = f"; {reading} reading"
        if "fig9" in plan.experiments:
            keys = plan.curves(FIG9_CURVES)
            for flows, a, c in ((1, "a", "c"), (4, "b", "d")):
                out += ["", f"Fig. 9({a}) (seed 001 §5.3), as a table: aggregate throughput (kbit/s) of {flows} "
                            f"flow(s) over a chain, {dur:g} s; mean and min-max over seeds{rtext}",
                        _curve_table(runs, plan, flows, keys, "throughput_kbps", 1, True, reading),
                        "", f"Fig. 9({c}): average congestion window (segments; time average per flow, mean over "
                            f"flows and seeds){rtext}",
                        _curve_table(runs, plan, flows, keys, "avg_cwnd", 2, False, reading)]
            out += ["", report_claims(runs, plan, "fig9", reading)]
        if "fig12" in plan.experiments:
            keys = plan.curves(FIG12_CURVES)
            out += ["", f"Fig. 12 (seed 001 §5.5), as a table: aggregate throughput (kbit/s) of 2 flows over a "
                        f"chain, DSR, {dur:g} s; mean and min-max over seeds{rtext}",
                    _curve_table(runs, plan, 2, keys, "throughput_kbps", 1, True, reading),
                    "", report_claims(runs, plan, "fig12", reading)]
    bad = runs[runs["stream_errors"] > 0]
    if len(bad):
        out += ["", f"WARNING: {len(bad)} run(s) delivered a byte stream with gaps or reordering (stream_errors > 0)."]
    for s in sections:
        out += ["", s]
    out += ["", not_reproduced(plan)]
    return "\n".join(out)


def summary_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: mean, min and max over seeds of the measures."""
    keys = ["reading", "topology", "hops", "flows", "routing", "scheme", "duration_s"]
    g = runs.groupby(keys)
    out = g["throughput_kbps"].agg(["mean", "min", "max", "count"]).add_prefix("throughput_kbps_")
    for m in ("avg_cwnd", "route_changes", "link_breaks", "shortest_path_share", "timeouts", "loss_rate"):
        out[f"{m}_mean"] = g[m].mean()
    return out.reset_index()

