"""`hoplab bench --memory`: peak memory of long runs (issue 10 item 5).

Each scenario runs in a fresh ``python -m hoplab._bench.memory NAME`` so that
its peak RSS (``resource.getrusage``) belongs to it alone. The run goes
through ``hoplab.run``, as a user's would: the engine, the result columns
and the pandas DataFrames of the returned ``Result`` all count.

(a) chain1-36000s:    a 1-hop chain (2 nodes, 200 m), one FTP NewReno flow,
                      36,000 s (10 h), default ``[output]``: the time series
                      on, bounded by ``timeseries_max_samples``.
(b) chain1-36000s-nots: the same with ``[output] timeseries = false``: what
                      the rest of the run costs.

Target: peak RSS below 150 MB for (a). It is a benchmark, not a test; the
behaviour (the sample bound) is tested in crates/hoplab-sim/tests/timeseries_bound.rs.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from .. import scenario as sc
from .._table import markdown_table, text_table
from .one import _rss_mb
from .suite import run_child

TARGET_MB = 150.0

# name -> (description, record the time series)
SCENARIOS: dict[str, tuple[str, bool]] = {
    "chain1-36000s": ("1-hop chain, 1 FTP flow, 36,000 s, time series on (default)", True),
    "chain1-36000s-nots": ("the same, time series off", False),
}


def build(name: str) -> dict[str, Any]:
    _, timeseries = SCENARIOS[name]
    return sc.chain(1, 200.0, duration=36_000.0, timeseries=timeseries, name=f"bench-{name}")


def measure(name: str) -> dict[str, Any]:
    """Run scenario `name` in this process and report its memory."""
    from .._run import run

    scenario = build(name)
    baseline = _rss_mb()
    t0 = time.perf_counter()
    res = run(scenario, seed=1)
    wall = time.perf_counter() - t0
    frames = {t: getattr(res, t) for t in ("flows", "nodes", "drops", "timeseries", "overhead",
                                           "route_events", "paths", "outages", "trace")}
    return {
        "scenario": name,
        "events": int(res.info["events"]),
        "wall_s": wall,
        "timeseries_rows": len(res.timeseries),
        "result_mb": sum(float(f.memory_usage(deep=True).sum()) for f in frames.values()) / 2**20,
        "peak_rss_mb": _rss_mb(),
        "baseline_rss_mb": baseline,
    }


def run_memory_bench(progress=None) -> list[dict[str, Any]]:
    rows = []
    for name in SCENARIOS:
        rows.append(run_child(name, module="hoplab._bench.memory"))
        if progress:
            progress(f"{name}: peak {rows[-1]['peak_rss_mb']:.1f} MB, {rows[-1]['wall_s']:.1f} s")
    return rows


def table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = ["scenario", "events", "wall s", "time-series rows", "result MB", "peak RSS MB",
               "after imports MB", "target", "verdict"]
    body = []
    for r in rows:
        desc, timeseries = SCENARIOS[r["scenario"]]
        judged = timeseries  # the target is for the default run
        body.append([f"{r['scenario']} ({desc})", f"{r['events']:,}", f"{r['wall_s']:.1f}",
                     f"{r['timeseries_rows']:,}", f"{r['result_mb']:.1f}", f"{r['peak_rss_mb']:.1f}",
                     f"{r['baseline_rss_mb']:.1f}", f"< {TARGET_MB:g} MB" if judged else "-",
                     ("ok" if r["peak_rss_mb"] < TARGET_MB else "MISSED") if judged else "-"])
    fn = markdown_table if markdown else text_table
    return fn(headers, body, align="lrrrrrrll") + (
        "\n\nPeak RSS: the whole child process (Python, pandas, the engine and the Result's DataFrames); "
        "result MB: the DataFrames' own memory (pandas memory_usage, deep).")


def main(argv: list[str]) -> int:
    print(json.dumps(measure(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
