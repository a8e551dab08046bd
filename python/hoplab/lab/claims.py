"""Claims: how several `lab run`s on one store share its runs.

Before a process simulates a run it claims it: a row of the store's `claims`
table (key, host, pid, start time, lease expiry), inserted in a write
transaction (``BEGIN IMMEDIATE``, so two processes cannot both see the run
free) only if the run is neither recorded nor held by another process's live
claim. A claim is a lease: while the process works, a background thread
renews its claims every ``lease_s / 4``; recording the run deletes its claim
in the same transaction (`Store.record`); on the way out (end, error,
Ctrl-C) the process releases what it still holds.

A claim is stale, and the next process that asks takes it over, when its
lease has run out (the holder hung, or on another host and gone), or at once
when the holder ran on this host and has died (`owner.alive`: a kill -9
leaves no time to release). A process that finds every remaining run held by
others waits, polling, until they are recorded or their claims go stale.

A claim promises work, never a result: a run taken over from a holder that
was only slow is simulated twice, and `Store.record` keeps the first copy, so
results are the same however the work was shared. Leases on several hosts
compare wall clocks (keep them in sync, e.g. NTP).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import TYPE_CHECKING, Any

from .owner import Owner, alive, me
from .space import SQL_MARGIN

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Claims", "LEASE_S", "TAKEN", "HELD", "DONE"]

#: Seconds a claim lasts unless renewed (renewed every quarter of it).
LEASE_S = 60.0
#: Seconds between looks at runs that other processes hold.
POLL_S = 0.5

TAKEN, HELD, DONE = "taken", "held", "done"


class Claims:
    """This process's claims on one store; a context manager (releases on exit)."""

    def __init__(self, store: Store, lease_s: float | None = None) -> None:
        self.store = store
        self.lease_s = LEASE_S if lease_s is None else float(lease_s)
        self.me = me()
        # An own connection, shared with the renewing thread under a lock. Claims
        # need not survive a power cut (every holder is dead after one), so no
        # fsync per claim (synchronous=NORMAL in WAL mode: sqlite.org/pragma.html#pragma_synchronous).
        self.db = store.connect(check_same_thread=False)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_loop, name="hoplab-claims", daemon=True)
        self._thread.start()

    def _tx(self) -> Any:
        return self.store._Tx(self.db)

    def _stale(self, row: tuple[str, int, str, float], now: float) -> bool:
        holder = Owner(row[0], int(row[1]), row[2])
        if holder == self.me:
            return True  # ours already
        return row[3] < now or alive(holder) is False

    def take(self, key: str) -> str:
        """DONE if the run is recorded, HELD if another live process has
        claimed it, else TAKEN (now claimed by this process)."""
        now = time.time()
        with self.store._full(SQL_MARGIN), self._lock, self._tx() as db:
            if db.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone():
                return DONE
            row = db.execute("SELECT host, pid, started, expires FROM claims WHERE key = ?", (key,)).fetchone()
            if row is not None and not self._stale(row, now):
                return HELD
            db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                       (key, self.me.host, self.me.pid, self.me.started, now + self.lease_s))
            return TAKEN

    def renew(self) -> None:
        with self._lock, self._tx() as db:
            db.execute("UPDATE claims SET expires = ? WHERE host = ? AND pid = ? AND started = ?",
                       (time.time() + self.lease_s, self.me.host, self.me.pid, self.me.started))

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.lease_s / 4):
            try:
                self.renew()
            except sqlite3.Error:
                pass  # e.g. a full disk: the lease may lapse, and another process redo a run (no harm)

    def release(self) -> None:
        with self._lock:
            # A Ctrl-C that lands between a BEGIN and the `with` that would end
            # it leaves that transaction open (a take() here, a record() on the
            # store's own connection): the store's lock is then held, and this
            # DELETE failed after the lock timeout, leaving the claims behind.
            for db in (self.db, self.store.db):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            with self._tx() as db:
                db.execute("DELETE FROM claims WHERE host = ? AND pid = ? AND started = ?",
                           (self.me.host, self.me.pid, self.me.started))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        try:
            self.release()
        except sqlite3.Error:
            pass  # left behind, they go stale: this process is about to end
        finally:
            self.db.close()

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
