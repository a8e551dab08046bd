"""One recorded run read back from a store with the attributes of a `Result`
(``info``, ``flows``, ``nodes``, ``route_events``, ...), tables loaded on
first use — so code written for `hoplab.run`'s results works on stored runs."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pandas is imported where a table is built
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


class _OutcomeRun:
    """A just-finished run's outcome with a `Result`'s attributes; each table
    is decoded from its Parquet bytes only when asked for."""

    def __init__(self, outcome: Mapping[str, Any]) -> None:
        info = outcome.get("info", {})
        self.info = {**info, "wall_s": info.get("wall_s", outcome.get("wall_s"))}
        self.flows = outcome["flows"] if outcome.get("flows") is not None else _frame("flows", {})
        self._blobs: Mapping[str, bytes] = outcome.get("tables", {})

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name not in TABLES:
            raise AttributeError(name)
        blob = self._blobs.get(name)
        import pandas as pd

        df = _frame(name, dict(pd.read_parquet(io.BytesIO(blob))) if blob is not None else {})
        setattr(self, name, df)  # later reads find the attribute and skip __getattr__
        return df


def outcome_run(outcome: Mapping[str, Any]) -> Any:
    """A just-finished run's outcome (`execute.run_payload`) as a Result-like object."""
    return _OutcomeRun(outcome)
