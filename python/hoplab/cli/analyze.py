"""`hoplab analyze CAPTURE`: hoplab's flow metrics from a real capture.

    hoplab analyze CAPTURE [--out DIR] [--format csv|parquet] [--interval S]
"""

from __future__ import annotations

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
    from ..capture import CaptureError, analyze
    from ..result import Result

    if out_dir is not None:
        try:
            Result.check_writable(out_dir)
        except OSError as e:
            raise HoplabError(f"--out: {os_error_text(e, out_dir)}") from None
    try:
        r = analyze(capture, interval_s=interval_s)
    except CaptureError as e:
        raise HoplabError(str(e)) from None
    except ValueError as e:  # an --interval too short for the flows' length
        raise HoplabError(f"--interval: {e}") from None
    i = r.info
    click.echo(f"capture {capture}  {i['duration_s']:.3f} s  {i['events']:,} records  {i['tcp_packets']:,} TCP  "
               f"{i['connections']} connection{'s' if i['connections'] != 1 else ''}  ({i['link_types'] or 'empty'})")
    if i.get("warning"):
        click.echo(f"hoplab: warning: {i['warning']}", err=True)
    click.echo("")
    if len(r.flows):
        click.echo(_flows_table(r.flows))
    else:
        click.echo("(no TCP data flows)")
    if out_dir is not None:
        try:
            r.save(out_dir, format=fmt)
        except OSError as e:
            raise HoplabError(f"--out: {os_error_text(e, out_dir)}") from None
        click.echo(f"\nsaved to {out_dir}")


def _flows_table(flows: "object") -> str:
    """The capture's flows as `hoplab run` prints a run's, with the endpoints."""
    from .._table import fmt_num, text_table

    rows = [[f.flow, f"{f.src_addr}:{f.src_port} -> {f.dst_addr}:{f.dst_port}", f"{f.src}->{f.dst}",
             fmt_num(f.throughput_kbps, 1), fmt_num(int(f.bytes_delivered), 0), fmt_num(int(f.packets_sent), 0),
             fmt_num(int(f.retransmissions), 0), fmt_num(f.retransmission_index, 2), fmt_num(f.loss_rate, 4),
             fmt_num(f.rtt_mean_ms, 1), fmt_num(f.rtt_std_ms, 1), fmt_num(f.cwnd_mean, 1),
             "yes" if f.completed else "no"]
            for f in flows.itertuples(index=False)]  # type: ignore[attr-defined]
    return text_table(["flow", "endpoints", "path", "thr kbps", "bytes", "segments", "retx", "retx idx %",
                       "loss rate", "rtt ms", "rtt std", "cwnd", "completed"], rows, align="lllrrrrrrrrrl")
