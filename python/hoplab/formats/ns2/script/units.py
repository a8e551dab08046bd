"""ns-2's numbers with units, as its OTcl variable bindings read them
(tclcl `TclObject::bind_time`, `bind_bw`, `bind_bool`; ns-2.35 tcl/lib and
tclcl/Tcl.cc `Tcl::ts`/`Tcl::bw`): `25us`, `0.1`, `2Mb`, `448Kb`, `true`.

Each parser returns a float (or bool) or raises ValueError naming what it
expected; callers add the file and line."""

from __future__ import annotations

import math
import re

__all__ = ["parse_time", "parse_bandwidth", "parse_bool", "parse_number", "parse_int", "parse_atof"]

# tclcl Tcl.cc: a time is a number with an optional unit (s, ms, us, ns, ps).
_TIME = re.compile(r"\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(s|ms|us|ns|ps)?\s*", re.ASCII)
_TIME_UNIT = {None: 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
# tclcl Tcl.cc: a bandwidth is a number with an optional k/K, m/M, g/G
# multiplier and an optional b (bits) or B (bytes, x 8) ("bps" reads as bits).
_BW = re.compile(r"\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*([kKmMgG]?)(bps|b|Bps|B)?\s*",
                 re.ASCII)
_BW_MULT = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}


def _finite(v: float, text: str, what: str) -> float:
    if not math.isfinite(v):
        raise ValueError(f"{what} {text!r} is not a finite number")
    return v


def parse_number(text: str, what: str) -> float:
    """A plain Tcl number (`914e+6`, `.5`, `1`)."""
    try:
        return _finite(float(str(text).strip()), text, what)
    except ValueError:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a number") from None


def parse_int(text: str, what: str) -> int:
    v = parse_number(text, what)
    if v != int(v):
        raise ValueError(f"{what}: {text!r} is not a whole number")
    return int(v)


def parse_time(text: str, what: str) -> float:
    """Seconds from an ns-2 time (`25us`, `100ms`, `0.5`)."""
    m = _TIME.fullmatch(str(text))
    if m is None:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a time (a number with an optional s, ms, us or ns)")
    return _finite(float(m.group(1)) * _TIME_UNIT[m.group(2)], text, what)


def parse_bandwidth(text: str, what: str) -> float:
    """Bits per second from an ns-2 bandwidth (`2Mb`, `448Kb`, `11e6`, `1MB`)."""
    m = _BW.fullmatch(str(text))
    if m is None:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a bandwidth (e.g. 2Mb, 448Kb, 11e6)")
    v = float(m.group(1)) * _BW_MULT[m.group(2).lower()]
    if m.group(3) in ("B", "Bps"):
        v *= 8.0
    return _finite(v, text, what)


def parse_bool(text: str, what: str) -> bool:
    """tclcl bind_bool: true/false, on/off, yes/no or a number (non-zero is true)."""
    t = str(text).strip().lower()
    if t in ("true", "on", "yes"):
        return True
    if t in ("false", "off", "no"):
        return False
    try:
        return float(t) != 0.0
    except ValueError:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a boolean (true/false, 1/0)") from None


_C_LONG = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def parse_int_flag(text: str) -> bool:
    """A switch bound as an int (tclcl `bind`, `delay_bind`: strtol(s, 0, 0)):
    the leading integer in C's syntax, so `true`, `on` and `0.5` read as 0
    (off) and `1e3` as 1. Checked in ns-2.35: `Agent/TCP set singledup_ true`
    leaves singledup_ 0."""
    m = _C_LONG.match(str(text))
    if m is None:
        return False
    digits = m.group(2)
    if digits[:2].lower() == "0x":
        return int(digits, 16) != 0
    return int(digits, 8 if digits.startswith("0") else 10) != 0


_PREFIX = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_atof(text: str, what: str) -> float:
    """C's atof, as ns-2's scheduler reads `$ns_ at TIME` (scheduler.cc
    Scheduler::command): the longest number at the start, so `200.0.000000001`
    (a script's `$opt(stop).000000001`) is 200.0; no number at all is refused
    here (ns-2 would read 0)."""
    m = _PREFIX.match(str(text))
    if m is None:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a time")
    return _finite(float(m.group(0)), text, what)
