"""The resume log of `reproduce` cannot be corrupted by a torn write (issue 10 item 4)."""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from hoplab import runlog
from hoplab._resumable import ReproduceError, run_resumable

COLUMNS = ["label", "hops", "seed", "throughput_kbps", "clamp", "event_hash"]


def _key(row: dict) -> tuple:
    return (int(row["hops"]), int(row["seed"]))


def _row(hops: int, seed: int) -> dict:
    return {"label": f"{hops}-hop", "hops": hops, "seed": seed, "throughput_kbps": 100.0 / hops + seed / 7,
            "clamp": hops % 2 == 0, "event_hash": f"{hops * 1000 + seed:016x}"}


def _log(d: Path, **kw) -> runlog.RunLog:
    return runlog.RunLog(d, COLUMNS, _key, str_columns=("event_hash",), **kw)


@dataclass(frozen=True)
class Task:
    hops: int
    seed: int

    def key(self) -> tuple:
        return (self.hops, self.seed)


def test_rows_come_back_exactly_and_runs_csv_is_their_export(tmp_path):
    log = _log(tmp_path)
    rows = [_row(h, s) for h in (1, 2, 3) for s in (1, 2)]
    rows[2]["throughput_kbps"] = float("nan")
    for r in rows:
        log.add(r)
    back = _log(tmp_path).rows()
    assert [r["hops"] for r in back] == [r["hops"] for r in rows]
    for a, b in zip(back, rows):
        assert a.keys() == b.keys()
        for c in COLUMNS:
            assert type(a[c]) is type(b[c]) and (a[c] == b[c] or math.isnan(a[c]) and math.isnan(b[c]))
    csv = pd.read_csv(tmp_path / "runs.csv", dtype={"event_hash": str})
    assert list(csv.columns) == COLUMNS and len(csv) == 6
    assert list(csv.event_hash) == [r["event_hash"] for r in rows]
    # one row per key: a run recorded twice is kept once
    log.add(_row(1, 1))
    assert len(_log(tmp_path).rows()) == 6


def test_other_columns_are_refused(tmp_path):
    _log(tmp_path).add(_row(1, 1))
    with pytest.raises(runlog.RunLogError, match="runs.sqlite holds runs with other columns; choose another"):
        runlog.RunLog(tmp_path, COLUMNS + ["extra"], _key)


def _write_in_child(d: Path, rows: list[dict]) -> None:
    """Add rows in a forked child that then dies without closing its
    connections, so every commit is still only in the write-ahead log."""
    pid = os.fork()
    if pid == 0:
        try:
            keep = []

            def no_close(con):
                keep.append(con)
                return nullcontext(con)

            runlog.closing = no_close
            log = _log(d)
            con = log._connect()
            keep.append(con)
            con.execute("PRAGMA wal_autocheckpoint=0")  # keep every frame in the WAL
            for r in rows:
                log.add(r)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_torn_write_is_never_reused(tmp_path):
    """Cut the write-ahead log at every point (a write torn by a crash or power
    loss): what opens is always the first n runs whole, never a damaged one, and
    the next resume appends as usual."""
    rows = [_row(h, 1) for h in range(1, 7)]
    src = tmp_path / "src"
    _write_in_child(src, rows)
    wal = (src / "runs.sqlite-wal").read_bytes()
    assert len(wal) > 0
    cuts = sorted(set(range(0, len(wal), 613)) | {len(wal) - 1, len(wal)})
    seen = []
    for cut in cuts:
        d = tmp_path / f"cut{cut}"
        d.mkdir()
        shutil.copy(src / "runs.sqlite", d / "runs.sqlite")
        (d / "runs.sqlite-wal").write_bytes(wal[:cut])
        got = _log(d).rows()
        n = len(got)
        assert got == rows[:n], f"cut at {cut}"
        seen.append(n)
        # later resumes are unaffected
        log = _log(d)
        log.add(_row(9, 9))
        assert _log(d).rows() == rows[:n] + [_row(9, 9)]
        assert len(pd.read_csv(d / "runs.csv")) == n + 1
    assert seen == sorted(seen) and seen[-1] == 6 and seen[0] < 6


def test_a_run_not_committed_is_absent(tmp_path):
    log = _log(tmp_path)
    for h in (1, 2):
        log.add(_row(h, 1))
    pid = os.fork()
    if pid == 0:  # dies inside the transaction of the third run
        try:
            con = sqlite3.connect(tmp_path / "runs.sqlite", isolation_level=None)
            con.execute("BEGIN")
            con.execute("INSERT INTO runs VALUES ('[3, 1]', '{\"hops\": 3', 'x')")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert [r["hops"] for r in _log(tmp_path).rows()] == [1, 2]


def test_a_damaged_row_is_dropped_and_redone(tmp_path):
    log = _log(tmp_path)
    for h in (1, 2, 3):
        log.add(_row(h, 1))
    with sqlite3.connect(tmp_path / "runs.sqlite") as con:
        con.execute("UPDATE runs SET row = replace(row, '\"hops\": 2', '\"hops\": 7')")
    notes = []
    rows = run_resumable([Task(h, 1) for h in (1, 2, 3)], lambda t: _row(t.hops, t.seed), columns=COLUMNS,
                         row_key=_key, out=tmp_path, jobs=1, progress=notes.append, describe=str,
                         str_columns=("event_hash",))
    assert sorted(r["hops"] for r in rows) == [1, 2, 3]
    assert any("1 damaged rows dropped" in n for n in notes) and any("reusing 2" in n for n in notes)


def test_an_interrupted_batch_resumes(tmp_path):
    tasks = [Task(h, s) for h in (1, 2) for s in (1, 2, 3)]
    done = []

    def flaky(t):
        if len(done) == 4:
            raise KeyboardInterrupt
        done.append(t)
        return _row(t.hops, t.seed)

    with pytest.raises(KeyboardInterrupt):
        run_resumable(tasks, flaky, columns=COLUMNS, row_key=_key, out=tmp_path, jobs=1, progress=None,
                      describe=str, str_columns=("event_hash",))
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 4
    notes = []
    ran = []
    rows = run_resumable(tasks, lambda t: ran.append(t) or _row(t.hops, t.seed), columns=COLUMNS, row_key=_key,
                         out=tmp_path, jobs=1, progress=notes.append, describe=str, str_columns=("event_hash",))
    assert len(ran) == 2 and len(rows) == 6 and "reusing 4 finished runs" in notes[0]
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 6


def _old_line(row: dict) -> str:
    return ",".join(str(row[c]) for c in COLUMNS) + "\n"


def test_an_old_runs_csv_is_imported_once_without_its_torn_lines(tmp_path):
    """A runs.csv of an older hoplab: a line torn by a crash, then a resume
    that appended the next row to it, then another torn last line."""
    header = ",".join(COLUMNS) + "\n"
    r = [_row(h, 1) for h in range(1, 7)]
    text = (header + _old_line(r[0]) + _old_line(r[1])
            + _old_line(r[2])[:-9] + _old_line(r[3])  # torn, then the next row glued on
            + _old_line(r[4]) + _old_line(r[5])[:-4])  # a torn last line
    (tmp_path / "runs.csv").write_text(text)
    notes = []
    tasks = [Task(h, 1) for h in range(1, 7)]
    ran = []
    rows = run_resumable(tasks, lambda t: ran.append(t.hops) or _row(t.hops, t.seed), columns=COLUMNS,
                         row_key=_key, out=tmp_path, jobs=1, progress=notes.append, describe=str,
                         str_columns=("event_hash",))
    assert "imported 3 finished runs" in notes[0] and "2 torn or damaged lines dropped" in notes[0]
    assert sorted(ran) == [3, 4, 6]
    assert sorted(x["hops"] for x in rows) == list(range(1, 7))
    assert [x for x in rows if x["hops"] in (1, 2, 5)] == [r[0], r[1], r[4]]
    # the old file is kept; runs.csv is now the export; no second import
    (old,) = (tmp_path / "previous").glob("*/runs.csv")
    assert old.read_text() == text
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 6
    notes.clear()
    run_resumable(tasks, lambda t: pytest.fail("nothing to run"), columns=COLUMNS, row_key=_key, out=tmp_path,
                  jobs=1, progress=notes.append, describe=str, str_columns=("event_hash",))
    assert notes == [f"reusing 6 finished runs from {tmp_path / 'runs.sqlite'}"]


def test_an_old_runs_csv_of_another_experiment_is_refused(tmp_path):
    (tmp_path / "runs.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ReproduceError, match="runs.csv exists with other columns; choose another --out"):
        run_resumable([], lambda t: {}, columns=COLUMNS, row_key=_key, out=tmp_path, jobs=1, progress=None,
                      describe=str)
    # nothing half-made was committed: it refuses again, and starts afresh once the file is moved away
    with pytest.raises(runlog.RunLogError):
        _log(tmp_path)
    (tmp_path / "runs.csv").rename(tmp_path / "other.csv")
    assert _log(tmp_path).rows() == []
