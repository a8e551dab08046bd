"""What ns-2's movement and connection files share: they are Tcl scripts
(ns-2 `source`s them), split into commands and words as Tcl splits them, with
`#` comments, and numbers in Tcl's decimal syntax. `Ns2FormatError` names the
file and line of a problem.

How Tcl splits a sourced file (Tcl 8.5, which ns-2.35 uses):

- `source` reads the file through a channel in the default input
  translation, `auto`: LF, CR and CRLF each end a line (fconfigure.n
  -translation auto); it stops at ^Z, "the end-of-file character for files"
  (source.n).
- Commands end at a newline or a semicolon (Tcl.n rule [1]) that is not
  inside quotes, braces or brackets (Tcl 8.5's rules [4], [6], [7]); a backslash-newline and
  the spaces and tabs after it are a single space (rule [9]), also inside a
  comment, which it continues.
- Words are separated by white space (rule [3]): space, tab, vertical tab,
  form feed and carriage return, the TYPE_SPACE characters of tclParse.c's
  character table. Nothing else ends a line or separates words: a form feed
  is white space within a line, and a no-break space, U+0085, U+001C or
  U+2028 is an ordinary character of a word (Python's str.splitlines and
  str.split would split there).
- A `#` where a command begins starts a comment up to the end of the line
  (rule [10]); elsewhere it is an ordinary character.

The readers match commands with regular expressions compiled with re.ASCII,
so that `\\s` is exactly Tcl's white space (plus the newline, which a command
outside quotes cannot hold)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Iterator

from ..._safe_read import read_text_bounded
from . import _limits

__all__ = ["Ns2FormatError", "read_text", "commands", "number", "index", "clip", "shown", "NAME", "TCL_SPACE"]

# A Tcl double as setdest and cbrgen print it (`%.12f`, `1e-05`, `.5`); no
# `nan`, `inf`, hex or underscores, which Python's float() would accept.
# Each digit can be matched one way only: `[0-9]+\.?[0-9]*` could split a run
# of digits anywhere, and a long run that fails to match took quadratic time.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Tcl's word separators (tclParse.c: TYPE_SPACE): space, \t, \v, \f, \r.
TCL_SPACE = " \t\v\f\r"
# Longest integer read (a node index, a packet count, a byte count): every
# range hoplab checks ends below 10^18, and Python refuses to convert more
# than 4300 digits at all (sys.get_int_max_str_digits).
_MAX_DIGITS = 18
# Runs of characters with no meaning to Tcl's command splitting (scanned at once).
_PLAIN = re.compile(r'[^\\\n;"{}\[\] \t\v\f\r]+')
_SPACES = re.compile(r"[ \t\v\f\r]+")
# A comment: up to an unescaped newline; a backslash-newline continues it.
_COMMENT = re.compile(r"#[^\\\n]*(?:\\[\s\S][^\\\n]*)*\\?")  # unrolled: no nested quantifier
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


def _tcl_lines(text: str) -> str:
    """The text as Tcl's `source` sees it: up to ^Z, CR and CRLF read as LF."""
    end = text.find("\x1a")  # source.n: the end-of-file character
    if end >= 0:
        text = text[:end]
    return text.replace("\r\n", "\n").replace("\r", "\n")  # fconfigure.n: -translation auto


def commands(text: str) -> Iterator[tuple[int, str]]:
    """(line number, command) for each command of the script: blank commands
    and comments are skipped; a backslash-newline inside a command becomes a
    space. The line is where the command begins; line numbers count LF, CR
    and CRLF, as Tcl's `source` reads them."""
    s = _tcl_lines(text)
    n, i, line = len(s), 0, 1
    while i < n:
        # Between commands: white space, newlines and semicolons.
        c = s[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in TCL_SPACE or c == ";":
            i += 1
            continue
        if c == "\\" and i + 1 < n and s[i + 1] == "\n":  # rule [9]: white space
            line += 1
            i += 2
            continue
        if c == "#":  # rule [10]: up to an unescaped newline
            m = _COMMENT.match(s, i)
            line += m.group().count("\n")  # type: ignore[union-attr]
            i = m.end()  # type: ignore[union-attr]
            continue
        start_line, out = line, []
        quoted = False  # inside "..." (rule [4])
        braces = brackets = 0  # rules [6], [7]
        word_start = True
        while i < n:
            if (p := _PLAIN.match(s, i)) is not None:
                out.append(p.group())
                i = p.end()
                word_start = False
                continue
            if (p := _SPACES.match(s, i)) is not None:
                out.append(p.group())
                i = p.end()
                word_start = not (quoted or braces or brackets)
                continue
            c = s[i]
            if c == "\\" and i + 1 < n:
                if s[i + 1] == "\n":  # rule [9]: backslash-newline-white space is one space
                    line += 1
                    i += 2
                    while i < n and s[i] in " \t":
                        i += 1
                    out.append(" ")
                    word_start = True
                    continue
                out.append(s[i:i + 2])
                i += 2
                word_start = False
                continue
            if c == "\n":
                if not (quoted or braces or brackets):
                    break
                line += 1
            elif c == ";" and not (quoted or braces or brackets):
                break
            elif braces:
                braces += (c == "{") - (c == "}")
            elif c == '"' and (quoted or word_start) and not brackets:
                quoted = not quoted
            elif c == "{" and word_start and not quoted and not brackets:
                braces = 1
            elif c == "[":
                brackets += 1
            elif c == "]" and brackets:
                brackets -= 1
            word_start = c in TCL_SPACE and not quoted and not braces and not brackets
            out.append(c)
            i += 1
        cmd = "".join(out).strip(TCL_SPACE)
        if cmd:
            yield start_line, cmd


def number(tok: str, what: str) -> float:
    """``tok`` as a float; ValueError naming ``what`` if it is not a finite decimal number."""
    if not _NUMBER.fullmatch(tok):
        raise ValueError(f"{what}: {clip(tok)} is not a number")
    v = float(tok)
    if not math.isfinite(v):
        raise ValueError(f"{what}: {clip(tok)} is out of range")
    return v


def index(tok: str, what: str, field: str | None = None) -> int:
    """``tok`` as a non-negative integer (a node or array index, a count),
    checked against the schema field ``field``'s range when given."""
    if not tok.isdigit() or not tok.isascii():
        raise ValueError(f"{what}: {clip(tok)} is not a node index (a non-negative integer)"
                         if what == "node" else f"{what}: {clip(tok)} is not a non-negative integer")
    if len(tok.lstrip("0")) > _MAX_DIGITS:  # int() of it would be slow, or refused
        if field is None:
            raise ValueError(f"{what} {clip(tok)} is out of range")
        _limits.check(math.inf, field, f"{what} {shown(tok)}")
    v = int(tok)
    if field is not None:
        _limits.check(v, field, f"{what} {shown(tok)}")
    return v


def shown(tok: str) -> str:
    """A token for a message: as written if short printable ASCII without
    white space, else quoted and clipped (never a raw line separator)."""
    plain = len(tok) <= 40 and tok.isascii() and tok.isprintable() and " " not in tok
    return tok if plain and tok else clip(tok)


def clip(s: str, n: int = 40) -> str:
    """A token or line quoted for an error message, shortened to ``n`` characters."""
    return repr(s if len(s) <= n else s[:n] + "...")
