"""The run's watchdog: a small process that outlives `hoplab emu` to end
what the run started when hoplab itself cannot (SIGKILL, the OOM killer, a
crash). PR_SET_PDEATHSIG ends the commands with hoplab, but not their
children that forked away (setsid, a double fork: the death signal is not
inherited through fork, prctl(2)); those would keep the run's fresh
namespace alive. The watchdog holds the read end of a pipe whose only
write end is hoplab's: end of file means hoplab is gone, however it went
(pipe(7)). It then kills every process carrying the run's id (reap.py),
removes the run's pid file (registry.py) and exits. After a normal end hoplab has done that already, and the watchdog's
sweep finds nothing.

    python -m hoplab.emu.watchdog FD RUN_ID
"""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["start"]


def start(rid: str) -> int:
    """Start the watchdog of run `rid`; the write end of its pipe, to keep
    open (non-inheritable, PEP 446: the commands must not hold it) until the
    run's own clean-up is done."""
    r, w = os.pipe()
    try:
        subprocess.Popen([sys.executable, "-m", "hoplab.emu.watchdog", str(r), rid], pass_fds=(r,),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)  # not in hoplab's group: a signal to the group spares it
    finally:
        os.close(r)
    return w


def main(argv: list[str]) -> int:
    fd, rid = int(argv[0]), argv[1]
    while True:
        try:
            if not os.read(fd, 1):  # end of file: hoplab is gone
                break
        except InterruptedError:
            continue
    from .reap import kill_all
    from .registry import run_dir

    kill_all(set(), rid)
    (run_dir() / f"{rid}.json").unlink(missing_ok=True)  # the run is gone: its namespaces are free for cleanup
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
