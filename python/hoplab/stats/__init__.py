"""Statistics over the lab's tidy result tables, as seed 004 (Kawadia & Kumar 2005) ran them in
SPSS 12: descriptives, one-way and factorial ANOVA, Welch and Brown-Forsythe, Levene,
Shapiro-Wilk, Scheffé (pairwise and homogeneous subsets) and Dunnett's T3.

Each function takes a DataFrame, a value column and a group column (or factors); missing values
are dropped; degenerate input raises StatsInputError (a ValueError) naming the column or group.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._groups import StatsInputError

__all__ = [
    "StatsInputError",
    "best_subset",
    "describe",
    "dunnett_t3",
    "factorial_anova",
    "homogeneous_subsets",
    "oneway",
    "percent_change",
    "scheffe",
]

# scipy and statsmodels take seconds to import: each function imports its
# module on first use (PEP 562), so `describe` (scipy) does not load
# statsmodels, and a missing hoplab[stats] is one line naming the extra.
_WHERE = {"percent_change": "change", "describe": "describe", "factorial_anova": "factorial", "oneway": "oneway",
          "dunnett_t3": "posthoc", "scheffe": "posthoc", "best_subset": "subsets", "homogeneous_subsets": "subsets"}
# What each module imports of hoplab[stats] (plot's sweep needs describe, so scipy, only).
_NEEDS = {"describe": ("scipy",), "factorial": ("scipy", "statsmodels"), "oneway": ("scipy", "statsmodels"),
          "posthoc": ("scipy", "statsmodels", "scikit_posthocs"), "subsets": ("scipy",), "change": ()}

if TYPE_CHECKING:
    from .change import percent_change
    from .describe import describe
    from .factorial import factorial_anova
    from .oneway import oneway
    from .posthoc import dunnett_t3, scheffe
    from .subsets import best_subset, homogeneous_subsets


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .._extras import require

    module = _WHERE[name]
    require("stats", f"hoplab.stats.{name}", _NEEDS[module])
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
