"""One pass over a capture: its TCP segments in time order, and what its
records were (their count, link types, why the others held no segment, the
first and last time), for the capture's info line and diagnose.py.

flows.py follows each connection as it happened, so it is given the segments
in time order. A capture's file order is its time order, unless a record is
earlier than one before it: a clock stepped back, captures concatenated in
the wrong order, pcapng interfaces written out of step. Read in file order,
such a capture would count the earlier bytes, when they come, as resent.
Its segments are sorted by time instead (a stable sort: equal times keep
their file order), and `Scan.step_back` says where it first went back. A
regular file is read twice then (the first pass stops at the first step
back); a FIFO or a pipe cannot be read twice, so its segments are held in
memory from the start.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, TypeVar

from .decode import DamagedRecord, Segment, decode
from .errors import CaptureError
from .read import is_regular_file, records

__all__ = ["Scan", "scan"]

T = TypeVar("T")


@dataclass
class Scan:
    """What one capture's records were."""

    records: int = 0
    tcp: int = 0  # records that held a TCP segment
    linktypes: Counter[int] = field(default_factory=Counter)  # records per LINKTYPE
    skipped: Counter[str] = field(default_factory=Counter)  # records per decode.SKIPPED reason
    short_max: int = 0  # the most bytes captured of a record cut short (the snap length, as seen)
    first_ns: int | None = None  # the earliest record's time
    last_ns: int | None = None  # the latest record's time
    back: int = 0  # records earlier than a record before them
    step_back: tuple[int, int] | None = None  # the first such: (its byte offset, ns it goes back)


class _StepBack(Exception):
    """The first record out of time order, in a pass that stops there."""


def _segments(path: str | os.PathLike[str], s: Scan, stop_at_step_back: bool) -> Iterator[Segment]:
    latest: int | None = None
    for r in records(path):
        s.records += 1
        s.linktypes[r.linktype] += 1
        if latest is not None and r.time_ns < latest:
            s.back += 1
            if s.step_back is None:
                s.step_back = (r.offset, latest - r.time_ns)
            if stop_at_step_back:
                raise _StepBack
        latest = r.time_ns if latest is None else max(latest, r.time_ns)
        s.first_ns = r.time_ns if s.first_ns is None else min(s.first_ns, r.time_ns)
        s.last_ns = latest
        try:
            seg = decode(r.linktype, r.time_ns, r.data, r.orig_len)
        except DamagedRecord as e:
            raise CaptureError(path, r.offset, e.problem) from None
        if isinstance(seg, str):
            s.skipped[seg] += 1
            if seg == "short":
                s.short_max = max(s.short_max, len(r.data))
            continue
        s.tcp += 1
        yield seg


def scan(path: str | os.PathLike[str], consume: Callable[[Iterable[Segment]], T]) -> tuple[T, Scan]:
    """`consume(segments)` of the capture at `path`, its segments in time
    order, and what its records were."""
    if is_regular_file(path):
        s = Scan()
        try:
            return consume(_segments(path, s, stop_at_step_back=True)), s
        except _StepBack:
            pass  # read it again, whole, and sort
    s = Scan()
    held = list(_segments(path, s, stop_at_step_back=False))
    if s.back:
        held.sort(key=lambda seg: seg.time_ns)
    return consume(held), s
