"""Per-cell mean and confidence interval of a value column.

One small function so that `hoplab.stats.describe` (same columns, same
numbers) can replace it. The interval is Student's t: mean ± t(1 - (1 -
confidence)/2, n - 1) · s / √n, with s the sample standard deviation
(ddof = 1). A cell with one value has no interval (NaN).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st

COLUMNS = ["n", "mean", "std", "sem", "ci_low", "ci_high"]


def describe(df: pd.DataFrame, value: str, by: list[str], confidence: float = 0.95) -> pd.DataFrame:
    """DataFrame [*by, n, mean, std, sem, ci_low, ci_high], one row per cell
    (NaN values dropped; cells in sorted order of ``by``)."""
    data = df[[*by, value]].dropna(subset=[value])
    g = data.groupby(by, sort=True, dropna=False)[value] if by else None
    if g is None:
        parts = pd.DataFrame({"n": [len(data)], "mean": [data[value].mean()], "std": [data[value].std(ddof=1)]})
    else:
        parts = g.agg(n="count", mean="mean", std=lambda s: s.std(ddof=1)).reset_index()
    n = parts["n"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        sem = parts["std"].to_numpy(dtype=float) / np.sqrt(n)
        t = np.where(n > 1, _st.t.ppf(0.5 + confidence / 2.0, np.maximum(n - 1.0, 1.0)), np.nan)
    parts["n"] = parts["n"].astype("int64")
    parts["sem"] = sem
    parts["ci_low"] = parts["mean"] - t * sem
    parts["ci_high"] = parts["mean"] + t * sem
    return parts[[*by, *COLUMNS]]
