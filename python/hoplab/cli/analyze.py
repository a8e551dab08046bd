"""`hoplab analyze CAPTURE`: hoplab's flow metrics from a real capture.

    hoplab analyze CAPTURE [--out DIR] [--format csv|parquet] [--interval S]
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from .errors import HoplabError, os_error_text

__all__ = ["analyze_cmd"]


@click.command("analyze")
@click.argument("capture", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Write the tables here, as a run's result directory (flows, timeseries, info.json) "
                   "plus throughput.csv.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True,
              help="Table file format for --out.")
@click.option("--interval", "interval_s", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Seconds per interval of the throughput table.")
def analyze_cmd(capture: Path, out_dir: Path | None, fmt: str, interval_s: float) -> None:
    """Measure the TCP flows of a pcap or pcapng capture (Ethernet, raw IP,
    Linux cooked v1/v2, 802.11 with radiotap) as hoplab measures a simulated
    run's flows: throughput, retransmission index, loss rate, RTT mean and
    standard deviation, a cwnd estimate and time series (docs/GUIDE.md,
    "Analysing real captures")."""
    from ..capture import CaptureError, TooManyIntervals, analyze
    from ..result import Result

    if not math.isfinite(interval_s):  # click's range lets inf and nan through
        raise HoplabError(f"--interval: {interval_s} is not a finite number of seconds")
    if out_dir is not None:
        try:
            Result.check_writable(out_dir)
        except OSError as e:
            raise HoplabError(f"--out: {os_error_text(e, out_dir)}") from None
    try:
        r = analyze(capture, interval_s=interval_s)
    except CaptureError as e:  # the file: unreadable, damaged, or nothing in it to measure
        raise HoplabError(str(e)) from None
    except TooManyIntervals as e:  # the capture's length and --interval together
        raise HoplabError(e.cli_text()) from None
    click.echo(r.info_line())
    for line in r.info.get("warnings", []):
        click.echo(f"hoplab: warning: {line}", err=True)
    click.echo("")
    click.echo(r.flows_table())
    if out_dir is not None:
        try:
            r.save(out_dir, format=fmt)
        except OSError as e:
            raise HoplabError(f"--out: {os_error_text(e, out_dir)}") from None
        click.echo(f"\nsaved to {out_dir}")
