"""Per-cell summaries: SPSS's "Descriptives" table of ONEWAY (N, Mean, Std. Deviation,
Std. Error, 95% Confidence Interval for Mean)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ._groups import StatsInputError, column_list, numeric_column


def describe(df: pd.DataFrame, value: str, by, confidence: float = 0.95) -> pd.DataFrame:
    """Mean, standard deviation and t confidence interval of `value` per cell of `by`.

    `by` is one column name or a list of them (e.g. ``["treatment", "plot"]``). Returns one row
    per cell with columns ``[*by, n, mean, std, sem, ci_low, ci_high]``: `std` is the sample
    standard deviation (ddof=1), `sem` = std/sqrt(n), and the interval is mean ± t(1-α/2, n-1)·sem
    from ``scipy.stats.t`` — SPSS's "95% Confidence Interval for Mean". Missing values of `value`
    (failed runs) are dropped and not counted in `n`; a cell with one value has NaN std/sem/CI.
    """
    col = numeric_column(df, value)
    by = column_list(df, "by", by)
    if not 0 < confidence < 1:
        raise StatsInputError(f"confidence: must be between 0 and 1, got {confidence}")
    frame = df[by].copy()
    frame["_v"] = col
    frame = frame[frame["_v"].notna()]
    if frame.empty:
        raise StatsInputError(f"{value}: no non-missing values")
    g = frame.groupby(by, sort=True, dropna=False, observed=True)["_v"]
    out = g.agg(n="count", mean="mean", std=lambda s: s.std(ddof=1)).reset_index()
    out["n"] = out["n"].astype(int)
    out["sem"] = out["std"] / np.sqrt(out["n"])
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(0.5 + confidence / 2, out["n"] - 1) * out["sem"]
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    return out[[*by, "n", "mean", "std", "sem", "ci_low", "ci_high"]]

