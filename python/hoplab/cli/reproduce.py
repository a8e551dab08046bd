"""`hoplab reproduce EXPERIMENT`: the seed papers' experiments (hoplab.reproduce*).

    hoplab reproduce seed000 [--replicas R] [--receiver ns2|linux|every] [--routing static|aodv-hello|aodv-ll|olsr]
                             [--duration S] [--out DIR]
    hoplab reproduce seed000-routing [--replicas R] [--receiver ...] [--duration S] [--out DIR]
    hoplab reproduce seed003 [--replicas R]
    hoplab reproduce seed002 [--only LIST] [--replicas FILES] [--out DIR]
    hoplab reproduce seed001 [--replicas R] [--duration S] [--hops LIST] [--schemes LIST] [--only LIST] [--out DIR]
    hoplab reproduce seed004 [--replicas R] [--duration S] [--plots LIST] [--jobs N] [--out DIR] [--plot FILE]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._extras import require
from .errors import HoplabError, os_error_text, scenario_error_text

__all__ = ["reproduce"]


@click.command("reproduce")
@click.argument("experiment", type=click.Choice(["seed000", "seed000-routing", "seed001", "seed002", "seed003", "seed004"]))
@click.option("--replicas", type=click.IntRange(1, 1000), default=None,
              help="Replicas per configuration (seeds 1..R). Default: 5 for seed000, as in the paper; "
                   "20 for seed003, whose outages vary too much from run to run for fewer; 5 for seed001; "
                   "seed002: movement files (seeds) per mean speed, 10 as in the thesis.")
@click.option("--receiver", type=click.Choice(["ns2", "linux", "every"]), default=None,
              help="seed000: the TCP receiver [default: ns2]. ns2 = the paper's ns-2 runs (an ACK every other "
                   "segment, clamp on the sender); linux = its testbed's Linux 2.6 (an ACK per segment at max "
                   "cwnd 2, clamp on the advertised window); every = delayed ACKs off.")
@click.option("--routing", type=click.Choice(["static", "aodv-hello", "aodv-ll", "olsr"]), default=None,
              help="seed000: routing [default: aodv-hello]. aodv-hello (AODV-UU with HELLOs) and olsr are the "
                   "paper's ns-2 Fig. 3; aodv-ll uses link-layer feedback (§4.2); static has no routing protocol.")
@click.option("--duration", type=click.FloatRange(0, 1e7, min_open=True), default=None,
              help="Simulated seconds per run. Default: 120 for seed000; for seed001 200 (figures) and 120 (Table 1).")
@click.option("--hops", "hops_text", default=None, metavar="LIST",
              help="seed001: chain lengths of Figs. 9 and 12, e.g. 6,14 or 4-22 or 4-22:2 [default: 4-22:2].")
@click.option("--schemes", "schemes_text", default=None, metavar="LIST",
              help="seed001: transports to run, of tcp, few, adtcp, adtcp+few, ecn, ecn+few [default: all].")
@click.option("--only", "only_text", default=None, metavar="LIST",
              help="seed001: experiments to run, of table1, fig9, fig12; seed002: of chain, one-to-four, overlap, "
                   "waypoint, www (the chains always run: they give T_i) [default: all].")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep every run in the lab store DIR/store (a later call resumes from it); "
                   "DIR/runs.csv is this reproduction's rows, DIR/summary.csv its summary.")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Worker processes.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the experiment's main figure into FILE (.png, .svg or .pdf).")
@click.option("--plots", "plots_text", default=None, metavar="LIST",
              help="seed004: plots to run, of 1hop..6hop, 2by2, 3by2, 4by2 [default: all].")
def reproduce(experiment: str, replicas: int | None, receiver: str | None, routing: str | None,
              duration: float | None, hops_text: str | None, schemes_text: str | None, only_text: str | None,
              out_dir: Path | None, jobs: int, plot_path: Path | None, plots_text: str | None = None) -> None:
    """Reproduce a seed paper's experiment.

    seed000: throughput and retransmission index vs. maximum cwnd (2, 3, 4,
    unclamped = 32) for 1-4 hop chains and the 3-hop chain with 192 kbit/s
    CBR background traffic (seed 000 §4.1, §4.3, its ns-2 half), printed like
    the paper's Tables 1-4, followed by the paper's testbed values.

    seed000-routing: §4.2, the 3-hop chain at max cwnd 2 with AODV-LL and
    AODV-HELLO (interference range equal to and below carrier sense) and
    OLSR: throughput, retransmissions, link failures declared, timeouts.

    seed002: Östergren's thesis: T_i on static chains (Table 1), the
    one-to-four-hop and overlap experiments, random waypoint (2 and 10
    m/s, one and two streams, AODV/DSR, Reno/SACK, six window sets) and
    the WWW experiment, as tables of throughput, fraction of expected
    throughput and loss rate beside the thesis's findings.

    seed003: the route-break scenario (examples/route_break.toml) with
    AODV-UU, DSR-UU and OOLSR (TC 5 s / 3 s, periodic / immediate): outage,
    time in RTO (Table 4), timeouts, throughput; seeds 1..R.

    seed001: Table 1 (static vs DSR, 6-hop chain and 7x7 grid) and the
    chains of Fig. 9 (1 and 4 flows: TCP static and DSR, FeW, ADTCP at
    alpha 1 and 0.01) and Fig. 12 (2 flows, TCP and TCP-ECN at alpha 1 and
    0.01), as tables beside the paper's numbers and stated gains.

    seed004: Kawadia & Kumar's 8 treatments (window clamp, RTS/CTS off,
    SACK and their combinations) x 9 plots (1-6 hop chains, 2by2/3by2/4by2
    crossing flows) x 15 runs of 180 s as a lab design, printed as Tables
    2-5 beside the testbed's, with a verdict per finding; --plot draws the
    paper's Figure 2.
    """
    from .. import _core, _io, reproduce as rp

    def progress(msg: str) -> None:
        click.echo(msg, err=True)

    if only_text is not None and experiment not in ("seed001", "seed002"):
        raise HoplabError("--only applies to seed001 and seed002 only")
    for opt, given in (("--hops", hops_text), ("--schemes", schemes_text)):
        if given is not None and experiment != "seed001":
            raise HoplabError(f"{opt} applies to seed001 only")
    for opt, given in (("--receiver", receiver), ("--routing", routing)):
        if given is not None and not experiment.startswith("seed000"):
            raise HoplabError(f"{opt} applies to seed000 and seed000-routing only")
    if experiment == "seed000-routing" and routing is not None:
        raise HoplabError("--routing applies to seed000 only (seed000-routing runs every routing)")
    if plots_text is not None and experiment != "seed004":
        raise HoplabError("--plots applies to seed004 only")
    receiver = receiver or "ns2"
    routing = routing or "aodv-hello"
    if plot_path is not None:
        _check_plot_path(plot_path, experiment)
    if experiment == "seed004":  # its tables are ANOVAs and post-hoc tests
        require("stats", "hoplab reproduce seed004")
    if experiment == "seed004":
        from ..cli_seed004 import reproduce_seed004
        reproduce_seed004(replicas, duration, plots_text, out_dir, jobs, plot_path)
        return
    if experiment == "seed002":
        if duration is not None:
            raise HoplabError("--duration does not apply to seed002 (its runs last until the 4 MB transfers end)")
        from ..cli_seed002 import reproduce_seed002
        try:
            click.echo(reproduce_seed002(replicas, only_text, out_dir, jobs, progress))
        except OSError as e:
            raise HoplabError(os_error_text(e, Path(e.filename or out_dir or "."))) from None
        return
    if experiment == "seed001":
        _reproduce_seed001(replicas, duration, hops_text, schemes_text, only_text, out_dir, jobs, progress)
        return

    if experiment == "seed003":
        from .. import lab, reproduce_seed003 as r3

        replicas = replicas or r3.DEFAULT_REPLICAS
        try:
            runs3 = r3.run_all(replicas, progress, out=out_dir, jobs=jobs)
        except FileNotFoundError as e:
            raise HoplabError(str(e)) from None
        except (lab.LabError, lab.StoreError) as e:
            raise HoplabError(str(e)) from None
        click.echo(r3.report(runs3))
        if plot_path is not None:
            _plot(runs3, plot_path, x="config", y="outage_s", by=None,
                  title="Seed 003: delivery outage at the route break")
        if out_dir is not None:
            click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; store: {out_dir / 'store'}")
        return

    replicas = replicas or 5
    duration = 120.0 if duration is None else duration
    try:
        if experiment == "seed000-routing":
            runs = rp.run_tasks(rp.routing_tasks(replicas=replicas, duration=duration, receiver=receiver),
                                out=out_dir, jobs=jobs, progress=progress, name="seed000-routing")
        else:
            runs = rp.run_seed000(replicas=replicas, duration=duration, receiver=receiver, routing=routing,
                                  out=out_dir, jobs=jobs, progress=progress)
    except rp.ReproduceError as e:
        raise HoplabError(str(e)) from None
    except _core.ScenarioError as e:  # a bug in the reproduction's scenario, reported plainly
        raise HoplabError(scenario_error_text(e)) from None
    except OSError as e:
        raise HoplabError(os_error_text(e, Path(e.filename or out_dir or "."))) from None
    if experiment == "seed000-routing":
        click.echo(rp.report_routing(runs, replicas=replicas, duration=duration, receiver=receiver))
        summary, name = rp.summary_frame(runs, ("routing", "if_range_m")), "summary-routing.csv"
        if plot_path is not None:
            _plot(runs, plot_path, x="routing", y="throughput_kbps", by="if_range_m",
                  title="Seed 000 §4.2: 3-hop chain, W = 2")
    else:
        click.echo(rp.report_seed000(runs, replicas=replicas, duration=duration, receiver=receiver, routing=routing))
        summary, name = rp.summary_frame(runs), "summary.csv"
        if plot_path is not None:
            _plot(runs[runs["cbr_kbps"] == 0], plot_path, x="hops", y="throughput_kbps", by="max_cwnd",
                  title="Seed 000 §4.1: throughput vs hops per maximum window")
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / name, summary.to_csv(index=False).encode())
        click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; summary: {out_dir / name}")


PLOTTED = ("seed000", "seed000-routing", "seed003", "seed004")


def _check_plot_path(path: Path, experiment: str) -> None:
    if experiment not in PLOTTED:
        raise HoplabError(f"--plot applies to {', '.join(PLOTTED)}")
    require("plot", "--plot")
    from ..plot import PlotError
    from ..plot._figure import format_of

    try:
        format_of(path)
    except PlotError as e:
        raise HoplabError(str(e)) from None


def _plot(df: Any, path: Path, *, x: str, y: str, by: str | None, title: str) -> None:
    from ..plot import PlotError, sweep

    try:
        sweep(df, x, y, by, title=title, path=path)
    except (PlotError, OSError) as e:
        raise HoplabError(f"--plot: {e}") from None
    click.echo(f"figure: {path}", err=True)


def _reproduce_seed001(replicas: int | None, duration: float | None, hops_text: str | None,
                       schemes_text: str | None, only_text: str | None, out_dir: Path | None, jobs: int,
                       progress: Any) -> None:
    from .. import _core, _io
    from .. import reproduce_seed001 as r1
    from ..reproduce import ReproduceError

    try:
        plan = r1.Plan(
            experiments=r1.EXPERIMENTS if only_text is None else r1.parse_list(only_text, r1.EXPERIMENTS, "--only"),
            hops=r1.DEFAULT_HOPS if hops_text is None else r1.parse_hops(hops_text),
            schemes=tuple(r1.SCHEMES) if schemes_text is None else r1.parse_list(schemes_text, tuple(r1.SCHEMES),
                                                                                 "--schemes"),
            replicas=replicas or r1.DEFAULT_REPLICAS, duration=duration)
        runs = r1.run_seed001(plan, out=out_dir, jobs=jobs, progress=progress)
    except ReproduceError as e:
        raise HoplabError(str(e)) from None
    except _core.ScenarioError as e:
        raise HoplabError(scenario_error_text(e)) from None
    except OSError as e:
        raise HoplabError(os_error_text(e, Path(e.filename or out_dir or "."))) from None
    click.echo(r1.report_seed001(runs, plan))
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / "summary.csv", r1.summary_frame(runs).to_csv(index=False).encode())
        click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; summary: {out_dir / 'summary.csv'}")
