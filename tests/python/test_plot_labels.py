"""Figures fit for a paper (issue 23 item 6): factor levels in words from the
scenario schema, axis units from the schemas, and a legend that hides neither
data nor the title."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from hoplab import _core, plot
from hoplab.plot import labels
from hoplab.plot._legend import hides_data


def _table() -> pd.DataFrame:
    """Made-up runs shaped like a lab store's: throughput falls with hops, 3 seeds a cell."""
    rng = np.random.default_rng(1)
    rows = [{"hops": h, "tcp.max_cwnd": w, "seed": s, "throughput_kbps": 1400 / h * (1 - 0.02 * (w == 0)) + rng.normal(0, 9)}
            for h in (1, 2, 3, 4) for w in (2, 4, 0) for s in (1, 2, 3)]
    return pd.DataFrame(rows)


def test_every_special_value_the_schema_documents_is_named():
    # A field whose doc gives 0 a meaning ("0 = unclamped", "0 turns it off",
    # "0 keeps every change", "0: ...", default "always on") is in SPECIAL_LEVELS.
    said = re.compile(r"\b0 (=|turns it off|keeps|:)|^0:|\(0:|always on")
    fields = json.loads(_core.schema_reference())["fields"]
    documented = {f["path"] for f in fields if f["range"].startswith("[0,")  # 0 is a value it takes
                  and (said.search(f["doc"]) or said.search(f["why"]) or said.search(f["default"]))}
    assert documented == set(labels.SPECIAL_LEVELS)


def test_unclamped_window_reads_unclamped_on_the_axis_and_in_the_legend():
    df = _table()
    fig = plot.sweep(df, "tcp.max_cwnd", "throughput_kbps", "hops")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "4", "unclamped"]
    fig = plot.sweep(df, "hops", "throughput_kbps", "tcp.max_cwnd", title="Seed 000 §4.1: throughput vs hops")
    legend = fig.axes[0].get_legend() or fig.legends[0]
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["2", "4", "unclamped"]  # 0 named, and listed last (it is the largest window)
    assert legend.get_title().get_text() == "Max cwnd (segments)"
    assert fig.axes[0].get_ylabel() == "Throughput (kbit/s)" and fig.axes[0].get_xlabel() == "Hops"


def test_level_names_and_labels_override():
    fig = plot.sweep(_table(), "hops", "throughput_kbps", "tcp.max_cwnd", xlabel="Chain length", ylabel="Goodput",
                     by_label="W", level_names={"tcp.max_cwnd": {2: "two"}})
    ax = fig.axes[0]
    legend = ax.get_legend() or fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["two", "4", "unclamped"]
    assert (ax.get_xlabel(), ax.get_ylabel(), legend.get_title().get_text()) == ("Chain length", "Goodput", "W")


@pytest.mark.parametrize("style, size", [(None, None), ("paper", None), ("ggplot", "5x3")])
def test_legend_inside_the_figure_clear_of_title_and_data(style, size):
    fig = plot.sweep(_table(), "hops", "throughput_kbps", "tcp.max_cwnd", style=style, size=size,
                     title="Seed 000 §4.1: throughput vs hops per maximum window")
    fig.draw_without_rendering()
    ax = fig.axes[0]
    legend = ax.get_legend() or fig.legends[0]
    box, page = legend.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1
    assert not box.overlaps(ax.title.get_window_extent())
    # No data line or error bar crosses the legend (an independent check of the points).
    for line in ax.lines:
        xy = line.get_transform().transform(line.get_xydata())
        assert not box.count_contains(xy), line
    assert not hides_data(legend, ax)
    if size:
        assert tuple(fig.get_size_inches()) == (5.0, 3.0)
    if style == "paper":
        assert tuple(fig.get_size_inches()) == (3.5, 2.6)


def test_legend_goes_below_when_the_data_fills_every_corner():
    # Lines across the whole box at the top, middle and bottom: no place inside is free.
    rows = [{"x": x, "by": b, "y": y} for b, ys in (("a", (0, 50, 100, 50, 0)), ("b", (100, 50, 0, 50, 100)),
                                                    ("c", (50, 100, 50, 0, 50)))
            for x, y in zip(range(5), ys)]
    fig = plot.sweep(pd.DataFrame(rows), "x", "y", "by")
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert ax.get_legend() is None and len(fig.legends) == 1
    box = fig.legends[0].get_window_extent()
    assert box.y1 <= ax.xaxis.label.get_window_extent().y0 + 1  # under the x label
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1


@pytest.mark.parametrize("column, value, text", [
    ("tcp.max_cwnd", 0, "unclamped"), ("max_cwnd", "0", "unclamped"), ("tcp.max_cwnd", 32, "32"),
    ("mac.rts_threshold_bytes", 0.0, "always RTS/CTS"), ("flows[1].off_s", 0, "always on"),
    ("broadcast_jitter_s", 0, "off"),  # aodv, dsr and dsdv agree
    ("hops", 0, "0"), ("routing", "olsr", "olsr"),
])
def test_level_label(column, value, text):
    assert labels.level_label(column, value) == text


def test_bad_size_and_style_are_one_line_errors():
    with pytest.raises(plot.PlotError, match=r"^size: expected WIDTHxHEIGHT in inches, e.g. 6x4, not '6'$"):
        plot.sweep(_table(), "hops", "throughput_kbps", size="6")
    with pytest.raises(plot.PlotError, match=r"^style: unknown style 'nope'"):
        plot.sweep(_table(), "hops", "throughput_kbps", style="nope")


def test_long_level_names_do_not_collide():
    # seed 003's configs as x levels ran into each other before they were turned.
    names = ["AODV-UU", "DSR-UU", "OOLSR, TC 5 s, periodic", "OOLSR, TC 5 s, immediate", "OOLSR, TC 3 s, periodic"]
    fig = plot.sweep(pd.DataFrame({"config": names, "outage_s": [3.4, 0.8, 17.1, 10.8, 17.8]}), "config", "outage_s")
    fig.draw_without_rendering()
    labels_ = fig.axes[0].get_xticklabels()
    assert [t.get_text() for t in labels_] == names
    assert {(t.get_rotation(), t.get_horizontalalignment()) for t in labels_} == {(30.0, "right")}
    short = plot.sweep(pd.DataFrame({"x": ["a", "b"], "outage_s": [1.0, 2.0]}), "x", "outage_s")
    assert {t.get_rotation() for t in short.axes[0].get_xticklabels()} == {0.0}  # short names stay level
    assert fig.axes[0].get_ylabel() == "Outage (s)"
