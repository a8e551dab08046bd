"""The progress bar of `hoplab run` on a terminal's stderr: tqdm, as `hoplab
lab run` draws its runs (lab/runner.py), here over simulated seconds."""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

__all__ = ["TerminalProgress", "for_stderr", "ProgressFn"]

# The lab's bar (lab/runner.py `_bar`) with simulated seconds for runs.
BAR_FORMAT = "{l_bar}{bar}| {n:.1f}/{total:g} s simulated [{elapsed}<{remaining}{postfix}]"


class TerminalProgress:
    """`progress` callback for hoplab.run (called every ~50 ms of wall time):
    a tqdm bar of simulated time with events/s, redrawn at most every
    ``every`` seconds. `close()` clears it, so the summary starts clean."""

    def __init__(self, stream: TextIO, every: float = 0.25) -> None:
        self.stream = stream
        self.every = every
        self.bar: Any = None

    def __call__(self, sim_s: float, duration_s: float, events: int, events_per_s: float) -> None:
        if self.bar is None:  # tqdm imported by a run long enough to report
            from tqdm import tqdm

            self.bar = tqdm(total=duration_s, desc="hoplab", file=self.stream, dynamic_ncols=True, smoothing=0.1,
                            mininterval=self.every, leave=False, bar_format=BAR_FORMAT)
        self.bar.set_postfix_str(f"{events_per_s / 1e6:.2f} M events/s", refresh=False)
        self.bar.update(max(0.0, min(sim_s, duration_s) - self.bar.n))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def for_stderr() -> TerminalProgress | None:
    """A bar on stderr if it is a terminal, else None (no progress output)."""
    return TerminalProgress(sys.stderr) if sys.stderr.isatty() else None


ProgressFn = Callable[[float, float, int, float], None]
