"""`hoplab bench --lab`: what the lab adds to each run (issue 11 item 7).

The same N short runs (a 2-hop chain, one FTP flow, 10 s simulated, seeds
1..N) are made three ways: bare `hoplab.run` calls in a loop; `lab.run` of
a design with those N runs into a fresh store with ``--jobs 1`` (in this
process: expansion, key hashing, recording of flows and tables with an fsync
per run); and `lab.run` with 2 worker processes. Overhead per run =
(lab - bare) / N of wall time; with 2 processes the speed-up is reported.
A benchmark, not a test: record its numbers in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import tempfile
import time
from typing import Any

from .. import lab
from .._run import run
from .._table import markdown_table, text_table

N = 200


def design(n: int = N) -> dict[str, Any]:
    base = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 10.0}
    base["topology"] = {**base["topology"], "nodes": 3}
    base["flows"] = [{**base["flows"][0], "dst": 2}]
    return {"name": "bench-lab", "base": base, "replicas": n}


def run_lab_bench(n: int = N, progress: Any = None) -> list[dict[str, Any]]:
    d = lab.Design.from_dict(design(n))
    runs = d.expand()
    t0 = time.perf_counter()
    for r in runs:
        run(r.scenario, seed=r.seed)
    bare = time.perf_counter() - t0
    if progress:
        progress(f"bare hoplab.run x {n}: {bare:.2f} s")
    rows = [{"how": f"hoplab.run loop ({n} runs)", "wall_s": bare, "per_run_ms": 1e3 * bare / n,
             "overhead_ms": 0.0}]
    for jobs in (1, 2):
        with tempfile.TemporaryDirectory(prefix="hoplab-bench-lab-") as tmp:
            t0 = time.perf_counter()
            lab.run(lab.Design.from_dict(design(n)), tmp, jobs=jobs, progress=False)
            wall = time.perf_counter() - t0
        if progress:
            progress(f"lab.run --jobs {jobs}: {wall:.2f} s")
        rows.append({"how": f"lab.run, --jobs {jobs}, new store", "wall_s": wall, "per_run_ms": 1e3 * wall / n,
                     "overhead_ms": 1e3 * (wall - bare) / n})
    return rows


def table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    head = ["how", "wall s", "per run ms", "lab overhead per run ms"]
    body = [[r["how"], f"{r['wall_s']:.2f}", f"{r['per_run_ms']:.1f}", f"{r['overhead_ms']:+.1f}"] for r in rows]
    return markdown_table(head, body) if markdown else text_table(head, body)
