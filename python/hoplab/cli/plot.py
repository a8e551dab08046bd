"""`hoplab plot`: figures of results, written as PNG, SVG or PDF by the
suffix of -o.

    hoplab plot sweep TABLE_OR_STORE --x COL --y COL [--by COL] [--where COL=VALUE ...] [--model chain-clamp]
                     [--title T] [--xlabel L] [--ylabel L] [--by-label L] [--size WxH] [--style paper] -o FILE
    hoplab plot topology RESULT_DIR_OR_SCENARIO [--at T] [--circles source|all|none|N,...] -o FILE
    hoplab plot timeseries RESULT_DIR [--flow N] -o FILE
    hoplab plot nodes RESULT_DIR -o FILE
    hoplab plot model chain-clamp|tcp-friendly-window|padhye [options] -o FILE

matplotlib is imported only when a command runs (hoplab.plot); without it
(hoplab[plot] not installed) a command says so in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .errors import HoplabError

__all__ = ["plot_group"]

OUT = click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
                   help="Output file; .png, .svg or .pdf chooses the format.")


def _fail(e: Exception) -> click.ClickException:
    return HoplabError(str(e))


def _plot_module(sub: str | None = None) -> Any:
    """hoplab.plot (or one of its modules), or the one-line error naming the
    extra to install when matplotlib is missing."""
    import importlib

    from .._extras import require

    require("plot", "hoplab plot", ("matplotlib",))  # sweep asks hoplab.stats for scipy
    return importlib.import_module("hoplab.plot" + (f".{sub}" if sub else ""))


def _check_out(out: Path) -> None:
    from ..plot.errors import PlotError

    format_of = _plot_module("_figure").format_of

    try:
        format_of(out)
    except PlotError as e:
        raise _fail(e) from None


def _result(directory: Path, tables: tuple[str, ...] | None = None) -> Any:
    """The result in ``directory``, reading only ``tables`` now (the others,
    a run's trace say, only if a figure asks for them)."""
    from ..manifest import ResultError
    from ..result import Result

    if not directory.is_dir():
        raise _fail(ValueError(f"{directory}: not a result directory (no such directory)"))
    try:
        return Result.load(directory, tables=tables)
    except ResultError as e:
        raise _fail(e) from None


def _done(out: Path) -> None:
    click.echo(f"wrote {out}")


@click.group("plot")
def plot_group() -> None:
    """Draw figures of results: PNG, SVG or PDF, chosen by the suffix of -o."""


@plot_group.command("sweep")
@click.argument("source", metavar="TABLE_OR_STORE", type=click.Path(path_type=Path))
@click.option("--x", "x", required=True, metavar="COL", help="Factor on the x axis, e.g. max_cwnd or tcp.max_cwnd.")
@click.option("--y", "y", required=True, metavar="COL", help="Response, e.g. throughput_kbps.")
@click.option("--by", default=None, metavar="COL", help="One line per level of this column, e.g. hops.")
@click.option("--where", "conditions", multiple=True, metavar="COL=VALUE",
              help="Only rows with this value (repeatable), e.g. --where cbr_kbps=0.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Confidence level of the error bars (Student t).")
@click.option("--model", type=click.Choice(["chain-clamp"]), default=None,
              help="Overlay seed 004 §4's chain model W/(W+N-1), fitted per --by level (x: the window "
                   "clamp; --by: hop counts, or node counts if its name ends in 'nodes').")
@click.option("--title", default=None, help="A title above the figure.")
@click.option("--xlabel", default=None, help="The x axis' label [default: the column and its unit, from the schema].")
@click.option("--ylabel", default=None, help="The y axis' label [default: the column and its unit, from the schema].")
@click.option("--by-label", default=None, help="The legend's title [default: the --by column and its unit].")
@click.option("--size", default=None, metavar="WxH", help="Figure size in inches, e.g. 6x4 [default: 6.4x4.2; paper: 3.5x2.6].")
@click.option("--style", default=None, metavar="STYLE",
              help="paper (one column of a paper: 3.5 in wide, 8 pt serif), default, or a matplotlib style name.")
@OUT
def sweep_cmd(source: Path, x: str, y: str, by: str | None, conditions: tuple[str, ...], confidence: float, model: str | None,
              title: str | None, xlabel: str | None, ylabel: str | None, by_label: str | None, size: str | None,
              style: str | None, out: Path) -> None:
    """Mean of --y against --x with confidence intervals, one line per --by.

    TABLE_OR_STORE is a .csv or .parquet table (one row per run), a
    `hoplab reproduce ... --out DIR` directory (its runs.csv) or a lab store
    directory (store.sqlite).
    """
    _check_out(out)
    plot = _plot_module()

    try:
        df = plot.tables.where(plot.tables.read_table(source), conditions)
        curves = []
        if model == "chain-clamp":
            if by is None:
                raise plot.PlotError("--model chain-clamp", "needs --by (the chain's hop or node counts)")
            curves = plot.curves.chain_clamp_fit(df, x, y, by, nodes=by.rsplit(".", 1)[-1].endswith("nodes"))
        plot.sweep(df, x, y, by, curves=curves, confidence=confidence, title=title, xlabel=xlabel, ylabel=ylabel,
                   by_label=by_label, size=size, style=style, path=out)
    except plot.PlotError as e:
        if e.field in ("size", "style"):
            raise _fail(ValueError(f"--{e}")) from None
        where = "" if str(e).startswith(str(source)) else f"{source}: "
        raise _fail(ValueError(where + str(e))) from None
    _done(out)


def _circles(text: str) -> Any:
    if text in ("source", "all", "none"):
        return text
    try:
        return [int(v) for v in text.split(",") if v.strip()] or "none"
    except ValueError:
        raise click.BadParameter(f"expected source, all, none or node ids separated by commas, not {text!r}") from None


@plot_group.command("topology")
@click.argument("source", metavar="RESULT_DIR_OR_SCENARIO", type=click.Path(path_type=Path))
@click.option("--at", "at", type=click.FloatRange(0), default=0.0, show_default=True,
              help="Simulated time (s): where mobile nodes are then, and the flows' paths then.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="For a scenario: the seed placing random nodes [default: the scenario's].")
@click.option("--circles", default="source", show_default=True, metavar="WHICH",
              help="The radio range as a circle around: source (the first flow's), all, none, or node ids (1,4).")
@click.option("--no-links", "no_links", is_flag=True, help="Leave out the lines between nodes in range.")
@click.option("--title", default=None, help="A title above the figure [default: name, time and range].")
@click.option("--size", default=None, metavar="WxH", help="Figure size in inches, e.g. 6x4.")
@click.option("--style", default=None, metavar="STYLE", help="paper, default, or a matplotlib style name.")
@OUT
def topology_cmd(source: Path, at: float, seed: int | None, circles: str, no_links: bool, title: str | None,
                 size: str | None, style: str | None, out: Path) -> None:
    """Node positions (ids), the radio range and each flow's path at --at:
    a shortest path over nodes in range (as the oracle_paths table counts
    them), of a run (`hoplab run --out` directory) or a scenario file."""
    _check_out(out)
    plot = _plot_module()
    from .. import _core
    from .errors import scenario_error_text

    if source.is_dir():
        src: Any = _result(source)
    else:
        from . import _input

        src = _input.scenario_dict(source, *_input.read(source), ())
    try:
        plot.topology(src, at=at, seed=seed, circles=_circles(circles), links=not no_links, title=title,
                      size=size, style=style, path=out)
    except _core.ScenarioError as e:
        raise _fail(ValueError(scenario_error_text(e, source))) from None
    except plot.PlotError as e:
        raise _fail(ValueError(f"--{e}" if e.field in ("at", "circles", "size", "style") else f"{source}: {e}")) from None
    _done(out)


@plot_group.command("timeseries")
@click.argument("result_dir", metavar="RESULT_DIR", type=click.Path(path_type=Path))
@click.option("--flow", type=click.IntRange(0), default=None, help="Only this flow (default: every TCP flow).")
@OUT
def timeseries_cmd(result_dir: Path, flow: int | None, out: Path) -> None:
    """cwnd/ssthresh and srtt/rto over time, of a directory `hoplab run --out` wrote."""
    _check_out(out)
    plot = _plot_module()

    res = _result(result_dir, tables=("flows", "timeseries"))
    if len(res.timeseries) == 0 and len(res.flows) and not (res.flows["kind"] != "cbr").any():
        # Not "set timeseries = true": a CBR flow has no TCP sender to record.
        raise _fail(ValueError(f"{result_dir}: timeseries: the run has only CBR flows, and CBR flows have no "
                               "TCP time series (cwnd, srtt) to plot"))
    try:
        plot.timeseries(res, flow, path=out)
    except plot.PlotError as e:
        raise _fail(ValueError(f"{result_dir}: {e}")) from None
    _done(out)


@plot_group.command("nodes")
@click.argument("result_dir", metavar="RESULT_DIR", type=click.Path(path_type=Path))
@OUT
def nodes_cmd(result_dir: Path, out: Path) -> None:
    """Per-node queue length and drops by cause, of a directory `hoplab run --out` wrote."""
    _check_out(out)
    plot = _plot_module()

    res = _result(result_dir, tables=("nodes", "drops"))
    try:
        plot.nodes(res, path=out)
    except plot.PlotError as e:
        raise _fail(ValueError(f"{result_dir}: {e}")) from None
    _done(out)


def _hops(text: str) -> list[int]:
    try:
        hops = [int(h) for h in text.split(",") if h.strip()]
    except ValueError:
        hops = []
    if not hops or min(hops) < 1:
        raise click.BadParameter(f"expected hop counts >= 1 separated by commas, not {text!r}")
    return hops


@plot_group.command("model")
@click.argument("name", type=click.Choice(["chain-clamp", "tcp-friendly-window", "padhye"]))
@click.option("--hops", default="1,2,3,4,5,6", show_default=True,
              help="chain-clamp: chain lengths (seed 004's chains are 1-6 hops).")
@click.option("--max-window", type=click.IntRange(1, 10_000), default=32, show_default=True,
              help="chain-clamp: largest window clamp W.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True), multiple=True,
              help="tcp-friendly-window: FeW's alpha (repeat for several curves; default 1 and 0.01).")
@click.option("--k", "K", type=click.FloatRange(0), default=2.0, show_default=True,
              help="tcp-friendly-window: timeout factor K (seed 001 Eq. 2).")
@click.option("--rtt", type=click.FloatRange(0, min_open=True), default=0.1, show_default=True,
              help="padhye: round-trip time (s).")
@click.option("--t0", type=click.FloatRange(0, min_open=True), default=1.0, show_default=True,
              help="padhye: first timeout (s).")
@click.option("--wmax", type=click.FloatRange(0, min_open=True), default=None,
              help="padhye: window limit (packets; default none).")
@click.option("--mss", type=click.IntRange(1), default=1460, show_default=True,
              help="padhye: bytes per packet, for kbit/s.")
@OUT
def model_cmd(name: str, hops: str, max_window: int, alpha: tuple[float, ...], K: float, rtt: float, t0: float,
              wmax: float | None, mss: int, out: Path) -> None:
    """Curves of the seeds' analytic models (hoplab.models)."""
    _check_out(out)
    import numpy as np

    plot = _plot_module()

    if name == "chain-clamp":
        w = np.linspace(1, max_window, 400)
        fig_args = dict(xlabel="window clamp W (segments)", ylabel="throughput / saturation throughput",
                        title="seed 004 §4: chain of N nodes, throughput ∝ W/(W+N-1)")
        curves = plot.curves.chain_clamp(w, _hops(hops))
        logx = logy = False
    else:
        p = np.logspace(-4, np.log10(0.5), 400)
        logx, logy = True, name == "tcp-friendly-window"
        if name == "tcp-friendly-window":
            curves = plot.curves.tcp_friendly_window(p, alpha or (1.0, 0.01), K)
            fig_args = dict(xlabel="loss rate p", ylabel="average window W (packets)",
                            title="seed 001 Eq. 1: TCP-friendly window")
        else:
            curves = plot.curves.padhye(p, rtt, t0, wmax=np.inf if wmax is None else wmax, mss=mss)
            fig_args = dict(xlabel="loss rate p", ylabel="throughput (kbit/s)",
                            title="Padhye et al. 1998 (seed 002 Eq. 3)")
    plot.models(curves, logx=logx, logy=logy, path=out, **fig_args)
    _done(out)
