"""The resume log of a batch of runs (`reproduce --out DIR`): ``DIR/runs.sqlite``.

Each finished run is one SQLite transaction (WAL journal, ``synchronous=FULL``)
inserting one row, keyed by the run's key. SQLite's journal makes a commit all
or nothing: a run being written when the process dies, the power fails or the
disk fills is simply absent on the next open (and is run again); it never
comes back as a torn row, and later resumes are unaffected. Each row also
carries the SHA-256 of its JSON, so a row damaged in any other way is dropped
(and redone) rather than reused.

``DIR/runs.csv`` stays as the human-readable table of the same rows, exported
from the database (atomically, `_io.atomic_write_bytes`) after every finished
run; it is never read back, except once to import a log written by a hoplab
before this one (see `_import_csv`).
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from . import _io
from .manifest import check_writable

__all__ = ["RunLog", "RunLogError", "DB_NAME", "CSV_NAME"]

DB_NAME = "runs.sqlite"
CSV_NAME = "runs.csv"
SCHEMA_VERSION = 1


class RunLogError(RuntimeError):
    """The log cannot be used: another experiment's columns, or an unusable database."""


def _json(row: dict[str, Any]) -> str:
    def plain(v: Any) -> Any:  # numpy scalars
        if hasattr(v, "item"):
            return v.item()
        raise TypeError(f"cannot store {type(v).__name__} in the run log")

    return json.dumps(row, sort_keys=True, default=plain)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _key_text(key: Hashable) -> str:
    return json.dumps(list(key) if isinstance(key, tuple) else key)


class RunLog:
    """The finished runs of ``out`` for one set of ``columns``.

    Opening creates the database, or imports an old ``runs.csv`` once (keyed by
    ``row_key``); it raises `RunLogError` if the log holds rows with other columns.
    """

    def __init__(self, out: Path, columns: Sequence[str], row_key: Callable[[dict[str, Any]], Hashable], *,
                 str_columns: Sequence[str] = (), progress: Callable[[str], None] | None = None) -> None:
        self.out = Path(out)
        self.path = self.out / DB_NAME
        self.csv_path = self.out / CSV_NAME
        self.columns = list(columns)
        self.row_key = row_key
        self.str_columns = set(str_columns)
        self.progress = progress
        check_writable(self.out)  # an OSError naming the directory, before any run
        self.out.mkdir(parents=True, exist_ok=True)
        try:
            self._open()
        except sqlite3.DatabaseError as e:
            raise RunLogError(f"{self.path}: {e}; move it away to start afresh") from None

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")  # a commit is on disk before we go on
        return con

    def _open(self) -> None:
        with closing(self._connect()) as con:
            con.execute("BEGIN IMMEDIATE")
            con.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            con.execute("CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, row TEXT NOT NULL, "
                        "sha256 TEXT NOT NULL)")
            meta = dict(con.execute("SELECT name, value FROM meta").fetchall())
            if "columns" not in meta:
                # A new log, in the same transaction as the import of an old
                # runs.csv: a crash here leaves no half-imported log.
                imported = self._import_csv(con) if self.csv_path.exists() else None
                con.executemany("INSERT INTO meta VALUES (?, ?)",
                                [("schema", str(SCHEMA_VERSION)), ("columns", json.dumps(self.columns))])
                con.execute("COMMIT")
                self._load(con)
                if imported is not None:
                    _io._keep_previous(self.csv_path, None, _io._stamp())  # the old file, as it was
                self.export()
                return
            con.execute("COMMIT")
            if int(meta.get("schema", 0)) > SCHEMA_VERSION:
                raise RunLogError(f"{self.path}: written by a newer hoplab; upgrade or choose another --out")
            if json.loads(meta["columns"]) != self.columns:
                raise RunLogError(f"{self.path} holds runs with other columns; choose another --out")
            self._load(con)
        self.export()  # in case a kill came between a run's commit and its export

    def _load(self, con: sqlite3.Connection) -> None:
        """Read the finished runs once; later exports render from this copy."""
        self._rows: dict[str, dict[str, Any]] = {}
        self._lines: dict[str, str] = {}
        bad = 0
        for key, text, digest in con.execute("SELECT key, row, sha256 FROM runs ORDER BY rowid"):
            if _digest(text) != digest:
                bad += 1
                continue
            self._keep(key, json.loads(text))
        if bad and self.progress:
            self.progress(f"{self.path}: {bad} damaged rows dropped; those runs are done again")

    def _keep(self, key: str, row: dict[str, Any]) -> None:
        self._rows.pop(key, None)
        self._lines.pop(key, None)
        self._rows[key] = row
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([row.get(c, "") for c in self.columns])
        self._lines[key] = buf.getvalue()

    def rows(self) -> list[dict[str, Any]]:
        """Every finished run, in the order they finished."""
        return list(self._rows.values())

    def add(self, row: dict[str, Any]) -> None:
        """Record one finished run (one transaction), then refresh runs.csv."""
        try:
            with closing(self._connect()) as con:
                key = self._insert(con, row)
        except sqlite3.Error as e:  # disk full, I/O error: reported like any OSError
            raise OSError(errno.EIO, f"cannot record a finished run ({e})", str(self.path)) from None
        self._keep(key, json.loads(_json(row)))  # as a resume will read it back
        self.export()

    def _insert(self, con: sqlite3.Connection, row: dict[str, Any]) -> str:
        text = _json(row)
        key = _key_text(self.row_key(row))
        con.execute("INSERT OR REPLACE INTO runs (key, row, sha256) VALUES (?, ?, ?)", (key, text, _digest(text)))
        return key

    def export(self) -> None:
        """Write runs.csv from the committed rows, atomically."""
        header = io.StringIO()
        csv.writer(header, lineterminator="\n").writerow(self.columns)
        data = header.getvalue() + "".join(self._lines.values())
        # runs.csv is derived from the database: replace it without a copy
        _io.atomic_write_bytes(self.csv_path, data.encode(), keep_previous=False)

    # ------------------------------------------------------------ old logs
    def _import_csv(self, con: sqlite3.Connection) -> int | None:
        """Import the runs.csv of a hoplab before this log, once.

        That file was appended line by line, so a crash could leave a torn last
        line, and a resume then appended the next row to it. Only lines that
        end with a newline, have one field per column and values of their
        column's type are imported; the rest is reported and run again. (One
        case cannot be told apart: a line torn inside its first field, the
        label, and completed by the next row; that row's key and numbers are
        then whole and only its label is garbled.) The old file is kept in
        ``previous/<time>/runs.csv``.
        """
        text = self.csv_path.read_bytes().decode("utf-8", errors="replace")
        if not text.strip():
            return 0
        lines = text.split("\n")
        torn_tail = lines.pop() != ""  # no newline after the last line: torn
        if lines[0] != ",".join(self.columns):
            raise RunLogError(f"{self.csv_path} exists with other columns; choose another --out")
        parsed = [r for r in csv.reader(lines[1:])]
        rows = [self._typed(r) if len(r) == len(self.columns) else None for r in parsed]
        kinds = {c: _majority([type(r[c]) for r in rows if r is not None]) for c in self.columns}
        good = []
        for r in rows:
            if r is None or any(type(r[c]) is not kinds[c] for c in self.columns):
                continue
            try:
                self._insert(con, r)
            except (KeyError, TypeError, ValueError):  # a value the key cannot be made of
                continue
            good.append(r)
        dropped = len(rows) - len(good) + int(torn_tail)
        if self.progress and rows:
            self.progress(f"imported {len(good)} finished runs from {self.csv_path} into {self.path}"
                          + (f"; {dropped} torn or damaged lines dropped (those runs are done again)"
                             if dropped else ""))
        return len(good)

    def _typed(self, fields: list[str]) -> dict[str, Any]:
        return {c: (v if c in self.str_columns else _parse(v)) for c, v in zip(self.columns, fields)}


def _parse(v: str) -> Any:
    """A CSV field as the Python value `csv.writer` wrote it from."""
    if v in ("True", "False"):
        return v == "True"
    try:
        return int(v)
    except ValueError:
        pass
    try:
        f = float(v)
    except ValueError:
        return v
    # str(float) always has a '.', an 'e', "nan" or "inf"; a bare "12" is an int
    return f if (not math.isfinite(f) or any(ch in v for ch in ".eE")) else v


def _majority(kinds: list[type]) -> type | None:
    if not kinds:
        return None
    return max(set(kinds), key=kinds.count)
