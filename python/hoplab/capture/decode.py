"""One capture record -> the TCP segment it carries, or why it carries none
(a key of `SKIPPED`: not TCP over IP, an 802.11 control/management frame, a
routing message, cut short by the snap length, ...); `DamagedRecord` for a
record whose lengths contradict each other.

Link layers: Ethernet (LINKTYPE 1, VLAN tags too), raw IP (101, and 12/14 as
some systems write it; 228/229), Linux cooked v1 (113) and v2 (276), 802.11
(105) and 802.11 with radiotap (127); for 802.11 the frame's transmitter and
receiver addresses, Retry bit and sequence number are kept (a multihop
capture needs them, see flows.py). dpkt decodes IPv4/IPv6/TCP (the link
headers are a few fixed fields, read here); lengths come from the IP header,
not from the captured bytes, so captures cut to a snap length (tcpdump -s
96) keep their payload sizes. The IP header's length is bounded by the
record's original length, so a damaged header cannot inflate a flow: an IPv4
Total Length counts the header and data (RFC 791 §3.1), so it is at least
the header and at most the bytes the packet had on the link; the same for
IPv6's 40-byte header plus Payload Length (RFC 8200 §3).
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

import dpkt

__all__ = ["DamagedRecord", "Segment", "SKIPPED", "decode", "LINKTYPES"]

#: The link types read, by LINKTYPE_ value (tcpdump.org/linktypes.html).
LINKTYPES = {1: "Ethernet", 101: "raw IP", 12: "raw IP", 14: "raw IP", 228: "raw IPv4", 229: "raw IPv6",
             113: "Linux cooked (SLL)", 276: "Linux cooked v2 (SLL2)", 105: "802.11",
             127: "802.11 with radiotap"}


#: Why a record holds no TCP segment: decode's answer -> its words (diagnose.py).
SKIPPED = {
    "linktype": "of a link type hoplab does not read",
    "short": "cut short before the end of their TCP header (the snap length)",
    "not-ip": "not IPv4 or IPv6",
    "not-tcp": "IP packets of another protocol (UDP, ICMP, routing)",
    "not-data": "802.11 frames without an IP packet (control, management, null data)",
    "protected": "protected (encrypted) 802.11 frames",
    "fragment": "later fragments of IP packets",
    "malformed": "TCP headers that cannot be read",
}


class DamagedRecord(Exception):
    """A record whose lengths contradict each other; `problem` says how (the
    caller adds the file and the record's byte offset)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class Segment(NamedTuple):
    time_ns: int
    src: str  # IP addresses as text
    dst: str
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int  # TCP flags byte (dpkt.tcp.TH_*)
    win: int
    payload: int  # TCP payload bytes, from the IP lengths
    ip_id: int  # IPv4 identification (0 for IPv6)
    ta: str  # 802.11 transmitter address (addr2), "" off 802.11
    ra: str  # 802.11 receiver address (addr1)
    retry: bool  # 802.11 Retry bit
    mac_seq: int  # 802.11 sequence number, -1 off 802.11
    sack: tuple[tuple[int, int], ...] = ()  # SACK blocks (left, right edge), RFC 2018 §3


_SNAP = b"\xaa\xaa\x03\x00\x00\x00"  # LLC/SNAP, RFC 1042 encapsulation (IEEE 802.11-2012 §8.3.2.1 body)


def _mac(b: bytes) -> str:
    return b.hex(":")


def _ip(buf: bytes, orig_extra: int) -> tuple[dpkt.Packet, int] | str:
    """The IP packet at the start of `buf` and its length (bytes) as sent, or
    why there is none. `orig_extra`: the bytes of the original packet that
    were not captured (the snap length cut them)."""
    if not buf:
        return "short" if orig_extra > 0 else "not-ip"
    v = buf[0] >> 4
    if v not in (4, 6):
        return "not-ip"
    if v == 4 and len(buf) < 20 or v == 6 and len(buf) < 40:
        return "short"
    # Only TCP (6), TCP inside DSR's header (48) or inside a second IP header (4, RFC 2003: ns-2's
    # DSDV charges one) is read: skip the rest unparsed.
    if v == 4 and buf[9] not in (6, 48, 4) or v == 6 and buf[6] != 6:
        return "not-tcp"
    on_link = len(buf) + orig_extra  # the IP packet's bytes as the link carried it
    try:
        if v == 4:
            ip = dpkt.ip.IP(buf)
            if ip.len == 0:
                return ip, on_link  # a TSO super-packet, as captured
            if ip.len < ip.hl * 4:
                raise DamagedRecord(f"IPv4 total length {ip.len} bytes is less than its {ip.hl * 4}-byte header "
                                    "(a damaged record)")
            if ip.len > on_link:
                raise DamagedRecord(f"IPv4 total length {ip.len} bytes is more than the {on_link} bytes the packet "
                                    "had on the link (a damaged record)")
            return ip, ip.len
        ip6 = dpkt.ip6.IP6(buf)
        if 40 + ip6.plen > on_link:
            raise DamagedRecord(f"IPv6 payload length {ip6.plen} bytes is more than the {on_link - 40} bytes the "
                                "packet had on the link (a damaged record)")
        return ip6, 40 + ip6.plen
    except (dpkt.UnpackError, struct.error, ValueError, IndexError):
        return "malformed"


def _sack(opts: bytes) -> tuple[tuple[int, int], ...]:
    """The SACK blocks among TCP options (RFC 2018 §3: kind 5, pairs of 32-bit edges)."""
    i, out = 0, ()
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        n = opts[i + 1]
        if kind == 5:
            body = opts[i + 2:i + n]
            out += tuple(struct.unpack_from(">II", body, k) for k in range(0, len(body) - 7, 8))
        i += n
    return out


def _ethernet(buf: bytes) -> bytes | str:
    """The IP bytes of an Ethernet II frame (IEEE 802.3 §3.2.6), past any
    802.1Q/802.1ad tags; else why there are none."""
    i = 12
    while len(buf) >= i + 2 and buf[i:i + 2] in (b"\x81\x00", b"\x88\xa8"):
        i += 4
    if len(buf) < i + 2:
        return "short"
    return buf[i + 2:] if buf[i:i + 2] in (b"\x08\x00", b"\x86\xdd") else "not-ip"


def _ieee80211(buf: bytes) -> tuple[bytes, str, str, bool, int] | str:
    """IP bytes of an 802.11 data frame (IEEE 802.11-2012 §8.2.3, §8.3.2), with
    its TA, RA, Retry bit and sequence number; else why not."""
    if len(buf) < 24:
        return "short" if len(buf) >= 2 and (buf[0] >> 2) & 3 == 2 else "not-data"
    fc0, fc1 = buf[0], buf[1]
    ftype, subtype = (fc0 >> 2) & 3, fc0 >> 4
    if ftype != 2 or subtype & 4:  # not data, or a null-data subtype (no body)
        return "not-data"
    if fc1 & 0x40:  # Protected: the body is encrypted
        return "protected"
    hdr = 24 + (6 if fc1 & 3 == 3 else 0)  # Address 4 when ToDS and FromDS
    if subtype & 8:  # QoS data: QoS Control, and HT Control when Order is set
        hdr += 2 + (4 if fc1 & 0x80 else 0)
    body = buf[hdr:]
    if len(body) < 8:
        return "short"
    if body[:6] != _SNAP or body[6:8] not in (b"\x08\x00", b"\x86\xdd"):
        return "not-ip"
    seq = struct.unpack_from("<H", buf, 22)[0] >> 4
    return body[8:], _mac(buf[10:16]), _mac(buf[4:10]), bool(fc1 & 0x08), seq


def _link_payload(linktype: int, data: bytes) -> tuple[bytes, str, str, bool, int] | str:
    """The IP bytes of a record and its 802.11 TA, RA, Retry bit and sequence
    number ("", "", False, -1 off 802.11), or why there are none."""
    if linktype == 1:
        payload = _ethernet(data)
        return payload if isinstance(payload, str) else (payload, "", "", False, -1)
    if linktype in (101, 12, 14, 228, 229):
        return data, "", "", False, -1
    if linktype == 113:  # protocol type in bytes 14-15 of the 16-byte header (tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html)
        if len(data) < 16:
            return "short"
        return (data[16:], "", "", False, -1) if data[14:16] in (b"\x08\x00", b"\x86\xdd") else "not-ip"
    if linktype == 276:  # protocol type in bytes 0-1 of the 20-byte header (LINKTYPE_LINUX_SLL2.html)
        if len(data) < 20:
            return "short"
        return (data[20:], "", "", False, -1) if data[0:2] in (b"\x08\x00", b"\x86\xdd") else "not-ip"
    if linktype in (105, 127):
        frame = data
        if linktype == 127:
            if len(data) < 4:
                return "short"
            it_len = struct.unpack_from("<H", data, 2)[0]  # it_len (radiotap.org header)
            if it_len > len(data):
                return "short"
            frame = data[it_len:]
        return _ieee80211(frame)
    return "linktype"


def decode(linktype: int, time_ns: int, data: bytes, orig_len: int) -> Segment | str:
    """The TCP segment in one record, or why it holds none (a key of
    `SKIPPED`); raises DamagedRecord for lengths that contradict each other."""
    link = _link_payload(linktype, data)
    if isinstance(link, str):
        return link
    payload, ta, ra, retry, mac_seq = link
    got_ip = _ip(payload, orig_len - len(data))
    if isinstance(got_ip, str):
        return got_ip
    ip, ip_len = got_ip
    if isinstance(ip, dpkt.ip.IP) and ip.offset:  # a later fragment
        return "fragment"
    tcp, extra = ip.data, 0
    if getattr(ip, "p", getattr(ip, "nxt", None)) == 48 and isinstance(tcp, bytes) and len(tcp) >= 4 and tcp[0] == 6:
        # DSR (RFC 4728 §6.1): a fixed 4-byte header and options before the TCP header.
        extra = 4 + struct.unpack_from(">H", tcp, 2)[0]
        try:
            tcp = dpkt.tcp.TCP(tcp[extra:])
        except (dpkt.UnpackError, struct.error, ValueError):
            return "short" if len(tcp) < extra + 20 else "malformed"
    elif getattr(ip, "p", None) == 4:
        try:
            inner = tcp if isinstance(tcp, dpkt.ip.IP) else dpkt.ip.IP(bytes(tcp))
        except (dpkt.UnpackError, struct.error, ValueError):
            return "short" if len(tcp) < 20 else "malformed"
        tcp, extra = inner.data, inner.hl * 4
    if not isinstance(tcp, dpkt.tcp.TCP):
        if getattr(ip, "p", getattr(ip, "nxt", None)) in (6, 4, 48) and isinstance(tcp, bytes):
            # dpkt leaves the bytes unparsed when the TCP header is cut short
            return "short" if len(tcp) < 20 or len(tcp) < (tcp[12] >> 4) * 4 else "malformed"
        return "not-tcp"
    if isinstance(ip, dpkt.ip.IP):
        hl, src, dst, ip_id = ip.hl * 4, socket.inet_ntop(socket.AF_INET, ip.src), socket.inet_ntop(socket.AF_INET, ip.dst), ip.id
    else:
        hl, src, dst, ip_id = 40, socket.inet_ntop(socket.AF_INET6, ip.src), socket.inet_ntop(socket.AF_INET6, ip.dst), 0
    payload_len = max(0, ip_len - hl - extra - tcp.off * 4)
    sack = _sack(tcp.opts) if tcp.opts and 5 in tcp.opts else ()
    return Segment(time_ns, src, dst, tcp.sport, tcp.dport, tcp.seq, tcp.ack, tcp.flags, tcp.win,
                   payload_len, ip_id, ta, ra, retry, mac_seq, sack)
