"""Percent change of group means against a reference group (seed 004 Table 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._groups import StatsInputError


def percent_change(means: pd.Series, reference_label) -> pd.Series:
    """Percent change of each mean with respect to the mean labelled `reference_label`:
    ``(means - means[ref]) * 100 / means[ref]``.

    Seed 004 Table 5 (Kawadia & Kumar 2005, §3.3) is this with treatment 1 as the reference,
    applied to the Table 2 means. Not a test: significance comes from `dunnett_t3`.
    """
    if reference_label not in means.index:
        raise StatsInputError(
            f"reference_label: {reference_label!r} is not in the index ({', '.join(map(str, means.index))})"
        )
    ref = means.loc[reference_label]
    if isinstance(ref, pd.Series):
        raise StatsInputError(f"reference_label: {reference_label!r} appears more than once")
    if not np.isfinite(ref) or ref == 0:
        raise StatsInputError(f"reference_label: the mean of {reference_label!r} is {ref}; no percent change")
    return (means - ref) * 100.0 / ref
