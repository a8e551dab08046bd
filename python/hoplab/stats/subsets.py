"""Homogeneous subsets of group means, as SPSS prints them for Scheffé's test.

statsmodels has homogeneous subsets only in its sandbox (a step-down Newman-Keuls style search,
not SPSS's table), so this is the short rule SPSS documents (ONEWAY POSTHOC subcommand): sort the
group means ascending; when group sizes differ use their harmonic mean as the common n; a run of
adjacent ordered means is homogeneous when the Scheffé test of its largest against its smallest
mean is not significant at alpha; the table lists the maximal such runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ._groups import Groups, StatsInputError, split

METHODS = ("scheffe",)


def _range_p(g: Groups, lo: float, hi: float) -> float:
    """Scheffé p-value of the difference hi - lo with the harmonic-mean group size."""
    k = len(g.samples)
    mse, df_err = g.mse()
    n_h = k / np.sum(1.0 / g.n)
    f = (hi - lo) ** 2 / (mse * 2.0 / n_h) / (k - 1)
    return float(stats.f.sf(f, k - 1, df_err))


def _subsets(g: Groups, alpha: float) -> list[list[int]]:
    order = list(np.argsort(g.means, kind="stable"))
    m = g.means[order]
    k = len(order)
    runs: list[list[int]] = []
    end_prev = -1
    for i in range(k):
        j = i
        while j + 1 < k and _range_p(g, m[i], m[j + 1]) > alpha:
            j += 1
        if j > end_prev:  # a run ending where the previous one did is inside it
            runs.append(order[i:j + 1])
            end_prev = j
    return runs


def homogeneous_subsets(df: pd.DataFrame, value: str, group: str, alpha: float = 0.05,
                        method: str = "scheffe") -> list[list]:
    """SPSS's "Homogeneous Subsets" table for Scheffé's test, as lists of group labels.

    Subsets are listed as SPSS numbers them (subset 1 holds the smallest means) and each lists
    its groups by ascending mean. Groups in one subset have means that do not differ
    significantly at `alpha` by Scheffé's test with the harmonic mean of the group sizes
    (SPSS: "Uses Harmonic Mean Sample Size"). With equal group sizes this agrees with the
    pairwise `scheffe` p-values; with unequal sizes it is SPSS's approximation, not the pairwise
    test. Missing values dropped; degenerate input raises ``StatsInputError``.
    """
    if method not in METHODS:
        raise StatsInputError(f"method: {method!r} is not supported (supported: {', '.join(METHODS)})")
    if not 0 < alpha < 1:
        raise StatsInputError(f"alpha: must be between 0 and 1, got {alpha}")
    g = split(df, value, group)
    return [[g.labels[i] for i in run] for run in _subsets(g, alpha)]


def best_subset(df: pd.DataFrame, value: str, group: str, higher_is_better: bool = True,
                alpha: float = 0.05) -> list:
    """The Scheffé homogeneous subset that holds the best mean, best first.

    Seed 004 Table 4 (Kawadia & Kumar 2005): "the best homogeneous subset" per topology and
    response, e.g. throughput (higher is better) or RTT (lower is better). The best mean lies in
    exactly one SPSS subset (the last one when higher is better, the first when lower is);
    its groups are returned from the best mean to the worst.
    """
    subsets = homogeneous_subsets(df, value, group, alpha=alpha)
    best = subsets[-1] if higher_is_better else subsets[0]
    return list(reversed(best)) if higher_is_better else list(best)
