"""A resumable batch of simulation runs, shared by the `reproduce` experiments.

Each finished run is appended to ``out/runs.csv`` at once (a crash or Ctrl-C
loses nothing), and a later call with the same ``out`` reuses the runs the
file already holds, matched by key.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import pandas as pd

from . import _io
from ._pool import run_in_pool
from .result import READ_CSV_KW


class ReproduceError(RuntimeError):
    """An error the CLI reports as `hoplab: error: ...`."""


def _row_line(row: dict[str, Any], columns: Sequence[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([row[c] for c in columns])
    return buf.getvalue()


def _load_done(runs_csv: Path, columns: Sequence[str], row_key: Callable[[dict[str, Any]], Hashable],
               str_columns: Sequence[str]) -> dict[Hashable, dict[str, Any]]:
    """Rows already in runs.csv, by key; none if it is empty, unreadable or has other columns."""
    if not runs_csv.exists() or runs_csv.stat().st_size == 0:
        return {}
    try:
        df = pd.read_csv(runs_csv, dtype={c: str for c in str_columns}, **READ_CSV_KW)
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        return {}
    if list(df.columns) != list(columns):
        return {}
    return {row_key(r): r for r in df.to_dict("records")}


def run_resumable(tasks: Sequence[Any], run_task: Callable[[Any], dict[str, Any]], *,
                  columns: Sequence[str], row_key: Callable[[dict[str, Any]], Hashable],
                  out: Path | None, jobs: int, progress: Callable[[str], None] | None,
                  describe: Callable[[dict[str, Any]], str], str_columns: Sequence[str] = ("event_hash",),
                  name: str = "") -> list[dict[str, Any]]:
    """Run every task (``task.key()`` must equal ``row_key`` of its row) and
    return one row per task, reused ones first."""
    rows: list[dict[str, Any]] = []
    runs_csv = None
    header = ",".join(columns)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        runs_csv = out / "runs.csv"
        done = _load_done(runs_csv, columns, row_key, str_columns)
        nonempty = runs_csv.exists() and runs_csv.stat().st_size > 0
        if nonempty and not done and runs_csv.read_text().splitlines()[0] != header:
            raise ReproduceError(f"{runs_csv} exists with other columns; choose another --out")
        if not nonempty:
            _io.append_line(runs_csv, header)
        reused = [done[t.key()] for t in tasks if t.key() in done]
        rows.extend(reused)
        if reused and progress:
            progress(f"reusing {len(reused)} finished runs from {runs_csv}")
        tasks = [t for t in tasks if t.key() not in done]
    total = len(tasks)
    if name and progress:
        progress(f"{name}: {total} runs to do ({jobs} process{'es' if jobs > 1 else ''})")

    def finished(i: int, row: dict[str, Any]) -> None:
        rows.append(row)
        if runs_csv is not None:
            _io.append_line(runs_csv, _row_line(row, columns))
        if progress:
            progress(f"[{i}/{total}] {describe(row)}")

    if jobs <= 1 or total <= 1:
        for i, t in enumerate(tasks, 1):
            finished(i, run_task(t))
    else:
        run_in_pool(tasks, run_task, jobs, finished)
    return rows
