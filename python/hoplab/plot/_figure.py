"""Figures without pyplot, and saving them in the format the file's suffix names.

`matplotlib.figure.Figure` is created directly, never through pyplot, so no
backend is selected, no GUI is touched and no global state of the caller's
matplotlib changes: drawing is headless on any machine, and a user's own
pyplot session (interactive or not) is left as it was. `Figure.savefig`
picks the Agg, SVG or PDF canvas from the format.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from .errors import PlotError

# Suffix -> matplotlib format name: the three the issue asks for.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
DPI = 150


def new_figure(rows: int = 1, *, width: float = 6.4, height: float = 4.2, sharex: bool = False) -> tuple[Figure, Any]:
    """A Figure with ``rows`` stacked axes (one Axes, or an array of them)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, 1, sharex=sharex, squeeze=True)
    return fig, axes


def format_of(path: str | Path) -> str:
    """The output format for ``path`` from its suffix, or PlotError naming it."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        shown = suffix or "(none)"
        raise PlotError(str(path), f"unknown output suffix {shown}: use .png, .svg or .pdf")
    return FORMATS[suffix]


def save(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` as PNG, SVG or PDF (by suffix); returns the path."""
    fmt = format_of(path)
    path = Path(path)
    # Fixed metadata: the same figure gives the same bytes (no creation date in SVG/PDF).
    metadata = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    fig.savefig(path, format=fmt, dpi=DPI, metadata=metadata)
    return path


def finish(fig: Figure, path: str | Path | None) -> Figure:
    """Save ``fig`` if a path is given (checking the suffix first) and return it."""
    if path is not None:
        save(fig, path)
    return fig
