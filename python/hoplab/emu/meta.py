"""Reading a saved run's emu.json for replay: each field replay needs is
checked, so a damaged file gives one line naming it and what is wrong, never
an internal error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .. import _core

__all__ = ["MetaError", "read"]

_U64 = 1 << 64


class MetaError(ValueError):
    """emu.json is missing, not JSON, or a field is missing or wrong (one line, naming the file)."""


def _check(path: Path, meta: dict[str, Any], key: str, ok: Any, want: str) -> Any:
    if key not in meta:
        raise MetaError(f"{path}: {key}: missing")
    v = meta[key]
    if not ok(v):
        shown = json.dumps(v)
        raise MetaError(f"{path}: {key}: {shown[:60] + ('...' if len(shown) > 60 else '')} is not {want}")
    return v


def _u64(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < _U64


def read(run_dir: Path) -> dict[str, Any]:
    """emu.json of `run_dir`, its fields checked (raises MetaError)."""
    path = run_dir / "emu.json"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MetaError(f"{path}: missing: not the result directory of `hoplab emu`") from None
    except OSError as e:
        raise MetaError(f"{path}: {e.strerror}") from None
    try:
        meta = json.loads(raw.decode("utf-8"))  # UTF-8 as written (RFC 8259 §8.1), not a guessed encoding
    except UnicodeDecodeError as e:
        raise MetaError(f"{path}: not valid JSON: not UTF-8 at byte {e.start}") from None
    except json.JSONDecodeError as e:
        raise MetaError(f"{path}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise MetaError(f"{path}: not valid JSON: nested too deeply") from None
    if not isinstance(meta, dict):
        raise MetaError(f"{path}: not a JSON object")
    _check(path, meta, "seed", _u64, "a seed (an integer from 0 to 2^64 - 1)")
    _check(path, meta, "horizon_ns", _u64, "a time in ns (an integer from 0 to 2^64 - 1)")
    _check(path, meta, "event_hash", lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{16}", v),
           "an event hash (16 hexadecimal digits)")
    nodes = _check(path, meta, "nodes", lambda v: isinstance(v, list) and all(_u64(n) for n in v), "a list of nodes")
    sjson = _check(path, meta, "scenario_json", lambda v: isinstance(v, str), "a scenario (JSON text)")
    try:
        table = _core.emulation_table(sjson, "json")
    except _core.ScenarioError as e:
        raise MetaError(f"{path}: scenario_json: {e}") from None
    real = json.loads(table)["nodes"] if table is not None else None
    if real is None:
        raise MetaError(f"{path}: scenario_json: has no [emulation] table")
    if nodes != real:
        raise MetaError(f"{path}: nodes: {nodes} are not the scenario's real nodes {real}")
    return meta
