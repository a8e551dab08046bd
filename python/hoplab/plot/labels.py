"""Axis labels with units, read from hoplab's column names.

Every column that carries a unit ends in it (docs/SCENARIO.md,
"Conventions"; the engine's result schema, `_schema.py`): `throughput_kbps` -> "throughput (kbit/s)",
`rtt_mean_ms` -> "rtt mean (ms)". A factor column from a design is named by
its dotted scenario field (`tcp.max_cwnd`); its last part names the axis.
Counts without a suffix get the unit the schema gives them in words.
"""

from __future__ import annotations

# Suffix -> unit as printed. Longest suffixes are tried first.
SUFFIX_UNITS = {
    "_kbps": "kbit/s",
    "_mbps": "Mbit/s",
    "_bytes": "bytes",
    "_mps": "m/s",
    "_ms": "ms",
    "_us": "µs",
    "_hz": "Hz",
    "_db": "dB",
    "_s": "s",
    "_m": "m",
    "_w": "W",
}

# Columns without a unit suffix whose unit is known (the result schema, `_schema.py`, and the
# scenario reference): windows count segments; retransmission_index is a
# percentage (README, "retx idx %"); loss_rate a fraction.
NAMED_UNITS = {
    "max_cwnd": "segments",
    "cwnd": "segments",
    "ssthresh": "segments",
    "retransmission_index": "%",
    "ifq_mean": "packets",
    "ifq_max": "packets",
    "timeouts": "count",
}


def split_unit(column: str) -> tuple[str, str | None]:
    """(words, unit) for a column name; unit None when unknown."""
    name = column.rsplit(".", 1)[-1]
    if name in NAMED_UNITS:
        return name.replace("_", " "), NAMED_UNITS[name]
    for suffix in sorted(SUFFIX_UNITS, key=len, reverse=True):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].replace("_", " "), SUFFIX_UNITS[suffix]
    return name.replace("_", " "), None


def axis_label(column: str) -> str:
    """`throughput_kbps` -> "throughput (kbit/s)", `tcp.max_cwnd` -> "max cwnd (segments)"."""
    words, unit = split_unit(column)
    return f"{words} ({unit})" if unit else words
