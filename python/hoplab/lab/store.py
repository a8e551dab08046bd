"""The lab's result store: a directory with an SQLite index and Parquet tables.

    STORE/store.sqlite                  index (WAL): runs, their flows, designs
    STORE/tables/<k[:2]>/<key>/<t>.parquet   the other tables of each run

A run is identified by its key (`design.run_key`: the resolved scenario, the
seed and the engine version), so a run shared by two designs, or asked for
twice, is simulated once. Recording is atomic: the tables are written into a
temporary directory and renamed to the run's directory, then the run's rows
are inserted in one transaction, all under SQLite's write lock (``BEGIN
IMMEDIATE``), which also serialises several processes writing to one store.
Until that transaction commits the run does not exist: a kill at any moment
leaves the store as it was (an orphaned table directory is replaced when the
run is recorded again), and a second writer that finished the same run later
finds it recorded and discards its copy. SQLite's locking needs a local file
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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

if TYPE_CHECKING:  # pandas is imported where a table is built
    import pandas as pd

from ..manifest import _sha256
from .._schema import SCHEMA, TABLES

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


class Store:
    """An open store (created if missing). Use as a context manager or call
    `close`. Every method is safe with other processes writing the same store."""

    def __init__(self, directory: str | os.PathLike[str], *, create: bool = True) -> None:
        self.dir = Path(directory)
        self.path = self.dir / STORE_FILE
        if not self.path.exists():
            if not create:
                raise StoreError(f"{self.dir}: not a hoplab store (no {STORE_FILE})")
            if self.dir.exists() and not self.dir.is_dir():
                raise StoreError(f"{self.dir}: not a directory")
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"{self.dir}: cannot create the store ({e.strerror or e})") from None
        try:
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE).
            self.db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
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
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable store ({e})") from None

    # --- plumbing ------------------------------------------------------
    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")

    def _write(self) -> "Store._Tx":
        return Store._Tx(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def lacking(self) -> dict[str, int]:
        """{flows column: runs without it}: runs recorded by an older hoplab,
        before the engine declared the column (it reads back as NaN). Only
        integer and boolean columns can tell: the engine never leaves them
        empty, while a float column may be NaN by right."""
        cols = [c for c, t in SCHEMA["flows"].items() if t in ("int64", "bool")]
        # One scan of the table for every column.
        counts = self.db.execute("SELECT " + ", ".join(
            f'COUNT(DISTINCT CASE WHEN "{c}" IS NULL THEN key END)' for c in cols) + " FROM flows").fetchone()
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
        with self._write() as db:
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
        with self._write() as db:
            if db.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone():
                return False
            listing = self._write_tables(key, blobs, outcome.get("rows") or {})
            info = dict(outcome.get("info") or {})
            wall = info.pop("wall_s", None)
            for k in ("hoplab_version", "git_commit"):
                info.pop(k, None)  # the engine column says it
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
                key, outcome["status"], str(outcome["seed"]), outcome["engine"], outcome["scenario"],
                outcome.get("error"), info.get("events"),
                None if info.get("event_hash") is None else f"{int(info['event_hash']):016x}",
                json.dumps(info, sort_keys=True, default=str), json.dumps(listing, sort_keys=True),
                wall if wall is not None else outcome.get("wall_s"), socket.gethostname(),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
            flows = outcome.get("flows")
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
        tmp = final.parent / f".{key}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
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
        with self._write() as db:
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
