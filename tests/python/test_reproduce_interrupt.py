"""Ctrl-C and SIGKILL during `reproduce`: finished runs stay in the log,
nothing that remains is computed, no worker outlives the parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ARGS = ["reproduce", "seed000", "--replicas", "3", "--duration", "400", "--jobs", "2"]


def _start(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    out = tmp_path / "out"
    env = dict(os.environ, MPLCONFIGDIR=str(tmp_path / ".mpl"))
    p = subprocess.Popen([sys.executable, "-m", "hoplab", *ARGS, "--out", str(out)], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, out


def _rows(out: Path) -> int:
    log = out / "runs.csv"
    return max(0, len(log.read_text().splitlines()) - 1) if log.exists() else 0


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _wait_for(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def test_sigint_stops_reproduce_and_keeps_finished_runs(tmp_path):
    p, out = _start(tmp_path)
    assert _wait_for(lambda: _rows(out) >= 1, 240), p.communicate()
    workers = _children(p.pid)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    at_stop = _rows(out)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "hoplab: interrupted"
    assert "Traceback" not in err
    # 3 replicas x (several windows) runs were planned; far fewer were done.
    assert 1 <= at_stop < 10
    assert not any(_alive(w) for w in workers)
    time.sleep(1.0)
    assert _rows(out) == at_stop


def test_sigkill_of_the_parent_leaves_no_worker(tmp_path):
    p, out = _start(tmp_path)
    assert _wait_for(lambda: len(_children(p.pid)) >= 2, 60)
    time.sleep(0.5)
    workers = _children(p.pid)
    p.kill()
    p.wait()
    assert _wait_for(lambda: not any(_alive(w) for w in workers), 5), [w for w in workers if _alive(w)]
    p.communicate()
