"""Plain-text and markdown tables for terminal summaries (no dependencies)."""

from __future__ import annotations

import math
from typing import Any, Sequence


def fmt_num(v: Any, digits: int = 1) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "-"
    if f.is_integer() and abs(f) < 1e15 and digits == 0:
        return f"{int(f):,}"
    return f"{f:,.{digits}f}"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str | None = None) -> str:
    """A table with a header rule; numbers right-aligned by default.

    ``align`` is one character per column, ``l`` or ``r``.
    """
    cells = [[str(c) for c in r] for r in rows]
    ncol = len(headers)
    if align is None:
        align = "l" + "r" * (ncol - 1)
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))

    def line(cols: Sequence[str]) -> str:
        parts = []
        for i, c in enumerate(cols):
            parts.append(c.ljust(widths[i]) if align[i] == "l" else c.rjust(widths[i]))
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str | None = None) -> str:
    if align is None:
        align = "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str | None = None) -> str:
    """The same table as HTML (Jupyter's display), cells escaped."""
    from html import escape

    if align is None:
        align = "l" + "r" * (len(headers) - 1)
    side = {"l": "left", "r": "right"}

    def cells(tag: str, values: Sequence[Any]) -> str:
        return "".join(f'<{tag} style="text-align: {side[a]}">{escape(str(v))}</{tag}>' for a, v in zip(align, values))

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f"<table><thead><tr>{cells('th', headers)}</tr></thead><tbody>{body}</tbody></table>"
