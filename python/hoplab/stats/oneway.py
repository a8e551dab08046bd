"""One-way tests of equal means and their assumption checks, as seed 004 ran them in SPSS 12
(Kawadia & Kumar 2005, §3.3 and Table 3): the ANOVA F test, Welch's and Brown-Forsythe's robust
tests of means, Levene's test of equal variances and Shapiro-Wilk's test of normality."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.oneway import anova_oneway

from ._groups import split


def _finite(x) -> float:
    x = float(x)
    return x if np.isfinite(x) else float("nan")


def oneway(df: pd.DataFrame, value: str, group: str) -> dict:
    """One-way tests of `value` across the levels of `group`.

    Returns a dict:

    - ``anova_F, anova_df1, anova_df2, anova_p``: the classic ANOVA F test
      (``scipy.stats.f_oneway``; SPSS ONEWAY "ANOVA" table, "Between Groups" F and Sig.).
    - ``welch_F, welch_df2, welch_p``: Welch's test of equal means without equal variances
      (``statsmodels anova_oneway(use_var="unequal")``; SPSS "Robust Tests of Equality of Means",
      row "Welch"; R ``oneway.test(var.equal=FALSE)``). df1 is k-1. NaN when a group has zero
      variance (its Welch weight n/s² is infinite).
    - ``bf_F, bf_df2, bf_p``: the Brown-Forsythe (1974) test of equal MEANS
      (``anova_oneway(use_var="bf")``, its ``pvalue2`` on df (k-1, df_denom); SPSS's
      "Brown-Forsythe" row; R ``onewaytests::bf.test``). Not the Brown-Forsythe test of variances.
      statsmodels' own ``pvalue`` uses Mehrotra's (1997) corrected numerator df, which SPSS does
      not.
    - ``levene_W, levene_p``: Levene's test of equal variances on absolute deviations from the
      group MEANS (``scipy.stats.levene(center="mean")``), SPSS's "Test of Homogeneity of
      Variances". (``center="median"`` would be the Brown-Forsythe variance test, not SPSS's.)
    - ``shapiro``: DataFrame indexed by group with columns ``n, W, p``: Shapiro-Wilk per group
      (``scipy.stats.shapiro``; SPSS EXAMINE "Tests of Normality", Shapiro-Wilk columns).
      NaN for a group with fewer than 3 values or zero variance, where the test is undefined.

    Missing values (failed runs) are dropped first. Raises ``StatsInputError`` (a ValueError,
    naming the column or group) for fewer than 2 groups, a group with fewer than 2 values, or
    zero variance in every group.
    """
    g = split(df, value, group)
    k = len(g.samples)
    n_total = int(g.n.sum())

    anova = stats.f_oneway(*g.samples)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        welch = anova_oneway(g.samples, use_var="unequal", welch_correction=True)
        bf = anova_oneway(g.samples, use_var="bf")
    levene = stats.levene(*g.samples, center="mean")

    rows = []
    for label, s in zip(g.labels, g.samples):
        if len(s) < 3 or np.ptp(s) == 0:
            rows.append((label, len(s), float("nan"), float("nan")))
        else:
            sw = stats.shapiro(s)
            rows.append((label, len(s), float(sw.statistic), float(sw.pvalue)))
    shapiro = pd.DataFrame(rows, columns=[group, "n", "W", "p"]).set_index(group)

    welch_ok = all(np.ptp(s) > 0 for s in g.samples)
    nan = float("nan")
    return {
        "anova_F": _finite(anova.statistic),
        "anova_df1": k - 1,
        "anova_df2": n_total - k,
        "anova_p": _finite(anova.pvalue),
        "welch_F": _finite(welch.statistic) if welch_ok else nan,
        "welch_df2": _finite(welch.df_denom) if welch_ok else nan,
        "welch_p": _finite(welch.pvalue) if welch_ok else nan,
        "bf_F": _finite(bf.statistic),
        "bf_df2": _finite(bf.df_denom),
        "bf_p": _finite(bf.pvalue2),
        "levene_W": _finite(levene.statistic),
        "levene_p": _finite(levene.pvalue),
        "shapiro": shapiro,
    }
