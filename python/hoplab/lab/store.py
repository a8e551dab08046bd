"""The lab's result store: a directory with an SQLite index and Parquet tables.

    STORE/store.sqlite                  index (WAL): runs, their flows, designs, claims
    STORE/tables/<k[:2]>/<key>/<t>.parquet   the other tables of each run
    STORE/tmp/<host>.<pid>/<key>/       tables being written (renamed into tables/)

A run is identified by its key (`design.run_key`: the resolved scenario, the
seed and the engine version), so a run shared by two designs, or asked for
twice, is simulated once. Recording is atomic: the tables are written into a
temporary directory and renamed to the run's directory, then the run's rows
are inserted in one transaction, all under SQLite's write lock (``BEGIN
IMMEDIATE``), which also serialises several processes writing to one store.
Until that transaction commits the run does not exist: a kill at any moment
leaves the store as it was (an orphaned table directory is replaced when the
run is recorded again; the temporary directory of a dead writer is removed
when the store is next opened for writing), and a second writer that finished
the same run later finds it recorded and discards its copy. Writers share the
work through claims (`claims`). A write that fails for want of space is
rolled back and reported as one line naming the store and the space needed.
`status`, `export` and `load` open the store read-only (`readonly=True`), so
a store in a read-only directory or mount can be read. SQLite's locking needs a local file
system (not NFS): with Dask, workers return results to the one process that
writes.

Wall-clock facts (duration, host, time of recording) are kept apart from
what the simulation determines; `digest` hashes only the latter, so the same
design run with 1 or 2 processes, or on a cluster, gives the same digest.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import socket
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

if TYPE_CHECKING:  # pandas is imported where a table is built
    import pandas as pd

from ..manifest import _sha256
from ..result import event_hash_text
from .._schema import SCHEMA, TABLES
from .owner import Owner, alive, me
from .space import SQL_MARGIN, full_text, is_full

__all__ = ["Store", "StoreError", "StoreMigrationWarning", "STORE_FILE"]

STORE_FILE = "store.sqlite"
FORMAT_VERSION = 1
# Tables kept per run besides flows (which live in SQLite); the frame trace
# only when the scenario asked for it (`[output] trace = true`).
RUN_TABLES = tuple(t for t in TABLES if t != "flows")

_SQL_TYPE = {"int64": "INTEGER", "float64": "REAL", "bool": "INTEGER", str: "TEXT"}
FLOW_COLUMNS = list(SCHEMA["flows"])

_SCHEMA_SQL = f"""
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    seed TEXT NOT NULL,
    engine TEXT NOT NULL,
    scenario TEXT NOT NULL,
    error TEXT,
    events INTEGER,
    event_hash TEXT,
    info TEXT NOT NULL,
    tables TEXT NOT NULL,
    wall_s REAL,
    host TEXT,
    recorded_at TEXT
);
CREATE TABLE IF NOT EXISTS flows (
    key TEXT NOT NULL REFERENCES runs(key),
    {", ".join(f'"{c}" {_SQL_TYPE[t]}' for c, t in SCHEMA["flows"].items())},
    PRIMARY KEY (key, flow)
);
CREATE TABLE IF NOT EXISTS designs (name TEXT PRIMARY KEY, design TEXT NOT NULL, factors TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS design_runs (
    design TEXT NOT NULL REFERENCES designs(name),
    idx INTEGER NOT NULL,
    key TEXT NOT NULL,
    cell INTEGER NOT NULL,
    factors TEXT NOT NULL,
    replica INTEGER NOT NULL,
    seed TEXT NOT NULL,
    PRIMARY KEY (design, idx)
);
CREATE INDEX IF NOT EXISTS design_runs_key ON design_runs(key);
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    expires REAL NOT NULL
);
"""


class StoreError(RuntimeError):
    """A store that cannot be opened or read (names the path)."""


class StoreMigrationWarning(UserWarning):
    """Runs in a store were recorded by an older hoplab and lack columns the
    engine now declares (they read as NaN); the message names them."""


def parquet_bytes(df: pd.DataFrame) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    # No pandas metadata: its index/version notes would make equal tables
    # written by different pandas versions differ byte for byte.
    table = pa.Table.from_pandas(df.reset_index(drop=True), preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def _sql_value(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, float) and v != v:
        return None  # NaN is stored as NULL and read back as NaN
    if hasattr(v, "item"):  # numpy scalars
        v = v.item()
        if isinstance(v, float) and v != v:
            return None
    if isinstance(v, bool):
        return int(v)
    return v


# Primary SQLite result codes (sqlite.org/rescode.html); extended codes add bits above 0xFF.
_READONLY, _IOERR, _CANTOPEN = 8, 10, 14


def _cannot_write(e: sqlite3.Error) -> bool:
    return getattr(e, "sqlite_errorcode", 0) & 0xFF in (_READONLY, _CANTOPEN)


class Store:
    """An open store (created if missing). Use as a context manager or call
    `close`. Every method is safe with other processes writing the same store."""

    def __init__(self, directory: str | os.PathLike[str], *, create: bool = True, readonly: bool = False) -> None:
        """``readonly``: only read (never creates, changes or cleans anything), so
        a store in a read-only directory, mount or archive can be read."""
        self.dir = Path(directory)
        self.path = self.dir / STORE_FILE
        self.readonly = readonly
        if not self.path.exists():
            if not create or readonly:
                raise StoreError(f"{self.dir}: not a hoplab store (no {STORE_FILE})")
            if self.dir.exists() and not self.dir.is_dir():
                raise StoreError(f"{self.dir}: not a directory")
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                if is_full(e, self.dir.parent if not self.dir.exists() else self.dir):
                    raise StoreError(full_text(self.dir, SQL_MARGIN)) from None
                raise StoreError(f"{self.dir}: cannot create the store ({e.strerror or e})") from None
        try:
            if readonly:
                self.db = self._open_readonly()
                return
            self.db = self.connect()
            with self._full(SQL_MARGIN):
                self._open_for_writing()
        except sqlite3.DatabaseError as e:
            if not readonly and _cannot_write(e):
                raise StoreError(f"{self.dir}: cannot write to the store (a read-only place, or no permission); "
                                 "`hoplab lab status` and `lab export` can still read it") from None
            raise StoreError(f"{self.path}: not a usable store ({e})") from None
        self._remove_dead_tmp()

    def connect(self, **kw: Any) -> sqlite3.Connection:
        """A new read-write connection to the index (transactions explicit)."""
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE).
        return sqlite3.connect(self.path, timeout=60.0, isolation_level=None, **kw)

    def _open_for_writing(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit survives a power cut too (NORMAL only a process kill); it costs an
        # fsync per run, milliseconds against a run's tenths of a second.
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self._write():
            for stmt in filter(str.strip, _SCHEMA_SQL.split(";")):
                self.db.execute(stmt)
            row = self.db.execute("SELECT value FROM meta WHERE name='format'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT_VERSION),))
            elif row[0] != str(FORMAT_VERSION):
                raise StoreError(f"{self.path}: store format {row[0]}, this hoplab reads {FORMAT_VERSION}")
            # Flows columns appended since the store was made (a NULL in old rows).
            have = {r[1] for r in self.db.execute("PRAGMA table_info(flows)")}
            for c, t in SCHEMA["flows"].items():
                if c not in have:
                    self.db.execute(f'ALTER TABLE flows ADD COLUMN "{c}" {_SQL_TYPE[t]}')

    def _open_readonly(self) -> sqlite3.Connection:
        uri = self.path.resolve().as_uri()  # percent-encoded, as SQLite URIs want
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=60.0, isolation_level=None)
            self._check_format(db)
            return db
        except sqlite3.OperationalError as e:
            if (getattr(e, "sqlite_errorcode", 0) & 0xFF) not in (_CANTOPEN, _IOERR):
                raise
        # A WAL-mode reader needs the -shm index file, which SQLite cannot
        # create in a read-only directory (sqlite.org/wal.html#readonly) nor
        # grow on a full disk. Nobody writes there then, so read the file as
        # immutable (no locks, no -shm) -- unless a -wal file holds writes not
        # yet copied into it, which an immutable reader would miss.
        wal = self.path.with_name(STORE_FILE + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(f"{wal}: unfinished writes SQLite cannot read here (a read-only place or a full "
                             "disk: it must write store.sqlite-shm); copy the store to a writable disk to read it")
        db = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
        self._check_format(db)
        return db

    def _check_format(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE name='format'").fetchone()
        if row is None or row[0] != str(FORMAT_VERSION):
            raise StoreError(f"{self.path}: store format {row[0] if row else 'unknown'}, "
                             f"this hoplab reads {FORMAT_VERSION}")

    @contextmanager
    def _full(self, need: int) -> Iterator[None]:
        """A write that finds the disk full: the one-line error naming the store
        and about the space it needed (the transaction is rolled back)."""
        try:
            yield
        except (OSError, sqlite3.Error) as e:
            if is_full(e, self.dir):
                raise StoreError(full_text(self.dir, need)) from None
            raise

    def _tmp_root(self) -> Path:
        return self.dir / "tmp"

    def _remove_dead_tmp(self) -> None:
        """Remove the temporary table directories of writers that died (a
        kill, a full disk) before renaming them into place."""
        try:
            entries = list(os.scandir(self._tmp_root()))
        except OSError:
            return
        for e in entries:
            host, _, pid = e.name.rpartition(".")
            if not pid.isdigit() or alive(Owner(host, int(pid), "")) is not False:
                continue  # a live writer's, or another host's (it may be writing)
            shutil.rmtree(e.path, ignore_errors=True)

    # --- plumbing ------------------------------------------------------
    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            if exc_type is None:
                try:
                    self.db.execute("COMMIT")
                    return
                except sqlite3.Error:
                    self._rollback()  # e.g. a full disk at commit: leave no transaction open
                    raise
            self._rollback()

        def _rollback(self) -> None:
            if self.db.in_transaction:  # SQLite may have rolled back already (SQLITE_FULL)
                self.db.execute("ROLLBACK")

    def _write(self) -> "Store._Tx":
        return Store._Tx(self.db)

    def close(self) -> None:
        self.db.close()
        if not self.readonly:
            owner = me()
            try:  # this writer's temporary directory, empty once its tables were renamed in
                os.rmdir(self._tmp_root() / f"{owner.host}.{owner.pid}")
            except OSError:
                pass

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def lacking(self) -> dict[str, int]:
        """{flows column: runs without it}: runs recorded by an older hoplab,
        before the engine declared the column (it reads back as NaN). Only
        integer and boolean columns can tell: the engine never leaves them
        empty, while a float column may be NaN by right."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(flows)")}
        cols = [c for c, t in SCHEMA["flows"].items() if t in ("int64", "bool")]
        # One scan of the table for every column; a column the table lacks
        # altogether (a store opened read-only, not migrated) is lacked by every run.
        counts = self.db.execute("SELECT " + ", ".join(
            f'COUNT(DISTINCT CASE WHEN "{c}" IS NULL THEN key END)' if c in have else "COUNT(DISTINCT key)"
            for c in cols) + " FROM flows").fetchone()
        return {c: n for c, n in zip(cols, counts) if n}

    def run_dir(self, key: str) -> Path:
        return self.dir / "tables" / key[:2] / key

    # --- designs -------------------------------------------------------
    def register_design(self, design: Any) -> None:
        """Record the design and its runs (index, key, cell, replica, seed),
        replacing an earlier design of the same name; runs are not touched."""
        runs = design.expand()
        rows = [(design.name, r.index, r.key, r.cell_index, json.dumps(r.cell, sort_keys=True), r.replica, str(r.seed))
                for r in runs]
        need = SQL_MARGIN + 2 * sum(len(r[4]) + len(r[2]) + len(r[6]) + 64 for r in rows)  # rows and index
        with self._full(need), self._write() as db:
            db.execute("DELETE FROM design_runs WHERE design = ?", (design.name,))
            db.execute("INSERT OR REPLACE INTO designs VALUES (?, ?, ?)",
                       (design.name, json.dumps(design.to_dict(), sort_keys=True), json.dumps(design.factor_names)))
            db.executemany("INSERT INTO design_runs VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def designs(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM designs ORDER BY name")]

    def design_factors(self, name: str) -> list[str]:
        row = self.db.execute("SELECT factors FROM designs WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise StoreError(f"{self.dir}: no design named {name!r} (designs: {', '.join(self.designs()) or 'none'})")
        return json.loads(row[0])

    # --- runs ----------------------------------------------------------
    def recorded(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """{key: status} of the recorded runs (of ``keys`` if given)."""
        rows = self.db.execute("SELECT key, status FROM runs").fetchall()
        got = dict(rows)
        if keys is None:
            return got
        return {k: got[k] for k in keys if k in got}

    def record(self, outcome: Mapping[str, Any]) -> bool:
        """Record one finished run (an `execute.run_payload` outcome); False
        if the store already had it (then nothing changes)."""
        key = outcome["key"]
        blobs: dict[str, bytes] = outcome.get("tables") or {}  # Parquet bytes per table (`parquet_bytes`)
        flows = outcome.get("flows")
        # Its tables, and its flows' rows in the index (about 16 bytes a value).
        need = sum(map(len, blobs.values())) + SQL_MARGIN + (0 if flows is None else flows.size * 16)
        with self._full(need), self._write() as db:
            if db.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone():
                db.execute("DELETE FROM claims WHERE key = ?", (key,))
                return False
            listing = self._write_tables(key, blobs, outcome.get("rows") or {})
            info = dict(outcome.get("info") or {})
            wall = info.pop("wall_s", None)
            for k in ("hoplab_version", "git_commit"):
                info.pop(k, None)  # the engine column says it
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
                key, outcome["status"], str(outcome["seed"]), outcome["engine"], outcome["scenario"],
                outcome.get("error"), info.get("events"),
                None if info.get("event_hash") is None else event_hash_text(info["event_hash"]),
                json.dumps(info, sort_keys=True, default=str), json.dumps(listing, sort_keys=True),
                wall if wall is not None else outcome.get("wall_s"), socket.gethostname(),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
            db.execute("DELETE FROM claims WHERE key = ?", (key,))  # done: nobody need hold it
            if flows is not None and len(flows):
                cols = [c for c in FLOW_COLUMNS if c in flows.columns]
                sql = (f"INSERT INTO flows (key, {', '.join(f'{chr(34)}{c}{chr(34)}' for c in cols)}) "
                       f"VALUES (?, {', '.join('?' for _ in cols)})")
                db.executemany(sql, [(key, *(_sql_value(v) for v in row))
                                     for row in flows[cols].itertuples(index=False, name=None)])
        return True

    def _write_tables(self, key: str, blobs: Mapping[str, bytes], rows: Mapping[str, int]) -> dict[str, Any]:
        final = self.run_dir(key)
        if not blobs:
            return {}
        # Written apart from tables/ (one directory per writer: `_remove_dead_tmp`
        # finds a dead writer's leftovers without listing every run), then renamed in.
        owner = me()
        tmp = self._tmp_root() / f"{owner.host}.{owner.pid}" / key
        if tmp.exists():
            shutil.rmtree(tmp)
        try:
            return self._fill(tmp, final, blobs, rows)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)  # e.g. a full disk: give its space back
            raise

    def _fill(self, tmp: Path, final: Path, blobs: Mapping[str, bytes], rows: Mapping[str, int]) -> dict[str, Any]:
        tmp.mkdir(parents=True)
        final.parent.mkdir(parents=True, exist_ok=True)
        listing = {}
        for name, data in blobs.items():
            p = tmp / f"{name}.parquet"
            # No fsync per file (it cost more than the rest of the recording): a
            # process kill cannot lose written data, and after a power cut a
            # file cut short is found by `damaged` (size) or on load (SHA-256)
            # and its run is simulated again.
            p.write_bytes(data)
            listing[name] = {"file": p.name, "bytes": len(data), "rows": int(rows[name]),
                             "sha256": hashlib.sha256(data).hexdigest()}
        if final.exists():  # left by a writer killed before its commit
            shutil.rmtree(final)
        os.replace(tmp, final)
        return listing

    def damaged(self, keys: Iterable[str]) -> list[str]:
        """Recorded runs among ``keys`` whose table files are missing or of
        the wrong size (e.g. after a power cut): `lab.run` simulates them again."""
        want = set(keys)
        bad = []
        for key, tables in self.db.execute("SELECT key, tables FROM runs"):
            if key not in want:
                continue
            for entry in json.loads(tables).values():
                p = self.run_dir(key) / entry["file"]
                try:
                    if p.stat().st_size != entry["bytes"]:
                        bad.append(key)
                        break
                except OSError:
                    bad.append(key)
                    break
        return bad

    def forget(self, keys: Iterable[str]) -> None:
        """Remove runs (e.g. failed ones to retry) and their tables."""
        keys = list(keys)
        with self._full(SQL_MARGIN), self._write() as db:
            for k in keys:
                db.execute("DELETE FROM flows WHERE key = ?", (k,))
                db.execute("DELETE FROM runs WHERE key = ?", (k,))
        for k in keys:
            shutil.rmtree(self.run_dir(k), ignore_errors=True)

    def run_table(self, key: str, name: str, *, verify: bool = True) -> pd.DataFrame:
        """One stored table of one run (empty with the schema's columns if the
        run produced no rows)."""
        import pandas as pd

        row = self.db.execute("SELECT tables FROM runs WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise StoreError(f"{self.dir}: no run {key[:12]}")
        entry = json.loads(row[0]).get(name)
        if entry is None:
            return pd.DataFrame({c: pd.Series(dtype=t if t is not str else object) for c, t in SCHEMA[name].items()})
        path = self.run_dir(key) / entry["file"]
        try:
            if verify and (path.stat().st_size != entry["bytes"] or _sha256(path) != entry["sha256"]):
                raise StoreError(f"{path}: does not match the store's checksum (damaged or changed)")
            return pd.read_parquet(path)
        except OSError as e:
            raise StoreError(f"{path}: {e.strerror or e}") from None

    # --- reading -------------------------------------------------------
    def query(self, sql: str, params: Iterable[Any] = ()) -> pd.DataFrame:
        import pandas as pd

        cur = self.db.execute(sql, tuple(params))
        cols = [d[0] for d in cur.description]
        return pd.DataFrame(cur.fetchall(), columns=cols)

    def iter_outcomes(self) -> Iterator[tuple[Any, ...]]:
        yield from self.db.execute(
            "SELECT key, status, seed, engine, scenario, error, events, event_hash, info, tables FROM runs ORDER BY key")

    def digest(self) -> str:
        """SHA-256 of everything the simulations determined (runs, flows,
        table checksums), independent of recording order, hosts and wall time."""
        h = hashlib.sha256()
        for row in self.iter_outcomes():
            h.update(json.dumps(row, sort_keys=True).encode())
            for f in self.db.execute("SELECT * FROM flows WHERE key = ? ORDER BY flow", (row[0],)):
                h.update(json.dumps(f).encode())
        for row in self.db.execute("SELECT design, idx, key, cell, factors, replica, seed FROM design_runs "
                                   "ORDER BY design, idx"):
            h.update(json.dumps(row).encode())
        return h.hexdigest()
