"""Stopping the lab's worker pool (Ctrl-C on `lab run --jobs 2`) prints
nothing after the one-line "interrupted" and lets the process exit:
CPython's executor manager thread used to print a 12-line InvalidStateError
traceback for a future that was cancelled on purpose (about 2 of 3 stops),
and to hang the exit when a worker was terminated halfway through writing
its result (about 1 stop in 20; seen in CI as test_lab_resume's timeout)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent("""
    import os, time
    from concurrent.futures import ProcessPoolExecutor
    from hoplab import _pool

    def work(x):
        time.sleep(2)
        return x

    if __name__ == "__main__":
        for _ in range(6):
            pool = ProcessPoolExecutor(2, initializer=_pool._init_worker, initargs=(os.getpid(),))
            futures = [pool.submit(work, i) for i in range(8)]  # 2 running, 6 pending
            time.sleep(0.3)
            _pool._stop(pool, futures)
            time.sleep(0.3)  # the manager thread fails the pending items here
        print("stopped 6 times")
""")


def test_stopping_the_pool_prints_no_traceback(tmp_path: Path):
    script = tmp_path / "stop.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "stopped 6 times"
    assert "Traceback" not in r.stderr and "InvalidStateError" not in r.stderr, r.stderr


# A worker terminated while it wrote its result, made deterministic: half a
# message (a length header promising 100 bytes, then 10) written into the
# result pipe as a dying worker would leave it. The manager thread blocks in
# recv() for the rest; the interpreter's exit joins it.
HALF_WRITTEN = textwrap.dedent("""
    import os, struct, time
    from concurrent.futures import ProcessPoolExecutor
    from hoplab import _pool

    def work(x):
        return x

    if __name__ == "__main__":
        pool = ProcessPoolExecutor(2, initializer=_pool._init_worker, initargs=(os.getpid(),))
        assert pool.submit(work, 1).result() == 1  # workers and manager thread up
        os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 100) + b"x" * 10)
        time.sleep(0.3)  # the manager thread is now in recv()
        if os.environ.get("HOLD_WRITER"):  # as if another process held the pipe's write end
            os.dup(pool._result_queue._writer.fileno())
        _pool._stop(pool, [])
        print("stopped", _pool.exit_would_hang(), flush=True)
        if _pool.exit_would_hang():
            os._exit(0)  # what the command line does (cli/_app.py main)
""")


def test_a_result_half_written_by_a_terminated_worker_does_not_hang_the_exit(tmp_path: Path):
    script = tmp_path / "half.py"
    script.write_text(HALF_WRITTEN)
    try:
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung at exit after the pool was stopped")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "stopped False"
    assert "Traceback" not in r.stderr, r.stderr


def test_a_manager_thread_that_stays_stuck_is_known(tmp_path: Path):
    # If the half message never ends (the write end held elsewhere), the pool
    # says so, and the command line leaves without the exit's join.
    script = tmp_path / "half.py"
    script.write_text(HALF_WRITTEN)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "HOLD_WRITER": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "stopped True"
