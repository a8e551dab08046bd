"""The words for what a capture's records were: the warnings of a capture
that was measured (records of link types not read, records out of time
order) and, for one with nothing to measure, why: no record, records of a
link type hoplab does not read or that is not what the file says, records
cut short by the snap length, TCP without data."""

from __future__ import annotations

import os
from typing import Any

from .decode import LINKTYPES, SKIPPED
from .scan import Scan

__all__ = ["nothing_to_measure", "warnings"]

#: The snap length that keeps every header up to TCP's, options included, on
#: any link type read (radiotap and 802.11 QoS headers are the longest).
SNAP_HINT = 256


def _kinds(s: Scan, read: bool) -> str:
    """The capture's link types (those read, or those not), named."""
    lts = sorted(lt for lt in s.linktypes if (lt in LINKTYPES) == read)
    return ", ".join(f"{lt} ({LINKTYPES[lt]})" if lt in LINKTYPES else str(lt) for lt in lts)


def _why(reason: str, n: int, s: Scan) -> str:
    if reason == "linktype":
        read = ", ".join(dict.fromkeys(LINKTYPES.values()))
        return f"{n:,} of link type {_kinds(s, read=False)}, which hoplab does not read (it reads {read})"
    if reason == "short":
        return (f"{n:,} cut short before the end of their TCP header, at {s.short_max} bytes or fewer (the snap "
                f"length: capture with tcpdump -s {SNAP_HINT} or more)")
    if reason == "not-ip":
        return f"{n:,} not IPv4 or IPv6 (is link type {_kinds(s, read=True)} what the file holds?)"
    return f"{n:,} {SKIPPED[reason]}"


def nothing_to_measure(s: Scan, connections: list[Any]) -> str | None:
    """Why a capture gives no flow, or None when it gives one."""
    if any(d.data_packets for c in connections for d in c.directions()):
        return None
    if s.records == 0:
        return "nothing to measure: no packet records (the file holds headers only)"
    if s.tcp:
        n = len(connections)
        return (f"nothing to measure: its {s.tcp:,} TCP segments ({n:,} connection{'s' if n != 1 else ''}) "
                "carry no data")
    why = "; ".join(_why(reason, n, s) for reason, n in s.skipped.most_common(3))
    return f"nothing to measure: none of its {s.records:,} records holds a TCP segment: {why}"


def warnings(path: str | os.PathLike[str], s: Scan) -> list[str]:
    """One line per thing the measurement should be read with."""
    out = []
    unread = s.skipped.get("linktype", 0)
    if unread:
        out.append(f"{path}: {unread:,} records of link type {_kinds(s, read=False)} skipped (not read)")
    if s.step_back is not None:
        offset, back_ns = s.step_back
        out.append(f"{path}: byte {offset}: a record {back_ns / 1e9:.9g} s earlier than one before it "
                   f"({s.back:,} of {s.records:,} records out of time order); analysed sorted by time")
    return out
