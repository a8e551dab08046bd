"""The table a `hoplab plot sweep` reads: a CSV or Parquet file, the
directory `hoplab reproduce ... --out DIR` wrote (its runs.csv), or a lab
store (a directory holding store.sqlite, read with `hoplab.lab.load`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..result import read_csv_kw
from .errors import PlotError

STORE_INDEX = "store.sqlite"  # the lab store's index (issue 11 item 2)
RUNS_CSV = "runs.csv"  # what `reproduce --out DIR` writes


def read_table(source: str | Path) -> pd.DataFrame:
    """The tidy table at ``source``; PlotError naming it if it is none of the above."""
    path = Path(source)
    if path.is_dir():
        if (path / STORE_INDEX).is_file():
            return _load_store(path)
        if (path / RUNS_CSV).is_file():
            return _read_file(path / RUNS_CSV)
        raise PlotError(str(path), f"not a lab store ({STORE_INDEX}) nor a `reproduce --out` directory ({RUNS_CSV})")
    if not path.exists():
        raise PlotError(str(path), "no such file or directory")
    return _read_file(path)


def _read_file(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path, **read_csv_kw())
        if suffix == ".parquet":
            return pd.read_parquet(path)
    except pd.errors.EmptyDataError:
        raise PlotError(str(path), "is empty (no rows)") from None
    except ImportError as e:  # pragma: no cover - pyarrow is a dependency
        raise PlotError(str(path), f"reading Parquet needs pyarrow ({e})") from None
    except (ValueError, OSError) as e:  # pandas' ParserError is a ValueError; pyarrow's errors too
        raise PlotError(str(path), f"unreadable table ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    raise PlotError(str(path), f"unknown table suffix {suffix or '(none)'}: use .csv or .parquet")


def _load_store(path: Path) -> pd.DataFrame:
    try:
        from ..lab import load
    except ImportError:
        raise PlotError(str(path), "a lab store, but this hoplab has no hoplab.lab.load to read it") from None
    try:
        return load(path)
    except (ValueError, OSError) as e:
        raise PlotError(str(path), str(e).splitlines()[0] if str(e) else type(e).__name__) from None


def where(df: pd.DataFrame, conditions: list[str] | tuple[str, ...]) -> pd.DataFrame:
    """The rows meeting every ``COL=VALUE`` condition (`--where`): a numeric
    column compares as numbers (``cbr_kbps=0`` matches 0.0), any other as text."""
    for cond in conditions:
        col, sep, value = cond.partition("=")
        col = col.strip()
        if not sep or not col:
            raise PlotError("--where", f"expected COL=VALUE, not {cond!r}")
        if col not in df.columns:
            raise PlotError("--where", f"column {col!r} not in the table (available: {', '.join(map(str, df.columns))})")
        s = df[col]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            try:
                mask = s == float(value)
            except ValueError:
                raise PlotError("--where", f"column {col!r} is numeric, and {value!r} is not a number") from None
        else:
            mask = s.astype(str) == value
        if len(df) and not mask.any():
            raise PlotError("--where", f"no row has {col} = {value}")
        df = df[mask]
    return df
