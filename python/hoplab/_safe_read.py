"""Read a scenario file without ever blocking or exhausting memory.

A FIFO, a terminal or a device such as /dev/zero is refused from its
`stat` before it is opened (opening a FIFO for reading blocks until a
writer appears; /dev/zero never ends). A regular file is read with a bound,
so a huge file, or one that grows while it is read, fails cleanly. Every
refusal is an OSError with the path as ``filename`` and the problem as
``strerror``, which the CLI prints as one line.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["MAX_SCENARIO_BYTES", "read_text_bounded"]

# The largest scenario file hoplab reads. The biggest real scenario is an
# explicit topology of a few thousand nodes (~100 kB); 16 MB leaves ample
# room and still keeps a mistaken path (a log, an image) from being parsed.
MAX_SCENARIO_BYTES = 16 * 1024 * 1024

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _refuse_special(st: os.stat_result, path: Path) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a scenario file", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"not a regular file ({_kind(st.st_mode)}); scenarios are read "
                      "from regular files only", str(path))


def _too_large(path: Path, size: int | None, limit: int) -> OSError:
    what = f"{size} bytes" if size is not None else "more than that"
    return OSError(errno.EFBIG, f"file too large ({what}; the limit is {limit // (1024 * 1024)} MB)", str(path))


def read_bytes_bounded(path: Path, limit: int = MAX_SCENARIO_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing anything else."""
    path = Path(path)
    st = os.stat(path)  # FileNotFoundError / PermissionError as they are
    _refuse_special(st, path)
    if st.st_size > limit:
        raise _too_large(path, st.st_size, limit)
    # O_NONBLOCK: should the path have been swapped for a FIFO since the
    # stat, the open still returns at once and the fstat below refuses it.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        _refuse_special(os.fstat(f.fileno()), path)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise _too_large(path, None, limit)
    return data


def read_text_bounded(path: Path, limit: int = MAX_SCENARIO_BYTES) -> str:
    """The UTF-8 text of ``path`` (UnicodeDecodeError if it is not UTF-8)."""
    return read_bytes_bounded(path, limit).decode("utf-8")
