"""A one-line progress display for `hoplab run` on a terminal's stderr."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


def _fmt_s(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.0f} s"


class TerminalProgress:
    """`progress` callback for hoplab.run: simulated time, events/s and ETA,
    redrawn in place at most every `every` seconds. `close()` clears the line."""

    def __init__(self, stream: TextIO, every: float = 0.25) -> None:
        self.stream = stream
        self.every = every
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, sim_s: float, duration_s: float, events: int, events_per_s: float) -> None:
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        wall = now - self.started
        frac = sim_s / duration_s if duration_s > 0 else 0.0
        eta = wall * (1 - frac) / frac if frac > 0 else float("nan")
        eta_text = _fmt_s(eta) if eta == eta else "?"
        line = (f"hoplab: {sim_s:.1f}/{duration_s:g} s simulated ({100 * frac:.0f}%), "
                f"{events_per_s / 1e6:.2f} M events/s, ETA {eta_text}")
        self.stream.write("\r\x1b[2K" + line)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False


def for_stderr() -> TerminalProgress | None:
    """A display on stderr if it is a terminal, else None (no progress output)."""
    return TerminalProgress(sys.stderr) if sys.stderr.isatty() else None


ProgressFn = Callable[[float, float, int, float], None]
