"""`hoplab reproduce seed004`: its options and how an invocation becomes
rows (`experiment.reproduce`: its own lab design, run into the store), a
report, runs.csv and Figure 2. As the other reproductions: with --out DIR
the runs are kept in the lab store DIR/store (a later call resumes from
it) and DIR/runs.csv holds this reproduction's rows; without it the store
is temporary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import click

from .._framework import Failure, Outcome, Paper, Progress, ReproduceError, duration_option, option, replicas_option


def run(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None, duration: float | None,
        plots_text: str | None, control: str = "long-1") -> Outcome:
    from . import experiment as r4

    try:
        plots = r4.parse_plots(plots_text) if plots_text is not None else list(r4.PLOTS)
    except ValueError as e:
        raise ReproduceError(str(e)) from None
    replicas = replicas or r4.DEFAULT_REPLICAS
    duration = r4.DEFAULT_DURATION_S if duration is None else duration
    # The lab's own progress bar (on a terminal), not one line per run.
    text, runs = r4.reproduce(replicas=replicas, duration=duration, plots=plots, jobs=jobs,
                              store=None if out is None else out / "store", progress=sys.stderr.isatty(),
                              control=control)
    note = None if out is None else f"per-run rows: {out / 'runs.csv'}; store: {out / 'store'}"
    return Outcome(text, {"runs.csv": runs.to_csv(index=False).encode()}, note, _figure(runs))


def _figure(runs: Any) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        from .figure import figure

        try:
            figure(runs, path)
        except OSError as e:
            raise Failure(f"--plot: {path}: {e.strerror or e}") from None

    return draw


PAPER = Paper(
    name="seed004",
    needs=("stats",),  # the verdicts' ANOVA and post-hoc tests
    help="""Seed 004 (Kawadia & Kumar): 8 treatments (window clamp, RTS/CTS
    off, SACK and their combinations) x 9 plots (1-6 hop chains,
    2by2/3by2/4by2 crossing flows) x 15 runs of 180 s as a lab design,
    printed as Tables 2-5 beside the testbed's, with a verdict per finding;
    --plot draws the paper's Figure 2.""",
    options=[
        replicas_option("Runs per treatment and plot (seeds 1..R) [default: 15, as in the paper]."),
        duration_option("Simulated seconds per run [default: 180]."),
        option("--plots", "plots_text", default=None, metavar="LIST",
               help="Plots to run, of 1hop..6hop, 2by2, 3by2, 4by2 [default: all]."),
        option("--control", type=click.Choice(["long-1", "short-2", "short-11"]), default="long-1", show_default=True,
               help="PLCP preamble and rate of RTS/CTS/ACK, which the paper does not give: long at 1 Mbit/s, or "
                    "short at 2 or 11 Mbit/s (802.11b has no short preamble at 1 Mbit/s)."),
    ],
    run=run,
    plot=True,
)

