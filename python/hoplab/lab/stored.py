"""One recorded run read back from a store with the attributes of a `Result`
(``info``, ``flows``, ``nodes``, ``route_events``, ...), tables loaded on
first use — so code written for `hoplab.run`'s results works on stored runs."""

from __future__ import annotations

import json
from typing import Any, Mapping

import pandas as pd

from ..result import SCHEMA, TABLES, _frame
from .store import Store

__all__ = ["StoredRun", "outcome_run"]


class StoredRun:
    def __init__(self, store: Store, key: str) -> None:
        self._store = store
        self.key = key
        row = store.db.execute("SELECT info, wall_s, status, error FROM runs WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        self.info: dict[str, Any] = {**json.loads(row[0]), "wall_s": row[1]}
        self.status, self.error = row[2], row[3]
        self._tables: dict[str, pd.DataFrame] = {}

    @property
    def flows(self) -> pd.DataFrame:
        if "flows" not in self._tables:
            df = self._store.query("SELECT * FROM flows WHERE key = ? ORDER BY flow", (self.key,))
            self._tables["flows"] = _frame("flows", {c: df[c] for c in SCHEMA["flows"] if c in df.columns})
        return self._tables["flows"]

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name in TABLES:
            if name not in self._tables:
                self._tables[name] = _frame(name, dict(self._store.run_table(self.key, name)))
            return self._tables[name]
        raise AttributeError(name)


def outcome_run(outcome: Mapping[str, Any]) -> Any:
    """A just-finished run's outcome (`execute.run_payload`) as a Result-like object."""

    class _Run:
        pass

    r = _Run()
    r.info = {**outcome.get("info", {}), "wall_s": outcome.get("info", {}).get("wall_s", outcome.get("wall_s"))}
    r.flows = outcome["flows"] if outcome.get("flows") is not None else _frame("flows", {})
    for t in TABLES:
        if t != "flows":
            setattr(r, t, outcome.get("tables", {}).get(t, _frame(t, {})))
    return r
