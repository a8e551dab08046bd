"""Figs. 10 and 11 of seed 001 (§5.4): TCP and ADTCP at alpha 1 and 0.01
(FeW) over DSR on 7x7, 13x13 and 13x5 grids and among 150 mobile nodes;
aggregate throughput against the number of flows.

* Grids (§5.4): "a small scale (7x7), a large scale (13x13) and a
  narrow-stripe (13x5) grid topology based on the grid topology shown in
  Fig. 1 (a)": nodes 200 m apart as Table 1's grid; 13x5 is 5 rows of 13.
* Fig. 10 shows "some of the tested traffic patterns" (13x5: overlapping and
  cross traffic); §5.1: "The traffic patterns included the parallel, the
  cross and the random traffic". Our patterns (`grid_flows`), on every grid:
  - "2 overlap": two flows along the middle row, same ends (Table 1, Fig. 10(a));
  - "2 cross": one along the middle row, one down the middle column (Fig. 10(b));
  - 4, 8, 14 (the counts §5.4 names for 13x13; for 7x7 and 13x5 it says only
    "more flows", so the same): half of them (at most one per row)
    along rows left to right, the rest down columns, each set spread evenly
    and centred (13x13, 14 flows: rows and columns 0, 2, ..., 12).
  Every flow spans its row or column: 6 hops on 7x7, 12 on 13x13, 12 along
  and 4 across the 13x5 stripe.
* Mobile (Fig. 11(d), §5.4): 150 nodes in 2000 m x 2000 m, random waypoint
  ("maximum speed 10m/s and no pause time"; speeds uniform in (0, 10] as
  setdest then drew them, initial positions uniform, not the stationary
  distribution), "random traffic", 8, 16 and 32 flows (§5.4 quotes 32; §5.1
  "2 to 50"). The pairs are drawn once (`random_pairs`, distinct sources and
  distinct destinations); the seed places and moves the nodes, so each seed
  is a fresh random traffic over exchangeable nodes (§5.1: "the average of
  five runs with different random number seeds"), with the same movement
  for every scheme at a seed.
* 200 s (§5.1), all flows from 0 s, the schemes and every other setting as
  Fig. 9's (`experiment.Task`: ns-2's reading by default, DSR).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ... import scenario
from ..._table import text_table
from ...result import event_hash_text
from . import experiment as r1
from .intervals import METHOD, gain_text, mean_half, text

DURATION_S = 200.0                       # §5.1: "long-lived TCP flows (of 200 seconds)"
GRIDS = {"7x7": (7, 7), "13x13": (13, 13), "13x5": (5, 13)}  # name: (rows, cols)
GRID_PATTERNS = ("2o", "2c", "4", "8", "14")
MOBILE_FLOWS = ("8", "16", "32")
MOBILE_NODES = 150                       # §5.4: "150 mobile nodes in 2000m by 2000m space"
MOBILE_AREA_M = 2000.0
MOBILE_SPEED_MPS = 10.0                  # §5.4: "maximum speed 10m/s and no pause time"
PAIRS_SEED = 2005                        # any fixed seed: the seeds of the runs vary the geometry
CURVES = ("tcp", "few", "adtcp", "adtcp+few")  # §5.4: TCP and ADTCP, alpha 1 and 0.01
# Our rule for §5.4's "hardly any improvement", "maintains", "little or no degradation": within 5 %.
TOLERANCE_PCT = 5.0
TOPOLOGIES = (*GRIDS, "mobile")
PATTERN_TEXT = {"2o": "2 overlap", "2c": "2 cross"}
CSV_NAME = "runs-fig11.csv"
SUMMARY_NAME = "summary-fig11.csv"
COLUMNS = ["topology", "pattern", "flows", "scheme", "reading", "seed", "duration_s", "throughput_kbps", "flow_kbps",
           "avg_cwnd", "route_changes", "link_breaks", "timeouts", "retransmissions", "loss_rate", "stream_errors",
           "events", "wall_s", "event_hash"]


def _spread(n: int, k: int) -> list[int]:
    """``k`` of the lines 0..n-1, evenly spaced and centred."""
    return [math.floor((i + 0.5) * n / k) for i in range(k)]


def grid_flows(rows: int, cols: int, pattern: str) -> list[tuple[int, int]]:
    """(src, dst) of each flow of a pattern on a row-major rows x cols grid."""
    def row(r: int) -> tuple[int, int]:
        return r * cols, r * cols + cols - 1

    def col(c: int) -> tuple[int, int]:
        return c, (rows - 1) * cols + c

    if pattern == "2o":
        return [row(rows // 2)] * 2
    if pattern == "2c":
        return [row(rows // 2), col(cols // 2)]
    n = int(pattern)
    along = min((n + 1) // 2, rows)
    if n - along > cols:
        raise ValueError(f"{n} flows do not fit a {rows}x{cols} grid")
    return [row(r) for r in _spread(rows, along)] + [col(c) for c in _spread(cols, n - along)]


def random_pairs(count: int, nodes: int = MOBILE_NODES, seed: int = PAIRS_SEED) -> list[tuple[int, int]]:
    """``count`` (source, destination) pairs, no source or destination twice."""
    rng = random.Random(seed)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < count:
        src, dst = rng.sample(range(nodes), 2)
        if src not in {p[0] for p in pairs} and dst not in {p[1] for p in pairs}:
            pairs.append((src, dst))
    return pairs


@dataclass(frozen=True)
class GridTask:
    topology: str  # a GRIDS key or "mobile"
    pattern: str   # a GRID_PATTERNS entry, or a MOBILE_FLOWS one
    scheme: str    # a CURVES entry
    seed: int
    duration: float
    reading: str = "ns2"

    def key(self) -> tuple:
        return (self.topology, self.pattern, self.scheme, int(self.seed), float(self.duration), self.reading)

    def pairs(self) -> list[tuple[int, int]]:
        if self.topology == "mobile":
            return random_pairs(int(self.pattern))
        return grid_flows(*GRIDS[self.topology], self.pattern)

    def scenario(self) -> dict[str, Any]:
        # Fig. 9's DSR settings and schemes, on another topology with other flows.
        sc = r1.Task("grid", 6, 1, "dsr", self.scheme, self.seed, self.duration, self.reading).scenario()
        sc["flows"] = [scenario.ftp(s, d) for s, d in self.pairs()]
        if self.topology == "mobile":
            sc["topology"] = {"kind": "random", "nodes": MOBILE_NODES, "width_m": MOBILE_AREA_M,
                              "height_m": MOBILE_AREA_M}
            sc["mobility"] = {"model": "waypoint", "speed_min_mps": 0.0, "speed_max_mps": MOBILE_SPEED_MPS,
                              "pause_s": 0.0}
        else:
            rows, cols = GRIDS[self.topology]
            sc["topology"] = {"kind": "grid", "rows": rows, "cols": cols, "spacing_m": r1.SPACING_M}
        sc["name"] = f"seed001-{self.topology}-{self.pattern}f-dsr-{self.scheme}-{self.reading}"
        return sc


def selected(plan: r1.Plan) -> bool:
    return "fig11" in plan.experiments


def duration(plan: r1.Plan) -> float:
    return DURATION_S if plan.duration is None else float(plan.duration)


def patterns(topology: str) -> tuple[str, ...]:
    return MOBILE_FLOWS if topology == "mobile" else GRID_PATTERNS


def tasks(plan: r1.Plan) -> list[GridTask]:
    if not selected(plan):
        return []
    out = [GridTask(topo, pat, k, s, duration(plan), reading) for s in range(1, plan.replicas + 1)
           for reading in plan.readings for topo in TOPOLOGIES for pat in patterns(topo)
           for k in plan.curves(CURVES)]
    # The costliest first (13x13 and the mobile network), so that no worker idles at the end.
    return sorted(out, key=lambda t: (-len(t.pairs()) * (3 if t.topology in ("13x13", "mobile") else 1), t.key()))


def row_of(task: GridTask, res: Any) -> dict[str, Any]:
    f = res.flows
    broken = res.route_events[res.route_events["event"] == "link_broken"]
    cwnds = [r1.time_average_cwnd(res.timeseries, int(r.flow), float(r.start_s), float(r.end_s))
             for r in f.itertuples(index=False)]
    sent = int(f["packets_sent"].sum())
    return {
        "topology": task.topology, "pattern": task.pattern, "flows": len(f), "scheme": task.scheme,
        "reading": task.reading, "seed": task.seed, "duration_s": float(task.duration),
        "throughput_kbps": float(f["throughput_kbps"].sum()),
        "flow_kbps": ";".join(f"{v:.3f}" for v in f["throughput_kbps"]),
        "avg_cwnd": float(sum(cwnds) / len(cwnds)), "route_changes": int(f["route_changes"].sum()),
        "link_breaks": int(len(broken)), "timeouts": int(f["timeouts"].sum()),
        "retransmissions": int(f["retransmissions"].sum()),
        "loss_rate": float(f["retransmissions"].sum() / sent) if sent else math.nan,
        "stream_errors": int(f["stream_errors"].sum()),
        "events": int(res.info["events"]), "wall_s": float(res.info["wall_s"]),
        "event_hash": event_hash_text(res.info["event_hash"]),
    }


def _describe(row: dict[str, Any]) -> str:
    return (f"Fig. 11: {row['topology']} {PATTERN_TEXT.get(row['pattern'], row['pattern'])} flow(s) "
            f"{row['scheme']} {row['reading']} seed {row['seed']}: {row['throughput_kbps']:.1f} kbit/s "
            f"({row['wall_s']:.1f} s)")


def run(plan: r1.Plan, *, out: Path | None, jobs: int, progress: Callable[[str], None] | None) -> pd.DataFrame:
    return r1.run_tasks(tasks(plan), row_of, name="seed001-fig11", columns=COLUMNS, out=out, jobs=jobs,
                        progress=progress, describe=_describe, csv_name=CSV_NAME)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """summary-fig11.csv: per configuration, n and the mean and interval of
    the aggregate throughput, and the means of the other measures."""
    rows = []
    for key, d in runs.groupby(["reading", "topology", "pattern", "scheme"], sort=True):
        m, h, n = mean_half(d["throughput_kbps"])
        rows.append(dict(zip(["reading", "topology", "pattern", "scheme"], key)) | {
            "n": n, "throughput_kbps_mean": m, "throughput_kbps_half95": h,
            **{f"{c}_mean": d[c].mean() for c in ("avg_cwnd", "route_changes", "link_breaks", "timeouts",
                                                  "loss_rate")}})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- report


def _values(runs: pd.DataFrame, topology: str, pattern: str, scheme: str) -> pd.Series:
    return runs.loc[(runs["topology"] == topology) & (runs["pattern"] == pattern) & (runs["scheme"] == scheme),
                    "throughput_kbps"]


def _mean(runs: pd.DataFrame, topology: str, pattern: str, scheme: str) -> float:
    v = _values(runs, topology, pattern, scheme)
    return float(v.mean()) if len(v) else math.nan


def _gain(runs: pd.DataFrame, topology: str, pattern: str, better: str, worse: str) -> float:
    b, w = _mean(runs, topology, pattern, better), _mean(runs, topology, pattern, worse)
    return 100 * (b / w - 1) if w > 0 else math.nan


def fig10_text() -> str:
    """Fig. 10's traffic patterns, as we place them: the rows and columns used."""
    rows = []
    for name, (nr, nc) in GRIDS.items():
        for pat in GRID_PATTERNS:
            pairs = grid_flows(nr, nc, pat)
            along = sorted({s // nc for s, d in pairs if d == s + nc - 1})
            down = sorted({s for s, d in pairs if d != s + nc - 1})
            what = [f"row{'s' if len(along) > 1 else ''} {','.join(map(str, along))} left->right ({nc - 1} hops)"]
            if down:
                what.append(f"column{'s' if len(down) > 1 else ''} {','.join(map(str, down))} top->bottom "
                            f"({nr - 1} hops)")
            rows.append([name, PATTERN_TEXT.get(pat, pat), "; ".join(what) + (" (both flows)" if pat == "2o" else "")])
    return ("Fig. 10 (seed 001 §5.4), the grid traffic patterns as we place them (rows and columns from 0, "
            "nodes 200 m apart):\n" + text_table(["grid", "flows", "where"], rows, align="lll")
            + f"\nMobile: {MOBILE_NODES} nodes, {MOBILE_AREA_M:g} m x {MOBILE_AREA_M:g} m, random waypoint (0, "
              f"{MOBILE_SPEED_MPS:g}] m/s, no pause; {', '.join(MOBILE_FLOWS)} random pairs (seed {PAIRS_SEED}).")


# The gains §5.4 speaks of, as table columns: FeW over TCP, FeW's alpha in ADTCP, ADTCP over TCP.
GAINS = {("few", "tcp"): "FeW vs TCP", ("adtcp+few", "adtcp"): "ADTCP a=0.01 vs a=1", ("adtcp", "tcp"): "ADTCP vs TCP"}


def _fig11_table(runs: pd.DataFrame, topology: str, keys: list[str]) -> str:
    head = ["flows"] + [r1.curve_label(k) for k in keys]
    gains = [(b, w) for b, w in GAINS if b in keys and w in keys]
    head += [GAINS[b, w] for b, w in gains]
    rows = []
    for pat in patterns(topology):
        r = [PATTERN_TEXT.get(pat, pat)]
        r += [text(_values(runs, topology, pat, k), 1) if len(_values(runs, topology, pat, k)) else "not run"
              for k in keys]
        r += [gain_text(_gain(runs, topology, pat, b, w)) for b, w in gains]
        rows.append(r)
    return text_table(head, rows)


_TITLE = {"7x7": "(a) 7x7 grid", "13x13": "(b) 13x13 grid", "13x5": "(c) 13x5 grid",
          "mobile": "(d) mobile random (150 nodes)"}


def _judge(claim: Any, runs: pd.DataFrame) -> tuple[str, str]:
    """(measured, verdict) of one row of seed001_claims.csv for Fig. 11."""
    topo = claim.topology
    pats = str(claim.flows).split(";") if isinstance(claim.flows, str) else list(patterns(topo))
    b_key, _, b_pat = claim.better.partition("@")
    w_key, _, w_pat = claim.worse.partition("@")
    if b_pat:  # one curve at two flow counts
        pats = [f"{b_pat} vs {w_pat}"]
        b, w = _mean(runs, topo, b_pat, b_key), _mean(runs, topo, w_pat, w_key)
        gains = [100 * (b / w - 1) if w > 0 else math.nan]
    else:
        gains = [_gain(runs, topo, p, b_key, w_key) for p in pats]
    if any(math.isnan(g) for g in gains):
        return "not run", ""
    measured = ", ".join(f"{PATTERN_TEXT.get(p, p)}: {gain_text(g)}" for p, g in zip(pats, gains))
    if claim.expect == "smaller than 7x7":
        here = sum(gains) / len(gains)
        there = [_gain(runs, "7x7", p, b_key, w_key) for p in pats]
        if any(math.isnan(g) for g in there):
            return measured, ""
        ref = sum(there) / len(there)
        return f"mean {gain_text(here)} against 7x7's {gain_text(ref)}", "holds" if here < ref else "does not hold"
    ok = {"better": lambda g: g > 0, "not better": lambda g: g < TOLERANCE_PCT,
          "at least": lambda g: g >= -TOLERANCE_PCT}.get(claim.expect, lambda g: g >= claim.gain_pct)
    held = sum(ok(g) for g in gains)
    if not isinstance(claim.expect, str) and all(g > 0 for g in gains) and held < len(gains):
        return measured, "partly"  # better, but by less than the paper's number
    return measured, "holds" if held == len(gains) else "partly" if held else "does not hold"


RULES = (f"Verdicts over the flow counts listed: better = above; not better = less than +{TOLERANCE_PCT:g}% above; "
         f"at least = no more than {TOLERANCE_PCT:g}%\nbelow; +N% = at least N% above (partly: above by less); "
         "holds at every count, partly at some. Gains: ratio of the\nmean aggregate throughputs over seeds, minus 1.")


def report_claims(runs: pd.DataFrame) -> str:
    c = r1.claims()
    if c is None:
        return "(data/seed001_claims.csv not found)"
    head = ["topology", "comparison", "paper", "measured", "verdict", "the paper says (seed 001)"]
    rows = []
    for claim in c[c["figure"] == "fig11"].itertuples(index=False):
        b, _, bp = claim.better.partition("@")
        w, _, wp = claim.worse.partition("@")
        comp = (f"{r1.curve_label(b)}, {bp} vs {wp} flows" if bp else f"{r1.curve_label(b)} vs {r1.curve_label(w)}")
        paper = claim.expect if isinstance(claim.expect, str) else f"+{claim.gain_pct:g}%"
        measured, verdict = _judge(claim, runs)
        rows.append([claim.topology, comp, paper, measured, verdict, f"{claim.section}: {claim.quote}"])
    return text_table(head, rows, align="llllll")


def report(runs: pd.DataFrame, plan: r1.Plan) -> str:
    out = [fig10_text()]
    keys = plan.curves(CURVES)
    n = int(runs.groupby(["reading", "topology", "pattern", "scheme"]).size().min()) if len(runs) else 0
    for reading in plan.readings:
        r = runs[runs["reading"] == reading]
        out += ["", f"Fig. 11 (seed 001 §5.4), as tables: aggregate throughput (kbit/s) over DSR, "
                    f"{duration(plan):g} s; {reading} reading;\nn = {n} seed(s) per cell, mean ± {METHOD}."]
        for topo in TOPOLOGIES:
            out += ["", f"Fig. 11{_TITLE[topo]}", _fig11_table(r, topo, keys)]
        out += ["", "The paper's statements on Fig. 11 beside the measured gains:", report_claims(r), RULES]
    if len(runs) and (runs["stream_errors"] > 0).any():
        out.append(f"WARNING: {int((runs['stream_errors'] > 0).sum())} run(s) of Fig. 11 delivered a byte stream "
                   "with gaps or reordering (stream_errors > 0).")
    return "\n".join(out)
