"""`hoplab emu cleanup`: what runs that were killed (SIGKILL, a crash)
left behind, and nothing that a live run holds.

- Processes carrying the id of a run that is no longer alive (registry.ENV):
  a command's child that detached itself (setsid, a double fork) keeps the
  run's fresh namespace alive after a SIGKILL of `hoplab emu`, which
  PR_SET_PDEATHSIG alone cannot end (it is not inherited through fork).
  Ending them frees the namespace.
- Named namespaces `hoplab-*` (`ip netns add` by a user or a test), except
  those a live run uses (its pid file says which; registry.alive checks
  that its pid is still that run's process).
- The pid files of runs that are gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from . import reap, registry

__all__ = ["MARKER", "Cleanup", "run"]

#: Names of namespaces a user made for hoplab by hand (`ip netns add hoplab-...`);
#: hoplab's own are unnamed and go with their processes.
MARKER = "hoplab-"


@dataclass
class Cleanup:
    killed: list[int] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: name -> the live run (pid, output directory) that holds it.
    kept: dict[str, str] = field(default_factory=dict)
    stale_files: int = 0


def _named_namespaces() -> list[str]:
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.startswith(MARKER)]


def run() -> Cleanup:
    c = Cleanup()
    held: dict[str, str] = {}
    for path, data in registry.entries():
        rid = data.get("id") if data else None
        if isinstance(rid, str) and registry.alive(rid):
            for name in data.get("namespaces") or []:
                held[str(name)] = f"pid {data.get('pid')}, {data.get('out')}"
        else:
            path.unlink(missing_ok=True)
            c.stale_files += 1
    for _ in range(100):  # again until none is found: one may fork while we look
        found = [pid for pid in reap.pids() if (rid := reap.carried_ids(pid)) is not None and not registry.alive(rid)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                c.killed.append(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    for name in _named_namespaces():
        if name in held:
            c.kept[name] = held[name]
            continue
        if subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False).returncode == 0:
            c.removed.append(name)
    return c
