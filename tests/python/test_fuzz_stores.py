"""Fuzzing the lab's result store (issue 22 item 7): random interleavings of
what happens to a store -- runs recorded, a sweep interrupted, a write failing
for want of space, reopening, `lab status`, `lab export`, a table file cut
short or overwritten, the index truncated -- must never end in a traceback or
an internal error (exit 70); every error is one line naming the store (or the
file in it), exit 2; and no recorded run is lost except by damaging it.

CI runs a few examples (the "ci" profile of test_fuzz_scenarios); the long
run is HOPLAB_FUZZ=long (`scripts/fuzz.sh`).
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
import tempfile
from pathlib import Path
from unittest import mock

import pytest

hypothesis = pytest.importorskip("hypothesis")
from click.testing import CliRunner  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoplab import lab  # noqa: E402
from hoplab.cli import cli  # noqa: E402

from .test_fuzz_scenarios import LONG  # noqa: E402,F401 - registers and loads the ci/long profiles

BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 1.0}
DESIGNS = [
    {"name": "a", "base": BASE, "replicas": 3, "factors": {"tcp.max_cwnd": [2, 0]}},  # 6 runs
    {"name": "b", "base": BASE, "replicas": 2, "factors": {"tcp.max_cwnd": [0, 4]}},  # 4, 2 shared with a
]
TABLES = ["flows", "runs", "nodes", "drops"]


class Stop(KeyboardInterrupt):
    """Ctrl-C after some runs (raised from `on_run`, after the run is recorded)."""


OPS = st.one_of(
    st.tuples(st.just("run"), st.sampled_from([0, 1]), st.integers(0, 7)),  # design, runs before Ctrl-C
    st.tuples(st.just("full"), st.sampled_from([0, 1]), st.integers(0, 2)),  # a write failing for space
    st.tuples(st.just("reopen")),
    st.tuples(st.just("status")),
    st.tuples(st.just("export"), st.sampled_from(TABLES)),
    st.tuples(st.just("cut_table"), st.integers(0, 50), st.integers(0, 2000)),  # which file, new length
    st.tuples(st.just("scribble_table"), st.integers(0, 50), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("truncate_db"), st.integers(0, 200_000)),
)


def _runs(store: Path) -> set[str] | None:
    """The recorded runs, or None if the index cannot be read (damaged on purpose)."""
    try:
        with lab.Store(store, readonly=True) as s:
            return set(s.recorded())
    except lab.StoreError:
        return None


def _one_line_error(r, store: Path) -> None:
    assert r.exit_code in (0, 2), (r.exit_code, r.output, r.exception)
    if r.exit_code == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.stderr
        assert str(store) in lines[0], r.stderr


def _run(store: Path, design: dict, stop_after: int) -> None:
    done = []

    def on_run(_out):
        done.append(1)
        if len(done) >= stop_after:
            raise Stop

    try:
        lab.run(design, store, jobs=1, progress=False, on_run=on_run if stop_after else None)
    except Stop:
        pass
    except lab.StoreError as e:
        assert "\n" not in str(e) and str(store) in str(e), str(e)


def _full(store: Path, design: dict, after: int) -> None:
    """A sweep whose table writes find the disk full after ``after`` runs."""
    real, seen = Path.write_bytes, []

    def write_bytes(self, data):
        if "tmp" in self.parts and self.parts[-1] == "nodes.parquet":
            seen.append(1)
            if len(seen) > after:
                raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    with mock.patch.object(Path, "write_bytes", write_bytes):
        try:
            lab.run(design, store, jobs=1, progress=False)
        except lab.StoreError as e:
            assert str(e).startswith(f"{store}: no space left"), str(e)


def _table_files(store: Path) -> list[Path]:
    return sorted((store / "tables").rglob("*.parquet")) if (store / "tables").exists() else []


@given(ops=st.lists(OPS, min_size=1, max_size=8 if not LONG else 20))
def test_store_operations_never_lose_runs_or_crash(ops):
    tmp = Path(tempfile.mkdtemp(prefix="hoplab-fuzz-store-"))
    store = tmp / "store"
    try:
        known: set[str] = set()  # recorded and not damaged since
        for op in ops:
            kind = op[0]
            if kind == "run":
                _run(store, DESIGNS[op[1]], op[2])
            elif kind == "full":
                _full(store, DESIGNS[op[1]], op[2])
            elif kind == "reopen":
                try:
                    lab.Store(store).close()
                except lab.StoreError as e:
                    assert "\n" not in str(e) and str(store) in str(e), str(e)
            elif kind == "status":
                _one_line_error(CliRunner().invoke(cli, ["lab", "status", "--store", str(store)]), store)
            elif kind == "export":
                out = tmp / "out.csv"
                r = CliRunner().invoke(cli, ["lab", "export", "--store", str(store), "--table", op[1], "-o", str(out)])
                _one_line_error(r, store)
            elif kind in ("cut_table", "scribble_table"):
                files = _table_files(store)
                if files:
                    f = files[op[1] % len(files)]
                    known.discard(f.parent.name)  # that run is damaged: it may be simulated again
                    if kind == "cut_table":
                        with open(f, "r+b") as fh:
                            fh.truncate(min(op[2], f.stat().st_size))
                    else:
                        with open(f, "r+b") as fh:
                            fh.seek(op[1] % max(1, f.stat().st_size))
                            fh.write(op[2])
            elif kind == "truncate_db":
                db = store / "store.sqlite"
                if db.exists():
                    with open(db, "r+b") as fh:
                        fh.truncate(min(op[1], db.stat().st_size))
                    known.clear()  # the index itself is gone
            now = _runs(store)
            if now is not None:
                lost = known - now
                assert not lost, f"after {op}: {len(lost)} recorded run(s) lost"
                known |= now
            # No temporary table directory outlives the process that wrote it.
            assert not any((store / "tmp").rglob("*.parquet")), f"after {op}: temporary tables left"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_damaged_index_is_one_line_everywhere(tmp_path):
    """The fixed points of the fuzzer: an index cut short is refused by every
    command with one line naming it, and `lab run` never overwrites it."""
    store = tmp_path / "store"
    lab.run(DESIGNS[0], store, jobs=1, progress=False)
    db = store / "store.sqlite"
    with open(db, "r+b") as fh:
        fh.truncate(5000)
    before = db.read_bytes()
    for args in (["lab", "status", "--store", str(store)],
                 ["lab", "export", "--store", str(store), "-o", str(tmp_path / "x.csv")]):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 2, r.output
        assert r.stderr.strip() == f"hoplab: error: {db}: not a usable store (database disk image is malformed)"
    with pytest.raises(lab.StoreError, match="not a usable store"):
        lab.run(DESIGNS[0], store, jobs=1, progress=False)
    assert db.read_bytes() == before
    with pytest.raises(sqlite3.DatabaseError):  # still the damaged file, for whoever repairs it
        sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()
