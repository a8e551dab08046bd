"""A scenario dict as the JSON text the engine parses, checked on the way.

`json.dumps` alone writes NaN and infinity as the tokens ``NaN`` and
``Infinity``, which are not JSON (RFC 8259 §6), so the engine answered
"expected value" without naming a field; it refuses numpy scalars ("Object
of type int64 is not JSON serializable"), recurses without bound, and has no
size limit. `scenario_json` walks the dict first and raises a one-line
`ScenarioError` naming the field (``duration_s: must be a finite number, not
nan``), accepts numpy scalars and arrays (anything from numpy with
``.tolist()``, without importing numpy) and other `numbers` types where a
number is, and refuses a text over the 16 MB a scenario file may have.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from . import _core
from ._plain import NotPlain, TooMany, plain
from ._safe_read import MAX_SCENARIO_BYTES
from .overrides import path_text

__all__ = ["MAX_DEPTH", "scenario_error", "scenario_json", "too_large"]

#: Nesting the walk follows: a scenario is at most ~4 deep (flows[0].tcp.x,
#: topology.positions[0][1]); serde_json stops at 128. Also ends a cycle.
MAX_DEPTH = 64


def scenario_error(field: str, message: str) -> Exception:
    """A ScenarioError as the engine raises it: ``.field``, ``.message``, `field: message`."""
    e = _core.ScenarioError(f"{field}: {message}" if field else message)
    e.field = field
    e.message = message
    return e


def too_large(size: str) -> Exception:
    """The error for a scenario over the limit (the CLI's `file too large` of `_safe_read`)."""
    return scenario_error("", f"scenario too large ({size}; the limit is {MAX_SCENARIO_BYTES // (1024 * 1024)} MB)")


def scenario_json(scenario: Mapping[str, Any]) -> str:
    """``scenario`` as JSON for the engine; ScenarioError naming the field of
    a value JSON cannot carry, or for a text over `MAX_SCENARIO_BYTES`."""
    try:
        # Every value is at least 2 bytes of JSON with its separator.
        value = plain(scenario, max_depth=MAX_DEPTH, max_values=MAX_SCENARIO_BYTES // 2)
    except TooMany:
        raise too_large(f"over {MAX_SCENARIO_BYTES // (1024 * 1024)} MB as JSON") from None
    except NotPlain as e:
        raise scenario_error(path_text(e.path), e.reason) from None
    text = json.dumps(value, allow_nan=False)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SCENARIO_BYTES:
        raise too_large(f"{size} bytes as JSON")
    return text
