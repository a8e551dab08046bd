"""Figures of hoplab results (matplotlib, headless: PNG, SVG or PDF by the
output file's suffix).

    sweep(df, x, y, by=None, curves=...)  mean and t confidence interval per cell,
                                          one line per level of `by` (the papers' main figure)
    timeseries(result, flow=None)         cwnd/ssthresh and srtt/rto of one run over time
    nodes(result)                         per-node queue length and drops by cause
    models(curves, xlabel=, ylabel=)      model curves alone; builders in `curves`
    save(fig, path)                       write a Figure by the path's suffix

Every function returns the `matplotlib.figure.Figure` and saves it when
given ``path``. Importing `hoplab` does not import matplotlib; this package
never imports pyplot, so it selects no backend and changes no global state
(figures are `Figure` objects drawn by Agg/SVG/PDF canvases on save).
Bad input raises `PlotError` (a ValueError) naming the column or option.
"""

from . import curves, tables
from ._figure import FORMATS, save
from .curves import Curve
from .errors import PlotError
from .model_figure import models
from .nodes import nodes
from .sweep import sweep
from .timeseries import timeseries

__all__ = ["sweep", "timeseries", "nodes", "models", "curves", "Curve", "save", "PlotError", "FORMATS"]
