"""Write the page: page.html with anim.css, anim.js and the run's data inlined.

The three files are package data read through importlib.resources (an
installed wheel finds them as a checkout does); nothing in the page loads
from the network.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

from .data import DEFAULT_MAX_FRAMES, build

__all__ = ["html", "view"]


def _asset(name: str) -> str:
    return (resources.files("hoplab") / "_view" / name).read_text(encoding="utf-8")


def _json_in_script(text: str) -> str:
    """JSON that cannot end its <script> element early (HTML §4.12.1.3: a
    script's content must not hold "</script" or "<!--"); "<\\/" is JSON's own
    escape of "/", so the parsed data is unchanged."""
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def _js() -> str:
    js = _asset("anim.js")
    if "</script" in js.lower() or "<!--" in js:  # a page that would break: a bug in anim.js, not the run
        raise RuntimeError("anim.js holds '</script' or '<!--' and cannot be inlined")
    return js


def html(data: dict[str, Any]) -> str:
    """The whole page for ``data`` (what `data.build` returns)."""
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False)
    title = f"hoplab view: {data['meta']['scenario']}"
    parts = {"title": _html_escape(title), "css": _asset("anim.css"), "data": _json_in_script(payload), "js": _js()}
    # One pass, so that a placeholder's text inside the data is left as it is.
    page = re.sub(r"\{\{(title|css|data|js)\}\}", lambda m: parts[m.group(1)], _asset("page.html"))
    return page


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def view(run: Any, path: str | os.PathLike[str] | None = None, *, start: float | None = None,
         end: float | None = None, max_frames: int = DEFAULT_MAX_FRAMES) -> Path:
    """Write the animation of ``run`` (a result directory with its anim.csv,
    or a `Result` with a trace) to ``path`` (default: RUN_DIR/view.html) and
    return the path. Raises `ViewInputError` (one line) for a run it cannot
    draw, e.g. a directory without anim.csv."""
    data = build(run, start=start, end=end, max_frames=max_frames)
    if path is None:
        if isinstance(run, (str, os.PathLike)):
            path = Path(run) / "view.html"
        else:
            raise ValueError("view(result): give the path of the page to write")
    out = Path(path)
    out.write_text(html(data), encoding="utf-8")
    return out
