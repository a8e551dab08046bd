"""A legend where it hides nothing: inside the axes in the first corner
that no data line, marker or error bar crosses, else below the axes.
Never outside to the right, where it ran into a long title."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.transforms import Bbox

# Corners first (the usual place in a paper), then the middles of the sides.
INSIDE = ("upper right", "upper left", "lower right", "lower left", "center right", "center left",
          "upper center", "lower center")
MARGIN_PX = 3.0  # clearance around the legend's frame, in pixels at the figure's dpi


def _paths(ax: Axes) -> list[Any]:
    """The drawn data of ``ax`` as paths in display coordinates."""
    out = []
    for line in ax.lines:
        if line.get_visible():
            out.append(line.get_transform().transform_path(line.get_path()))
    for patch in ax.patches:  # range circles
        if patch.get_visible():
            out.append(patch.get_transform().transform_path(patch.get_path()))
    for coll in ax.collections:
        if coll.get_visible():
            t = coll.get_transform()
            out += [t.transform_path(p) for p in coll.get_paths()]
    return out


def hides_data(legend: Legend, ax: Axes) -> bool:
    """Whether ``legend``'s frame (with a margin) covers any line, marker or bar of ``ax``."""
    box = legend.get_window_extent()
    box = Bbox.from_extents(box.x0 - MARGIN_PX, box.y0 - MARGIN_PX, box.x1 + MARGIN_PX, box.y1 + MARGIN_PX)
    for path in _paths(ax):
        if len(path.vertices) and box.count_contains(path.vertices):
            return True
        if len(path.vertices) > 1 and path.intersects_bbox(box, filled=False):
            return True
    return False


def place_legend(fig: Figure, ax: Axes, handles: list[Any], labels: list[str], **kwargs: Any) -> Legend:
    """The legend inside ``ax`` where it hides no data, else centred below the
    axes (at most four entries a row, fewer if a row would be wider than the
    figure), clear of the x label."""
    fig.draw_without_rendering()  # lay out first: extents are final
    for loc in INSIDE:
        legend = ax.legend(handles, labels, loc=loc, **kwargs)
        if not hides_data(legend, ax):
            return legend
        legend.remove()
    width = fig.bbox.width
    for ncols in range(min(len(labels), 4), 0, -1):  # as many columns as fit the figure's width
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=ncols, **kwargs)
        if ncols == 1 or legend.get_window_extent().width <= width:
            return legend
        legend.remove()
    raise AssertionError("unreachable: one column is always accepted")
