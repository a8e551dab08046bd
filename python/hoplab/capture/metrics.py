"""A capture's TCP connections as a run's tables: one `flows` row per
direction that carried data, and a `timeseries` row per ACK of new data, in
the columns, units and definitions of a simulated run (results/mod.rs,
world.rs `results`), so that a testbed and a simulation compare in one table.

Times are seconds since the capture's first record. Per direction A->B:
  start_s            the connection's first packet (its SYN when captured)
  end_s              when the last data byte was acknowledged, if the
                     transfer completed (A's FIN acknowledged); else the
                     connection's last packet if it was closed (FIN or RST
                     seen), else the capture's last record (the run's end,
                     for a flow still going when the run stops)
  bytes_delivered    data bytes B acknowledged cumulatively (in order)
  throughput_kbps    bytes_delivered * 8 / (end_s - start_s) / 1000 (seed 000 §3.2)
  packets_sent       data segments A sent, retransmissions included
  retransmissions    data segments that resent bytes sent before (tcptrace)
  packets_received   distinct data segments B acknowledged
  retransmission_index  100 * retransmissions / packets_received (seed 000 §3.2)
  loss_rate          retransmissions / packets_sent (seed 002 §7.2)
  rtt_mean_ms, rtt_std_ms, rtt_samples  per-ACK samples of data segments sent
                     once (Karn; tcptrace's rule, flows.py); the standard
                     deviation over n, as the engine's (tcptrace divides by n-1)
  completed, completion_s, transfer_throughput_kbps  as the engine's
  ecn_reductions     segments A sent with CWR set (RFC 3168 §6.1.2)
  oracle_hops_at_start  -1 (no topology)
Counters a capture cannot show (timeouts, fast retransmits, route changes,
stream errors, ELFN, ADTCP, ...) are NaN; delay and jitter are NaN as for
any TCP flow. `flow` numbers directions with data in order of first packet, except in a
capture of hoplab's own (its addresses, port 50000 + f at both ends): there
`flow` is the run's flow number. Extra columns after the run's: the
addresses and ports,
`unique_bytes`, `first_s`/`last_s` (the connection's first and last packet:
tcptrace's "elapsed time"), `mss_bytes` (largest payload), `cwnd_mean`.

`timeseries`: per ACK of new data, `cwnd` is the estimate (bytes in flight
when the ACK arrived, SACKed ones not counted, / mss_bytes, in segments), `srtt_ms` the RFC 6298
§2 smoothed RTT of the samples so far, `ssthresh` and `rto_ms` NaN (not on
the wire); extra columns `rtt_ms` (this ACK's sample, else NaN),
`in_flight_bytes` and `delivered_bytes`.
"""

from __future__ import annotations

import math
from typing import Any

from .flows import Connection, Direction

__all__ = ["tables", "UNOBSERVED", "node_ids"]

#: Integer columns of the flows table that a capture cannot observe: NaN here,
#: and left out of saved files (a result loads a missing column as NaN).
UNOBSERVED = ("timeouts", "fast_retransmits", "stream_errors", "route_changes", "elfn_events", "probes",
              "adtcp_congestion", "adtcp_channel_error", "adtcp_route_change", "adtcp_disconnection")
_NAN_FLOATS = ("rto_time_s", "no_route_s", "longest_gap_s", "standby_s", "delay_mean_ms", "delay_std_ms",
               "jitter_ms")


def node_ids(addresses: list[str]) -> dict[str, int]:
    """Node ids of the capture's hosts: hoplab's own addressing when every
    address is in its plan (the engine's, `_core.ipv4_node`: node N is
    10.0.0.0/16 + N + 1), else hosts numbered 0, 1, ... in order of first
    appearance."""
    from .. import _core

    ids = [_core.ipv4_node(a) for a in addresses]
    if ids and all(i is not None for i in ids):
        return dict(zip(addresses, ids))
    return {a: i for i, a in enumerate(addresses)}


def _mean_std(samples: list[int]) -> tuple[float, float]:
    """Mean and standard deviation over n (world.rs mean_std_ms), in ms."""
    if not samples:
        return math.nan, math.nan
    n = len(samples)
    m = sum(samples) / n
    var = max(0.0, sum((x - m) ** 2 for x in samples) / n)
    return m / 1e6, math.sqrt(var) / 1e6


def _kbps(nbytes: int, secs: float) -> float:
    return nbytes * 8 / secs / 1e3 if secs > 0 else math.nan


def tables(conns: list[Connection], t0_ns: int, t_end_ns: int) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    """(flows rows, timeseries columns) of the directions with data."""
    sec = lambda ns: (ns - t0_ns) / 1e9  # noqa: E731
    hosts: list[str] = []
    for c in conns:
        for d in c.directions():
            for h in (d.src, d.dst):
                if h not in hosts:
                    hosts.append(h)
    ids = node_ids(hosts)
    rows: list[dict[str, Any]] = []
    ts: dict[str, list[Any]] = {k: [] for k in ("flow", "time_s", "cwnd", "ssthresh", "srtt_ms", "rto_ms",
                                                "rtt_ms", "in_flight_bytes", "delivered_bytes")}
    data = [(c, d) for c in conns for d in c.directions() if d.data_packets]
    numbers = _hoplab_flows(data, ids, hosts) or list(range(len(data)))
    for flow, (c, d) in sorted(zip(numbers, data), key=lambda x: x[0]):
        rows.append(_row(flow, c, d, ids, sec, t_end_ns))
        _series(flow, d, sec, ts)
    return rows, ts


def _hoplab_flows(data: list[tuple[Connection, Direction]], ids: dict[str, int], hosts: list[str]) -> list[int] | None:
    """The run's flow numbers of a hoplab capture: each flow has one port at both ends
    (the engine's plan, `_core.port_flow`); None unless every direction says so, once
    each, on hoplab's addresses."""
    from .. import _core

    if not hosts or any(_core.ipv4_node(h) != ids[h] for h in hosts):
        return None
    flows = [_core.port_flow(d.sport) if d.sport == d.dport else None for _, d in data]
    if None in flows or len(set(flows)) != len(flows):
        return None
    return flows


def _row(flow: int, c: Connection, d: Direction, ids: dict[str, int], sec: Any, t_end_ns: int) -> dict[str, Any]:
    start = sec(c.first_ns)
    completed = d.completed_ns is not None
    # The last data byte's ACK: the FIN's ACK acknowledges it too.
    done = d.completed_ns
    # Not completed: a connection that was closed (FIN or RST) ended with its
    # last packet; one still open ran to the capture's end (a run's end).
    end = sec(done) if completed else sec(c.last_ns if c.closed else t_end_ns)
    received = d.received_segments
    delivered = d.delivered
    mean, std = _mean_std(d.rtt_ns)
    mss = d.max_payload
    flights = [f for _, f, _, _ in d.ack_log]
    row: dict[str, Any] = {
        "flow": flow, "kind": "tcp", "src": ids[d.src], "dst": ids[d.dst],
        "start_s": start, "end_s": end, "bytes_delivered": delivered,
        "throughput_kbps": _kbps(delivered, end - start),
        "packets_sent": d.data_packets, "retransmissions": d.retransmissions, "packets_received": received,
        "retransmission_index": 100 * d.retransmissions / received if received else math.nan,
        "loss_rate": d.retransmissions / d.data_packets if d.data_packets else math.nan,
        "rtt_mean_ms": mean, "rtt_std_ms": std, "rtt_samples": len(d.rtt_ns),
        "completed": completed,
        "completion_s": sec(done) if completed else math.nan,
        "transfer_throughput_kbps": _kbps(delivered, sec(done) - start) if completed else math.nan,
        "ecn_reductions": d.cwr, "oracle_hops_at_start": -1,
    }
    for col in UNOBSERVED + _NAN_FLOATS:
        row[col] = math.nan
    row.update({
        "src_addr": d.src, "src_port": d.sport, "dst_addr": d.dst, "dst_port": d.dport,
        "unique_bytes": d.unique_bytes, "first_s": start, "last_s": sec(c.last_ns), "mss_bytes": mss,
        "cwnd_mean": sum(flights) / len(flights) / mss if flights and mss else math.nan,
    })
    return row


def _series(flow: int, d: Direction, sec: Any, ts: dict[str, list[Any]]) -> None:
    srtt = math.nan
    mss = d.max_payload or 1
    for t, flight, sample, acked in d.ack_log:
        if sample >= 0:
            r = sample / 1e6
            # RFC 6298 §2.2/§2.3: SRTT <- R, then SRTT <- 7/8 SRTT + 1/8 R'.
            srtt = r if math.isnan(srtt) else 0.875 * srtt + 0.125 * r
        ts["flow"].append(flow)
        ts["time_s"].append(sec(t))
        ts["cwnd"].append(flight / mss)
        ts["ssthresh"].append(math.nan)
        ts["srtt_ms"].append(srtt)
        ts["rto_ms"].append(math.nan)
        ts["rtt_ms"].append(sample / 1e6 if sample >= 0 else math.nan)
        ts["in_flight_bytes"].append(flight)
        ts["delivered_bytes"].append(max(0, min(acked, d.snd_max) - 1))
