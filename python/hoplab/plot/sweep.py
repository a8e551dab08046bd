"""The papers' main figure: the mean of a response per level of a factor,
with confidence intervals, one line per level of a second factor (e.g.
throughput against the window clamp, one line per chain length: seed 000
Figs. 4-5; seed 004 Fig. 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._columns import levels, numeric, require_columns
from ._figure import finish, format_of, new_figure
from ._legend import place_legend
from ._style import check_style, figure_size, styled
from .curves import Curve
from .errors import PlotError
from .labels import axis_label, is_after_all, level_label
from .summary import describe


def _positions(column: str, values: list[Any], numeric_axis: bool) -> tuple[list[Any], dict[Any, float]]:
    """(levels in drawing order, position of each). Numbers sit at their
    value; a level above all numbers (tcp.max_cwnd = 0, unclamped) one step
    right of the largest; other levels in order of first appearance."""
    if not numeric_axis:
        return values, {v: float(i) for i, v in enumerate(values)}
    after = [v for v in values if is_after_all(column, v)]
    plain = [v for v in values if v not in after]
    position = {v: float(v) for v in plain}
    if after and plain:
        step = (plain[-1] - plain[0]) / (len(plain) - 1) if len(plain) > 1 else 1.0
        position.update({v: plain[-1] + step * (k + 1) for k, v in enumerate(after)})
    else:
        position.update({v: float(v) for v in after})
    return plain + after, position


def sweep(df: pd.DataFrame, x: str, y: str, by: str | None = None, *, curves: Iterable[Curve] = (),
          confidence: float = 0.95, title: str | None = None, xlabel: str | None = None, ylabel: str | None = None,
          by_label: str | None = None, level_names: Mapping[str, Mapping[Any, str]] | None = None,
          size: Any = None, style: str | None = None, path: str | Path | None = None) -> Figure:
    """Mean of ``y`` per (``by``, ``x``) cell with t-based ``confidence``
    intervals as error bars, one line per level of ``by``.

    ``df`` is tidy: one row per run (and flow), e.g. `hoplab.lab.load(store)`
    or a `reproduce --out` directory's runs.csv. Rows whose ``y`` is NaN (a
    failed run) are left out; every row is one sample, so with several flows
    per run select one first (`--where flow=0`). A numeric ``x`` (also level labels such as
    "2", "32") is placed by value, any other in order of first appearance.
    ``curves`` (see `hoplab.plot.curves`) are drawn dashed over the data, in
    the colour of their ``level`` of ``by``.

    Labels: the axes are named by their columns with the schema's unit
    ("Throughput (kbit/s)") unless ``xlabel``/``ylabel``/``by_label`` say
    otherwise; a level the scenario schema gives a meaning ("unclamped" for
    tcp.max_cwnd = 0) reads as that, and ``level_names`` ({column: {value:
    text}}) names any level. The legend sits inside the axes where it hides
    no data, else below them. ``size``: (width, height) inches or "6x4";
    ``style``: "default", "paper" (one column of a paper) or a matplotlib
    style. Saves to ``path`` (.png, .svg, .pdf) if given; returns the Figure.
    """
    if path is not None:
        format_of(path)  # an unknown suffix fails before any work
    if not 0 < confidence < 1:
        raise PlotError("confidence", f"must be in (0, 1), not {confidence}")
    width, height = figure_size(check_style(style), size)
    require_columns(df, x, y, by)
    names = {k: dict(v) for k, v in (level_names or {}).items()}
    xs, x_levels, x_num = levels(df[x])
    data = pd.DataFrame({"x": xs, "y": numeric(df, y)})
    if by is not None:
        data["by"], by_levels, _ = levels(df[by])
        by_levels = sorted(by_levels, key=lambda v: is_after_all(by, v))  # unclamped last
    data = data.dropna(subset=["y"])
    if len(data) == 0:
        raise PlotError(f"column {y!r}", "has no values (every run failed?)")
    curves = list(curves)
    if curves and not x_num:
        raise PlotError("curves", f"model curves need a numeric x, and column {x!r} is not")
    cells = describe(data, "y", ["by", "x"] if by is not None else ["x"], confidence)
    x_levels, position = _positions(x, x_levels, x_num)

    with styled(style):
        fig, ax = new_figure(width=width, height=height)
        colours = {}
        for level in (by_levels if by is not None else [None]):
            c = cells if level is None else cells[cells["by"] == level]
            if len(c) == 0:
                continue
            c = c.assign(pos=c["x"].map(position)).sort_values("pos")
            mean = c["mean"].to_numpy()
            yerr = np.vstack([mean - c["ci_low"].to_numpy(), c["ci_high"].to_numpy() - mean])
            cont = ax.errorbar(c["pos"].to_numpy(), mean, yerr=yerr, marker="o", capsize=3,
                               label=None if level is None else level_label(by, level, names.get(by)))
            colours[level] = cont.lines[0].get_color()
        for curve in curves:
            ax.plot(curve.x, curve.y, linestyle="--", linewidth=1,
                    color=colours.get(curve.level, "0.3"), label=curve.label)

        ax.set_xlabel(axis_label(x) if xlabel is None else xlabel)
        ax.set_ylabel(axis_label(y) if ylabel is None else ylabel)
        ax.set_xticks([position[v] for v in x_levels], [level_label(x, v, names.get(x)) for v in x_levels])
        ax.set_ylim(bottom=0 if cells["ci_low"].fillna(cells["mean"]).min() >= 0 else None)
        ax.grid(True, alpha=0.3)
        n = cells["n"]
        runs = f"{n.min()}" if n.min() == n.max() else f"{n.min()}-{n.max()}"
        note = f"mean ± {confidence * 100:g} % confidence interval (Student t), n = {runs} per point"
        fig.draw_without_rendering()
        ticks = [t.get_window_extent() for t in ax.get_xticklabels()]
        if any(a.x1 > b.x0 for a, b in zip(ticks, ticks[1:])):  # long level names (seed 003's configs) collide
            ax.tick_params(axis="x", labelrotation=30)
            for t in ax.get_xticklabels():
                t.set_horizontalalignment("right")
        head = ax.set_title((title + "\n" if title else "") + note, fontsize="medium" if title else "small")
        fig.draw_without_rendering()
        extent = head.get_window_extent()
        if extent.x0 < 0 or extent.x1 > fig.bbox.width:  # cut off in a narrow figure (--style paper): two lines
            head.set_text(head.get_text().replace(", n = ", ",\nn = "))
        handles, labels = ax.get_legend_handles_labels()
        # The data's levels first, then the model curves (matplotlib lists plain lines first).
        order = sorted(range(len(handles)), key=lambda i: not hasattr(handles[i], "has_yerr"))
        handles, labels = [handles[i] for i in order], [labels[i] for i in order]
        if labels:
            place_legend(fig, ax, handles, labels, fontsize="small",
                         title=by_label if by_label is not None else axis_label(by) if by is not None else None)
        return finish(fig, path)
