"""Stopping the lab's worker pool (Ctrl-C on `lab run --jobs 2`) prints
nothing after the one-line "interrupted": CPython's executor manager thread
used to print a 12-line InvalidStateError traceback for a future that was
cancelled on purpose (about 2 of 3 stops)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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
