"""A resumable batch of simulation runs, shared by the `reproduce` experiments.

Each finished run is committed to ``out/runs.sqlite`` at once (a crash or
Ctrl-C loses nothing, a torn write is never reused; `runlog.RunLog`), and a
later call with the same ``out`` reuses the runs it already holds, matched by
key. ``out/runs.csv`` is the same rows as a table, exported after each run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from . import runlog
from ._pool import run_in_pool


class ReproduceError(RuntimeError):
    """An error the CLI reports as `hoplab: error: ...`."""


def run_resumable(tasks: Sequence[Any], run_task: Callable[[Any], dict[str, Any]], *,
                  columns: Sequence[str], row_key: Callable[[dict[str, Any]], Hashable],
                  out: Path | None, jobs: int, progress: Callable[[str], None] | None,
                  describe: Callable[[dict[str, Any]], str], str_columns: Sequence[str] = ("event_hash",),
                  name: str = "") -> list[dict[str, Any]]:
    """Run every task (``task.key()`` must equal ``row_key`` of its row) and
    return one row per task, reused ones first."""
    rows: list[dict[str, Any]] = []
    log = None
    if out is not None:
        try:
            log = runlog.RunLog(Path(out), columns, row_key, str_columns=str_columns, progress=progress)
        except runlog.RunLogError as e:
            raise ReproduceError(str(e)) from None
        done = {row_key(r): r for r in log.rows()}
        reused = [done[t.key()] for t in tasks if t.key() in done]
        rows.extend(reused)
        if reused and progress:
            progress(f"reusing {len(reused)} finished runs from {log.path}")
        tasks = [t for t in tasks if t.key() not in done]
    total = len(tasks)
    if name and progress:
        progress(f"{name}: {total} runs to do ({jobs} process{'es' if jobs > 1 else ''})")

    def finished(i: int, row: dict[str, Any]) -> None:
        rows.append(row)
        if log is not None:
            log.add(row)
        if progress:
            progress(f"[{i}/{total}] {describe(row)}")

    if jobs <= 1 or total <= 1:
        for i, t in enumerate(tasks, 1):
            finished(i, run_task(t))
    else:
        run_in_pool(tasks, run_task, jobs, finished)
    return rows
