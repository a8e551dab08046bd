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
from .._error_text import toml_syntax_location, tomllib_error_parts
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


def _engine_syntax_error(text: str) -> tuple[int, int, str] | None:
    """The engine's own (more specific) report of a TOML syntax error, so
    that a file gives the same message with and without --set."""
    try:
        _core.validate_toml(text)
    except _core.ScenarioError as e:
        return toml_syntax_location(getattr(e, "message", "") or str(e))
    except Exception:  # any other failure: fall back to tomllib's message
        return None
    return None


def parse_scenario_text(path: Path, text: str, kind: str) -> dict[str, Any]:
    """The scenario file's text as a dict; ValueError with a one-line
    `file:line:column: invalid TOML: problem` (or JSON) message."""
    if kind == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: invalid JSON: the scenario must be an object")
        return data
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line, col, problem = _engine_syntax_error(text) or tomllib_error_parts(str(e))
        where = f"{path}:{line}:{col}" if line is not None else str(path)
        raise ValueError(f"{where}: invalid TOML: {problem}") from None
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
