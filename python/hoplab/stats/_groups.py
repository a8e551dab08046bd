"""Input checks shared by the hoplab.stats functions.

Every test here compares the groups of one value column split by one group column of a tidy
DataFrame (one row per run, as `hoplab.lab.load` returns). Missing values are dropped first: a
failed run has NaN metrics (`lab.load`), and it must not silently turn a whole test into NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


class StatsInputError(ValueError):
    """The data cannot be analysed as asked; the message names the column or group."""


@dataclass(frozen=True)
class Groups:
    """The non-missing values of `value` per level of `group`, in level order."""

    value: str
    group: str
    labels: list
    samples: list[np.ndarray]
    dropped: int  # rows dropped because the value or the group label was missing

    @property
    def n(self) -> np.ndarray:
        return np.array([len(s) for s in self.samples], dtype=float)

    @property
    def means(self) -> np.ndarray:
        return np.array([s.mean() for s in self.samples])

    def long(self) -> pd.DataFrame:
        """The same values as a two-column frame (what scikit-posthocs takes)."""
        return pd.DataFrame(
            {
                self.value: np.concatenate(self.samples),
                self.group: np.repeat(np.arange(len(self.labels)), [len(s) for s in self.samples]),
            }
        )

    def mse(self) -> tuple[float, float]:
        """Pooled within-group variance (the ANOVA error mean square) and its df, N - k."""
        df = float(self.n.sum() - len(self.samples))
        ss = sum(((s - s.mean()) ** 2).sum() for s in self.samples)
        return ss / df, df


def _level_order(series: pd.Series) -> list:
    """Levels in sorted order when they sort (treatments 0..7, '1hop'..), else as first seen."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        present = set(series.dropna().unique())
        return [c for c in series.cat.categories if c in present]
    # Plain Python scalars, so a subset prints as [1, 5] rather than [np.int64(1), ...].
    levels = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(series.dropna())]
    try:
        return sorted(levels)
    except TypeError:
        return levels


def column_list(df: pd.DataFrame, what: str, names) -> list:
    """`names` (one column name or several) as a list, each checked to be a column of `df`."""
    names = [names] if isinstance(names, str) else list(names)
    if not names:
        raise StatsInputError(f"{what}: give at least one column")
    for name in names:
        if name not in df.columns:
            raise StatsInputError(f"{name}: no such column (columns: {', '.join(map(str, df.columns))})")
    return names


def numeric_column(df: pd.DataFrame, value: str) -> pd.Series:
    if not isinstance(df, pd.DataFrame):
        raise StatsInputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    column_list(df, "value", value)
    col = df[value]
    if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
        raise StatsInputError(f"{value}: column is not numeric (dtype {col.dtype})")
    return col.astype(float)


def split(df: pd.DataFrame, value: str, group: str, *, min_n: int = 2,
          need_variance: bool = True) -> Groups:
    """Split `value` by `group` after dropping missing values, and refuse degenerate input.

    Refused: fewer than 2 groups; a group with fewer than `min_n` values; (if `need_variance`)
    zero variance in every group, where every F statistic is 0/0.
    """
    col = numeric_column(df, value)
    column_list(df, "group", group)
    keep = col.notna() & df[group].notna()
    frame = pd.DataFrame({"v": col[keep], "g": df[group][keep]})
    labels = _level_order(frame["g"])
    if len(labels) < 2:
        raise StatsInputError(
            f"{group}: needs at least 2 groups with values of {value}, found {len(labels)}"
            + (f" ({labels[0]!r})" if labels else "")
        )
    samples = [frame.loc[frame["g"] == lab, "v"].to_numpy() for lab in labels]
    for lab, s in zip(labels, samples):
        if len(s) < min_n:
            raise StatsInputError(
                f"{group}={lab!r}: needs at least {min_n} values of {value}, has {len(s)}"
            )
    if need_variance and all(np.ptp(s) == 0 for s in samples):
        raise StatsInputError(
            f"{value}: zero variance within every {group} group; the tests are undefined"
        )
    return Groups(value, group, labels, samples, int((~keep).sum()))
