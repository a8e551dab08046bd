"""Ending a live run on a signal as its end would: SIGINT (Ctrl-C), SIGTERM
(`timeout`, `kill`, SLURM at the end of a job's time) and SIGHUP (the
terminal closed) only set a flag, which the real-time loop polls; the run
then stops, is saved with its ingress log and replays. The status after is
the shell's for a death by that signal, 128 + its number (130, 143, 129),
so scripts see how it ended. A second signal during the save is noted and
changes nothing: what the run did is written in full.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["ENDED", "Caught"]

#: emu.json's and emu.csv's `ended` for each signal (signal(7)'s names for them).
ENDED = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hangup"}


class Caught:
    """Within a `with` block: the first of SIGINT, SIGTERM, SIGHUP is kept
    in `signum` instead of acting. A signal the process ignored on entry (a
    background job without job control ignores SIGINT) stays ignored. Only
    the main thread can set handlers; elsewhere this does nothing."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    def _note(self, signum: int, _frame: Any) -> None:
        if self.signum is None:
            self.signum = signum

    def __enter__(self) -> Caught:
        if threading.current_thread() is threading.main_thread():
            for s in ENDED:
                old = signal.getsignal(s)
                if old is not signal.SIG_IGN:
                    self._old[s] = signal.signal(s, self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, old in self._old.items():
            signal.signal(s, old)
