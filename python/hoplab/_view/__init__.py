"""`hoplab view`: one self-contained HTML page that animates a run.

The page (plain Canvas 2D and vanilla JS, no framework, no network: the data
is inlined in a `<script type="application/json">` tag because Chromium
blocks `fetch()` from `file://`) is put together from the files beside this
one: page.html, anim.css and anim.js. data.py reads the run, routes.py
follows each flow's path through its frames, page.py writes the file.
"""

from __future__ import annotations

from .data import DEFAULT_MAX_FRAMES, ViewInputError
from .page import view

__all__ = ["DEFAULT_MAX_FRAMES", "ViewInputError", "view"]
