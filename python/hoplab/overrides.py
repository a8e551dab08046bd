"""Path overrides of a scenario (`--set routing.aodv.local_repair=true`,
`--set flows[0].dst=3`, `--set topology.positions[2]=[10,0]`).

A path is dotted keys, each optionally followed by list indices `[i]`: the
same spelling as the field names in error messages. Missing tables on the
way are created; list items must exist (an index past the end is an error,
not an append, so that a typo cannot add a half-specified flow).

The value is parsed as a TOML value when it is one (numbers, booleans,
quoted strings, arrays, inline tables) and taken as a bare string
otherwise, so `routing.protocol=dsr` works without quotes. A TOML date or
time (`name=1979-05-27`) is taken as the string it was written as, since
no scenario field holds a date.
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
from typing import Any, Iterable

__all__ = ["OverrideError", "parse_value", "parse_path", "path_text", "apply", "assign"]

Token = str | int

_SEGMENT = re.compile(r"([A-Za-z0-9_-]+)((?:\[\d+\])*)")
_INDEX = re.compile(r"\[(\d+)\]")


class OverrideError(ValueError):
    """An override that is not `path=value`, or whose path does not fit the scenario."""


def _dates_as_text(v: Any) -> Any:
    if isinstance(v, (_dt.date, _dt.time)):  # datetime is a date
        return v.isoformat()
    if isinstance(v, list):
        return [_dates_as_text(x) for x in v]
    if isinstance(v, dict):
        return {k: _dates_as_text(x) for k, x in v.items()}
    return v


def parse_value(text: str) -> Any:
    try:
        v = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(v, (_dt.date, _dt.time)):
        return text  # exactly as typed (isoformat would rewrite "1979-05-27 07:32:00")
    return _dates_as_text(v)


def parse_path(key: str) -> list[Token]:
    """`flows[0].dst` -> ["flows", 0, "dst"]; ValueError if malformed."""
    tokens: list[Token] = []
    for part in key.split("."):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise ValueError(key)
        tokens.append(m.group(1))
        tokens.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return tokens


def path_text(tokens: list[Token]) -> str:
    out = ""
    for t in tokens:
        out += f"[{t}]" if isinstance(t, int) else (f".{t}" if out else t)
    return out


def _items(n: int) -> str:
    return f"{n} item" + ("" if n == 1 else "s")


def _step(node: Any, tok: Token, where: list[Token], next_tok: Token | None) -> Any:
    """The child ``tok`` of ``node`` (``where`` is the path to ``node``).
    With ``next_tok`` a key, a missing table is created."""
    here = path_text(where)
    if isinstance(tok, int):
        if not isinstance(node, list):
            raise OverrideError(f"{here}: not a list, so {path_text(where + [tok])} does not exist")
        if tok >= len(node):
            raise OverrideError(f"{path_text(where + [tok])}: index out of range ({here} has {_items(len(node))})")
        return node[tok]
    if not isinstance(node, dict):
        raise OverrideError(f"{here}: not a table, so {path_text(where + [tok])} does not exist")
    if tok not in node:
        if isinstance(next_tok, int):
            raise OverrideError(f"{path_text(where + [tok, next_tok])}: index out of range "
                                f"({path_text(where + [tok])} is not set)")
        node[tok] = {}
    return node[tok]


def apply(scenario: dict[str, Any], assignments: Iterable[str]) -> dict[str, Any]:
    """Apply `path=value` assignments to a scenario dict, in place."""
    for a in assignments:
        key, sep, value = a.partition("=")
        key = key.strip()
        try:
            tokens = parse_path(key) if sep and key else None
        except ValueError:
            tokens = None
        if tokens is None:
            raise OverrideError(f"--set {a!r}: expected path=value, the path as dotted keys with "
                                "optional [index] (e.g. flows[0].dst=3)")
        try:
            _assign_tokens(scenario, tokens, key, parse_value(value.strip()))
        except OverrideError as e:
            raise OverrideError(f"{e} (in --set {a!r})") from None
    return scenario


def _assign_tokens(scenario: dict[str, Any], tokens: list[Token], key: str, value: Any) -> None:
    node: Any = scenario
    for i, tok in enumerate(tokens[:-1]):
        node = _step(node, tok, tokens[:i], tokens[i + 1])
    last, where = tokens[-1], tokens[:-1]
    if isinstance(last, int):
        _step(node, last, where, None)  # checks list and range
    elif not isinstance(node, dict):
        raise OverrideError(f"{path_text(where)}: not a table, so {key} does not exist")
    node[last] = value


def assign(scenario: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """Set the field at path ``key`` (as in `apply`) to the Python ``value``, in place."""
    try:
        tokens = parse_path(key)
    except ValueError:
        raise OverrideError(f"{key!r}: expected a path of dotted keys with optional [index] "
                            "(e.g. flows[0].dst)") from None
    _assign_tokens(scenario, tokens, key, value)
    return scenario
