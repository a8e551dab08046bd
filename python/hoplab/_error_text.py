"""One-line scenario errors.

The engine gives a scenario error's position as attributes, taken from
its parsers' structured positions (the toml crate's span, serde_json's
line and column): `.line` and `.column` (1-based, None when it has none),
beside `.field` and `.message`. `tidy` keeps an error to one line and
drops positions that point into JSON hoplab generated itself, so the CLI
can print `file:line:column: invalid TOML: problem`. Nothing here reads a
position out of message text.
"""

from __future__ import annotations

import re
from typing import Any

from . import _core

__all__ = ["error_text", "position", "shorten", "tidy", "tomllib_error_parts"]

# A run of text too long to be a word the user wants back: serde echoes a
# bad value whole ("unknown variant `xxx...`"), however long it is.
_LONG_RUN = re.compile(r"[^\s`'\"]{121,}")


def shorten(text: str) -> str:
    """``text`` with every run of over 120 characters (other than blanks and
    quotes) cut to its first 60 and its length: a message never echoes a huge input whole."""
    return _LONG_RUN.sub(lambda m: f"{m.group(0)[:60]}... ({len(m.group(0))} characters)", text)


def position(e: BaseException) -> tuple[int, int] | None:
    """``(line, column)`` the engine's parser gave the error, or None."""
    line, column = getattr(e, "line", None), getattr(e, "column", None)
    return (line, column) if line is not None and column is not None else None


def error_text(field: str, message: str, at: tuple[int, int] | None) -> str:
    """The engine's own one-line form (ScenarioError's Display in Rust):
    `field: message (at line L, column C)`."""
    text = f"{field}: {message}" if field else message
    return f"{text} (at line {at[0]}, column {at[1]})" if at else text


def tomllib_error_parts(e: Any) -> tuple[int | None, int | None, str]:
    """``(line, column, problem)`` of a tomllib.TOMLDecodeError from its
    attributes (`lineno`, `colno`, `msg`: Python 3.14 and later). Before 3.14
    it has none: the problem is its whole text, which states the position."""
    line, column, msg = getattr(e, "lineno", None), getattr(e, "colno", None), getattr(e, "msg", None)
    if line is None or column is None or not msg:
        return None, None, str(e)
    return line, column, msg[:1].lower() + msg[1:]


def _new(field: str, message: str, at: tuple[int, int] | None) -> Exception:
    e = _core.ScenarioError(error_text(field, message, at))
    e.field = field
    e.message = message
    e.line, e.column = at if at else (None, None)
    return e


def tidy(e: Exception, *, internal_json: bool = False) -> Exception:
    """``e`` (a ScenarioError) as a one-line ScenarioError.

    ``internal_json``: the text parsed was JSON that hoplab generated (from a
    dict or after --set), so a line/column in it means nothing to the user."""
    field = getattr(e, "field", "") or ""
    message = getattr(e, "message", None) or str(e)
    at = None if internal_json else position(e)
    if "\n" in message:  # anything multi-line: keep every line, on one
        message = "; ".join(s.strip() for s in message.splitlines() if s.strip())
    message, field = shorten(message), shorten(field)
    if message == getattr(e, "message", None) and field == (getattr(e, "field", "") or "") and at == position(e):
        return e
    return _new(field, message, at)
