"""Axis labels with units, and readable factor levels, derived from the schemas.

Units: a column named as a scenario field (`tcp.max_cwnd`, `flows[0].off_s`,
or its last part `max_cwnd`) or as a result column (`throughput_kbps`)
takes the unit its schema declares (`hoplab config`, `_schema.py`). Any other
column (a reproducer's own `cbr_kbps`, `outage_s`) takes the unit of its
suffix under the documented convention (docs/SCENARIO.md, "Conventions"),
that suffix's unit again read from the schema's names that carry it.

Levels: a few fields give a value a meaning other than its number
(`tcp.max_cwnd = 0` is "unclamped", docs/SCENARIO.md). `SPECIAL_LEVELS`
declares them once; a figure shows the words, never the bare 0.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import defaultdict
from typing import Any, Mapping

from ._columns import level_text

# docs/SCENARIO.md "Conventions": a key with a unit ends in one of these.
UNIT_SUFFIXES = ("_s", "_ms", "_us", "_m", "_mps", "_hz", "_w", "_db", "_mbps", "_kbps", "_bytes")

# Words printed as written, not capitalised (protocol names and their state).
_AS_WRITTEN = {"rtt": "RTT", "srtt": "SRTT", "rto": "RTO", "ifq": "IFQ", "tcp": "TCP", "mac": "MAC", "cbr": "CBR",
               "ecn": "ECN", "rts": "RTS", "cwnd": "cwnd", "ssthresh": "ssthresh", "aodv": "AODV", "dsr": "DSR"}

# Fields whose doc says "0 turns it off" (the schema reference's `why`): 0 is drawn as "off".
OFF_AT_ZERO = (
    "routing.aodv.hello_jitter_s", "routing.aodv.hello_loss_slack_s", "routing.aodv.timeout_buffer",
    "routing.aodv.rreq_retries", "routing.aodv.broadcast_jitter_s", "routing.aodv.release_spacing_s",
    "routing.dsr.max_request_rexmt", "routing.dsr.broadcast_jitter_s", "routing.dsr.maint_holdoff_s",
    "routing.dsr.max_maint_rexmt", "routing.dsr.try_passive_acks", "routing.olsr.max_jitter_s",
    "routing.dsdv.settling_initial_s", "routing.dsdv.min_triggered_interval_s", "routing.dsdv.startup_jitter_s",
    "routing.dsdv.broadcast_jitter_s",
)

# {scenario field: {value: words}}: every value the schema reference gives a
# meaning of its own (the doc's words in the comment). tests/python/test_plot_labels.py
# fails when a field's doc names such a value that is missing here.
SPECIAL_LEVELS: dict[str, dict[float, str]] = {
    "tcp.max_cwnd": {0: "unclamped"},                      # "0 = unclamped"
    "mac.rts_threshold_bytes": {0: "always RTS/CTS"},      # "0 = always RTS/CTS"
    "output.timeseries_interval_s": {0: "every change"},   # "0 keeps every change"
    "flows[].off_s": {0: "always on"},                     # default "always on"
    "routing.dsr.error_hold_s": {0: "next request only"},  # "0: on the next request only"
    "routing.dsr.send_buffer_check_s": {0: "at once"},     # "0: packets leave at once"
    "radio.shadowing_std_db": {0: "mean only"},            # "0: no draw, the mean alone"
    "tcp.initial_ssthresh": {0: "unbounded"},              # "0 = the largest window"
    **{f: {0: "off"} for f in OFF_AT_ZERO},
}

# Special values that stand above every number (no clamp): drawn one step
# right of the largest level on a numeric axis, and listed last.
AFTER_ALL: dict[str, set[float]] = {"tcp.max_cwnd": {0}, "tcp.initial_ssthresh": {0}}


@functools.cache
def _scenario_units() -> dict[str, str]:
    from .. import _core

    return {f["path"]: f["unit"] for f in json.loads(_core.schema_reference())["fields"]}


@functools.cache
def _units() -> dict[str, str]:
    """Column name -> unit: every scenario field path, and every short name
    (a field's last part, a result column) on which the schemas agree."""
    from .._schema import COLUMNS

    fields = _scenario_units()
    short: dict[str, set[str]] = defaultdict(set)
    for path, unit in fields.items():
        short[path.rsplit(".", 1)[-1]].add(unit)
    for cols in COLUMNS.values():
        for c in cols:
            short[c["name"]].add(c["unit"])
    out = dict(fields)
    for name, units in short.items():
        if len(units) == 1:
            out.setdefault(name, next(iter(units)))
    return out


def _suffix(name: str) -> str | None:
    """The longest convention suffix ``name`` ends in (``_ms`` before ``_s``)."""
    hits = [s for s in UNIT_SUFFIXES if name.endswith(s) and len(name) > len(s)]
    return max(hits, key=len) if hits else None


@functools.cache
def suffix_units() -> dict[str, str]:
    """Convention suffix -> unit, as the scenario fields and result columns ending in it declare it."""
    from .._schema import COLUMNS

    names = [(p.rsplit(".", 1)[-1], u) for p, u in _scenario_units().items()]
    names += [(c["name"], c["unit"]) for cols in COLUMNS.values() for c in cols]
    seen: dict[str, set[str]] = defaultdict(set)
    for name, unit in names:
        s = _suffix(name)
        if s is not None and unit:
            seen[s].add(unit)
    return {s: next(iter(u)) for s, u in seen.items() if len(u) == 1}


def _field(column: str) -> str:
    """`flows[0].off_s` -> `flows[].off_s` (the schema's name for any list item)."""
    return re.sub(r"\[\d+\]", "[]", column)


def split_unit(column: str) -> tuple[str, str | None]:
    """(words, unit) for a column name; unit None when no schema knows one."""
    field = _field(column)
    name = field.rsplit(".", 1)[-1]
    units = _units()
    unit = units.get(field, units.get(name)) or None
    suffix = _suffix(name)
    if unit is None and suffix is not None:
        unit = suffix_units().get(suffix)
    if suffix is not None and unit is not None and suffix_units().get(suffix) == unit:
        name = name[: -len(suffix)]
    words = [_AS_WRITTEN.get(w, w) for w in name.split("_") if w]
    text = " ".join(words)
    if text and words[0] not in _AS_WRITTEN.values():
        text = text[0].upper() + text[1:]
    return text, unit


def axis_label(column: str) -> str:
    """`throughput_kbps` -> "Throughput (kbit/s)", `tcp.max_cwnd` -> "Max cwnd (segments)"."""
    words, unit = split_unit(column)
    return f"{words} ({unit})" if unit else words


def _matching(column: str) -> list[str]:
    """The scenario fields a column stands for: itself, or the fields whose last part it is."""
    field = _field(column)
    if field in SPECIAL_LEVELS or "." in field:
        return [field]
    return [f for f in SPECIAL_LEVELS if f.rsplit(".", 1)[-1] == field]


def special_levels(column: str) -> tuple[dict[float, str], set[float]]:
    """({value: words}, values above all) for a factor column; empty when the
    column has no special value or its short name is ambiguous."""
    fields = _matching(column)
    maps = [SPECIAL_LEVELS.get(f, {}) for f in fields]
    if not maps or any(m != maps[0] for m in maps):
        return {}, set()
    after = set().union(*(AFTER_ALL.get(f, set()) for f in fields))
    return dict(maps[0]), after


def _number(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def level_label(column: str, v: Any, names: Mapping[Any, str] | None = None) -> str:
    """A level as a figure prints it: the caller's name for it, else the
    schema's words for a special value, else the value itself."""
    x = _number(v)
    for table in (names or {}, special_levels(column)[0]):
        for key, text in table.items():
            if key == v or (x is not None and _number(key) == x):
                return text
    return level_text(v)


def is_after_all(column: str, v: Any) -> bool:
    """Whether level ``v`` of ``column`` stands above every number (no clamp)."""
    x = _number(v)
    return x is not None and x in special_levels(column)[1]
