"""cwnd/ssthresh and srtt/rto of a run over time (the TCP sender's state
as `Result.timeseries` records it: the last change per sampling interval,
so lines are drawn as steps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ._figure import finish, format_of, new_figure
from .errors import PlotError

# The scenario field that turns the series on (docs/SCENARIO.md).
ENABLE_HINT = "the run recorded no time series: set `[output] timeseries = true` in the scenario (output.timeseries)"


def timeseries(result: Any, flow: int | None = None, *, path: str | Path | None = None) -> Figure:
    """Two stacked axes sharing time: cwnd and ssthresh (segments) above,
    srtt and rto (ms) below, for ``flow`` or every TCP flow with a series.

    ssthresh starts "unbounded" (a huge number until the first loss); values
    above twice the largest cwnd are not drawn, so the window stays readable.
    """
    if path is not None:
        format_of(path)
    ts = result.timeseries
    if len(ts) == 0:
        raise PlotError("timeseries", ENABLE_HINT)
    have = sorted(int(f) for f in ts["flow"].unique())
    if flow is not None and flow not in have:
        raise PlotError("flow", f"flow {flow} has no time series (flows with one: {', '.join(map(str, have))})")
    flows = have if flow is None else [flow]

    fig, (top, bottom) = new_figure(2, height=5.6, sharex=True)
    cap = 0.0
    for f in flows:
        s = ts[ts["flow"] == f].sort_values("time_s", kind="stable")
        t = s["time_s"].to_numpy()
        name = f"flow {f} " if len(flows) > 1 else ""
        line = top.plot(t, s["cwnd"], drawstyle="steps-post", label=f"{name}cwnd")[0]
        colour = line.get_color()
        cwnd_max = float(np.nanmax(s["cwnd"])) if s["cwnd"].notna().any() else 0.0
        ssthresh = s["ssthresh"].where(s["ssthresh"] <= 2 * cwnd_max)
        hidden = " (unbounded: not drawn)" if ssthresh.isna().all() else ""
        top.plot(t, ssthresh, drawstyle="steps-post", linestyle="--", color=colour, label=f"{name}ssthresh{hidden}")
        cap = max(cap, cwnd_max, float(np.nanmax(ssthresh)) if ssthresh.notna().any() else 0.0)
        bottom.plot(t, s["srtt_ms"], drawstyle="steps-post", color=colour, label=f"{name}srtt")
        bottom.plot(t, s["rto_ms"], drawstyle="steps-post", linestyle="--", color=colour, label=f"{name}rto")
    top.set_ylim(0, cap * 1.08 if cap > 0 else 1)
    top.set_ylabel("window (segments)")
    bottom.set_ylabel("time (ms)")
    bottom.set_ylim(bottom=0)
    bottom.set_xlabel("simulated time (s)")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    info = getattr(result, "info", {}) or {}
    top.set_title(f"TCP sender state, scenario {info.get('scenario', '?')!r}, seed {info.get('seed', '?')}",
                  fontsize=9)
    return finish(fig, path)
