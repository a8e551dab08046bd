"""The `reproduce` experiments as lab designs: a grid of configurations x
seeds becomes a design of listed treatments, run through a result store
(`hoplab.lab`), so a reproduction resumes, shares runs with any other design
in the same store, and runs on the same backends.

``out/store/`` is the store (a temporary one without ``--out``);
``out/runs.csv`` is one row per run, rewritten atomically after each run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import pandas as pd

from .. import _io, lab
from ..lab.stored import StoredRun, outcome_run
from ..manifest import check_writable

__all__ = ["run_grid", "Task"]


class Task(Protocol):
    """What a paper's task provides: its seed, and its scenario (a dict as
    the TOML files; its `seed` key, if any, is ignored)."""

    seed: int

    def scenario(self) -> dict[str, Any]: ...


def _design(tasks: Sequence[Task], name: str) -> tuple[dict[str, Any], dict[tuple, Any]]:
    """The design of ``tasks`` (each with ``.seed`` and ``.scenario()``), and
    the task of each (config index, seed)."""
    configs: dict[Any, int] = {}
    scen: list[dict[str, Any]] = []
    by_cell: dict[tuple, Any] = {}
    for t in tasks:
        sc = t.scenario()
        sc.pop("seed", None)
        sig = repr(sorted(sc.items(), key=lambda kv: kv[0]))
        if sig not in configs:
            configs[sig] = len(scen)
            scen.append(sc)
        by_cell[(configs[sig], t.seed)] = t
    seeds = sorted({t.seed for t in tasks})
    if len(by_cell) != len(scen) * len(seeds):
        raise ValueError("the tasks are not a full grid of configurations x seeds")
    design = {
        "name": name,
        "base": {},
        "seeds": seeds,
        "order": "interleaved",  # one replica of every configuration, then the next (seed 000 §3)
        "treatments": [{"factors": {"config": i}, "set": dict(sc)} for i, sc in enumerate(scen)],
    }
    return design, by_cell


def run_grid(tasks: Sequence[Task], row_of: Callable[[Any, Any], dict[str, Any]], *, name: str,
             columns: Sequence[str], out: Path | None, jobs: int,
             progress: Callable[[str], None] | None, describe: Callable[[dict[str, Any]], str],
             csv_name: str = "runs.csv") -> list[dict[str, Any]]:
    """Run every task through a store and return one row per task
    (``row_of(task, result_like)``), kept in ``out/csv_name``."""
    spec, by_cell = _design(tasks, name)
    design = lab.Design.from_dict(spec)
    runs = design.expand()
    task_of = {r.key: by_cell[(r.cell["config"], r.seed)] for r in runs}
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="hoplab-reproduce-")
        store_dir = Path(tmp.name)
    else:
        check_writable(out)  # an OSError naming the directory, before any run
        store_dir = Path(out) / "store"
    rows: dict[str, dict[str, Any]] = {}

    def export() -> None:
        if out is not None:
            df = pd.DataFrame(list(rows.values()), columns=list(columns))
            _io.atomic_write_bytes(Path(out) / csv_name, df.to_csv(index=False).encode())

    try:
        with lab.Store(store_dir) as st:
            done = st.recorded(task_of)
            for key, status in done.items():
                if status == "ok":
                    rows[key] = row_of(task_of[key], StoredRun(st, key))
        if rows and progress:
            progress(f"reusing {len(rows)} finished runs from {store_dir}")
        export()
        total = len(task_of) - len(rows)
        if progress:
            progress(f"{name}: {total} runs to do ({jobs} process{'es' if jobs > 1 else ''})")

        def on_run(outcome: dict[str, Any]) -> None:
            if outcome["status"] != "ok":
                raise lab.LabError(f"a run of {name} failed: {outcome['error']}")
            row = row_of(task_of[outcome["key"]], outcome_run(outcome))
            rows[outcome["key"]] = row
            export()
            if progress:
                progress(f"[{len(rows)}/{len(task_of)}] {describe(row)}")

        lab.run(design, store_dir, jobs=jobs, progress=False, on_run=on_run, retry_failed=True)
    finally:
        if tmp is not None:
            tmp.cleanup()
    return [rows[r.key] for r in runs if r.key in rows]
