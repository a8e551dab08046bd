"""The output directory of a live run: claimed by one session at a time,
and an earlier run in it kept whole.

Claim: an exclusive flock(2) on DIR/.emu.lock, held until the run is saved;
the kernel drops it when the process dies (SIGKILL included), so there is
no stale lock to clear. The file is left in place: removing it would let a
session that opened it before the removal and one that makes a new one both
hold "the" lock. A second session on the same directory is refused at once
instead of interleaving its packets into the first one's ingress log.

An earlier run: as `hoplab run` keeps a replaced result file in
`previous/<UTC time>/` (hoplab._io), a new run moves everything of the
earlier one there first, together -- its ingress log, emu.json, emu.csv,
namespaces.json, commands/ and tables -- so that it still replays. Files of
other names in the directory are left alone.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from .._io import _stamp
from ..result import RESULT_NAMES

__all__ = ["BusyError", "Claim", "LOCK_NAME", "RUN_NAMES"]

LOCK_NAME = ".emu.lock"
#: What a live run writes besides a Result's files.
RUN_NAMES = frozenset({"ingress.log", "emu.json", "emu.csv", "namespaces.json", "commands"})


class BusyError(RuntimeError):
    """Another session holds the directory (one line naming it and the holder)."""


class Claim:
    """`with Claim(out):` out is this session's; `keep_previous()` moves an
    earlier run aside."""

    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self._fd: int | None = None

    def __enter__(self) -> Claim:
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)  # CLOEXEC: commands must not inherit it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BusyError(f"{self.out}: in use by another `hoplab emu` ({self._holder(path)}): give another -o") from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps({"pid": os.getpid()}) + "\n").encode())
        return self

    @staticmethod
    def _holder(path: Path) -> str:
        try:
            pid: Any = json.loads(path.read_text())["pid"]
            return f"pid {int(pid)}"
        except (OSError, ValueError, KeyError, TypeError):
            return "its pid not yet written"

    def keep_previous(self) -> Path | None:
        """Move the earlier run's files to previous/<UTC time>/; that
        directory, or None when there was nothing to move."""
        names = sorted(n for n in os.listdir(self.out) if n in RUN_NAMES or n in RESULT_NAMES)
        if not names:
            return None
        dest = self.out / "previous" / _stamp()
        dest.mkdir(parents=True)
        for n in names:
            os.replace(self.out / n, dest / n)
        return dest

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the flock
            self._fd = None
