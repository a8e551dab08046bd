"""Pairwise post-hoc comparisons of group means (scikit-posthocs), as square p-value tables
labelled by group."""

from __future__ import annotations

import pandas as pd
import scikit_posthocs as sp

from ._groups import Groups, split


def _relabel(p: pd.DataFrame, g: Groups) -> pd.DataFrame:
    # scikit-posthocs labels rows by the integer codes we gave it; put the group labels back,
    # in level order.
    idx = list(range(len(g.labels)))
    p = p.reindex(index=idx, columns=idx)
    p.index = pd.Index(g.labels, name=g.group)
    p.columns = pd.Index(g.labels, name=g.group)
    return p


def scheffe(df: pd.DataFrame, value: str, group: str) -> pd.DataFrame:
    """Scheffé's all-pairs test: square DataFrame of p-values (1 on the diagonal).

    ``scikit_posthocs.posthoc_scheffe`` (equal variances; pooled ANOVA error term; a pair's F is
    referred to (k-1)·F(k-1, N-k)); SPSS ONEWAY /POSTHOC=SCHEFFE "Multiple Comparisons" Sig.
    column; R ``PMCMRplus::scheffeTest``. Missing values dropped; degenerate input raises
    ``StatsInputError`` as in `oneway`.
    """
    g = split(df, value, group)
    return _relabel(sp.posthoc_scheffe(g.long(), val_col=value, group_col=group), g)


def dunnett_t3(df: pd.DataFrame, value: str, group: str) -> pd.DataFrame:
    """Dunnett's T3 all-pairs test for unequal variances: square DataFrame of p-values.

    ``scikit_posthocs.posthoc_dunnett_t3``: Welch t per pair referred to the studentized maximum
    modulus with k(k-1)/2 variates (Dunnett 1980); SPSS ONEWAY /POSTHOC=T3 ("Dunnett T3",
    seed 004's Table 5 bold entries); R ``PMCMRplus::dunnettT3Test``. scikit-posthocs rounds each
    pair's Welch df to an integer as PMCMRplus does; whether SPSS rounds too is not stated in
    its documentation we could find (for 10 values per group the rounding moves p in the third
    digit). Missing values dropped; degenerate input raises ``StatsInputError`` as in `oneway`.
    """
    g = split(df, value, group)
    return _relabel(sp.posthoc_dunnett_t3(g.long(), val_col=value, group_col=group), g)
