"""The scenario schema's ranges, applied to numbers read from ns-2 files.

A number from a movement or connection file becomes a scenario field
(`packetSize_` -> `flows[].packet_size_bytes`, `X_` -> `topology.positions`);
it is checked here against that field's range, as the engine would check
it, so that the error names the file line it came from and no value the
engine refuses (an infinity, a zero rate) reaches the scenario. The ranges
are the engine's own (crates/hoplab-sim/src/scenario/schema/fields.rs, read
through `_core.schema_reference()`), not copies.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass

__all__ = ["Limit", "limit", "check"]

# `[1e-6, 1e7]`, `(0, 1]`: fields.rs Range::text.
_RANGE = re.compile(r"([\[(])\s*([^,\s]+)\s*,\s*([^\]\s)]+)\s*([\])])")


@dataclass(frozen=True)
class Limit:
    """One schema field's range, its unit and why it has those bounds."""

    field: str
    lo: float
    hi: float
    lo_open: bool
    hi_open: bool
    unit: str
    why: str
    range_text: str  # as the schema writes it: `[1, 65507]`

    def contains(self, v: float) -> bool:
        return (math.isfinite(v) and (v > self.lo if self.lo_open else v >= self.lo)
                and (v < self.hi if self.hi_open else v <= self.hi))

    def text(self) -> str:
        return self.range_text + (f" {self.unit}" if self.unit else "")


@functools.lru_cache(maxsize=None)
def _table() -> dict[str, Limit]:
    from ... import _core

    out = {}
    for f in json.loads(_core.schema_reference())["fields"]:
        m = _RANGE.fullmatch(f.get("range") or "")
        if m:
            out[f["path"]] = Limit(f["path"], float(m.group(2)), float(m.group(3)), m.group(1) == "(",
                                   m.group(4) == ")", f.get("unit", ""), f.get("why", ""), m.group(0))
    return out


def limit(field: str) -> Limit:
    """The range of the schema field ``field`` (a reference path: `flows[].rate_kbps`)."""
    return _table()[field]


def check(v: float, field: str, what: str, note: str = "") -> float:
    """``v`` if it is in ``field``'s range; else ValueError naming ``what`` (the
    file's spelling of the value), the range and the field (and ``note``)."""
    lim = limit(field)
    if not lim.contains(v):
        raise ValueError(f"{what} is outside {lim.text()} ({lim.field}{'; ' + note if note else ''})")
    return v
