"""The bundled traffic tool, run inside a real node's namespace: a bulk TCP
sender and receiver with the real-stack settings of seeds 000/004, and a UDP
probe for one-way delay. Prints one JSON line of results.

    python -m hoplab.emu.tcp recv --port 5001 [--clamp 2 --rcvbuf 65536] [--sack off]
    python -m hoplab.emu.tcp send 10.0.0.4 --port 5001 --seconds 5 [--cc reno] [--sack off]
    python -m hoplab.emu.tcp udp-recv --port 6001 --count 200 --out delays.json
    python -m hoplab.emu.tcp udp-send 10.0.0.2 --port 6001 --count 200 --interval-ms 20 --size 200

The traps of real stacks (Linux tcp(7), ip-sysctl.txt):
- `TCP_CONGESTION` is set per socket: a child namespace refuses to change
  its default `tcp_congestion_control` (EPERM).
- `TCP_WINDOW_CLAMP` is overridden by receive-buffer autotuning unless the
  receive buffer is fixed (`SO_RCVBUF`, set before listen), so `--clamp`
  always fixes it.
- `net.ipv4.tcp_sack` and `tcp_no_metrics_save` are per namespace; without
  `tcp_no_metrics_save` a run starts with the ssthresh the last one to the
  same address cached.
- One-way delay needs one clock: CLOCK_MONOTONIC, which every namespace of a
  machine shares, is stamped in each probe.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time
from pathlib import Path

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_WINDOW_CLAMP = getattr(socket, "TCP_WINDOW_CLAMP", 10)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
#: asm-generic/socket.h SO_TIMESTAMPNS_OLD (also its control message type); Python does not name it.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
#: struct tcp_info offsets (linux/tcp.h): tcpi_rtt, tcpi_snd_cwnd, tcpi_total_retrans (u32), tcpi_bytes_acked (u64);
#: tcpi_total_rto (u16) and tcpi_total_rto_time (u32, ms), Linux 6.7 on.
_RTT, _CWND, _RETRANS, _ACKED, _TOTAL_RTO, _RTO_TIME = 68, 80, 100, 120, 240, 244
_INFO_LEN = 248
#: Bytes of payload the clamp counts in (seed 000: 1460-byte MSS, IPv4 + TCP without options).
MSS = 1448


def _sysctl(name: str, value: str) -> None:
    """Write a sysctl of this namespace (net.* sysctls are per namespace)."""
    Path("/proc/sys/" + name.replace(".", "/")).write_text(value)


def _namespace_settings(a: argparse.Namespace) -> None:
    if a.sack is not None:
        _sysctl("net.ipv4.tcp_sack", "1" if a.sack == "on" else "0")
    if a.no_metrics_save:
        _sysctl("net.ipv4.tcp_no_metrics_save", "1")


def _tcp_info(s: socket.socket) -> tuple[float, int, int, int]:
    """(RTT in ms, cwnd in segments, total retransmissions, bytes acked)."""
    b = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, _INFO_LEN)
    rtt_us, = struct.unpack_from("I", b, _RTT)
    cwnd, = struct.unpack_from("I", b, _CWND)
    retrans, = struct.unpack_from("I", b, _RETRANS)
    acked, = struct.unpack_from("Q", b, _ACKED) if len(b) >= _ACKED + 8 else (0,)
    return rtt_us / 1e3, cwnd, retrans, acked


def _rto_info(s: socket.socket) -> tuple[int | None, float | None]:
    """(retransmission timeouts, seconds spent recovering from them) since the
    connection opened; None before Linux 6.7 (no tcpi_total_rto)."""
    b = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, _INFO_LEN)
    if len(b) < _INFO_LEN:
        return None, None
    rto, = struct.unpack_from("H", b, _TOTAL_RTO)
    ms, = struct.unpack_from("I", b, _RTO_TIME)
    return rto, ms / 1e3


def recv(a: argparse.Namespace) -> dict:
    _namespace_settings(a)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.rcvbuf or a.clamp:
        # Fixed before listen, so the accepted socket inherits it and autotuning stays off.
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf or 4 * a.clamp * MSS)
    if a.clamp:
        ls.setsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP, a.clamp * MSS)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(1)
    ls.settimeout(a.timeout)
    c, peer = ls.accept()
    if a.clamp:
        c.setsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP, a.clamp * MSS)
    c.settimeout(a.timeout)
    total, first, last = 0, None, None
    buf = bytearray(1 << 16)
    while True:
        try:
            n = c.recv_into(buf)
        except socket.timeout:
            break
        if n == 0:
            break
        now = time.monotonic()
        first = first or now
        last = now
        total += n
    c.close()
    span = (last - first) if first and last and last > first else float("nan")
    return {"role": "recv", "peer": peer[0], "bytes": total, "seconds": span, "goodput_kbps": total * 8 / span / 1e3 if span == span else float("nan")}


def send(a: argparse.Namespace) -> dict:
    _namespace_settings(a)
    deadline = time.monotonic() + a.connect_timeout
    while True:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.cc.encode())
        if a.clamp:
            s.setsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP, a.clamp * MSS)
        try:
            s.connect((a.host, a.port))
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    data = b"\0" * (1 << 16)
    t0 = time.monotonic()
    end = t0 + a.seconds
    rtts, next_sample = [], t0
    s.setblocking(False)
    import select
    while (now := time.monotonic()) < end:
        if now >= next_sample:
            rtts.append(_tcp_info(s)[0])
            next_sample = now + 0.1
        _, w, _ = select.select([], [s], [], min(0.05, end - now))
        if w:
            try:
                s.send(data)
            except BlockingIOError:
                pass
    rtt, cwnd, retrans, acked = _tcp_info(s)
    rtos, rto_s = _rto_info(s)
    s.setblocking(True)
    s.shutdown(socket.SHUT_WR)
    s.settimeout(2.0)
    try:
        s.recv(1)
    except OSError:
        pass
    s.close()
    cc = a.cc
    return {"role": "send", "cc": cc, "bytes_acked": acked, "seconds": a.seconds, "goodput_kbps": acked * 8 / a.seconds / 1e3,
            "rtt_mean_ms": sum(rtts) / len(rtts) if rtts else float("nan"), "retransmissions": retrans, "last_cwnd": cwnd,
            "timeouts": rtos, "timeout_recovery_s": rto_s}


_PROBE = struct.Struct("!IQ")  # sequence number, CLOCK_MONOTONIC ns at send


def udp_send(a: argparse.Namespace) -> dict:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pad = b"\0" * max(0, a.size - _PROBE.size)
    t = time.monotonic_ns()
    for k in range(a.count):
        t += int(a.interval_ms * 1e6)
        while time.monotonic_ns() < t:
            time.sleep(max(0.0, (t - time.monotonic_ns()) / 1e9 - 0.0005))
        s.sendto(_PROBE.pack(k, time.monotonic_ns()) + pad, (a.host, a.port))
    return {"role": "udp-send", "sent": a.count}


def _realtime_offset_ns() -> int:
    """CLOCK_REALTIME minus CLOCK_MONOTONIC, read between two monotonic reads."""
    best = None
    for _ in range(5):
        a = time.monotonic_ns()
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        b = time.monotonic_ns()
        if best is None or b - a < best[0]:
            best = (b - a, r - (a + b) // 2)
    return best[1]


def udp_recv(a: argparse.Namespace) -> dict:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # The kernel's receive time (socket(7) SO_TIMESTAMPNS, CLOCK_REALTIME),
    # so that this process' own scheduling delay is not counted.
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(("0.0.0.0", a.port))
    s.settimeout(a.timeout)
    offset = _realtime_offset_ns()
    rows = []
    while len(rows) < a.count:
        try:
            b, anc, _, _ = s.recvmsg(65536, 256)
        except socket.timeout:
            break
        now = time.monotonic_ns()
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", data[:16])
                now = sec * 1_000_000_000 + nsec - offset
        k, sent = _PROBE.unpack_from(b)
        rows.append((k, sent, now))
    if a.out:
        Path(a.out).write_text(json.dumps(rows) + "\n")
    d = sorted(r[2] - r[1] for r in rows)
    return {"role": "udp-recv", "received": len(rows), "delay_p50_ms": d[len(d) // 2] / 1e6 if d else float("nan")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hoplab.emu.tcp", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("recv", "send"):
        q = sub.add_parser(name)
        if name == "send":
            q.add_argument("host")
            q.add_argument("--seconds", type=float, default=5.0)
            q.add_argument("--cc", default="cubic", help="TCP_CONGESTION, per socket (cubic, reno, ...)")
            q.add_argument("--connect-timeout", type=float, default=5.0)
        else:
            q.add_argument("--rcvbuf", type=int, default=0, help="fixed SO_RCVBUF in bytes (turns autotuning off)")
            q.add_argument("--timeout", type=float, default=30.0)
        q.add_argument("--port", type=int, default=5001)
        q.add_argument("--clamp", type=int, default=0, help="TCP_WINDOW_CLAMP in segments of %d bytes" % MSS)
        q.add_argument("--sack", choices=("on", "off"), default=None, help="net.ipv4.tcp_sack of this namespace")
        q.add_argument("--keep-metrics", dest="no_metrics_save", action="store_false",
                       help="leave tcp_no_metrics_save alone (default: set it, so runs do not inherit ssthresh)")
    q = sub.add_parser("udp-send")
    q.add_argument("host")
    q.add_argument("--port", type=int, default=6001)
    q.add_argument("--count", type=int, default=100)
    q.add_argument("--interval-ms", type=float, default=20.0)
    q.add_argument("--size", type=int, default=200)
    q = sub.add_parser("udp-recv")
    q.add_argument("--port", type=int, default=6001)
    q.add_argument("--count", type=int, default=100)
    q.add_argument("--timeout", type=float, default=10.0)
    q.add_argument("--out", default=None, help="write [[seq, sent_ns, received_ns], ...] as JSON")
    a = p.parse_args(argv)
    res = {"recv": recv, "send": send, "udp-send": udp_send, "udp-recv": udp_recv}[a.cmd](a)
    print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
