"""What ns-2's movement and connection files share: they are Tcl scripts of
one command per line, `#` comments and blank lines, and numbers in Tcl's
decimal syntax. `Ns2FormatError` names the file and line of a problem."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Iterator

from ..._safe_read import read_text_bounded

__all__ = ["Ns2FormatError", "read_text", "commands", "number", "index", "clip", "NAME"]

# A Tcl double as setdest and cbrgen print it (`%.12f`, `1e-05`, `.5`); no
# `nan`, `inf`, hex or underscores, which Python's float() would accept.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# A Tcl variable, optionally an array element: `udp_(0)`, `ns_`, `node_(12)`.
NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\([A-Za-z0-9_]*\))?"


class Ns2FormatError(ValueError):
    """A line of an ns-2 file hoplab cannot read: ``str(e)`` is
    ``file:line: problem`` (``.path``, ``.line``, ``.problem``)."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        self.path, self.line, self.problem = path, line, problem
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")


def read_text(path: str | Path) -> str:
    """A file's text (at most 16 MB; FIFOs and devices refused), as UTF-8."""
    return read_text_bounded(Path(path))


def commands(text: str) -> Iterator[tuple[int, str]]:
    """(line number, command) for each line that is not blank or a comment."""
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield no, line


def number(tok: str, what: str) -> float:
    """``tok`` as a float; ValueError naming ``what`` if it is not a finite decimal number."""
    if not _NUMBER.fullmatch(tok):
        raise ValueError(f"{what}: {clip(tok)} is not a number")
    v = float(tok)
    if not math.isfinite(v):
        raise ValueError(f"{what}: {clip(tok)} is out of range")
    return v


def index(tok: str, what: str) -> int:
    """``tok`` as a non-negative integer (a node or array index)."""
    if not tok.isdigit() or not tok.isascii():
        raise ValueError(f"{what}: {clip(tok)} is not a node index (a non-negative integer)")
    return int(tok)


def clip(s: str, n: int = 40) -> str:
    """A token or line quoted for an error message, shortened to ``n`` characters."""
    return repr(s if len(s) <= n else s[:n] + "...")
