"""Checks and conversions of a table's columns before plotting."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .errors import PlotError


def require_columns(df: Any, *columns: str | None) -> None:
    """PlotError naming the first missing column and listing the available ones."""
    if not isinstance(df, pd.DataFrame):
        raise PlotError("table", f"expected a pandas DataFrame, not {type(df).__name__}")
    if len(df) == 0:
        raise PlotError("", "the table is empty (no rows)")
    for c in columns:
        if c is not None and c not in df.columns:
            raise PlotError(f"column {c!r}", f"not in the table (available: {', '.join(map(str, df.columns))})")


def numeric(df: pd.DataFrame, column: str) -> pd.Series:
    """The column as floats; PlotError if it holds no number at all."""
    s = pd.to_numeric(df[column], errors="coerce")
    if s.notna().sum() == 0:
        raise PlotError(f"column {column!r}", "has no numeric values to plot")
    return s.astype(float)


def levels(s: pd.Series) -> tuple[pd.Series, list[Any], bool]:
    """(values, ordered levels, is_numeric) of a factor column.

    A column whose every value reads as a number (also "2", "32" as a
    design's level labels are strings) is numeric, its levels sorted; any
    other keeps its levels in order of first appearance (a design's order),
    compared as strings.
    """
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().all():
        num = num.astype(float)
        return num, sorted(num.unique()), True
    text = s.astype(str)
    return text, list(dict.fromkeys(text)), False


def level_text(v: Any) -> str:
    """2.0 -> "2", 0.5 -> "0.5", "3hop" -> "3hop"."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
