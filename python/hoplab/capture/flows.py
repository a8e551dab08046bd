"""TCP connections from decoded segments: each direction's byte ranges,
retransmissions, ACKs and RTT samples, as tcptrace (rexmit.c) keeps them.

Per direction (A sends data to B): every segment's bytes are recorded with
the time they were last sent; a segment whose bytes overlap bytes sent
before is a retransmission (tcptrace `rexmit`). Each ACK from B marks the
segments it covers acknowledged; an ACK for exactly the end of a segment
sent once gives one RTT sample, unless a segment before it was sent later
(tcptrace `ack_in`: Karn's rule, RFC 6298 §3, and no sample for a segment
that waited behind a retransmitted one). The data in flight is sampled at
each ACK that acknowledges new data: the bytes sent and neither
acknowledged nor selectively acknowledged (SACK, RFC 2018) when the ACK
arrived, what the congestion window let out (RFC 6675's "pipe" before any
loss is marked).

A multihop 802.11 capture holds one copy of a packet per hop, and MAC
retries of each. The view of a direction A->B is A's own, as a capture on A
would see it: its data frames transmitted by A (802.11 TA = A's MAC) and
B's frames received by A (RA = A's MAC); A's MAC is the transmitter of the
first frame carrying an IP packet from A (in a capture made at a relay:
the nearest upstream hop). A frame that repeats the sequence number of the
previous frame from the same transmitter is dropped: a MAC retransmission
(Retry bit set; IEEE 802.11-2012 §9.3.2.10 duplicate detection), or the same
frame recorded a second time (a pcapng file with one interface per node
holds each frame as sent and as received). A transmitter numbers each new
frame one more, modulo 4096 (§8.2.4.4.2), so a new frame never repeats the
last number.

What a capture of frames on the air cannot show: segments that the
sender's TCP sent but its MAC never put on the air (dropped from the
interface queue, or after the RTS retry limit): such a segment's later
resend is the first copy on the air, so it is not counted as a
retransmission. A capture made on a Linux host sees them (tcpdump taps the
packets the IP layer hands to the driver).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from .decode import Segment

__all__ = ["Direction", "Connection", "connections"]

SYN, FIN, RST, ACK, ECE, CWR = 0x02, 0x01, 0x04, 0x10, 0x40, 0x80
_MOD = 1 << 32


def _unwrap(seq: int, base: int, near: int) -> int:
    """`seq` relative to `base`, as the 64-bit offset nearest `near` (sequence
    numbers wrap at 2^32, RFC 9293 §3.4)."""
    rel = (seq - base) % _MOD
    k = (near - rel + _MOD // 2) // _MOD
    return rel + k * _MOD


@dataclass
class Direction:
    """One direction of a connection: what its sender sent and the ACKs it got."""

    src: str
    sport: int
    dst: str
    dport: int
    base: int | None = None  # ISN (SYN seen) or first sequence number, seq offset 0
    syn: bool = False
    first_ns: int | None = None
    last_ns: int | None = None
    packets: int = 0
    data_packets: int = 0
    data_bytes: int = 0
    retransmissions: int = 0  # data packets that resent bytes (tcptrace "rexmt data pkts")
    unique_bytes: int = 0  # bytes sent at least once, SYN/FIN excluded
    max_payload: int = 0
    snd_max: int = 0  # highest data byte offset sent + 1
    fin_at: int | None = None  # offset of the FIN
    cwr: int = 0  # segments with CWR set (RFC 3168 §6.1.2: a window reduction)
    # Segments not yet acknowledged: [first, last, time_ns, retrans], by first.
    segs: list[list[int]] = field(default_factory=list)
    acked_upto: int = 0  # every byte offset below is acknowledged
    head_ns: int = -1  # newest transmission among the acknowledged bytes
    max_ack: int = 0  # highest cumulative ACK (offset) received
    receiver_ack: int = 0  # highest cumulative ACK (offset) the receiver was seen to send
    acks: int = 0
    sacked: list[list[int]] = field(default_factory=list)  # SACKed ranges [first, end) above the ACK, merged
    # Per ACK that acknowledged new data: (time_ns, in flight before it (bytes), rtt ns or -1, acked upto).
    ack_log: list[tuple[int, int, int, int]] = field(default_factory=list)
    rtt_ns: list[int] = field(default_factory=list)  # samples of data segments
    rtt_synfin_ns: list[int] = field(default_factory=list)  # of the SYN and FIN (tcptrace counts them too)
    # Starts (offset) of first transmissions of data segments, for "received" counts.
    firsts: list[int] = field(default_factory=list)
    completed_ns: int | None = None  # when the last data byte (and the FIN) was acknowledged

    # ------------------------------------------------------------- sending
    def send(self, s: Segment) -> None:
        t = s.time_ns
        self.first_ns = t if self.first_ns is None else self.first_ns
        self.last_ns = t
        self.packets += 1
        if s.flags & SYN:
            self.base, self.syn = s.seq, True
        if self.base is None:
            self.base = s.seq - 1  # no SYN seen: the first byte seen is offset 1, as after a SYN
        start = _unwrap(s.seq, self.base, self.snd_max)
        if s.flags & CWR:
            self.cwr += 1
        length = s.payload + (1 if s.flags & SYN else 0) + (1 if s.flags & FIN else 0)
        if length == 0:
            return
        if s.flags & SYN:
            start = 0
        rexlen = self._add(start, start + length - 1, t)
        data_start = start + (1 if s.flags & SYN else 0)
        if s.payload:
            self.data_packets += 1
            self.data_bytes += s.payload
            self.max_payload = max(self.max_payload, s.payload)
            if rexlen:
                self.retransmissions += 1
            else:
                self.firsts.append(data_start)
            self.snd_max = max(self.snd_max, data_start + s.payload)
        # Unique bytes: what was not sent before, SYN and FIN not counted (tcptrace trace.c).
        new = length - rexlen - (1 if s.flags & SYN else 0) - (1 if s.flags & FIN else 0)
        self.unique_bytes += max(0, new)
        if s.flags & FIN:
            self.fin_at = data_start + s.payload

    def _add(self, first: int, last: int, t: int) -> int:
        """Record bytes [first, last] sent at `t`; the count of them sent before (tcptrace addseg)."""
        rexlen = 0
        if first < self.acked_upto:  # resends acknowledged bytes
            n = min(last, self.acked_upto - 1) - first + 1
            rexlen += n
            self.head_ns = t  # tcptrace rtt_retrans: the segment's time is the resend's
            first += n
            if first > last:
                return rexlen
        segs = self.segs
        if not segs or first > segs[-1][1]:
            segs.append([first, last, t, 0])
            return rexlen
        # Rare: overlaps or fills a gap; walk the list (tcptrace addseg).
        i = 0
        while i < len(segs) and first <= last:
            a, b = segs[i][0], segs[i][1]
            if first > b:
                i += 1
                continue
            if first < a:
                end = min(last, a - 1)
                segs.insert(i, [first, end, t, 0])
                i += 1
                first = end + 1
                continue
            # Starts within segment i: a retransmission of its bytes.
            segs[i][3] += 1
            segs[i][2] = t
            n = min(last, b) - first + 1
            rexlen += n
            first += n
            i += 1
        if first <= last:
            segs.append([first, last, t, 0])
        return rexlen

    # ------------------------------------------------------------- ACKs
    def ack(self, s: Segment) -> None:
        """An ACK from the receiver (s.ack acknowledges this direction's bytes)."""
        if self.base is None or not s.flags & ACK:
            return
        a = _unwrap(s.ack, self.base, self.max_ack)
        if a > self.snd_max + 2 or a < 0:  # acknowledges bytes never seen sent (SYN and FIN count 1 each)
            return
        self.acks += 1
        if a <= self.acked_upto:
            return
        t = s.time_ns
        una = max(self.max_ack, 1 if self.syn else 0)
        in_flight = max(0, self.snd_max - una - sum(min(e, self.snd_max) - max(f, una)
                                                    for f, e in self.sacked if e > una and f < self.snd_max))
        last_xmit = self.head_ns
        sample = -1
        segs = self.segs
        k = 0
        while k < len(segs) and segs[k][0] < a:
            first, last, sent, retrans = segs[k]
            last_xmit = max(last_xmit, sent)
            if a == last + 1 and last_xmit <= sent and retrans == 0:
                if (self.syn and first == 0) or first == self.fin_at:  # a SYN or a bare FIN
                    self.rtt_synfin_ns.append(t - sent)
                else:
                    sample = t - sent
            self.head_ns = max(self.head_ns, sent)
            self.acked_upto = max(self.acked_upto, last + 1)
            k += 1
        del segs[:k]
        self.acked_upto = max(self.acked_upto, a)
        self.max_ack = max(self.max_ack, a)
        if sample >= 0:
            self.rtt_ns.append(sample)
        if self.snd_max > 0 or sample >= 0:
            self.ack_log.append((t, in_flight, sample, a))
        if self.fin_at is not None and a >= self.fin_at + 1 and self.completed_ns is None:
            self.completed_ns = t

    def note_sack(self, s: Segment) -> None:
        """Merge the SACK blocks of an ACK (after its cumulative ACK is taken)."""
        if self.base is None:
            return
        for left, right in s.sack:
            f = _unwrap(left, self.base, self.max_ack)
            e = f + (right - left) % _MOD
            if e <= self.max_ack or e - f > 1 << 30:
                continue
            self.sacked.append([max(f, self.max_ack), e])
        self.sacked.sort()
        merged: list[list[int]] = []
        for f, e in self.sacked:
            if e <= self.max_ack:
                continue
            if merged and f <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([max(f, self.max_ack), e])
        self.sacked = merged

    def acked_by_receiver(self, s: Segment) -> None:
        """A segment as the receiver sent it: its ACK says what the receiver
        had in order then (802.11: before the ACK crossed the hops back)."""
        if self.base is not None and s.flags & ACK:
            a = _unwrap(s.ack, self.base, self.receiver_ack)
            if 0 <= a <= self.snd_max + 2:
                self.receiver_ack = max(self.receiver_ack, a)

    # ----------------------------------------------------------- results
    @property
    def acked(self) -> int:
        """The highest cumulative ACK seen, at the sender or as the receiver sent it."""
        return max(self.max_ack, self.receiver_ack)

    @property
    def delivered(self) -> int:
        """Data bytes the receiver acknowledged (in order, cumulatively)."""
        return max(0, min(self.acked, self.snd_max) - 1)

    @property
    def received_segments(self) -> int:
        """Distinct data segments the receiver acknowledged."""
        import bisect

        ordered = sorted(self.firsts)
        return bisect.bisect_left(ordered, self.acked)


@dataclass
class Connection:
    a: Direction  # the side that sent the first packet seen (the SYN's sender, usually)
    b: Direction
    first_ns: int
    last_ns: int
    closed: bool = False  # a FIN or RST was seen; a later SYN starts a new connection

    def directions(self) -> Iterator[Direction]:
        yield self.a
        yield self.b


class _Views:
    """Which 802.11 frames belong to whose view (the module docstring)."""

    def __init__(self) -> None:
        self.mac_of: dict[str, str] = {}
        self.last_seq: dict[str, int] = {}

    def duplicate(self, s: Segment) -> bool:
        if not s.ta:
            return False
        dup = self.last_seq.get(s.ta) == s.mac_seq
        self.last_seq[s.ta] = s.mac_seq
        return dup

    def learn(self, s: Segment) -> None:
        if s.ta and s.src not in self.mac_of:
            self.mac_of[s.src] = s.ta


def connections(segments: Iterable[Segment]) -> list[Connection]:
    """The TCP connections in `segments` (time order), each direction analysed."""
    conns: list[Connection] = []
    current: dict[tuple[tuple[str, int], tuple[str, int]], Connection] = {}
    views = _Views()
    for s in segments:
        if views.duplicate(s):
            continue
        views.learn(s)
        ends = ((s.src, s.sport), (s.dst, s.dport))
        key = (min(ends), max(ends))
        c = current.get(key)
        if c is None or (c.closed and s.flags & SYN and not s.flags & ACK):
            fwd = Direction(s.src, s.sport, s.dst, s.dport)
            rev = Direction(s.dst, s.dport, s.src, s.sport)
            c = Connection(fwd, rev, s.time_ns, s.time_ns)
            current[key] = c
            conns.append(c)
        sender = c.a if (s.src, s.sport) == (c.a.src, c.a.sport) else c.b
        receiver = c.b if sender is c.a else c.a
        if s.ta:
            # Off the sender's own transmissions (TA) its data is not in its view;
            # the receiver's segments count as they reach the receiver's peer (RA).
            own = views.mac_of.get(s.src)
            peer = views.mac_of.get(s.dst)
            as_sent = s.ta == own
            as_received = peer is None or s.ra == peer
        else:
            as_sent = as_received = True
        c.last_ns = s.time_ns
        if s.flags & (FIN | RST):
            c.closed = True
        if as_sent:
            sender.send(s)
            receiver.acked_by_receiver(s)
        if as_received:
            receiver.ack(s)
            if s.sack or receiver.sacked:
                receiver.note_sack(s)
    return conns
