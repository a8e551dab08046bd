"""The result schema as the engine declares it (hoplab_sim::results, read
through `_core.result_schema()`): every table of a run, its columns in order,
their dtypes, units and meanings. `Result`, the lab store and docs/RESULTS.md
derive from it; nothing here is written by hand."""

from __future__ import annotations

from typing import Any

from . import _core

__all__ = ["INFO", "TABLES", "SCHEMA", "COLUMNS", "TABLE_MEANING", "dtype_of"]

_RAW: list[dict[str, Any]] = _core.result_schema()

# info.json's fields (one value each), then the tables (one file each), in file order.
INFO: tuple[str, ...] = tuple(c["name"] for c in _RAW[0]["columns"])
TABLES: tuple[str, ...] = tuple(t["name"] for t in _RAW[1:])

# {table: [{"name", "dtype", "unit", "meaning"}, ...]}, "info" included.
COLUMNS: dict[str, list[dict[str, str]]] = {t["name"]: list(t["columns"]) for t in _RAW}
TABLE_MEANING: dict[str, str] = {t["name"]: t["meaning"] for t in _RAW}


def dtype_of(name: str) -> Any:
    """The pandas dtype of an engine dtype name ("str" is Python's str: object columns)."""
    return str if name == "str" else name


# {table: {column: pandas dtype}}: column order and dtype of every table.
SCHEMA: dict[str, dict[str, Any]] = {
    t: {c["name"]: dtype_of(c["dtype"]) for c in COLUMNS[t]} for t in TABLES}
