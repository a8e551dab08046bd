"""Which `hoplab emu` runs are alive, for `hoplab emu cleanup` and for the
clean-up at a run's end.

Each live run writes a pid file, `RUN_DIR/<run id>.json` (its pid, output
directory and the named namespaces it uses), and removes it when it ends; a
run killed with SIGKILL leaves it behind. A run id is `PID-START`, START the
process' start time (proc(5), /proc/PID/stat field 22), so a pid the kernel
has since given to another process does not pass for the run. Every command
of a run carries the id in its environment (`HOPLAB_EMU_RUN`), and so does
whatever it starts, detached or not: that is how `cleanup` finds what a
killed run left running.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ENV", "Registration", "alive", "entries", "run_dir", "run_id", "start_time"]

#: The environment variable that marks a run's commands and their children.
ENV = "HOPLAB_EMU_RUN"


def run_dir() -> Path:
    """Where live runs leave their pid files: $HOPLAB_EMU_RUN_DIR, else
    /run/hoplab-emu for root (a tmpfs, emptied at boot: no stale files
    survive a reboot), else a directory of this user's in the temporary one."""
    env = os.environ.get("HOPLAB_EMU_RUN_DIR")
    if env:
        return Path(env)
    if os.geteuid() == 0 and os.path.isdir("/run"):
        return Path("/run/hoplab-emu")
    return Path(tempfile.gettempdir()) / f"hoplab-emu-{os.geteuid()}"


def start_time(pid: int) -> int | None:
    """The process' start time in clock ticks since boot (proc(5): field 22
    of /proc/PID/stat, read after the command name, which may hold spaces
    and parentheses); None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    try:
        return int(stat[stat.rindex(b")") + 2:].split()[19])
    except (ValueError, IndexError):
        return None


def run_id(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{start_time(pid)}"


def alive(rid: str) -> bool:
    """Whether the run with id `rid` (PID-START) is still running."""
    pid, _, start = rid.partition("-")
    if not pid.isdigit():
        return False
    return str(start_time(int(pid))) == start


def entries() -> list[tuple[Path, dict[str, Any] | None]]:
    """Every pid file: (path, its content, or None when it cannot be read)."""
    d = run_dir()
    out: list[tuple[Path, dict[str, Any] | None]] = []
    for p in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            data = json.loads(p.read_text())
            out.append((p, data if isinstance(data, dict) else None))
        except (OSError, ValueError):
            out.append((p, None))
    return out


class Registration:
    """This process' pid file, for the length of a `with` block."""

    def __init__(self, out: Path, namespaces: list[str]) -> None:
        self.id = run_id()
        self.path = run_dir() / f"{self.id}.json"
        self.data = {"id": self.id, "pid": os.getpid(), "out": str(Path(out).resolve()),
                     "namespaces": [n for n in namespaces if n]}

    def __enter__(self) -> Registration:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data) + "\n")
        os.replace(tmp, self.path)  # whole or absent: `cleanup` never reads half a file
        return self

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)
