"""Finding and ending the processes of a run: every process in one of its
fresh namespaces, and every process carrying its id (registry.ENV), where
it runs. Without cgroups: the kernel says which namespace a process is in
(/proc/PID/ns/net, compared by device and inode as `ip netns pids` does,
iproute2 ip/ipnetns.c), and the environment is inherited through fork,
exec and setsid, which the process group and PR_SET_PDEATHSIG are not.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Iterable

from .registry import ENV

__all__ = ["carried_ids", "kill_all", "ns_key", "pids", "processes"]

NsKey = tuple[int, int]


def ns_key(path: str | Path) -> NsKey | None:
    """(device, inode) of a network namespace file (/proc/PID/ns/net, a
    namespace fd's /proc/PID/fd/N, /var/run/netns/NAME); None if gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def pids() -> Iterable[int]:
    """Every process but this one."""
    me = os.getpid()
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            yield int(p)


def carried_ids(pid: int) -> str | None:
    """The run id in process `pid`'s environment, or None (none, or gone)."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    prefix = ENV.encode() + b"="
    for item in env.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix):].decode(errors="replace")
    return None


def processes(keys: set[NsKey], rid: str | None) -> list[int]:
    """The processes in a namespace of `keys`, or carrying run id `rid`."""
    found = []
    for pid in pids():
        if keys and ns_key(f"/proc/{pid}/ns/net") in keys:
            found.append(pid)
        elif rid is not None and carried_ids(pid) == rid:
            found.append(pid)
    return found


def kill_all(keys: set[NsKey], rid: str | None, *, rounds: int = 100) -> int:
    """SIGKILL what `processes` finds until it finds nothing (a process may
    fork while it is looked for); how many were killed."""
    killed: set[int] = set()
    for _ in range(rounds):
        pids = processes(keys, rid)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    return len(killed)
