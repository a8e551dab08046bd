"""`hoplab reproduce seed002`: its options and how an invocation becomes
rows (`experiment.run_experiments`) and a report. With --out DIR every run
is kept in the lab store DIR/store (a later call resumes from it),
DIR/runs-<experiment>.csv holds each experiment's rows and DIR/report.txt
the printed report; without it the store is temporary."""

from __future__ import annotations

from pathlib import Path

from .._framework import Outcome, Paper, Progress, ReproduceError, option, reading_option, readings, replicas_option


def parse_only(text: str | None) -> tuple[str, ...]:
    from .experiment import EXPERIMENTS

    if text is None:
        return EXPERIMENTS
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [n for n in names if n not in EXPERIMENTS]
    if bad or not names:
        raise ReproduceError(f"--only: {', '.join(bad) or 'nothing given'}: choose from {', '.join(EXPERIMENTS)}")
    return names


def run(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None, only_text: str | None,
        reading: str = "ns2") -> Outcome:
    from . import experiment as r2
    from .report import report

    only = parse_only(only_text)
    rows = r2.run_experiments(only, files=replicas or r2.DEFAULT_FILES, out=out, jobs=jobs, progress=progress,
                              readings=readings(reading))
    text = report(rows)
    if out is None:
        return Outcome(text)
    return Outcome(text, {"report.txt": (text + "\n").encode()},
                   f"per-run rows: {out}/runs-<experiment>.csv; store: {out / 'store'}")


PAPER = Paper(
    name="seed002",
    help="""Seed 002 (Östergren's thesis): T_i on static chains (Table 1), the
    one-to-four-hop and overlap experiments, random waypoint (2 and 10
    m/s, one and two streams, AODV/DSR, Reno/SACK, six window sets) and
    the WWW experiment, as tables of throughput, fraction of expected
    throughput and loss rate beside the thesis's findings. Its runs last
    until the 4 MB transfers end: it has no --duration.""",
    options=[
        replicas_option("Movement files (seeds) per mean speed [default: 10, as in the thesis]."),
        option("--only", "only_text", default=None, metavar="LIST",
               help="Experiments to run, of chain, one-to-four, overlap, waypoint, www (the chains always "
                    "run: they give T_i) [default: all]."),
        reading_option("Read the thesis's ns-2 as ns-2.35 (compat = \"ns2\": its MAC, CMU AODV and DSR, its RTO "
                       "estimator) or as the standards, or both (every run twice)."),
    ],
    run=run,
)
