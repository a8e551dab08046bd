"""A store on a full disk: telling the error apart, and the one line saying
which store and about how much space it needs."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

__all__ = ["is_full", "full_text", "human"]

# SQLite result codes (sqlite.org/rescode.html): SQLITE_FULL 13. A write for
# want of space can also end as an SQLITE_IOERR (10), e.g. IOERR_SHMSIZE when
# the -shm file cannot grow on a full tmpfs: then the disk's free space tells.
_SQLITE_FULL = 13
_SQLITE_IOERR = 10
# Room for SQLite to grow: a write-ahead log frame per changed page (4 KiB
# pages, sqlite.org/fileformat2.html) and the checkpoint copying them back.
SQL_MARGIN = 1 << 20


def is_full(e: BaseException, directory: Path) -> bool:
    """A write in ``directory`` that failed because its disk (or the user's quota) is full."""
    if isinstance(e, OSError):
        return e.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(e, sqlite3.Error):
        code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
        if code == _SQLITE_FULL or "disk is full" in str(e):
            return True
        return code == _SQLITE_IOERR and _free(directory) < SQL_MARGIN
    return False


def _free(directory: Path) -> float:
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return float("inf")


def human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def full_text(directory: Path, need: int) -> str:
    """`STORE: no space left on its disk (needs about N more, F free)`."""
    try:
        free = f", {human(shutil.disk_usage(directory).free)} free"
    except OSError:
        free = ""
    return (f"{directory}: no space left on the store's disk (it needs about {human(need)} more{free}); "
            "the runs recorded so far are kept: free some space and run again")
