"""The mean over seeds and its 95 % Student-t interval, as the tables of
Figs. 5, 8 and 11 print them: the run is the replicate (one value per seed).

Without scipy: the 0.975 quantiles of t for 1-30 degrees of freedom are
tabulated, and beyond 30 the Cornish-Fisher expansion (four terms) is within
1e-4 of scipy.stats.t.ppf, so the report needs no extra.
"""

from __future__ import annotations

import math
import statistics
from typing import Iterable

T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042)
_Z975 = 1.959963984540054

METHOD = "95% Student-t interval of the mean over seeds (the run is the replicate)"


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.nan
    if df <= len(T975):
        return T975[df - 1]
    z = _Z975
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def mean_half(values: Iterable[float]) -> tuple[float, float, int]:
    """(mean, half-width of the 95 % t interval, n) of the non-NaN values;
    the half-width is NaN for fewer than two."""
    v = [float(x) for x in values if not math.isnan(float(x))]
    if not v:
        return math.nan, math.nan, 0
    if len(v) < 2:
        return v[0], math.nan, 1
    return statistics.fmean(v), t975(len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v)), len(v)


def text(values: Iterable[float], digits: int = 1, scale: float = 1.0) -> str:
    """"mean ± half" (just the mean for one value, "-" for none), times ``scale``."""
    m, h, n = mean_half(values)
    if n == 0:
        return "-"
    if math.isnan(h):
        return f"{m * scale:.{digits}f}"
    return f"{m * scale:.{digits}f} ± {h * scale:.{digits}f}"


def gain_text(gain_pct: float) -> str:
    return "-" if gain_pct is None or math.isnan(gain_pct) else f"{gain_pct:+.1f}%"
