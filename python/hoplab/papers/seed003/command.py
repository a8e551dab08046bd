"""`hoplab reproduce seed003`: its options and how an invocation becomes
rows (`experiment.run_all`), a report and a figure."""

from __future__ import annotations

from pathlib import Path

from .._framework import Outcome, Paper, Progress, replicas_option, sweep_figure


def run(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None) -> Outcome:
    from . import experiment as r3

    runs = r3.run_all(replicas or r3.DEFAULT_REPLICAS, progress, out=out, jobs=jobs)
    note = None if out is None else f"per-run rows: {out / 'runs.csv'}; store: {out / 'store'}"
    return Outcome(r3.report(runs), {}, note,
                   sweep_figure(runs, x="config", y="outage_s", by=None,
                                title="Seed 003: delivery outage at the route break"))


PAPER = Paper(
    name="seed003",
    help="""Seed 003 (Papanastasiou et al.): the route-break scenario
    (examples/route_break.toml) with AODV-UU, DSR-UU and OOLSR (TC 5 s /
    3 s, periodic / immediate): outage, time in RTO (Table 4), timeouts,
    throughput; seeds 1..R.""",
    options=[replicas_option("Replicas per configuration (seeds 1..R) [default: 20: the outages vary too much "
                             "from run to run for fewer].")],
    run=run,
    plot=True,
)
