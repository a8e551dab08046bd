"""Reading a store back as tidy DataFrames, and its status against designs."""

from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported where a table is built
    import pandas as pd

from .._schema import SCHEMA
from .design import Design
from .store import RUN_TABLES, Store, StoreError, StoreMigrationWarning

__all__ = ["load", "status"]

RUN_COLUMNS = ["key", "design"]  # then the factors, then:
RUN_TAIL = ["replica", "seed", "status", "error"]


def _designs(st: Store, design: str | Design | None) -> list[str]:
    names = st.designs()
    if design is None:
        if not names:
            raise StoreError(f"{st.dir}: the store has no design yet (run `hoplab lab run DESIGN --store {st.dir}`)")
        return names
    name = design.name if isinstance(design, Design) else str(design)
    if name not in names:
        raise StoreError(f"{st.dir}: no design named {name!r} (designs: {', '.join(names) or 'none'})")
    return [name]


def _runs_frame(st: Store, names: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """One row per recorded run of each design: key, design, factors..., replica, seed, status, error."""
    import pandas as pd

    frames, factor_cols = [], []
    for name in names:
        factors = st.design_factors(name)
        factor_cols += [f for f in factors if f not in factor_cols]
        q = st.query("SELECT dr.key, dr.design, dr.factors, dr.replica, dr.seed, r.status, r.error, dr.idx "
                     "FROM design_runs dr JOIN runs r ON r.key = dr.key WHERE dr.design = ? ORDER BY dr.idx",
                     (name,))
        cells = pd.DataFrame([json.loads(x) for x in q["factors"]], index=q.index, columns=factors)
        frames.append(pd.concat([q[["key", "design"]], cells, q[["replica", "seed", "status", "error", "idx"]]],
                                axis=1))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(df):
        df["seed"] = [int(s) for s in df["seed"]]
        df["replica"] = df["replica"].astype("int64")
    return df, factor_cols


def _warn_lacking(st: Store) -> None:
    lacking = st.lacking()
    if lacking:
        n = max(lacking.values())
        warnings.warn(
            f"{st.dir}: {n} run(s) were recorded by an older hoplab without flows column(s) "
            f"{', '.join(lacking)}: they read as NaN (forget and run them again to fill them)",
            StoreMigrationWarning, stacklevel=3)


def _typed(df: pd.DataFrame, schema: dict[str, Any]) -> pd.DataFrame:
    for c, t in schema.items():
        if c not in df.columns:
            continue
        if t is str:
            df[c] = df[c].astype(object)
        elif t == "bool":
            df[c] = df[c].astype("boolean") if df[c].isna().any() else df[c].astype(bool)
        elif df[c].isna().any():
            df[c] = df[c].astype("float64")
        else:
            df[c] = df[c].astype(t)
    return df


def load(store: str | os.PathLike[str], design: str | Design | None = None, table: str = "flows",
         *, verify: bool = True) -> pd.DataFrame:
    """The store's results as one tidy DataFrame.

    ``table="flows"`` (default): one row per run and flow, with columns
    ``key, design``, one per factor (the level: the field's value, or the
    label of a named level), ``replica, seed, status, error`` and every
    column of `Result.flows`; a failed run is one row with NaN metrics.
    ``table="runs"``: one row per run with ``events, event_hash, wall_s``.
    Any other table of `Result` ("nodes", "drops", "timeseries", ...): its
    rows for every finished run, the run columns in front. ``design``: one
    design's runs (default: every design in the store; a run in two designs
    appears once for each). Runs not yet simulated are left out. Where a
    factor has the name of one of the table's columns (a factor `hops` and the
    paths table's `hops`), the factor keeps it and the table's column is
    named ``table.column`` (``paths.hops``).
    """
    import pandas as pd

    valid = ("flows", "runs") + RUN_TABLES
    if table not in valid:
        raise ValueError(f"table: {table!r} is not one of {', '.join(valid)}")
    with Store(store, readonly=True) as st:
        names = _designs(st, design)
        runs, factors = _runs_frame(st, names)
        lead = RUN_COLUMNS + factors + RUN_TAIL
        if table == "runs":
            info = st.query("SELECT key, events, event_hash, wall_s, host, recorded_at FROM runs")
            out = runs.merge(info, on="key", how="left")
            return out.sort_values(["design", "idx"]).drop(columns="idx").reset_index(drop=True)
        if table == "flows":
            _warn_lacking(st)
            flows = st.query("SELECT * FROM flows")
            for c in SCHEMA["flows"]:  # declared since the store was written (read-only: not added to it)
                if c not in flows.columns:
                    flows[c] = None
            out = runs.merge(flows, on="key", how="left")
            out = out.sort_values(["design", "idx", "flow"], na_position="first")
            out = _typed(out.drop(columns="idx").reset_index(drop=True), SCHEMA["flows"])
            return out[lead + [c for c in SCHEMA["flows"]]]
        # A factor may be named like one of this table's columns (`hops` and the paths
        # table's): the factor keeps the name, as in every other table, and the
        # table's own column is named `table.column`.
        own = {c: f"{table}.{c}" for c in SCHEMA[table] if c in lead}
        parts = []
        cache: dict[str, pd.DataFrame] = {}
        for rec in runs[runs["status"] == "ok"].to_dict("records"):
            key = rec["key"]
            if key not in cache:
                cache[key] = st.run_table(key, table, verify=verify)
            t = cache[key]
            if len(t):
                head = pd.DataFrame({c: [rec[c]] * len(t) for c in lead})
                parts.append(pd.concat([head, t.reset_index(drop=True).rename(columns=own)], axis=1))
        if not parts:
            return pd.DataFrame(columns=lead + [own.get(c, c) for c in SCHEMA[table]])
        return pd.concat(parts, ignore_index=True)


def status(store: str | os.PathLike[str], design: Design | None = None) -> pd.DataFrame:
    """Per design: runs in it, done (ok), failed, damaged (recorded, but a
    table file is missing or of the wrong size: the next `lab run` simulates
    them again) and missing. With ``design`` (not yet registered, e.g. before
    `lab run`), its own runs are counted."""
    import pandas as pd

    with Store(store, readonly=True) as st:
        rec = st.recorded()
        damaged = set(st.damaged(k for k, s in rec.items() if s == "ok"))
        rows = []
        if design is not None:
            keys = [r.key for r in design.expand()]
            rows.append(_count(design.name, keys, rec, damaged))
        else:
            for name in st.designs():
                keys = [k for (k,) in st.db.execute("SELECT key FROM design_runs WHERE design = ?", (name,))]
                rows.append(_count(name, keys, rec, damaged))
        return pd.DataFrame(rows, columns=["design", "runs", "done", "failed", "damaged", "missing"])


def _count(name: str, keys: list[str], rec: dict[str, str], damaged: set[str]) -> dict[str, Any]:
    uniq = set(keys)
    bad = len(uniq & damaged)
    done = sum(1 for k in uniq if rec.get(k) == "ok") - bad
    failed = sum(1 for k in uniq if rec.get(k) == "failed")
    return {"design": name, "runs": len(keys), "done": done, "failed": failed, "damaged": bad,
            "missing": len(uniq) - done - failed - bad}
