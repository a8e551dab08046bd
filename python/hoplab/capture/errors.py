"""The errors a capture can raise, each a ValueError whose text is one line
(the CLI prints it and exits 2):

    CaptureError      the file: `FILE: byte OFFSET: problem`, or `FILE: problem`
    TooManyIntervals  the throughput table a capture and an interval would make
"""

from __future__ import annotations

import os

__all__ = ["CaptureError", "TooManyIntervals"]


class CaptureError(ValueError):
    """A capture file that cannot be read or measured: names the file and the
    byte offset where the problem is (None when it is not at a place in the file)."""

    def __init__(self, path: str | os.PathLike[str], offset: int | None, problem: str) -> None:
        self.path, self.offset, self.problem = str(path), offset, problem
        where = f"byte {offset}: " if offset is not None else ""
        super().__init__(f"{self.path}: {where}{problem}")


class TooManyIntervals(ValueError):
    """A flow that lasts more intervals of `interval_s` than the throughput
    table holds per flow (`limit`): the capture's length and the interval
    together, so the message names both."""

    def __init__(self, path: str | os.PathLike[str], flow: int, lasts_s: float, interval_s: float,
                 limit: int) -> None:
        self.path, self.flow, self.lasts_s, self.interval_s, self.limit = str(path), flow, lasts_s, interval_s, limit
        super().__init__(f"{self.path}: flow {flow} lasts {lasts_s:,.0f} s, more than {limit:,} intervals of "
                         f"{interval_s:g} s (the throughput table's bound per flow); give a longer interval_s")

    def cli_text(self) -> str:
        """The same, naming the option a command line gives the interval with."""
        return str(self).replace("give a longer interval_s", "give a longer --interval")
