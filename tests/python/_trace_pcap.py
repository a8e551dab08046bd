"""A channel-wide 802.11 capture made from a run's in-memory trace, for
test_analyze.py: every DATA frame put on the air that carries a TCP segment
or ACK, as radiotap + 802.11 + LLC/SNAP + IPv4 + TCP headers (payload cut,
as `tcpdump -s`), on hoplab's addressing (node N: 10.0.0.N+1, MAC
02:00:00:00:HH:LL). A stand-in for the pcap writer's files (trace/pcap),
enough to check how analyze identifies a flow in a multihop capture.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

ISN_DATA, ISN_ACK = 1_000_000, 5_000_000
SPORT = DPORT = 50000  # flow 0's port at both ends, as trace/pcap writes it


def mac(node: int) -> bytes:
    return b"\xff" * 6 if node < 0 else bytes([2, 0, 0, 0, (node >> 8) & 0xFF, node & 0xFF])


def ip(node: int) -> bytes:
    return struct.pack(">I", (10 << 24) + node + 1)


def frame(ta: int, ra: int, seq: int, retry: bool, src: int, dst: int, tcp_seq: int, tcp_ack: int,
          payload: int, flags: int = 0x10) -> tuple[bytes, int]:
    """(captured bytes, length on the air) of one frame."""
    tcp = struct.pack(">HHIIBBHHH", SPORT if payload else DPORT, DPORT if payload else SPORT, tcp_seq, tcp_ack,
                      5 << 4, flags, 65535, 0, 0)
    total = 20 + len(tcp) + payload
    iph = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 0, 0, 64, 6, 0, ip(src), ip(dst))
    hdr = struct.pack("<BBH6s6s6sH", 0x08, 0x08 if retry else 0, 0, mac(ra), mac(ta), mac(0xFFFF), seq << 4)
    body = b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + iph + tcp
    radiotap = struct.pack("<BBHI", 0, 0, 8, 0)
    data = radiotap + hdr + body
    return data, len(data) + payload


def write_pcap(path: Path, frames: list[tuple[float, bytes, int]], linktype: int = 127) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for t, data, orig in frames:
            us = round(t * 1e6)
            f.write(struct.pack("<IIII", us // 1_000_000, us % 1_000_000, len(data), orig) + data)


def channel_pcap(result: Any, path: Path, mss: int) -> int:
    """Write every TCP frame transmitted in `result`'s trace; the count."""
    tr = result.trace
    tx = tr[(tr.event == "tx") & (tr.frame == "DATA") & tr.packet_type.isin(["tcp", "ack"])]
    frames = []
    for r in tx.itertuples(index=False):
        if r.packet_type == "tcp":
            data, orig = frame(r.src, r.dst, r.seq, r.retry, r.packet_src, r.packet_dst,
                               ISN_DATA + 1 + r.tcp_seq * mss, ISN_ACK + 1, mss)
        else:
            data, orig = frame(r.src, r.dst, r.seq, r.retry, r.packet_src, r.packet_dst,
                               ISN_ACK + 1, ISN_DATA + 1 + r.tcp_seq * mss, 0)
        frames.append((r.time_s, data, orig))
    write_pcap(path, frames)
    return len(frames)
