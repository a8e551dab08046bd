"""`hoplab.run`: a scenario (file, TOML text or dict) in, a `Result` out."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Mapping

from . import _core, _deprecation
from .result import Result

__all__ = ["run", "run_text", "read_scenario_source"]

_U64_MAX = 2**64 - 1


def _check_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if not 0 <= seed <= _U64_MAX:
        raise ValueError(f"seed must be in 0..2**64-1, got {seed}")
    return seed


def _looks_like_path(s: str) -> bool:
    # Every scenario needs `duration = ...`, so TOML text has an '=';
    # a single line without one can only be meant as a file name.
    return "\n" not in s and "=" not in s


def read_scenario_source(scenario: Any) -> tuple[str, str, Path | None]:
    """Return ``(text, format, path)`` for a path, TOML string or dict.

    ``format`` is "toml" or "json"; ``path`` is the file read, if any.
    Raises FileNotFoundError (or another OSError) for a file that cannot be read.
    """
    if isinstance(scenario, Mapping):
        return json.dumps(scenario), "json", None
    if isinstance(scenario, str):
        is_file = "\n" not in scenario and os.path.isfile(scenario)
        if not is_file and not _looks_like_path(scenario):
            return scenario, "toml", None
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        if not path.exists():
            raise FileNotFoundError(errno.ENOENT, "scenario file not found", str(path))
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "scenario path is a directory, not a file", str(path))
        text = path.read_text(encoding="utf-8")
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return text, fmt, path
    raise TypeError(
        f"scenario must be a path, a TOML string or a dict, not {type(scenario).__name__}")


def run(scenario: Any, seed: int | None = None) -> Result:
    """Run one simulation and return its `Result`.

    ``scenario`` is a `pathlib.Path` or str naming a TOML (or .json) file, a
    TOML string, or a dict of the same structure. ``seed`` overrides the
    scenario's ``seed``. The simulation runs with the GIL released.

    Raises `hoplab.ScenarioError` (a ValueError with ``.field`` and
    ``.message``) for an invalid scenario and FileNotFoundError for a
    missing file.
    """
    seed = _check_seed(seed)
    text, fmt, _path = read_scenario_source(scenario)
    return run_text(text, fmt, seed)


def run_text(text: str, fmt: str, seed: int | None) -> Result:
    """Run scenario text in ``fmt`` ("toml" or "json"); raises ScenarioError.

    Old key names work and raise a `ScenarioKeyDeprecationWarning` each."""
    _deprecation.check(text, fmt)
    raw = _core.run_json(text, seed) if fmt == "json" else _core.run_toml(text, seed)
    return Result.from_core(raw, scenario_text=text, scenario_format=fmt)
