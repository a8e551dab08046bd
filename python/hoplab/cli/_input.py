"""Reading a scenario file for a command: its text, a dict with --set
overrides applied, file:line:column on a syntax error, and refusing TOML
dates (which no field takes, and which JSON cannot carry). Every failure is
a one-line HoplabError."""

from __future__ import annotations

import datetime as _dt
import json
import tomllib
from pathlib import Path
from typing import Any

from .. import _core
from .._error_text import position, tomllib_error_parts
from .._run import read_scenario_source
from .._scenario_json import scenario_json
from ..overrides import path_text
from .errors import HoplabError, os_error_text, scenario_failure

__all__ = ["parse_scenario_text", "read", "scenario_dict", "with_overrides"]


def _first_date(v: Any, where: list[str | int]) -> list[str | int] | None:
    if isinstance(v, (_dt.date, _dt.time)):
        return where
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        found = _first_date(x, where + [k])
        if found is not None:
            return found
    return None


def _engine_syntax_error(text: str, kind: str) -> tuple[int, int, str] | None:
    """The engine's own report of a syntax error (its position and problem,
    "invalid TOML: ..." / "invalid JSON: ..."), so that a file gives the
    same message with and without --set; None if the engine finds none."""
    try:
        _core.check_scenario(text, kind)
    except _core.ScenarioError as e:
        at, message = position(e), getattr(e, "message", "") or ""
        if at is None or getattr(e, "field", "") or not message.startswith(f"invalid {kind.upper()}: "):
            return None  # not a syntax error: the engine parsed the text
        return at[0], at[1], message
    except Exception:  # any other failure: fall back to Python's parser's message
        return None
    return None


def parse_scenario_text(path: Path, text: str, kind: str) -> dict[str, Any]:
    """The scenario file's text as a dict; ValueError with a one-line
    `file:line:column: invalid TOML: problem` (or JSON) message."""
    if kind == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            line, col, problem = _engine_syntax_error(text, kind) or (e.lineno, e.colno, f"invalid JSON: {e.msg}")
            raise ValueError(f"{path}:{line}:{col}: {problem}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: invalid JSON: the scenario must be an object")
        return data
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = _engine_syntax_error(text, kind)
        if found is None:
            line, col, problem = tomllib_error_parts(e)
            found = line, col, f"invalid TOML: {problem}"
        line, col, problem = found
        where = f"{path}:{line}:{col}" if line is not None else str(path)
        raise ValueError(f"{where}: {problem}") from None
    found = _first_date(data, [])
    if found is not None:
        raise ValueError(f"{path}: {path_text(found)}: a TOML date or time, which no scenario field takes "
                         "(quote it to make it a string)")
    return data


def read(path: Path) -> tuple[str, str]:
    """The file's text and kind ("toml" or "json")."""
    try:
        text, fmt, _ = read_scenario_source(Path(path))
    except UnicodeDecodeError as e:
        raise HoplabError(f"{path}: not a UTF-8 text file ({e.reason})") from None
    except OSError as e:
        raise HoplabError(os_error_text(e, path)) from None
    return text, fmt


def scenario_dict(path: Path, text: str, kind: str, sets: tuple[str, ...]) -> dict[str, Any]:
    """The scenario as a dict, with --set overrides applied."""
    from .. import overrides

    try:
        data = parse_scenario_text(path, text, kind)
    except ValueError as e:
        raise HoplabError(str(e)) from None
    try:
        overrides.apply(data, sets)
    except overrides.OverrideError as e:
        raise HoplabError(str(e)) from None
    return data


def with_overrides(path: Path, text: str, kind: str, sets: tuple[str, ...]) -> tuple[str, str]:
    """Apply --set overrides: the scenario becomes a dict sent as JSON."""
    if not sets:
        return text, kind
    try:
        # NaN or infinity (`--set duration_s=nan`) named by field, not "expected value"
        return scenario_json(scenario_dict(path, text, kind, sets)), "json"
    except _core.ScenarioError as e:
        raise scenario_failure(e, path, sets) from None
