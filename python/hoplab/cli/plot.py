"""`hoplab plot`: figures of results, written as PNG, SVG or PDF by the
suffix of -o.

    hoplab plot sweep TABLE_OR_STORE --x COL --y COL [--by COL] [--where COL=VALUE ...] [--model chain-clamp] -o FILE
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
@OUT
def sweep_cmd(source: Path, x: str, y: str, by: str | None, conditions: tuple[str, ...], confidence: float, model: str | None,
              title: str | None, out: Path) -> None:
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
        plot.sweep(df, x, y, by, curves=curves, confidence=confidence, title=title, path=out)
    except plot.PlotError as e:
        where = "" if str(e).startswith(str(source)) else f"{source}: "
        raise _fail(ValueError(where + str(e))) from None
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
