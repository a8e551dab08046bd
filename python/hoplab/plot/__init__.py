"""Figures of hoplab results (matplotlib, headless: PNG, SVG or PDF by the
output file's suffix).

    sweep(df, x, y, by=None, curves=...)  mean and t confidence interval per cell,
                                          one line per level of `by` (the papers' main figure)
    topology(source, at=0.0)              nodes, radio range and flows' paths of a run or scenario at a time
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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import PlotError

__all__ = ["sweep", "topology", "timeseries", "nodes", "models", "curves", "Curve", "save", "PlotError", "FORMATS"]

# A plot imports only what it draws with: `timeseries` needs matplotlib but
# not the statistics (scipy) that `sweep`'s confidence intervals use, nor
# pandas' table readers. Each name imports its module on first use (PEP 562).
_WHERE = {"sweep": ("sweep", "sweep"), "topology": ("topology", "topology"), "timeseries": ("timeseries", "timeseries"), "nodes": ("nodes", "nodes"),
          "models": ("model_figure", "models"), "curves": ("curves", None), "tables": ("tables", None),
          "Curve": ("curves", "Curve"), "save": ("_figure", "save"), "FORMATS": ("_figure", "FORMATS")}

if TYPE_CHECKING:
    from . import curves, tables
    from ._figure import FORMATS, save
    from .curves import Curve
    from .model_figure import models
    from .nodes import nodes
    from .sweep import sweep
    from .topology import topology
    from .timeseries import timeseries


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .._extras import require

    require("plot", f"hoplab.plot.{name}", ("matplotlib",))  # sweep asks hoplab.stats for scipy
    module, attr = _WHERE[name]
    value = importlib.import_module(f"{__name__}.{module}")
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
