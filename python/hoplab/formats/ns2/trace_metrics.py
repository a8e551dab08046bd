"""Metrics from an ns-2 wireless trace file: the figures the classic awk
scripts compute (packet delivery ratio, throughput, end-to-end delay,
routing overhead, drops by reason), for ns-2.35's traces and hoplab's
(`[trace] formats = ["ns2"]`, trace.tr) alike.

    from hoplab.formats.ns2.trace_metrics import summarize, compare_table
    s = summarize("out.tr")          # or out.tr.gz
    for c in s.connections: print(c.kind, c.src, c.dst, c.packets_received, c.delivery_ratio)
    rows = compare_table(summarize("ns2.tr"), summarize("trace.tr"), labels=("ns-2", "hoplab"))

Both CMU formats are read, line by line (a gzip file is recognised by its
magic bytes), and may even be mixed:

- old (ns-2's default), positional: `s 10.000000000 _0_ AGT  --- 0 cbr 532
  [0 0 0 0] ------- [0:0 1:0 32 0] [0] 0 0`, i.e. op time _node_ level
  reason uid type size [MAC header] ------- [src:sport dst:dport ttl
  nexthop] then the transport or routing tail (ns-2 cmu-trace.cc
  CMUTrace::format_mac_common, format_mac, format_ip, format_rtp/format_tcp);
- new (`$ns_ use-newtrace`), tagged: `s -t 10.000000000 -Hs 0 -Hd -2 -Ni 0
  ... -Nl AGT -Nw --- -Ma 0 ... -Is 0.0 -Id 1.0 -It cbr -Il 532 -If 0 -Ii 0
  -Iv 32 -Pn cbr -Pi 0 -Pf 0 -Po 0` (same functions, `newtrace_` branches):
  `-Ii` is the uid, `-Is`/`-Id` are `addr.port`, `-Pi` the CBR seqno,
  `-Ps` the TCP seqno; drops are `d`.

Anything else (`M` movement lines, DSR's `S...` debug lines, energy `N`
lines, blank or truncated lines) is counted in `skipped` and ignored.

The counting rules (ns-2's conventions; see `Connection` for each field):

- A data packet is an agent-level packet of a non-routing type other than
  `ack` (in practice `cbr` and `tcp`); its connection is the IP quadruple
  (src addr, src port, dst addr, dst port). A TCP `ack` belongs to the
  connection of the reversed quadruple.
- The sender's send is `s` at `AGT` on the node that is the IP source; the
  reception is `r` at `AGT` on the node that is the IP destination. ns-2 logs
  `r RTR` when an agent hands a packet to its own routing agent and `f RTR`
  when a node relays (cmu-trace.cc format_mac_common: a RTR send whose IP
  source is not this node is written `f`), so neither is a send.
- A packet is matched from send to reception by ns-2's uid (`ch->uid()`,
  old column 6, new `-Ii`), which DSR and DSDV keep end to end; uniqueness
  is by the transport sequence number (CBR `[seqno]`/`-Pi`, TCP
  `[seqno ackno]`/`-Ps`), since a TCP retransmission is a new packet with a
  new uid (ns-2 allocates one per Packet).
- Routing overhead: `s` and `f` at `RTR` of the routing packet types
  (`AODV`, `DSR`, `message` for DSDV, ...), with their sizes.
- Drops: every `D`/`d` line, by (level, reason) and by packet type.
- MAC: `s` and `r` at `MAC`, and collisions (`D ... MAC COL`); present only
  when the trace was written with `-macTrace ON` (hoplab: the MAC layer).

Payload bytes (for throughput) are the size of the packet as the source's
agent sent it minus the headers its agent counts: ns-2's TCP agent counts
40 bytes of TCP/IP header (tcp.cc `tcpip_base_hdr_size_`) and its UDP
agent none (udp.cc: `size_` is the application's bytes); hoplab's AGT
sizes are IP datagrams (docs/GUIDE.md), 40 for TCP and 28 for UDP/IP.
Which writer made a trace is recognised by the TTL of its agents' sends:
ns-2's agents send with 32 (ip.h `IP_DEF_TTL`), hoplab's with 64; pass
`writer=` to say it.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator, NamedTuple

__all__ = ["Event", "Connection", "Totals", "RoutingCount", "MacCounts", "TraceSummary", "parse_line",
           "iter_events", "summarize", "compare_table", "to_frames", "ROUTING_TYPES", "AGENT_HEADER_BYTES"]

# ns-2 common/packet.h packet_info names of routing agents' packets (DSDV
# sends PT_MESSAGE, "message"); OLSR is UM-OLSR's patch, as hoplab writes it.
ROUTING_TYPES = frozenset({"AODV", "AOMDV", "DSR", "message", "TORA", "IMEP", "OLSR", "DYMO", "MDART"})
# Not data either: link-layer and MAC packets (ARP at the IFQ, control frames).
_NOT_DATA = ROUTING_TYPES | {"ack", "ARP", "RTS", "CTS", "ACK", "MAC", "UNKN"}
# Headers the agent counts in its packet size, per writer (module docstring).
AGENT_HEADER_BYTES = {"ns2": {"tcp": 40}, "hoplab": {"tcp": 40, "cbr": 28}}
# TTL of an agent's send: ns-2 ip.h IP_DEF_TTL; hoplab wire DEFAULT_TTL.
_NS2_AGENT_TTL = 32
_HOPLAB_AGENT_TTL = 64


class Event(NamedTuple):
    """One trace line's fields, the same from either format. `op` is s, r, f
    or D (new format's `d` becomes `D`); fields a line does not have are None
    (`ptype` "MAC" for a new-format control frame, which names no type)."""
    op: str
    time: float
    node: int
    level: str
    reason: str
    uid: int
    ptype: str
    size: int
    src: int | None
    sport: int | None
    dst: int | None
    dport: int | None
    ttl: int | None
    seq: int | None


# --------------------------------------------------------------------------- reading

def _open_text(path: str | os.PathLike[str]) -> io.TextIOBase:
    # gzip by magic bytes, not by name: a renamed .gz still reads.
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="latin-1", newline=None)
    return open(path, encoding="latin-1", newline=None)


def _int(s: str) -> int | None:
    try:
        return int(s)
    except ValueError:
        return None


def _addr_port(s: str) -> tuple[int | None, int | None]:
    # old "18:1" / new "18.1", "-1.255" (ns-2 cmu-trace.cc CMUTrace::format_ip)
    sep = ":" if ":" in s else "."
    a, _, p = s.rpartition(sep)
    return _int(a), _int(p)


def _old_tail_seq(ptype: str, tail: list[str]) -> int | None:
    # cbr "[seqno] fwd opt" (format_rtp), tcp/ack "[seqno ackno] fwd opt"
    # (format_tcp); other types have no transport seqno.
    if not tail or not tail[0].startswith("["):
        return None
    if ptype == "cbr":
        return _int(tail[0][1:-1])
    if ptype in ("tcp", "ack"):
        return _int(tail[0][1:])
    return None


def _parse_old(t: list[str]) -> Event | None:
    """ns-2 cmu-trace.cc CMUTrace::format_mac_common (old branch):
    "%c %.9f _%d_ %3s %4s %d %s %d" then format_mac " [%x %x %x %x] "."""
    if len(t) < 8 or t[2][:1] != "_":
        return None
    node, uid, size = _int(t[2][1:-1]), _int(t[5]), _int(t[7])
    if node is None or uid is None or size is None:
        return None
    ev = [t[0], float(t[1]), node, t[3], t[4], uid, t[6], size, None, None, None, None, None, None]
    # format_ip "------- [src:sport dst:dport ttl nexthop] "; an energy model
    # adds "[energy ...]" before it, so look for the dashes, do not count.
    try:
        i = t.index("-------", 12)
    except ValueError:
        return Event(*ev)
    if len(t) >= i + 5 and ":" in t[i + 1]:  # format_arp has "[REQUEST a/b c/d]"
        ev[8], ev[9] = _addr_port(t[i + 1][1:])
        ev[10], ev[11] = _addr_port(t[i + 2])
        ev[12] = _int(t[i + 3])
        ev[13] = _old_tail_seq(t[6], t[i + 5:])
    return Event(*ev)


def _parse_new(t: list[str]) -> Event | None:
    """ns-2 cmu-trace.cc format_mac_common/format_mac/format_ip (newtrace_):
    every field is a "-tag value" pair after the op; values may start with
    '-' ("-Hd -2", "-Ne -1.000000"), so pairs are taken by position."""
    if len(t) < 3 or t[1] != "-t":
        return None
    d = dict(zip(t[1::2], t[2::2]))
    node = _int(d.get("-Ni", ""))
    if node is None:
        return None
    op = "D" if t[0] == "d" else t[0]
    src = sport = dst = dport = None
    if "-Is" in d:
        src, sport = _addr_port(d["-Is"])
        dst, dport = _addr_port(d.get("-Id", ""))
    # A PT_MAC frame (RTS/CTS/ACK) has no format_ip part: no type, no size.
    ptype = d.get("-It", "MAC")
    pn = d.get("-Pn")
    seq = _int(d.get("-Pi", "")) if pn == "cbr" else _int(d.get("-Ps", "")) if pn == "tcp" else None
    return Event(op, float(d["-t"]), node, d.get("-Nl", ""), d.get("-Nw", ""), _int(d.get("-Ii", "0")) or 0,
                 ptype, _int(d.get("-Il", "0")) or 0, src, sport, dst, dport, _int(d.get("-Iv", "")), seq)


_OPS = frozenset("srfDd")


def parse_line(line: str) -> Event | None:
    """One trace line as an Event, or None for a line that is not a packet
    event (movement, DSR debug, energy, blank, truncated)."""
    t = line.split()
    if not t or t[0] not in _OPS:
        return None
    try:
        return _parse_new(t) if len(t) > 1 and t[1] == "-t" else _parse_old(t)
    except (ValueError, IndexError):
        return None


def iter_events(path: str | os.PathLike[str], skipped: list[int] | None = None) -> Iterator[Event]:
    """Stream a trace's packet events (plain or gzipped, old or new format).
    `skipped`, if given, gets the count of lines that were not events."""
    n_skip = 0
    with _open_text(path) as f:
        for line in f:
            ev = parse_line(line)
            if ev is None:
                n_skip += 1
                continue
            yield ev
    if skipped is not None:
        skipped.append(n_skip)


# --------------------------------------------------------------------------- results

@dataclass
class Connection:
    """One data flow, keyed by IP (src, sport, dst, dport).

    packets_sent: `s AGT` lines at the source, retransmissions included;
    packets_sent_unique: distinct sequence numbers among them (uids where a
    type has no seqno); retransmissions: packets_sent - packets_sent_unique;
    packets_received: distinct sequence numbers `r AGT` at the destination;
    receptions: all those lines (duplicates included);
    delivery_ratio: packets_received / packets_sent_unique;
    bytes_received: the size column of the unique receptions, as printed
    (what the classic awk throughput sums; ns-2's size grows with the
    routing header: DSDV's 532 for a 512-byte CBR packet);
    payload_bytes_received: per unique reception, the size its send had at
    the source's agent minus the agent's headers (module docstring);
    throughput_bps: payload_bytes_received * 8 / (last_recv - first_send);
    delay_*: per unique reception, its time minus the send time of the same
    uid (first reception of each seqno; seconds);
    forwards: `f RTR` lines of this flow's data (hops relayed);
    drops: `D` lines of this flow's data packets;
    acks_sent/acks_received: TCP `ack` at AGT, sent by the destination and
    received by the source."""
    kind: str
    src: int
    sport: int
    dst: int
    dport: int
    packets_sent: int = 0
    packets_sent_unique: int = 0
    retransmissions: int = 0
    packets_received: int = 0
    receptions: int = 0
    delivery_ratio: float = math.nan
    bytes_received: int = 0
    payload_bytes_received: int = 0
    first_send: float = math.nan
    last_send: float = math.nan
    first_recv: float = math.nan
    last_recv: float = math.nan
    throughput_bps: float = math.nan
    delay_mean: float = math.nan
    delay_median: float = math.nan
    forwards: int = 0
    drops: int = 0
    acks_sent: int = 0
    acks_received: int = 0

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.src, self.sport, self.dst, self.dport)

    @property
    def throughput_kbps(self) -> float:
        return self.throughput_bps / 1000.0

    @property
    def name(self) -> str:
        return f"{self.kind} {self.src}:{self.sport}->{self.dst}:{self.dport}"


@dataclass
class Totals:
    """Over all connections: sums, the ratio of the sums, and the mean delay
    over every unique reception (not the mean of the flows' means)."""
    connections: int = 0
    packets_sent: int = 0
    packets_sent_unique: int = 0
    packets_received: int = 0
    delivery_ratio: float = math.nan
    delay_mean: float = math.nan
    delay_median: float = math.nan
    bytes_received: int = 0
    payload_bytes_received: int = 0
    data_forwards: int = 0
    routing_sent: int = 0
    routing_forwarded: int = 0
    routing_bytes: int = 0
    drops: int = 0
    # routing packets (sent + forwarded) per data packet received
    normalized_routing_load: float = math.nan


@dataclass
class RoutingCount:
    """`s RTR` (originated) and `f RTR` (relayed) lines of one routing type."""
    sent: int = 0
    forwarded: int = 0
    bytes_sent: int = 0
    bytes_forwarded: int = 0


@dataclass
class MacCounts:
    """MAC-level lines; all zero (present False) for a trace without them.
    frames_sent counts `s MAC` by the type column (RTS, CTS, ACK, the data
    packet's type; "MAC" for the new format's control frames, which print no
    type, nor a size: bytes_sent counts them 0 there); collisions are
    `D MAC COL`, retry_drops `D MAC RET`."""
    present: bool = False
    frames_sent: int = 0
    bytes_sent: int = 0
    frames_received: int = 0
    collisions: int = 0
    retry_drops: int = 0
    sent_by_type: dict[str, int] = field(default_factory=dict)


@dataclass
class TraceSummary:
    path: str
    format: str  # "old", "new", "mixed" or "empty"
    writer: str  # "ns2" or "hoplab": whose size conventions were applied
    events: int
    skipped: int
    first_time: float
    last_time: float
    connections: list[Connection]
    totals: Totals
    routing: dict[str, RoutingCount]
    drops: dict[tuple[str, str], int]
    drops_by_type: dict[str, int]
    drops_detail: dict[tuple[str, str, str], int]
    mac: MacCounts

    def connection(self, src: int, dst: int, kind: str | None = None) -> Connection:
        """The one connection from src to dst (of that kind); KeyError if none
        or several."""
        hits = [c for c in self.connections if c.src == src and c.dst == dst and kind in (None, c.kind)]
        if len(hits) != 1:
            raise KeyError(f"{len(hits)} connections {kind or ''} {src}->{dst}")
        return hits[0]

    def to_frames(self) -> dict[str, Any]:
        return to_frames(self)


# --------------------------------------------------------------------------- counting

class _Flow:
    """A connection's running state: what a streaming pass must remember."""
    __slots__ = ("conn", "sent_seqs", "send_of_uid", "first_send_of_seq", "recv_seqs", "recv_sizes", "delays")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.sent_seqs: set[int] = set()
        self.send_of_uid: dict[int, tuple[float, int]] = {}
        self.first_send_of_seq: dict[int, tuple[float, int]] = {}
        self.recv_seqs: set[int] = set()
        # per unique reception, the size its agent sent (payload base)
        self.recv_sizes: list[int] = []
        self.delays: list[float] = []


class _Counter:
    def __init__(self) -> None:
        self.flows: dict[tuple, _Flow] = {}
        self.routing: dict[str, RoutingCount] = {}
        self.drops: dict[tuple[str, str], int] = {}
        self.drops_by_type: dict[str, int] = {}
        self.drops_detail: dict[tuple[str, str, str], int] = {}
        self.mac = MacCounts()
        self.data_forwards = 0
        self.agent_ttls: dict[int, int] = {}
        self.formats: set[str] = set()  # "old", "new"
        self.events = 0
        self.first_time = math.nan
        # the last line's time, text or float: converted once at the end
        self.last_time_text: str | float = math.nan

    def flow(self, key: tuple, kind: str) -> _Flow:
        f = self.flows.get(key)
        if f is None:
            f = self.flows[key] = _Flow(Connection(kind, *key))
        return f

    def quick(self, op: str, level: str, ptype: str, size: int, time: str, fmt: str) -> None:
        """A line that needs no more than its op, level, type and size."""
        self.formats.add(fmt)
        self.events += 1
        if self.events == 1:
            self.first_time = float(time)
        self.last_time_text = time
        if level == "RTR":
            if op in ("s", "f") and ptype in ROUTING_TYPES:
                self.route(op, ptype, size)
        elif level == "MAC":
            self.mac_count(op, ptype, size)

    def add(self, ev: Event) -> None:
        self.events += 1
        if self.events == 1:
            self.first_time = ev.time
        self.last_time_text = ev.time
        if ev.op == "D":
            self.drop(ev)
        elif ev.level == "AGT":
            self.agent(ev)
        elif ev.level == "RTR":
            self.router(ev)
        elif ev.level == "MAC":
            self.mac_line(ev)

    def agent(self, ev: Event) -> None:
        if ev.src is None:
            return
        if ev.ptype == "ack":
            # a TCP sink's ACK travels dst -> src of its connection
            f = self.flow((ev.dst, ev.dport, ev.src, ev.sport), "tcp")
            if ev.op == "s" and ev.node == ev.src:
                f.conn.acks_sent += 1
            elif ev.op == "r" and ev.node == ev.dst:
                f.conn.acks_received += 1
            return
        if ev.ptype in _NOT_DATA:
            return
        f = self.flow((ev.src, ev.sport, ev.dst, ev.dport), ev.ptype)
        if ev.op == "s" and ev.node == ev.src:
            self.agent_ttls[ev.ttl] = self.agent_ttls.get(ev.ttl, 0) + 1
            _on_send(f, ev)
        elif ev.op == "r" and ev.node == ev.dst:
            _on_recv(f, ev)

    def router(self, ev: Event) -> None:
        if ev.op not in ("s", "f"):
            return
        if ev.ptype in ROUTING_TYPES:
            self.route(ev.op, ev.ptype, ev.size)
        elif ev.op == "f" and ev.ptype not in _NOT_DATA and ev.src is not None:
            self.data_forwards += 1
            f = self.flows.get((ev.src, ev.sport, ev.dst, ev.dport))
            if f is not None:
                f.conn.forwards += 1

    def route(self, op: str, ptype: str, size: int) -> None:
        rc = self.routing.get(ptype)
        if rc is None:
            rc = self.routing[ptype] = RoutingCount()
        if op == "s":
            rc.sent += 1
            rc.bytes_sent += size
        else:
            rc.forwarded += 1
            rc.bytes_forwarded += size

    def mac_line(self, ev: Event) -> None:
        self.mac_count(ev.op, ev.ptype, ev.size)

    def mac_count(self, op: str, ptype: str, size: int) -> None:
        m = self.mac
        m.present = True
        if op == "s":
            m.frames_sent += 1
            m.bytes_sent += size
            m.sent_by_type[ptype] = m.sent_by_type.get(ptype, 0) + 1
        elif op == "r":
            m.frames_received += 1

    def drop(self, ev: Event) -> None:
        k = (ev.level, ev.reason)
        self.drops[k] = self.drops.get(k, 0) + 1
        self.drops_by_type[ev.ptype] = self.drops_by_type.get(ev.ptype, 0) + 1
        kd = (ev.level, ev.reason, ev.ptype)
        self.drops_detail[kd] = self.drops_detail.get(kd, 0) + 1
        if ev.level == "MAC":
            self.mac.present = True
            self.mac.collisions += ev.reason == "COL"
            self.mac.retry_drops += ev.reason == "RET"
        if ev.src is not None and ev.ptype not in _NOT_DATA:
            f = self.flows.get((ev.src, ev.sport, ev.dst, ev.dport))
            if f is not None:
                f.conn.drops += 1


def _seq_of(ev: Event) -> int:
    # Types without a transport seqno are told apart by uid.
    return ev.seq if ev.seq is not None else ev.uid


def _on_send(f: _Flow, ev: Event) -> None:
    c, seq = f.conn, _seq_of(ev)
    c.packets_sent += 1
    if seq in f.sent_seqs:
        c.retransmissions += 1
    else:
        f.sent_seqs.add(seq)
        f.first_send_of_seq[seq] = (ev.time, ev.size)
    f.send_of_uid[ev.uid] = (ev.time, ev.size)
    if c.packets_sent == 1:
        c.first_send = ev.time
    c.last_send = ev.time


def _on_recv(f: _Flow, ev: Event) -> None:
    c, seq = f.conn, _seq_of(ev)
    c.receptions += 1
    if seq in f.recv_seqs:
        return
    f.recv_seqs.add(seq)
    c.packets_received += 1
    c.bytes_received += ev.size
    # The send of this very transmission (uid); failing that (a filtered
    # trace, a writer that renumbers), the first send of the seqno.
    sent = f.send_of_uid.get(ev.uid) or f.first_send_of_seq.get(seq)
    f.delays.append(ev.time - sent[0] if sent else math.nan)
    # The header comes off at the end, once the writer is known; an unseen
    # send falls back to the received size.
    f.recv_sizes.append(sent[1] if sent else ev.size)
    if c.packets_received == 1:
        c.first_recv = ev.time
    c.last_recv = ev.time


# --------------------------------------------------------------------------- summary

def summarize(path: str | os.PathLike[str], writer: str | None = None) -> TraceSummary:
    """Read a trace (plain or .gz, old or new format) in one pass and count.
    `writer` ("ns2" or "hoplab") picks the header sizes subtracted for
    payload bytes; None recognises it by the agents' TTL."""
    if writer not in (None, "ns2", "hoplab"):
        raise ValueError(f"writer must be 'ns2', 'hoplab' or None, not {writer!r}")
    cnt = _Counter()
    n_skip = 0
    with _open_text(path) as fh:
        for line in fh:
            if not _count_line(cnt, line.split()):
                n_skip += 1
    writer = writer or _guess_writer(cnt.agent_ttls)
    return _finish(str(path), cnt, writer, n_skip)


def _quick(t: list[str]) -> tuple[str, str, str, str, str] | None:
    """(op, level, type, size, time) read by position, without building an
    Event: most lines of a full trace (MAC frames, RTR receptions) need no
    more, and this keeps a 400,000-line trace near a second. None when the
    line is not in either format's fixed layout."""
    if len(t) > 1 and t[1] == "-t":
        # new: op -t T -Hs n -Hd h -Ni n -Nx x -Ny y -Nz z -Ne e -Nl L -Nw W
        # -Ma .. -Md .. -Ms .. -Mt .. [-Is .. -Id .. -It type -Il size ...]
        if len(t) < 21 or t[17] != "-Nl":
            return None
        has_ip = len(t) > 36 and t[33] == "-It"
        op = "D" if t[0] == "d" else t[0]
        return op, t[18], t[34] if has_ip else "MAC", t[36] if has_ip else "0", t[2]
    if len(t) < 8 or t[2][:1] != "_":
        return None
    return t[0], t[3], t[6], t[7], t[1]


def _count_line(cnt: _Counter, t: list[str]) -> bool:
    """Count one line's tokens; False when the line is not a packet event."""
    if not t or t[0] not in _OPS:
        return False
    q = _quick(t)
    if q is not None:
        op, level, ptype, size, time = q
        full = op == "D" or level == "AGT" or (level == "RTR" and op == "f" and ptype not in _NOT_DATA)
        if not full:
            try:
                cnt.quick(op, level, ptype, int(size), time, "new" if t[1] == "-t" else "old")
            except ValueError:
                return False
            return True
    try:
        ev = _parse_new(t) if t[1] == "-t" else _parse_old(t)
    except (ValueError, IndexError):
        return False
    if ev is None:
        return False
    cnt.formats.add("new" if t[1] == "-t" else "old")
    cnt.add(ev)
    return True


def _guess_writer(ttls: dict[int, int]) -> str:
    # ns-2's agents send with IP_DEF_TTL 32, hoplab's with 64; the majority
    # decides (a hand-set ttl_ on one ns-2 agent does not flip it).
    hop = ttls.get(_HOPLAB_AGENT_TTL, 0)
    return "hoplab" if hop > ttls.get(_NS2_AGENT_TTL, 0) else "ns2"


def _finish(path: str, cnt: _Counter, writer: str, skipped: int) -> TraceSummary:
    headers = AGENT_HEADER_BYTES[writer]
    conns = []
    all_delays: list[float] = []
    for key in sorted(cnt.flows, key=lambda k: tuple(-10**9 if x is None else x for x in k)):
        f = cnt.flows[key]
        _finish_flow(f, headers.get(f.conn.kind, 0))
        all_delays.extend(d for d in f.delays if not math.isnan(d))
        conns.append(f.conn)
    fmt = {0: "empty", 1: next(iter(cnt.formats), "empty"), 2: "mixed"}[len(cnt.formats)]
    totals = _totals(conns, cnt, all_delays)
    last = float(cnt.last_time_text)
    return TraceSummary(path, fmt, writer, cnt.events, skipped, cnt.first_time, last, conns, totals,
                        dict(sorted(cnt.routing.items())), dict(sorted(cnt.drops.items())),
                        dict(sorted(cnt.drops_by_type.items())), dict(sorted(cnt.drops_detail.items())), cnt.mac)


def _finish_flow(f: _Flow, header: int) -> None:
    c = f.conn
    # Never below zero: ns-2's 40-byte TCP SYN (seqno 0) carries no payload.
    payload = sum(max(size - header, 0) for size in f.recv_sizes)
    c.payload_bytes_received = payload
    c.packets_sent_unique = len(f.sent_seqs)
    if c.packets_sent_unique:
        c.delivery_ratio = c.packets_received / c.packets_sent_unique
    span = c.last_recv - c.first_send
    if c.packets_received and span > 0:
        c.throughput_bps = payload * 8 / span
    delays = [d for d in f.delays if not math.isnan(d)]
    if delays:
        c.delay_mean = math.fsum(delays) / len(delays)
        c.delay_median = statistics.median(delays)


def _totals(conns: list[Connection], cnt: _Counter, delays: list[float]) -> Totals:
    t = Totals(connections=len(conns))
    for c in conns:
        t.packets_sent += c.packets_sent
        t.packets_sent_unique += c.packets_sent_unique
        t.packets_received += c.packets_received
        t.bytes_received += c.bytes_received
        t.payload_bytes_received += c.payload_bytes_received
    if t.packets_sent_unique:
        t.delivery_ratio = t.packets_received / t.packets_sent_unique
    if delays:
        t.delay_mean = math.fsum(delays) / len(delays)
        t.delay_median = statistics.median(delays)
    t.data_forwards = cnt.data_forwards
    t.routing_sent = sum(r.sent for r in cnt.routing.values())
    t.routing_forwarded = sum(r.forwarded for r in cnt.routing.values())
    t.routing_bytes = sum(r.bytes_sent + r.bytes_forwarded for r in cnt.routing.values())
    t.drops = sum(cnt.drops.values())
    if t.packets_received:
        t.normalized_routing_load = (t.routing_sent + t.routing_forwarded) / t.packets_received
    return t


# --------------------------------------------------------------------------- comparing

_TOTAL_METRICS = ("packets_sent", "packets_sent_unique", "packets_received", "delivery_ratio", "delay_mean",
                  "delay_median", "payload_bytes_received", "data_forwards", "routing_sent", "routing_forwarded",
                  "routing_bytes", "drops", "normalized_routing_load")
_CONN_METRICS = ("packets_sent", "packets_sent_unique", "retransmissions", "packets_received", "delivery_ratio",
                 "payload_bytes_received", "throughput_kbps", "delay_mean", "delay_median", "forwards", "drops")


def _ratio(a: Any, b: Any) -> float | None:
    if a is None or b is None or not a or (isinstance(a, float) and math.isnan(a)):
        return None
    return b / a


def _pairs(a: TraceSummary, b: TraceSummary) -> list[tuple[str, Connection | None, Connection | None]]:
    # Two simulators number ports differently (ns-2: the agent's port on its
    # node, hoplab: the flow's index), so connections pair by (kind, src,
    # dst) when that is unambiguous on both sides, else by the full key.
    def by_ends(s: TraceSummary) -> dict[tuple, list[Connection]]:
        d: dict[tuple, list[Connection]] = {}
        for c in s.connections:
            d.setdefault((c.kind, c.src, c.dst), []).append(c)
        return d

    ea, eb = by_ends(a), by_ends(b)
    out = []
    for ends in sorted(set(ea) | set(eb), key=lambda e: (e[1], e[2], e[0])):
        la, lb = ea.get(ends, []), eb.get(ends, [])
        if len(la) <= 1 and len(lb) <= 1:
            ca, cb = (la or [None])[0], (lb or [None])[0]
            out.append((f"{ends[0]} {ends[1]}->{ends[2]}", ca, cb))
            continue
        ka, kb = {c.key: c for c in la}, {c.key: c for c in lb}
        for k in sorted(set(ka) | set(kb)):
            out.append((f"{ends[0]} {k[0]}:{k[1]}->{k[2]}:{k[3]}", ka.get(k), kb.get(k)))
    return out


def compare_table(a: TraceSummary, b: TraceSummary, labels: tuple[str, str] = ("a", "b")) -> list[tuple]:
    """Rows (metric, value in a, value in b, b / a) for the totals and each
    connection; the first row is the header (`"metric", labels[0],
    labels[1], "labels[1]/labels[0]"`). A connection missing on one side has
    None there; the ratio is None where a is 0, NaN or missing."""
    rows: list[tuple] = [("metric", labels[0], labels[1], f"{labels[1]}/{labels[0]}")]
    for m in _TOTAL_METRICS:
        va, vb = getattr(a.totals, m), getattr(b.totals, m)
        rows.append((f"total {m}", va, vb, _ratio(va, vb)))
    for name, ca, cb in _pairs(a, b):
        for m in _CONN_METRICS:
            va = getattr(ca, m) if ca else None
            vb = getattr(cb, m) if cb else None
            rows.append((f"{name} {m}", va, vb, _ratio(va, vb)))
    return rows


def to_frames(s: TraceSummary) -> dict[str, Any]:
    """pandas DataFrames: `connections` (a row per connection), `totals` (one
    row), `drops` (level, reason, type, count), `routing` (a row per routing
    packet type). ImportError when pandas is not installed."""
    import pandas as pd

    conns = pd.DataFrame([{**asdict(c), "throughput_kbps": c.throughput_kbps} for c in s.connections],
                         columns=[*Connection.__dataclass_fields__, "throughput_kbps"])
    totals = pd.DataFrame([asdict(s.totals)])
    drops = pd.DataFrame([(lv, rs, ty, n) for (lv, rs, ty), n in s.drops_detail.items()],
                         columns=["level", "reason", "type", "count"])
    routing = pd.DataFrame([{"type": k, **asdict(v)} for k, v in s.routing.items()],
                           columns=["type", *RoutingCount.__dataclass_fields__])
    return {"connections": conns, "totals": totals, "drops": drops, "routing": routing}

