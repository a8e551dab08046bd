"""`design expand`'s table without pandas: the text of
`pandas.DataFrame(rows).to_string(index=False)` and `.to_csv(index=False)`
for the plain columns a design has (ints, bools, simple strings).

Importing pandas takes longer than everything else `design expand` does;
any column this module cannot render exactly as pandas would (floats,
missing values, mixed types, text needing quotes) falls back to pandas.
tests/python/test_cli_package.py compares both on many tables.
"""

from __future__ import annotations

from typing import Any, Sequence

from .._csv import csv_text

__all__ = ["to_csv", "to_string"]

_INT64 = (-(2**63), 2**63 - 1)


def _kind(values: Sequence[Any]) -> str | None:
    """"int", "bool" or "str" when every value is one and renders plainly; else None."""
    if all(type(v) is bool for v in values):
        return "bool"
    if all(type(v) is int and _INT64[0] <= v <= _INT64[1] for v in values):
        return "int"
    if all(type(v) is str and v.isascii() and v.isprintable() and v == v.strip() and v
           and not any(c in v for c in ',"\'') for v in values):
        return "str"
    return None


def _columns(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str, list[Any]]] | None:
    if not rows or any(list(r) != list(rows[0]) for r in rows):
        return None
    cols = []
    for name in rows[0]:
        if not isinstance(name, str) or not name.isascii() or not name.isprintable() or "," in name:
            return None
        values = [r[name] for r in rows]
        kind = _kind(values)
        if kind is None:
            return None
        cols.append((name, kind, values))
    return cols


def _pandas(rows: Sequence[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame(list(rows))


def to_string(rows: Sequence[dict[str, Any]]) -> str:
    """As `pd.DataFrame(rows).to_string(index=False)`."""
    cols = _columns(rows)
    if cols is None:
        return _pandas(rows).to_string(index=False)
    rendered = []
    for name, kind, values in cols:
        cells = [str(v) for v in values]
        # pandas right-aligns every column; a number column's header keeps
        # one more space than its name, a text column's does not.
        head = len(name) + (kind != "str")
        width = max(head, *(len(c) for c in cells))
        rendered.append([name.rjust(width)] + [c.rjust(width) for c in cells])
    return "\n".join(" ".join(col[i] for col in rendered) for i in range(len(rows) + 1))


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """As `pd.DataFrame(rows).to_csv(index=False)` (`_csv.csv_text` writes the same bytes)."""
    if not rows or any(list(r) != list(rows[0]) for r in rows):
        return _pandas(rows).to_csv(index=False)
    names = list(rows[0])
    return csv_text(names, {c: [r[c] for r in rows] for c in names})
