"""hoplab's metrics from real captures: `hoplab.analyze(path)` reads a pcap
or pcapng capture of TCP flows and returns a `CaptureResult`, a
`hoplab.Result` whose `flows` and `timeseries` tables have a run's columns
(metrics.py says how each is measured), so that a testbed and a simulation
compare in one table. Needs dpkt (`pip install 'hoplab[capture]'`).

    read.py      the file's records (pcap, pcapng; errors name the byte offset)
    decode.py    a record -> its TCP segment (Ethernet, raw IP, SLL, SLL2, 802.11), or why none
    scan.py      the pass over the records: segments in time order, what the records were
    diagnose.py  the warnings, and why a capture has nothing to measure
    flows.py     connections, retransmissions, ACKs, RTT samples (tcptrace's rules)
    metrics.py   the run's tables
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import CaptureError, TooManyIntervals

if TYPE_CHECKING:
    import pandas as pd

    from ..result import Result

__all__ = ["analyze", "CaptureError", "CaptureResult", "TooManyIntervals"]


@functools.cache
def _result_class() -> type:
    """CaptureResult, built on first use (hoplab.result imports what `import hoplab` must not)."""
    from ..result import Result

    class CaptureResult(Result):
        """A `hoplab.Result` measured from a capture: `flows` and `timeseries`
        as a run's (plus a few columns of its own), `info` about the capture,
        and `throughput`: per flow and interval, the bytes acknowledged in it
        and their rate (flow, start_s, end_s, bytes, throughput_kbps)."""

        throughput: "pd.DataFrame"
        #: The connections as analysed (flows.Connection): per direction, its RTT
        #: samples and counters, for figures the tables do not carry.
        connections: list[Any]

        def info_line(self) -> str:
            i = self.info
            return (f"capture {i['capture']}  {i['duration_s']:.3f} s  {i['events']:,} records  "
                    f"{i['tcp_packets']:,} TCP  {i['connections']} connection{'s' if i['connections'] != 1 else ''}"
                    f"  ({i['link_types'] or 'empty'})")

        def _flows_cells(self) -> tuple[list[str], list[list[Any]], str]:
            """The flows with their endpoints (a run's table has counters a capture lacks)."""
            from .._table import fmt_num

            rows = [[f.flow, f"{f.src_addr}:{f.src_port} -> {f.dst_addr}:{f.dst_port}", f"{f.src}->{f.dst}",
                     fmt_num(f.throughput_kbps, 1), fmt_num(int(f.bytes_delivered), 0),
                     fmt_num(int(f.packets_sent), 0), fmt_num(int(f.retransmissions), 0),
                     fmt_num(f.retransmission_index, 2), fmt_num(f.loss_rate, 4), fmt_num(f.rtt_mean_ms, 1),
                     fmt_num(f.rtt_std_ms, 1), fmt_num(f.cwnd_mean, 1), "yes" if f.completed else "no"]
                    for f in self.flows.itertuples(index=False)]
            return (["flow", "endpoints", "path", "thr kbps", "bytes", "segments", "retx", "retx idx %",
                     "loss rate", "rtt ms", "rtt std", "cwnd", "completed"], rows, "lllrrrrrrrrrl")

        def save(self, directory: str | Path, format: str = "csv") -> Path:
            """`Result.save`, without the columns a capture cannot observe (they load
            back as NaN), with `throughput.csv` (or .parquet) beside the tables, in the
            same manifest."""
            from .metrics import UNOBSERVED

            full = self.flows
            self.flows = full.drop(columns=[c for c in UNOBSERVED if c in full.columns])
            try:
                return super().save(directory, format)
            finally:
                self.flows = full

        def _extra_entries(self, format: str) -> list[Any]:
            from .. import manifest

            df = self.throughput
            write = ((lambda p: df.to_csv(p, index=False)) if format == "csv"
                     else (lambda p: df.to_parquet(p, index=False)))
            return [manifest.Entry(f"throughput.{format}", write, len(df))]

        def _extra_names(self, format: str) -> frozenset[str]:
            return frozenset({"throughput.csv", "throughput.parquet"})

    CaptureResult.__qualname__ = "CaptureResult"
    CaptureResult.__module__ = __name__
    return CaptureResult


def __getattr__(name: str) -> Any:
    if name == "CaptureResult":
        return _result_class()
    raise AttributeError(name)


#: Rows of the throughput table per flow at most (a bound on its memory).
MAX_INTERVALS = 1_000_000


def _throughput(path: str | os.PathLike[str], ts: dict[str, list[Any]], flows: list[dict[str, Any]],
                interval_s: float) -> dict[str, list[Any]]:
    """Bytes acknowledged per flow and interval [k*interval_s, (k+1)*interval_s)."""
    out: dict[str, list[Any]] = {"flow": [], "start_s": [], "end_s": [], "bytes": [], "throughput_kbps": []}
    by_flow: dict[int, list[tuple[float, int]]] = {}
    for f, t, d in zip(ts["flow"], ts["time_s"], ts["delivered_bytes"]):
        by_flow.setdefault(f, []).append((t, d))
    for row in flows:
        f = row["flow"]
        pts = by_flow.get(f, [])
        start, end = row["start_s"], row["end_s"]
        if not (end > start):
            continue
        k0, k1 = math.floor(start / interval_s), math.ceil(end / interval_s)
        if k1 - k0 > MAX_INTERVALS:
            raise TooManyIntervals(path, f, end - start, interval_s, MAX_INTERVALS)
        acc = [0] * (k1 - k0)
        prev = 0
        for t, d in pts:
            k = min(max(math.floor(t / interval_s) - k0, 0), len(acc) - 1)
            acc[k] += max(0, d - prev)
            prev = max(prev, d)
        for i, b in enumerate(acc):
            a, z = (k0 + i) * interval_s, (k0 + i + 1) * interval_s
            out["flow"].append(f)
            out["start_s"].append(a)
            out["end_s"].append(z)
            out["bytes"].append(b)
            out["throughput_kbps"].append(b * 8 / interval_s / 1e3)
    return out


def analyze(path: str | os.PathLike[str], *, interval_s: float = 1.0) -> "Result":
    """Measure every TCP connection in the capture at `path` (pcap or pcapng)
    as hoplab measures a simulated flow; `interval_s` is the width of the
    `throughput` table's intervals. Raises CaptureError (a ValueError, one
    line naming the file and, where there is one, the byte offset) for a
    file that is not a whole capture or that holds nothing to measure,
    TooManyIntervals (a ValueError) for a flow longer than the throughput
    table's bound in intervals, ValueError for an `interval_s` that is not a
    positive finite number, and hoplab._extras.MissingExtra without dpkt.
    `info["warnings"]` holds one line per thing to read the result with
    (records skipped, records out of time order, which were sorted)."""
    from .._extras import require

    try:
        width = float(interval_s)
    except (TypeError, ValueError):
        width = math.nan
    if not (math.isfinite(width) and width > 0):  # inf would make every flow one empty interval
        raise ValueError(f"interval_s must be a finite number of seconds above 0, not {interval_s!r}")
    interval_s = width
    require("capture", "hoplab.analyze")
    import pandas as pd

    from ..result import _frame
    from .decode import LINKTYPES
    from .diagnose import nothing_to_measure, warnings
    from .flows import connections
    from .metrics import tables
    from .scan import scan

    conns, s = scan(path, connections)
    why = nothing_to_measure(s, conns)
    if why is not None:
        raise CaptureError(path, None, why)
    t0 = s.first_ns or 0
    t_end = s.last_ns or 0
    rows, ts = tables(conns, t0, t_end)
    info = {
        "scenario": f"capture {Path(path).name}", "capture": str(path),
        "duration_s": (t_end - t0) / 1e9, "nodes": len({r["src_addr"] for r in rows} | {r["dst_addr"] for r in rows}),
        "events": s.records, "wall_s": 0.0,
        "tcp_packets": s.tcp, "connections": len(conns),
        "link_types": ", ".join(LINKTYPES.get(lt, f"LINKTYPE {lt} (not read)") for lt in sorted(s.linktypes)),
    }
    said = warnings(path, s)
    if said:
        info["warnings"] = said
    cls = _result_class()
    r = cls(info)
    flows = pd.DataFrame(rows) if rows else _frame("flows", {})
    if rows:
        # The run's columns first, in its order, then the capture's own.
        from .._schema import SCHEMA

        cols = list(SCHEMA["flows"]) + [c for c in rows[0] if c not in SCHEMA["flows"]]
        flows = flows[cols]
    r.flows = flows
    r.timeseries = pd.DataFrame(ts).astype({"flow": "int64"}) if ts["flow"] else _frame("timeseries", {})
    r.throughput = pd.DataFrame(_throughput(path, ts, rows, interval_s))
    r.connections = conns
    return r
