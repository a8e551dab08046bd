"""CSV text of a table held as plain columns, without pandas: the bytes
`DataFrame.to_csv(index=False)` writes for the same values (floats in their
shortest round-trip form, NaN as an empty field, booleans as True/False,
strings quoted only when needed), so `hoplab run` saves without importing
pandas and a result saved either way is the same file."""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Mapping, Sequence

__all__ = ["csv_text"]


def _cell(v: Any) -> Any:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return v  # int, bool and str print as pandas prints them


def csv_text(columns: Sequence[str], data: Mapping[str, Sequence[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    w.writerows(zip(*(map(_cell, data[c]) for c in columns)))
    return buf.getvalue()
