"""Seed 004's Tables 2-5 computed from the lab's results, and the testbed's.

Table 2: means over runs of throughput (for the two-flow plots the total of
both flows), of each run's RTT mean and of its RTT standard deviation (for
two flows, the average over the flows), per treatment and plot (§3.2).
Table 3: p values of the ANOVA F, Welch and Brown-Forsythe tests across the
8 treatments, per plot and metric (§3.3). Table 4: the best homogeneous
subset of Scheffé's test. Table 5: percent change of each Table 2 mean with
respect to treatment 1, marked where Dunnett's T3 finds the difference
significant (the paper's bold entries).
"""

from __future__ import annotations

import math

import pandas as pd

from ... import stats
from .._framework import data_frame
from .design import PLOTS, TREATMENTS

__all__ = ["METRICS", "per_run", "table2", "table3", "table4", "table5", "t3_matrices", "reference_table2",
           "PAPER_TABLE3", "PAPER_TABLE4"]

# metric -> (title, digits, higher is better)
METRICS: dict[str, tuple[str, int, bool]] = {
    "throughput_mbps": ("Throughput (Mbit/s)", 2, True),
    "rtt_mean_ms": ("Average RTT (ms)", 1, False),
    "rtt_std_ms": ("Standard deviation of RTT (ms)", 1, False),
}
REFERENCE = "1"  # Table 5's reference treatment (the paper's recommendation)

# Seed 004 Table 3, as printed: every p value is 0.000 (< 0.0005) except
# the 4by2 plot's throughput (ANOVA F, Welch, Brown-Forsythe).
PAPER_TABLE3 = {("4by2", "throughput_mbps"): (0.005, 0.024, 0.006)}

# Seed 004 Table 4 (Kawadia & Kumar 2005): the best Scheffé homogeneous
# subset per plot and metric, as printed (best mean first); None = "All
# treatments".
PAPER_TABLE4: dict[str, tuple[str | None, str, str]] = {
    "1hop": ("7,3", "1,5", "2,6,1,5"),
    "2hop": ("7", "5,1,6,2", "1,6,2"),
    "3hop": ("7,1,5,3,2", "1,5,2,6", "5,1,2,6"),
    "4hop": ("7,5,3", "1,5,6,2", "1,5,6,2"),
    "5hop": ("5,7,1", "5,1", "5,1,6,2"),
    "6hop": ("1,7,5,4", "5,1,6,2,3", "5,1,6,2,7,0,3"),
    "2by2": ("7,3,4,1", "1,5,2,6", "1,5,2,6"),
    "3by2": ("7,3", "5,1,2,6", "1,5,2,6"),
    "4by2": (None, "5,1,2,6", "5,1,6,2"),
}


def per_run(flows: pd.DataFrame) -> pd.DataFrame:
    """One row per run from `lab.load`'s flows table: treatment, plot,
    replica, seed, status and the three responses (NaN for a failed run)."""
    if not len(flows):
        return pd.DataFrame(columns=["treatment", "plot", "replica", "seed", "status", *METRICS, "timeouts"])
    g = flows.groupby("key", sort=False)
    out = g.agg(treatment=("treatment", "first"), plot=("plot", "first"), replica=("replica", "first"),
                seed=("seed", "first"), status=("status", "first"),
                throughput_kbps=("throughput_kbps", lambda s: s.sum(min_count=1)),
                rtt_mean_ms=("rtt_mean_ms", "mean"), rtt_std_ms=("rtt_std_ms", "mean"),
                timeouts=("timeouts", "sum"))
    out["throughput_mbps"] = out.pop("throughput_kbps") / 1000.0
    out["treatment"] = out["treatment"].astype(str)
    return out.reset_index()[["key", "treatment", "plot", "replica", "seed", "status", *METRICS, "timeouts"]]


def _order(df: pd.DataFrame, index: list[str], columns: list[str]) -> pd.DataFrame:
    return df.reindex(index=[i for i in index if i in df.index], columns=[c for c in columns if c in df.columns])


def table2(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """metric -> means (rows: treatments, columns: plots)."""
    out = {}
    for m in METRICS:
        t = runs.pivot_table(index="treatment", columns="plot", values=m, aggfunc="mean")
        out[m] = _order(t, list(TREATMENTS), list(PLOTS))
    return out


def reference_table2() -> dict[str, pd.DataFrame] | None:
    """The testbed's Table 2 (data/seed004_table2.csv in this package), same shape."""
    ref = data_frame(__package__, "seed004_table2.csv")
    if ref is None:
        return None
    ref["treatment"] = ref["treatment"].astype(str)
    return {m: ref[ref["metric"] == m].set_index("treatment")[list(PLOTS)] for m in METRICS}


def _groups_ok(d: pd.DataFrame, value: str) -> bool:
    """At least two treatments, each with two or more finite values."""
    n = d.dropna(subset=[value]).groupby("treatment")[value].count()
    return len(n) >= 2 and bool((n >= 2).all())


def table3(runs: pd.DataFrame) -> pd.DataFrame:
    """Rows: (plot, metric); columns anova_p, welch_p, bf_p (NaN where a
    test is undefined, e.g. Welch with a zero-variance treatment)."""
    rows = []
    for p in [p for p in PLOTS if p in set(runs["plot"])]:
        d = runs[runs["plot"] == p]
        for m in METRICS:
            r = {"plot": p, "metric": m, "anova_p": math.nan, "welch_p": math.nan, "bf_p": math.nan}
            if _groups_ok(d, m):
                try:
                    o = stats.oneway(d, m, "treatment")
                    r.update(anova_p=o["anova_p"], welch_p=o["welch_p"], bf_p=o["bf_p"])
                except stats.StatsInputError:
                    pass
            rows.append(r)
    return pd.DataFrame(rows)


def table4(runs: pd.DataFrame) -> pd.DataFrame:
    """Rows: plots; one column per metric holding the best Scheffé subset
    (list of treatments, best mean first), or None where undefined."""
    rows = []
    for p in [p for p in PLOTS if p in set(runs["plot"])]:
        d = runs[runs["plot"] == p]
        r: dict[str, object] = {"plot": p}
        for m, (_, _, higher) in METRICS.items():
            try:
                r[m] = stats.best_subset(d, m, "treatment", higher_is_better=higher) if _groups_ok(d, m) else None
            except stats.StatsInputError:
                r[m] = None
        rows.append(r)
    return pd.DataFrame(rows).set_index("plot")


def t3_matrices(runs: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """(plot, metric) -> Dunnett's T3 all-pairs p values across treatments
    (computed once: scikit-posthocs' T3 takes about a second per call)."""
    out = {}
    for p in [p for p in PLOTS if p in set(runs["plot"])]:
        d = runs[runs["plot"] == p]
        for m in METRICS:
            if _groups_ok(d, m):
                try:
                    out[(p, m)] = stats.dunnett_t3(d, m, "treatment")
                except stats.StatsInputError:
                    pass
    return out


def table5(means: dict[str, pd.DataFrame], t3: dict[tuple[str, str], pd.DataFrame] | None = None
           ) -> dict[str, tuple[pd.DataFrame, pd.DataFrame | None]]:
    """metric -> (percent change w.r.t. treatment 1, Dunnett T3 p value of
    each treatment against treatment 1, or None without ``t3``)."""
    out = {}
    for m, t in means.items():
        change = pd.DataFrame({p: stats.percent_change(t[p], REFERENCE) for p in t.columns
                               if REFERENCE in t.index and not math.isnan(t.loc[REFERENCE, p])})
        sig = None
        if t3 is not None:
            sig = pd.DataFrame(index=change.index, columns=change.columns, dtype=float)
            for p in change.columns:
                mat = t3.get((p, m))
                if mat is not None and REFERENCE in mat.columns:
                    sig[p] = mat[REFERENCE].reindex(change.index).astype(float)
        out[m] = (change, sig)
    return out
