"""Per-cell mean and confidence interval of a value column: `hoplab.stats.describe`
(Student t: mean ± t(1 - (1 - confidence)/2, n - 1) · s / √n, s with ddof = 1;
a cell with one value has no interval)."""

from __future__ import annotations

from typing import Any

COLUMNS = ["n", "mean", "std", "sem", "ci_low", "ci_high"]

__all__ = ["describe", "COLUMNS"]


def describe(*args: Any, **kwargs: Any) -> Any:
    """`hoplab.stats.describe`, imported when first called: scipy is needed
    by the plots with confidence intervals only."""
    from ..stats import describe as _describe

    return _describe(*args, **kwargs)
