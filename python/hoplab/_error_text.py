"""One-line scenario errors.

The Rust toml crate reports a syntax error as a caret diagram over several
lines; serde_json ends its messages with "at line 1 column 381" of a JSON
text that, for a dict or a scenario with `--set` overrides, the user never
saw. `tidy` rewrites both into one line and keeps `.field` and `.message`;
a TOML syntax error also gets `.line` and `.column` (1-based), so the CLI
can print `file:line:column: invalid TOML: problem`.
"""

from __future__ import annotations

import re

from . import _core

__all__ = ["shorten", "tidy", "toml_syntax_location", "tomllib_error_parts"]

_TOML_HEAD = re.compile(r"TOML parse error at line (\d+), column (\d+)")
_DIAGRAM = re.compile(r"^\s*\d*\s*\|")  # "  |", "2 | duration = ", "  |     ^"
_JSON_AT = re.compile(r" at line \d+ column \d+$")
_TOMLLIB_AT = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$")
# A run of text too long to be a word the user wants back: serde echoes a
# bad value whole ("unknown variant `xxx...`"), however long it is.
_LONG_RUN = re.compile(r"[^\s`'\"]{121,}")


def shorten(text: str) -> str:
    """``text`` with every run of over 120 characters (other than blanks and
    quotes) cut to its first 60 and its length: a message never echoes a huge input whole."""
    return _LONG_RUN.sub(lambda m: f"{m.group(0)[:60]}... ({len(m.group(0))} characters)", text)


def toml_syntax_location(message: str) -> tuple[int, int, str] | None:
    """``(line, column, problem)`` from the toml crate's multi-line message
    (with or without hoplab's "invalid TOML: " prefix); None if it is not one."""
    m = _TOML_HEAD.search(message)
    if m is None:
        return None
    rest = message[m.end():].splitlines()
    problem = "; ".join(s.strip() for s in rest if s.strip() and not _DIAGRAM.match(s))
    return int(m.group(1)), int(m.group(2)), problem or "syntax error"


def tomllib_error_parts(message: str) -> tuple[int | None, int | None, str]:
    """``(line, column, problem)`` of a tomllib.TOMLDecodeError's text."""
    m = _TOMLLIB_AT.match(message)
    if m is None:
        return None, None, message
    text = m.group(1)
    return int(m.group(2)), int(m.group(3)), text[:1].lower() + text[1:]


def _new(field: str, message: str, text: str) -> Exception:
    e = _core.ScenarioError(text)
    e.field = field
    e.message = message
    return e


def tidy(e: Exception, *, internal_json: bool = False) -> Exception:
    """``e`` (a ScenarioError) as a one-line ScenarioError.

    ``internal_json``: the text parsed was JSON that hoplab generated (from a
    dict or after --set), so its line/column mean nothing to the user."""
    field = getattr(e, "field", "") or ""
    message = getattr(e, "message", None) or str(e)
    loc = toml_syntax_location(message)
    if loc is not None:
        line, col, problem = loc
        out = _new(field, f"invalid TOML: {problem}", f"invalid TOML at line {line}, column {col}: {problem}")
        out.line, out.column = line, col
        return out
    if internal_json:
        message = _JSON_AT.sub("", message)
    if "\n" in message:  # anything else multi-line: keep every line, on one
        message = "; ".join(s.strip() for s in message.splitlines() if s.strip())
    message, field = shorten(message), shorten(field)
    if message == getattr(e, "message", None) and field == (getattr(e, "field", "") or ""):
        return e
    return _new(field, message, f"{field}: {message}" if field else message)
