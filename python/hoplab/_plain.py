"""Python values as a scenario or a design can hold them: TOML's tables,
arrays, strings, numbers and booleans (and JSON's null), with numpy scalars
and arrays turned into Python's own (without importing numpy).

One walk for both readers of nested values from Python, the engine's JSON
(`_scenario_json`) and a design (`lab.design`): each maps `NotPlain` to its
own error class and path spelling. Iterative, so a value nested thousands
deep is refused at `max_depth`, never a RecursionError.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
from typing import Any, Mapping

__all__ = ["NotPlain", "plain"]

Path = list[str | int]


class NotPlain(ValueError):
    """``path`` (keys and indices from the root) holds what cannot be a value; ``reason`` says why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


class TooMany(NotPlain):
    """More values than ``max_values``."""


def _from_numpy(v: Any) -> Any:
    tolist = getattr(v, "tolist", None)
    return tolist() if callable(tolist) else v


def _scalar(v: Any, path: Path) -> Any:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (_dt.date, _dt.time)):  # datetime is a date
        raise NotPlain(path, f"a TOML date or time ({v.isoformat()}) is not a scenario value (quote it to give a string)")
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        x = float(v)
        if not math.isfinite(x):
            raise NotPlain(path, f"must be a finite number, not {x}")
        return x
    raise NotPlain(path, f"a {type(v).__name__} is not a scenario value (numbers, strings, booleans, lists and tables are)")


def plain(value: Any, *, max_depth: int, max_values: int | None = None) -> Any:
    """A copy of ``value`` with Python's own types only; `NotPlain` naming
    the path of the first value that cannot be one (also for nesting deeper
    than ``max_depth``, which ends a cycle too, and a key that is not a
    string), `TooMany` past ``max_values`` values."""
    root: list[Any] = [None]
    # (value, path, the container to put it in, the slot there)
    stack: list[tuple[Any, Path, Any, Any]] = [(value, [], root, 0)]
    count = 0
    while stack:
        v, path, into, slot = stack.pop()
        count += 1
        if max_values is not None and count > max_values:
            raise TooMany(path, f"more than {max_values} values")
        if type(v).__module__ == "numpy":
            v = _from_numpy(v)
        if isinstance(v, Mapping) or isinstance(v, (list, tuple)):
            if len(path) >= max_depth:
                raise NotPlain(path, f"arrays or tables nested more than {max_depth} deep (or a value that contains itself)")
            if isinstance(v, Mapping):
                out: Any = {}
                items = list(v.items())
                for k, _ in items:
                    if not isinstance(k, str):
                        raise NotPlain(path, f"keys must be strings, not {type(k).__name__} ({k!r:.40})")
                    out[k] = None  # keeps the keys' order
            else:
                out = [None] * len(v)
                items = list(enumerate(v))
            into[slot] = out
            # Reversed, so that the first value is checked (and named) first.
            stack.extend((x, [*path, k], out, k) for k, x in reversed(items))
        else:
            into[slot] = _scalar(v, path)
    return root[0]
