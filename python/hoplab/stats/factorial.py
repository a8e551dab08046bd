"""Factorial ANOVA over several factors (statsmodels OLS + anova_lm)."""

from __future__ import annotations

import pandas as pd
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

from ._groups import StatsInputError, column_list, numeric_column

TYPES = {1: 1, 2: 2, 3: 3, "I": 1, "II": 2, "III": 3}


def factorial_anova(df: pd.DataFrame, value: str, factors: list[str], typ=2) -> pd.DataFrame:
    """Full-factorial ANOVA of `value` on `factors` (all main effects and interactions).

    ``statsmodels.stats.anova.anova_lm`` of an OLS fit of ``value ~ C(f1) * C(f2) * ...``; the
    table has columns ``sum_sq, df, F, PR(>F)`` and rows named by factor (``"a"``, ``"a:b"``,
    ..., ``"Residual"``). `typ` is the sums-of-squares type, 1/2/3 or "I"/"II"/"III": type II
    (the default) matches R ``car::Anova(type=2)``; type III uses sum-to-zero contrasts, which
    makes it SPSS UNIANOVA's default "Type III Sum of Squares" (and R ``car::Anova(type=3)``
    with ``contr.sum``); it then has an "Intercept" row. Missing values are dropped.
    """
    if typ not in TYPES:
        raise StatsInputError(f"typ: must be 1, 2 or 3 (or 'I', 'II', 'III'), got {typ!r}")
    typ = TYPES[typ]
    y = numeric_column(df, value)
    factors = column_list(df, "factors", factors)
    # Plain names in the formula: scenario fields such as tcp.max_cwnd are not identifiers.
    names = {f: f"f{i}" for i, f in enumerate(factors)}
    frame = pd.DataFrame({names[f]: df[f] for f in factors})
    frame["y"] = y
    frame = frame.dropna()
    for f in factors:
        if frame[names[f]].nunique() < 2:
            raise StatsInputError(f"{f}: needs at least 2 levels with values of {value}")
    if frame["y"].var() == 0 or len(frame) <= 1:
        raise StatsInputError(f"{value}: zero variance; the ANOVA is undefined")
    contrast = ", Sum" if typ == 3 else ""
    terms = " * ".join(f"C({names[f]}{contrast})" for f in factors)
    fit = ols(f"y ~ {terms}", data=frame).fit()
    if fit.df_resid < 1:
        raise StatsInputError(
            f"{value}: no residual degrees of freedom (one value per cell of {', '.join(factors)})"
        )
    table = anova_lm(fit, typ=typ)
    back = {f"C({names[f]}{contrast})": f for f in factors}
    table.index = [
        "Residual" if r == "Residual" else ":".join(back.get(part, part) for part in r.split(":"))
        for r in table.index
    ]
    return table
