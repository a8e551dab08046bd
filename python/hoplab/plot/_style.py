"""A figure's size and look: `--size 6x4` (inches) and `--style paper|default|NAME`.

A style is applied with `matplotlib.style.context` around drawing and saving
only, so the caller's rcParams are as they were afterwards (this package
changes no global state, `__init__`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from .errors import PlotError

# "paper": one column of a two-column paper. 3.5 in is the column width of
# IEEE and ACM templates; type as small as a caption (8 pt) and thinner lines.
PAPER = {
    "font.family": "serif", "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8,
    "xtick.labelsize": 7, "ytick.labelsize": 7, "legend.fontsize": 7, "legend.title_fontsize": 7,
    "lines.linewidth": 1.0, "lines.markersize": 3.5, "axes.linewidth": 0.6, "grid.linewidth": 0.4,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "legend.framealpha": 0.9,
}
# "default": hoplab's own look, whatever the caller's rcParams are.
STYLES: dict[str, dict[str, Any]] = {"default": {}, "paper": PAPER}
SIZES = {"default": (6.4, 4.2), "paper": (3.5, 2.6)}  # inches
MAX_INCHES = 50.0


def parse_size(size: Any, field: str = "size") -> tuple[float, float] | None:
    """"6x4" or (6, 4) -> (6.0, 4.0) inches; None stays None (the style's size)."""
    if size is None:
        return None
    try:
        w, h = (float(v) for v in (size.lower().split("x") if isinstance(size, str) else size))
    except (TypeError, ValueError):
        raise PlotError(field, f"expected WIDTHxHEIGHT in inches, e.g. 6x4, not {size!r}") from None
    if not (0.5 <= w <= MAX_INCHES and 0.5 <= h <= MAX_INCHES):
        raise PlotError(field, f"width and height must be from 0.5 to {MAX_INCHES:g} inches, not {w:g}x{h:g}")
    return w, h


def check_style(style: str | None, field: str = "style") -> str:
    """The style's name; PlotError for one neither hoplab nor matplotlib knows."""
    import matplotlib.style

    name = style or "default"
    if name not in STYLES and name not in matplotlib.style.available and not name.endswith(".mplstyle"):
        raise PlotError(field, f"unknown style {name!r}: use paper, default, a matplotlib style "
                               f"(e.g. {', '.join(sorted(matplotlib.style.available)[:3])}, ...) or a .mplstyle file")
    return name


def figure_size(style: str | None, size: Any, field: str = "size") -> tuple[float, float]:
    """Inches: the given size, else the style's (paper: one column), else hoplab's."""
    return parse_size(size, field) or SIZES.get(style or "default", SIZES["default"])


@contextlib.contextmanager
def styled(style: str | None) -> Iterator[None]:
    """rcParams of ``style`` while the block draws (and saves) a figure."""
    import matplotlib.style

    name = check_style(style)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(matplotlib.style.context(STYLES.get(name, name)))
        except OSError as e:  # a .mplstyle file that cannot be read
            raise PlotError("style", f"{name}: {e.strerror or e}") from None
        yield
