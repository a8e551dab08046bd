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
import math
import numbers
from typing import Any, Mapping

from . import _core
from ._safe_read import MAX_SCENARIO_BYTES
from .overrides import path_text

__all__ = ["MAX_DEPTH", "scenario_error", "scenario_json", "too_large"]

#: Nesting the walk follows: a scenario is at most ~4 deep (flows[0].tcp.x,
#: topology.positions[0][1]); serde_json stops at 128. Also ends a cycle.
MAX_DEPTH = 64

Where = list[str | int]


def scenario_error(field: str, message: str) -> Exception:
    """A ScenarioError as the engine raises it: ``.field``, ``.message``, `field: message`."""
    e = _core.ScenarioError(f"{field}: {message}" if field else message)
    e.field = field
    e.message = message
    return e


def too_large(size: str) -> Exception:
    """The error for a scenario over the limit (the CLI's `file too large` of `_safe_read`)."""
    return scenario_error("", f"scenario too large ({size}; the limit is {MAX_SCENARIO_BYTES // (1024 * 1024)} MB)")


def _from_numpy(v: Any) -> Any:
    # numpy scalars and arrays become Python values; numpy is whatever the
    # caller imported (hoplab does not need it here).
    tolist = getattr(v, "tolist", None)
    return tolist() if callable(tolist) else v


class _Walk:
    def __init__(self) -> None:
        self.values = 0  # every value is at least 2 bytes of JSON with its separator

    def plain(self, v: Any, where: Where) -> Any:
        """``v`` with Python's own types only; ScenarioError naming ``where``."""
        self.values += 1
        if self.values * 2 > MAX_SCENARIO_BYTES:
            raise too_large(f"over {MAX_SCENARIO_BYTES // (1024 * 1024)} MB as JSON")
        if len(where) > MAX_DEPTH:
            raise scenario_error(path_text(where[:MAX_DEPTH]), f"nested more than {MAX_DEPTH} levels deep "
                                 "(or it contains itself)")
        if type(v).__module__ == "numpy":
            v = _from_numpy(v)
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, numbers.Integral):
            return int(v)
        if isinstance(v, numbers.Real):
            x = float(v)
            if not math.isfinite(x):
                raise scenario_error(path_text(where), f"must be a finite number, not {x}")
            return x
        if isinstance(v, Mapping):
            out = {}
            for k, x in v.items():
                if not isinstance(k, str):
                    raise scenario_error(path_text(where), f"keys must be strings, not {type(k).__name__} ({k!r:.40})")
                out[k] = self.plain(x, [*where, k])
            return out
        if isinstance(v, (list, tuple)):
            return [self.plain(x, [*where, i]) for i, x in enumerate(v)]
        raise scenario_error(path_text(where), f"a {type(v).__name__} is not a scenario value "
                             "(numbers, strings, booleans, lists and tables are)")


def scenario_json(scenario: Mapping[str, Any]) -> str:
    """``scenario`` as JSON for the engine; ScenarioError naming the field of
    a value JSON cannot carry, or for a text over `MAX_SCENARIO_BYTES`."""
    text = json.dumps(_Walk().plain(scenario, []), allow_nan=False)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SCENARIO_BYTES:
        raise too_large(f"{size} bytes as JSON")
    return text
