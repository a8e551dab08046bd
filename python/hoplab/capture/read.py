"""Records of a pcap or pcapng capture file: (link type, time in ns, bytes,
original length), each with the offset of its record in the file.

The file's framing is read here, not by dpkt's readers, so that a corrupt or
cut file is refused with the byte offset of the bad record header or block
(dpkt's readers stop silently or raise without a position). The file is
read front to back, never seeking, so a FIFO or a pipe (`tcpdump -w - |
hoplab analyze /dev/stdin`) reads as a file does. Formats:
pcap: https://www.ietf.org/archive/id/draft-ietf-opsawg-pcap-04.html (§4
file header, §5 packet record); pcapng: draft-ietf-opsawg-pcapng-02 (§4
block structure, §4.1 SHB, §4.2 IDB and if_tsresol, §4.3 EPB, §4.4 SPB,
Appendix A obsolete Packet Block).
"""

from __future__ import annotations

import os
import stat
import struct
from typing import BinaryIO, Iterator, NamedTuple

from .errors import CaptureError

__all__ = ["Record", "records"]

# A record longer than this is taken for corruption (libpcap's
# MAXIMUM_SNAPLEN is 262144; pcapng's EPB may carry more, but not in a capture of TCP).
MAX_RECORD = 1 << 20

_PCAP_MAGIC = {  # magic as read little-endian -> (byte order, ns per timestamp fraction unit)
    0xA1B2C3D4: ("<", 1000), 0xD4C3B2A1: (">", 1000),
    0xA1B23C4D: ("<", 1), 0x4D3CB2A1: (">", 1),
}
_SHB, _IDB, _PB, _SPB, _EPB = 0x0A0D0D0A, 1, 2, 3, 6
_BOM = 0x1A2B3C4D


class Record(NamedTuple):
    offset: int  # of the record header (pcap) or block (pcapng)
    linktype: int  # LINKTYPE_* (tcpdump.org/linktypes.html)
    time_ns: int  # since the epoch
    data: bytes  # the captured bytes (maybe fewer than orig_len)
    orig_len: int


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` can be read twice (a FIFO or a pipe cannot)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Every packet record of the capture at `path`, in file order; CaptureError
    for a file that is not a whole pcap or pcapng capture, or cannot be read."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise CaptureError(path, None, f"cannot read: {e.strerror or e}") from None
    with f:
        try:
            st = os.fstat(f.fileno())
            # A FIFO's size is unknown (0): its records are checked as they are read.
            size = st.st_size if stat.S_ISREG(st.st_mode) else None
            head = f.read(4)
            if len(head) < 4:
                raise CaptureError(path, 0, f"not a capture: {len(head)} bytes, too short for a pcap or pcapng header")
            (magic,) = struct.unpack("<I", head)
            if magic == _SHB:
                yield from _pcapng(path, f, size)
            elif magic in _PCAP_MAGIC:
                yield from _pcap(path, f, size, magic)
            else:
                raise CaptureError(path, 0, f"not a pcap or pcapng capture (magic 0x{head.hex()})")
        except OSError as e:  # a read error (EIO, EISDIR): the file, not the analysis
            raise CaptureError(path, None, f"cannot read: {e.strerror or e}") from None


def _left(size: int | None, offset: int) -> str:
    return f"{size - offset} bytes left" if size is not None else "the stream ends"


def _pcap(path: str | os.PathLike[str], f: BinaryIO, size: int | None, magic: int) -> Iterator[Record]:
    order, unit_ns = _PCAP_MAGIC[magic]
    rest = f.read(20)
    if len(rest) < 20:
        raise CaptureError(path, 4, f"pcap file header cut short ({4 + len(rest)} of 24 bytes)")
    # Bits 28-31 of the link-type field say whether frames end in an FCS (pcap draft §4).
    linktype = struct.unpack(order + "HHiIII", rest)[5] & 0x0FFFFFFF
    rec = struct.Struct(order + "IIII")
    offset = 24
    while True:
        hdr = f.read(16)
        if not hdr:
            return
        if len(hdr) < 16:
            raise CaptureError(path, offset, f"record header cut short ({len(hdr)} of 16 bytes; the file ends)")
        sec, frac, incl, orig = rec.unpack(hdr)
        if incl > MAX_RECORD:
            raise CaptureError(path, offset, f"record length {incl} bytes is not plausible (corrupt record header)")
        if orig > MAX_RECORD:
            raise CaptureError(path, offset, f"record's original length {orig} bytes is not plausible "
                                             "(corrupt record header)")
        if unit_ns == 1000 and frac >= 1_000_000 or frac >= 1_000_000_000:
            raise CaptureError(path, offset, f"record timestamp fraction {frac} out of range (corrupt record header)")
        data = f.read(incl)
        if len(data) < incl:
            raise CaptureError(path, offset, f"record of {incl} bytes runs past the end of the file "
                                             f"({_left(size, offset + 16)})")
        yield Record(offset, linktype, sec * 1_000_000_000 + frac * unit_ns, data, max(orig, incl))
        offset += 16 + incl


class _Interface(NamedTuple):
    linktype: int
    tsresol: int  # if_tsresol: a unit of 10^-v s, or 2^-(v & 0x7f) s when bit 7 is set

    def ns(self, ticks: int) -> int:
        """A timestamp in ns, in integers (a float loses the ns of an epoch time)."""
        exp = self.tsresol & 0x7F
        if self.tsresol & 0x80:
            return (ticks * 1_000_000_000) >> exp
        return ticks * 10 ** (9 - exp) if exp <= 9 else ticks // 10 ** (exp - 9)


def _tsresol(path: str | os.PathLike[str], offset: int, options: bytes, order: str) -> int:
    """An IDB's if_tsresol option (code 9); 6 (microseconds) without one."""
    i = 0
    while i + 4 <= len(options):
        code, length = struct.unpack_from(order + "HH", options, i)
        if code == 0:
            break
        if code == 9 and length >= 1 and i + 5 <= len(options):
            return options[i + 4]
        i += 4 + (length + 3) // 4 * 4
    return 6


def _pcapng(path: str | os.PathLike[str], f: BinaryIO, size: int | None) -> Iterator[Record]:
    offset = 0
    order = "<"
    interfaces: list[_Interface] = []
    head = struct.pack("<I", _SHB) + f.read(4)  # records() read the first block's type
    while True:
        if offset:
            head = f.read(8)
        if not head:
            return
        if len(head) < 8:
            raise CaptureError(path, offset, f"pcapng block header cut short ({len(head)} of 8 bytes; the file ends)")
        bom = b""
        if struct.unpack("<I", head[:4])[0] == _SHB:
            # A new section: its byte-order magic decides how to read it (and its length).
            bom = f.read(4)
            if len(bom) < 4:
                raise CaptureError(path, offset, "section header block cut short (the file ends)")
            if struct.unpack("<I", bom)[0] == _BOM:
                order = "<"
            elif struct.unpack(">I", bom)[0] == _BOM:
                order = ">"
            else:
                raise CaptureError(path, offset + 8, f"section header block has no byte-order magic (0x{bom.hex()})")
            interfaces = []  # interface ids are per section (§4.1)
        btype, blen = struct.unpack(order + "II", head)
        if blen < 12 or blen % 4:
            raise CaptureError(path, offset, f"pcapng block (type 0x{btype:08x}) has a bad length {blen} "
                                             "(must be a multiple of 4 and at least 12)")
        if bom and blen < 28:  # type, length, byte-order magic, version, section length, length (§4.1)
            raise CaptureError(path, offset, "section header block too short")
        if blen > MAX_RECORD + 64 or size is not None and offset + blen > size:
            raise CaptureError(path, offset, f"pcapng block (type 0x{btype:08x}) of {blen} bytes runs past the end "
                                             f"of the file ({_left(size, offset)})")
        rest = f.read(blen - 8 - len(bom))
        if len(rest) < blen - 8 - len(bom):
            raise CaptureError(path, offset, f"pcapng block (type 0x{btype:08x}) of {blen} bytes runs past the end "
                                             f"of the file ({_left(size, offset)})")
        body = bom + rest[:-4]
        (trail,) = struct.unpack(order + "I", rest[-4:])
        if trail != blen:
            raise CaptureError(path, offset, f"pcapng block (type 0x{btype:08x}) of wrong length: {blen} bytes at "
                                             f"its start, {trail} at its end")
        if btype == _SHB and len(body) < 16:
            raise CaptureError(path, offset, "section header block too short")
        elif btype == _IDB:
            if len(body) < 8:
                raise CaptureError(path, offset, "interface description block too short")
            linktype = struct.unpack_from(order + "H", body)[0]
            interfaces.append(_Interface(linktype, _tsresol(path, offset, body[8:], order)))
        elif btype in (_EPB, _PB):
            if len(body) < 20:
                raise CaptureError(path, offset, "packet block too short")
            if btype == _EPB:
                iface, hi, lo, incl, orig = struct.unpack_from(order + "IIIII", body)
            else:
                iface, _drops, hi, lo, incl, orig = struct.unpack_from(order + "HHIIII", body)
            if iface >= len(interfaces):
                raise CaptureError(path, offset, f"packet block names interface {iface}, but the section "
                                                 f"described {len(interfaces)}")
            if 20 + incl > len(body):
                raise CaptureError(path, offset, f"packet block's captured length {incl} exceeds the block")
            if orig > MAX_RECORD:
                raise CaptureError(path, offset, f"packet block's original length {orig} bytes is not plausible "
                                                 "(corrupt block)")
            it = interfaces[iface]
            ticks = (hi << 32) | lo
            yield Record(offset, it.linktype, it.ns(ticks), body[20:20 + incl], max(orig, incl))
        elif btype == _SPB:
            # No timestamp (§4.4): nothing to time a TCP segment by; skipped.
            pass
        offset += blen
