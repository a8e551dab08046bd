"""Figs. 5 and 8 of seed 001 (§3.2, §5.2): the average congestion window W
against the loss rate p over static chains, beside the TCP-friendly window
of Eq. 1 (`hoplab.models.tcp_friendly_window`).

* Fig. 5 (§3.2): TCP (alpha 1), static routing, chains of 4-22 hops (the
  command's --hops) with 1, 2, 4 and 8 flows, 500 s: "The values of W and
  p were obtained by time-average in 500-second simulation sessions with 1,
  2, 4, and 8 TCP flows for a chain topology with its hop number varying
  from 4 to 22". The curves are Eq. 1 with K = 2 (TFRC's T0 = 2 RTT) and
  K = 0 (Eq. 7's bound), §4: "Fig. 5 also shows ... the case of K = 2".
* Fig. 8 (§5.2): the same runs with FeW's alpha 0.1, 0.04 and 0.01 ("The
  data were collected and organized with static routing in the same way
  used for the results shown in Fig. 5"), with alpha 1 as the reference.

What the paper leaves open, and our reading:
* a point is a configuration (flows, hops, alpha), its W and p the means
  over seeds of each run's values;
* a run's W: the time average of each flow's cwnd over the run, averaged
  over its flows (as Fig. 9(c, d); cwnd as ns-2's cwnd_, which may grow past
  window_ 20 in slow start: at most a few percent of the average);
* a run's p: retransmitted / sent data segments over all its flows (the
  flows' `loss_rate`, ns-2's nrexmitpack_ / ndatapack_): §3.2 takes "the loss
  perceived by the end user". Padhye's p counts loss indications, one per
  fast retransmit or timeout; the table prints that ratio too (p_ind);
* every flow from one end of the chain to the other, starting at 0 s, and
  the rest of the settings as Fig. 9's (`experiment.Task`, ns-2's reading
  by default). FeW's alphas below 1 run when `few` is among --schemes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ... import models
from ..._table import text_table
from ...result import event_hash_text
from . import experiment as r1
from .intervals import METHOD, mean_half, text

DURATION_S = 500.0                 # §3.2: "500-second simulation sessions"
FLOWS = (1, 2, 4, 8)               # §3.2: "1, 2, 4, and 8 TCP flows"
FIG5_ALPHAS = (1.0,)
FIG8_ALPHAS = (0.1, 0.04, 0.01)    # §5.2: alpha = 0.01, 0.04 and 0.1
K_TFRC = 2.0                       # §3.2: "T0 = 2RTT and b = 1" in TFRC
CONFORM_FACTOR = 2.0               # a point conforms if W is within x2 of Eq. 1 (our rule)
CSV_NAME = "runs-fig5-8.csv"
SUMMARY_NAME = "summary-fig5-8.csv"
COLUMNS = ["hops", "flows", "alpha", "reading", "seed", "duration_s", "W", "p", "p_ind", "throughput_kbps",
           "packets_sent", "retransmissions", "timeouts", "fast_retransmits", "rtt_mean_ms", "stream_errors",
           "events", "wall_s", "event_hash"]


@dataclass(frozen=True)
class WindowTask:
    hops: int
    flows: int
    alpha: float
    seed: int
    duration: float
    reading: str = "ns2"

    @property
    def scheme(self) -> str:
        """The SCHEMES entry whose field the run sets (for `check_schemes`)."""
        return "tcp" if self.alpha == 1.0 else "few"

    def key(self) -> tuple:
        return (int(self.hops), int(self.flows), float(self.alpha), int(self.seed), float(self.duration),
                self.reading)

    def scenario(self) -> dict[str, Any]:
        # Fig. 9's static chain, so that both figures share every setting.
        sc = r1.Task("chain", self.hops, self.flows, "static", "tcp", self.seed, self.duration,
                     self.reading).scenario()
        if self.alpha != 1.0:
            sc["tcp"]["few_alpha"] = self.alpha
        sc["name"] = f"seed001-wp-chain{self.hops}-{self.flows}f-a{self.alpha:g}-{self.reading}"
        return sc


def selected(plan: r1.Plan) -> bool:
    return bool({"fig5", "fig8"} & set(plan.experiments))


def duration(plan: r1.Plan) -> float:
    return DURATION_S if plan.duration is None else float(plan.duration)


def alphas(plan: r1.Plan) -> tuple[float, ...]:
    out = list(FIG5_ALPHAS)
    if "fig8" in plan.experiments and "few" in plan.schemes:
        out += FIG8_ALPHAS
    return tuple(out)


def tasks(plan: r1.Plan) -> list[WindowTask]:
    if not selected(plan) or "tcp" not in plan.schemes:
        return []
    out = [WindowTask(h, n, a, s, duration(plan), reading) for s in range(1, plan.replicas + 1)
           for reading in plan.readings for a in alphas(plan) for n in FLOWS for h in plan.hops]
    return sorted(out, key=lambda t: (-(t.hops * t.flows), t.key()))


def row_of(task: WindowTask, res: Any) -> dict[str, Any]:
    f = res.flows
    sent = int(f["packets_sent"].sum())
    samples = int(f["rtt_samples"].sum())
    cwnds = [r1.time_average_cwnd(res.timeseries, int(r.flow), float(r.start_s), float(r.end_s))
             for r in f.itertuples(index=False)]
    indications = int(f["timeouts"].sum() + f["fast_retransmits"].sum())
    return {
        "hops": task.hops, "flows": task.flows, "alpha": task.alpha, "reading": task.reading, "seed": task.seed,
        "duration_s": float(task.duration), "W": float(np.mean(cwnds)),
        "p": int(f["retransmissions"].sum()) / sent if sent else math.nan,
        "p_ind": indications / sent if sent else math.nan,
        "throughput_kbps": float(f["throughput_kbps"].sum()), "packets_sent": sent,
        "retransmissions": int(f["retransmissions"].sum()), "timeouts": int(f["timeouts"].sum()),
        "fast_retransmits": int(f["fast_retransmits"].sum()),
        "rtt_mean_ms": float((f["rtt_mean_ms"] * f["rtt_samples"]).sum() / samples) if samples else math.nan,
        "stream_errors": int(f["stream_errors"].sum()),
        "events": int(res.info["events"]), "wall_s": float(res.info["wall_s"]),
        "event_hash": event_hash_text(res.info["event_hash"]),
    }


def _describe(row: dict[str, Any]) -> str:
    return (f"Fig. 5/8: chain {row['hops']}-hop {row['flows']} flow(s) alpha {row['alpha']:g} {row['reading']} "
            f"seed {row['seed']}: W {row['W']:.2f}, p {row['p']:.4f} ({row['wall_s']:.1f} s)")


def run(plan: r1.Plan, *, out: Path | None, jobs: int, progress: Callable[[str], None] | None) -> pd.DataFrame:
    df = r1.run_tasks(tasks(plan), row_of, name="seed001-fig5-8", columns=COLUMNS, out=out, jobs=jobs,
                      progress=progress, describe=_describe, csv_name=CSV_NAME)
    return df.sort_values(["reading", "alpha", "flows", "hops", "seed"],
                                                          ascending=[True, False, True, True, True])


def points(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (reading, alpha, flows, hops): W and p (means over seeds,
    with their intervals) and Eq. 1 at that p."""
    rows = []
    for (reading, alpha, flows, hops), d in runs.groupby(["reading", "alpha", "flows", "hops"], sort=True):
        (w, w_half, n), (p, p_half, _) = mean_half(d["W"]), mean_half(d["p"])
        eq1 = models.tcp_friendly_window(p, alpha, K_TFRC) if p > 0 else math.inf
        rows.append({"reading": reading, "alpha": alpha, "flows": flows, "hops": hops, "n": n, "W": w,
                     "W_half": w_half, "p": p, "p_half": p_half, "p_ind": d["p_ind"].mean(),
                     "eq1_K2": eq1, "eq1_K0": models.tcp_friendly_window(p, alpha, 0.0) if p > 0 else math.inf,
                     "ratio": w / eq1, "throughput_kbps": d["throughput_kbps"].mean()})
    return pd.DataFrame(rows)


summary = points  # summary-fig5-8.csv: the points


def _fig5_table(pts: pd.DataFrame, runs: pd.DataFrame) -> str:
    head = ["flows", "hops", "W (segments)", "p (%)", "p_ind (%)", "Eq.1 K=2", "Eq.1 K=0", "W / Eq.1"]
    rows = []
    for r in pts.itertuples(index=False):
        d = runs[(runs["alpha"] == r.alpha) & (runs["flows"] == r.flows) & (runs["hops"] == r.hops)
                 & (runs["reading"] == r.reading)]
        rows.append([r.flows, r.hops, text(d["W"], 2), text(d["p"], 2, 100), f"{100 * r.p_ind:.2f}",
                     f"{r.eq1_K2:.2f}", f"{r.eq1_K0:.2f}", f"{r.ratio:.2f}"])
    return text_table(head, rows)


def _fig8_table(pts: pd.DataFrame, fig8_alphas: tuple[float, ...]) -> str:
    head = ["flows", "hops"]
    for a in fig8_alphas:
        head += [f"W a={a:g}", f"p% a={a:g}", "W/Eq.1"]
    rows = []
    for (flows, hops), d in pts.groupby(["flows", "hops"], sort=True):
        r: list[Any] = [flows, hops]
        for a in fig8_alphas:
            x = d[d["alpha"] == a]
            r += ([f"{x['W'].iloc[0]:.2f}", f"{100 * x['p'].iloc[0]:.2f}", f"{x['ratio'].iloc[0]:.2f}"]
                  if len(x) else ["not run", "-", "-"])
        rows.append(r)
    return text_table(head, rows)


def _conformity(pts: pd.DataFrame) -> str:
    head = ["alpha", "points", "W range", "p range (%)", "median W/Eq.1", f"within x{CONFORM_FACTOR:g}",
            "above K=0 bound", "Spearman(W, p)"]
    rows = []
    for alpha, d in sorted(pts.groupby("alpha"), key=lambda kv: -kv[0]):
        within = ((d["ratio"] >= 1 / CONFORM_FACTOR) & (d["ratio"] <= CONFORM_FACTOR)).sum()
        rows.append([f"{alpha:g}", len(d), f"{d['W'].min():.2f}-{d['W'].max():.2f}",
                     f"{100 * d['p'].min():.2f}-{100 * d['p'].max():.2f}", f"{d['ratio'].median():.2f}",
                     f"{within}/{len(d)}", f"{(d['W'] > d['eq1_K0']).sum()}/{len(d)}", _spearman(d)])
    return text_table(head, rows)


def _spearman(d: pd.DataFrame) -> str:
    return f"{d['W'].corr(d['p'], method='spearman'):+.2f}" if len(d) > 2 else "-"


EQ1_P = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)


def eq1_curves() -> str:
    """The lines of Figs. 5 and 8 as a table, with §3.2's two numbers of Eq. 1."""
    cols = [(1.0, 0.0), (1.0, K_TFRC)] + [(a, K_TFRC) for a in FIG8_ALPHAS]
    head = ["p"] + [f"a={a:g} K={k:g}" for a, k in cols]
    rows = [[f"{p:g}"] + [f"{models.tcp_friendly_window(p, a, k):.2f}" for a, k in cols] for p in EQ1_P]
    w1, w2 = models.loss_for_window(1.0, 1.0, K_TFRC), models.loss_for_window(2.0, 1.0, K_TFRC)
    agrees = "agrees" if (round(w1, 2), round(w2, 2)) == (0.19, 0.12) else "DIFFERS"
    return ("Eq. 1 (seed 001 §3.2), the lines of Figs. 5 and 8: W (segments) at loss rate p\n"
            + text_table(head, rows)
            + f"\nComputed: W = 1 at p = {w1:.3f}, W = 2 at p = {w2:.3f} (alpha 1, K 2); §3.2: \"W < 1 demands "
              f"p > 0.19 while W < 2 demands p > 0.12\": {agrees}.")


# ---------------------------------------------------------------- claims


# The curves as seed001_claims.csv names them, and their labels.
ALPHA_OF = {"tcp": 1.0, "few": 0.01, "few0.04": 0.04, "few0.1": 0.1}
_LABEL = {1.0: "TCP a=1", 0.01: "FeW a=0.01", 0.04: "FeW a=0.04", 0.1: "FeW a=0.1"}


def _verdict(held: int, total: int) -> str:
    return "holds" if total and held == total else "partly" if held else "does not hold"


def _judge(claim: Any, pts: pd.DataFrame) -> tuple[str, str]:
    """(measured, verdict) of one row of seed001_claims.csv for Figs. 5 and 8."""
    alpha = ALPHA_OF[claim.better]
    d = pts[pts["alpha"] == alpha]
    if not len(d):
        return "not run", ""
    if claim.expect == "conforms":
        within = int(((d["ratio"] >= 1 / CONFORM_FACTOR) & (d["ratio"] <= CONFORM_FACTOR)).sum())
        med = float(d["ratio"].median())
        verdict = ("holds" if within >= 0.75 * len(d) else
                   "partly" if 1 / CONFORM_FACTOR <= med <= CONFORM_FACTOR else "does not hold")
        return f"W/Eq.1 median {med:.2f}, {within}/{len(d)} within x{CONFORM_FACTOR:g}", verdict
    if claim.expect == "falls":
        rho = float(d["W"].corr(d["p"], method="spearman")) if len(d) > 2 else math.nan
        return f"Spearman {rho:+.2f}", "holds" if rho < -0.5 else "partly" if rho < 0 else "does not hold"
    ref = pts[pts["alpha"] == ALPHA_OF[claim.worse]]
    both = d.merge(ref, on=["reading", "flows", "hops"], suffixes=("", "_ref"))
    if not len(both):
        return f"not run (needs alpha {ALPHA_OF[claim.worse]:g})", ""
    if claim.expect == "shift":
        # §5.2 reads the shift off Eq. 5, W = sqrt(alpha) W_1 at the same p: so each point's W is put on
        # W_1(p) = sqrt(1.5/p) (Eq. 7), since the curves' points lie at different p.
        shift = float((both["W"] * np.sqrt(both["p"] / 1.5)).median()
                      / (both["W_ref"] * np.sqrt(both["p_ref"] / 1.5)).median())
        stated = 1 + claim.gain_pct / 100
        verdict = "holds" if 1 / 1.5 <= shift / stated <= 1.5 else "partly" if shift < 1 else "does not hold"
        return f"W = {shift:.2f} W_1 ({100 * (shift - 1):+.0f}%)", verdict
    col = {"lower p": "p", "smaller W": "W"}[claim.expect]
    held = int((both[col] < both[f"{col}_ref"]).sum())
    return f"{held}/{len(both)} points, median {100 * float((both[col] / both[f'{col}_ref']).median() - 1):+.0f}%", \
        _verdict(held, len(both))


def report_claims(pts: pd.DataFrame, figure: str) -> str:
    c = r1.claims()
    if c is None:
        return "(data/seed001_claims.csv not found)"
    head = ["curve", "against", "paper", "measured", "verdict", "the paper says (seed 001)"]
    rows = []
    for claim in c[c["figure"] == figure].itertuples(index=False):
        against = "Eq. 1" if claim.worse == "eq1" else _LABEL[ALPHA_OF[claim.worse]] if claim.worse in ALPHA_OF \
            else "-"
        paper = claim.expect if math.isnan(claim.gain_pct) else f"W = {1 + claim.gain_pct / 100:.1f} W_1"
        measured, verdict = _judge(claim, pts)
        rows.append([_LABEL[ALPHA_OF[claim.better]], against, paper, measured, verdict,
                     f"{claim.section}: {claim.quote}"])
    return text_table(head, rows, align="llllll")


RULES = (f"Verdicts: conforms = W within x{CONFORM_FACTOR:g} of Eq. 1 (K = 2) at 3/4 of the points (partly: the "
         "median within); falls = Spearman\nrank correlation of W and p below -0.5 (partly: below 0); shift = the "
         "median of W / W_1(p) against alpha 1's within\nx1.5 of the stated ratio (partly: below 1); lower p, "
         "smaller W = at every (flows, hops) against alpha 1 (partly: at some).")


def report(runs: pd.DataFrame, plan: r1.Plan) -> str:
    out = [eq1_curves()]
    if not len(runs):
        return "\n".join(out + ["", "Figs. 5 and 8: not run (--schemes without tcp)."])
    pts = points(runs)
    n = int(runs.groupby(["reading", "alpha", "flows", "hops"]).size().min())
    chains = f"static chains, {duration(plan):g} s, {', '.join(map(str, FLOWS))} flow(s)"
    for reading in plan.readings:
        p = pts[pts["reading"] == reading]
        r = runs[runs["reading"] == reading]
        if "fig5" in plan.experiments:
            out += ["", f"Fig. 5 (seed 001 §3.2), as a table: average cwnd W against loss rate p (retransmitted / "
                        f"sent), TCP a=1;\n{chains}; {reading} reading; n = {n} seed(s) per point, mean ± {METHOD}."
                        "\nEq.1 at the measured p: K=2 (TFRC) and K=0 (Eq. 7's bound); p_ind = (fast retransmits + "
                        "timeouts) / sent.",
                    _fig5_table(p[p["alpha"] == 1.0], r[r["alpha"] == 1.0])]
        fig8_alphas = tuple(a for a in FIG8_ALPHAS if a in set(p["alpha"]))
        if "fig8" in plan.experiments and fig8_alphas:
            out += ["", f"Fig. 8 (seed 001 §5.2), as a table: W and p (%) with FeW's alpha; {chains}; {reading} "
                        f"reading;\nmeans over n = {n} seed(s) (their intervals: {SUMMARY_NAME}).",
                    _fig8_table(p, fig8_alphas)]
        out += ["", f"W against Eq. 1 (alpha, K = 2), per alpha; {reading} reading:", _conformity(p)]
        for fig in ("fig5", "fig8"):
            if fig in plan.experiments:
                out += ["", f"The paper's statements on {'Fig. 5' if fig == 'fig5' else 'Fig. 8'} beside the "
                            f"measured points; {reading} reading:", report_claims(p, fig)]
    out.append(RULES)
    if (runs["stream_errors"] > 0).any():
        out.append(f"WARNING: {int((runs['stream_errors'] > 0).sum())} run(s) of Figs. 5 and 8 delivered a byte "
                   "stream with gaps or reordering (stream_errors > 0).")
    return "\n".join(out)
