"""The papers' main figure: the mean of a response per level of a factor,
with confidence intervals, one line per level of a second factor (e.g.
throughput against the window clamp, one line per chain length: seed 000
Figs. 4-5; seed 004 Fig. 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._columns import level_text, levels, numeric, require_columns
from ._figure import finish, format_of, new_figure
from .curves import Curve
from .errors import PlotError
from .labels import axis_label
from .summary import describe


def sweep(df: pd.DataFrame, x: str, y: str, by: str | None = None, *, curves: Iterable[Curve] = (),
          confidence: float = 0.95, title: str | None = None, path: str | Path | None = None) -> Figure:
    """Mean of ``y`` per (``by``, ``x``) cell with t-based ``confidence``
    intervals as error bars, one line per level of ``by``.

    ``df`` is tidy: one row per run (and flow), e.g. `hoplab.lab.load(store)`
    or a `reproduce --out` directory's runs.csv. Rows whose ``y`` is NaN (a
    failed run) are left out; every row is one sample, so with several flows
    per run select one first (`--where flow=0`). A numeric ``x`` (also level labels such as
    "2", "32") is placed by value, any other in order of first appearance.
    ``curves`` (see `hoplab.plot.curves`) are drawn dashed over the data, in
    the colour of their ``level`` of ``by``. Saves to ``path`` (.png, .svg,
    .pdf) if given; returns the Figure.
    """
    if path is not None:
        format_of(path)  # an unknown suffix fails before any work
    if not 0 < confidence < 1:
        raise PlotError("confidence", f"must be in (0, 1), not {confidence}")
    require_columns(df, x, y, by)
    xs, x_levels, x_num = levels(df[x])
    data = pd.DataFrame({"x": xs, "y": numeric(df, y)})
    if by is not None:
        data["by"], by_levels, _ = levels(df[by])
    data = data.dropna(subset=["y"])
    if len(data) == 0:
        raise PlotError(f"column {y!r}", "has no values (every run failed?)")
    curves = list(curves)
    if curves and not x_num:
        raise PlotError("curves", f"model curves need a numeric x, and column {x!r} is not")
    cells = describe(data, "y", ["by", "x"] if by is not None else ["x"], confidence)
    position = {v: (v if x_num else i) for i, v in enumerate(x_levels)}
    tick = {v: level_text(v) for v in x_levels}
    if x_num and x.rsplit(".", 1)[-1] == "max_cwnd" and 0 in position and len(x_levels) > 1:
        # tcp.max_cwnd = 0 means unclamped (docs/SCENARIO.md): drawn one step
        # right of the largest clamp, labelled "unclamped", not at W = 0.
        clamps = x_levels[1:]
        step = (clamps[-1] - clamps[0]) / (len(clamps) - 1) if len(clamps) > 1 else 1.0
        x_levels = clamps + [0.0]
        position[0.0] = clamps[-1] + step
        tick[0.0] = "unclamped"

    fig, ax = new_figure()
    colours = {}
    for level in (by_levels if by is not None else [None]):
        c = cells if level is None else cells[cells["by"] == level]
        if len(c) == 0:
            continue
        c = c.assign(pos=c["x"].map(position)).sort_values("pos")
        mean = c["mean"].to_numpy()
        yerr = np.vstack([mean - c["ci_low"].to_numpy(), c["ci_high"].to_numpy() - mean])
        cont = ax.errorbar(c["pos"].to_numpy(), mean, yerr=yerr, marker="o", capsize=3,
                           label=None if level is None else level_text(level))
        colours[level] = cont.lines[0].get_color()
    for curve in curves:
        ax.plot(curve.x, curve.y, linestyle="--", linewidth=1,
                color=colours.get(curve.level, "0.3"), label=curve.label)

    ax.set_xlabel(axis_label(x))
    ax.set_ylabel(axis_label(y))
    ax.set_xticks([position[v] for v in x_levels], [tick[v] for v in x_levels])
    ax.set_ylim(bottom=0 if cells["ci_low"].fillna(cells["mean"]).min() >= 0 else None)
    ax.grid(True, alpha=0.3)
    n = cells["n"]
    runs = f"{n.min()}" if n.min() == n.max() else f"{n.min()}-{n.max()}"
    note = f"mean ± {confidence * 100:g} % confidence interval (Student t), n = {runs} per point"
    ax.set_title((title + "\n" if title else "") + note, fontsize=9 if not title else None)
    handles, labels = ax.get_legend_handles_labels()
    # The data's levels first, then the model curves (matplotlib lists plain lines first).
    order = sorted(range(len(handles)), key=lambda i: not hasattr(handles[i], "has_yerr"))
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    if labels:  # outside the axes, so that no line is hidden under it
        fig.legend(handles, labels, title=axis_label(by) if by is not None else None, fontsize=8,
                   loc="outside right upper")
    return finish(fig, path)
