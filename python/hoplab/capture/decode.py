"""One capture record -> the TCP segment it carries, or None (not TCP over
IP, an 802.11 control/management frame, a routing message, ...).

Link layers: Ethernet (LINKTYPE 1, VLAN tags too), raw IP (101, and 12/14 as
some systems write it; 228/229), Linux cooked v1 (113) and v2 (276), 802.11
(105) and 802.11 with radiotap (127); for 802.11 the frame's transmitter and
receiver addresses, Retry bit and sequence number are kept (a multihop
capture needs them, see flows.py). dpkt decodes IPv4/IPv6/TCP (the link
headers are a few fixed fields, read here); lengths come from the IP header,
not from the captured bytes, so captures cut to a snap length (tcpdump -s
96) keep their payload sizes.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

import dpkt

__all__ = ["Segment", "decode", "LINKTYPES"]

#: The link types read, by LINKTYPE_ value (tcpdump.org/linktypes.html).
LINKTYPES = {1: "Ethernet", 101: "raw IP", 12: "raw IP", 14: "raw IP", 228: "raw IPv4", 229: "raw IPv6",
             113: "Linux cooked (SLL)", 276: "Linux cooked v2 (SLL2)", 105: "802.11",
             127: "802.11 with radiotap"}


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


def _ip(buf: bytes, orig_extra: int) -> tuple[dpkt.Packet, int] | None:
    """The IP packet at the start of `buf`, and its length (bytes) as sent."""
    if not buf:
        return None
    v = buf[0] >> 4
    # Only TCP (6), TCP inside DSR's header (48) or inside a second IP header (4, RFC 2003: ns-2's
    # DSDV charges one) is read: skip the rest unparsed.
    if v == 4 and (len(buf) < 20 or buf[9] not in (6, 48, 4)) or v == 6 and (len(buf) < 40 or buf[6] != 6):
        return None
    try:
        if v == 4:
            ip = dpkt.ip.IP(buf)
            return ip, ip.len or len(buf) + orig_extra  # 0: a TSO super-packet, as captured
        if v == 6:
            ip6 = dpkt.ip6.IP6(buf)
            return ip6, 40 + ip6.plen
    except (dpkt.UnpackError, struct.error, ValueError, IndexError):
        return None
    return None


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


def _ethernet(buf: bytes) -> bytes:
    """The IP bytes of an Ethernet II frame (IEEE 802.3 §3.2.6), past any
    802.1Q/802.1ad tags; b"" for another protocol."""
    i = 12
    while len(buf) >= i + 2 and buf[i:i + 2] in (b"\x81\x00", b"\x88\xa8"):
        i += 4
    return buf[i + 2:] if buf[i:i + 2] in (b"\x08\x00", b"\x86\xdd") else b""


def _ieee80211(buf: bytes) -> tuple[bytes, str, str, bool, int] | None:
    """IP bytes of an 802.11 data frame (IEEE 802.11-2012 §8.2.3, §8.3.2), with
    its TA, RA, Retry bit and sequence number; None for any other frame."""
    if len(buf) < 24:
        return None
    fc0, fc1 = buf[0], buf[1]
    ftype, subtype = (fc0 >> 2) & 3, fc0 >> 4
    if ftype != 2 or subtype & 4:  # not data, or a null-data subtype (no body)
        return None
    if fc1 & 0x40:  # Protected: the body is encrypted
        return None
    hdr = 24 + (6 if fc1 & 3 == 3 else 0)  # Address 4 when ToDS and FromDS
    if subtype & 8:  # QoS data: QoS Control, and HT Control when Order is set
        hdr += 2 + (4 if fc1 & 0x80 else 0)
    body = buf[hdr:]
    if body[:6] != _SNAP or body[6:8] not in (b"\x08\x00", b"\x86\xdd"):
        return None
    seq = struct.unpack_from("<H", buf, 22)[0] >> 4
    return body[8:], _mac(buf[10:16]), _mac(buf[4:10]), bool(fc1 & 0x08), seq


def decode(linktype: int, time_ns: int, data: bytes, orig_len: int) -> Segment | None:
    """The TCP segment in one record, or None."""
    ta = ra = ""
    retry, mac_seq = False, -1
    try:
        if linktype == 1:
            payload = _ethernet(data)
        elif linktype in (101, 12, 14, 228, 229):
            payload = data
        elif linktype == 113:  # protocol type in bytes 14-15 of the 16-byte header (tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html)
            payload = data[16:] if data[14:16] in (b"\x08\x00", b"\x86\xdd") else b""
        elif linktype == 276:  # protocol type in bytes 0-1 of the 20-byte header (LINKTYPE_LINUX_SLL2.html)
            payload = data[20:] if data[0:2] in (b"\x08\x00", b"\x86\xdd") else b""
        elif linktype in (105, 127):
            frame = data
            if linktype == 127:
                if len(data) < 4:
                    return None
                frame = data[struct.unpack_from("<H", data, 2)[0]:]  # it_len (radiotap.org header)
            got = _ieee80211(frame)
            if got is None:
                return None
            payload, ta, ra, retry, mac_seq = got
        else:
            return None
    except (dpkt.UnpackError, struct.error, ValueError, IndexError):
        return None
    got_ip = _ip(payload, orig_len - len(data))
    if got_ip is None:
        return None
    ip, ip_len = got_ip
    tcp, extra = ip.data, 0
    if getattr(ip, "p", getattr(ip, "nxt", None)) == 48 and isinstance(tcp, bytes) and len(tcp) >= 4 and tcp[0] == 6:
        # DSR (RFC 4728 §6.1): a fixed 4-byte header and options before the TCP header.
        extra = 4 + struct.unpack_from(">H", tcp, 2)[0]
        try:
            tcp = dpkt.tcp.TCP(tcp[extra:])
        except (dpkt.UnpackError, struct.error, ValueError):
            return None
    elif getattr(ip, "p", None) == 4:
        try:
            inner = tcp if isinstance(tcp, dpkt.ip.IP) else dpkt.ip.IP(bytes(tcp))
        except (dpkt.UnpackError, struct.error, ValueError):
            return None
        tcp, extra = inner.data, inner.hl * 4
    if not isinstance(tcp, dpkt.tcp.TCP):
        return None
    if isinstance(ip, dpkt.ip.IP):
        if ip.offset:  # a later fragment
            return None
        hl, src, dst, ip_id = ip.hl * 4, socket.inet_ntop(socket.AF_INET, ip.src), socket.inet_ntop(socket.AF_INET, ip.dst), ip.id
    else:
        hl, src, dst, ip_id = 40, socket.inet_ntop(socket.AF_INET6, ip.src), socket.inet_ntop(socket.AF_INET6, ip.dst), 0
    payload_len = max(0, ip_len - hl - extra - tcp.off * 4)
    sack = _sack(tcp.opts) if tcp.opts and 5 in tcp.opts else ()
    return Segment(time_ns, src, dst, tcp.sport, tcp.dport, tcp.seq, tcp.ack, tcp.flags, tcp.win,
                   payload_len, ip_id, ta, ra, retry, mac_seq, sack)
