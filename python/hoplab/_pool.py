"""Worker processes (the lab's local backend, `lab/execute.py`) that stop
when asked and never outlive their parent.

- Ctrl-C reaches the whole process group. Workers ignore SIGINT; the parent
  gets KeyboardInterrupt, cancels the futures not started and terminates the
  workers (`_stop`), so nothing that remains is computed (finished runs were
  already recorded).
- On Linux each worker asks the kernel for SIGKILL when its parent dies
  (prctl(PR_SET_PDEATHSIG), which also covers a SIGKILL of the parent); a
  daemon thread that polls the parent pid every 0.5 s is the fallback on
  other systems (and if prctl is unavailable).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor
from typing import Any, Sequence

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _quiet_manager_thread() -> None:
    """Silence one known traceback of CPython's executor: when workers are
    terminated, its manager thread marks every pending work item broken with
    `future.set_exception`, and a future we just cancelled raises
    InvalidStateError there (CPython 3.11, concurrent/futures/process.py
    `_ExecutorManagerThread.terminate_broken`), printed as a 12-line
    traceback after the one-line "interrupted". Nothing is lost: the future
    was cancelled on purpose. Any other exception still prints."""
    previous = threading.excepthook
    if getattr(previous, "_hoplab_quiet", False):
        return

    def hook(args: Any) -> None:
        if isinstance(args.exc_value, InvalidStateError) and "ExecutorManager" in type(args.thread).__name__:
            return
        previous(args)

    hook._hoplab_quiet = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def _stop(pool: ProcessPoolExecutor, futures: Sequence[Future]) -> None:
    _quiet_manager_thread()
    for f in futures:
        f.cancel()
    procs = list((getattr(pool, "_processes", None) or {}).values())
    # shutdown() forgets these two
    results = getattr(pool, "_result_queue", None)
    manager = getattr(pool, "_executor_manager_thread", None)
    for p in procs:
        if p.is_alive():
            p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.join(timeout=5)
    _unblock_result_reader(results, procs)
    if manager is not None:
        manager.join(timeout=2)
        if manager.is_alive():
            _stuck.append(manager)


#: Executor manager threads still alive after their pool was stopped: the
#: interpreter's exit would wait for them forever, so the command line ends
#: its process without that wait (`cli._app.main`).
_stuck: list[threading.Thread] = []


def exit_would_hang() -> bool:
    """Whether a stopped pool left a manager thread that the interpreter's
    exit would join forever."""
    return any(t.is_alive() for t in _stuck)


def _unblock_result_reader(results: Any, procs: Sequence[Any]) -> None:
    """A worker terminated while it wrote its result leaves half a message
    in the result pipe. The executor's manager thread then waits in recv()
    for the rest, which never comes, and never sees end-of-file either,
    because this process holds the pipe's write end too; the interpreter's
    exit joins that thread (CPython 3.11 concurrent/futures/process.py,
    wait_result_broken_or_wakeup, _python_exit), so the process printed
    "interrupted" and hung. Once every worker is gone nothing writes there:
    closing our write end turns the wait into EOF, which the manager thread
    takes for a broken pool and ends."""
    writer = getattr(results, "_writer", None)
    if writer is None or any(p.is_alive() for p in procs):
        return
    try:
        writer.close()
    except OSError:
        pass
