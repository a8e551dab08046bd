"""A killed sweep resumes to exactly the store of an uninterrupted one, and
several processes can write one store (issue 11 "done when")."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from hoplab import lab

BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 20.0}
DESIGN = {
    "name": "resume",
    "base": BASE,
    "replicas": 3,
    "order": "randomised",
    "order_seed": 5,
    "factors": {
        "tcp.max_cwnd": [2, 0],
        "hops": {str(h): {"topology.nodes": h + 1, "flows[0].dst": h} for h in (1, 2, 3, 4)},
    },
}  # 24 runs of 0.1-0.5 s each: about 8 s with 2 processes


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    t0 = time.perf_counter()
    lab.run(DESIGN, d / "store", jobs=1, progress=False)
    return lab.Store(d / "store").digest(), time.perf_counter() - t0


def _design_file(tmp_path):
    p = tmp_path / "design.json"
    p.write_text(json.dumps(DESIGN))
    return p


def _start(design, store, jobs=2):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "hoplab", "lab", "run", str(design), "--store", str(store),
                             "--jobs", str(jobs), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait_for_progress(store, before, p):
    """Until the sweep has recorded a run (or ended)."""
    deadline = time.time() + 60
    while _recorded(store) <= before and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)


def _recorded(store):
    if not (store / "store.sqlite").exists():
        return 0
    try:
        db = sqlite3.connect(store / "store.sqlite", timeout=30)
        return db.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_and_resumed_sweeps_equal_an_uninterrupted_one(tmp_path, reference):
    digest, serial_s = reference
    design = _design_file(tmp_path)
    rng = random.Random(11)
    total_kills = 0
    for trial in range(3):
        store = tmp_path / f"s{trial}"
        kills = 0
        # Kill at random moments (SIGKILL, or Ctrl-C's SIGINT) until a run completes.
        for attempt in range(12):
            before = _recorded(store)
            p = _start(design, store)
            # Kill once the sweep has started (a Ctrl-C while Python is still
            # importing is Python's own traceback); two workers need about
            # half the serial time.
            _wait_for_progress(store, before, p)
            # ... and before it ends: a resumed sweep has only what is left to do.
            left = max(1, 24 - _recorded(store)) / 24
            time.sleep(rng.uniform(0.0, serial_s / 2 * left))
            if p.poll() is None:
                sig = signal.SIGKILL if (trial + attempt) % 2 == 0 else signal.SIGINT
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
                kills += 1
                if sig == signal.SIGINT and p.returncode != 0:  # 0: it had just finished
                    assert p.returncode == 130, err
                    assert err.strip().splitlines()[-1] == "hoplab: interrupted", err
            else:
                out, err = p.communicate()
                assert p.returncode == 0, err
                break
        p = _start(design, store)  # finish whatever is left
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        total_kills += kills
        assert lab.Store(store).digest() == digest, f"trial {trial}: {out} {err}"
        assert _recorded(store) == 24
    assert total_kills >= 3


def test_workers_do_not_outlive_a_killed_sweep(tmp_path):
    design = _design_file(tmp_path)
    p = _start(design, tmp_path / "s")
    time.sleep(1.5)
    children = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
    p.kill()
    p.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{c}") for c in children):
        time.sleep(0.1)
    alive = [c for c in children if os.path.exists(f"/proc/{c}")
             and "Z" not in open(f"/proc/{c}/stat").read().split()[2]]
    assert not alive


def _ran(out):
    """(runs simulated, runs left to another process) from `lab run`'s summary line."""
    m = re.search(r"(\d+) run now \(\d+ failed\)(?:; (\d+) run by another process)?", out)
    assert m, out
    return int(m[1]), int(m[2] or 0)


def test_two_processes_writing_one_store_share_the_work(tmp_path, reference):
    design = _design_file(tmp_path)
    store = tmp_path / "shared"
    a = _start(design, store, jobs=1)
    _wait_for_progress(store, 0, a)  # a second `lab run` joining one under way
    b = _start(design, store, jobs=1)
    ran = []
    for p in (a, b):
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        ran.append(_ran(out)[0])
    # Each simulated a part, none twice (issue 22: both used to simulate all 24).
    assert sum(ran) == 24 and min(ran) > 0, ran
    assert lab.Store(store).digest() == reference[0]
    db = sqlite3.connect(store / "store.sqlite")
    assert db.execute("SELECT count(*), count(DISTINCT key) FROM runs").fetchone() == (24, 24)
    assert db.execute("SELECT count(*) FROM claims").fetchone() == (0,)


def test_a_killed_claimers_runs_are_taken_over_at_once(tmp_path, reference):
    design = _design_file(tmp_path)
    store = tmp_path / "s"
    p = _start(design, store, jobs=2)
    _wait_for_progress(store, 0, p)
    p.kill()  # no time to release its claims
    p.communicate(timeout=60)
    db = sqlite3.connect(store / "store.sqlite")
    held = {k for (k,) in db.execute("SELECT key FROM claims WHERE pid = ?", (p.pid,))}
    assert held, "the killed run held no claims"
    left = 24 - _recorded(store)
    t0 = time.perf_counter()
    s = lab.run(DESIGN, store, jobs=1, progress=False)
    # Not waiting out the 60 s lease: the holder is known dead (same host).
    assert time.perf_counter() - t0 < reference[1] + 20
    assert (s.ran, s.others) == (left, 0)
    assert lab.Store(store).digest() == reference[0]
