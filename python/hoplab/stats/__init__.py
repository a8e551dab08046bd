"""Statistics over the lab's tidy result tables, as seed 004 (Kawadia & Kumar 2005) ran them in
SPSS 12: descriptives, one-way and factorial ANOVA, Welch and Brown-Forsythe, Levene,
Shapiro-Wilk, Scheffé (pairwise and homogeneous subsets) and Dunnett's T3.

Each function takes a DataFrame, a value column and a group column (or factors); missing values
are dropped; degenerate input raises StatsInputError (a ValueError) naming the column or group.
"""

from ._groups import StatsInputError
from .change import percent_change
from .describe import describe
from .factorial import factorial_anova
from .oneway import oneway
from .posthoc import dunnett_t3, scheffe
from .subsets import best_subset, homogeneous_subsets

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
