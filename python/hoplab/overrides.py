"""Dotted-path overrides of a scenario (`--set routing.aodv.local_repair=true`).

The value is parsed as a TOML value when it is one (numbers, booleans,
quoted strings, arrays) and taken as a bare string otherwise, so
`routing.protocol=dsr` works without quotes.
"""

from __future__ import annotations

import tomllib
from typing import Any, Iterable


class OverrideError(ValueError):
    """An override that is not `dotted.key=value`."""


def parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply(scenario: dict[str, Any], assignments: Iterable[str]) -> dict[str, Any]:
    """Apply `key.path=value` assignments to a scenario dict, in place."""
    for a in assignments:
        key, sep, value = a.partition("=")
        key = key.strip()
        if not sep or not key or any(not p for p in key.split(".")):
            raise OverrideError(f"--set {a!r}: expected dotted.key=value")
        node = scenario
        parts = key.split(".")
        for p in parts[:-1]:
            nxt = node.setdefault(p, {})
            if not isinstance(nxt, dict):
                raise OverrideError(f"--set {a!r}: {p} is not a table")
            node = nxt
        node[parts[-1]] = parse_value(value.strip())
    return scenario
