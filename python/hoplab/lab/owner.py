"""Which process is writing a store, and whether another one still lives.

A writer is named by host, pid and the process's start time (so a pid reused
by a later process is not taken for the writer that died). Whether a process
lives can be told only on this host; elsewhere the caller relies on a lease
(`claims`).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

__all__ = ["Owner", "alive", "me"]


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) of a process: proc(5)
    /proc/PID/stat fields 3 and 22; None where there is no such file."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    # Field 2 (the command) is in parentheses and may hold spaces: count after the last ')'.
    fields = stat[stat.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    started: str

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}"


_me: Owner | None = None


def me() -> Owner:
    """This process (computed again in a forked child)."""
    global _me
    if _me is None or _me.pid != os.getpid():
        st = _stat(os.getpid())
        _me = Owner(socket.gethostname(), os.getpid(), st[1] if st else "")
    return _me


def alive(owner: Owner) -> bool | None:
    """True or False for a process of this host; None (cannot tell) for another host's."""
    if owner.host != me().host:
        return None
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    st = _stat(owner.pid)
    if st is None:  # gone since the kill(0), or no /proc at all (macOS: the pid alone)
        return not os.path.exists("/proc/self/stat")
    state, started = st
    # A zombie (killed, not yet reaped by its parent) holds nothing any more;
    # another start time is a later process given the same pid.
    return state != "Z" and not (owner.started and started != owner.started)
