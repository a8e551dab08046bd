"""Writing result files without ever losing what is already on disk.

Every file is written to a temporary name in the destination directory and
then renamed over the final name (``os.replace`` is atomic on POSIX), so a
crash leaves either the old file or the new one, never a torn one. A file
that already exists with *different* content is first moved aside into
``previous/<UTC timestamp>/`` in the same directory, so re-running into an
existing results directory never loses earlier results. Files with other
names in the directory are never touched.
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["atomic_write_bytes", "atomic_write_with", "umask", "fsync_dir"]


def umask() -> int:
    """The process's umask, without changing it (Linux), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o077)  # the most restrictive value while we look: safe for other threads
    os.umask(old)
    return old


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _stamp() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def _keep_previous(path: Path, new_bytes: bytes | None, stamp: str) -> None:
    """Move an existing, different ``path`` to ``previous/<stamp>/``."""
    if not path.exists():
        return
    if new_bytes is not None:
        try:
            if path.stat().st_size == len(new_bytes) and path.read_bytes() == new_bytes:
                return  # identical: replacing it loses nothing
        except OSError:
            pass
    backup_dir = path.parent / "previous" / stamp
    backup_dir.mkdir(parents=True, exist_ok=True)
    os.replace(path, backup_dir / path.name)


def atomic_write_with(path: Path, write: Callable[[Path], None], *, stamp: str | None = None,
                      keep_previous: bool = True) -> Path:
    """Call ``write(tmp_path)`` to produce the file, then rename it to ``path``.

    ``keep_previous=False`` replaces a derived file (an export) without a copy.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # mkstemp makes the file 0600; results are the user's files, so give
        # them the mode a plain open() would (0666 less the umask).
        os.chmod(tmp, 0o666 & ~umask())
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        if keep_previous:
            _keep_previous(path, tmp.read_bytes() if path.exists() else None, stamp or _stamp())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def atomic_write_bytes(path: Path, data: bytes, *, stamp: str | None = None, keep_previous: bool = True) -> Path:
    def write(tmp: Path) -> None:
        tmp.write_bytes(data)

    return atomic_write_with(path, write, stamp=stamp, keep_previous=keep_previous)
