"""`hoplab reproduce seed000` and `seed000-routing`: their options and how
an invocation becomes rows (`experiment.run_seed000`, `experiment.run_tasks`),
a report, a summary.csv and a figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._framework import (Failure, Outcome, Paper, Progress, duration_option, option, reading_option, readings,
                          replicas_option, sweep_figure)

_REPLICAS = replicas_option("Replicas per configuration (seeds 1..R) [default: 5, as in the paper].")
_RECEIVER = option(
    "--receiver", type=click.Choice(["ns2", "linux", "every"]), default=None,
    help="The TCP receiver [default: ns2]. ns2 = the paper's ns-2 runs (an ACK every other "
         "segment, clamp on the sender); linux = its testbed's Linux 2.6 (an ACK per segment at max "
         "cwnd 2, clamp on the advertised window); every = delayed ACKs off.")
_ROUTING = option(
    "--routing", type=click.Choice(["static", "aodv-hello", "aodv-ll", "olsr"]), default=None,
    help="Routing [default: aodv-hello]. aodv-hello (AODV-UU with HELLOs) and olsr are the "
         "paper's ns-2 Fig. 3; aodv-ll uses link-layer feedback (§4.2); static has no routing protocol.")
_DURATION = duration_option("Simulated seconds per run [default: 120].")
_REAL = option(
    "--real", is_flag=True, default=False,
    help="Real Linux TCP endpoints over the emulated chain (hoplab emu; needs root), its relays running "
         "--routing, beside the simulated chain with the Linux receiver and the testbed's table. --duration "
         "is then each transfer's seconds [1 to 3600, default: 10], --replicas the real runs per cell, interleaved as "
         "the paper's [default: 3].")
_READING = reading_option("Read the paper's ns-2 as ns-2.35 (compat = \"ns2\": its MAC and TCP rules; AODV stays "
                          "AODV-UU) or as the standards, or both side by side.")


def _defaults(replicas: int | None, duration: float | None, receiver: str | None) -> tuple[int, float, str]:
    return replicas or 5, 120.0 if duration is None else duration, receiver or "ns2"


def run_seed000(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None, receiver: str | None,
                routing: str | None, duration: float | None, reading: str = "ns2", real: bool = False) -> Outcome:
    if real:
        # The real endpoints are this machine's kernel: no receiver model and
        # no ns-2 reading apply to them (the simulated column uses Linux's).
        if receiver is not None or reading != "ns2":
            given = "--receiver" if receiver is not None else "--reading"
            raise Failure(f"{given} does not apply to --real (the real endpoints are Linux's own stack)")
        return _run_real(out=out, progress=progress, replicas=replicas, duration=duration, routing=routing)
    from . import experiment as rp

    replicas, duration, receiver = _defaults(replicas, duration, receiver)
    routing = routing or "aodv-hello"
    runs = rp.run_seed000(replicas=replicas, duration=duration, receiver=receiver, routing=routing,
                          out=out, jobs=jobs, progress=progress, readings=readings(reading))
    return _outcome(rp.report_seed000(runs, replicas=replicas, duration=duration, receiver=receiver,
                                      routing=routing),
                    rp.summary_frame(runs), "summary.csv", out,
                    sweep_figure(runs[(runs["cbr_kbps"] == 0) & (runs["reading"] == readings(reading)[0])],
                                 x="hops", y="throughput_kbps", by="max_cwnd",
                                 title="Seed 000 §4.1: throughput vs hops per maximum window",
                                 by_label="Maximum cwnd (segments)",
                                 level_names={"max_cwnd": {rp.UNCLAMPED_LABEL: f"unclamped ({rp.UNCLAMPED_LABEL})"}}))


def run_routing(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None, receiver: str | None,
                duration: float | None, reading: str = "ns2") -> Outcome:
    from . import experiment as rp

    replicas, duration, receiver = _defaults(replicas, duration, receiver)
    runs = rp.run_tasks(rp.routing_tasks(replicas=replicas, duration=duration, receiver=receiver,
                                         readings=readings(reading)),
                        out=out, jobs=jobs, progress=progress, name="seed000-routing")
    return _outcome(rp.report_routing(runs, replicas=replicas, duration=duration, receiver=receiver),
                    rp.summary_frame(runs, ("routing", "if_range_m")), "summary-routing.csv", out,
                    sweep_figure(runs[runs["reading"] == readings(reading)[0]], x="routing", y="throughput_kbps",
                                 by="if_range_m", title="Seed 000 §4.2: 3-hop chain, W = 2",
                                 xlabel="Routing", by_label="Interference range (m)",
                                 # experiment.Task.if_range_m: 0 leaves it at the carrier-sense range
                                 level_names={"if_range_m": {0: "carrier-sense range"}}))


def _run_real(*, out: Path | None, progress: Progress, replicas: int | None, duration: float | None,
              routing: str | None) -> Outcome:
    from . import real as rr

    replicas, seconds, routing = replicas or 3, 10.0 if duration is None else duration, routing or rr.DEFAULT_ROUTING
    why = rr.option_problem(seconds)
    if why:
        raise Failure(why)
    df, runs = rr.run_real(replicas=replicas, seconds=seconds, progress=progress, routing=routing)
    note = None if out is None else f"table: {out / 'real.csv'}; per run: {out / 'real-runs.csv'}"
    return Outcome(rr.report(df, runs, replicas=replicas, seconds=seconds, routing=routing),
                   {"real.csv": df.to_csv(index=False).encode(), "real-runs.csv": runs.to_csv(index=False).encode()},
                   note)


def _outcome(report: str, summary: Any, name: str, out: Path | None, figure: Any) -> Outcome:
    note = None if out is None else f"per-run rows: {out / 'runs.csv'}; summary: {out / name}"
    return Outcome(report, {name: summary.to_csv(index=False).encode()}, note, figure)


SEED000 = Paper(
    name="seed000",
    help="""Seed 000 (Anastasi et al.): throughput and retransmission index vs.
    maximum cwnd (2, 3, 4, unclamped = 32) for 1-4 hop chains and the 3-hop
    chain with 192 kbit/s CBR background traffic (§4.1, §4.3, its ns-2
    half), printed like the paper's Tables 1-4, followed by the paper's
    testbed values.""",
    options=[_REPLICAS, _RECEIVER, _ROUTING, _DURATION, _READING, _REAL],
    run=run_seed000,
    plot=True,
)

ROUTING = Paper(
    name="seed000-routing",
    help="""Seed 000 §4.2: the 3-hop chain at max cwnd 2 with AODV-LL and
    AODV-HELLO (interference range equal to and below carrier sense) and
    OLSR: throughput, retransmissions, link failures declared, timeouts.""",
    options=[_REPLICAS, _RECEIVER, _DURATION, _READING],
    run=run_routing,
    plot=True,
)
