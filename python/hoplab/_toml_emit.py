"""A small TOML writer for scenario dicts (the stdlib reads TOML but does not
write it): strings, booleans, integers, floats (shortest round-trip form,
`inf`/`nan`), arrays, tables and arrays of tables. Arrays of tables are
`[[...]]` sections, except those named in ``inline`` (e.g. `mobility.legs`:
one inline table per line); a long array of arrays (`topology.positions`)
has one item per line. ``tomllib.loads(dumps(d)) == d`` for every such dict."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping

__all__ = ["dumps"]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _key(k: str) -> str:
    return k if _BARE.fullmatch(k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items() if x is not None) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if hasattr(v, "item"):  # a numpy scalar
        return _value(v.item())
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _rows(v: Any) -> bool:
    """A list written one item per line: tables, or more than 4 arrays."""
    return (isinstance(v, (list, tuple)) and len(v) > 0
            and (all(isinstance(x, Mapping) for x in v) or (len(v) > 4 and all(isinstance(x, (list, tuple))
                                                                                 for x in v))))


def _body(d: Mapping[str, Any], path: str, out: list[str], inline: tuple[str, ...],
          comments: Mapping[str, str] | None = None, where: str = "") -> None:
    """``where`` is the dotted path with list indices (`flows[2]`) that
    ``comments`` is keyed by; ``path`` is the table header's name."""
    subtables, arrays = [], []

    def note(key: str) -> str:
        c = (comments or {}).get(key)
        return f"  # {c}" if c else ""

    for k, v in d.items():
        name = f"{path}.{_key(k)}" if path else _key(k)
        at = f"{where}.{k}" if where else k
        if v is None:
            continue
        if isinstance(v, Mapping):
            subtables.append((name, at, v))
        elif _rows(v) and isinstance(v[0], Mapping) and name not in inline:
            arrays.append((name, at, v))
        elif _rows(v):
            out.append(f"{_key(k)} = [{note(at)}")
            out.extend(f"  {_value(x)},{note(f'{at}[{i}]')}" for i, x in enumerate(v))
            out.append("]")
        else:
            out.append(f"{_key(k)} = {_value(v)}{note(at)}")
    for name, at, v in subtables:
        out += ["", f"[{name}]"]
        _body(v, name, out, inline, comments, at)
    for name, at, v in arrays:
        for i, item in enumerate(v):
            out += ["", f"[[{name}]]"]
            _body(item, name, out, inline, comments, f"{at}[{i}]")


def dumps(d: Mapping[str, Any], header: str | None = None, inline: tuple[str, ...] = ("mobility.legs",),
          comments: Mapping[str, str] | None = None) -> str:
    """``d`` as TOML text; ``header`` lines become `#` comments on top;
    the arrays of tables named in ``inline`` are written as inline tables.
    ``comments`` maps a value's dotted path (list items as `flows[0].src`,
    `topology.positions[3]`) to a comment written after it on its line."""
    out = [f"# {line}".rstrip() for line in (header or "").splitlines()]
    _body(d, "", out, inline, comments)
    return "\n".join(out).lstrip("\n") + "\n"
