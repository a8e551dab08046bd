"""Model curves on their own axes (`hoplab plot model`)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from matplotlib.figure import Figure

from ._figure import finish, format_of, new_figure
from .curves import Curve
from .errors import PlotError


def models(curves: Iterable[Curve], *, xlabel: str, ylabel: str, title: str | None = None,
           logx: bool = False, logy: bool = False, path: str | Path | None = None) -> Figure:
    """One line per curve (see `hoplab.plot.curves` for the builders)."""
    if path is not None:
        format_of(path)
    curves = list(curves)
    if not curves:
        raise PlotError("curves", "nothing to draw")
    fig, ax = new_figure()
    for c in curves:
        ax.plot(c.x, c.y, label=c.label)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return finish(fig, path)
