"""The text of `hoplab reproduce seed004`: Tables 2-5 beside the testbed's
(the paper's), the mechanisms behind the numbers, and a verdict per finding."""

from __future__ import annotations

import math

import pandas as pd

from ..._table import text_table
from .design import (CONTROLS, DEFAULT_CONTROL, MSS_BYTES, PLOTS, RECEIVE_WINDOW_BYTES, TREATMENT_NAMES, TREATMENTS,
                     clamp)
from .tables import (METRICS, PAPER_TABLE3, PAPER_TABLE4, REFERENCE, t3_matrices, table2, table3, table4,
                             table5, reference_table2)
from .verdict import verdicts

__all__ = ["report"]


def _num(v: float, digits: int) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _plots(runs: pd.DataFrame) -> list[str]:
    present = set(runs["plot"])
    return [p for p in PLOTS if p in present]


def _header(runs: pd.DataFrame, replicas: int, duration: float, control: str) -> list[str]:
    preamble, basic = CONTROLS[control]
    failed = int((runs["status"] != "ok").sum())
    return [
        "Seed 004 (Kawadia & Kumar, SIGCOMM 2005 workshops), simulated: 8 treatments x "
        f"{len(_plots(runs))} plot(s) x {replicas} run(s) of {duration:g} s, randomised order.",
        f"802.11b at 11 Mbit/s (RTS/CTS/ACK at {basic:g} Mbit/s, {preamble} PLCP preamble: --control {control}), "
        "MAC retry limit 8, 100-packet buffers, "
        f"MTU 2276 B (MSS {MSS_BYTES} B), Linux receiver,",
        f"static routes, two-ray ground (250 m range, 550 m carrier sense), nodes 200 m apart, receive window "
        f"{RECEIVE_WINDOW_BYTES // 1024} KiB.",
        "Crossing plots: two perpendicular chains sharing a relay (2by2: the middle node; 3by2: both flows' "
        "first relay; 4by2: the middle node).",
        "Treatments: " + ", ".join(f"{t} {TREATMENT_NAMES[t]}" for t in TREATMENTS)
        + f"; clamp = ceil(3n/2): {', '.join(f'{n} hop {clamp(n)}' for n in range(1, 7))}.",
        f"Runs: {len(runs)}" + (f" ({failed} FAILED: their metrics are left out)" if failed else "") + ".",
    ]


def _table2_text(runs: pd.DataFrame, sim: dict[str, pd.DataFrame], ref: dict[str, pd.DataFrame] | None
                 ) -> list[str]:
    plots = _plots(runs)
    out = ["", "Table 2. Means over runs: simulated (testbed). Two-flow plots: total throughput, "
           "RTT averaged over the flows."]
    for m, (title, digits, _) in METRICS.items():
        rows = []
        for t in TREATMENTS:
            row = [t]
            for p in plots:
                s = sim[m].loc[t, p] if t in sim[m].index and p in sim[m].columns else math.nan
                r = ref[m].loc[t, p] if ref is not None else math.nan
                row.append(f"{_num(s, digits)} ({_num(r, digits)})")
            rows.append(row)
        out += ["", title, text_table(["treatment", *plots], rows)]
    return out


def _table3_text(runs: pd.DataFrame) -> list[str]:
    t3 = table3(runs)
    rows = []
    for p in _plots(runs):
        row = [p]
        for m in METRICS:
            r = t3[(t3["plot"] == p) & (t3["metric"] == m)].iloc[0]
            row.append(",".join(_num(r[c], 3) for c in ("anova_p", "welch_p", "bf_p")))
        rows.append(row)
    paper = "; ".join(f"{p} {METRICS[m][0].split(' (')[0].lower()} {','.join(f'{v:.3f}' for v in ps)}"
                      for (p, m), ps in PAPER_TABLE3.items())
    return ["", "Table 3. p values (ANOVA F, Welch, Brown-Forsythe) across the 8 treatments, simulated.",
            text_table(["plot", "throughput", "avg RTT", "std of RTT"], rows),
            f"Testbed: 0.000 everywhere except {paper}. '-': undefined (a treatment with no spread)."]


def _subset_text(s: list | None) -> str:
    if s is None:
        return "-"
    return "All" if len(s) == len(TREATMENTS) else "{" + ", ".join(str(x) for x in s) + "}"


def _table4_text(runs: pd.DataFrame) -> list[str]:
    t4 = table4(runs)
    rows = []
    for p in t4.index:
        row = [p]
        for i, m in enumerate(METRICS):
            paper = PAPER_TABLE4[p][i]
            row += [_subset_text(t4.loc[p, m]), "All" if paper is None else "{" + paper.replace(",", ", ") + "}"]
        rows.append(row)
    return ["", "Table 4. Best homogeneous subset (Scheffe, alpha 0.05), best mean first: simulated | testbed.",
            text_table(["plot", "throughput", "(testbed)", "avg RTT", "(testbed)", "std of RTT", "(testbed)"],
                       rows, align="lllllll")]


def _pct(v: float) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.3g}".replace("+0", "+").replace("e+", "e")


def _table5_text(runs: pd.DataFrame, means: dict[str, pd.DataFrame], ref: dict[str, pd.DataFrame] | None,
                 t3: dict) -> list[str]:
    sim = table5(means, t3)
    paper = table5(ref) if ref is not None else None
    plots = _plots(runs)
    out = ["", f"Table 5. Percent change w.r.t. treatment {REFERENCE}: simulated (paper). "
           "* = significant by Dunnett's T3 at 0.05 (the paper's bold)."]
    for m, (title, _, _) in METRICS.items():
        change, sig = sim[m]
        rows = []
        for t in TREATMENTS:
            row = [t]
            for p in plots:
                v = change.loc[t, p] if p in change.columns else math.nan
                star = "*" if sig is not None and p in sig.columns and sig.loc[t, p] < 0.05 else ""
                pv = paper[m][0].loc[t, p] if paper is not None else math.nan
                row.append(f"{_pct(v)}{star} ({_pct(pv)})")
            rows.append(row)
        out += ["", title, text_table(["treatment", *plots], rows)]
    return out


def _mechanism_text(runs: pd.DataFrame) -> list[str]:
    """What sets the RTT: the bottleneck queue, and what drops packets."""
    cols = ["bottleneck_queue", "overflow_drops", "retry_drops", "timeouts"]
    if not set(cols) <= set(runs.columns):
        return []
    g = runs.groupby(["plot", "treatment"])[cols].mean()
    rows = []
    for p in _plots(runs):
        row = [p]
        for t in ("0", "3", "2", "5"):
            if (p, t) in g.index:
                r = g.loc[(p, t)]
                row.append(f"{r['bottleneck_queue']:.1f} / {r['overflow_drops']:.0f} / {r['retry_drops']:.0f} / "
                           f"{r['timeouts']:.1f}")
            else:
                row.append("-")
        rows.append(row)
    out = ["", "Mechanisms, simulated (means per run): longest mean interface queue of any node (packets, of 100) / "
           "TCP packets dropped by queue overflow / by the MAC retry limit / TCP timeouts.",
           text_table(["plot", "0 default", "3 rts_off", "2 clamp", "5 clamp+rts_off"], rows)]
    clamped = runs[runs["treatment"].isin(["1", "2", "5", "6"]) & runs["plot"].isin(["2by2", "3by2", "4by2"])]
    if len(clamped):
        g = clamped.groupby("plot")[["timeouts", "overflow_drops", "retry_drops"]].mean()
        spurious = g["timeouts"] / (1 + g["overflow_drops"] + g["retry_drops"])
        worst = spurious.idxmax()
        lost = g.loc[worst, "overflow_drops"] + g.loc[worst, "retry_drops"]
        if g.loc[worst, "timeouts"] > 2 * lost:
            # Traced on 3by2, treatment 2: a receiver's TCP ACK waits in its
            # MAC while the shared relay's neighbourhood carries the other
            # flow (RTS unanswered, backoff frozen) past the sender's RTO.
            out.append(f"Crossing plots with the clamp: {g.loc[worst, 'timeouts']:.0f} timeouts per run on {worst} "
                       f"against {lost:.0f} TCP packets lost: most are spurious (a TCP ACK held >200 ms in a "
                       "busy MAC; hoplab's RTO is RFC 6298's, floor 200 ms, where Linux's is SRTT + at least 200 ms).")
    return out


def report(runs: pd.DataFrame, *, replicas: int, duration: float, control: str = DEFAULT_CONTROL) -> str:
    ok = runs[runs["status"] == "ok"]
    out = _header(runs, replicas, duration, control)
    if not len(ok):
        return "\n".join(out + ["", "No run finished: nothing to tabulate."])
    sim, ref, t3 = table2(ok), reference_table2(), t3_matrices(ok)
    out += _table2_text(ok, sim, ref) + _table3_text(ok) + _table4_text(ok) + _table5_text(ok, sim, ref, t3)
    out += _mechanism_text(ok) + ["", *verdicts(ok, sim, ref, t3)]
    return "\n".join(out)
