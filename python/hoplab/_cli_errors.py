"""Helpers that keep the CLI's errors to one line: parsing a scenario file's
text with file:line:column on a syntax error, refusing TOML dates (which no
field takes, and which JSON cannot carry), the version line, and the
last-resort handler for a bug."""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import tomllib
import traceback
from pathlib import Path
from typing import Any, NoReturn

from . import _core
from ._error_text import toml_syntax_location, tomllib_error_parts
from .overrides import path_text

__all__ = ["parse_scenario_text", "set_hint", "version_text", "internal_error_exit", "EXIT_INTERNAL"]

EXIT_INTERNAL = 70  # sysexits.h EX_SOFTWARE: an internal software error


def version_text() -> str:
    """`0.1.0 (git 1a2b3c4)`; the commit is "unknown" outside a git build."""
    commit = getattr(_core, "__git_commit__", None) or "unknown"
    return f"{_core.__version__} (git {commit})"


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


def set_hint(e: BaseException, sets: tuple[str, ...]) -> str:
    """` (from --set a.b=1)` when the error names a table that a --set
    override went into: the engine names only the enclosing field for some
    structures (e.g. `topology`, a tagged union), so this says which value
    it was."""
    field = getattr(e, "field", "") or ""
    if not field:
        return ""
    hits = [a for a in sets if a.partition("=")[0].strip().startswith((f"{field}.", f"{field}["))]
    return f" (from --set {', '.join(hits)})" if hits else ""


def internal_error_exit(e: BaseException) -> NoReturn:
    """Report a bug in one line (the traceback with HOPLAB_DEBUG=1), exit 70."""
    if os.environ.get("HOPLAB_DEBUG", "") not in ("", "0"):
        traceback.print_exception(e)
    msg = " ".join(str(e).split())  # one line whatever the exception says
    print(f"hoplab: internal error: {type(e).__name__}: {msg} (please report; HOPLAB_DEBUG=1 shows the traceback)",
          file=sys.stderr)
    sys.exit(EXIT_INTERNAL)
