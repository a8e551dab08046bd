"""Stores in hard places (issue 22 item 3): read-only directories, a full disk,
several `lab run`s at once, and the leftovers of a failed write.

Read-only and full disks are made for real where the tests may: as root, in a
private mount namespace (`unshare -m`) holding a read-only bind mount or a
small tmpfs, so nothing leaks to the host; elsewhere those tests are skipped
and the in-process ones (a write failing with ENOSPC) still cover the errors.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hoplab import lab

HOST = socket.gethostname()

BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 2.0}
TINY = {"name": "tiny", "base": BASE, "replicas": 3, "factors": {"tcp.max_cwnd": [2, 0]}}  # 6 short runs
MORE = {"name": "more", "base": BASE, "replicas": 10, "factors": {"tcp.max_cwnd": [3, 0]}}  # 20


def _design(tmp_path: Path, d: dict) -> Path:
    p = tmp_path / f"{d['name']}.json"
    p.write_text(json.dumps(d))
    return p


def _namespaces_work() -> str | None:
    """None if this process can make a private mount namespace with a tmpfs, else why not."""
    if os.geteuid() != 0:
        return "needs root for a private mount namespace (unshare -m)"
    try:
        r = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unshare not usable: {e}"
    return None if r.returncode == 0 else f"no mount namespace here: {r.stderr.strip()}"


needs_namespace = pytest.mark.skipif(bool(_namespaces_work()), reason=str(_namespaces_work()))


def _in_namespace(script: str) -> subprocess.CompletedProcess:
    """Run a bash script in a private mount namespace; $HOPLAB runs the CLI."""
    env = dict(os.environ, HOPLAB=f"{sys.executable} -m hoplab", PY=sys.executable)
    return subprocess.run(["unshare", "-m", "bash", "-c", "set -u\n" + textwrap.dedent(script)],
                          capture_output=True, text=True, env=env, timeout=600)


def _listing(d: Path) -> list[str]:
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


def _runs(store: Path) -> set[str]:
    db = sqlite3.connect(f"file:{store / 'store.sqlite'}?mode=ro", uri=True)
    try:
        return {k for (k,) in db.execute("SELECT key FROM runs")}
    finally:
        db.close()


# --- 1. read-only stores ------------------------------------------------------

@needs_namespace
def test_status_export_and_load_read_a_store_on_a_read_only_mount(tmp_path):
    store, ro = tmp_path / "store", tmp_path / "ro"
    lab.run(TINY, store, jobs=1, progress=False)
    ro.mkdir()
    before = _listing(store)
    r = _in_namespace(f"""
        mount --bind {store} {ro} && mount -o remount,bind,ro {ro} || exit 99
        touch {ro}/probe 2>/dev/null && {{ echo "mount is writable"; exit 98; }}
        $HOPLAB lab status --store {ro} || exit 1
        $HOPLAB lab export --store {ro} --table nodes -o {tmp_path}/nodes.csv || exit 2
        $PY -c "from hoplab import lab; print('load', len(lab.load('{ro}')))" || exit 3
        $HOPLAB lab run {_design(tmp_path, TINY)} --store {ro} --jobs 1
        echo "run rc=$?"
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[1].split() == ["tiny", "6", "6", "0", "0", "0"], r.stdout
    assert "load 6" in r.stdout and (tmp_path / "nodes.csv").stat().st_size > 0
    # `lab run` needs to write: one line saying so, exit 2.
    assert "run rc=2" in r.stdout
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("hoplab: error:")]
    assert err == [f"hoplab: error: {ro}: cannot write to the store (a read-only place, or no permission); "
                   "`hoplab lab status` and `lab export` can still read it"], r.stderr
    assert _listing(store) == before  # nothing was written into the store


def test_reading_a_store_opens_it_read_only(tmp_path):
    """No write lock is taken to read: status and load work while another
    process holds the store's write lock (the old opening wrote its schema)."""
    store = tmp_path / "store"
    lab.run(TINY, store, jobs=1, progress=False)
    writer = sqlite3.connect(store / "store.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        t0 = time.perf_counter()
        with lab.Store(store, readonly=True) as st:
            assert len(st.recorded()) == 6
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                st.db.execute("DELETE FROM runs")
        assert len(lab.load(store)) == 6
        assert lab.status(store)["done"].tolist() == [6]
        assert time.perf_counter() - t0 < 10  # not waiting out the 60 s busy timeout
    finally:
        writer.execute("ROLLBACK")


# --- 2. concurrent runs share the work ---------------------------------------

def test_claims_lease_and_owner(tmp_path):
    from hoplab.lab.claims import DONE, HELD, TAKEN, Claims

    with lab.Store(tmp_path / "s") as st, Claims(st, lease_s=30) as c:
        assert c.take("a" * 64) == TAKEN and c.take("a" * 64) == TAKEN  # ours already
        now = time.time()
        rows = [("b" * 64, "elsewhere", 1, "1", now + 30),  # another host, lease running: held
                ("c" * 64, "elsewhere", 1, "1", now - 1),  # lease ran out: taken over
                ("d" * 64, HOST, _dead_pid(), "", now + 30)]  # this host, holder dead: taken over
        st.db.executemany("INSERT INTO claims VALUES (?, ?, ?, ?, ?)", rows)
        assert [c.take(k) for k in ("b" * 64, "c" * 64, "d" * 64)] == [HELD, TAKEN, TAKEN]
        st.db.execute("INSERT INTO runs (key, status, seed, engine, scenario, info, tables) "
                      "VALUES (?, 'ok', '1', 'e', '{}', '{}', '{}')", ("e" * 64,))
        assert c.take("e" * 64) == DONE
    with lab.Store(tmp_path / "s") as st:  # released on close, others' kept
        assert st.db.execute("SELECT key FROM claims").fetchall() == [("b" * 64,)]


@pytest.mark.parametrize("cut", ["claims", "store"])
def test_claims_are_released_after_a_transaction_cut_short(tmp_path, cut):
    """A Ctrl-C between a BEGIN and its `with` (in a take(), or in the store's
    record()) leaves a transaction open; the claims still go on close."""
    from hoplab.lab.claims import TAKEN, Claims

    with lab.Store(tmp_path / "s") as st:
        c = Claims(st, lease_s=30)
        assert c.take("a" * 64) == TAKEN and c.take("b" * 64) == TAKEN
        (c.db if cut == "claims" else st.db).execute("BEGIN IMMEDIATE")
        t0 = time.monotonic()
        c.close()
        assert time.monotonic() - t0 < 5  # not the lock's 60 s timeout
        assert st.db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_a_run_waits_for_runs_held_elsewhere_then_takes_over(tmp_path, monkeypatch):
    """Runs claimed by a process on another host are left to it until its lease
    runs out; then they are simulated here. The store equals a plain run's."""
    monkeypatch.setattr("hoplab.lab.claims.POLL_S", 0.05)
    monkeypatch.setattr("hoplab.lab.runner.POLL_S", 0.05)
    ref = tmp_path / "ref"
    lab.run(TINY, ref, jobs=1, progress=False)
    store = tmp_path / "store"
    keys = [r.key for r in lab.Design.from_dict(TINY).expand()]
    with lab.Store(store) as st:
        st.db.executemany("INSERT INTO claims VALUES (?, 'elsewhere', 7, 'x', ?)",
                          [(k, time.time() + 1.5) for k in keys[:2]])
    t0 = time.perf_counter()
    s = lab.run(TINY, store, jobs=1, progress=False)
    assert time.perf_counter() - t0 >= 1.0  # it waited for the lease
    assert (s.ran, s.others) == (6, 0)
    assert lab.Store(store, readonly=True).digest() == lab.Store(ref, readonly=True).digest()


# --- 3. a full disk ------------------------------------------------------------

def test_a_write_failing_for_space_is_one_line_and_loses_nothing(tmp_path, monkeypatch):
    store = tmp_path / "store"
    lab.run(TINY, store, jobs=1, progress=False)
    kept = _runs(store)
    real = Path.write_bytes

    def full(self, data):
        if "tmp" in self.parts:
            real(self, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(lab.StoreError) as e:
        lab.run(MORE, store, jobs=1, progress=False)
    msg = str(e.value)
    assert msg.startswith(f"{store}: no space left on the store's disk (it needs about ") and "\n" not in msg
    assert _runs(store) == kept
    assert not any((store / "tmp").rglob("*.parquet"))  # the failed write's files were removed


@needs_namespace
def test_a_store_on_a_full_disk(tmp_path):
    """The issue's case: a store on a full disk, run again while still full."""
    disk = tmp_path / "disk"
    disk.mkdir()
    tiny, more = _design(tmp_path, TINY), _design(tmp_path, MORE)
    r = _in_namespace(f"""
        mount -t tmpfs -o size=3m tmpfs {disk} || exit 99
        $HOPLAB lab run {tiny} --store {disk}/store --jobs 1 || exit 1
        head -c 100000000 /dev/zero > {disk}/filler 2>/dev/null
        $HOPLAB lab run {more} --store {disk}/store --jobs 1; echo "full rc=$?"
        $HOPLAB lab status --store {disk}/store; echo "status rc=$?"
        # Space for a few runs only: the sweep stops part-way.
        rm {disk}/filler; head -c $(( $(df -B1 --output=avail {disk} | tail -1) - 200000 )) /dev/zero > {disk}/filler
        $HOPLAB lab run {more} --store {disk}/store --jobs 1; echo "part rc=$?"
        $PY -c "import sqlite3; print('recorded', sqlite3.connect('file:{disk}/store/store.sqlite?mode=ro', uri=True).execute('select count(*) from runs').fetchone()[0])"
        ls {disk}/store/tmp
        rm {disk}/filler
        $HOPLAB lab run {more} --store {disk}/store --jobs 1; echo "freed rc=$?"
        $PY -c "from hoplab import lab; print('digest', lab.Store('{disk}/store', readonly=True).digest())"
    """)
    out, err = r.stdout, r.stderr
    assert r.returncode == 0, out + err
    for step in ("full", "part"):
        assert f"{step} rc=2" in out, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 2 and all(
        ln.startswith(f"hoplab: error: {disk}/store: no space left on the store's disk (it needs about ")
        for ln in lines), err
    assert "status rc=0" in out and "tiny     6     6       0        0" in out, out
    recorded = int(out.split("recorded ")[1].split()[0])
    assert 6 < recorded < 26, out  # the first design's runs kept, and some of the second's
    assert "freed rc=0" in out and "more: 20 runs; " in out
    # No run lost or changed: the same store as one run without a full disk.
    ref = tmp_path / "ref"
    lab.run(TINY, ref, jobs=1, progress=False)
    lab.run(MORE, ref, jobs=1, progress=False)
    assert f"digest {lab.Store(ref, readonly=True).digest()}" in out


# --- 4. leftovers of a failed write ----------------------------------------------

def test_a_dead_writers_temporary_tables_are_removed_on_the_next_open(tmp_path):
    store = tmp_path / "store"
    lab.run(TINY, store, jobs=1, progress=False)
    live = subprocess.Popen(["sleep", "60"])
    try:
        dead_dir = store / "tmp" / f"{HOST}.{_dead_pid()}" / ("f" * 64)
        live_dir = store / "tmp" / f"{HOST}.{live.pid}" / ("f" * 64)
        other_host = store / "tmp" / f"elsewhere.{_dead_pid()}" / ("f" * 64)
        for d in (dead_dir, live_dir, other_host):
            d.mkdir(parents=True)
            (d / "nodes.parquet").write_bytes(b"x" * 1000)
        lab.status(store)  # reading changes nothing
        assert dead_dir.exists()
        lab.Store(store).close()
        assert not dead_dir.parent.exists()
        assert live_dir.exists() and other_host.exists()  # maybe still being written
    finally:
        live.kill()
        live.wait()
