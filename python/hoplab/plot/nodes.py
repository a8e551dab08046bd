"""Per-node interface-queue length and drops by cause of one run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .._drop_codes import REASONS
from ._figure import finish, format_of, new_figure
from .errors import PlotError


def nodes(result: Any, *, path: str | Path | None = None) -> Figure:
    """Two panels over the nodes: the interface queue's time-weighted mean
    length (bars) and maximum (markers); drops per node stacked by cause
    (layer and ns-2 reason, summed over packet types)."""
    if path is not None:
        format_of(path)
    nd = result.nodes
    if len(nd) == 0:
        raise PlotError("nodes", "the result has no nodes")
    node_ids = [int(n) for n in nd["node"]]
    pos = np.arange(len(node_ids))

    fig, (top, bottom) = new_figure(2, height=5.6, sharex=True)
    top.bar(pos, nd["ifq_mean"], color="tab:blue", label="mean (time-weighted)")
    top.plot(pos, nd["ifq_max"], linestyle="none", marker="v", color="tab:red", label="maximum")
    top.set_ylabel("interface queue (packets)")
    top.set_ylim(0, max(1.0, float(nd["ifq_max"].max()), float(nd["ifq_mean"].max())) * 1.1)
    top.legend(fontsize=8)

    drops = result.drops
    if len(drops):
        table = (drops.assign(cause=drops["layer"].astype(str) + " " + drops["reason"].astype(str))
                 .pivot_table(index="node", columns="cause", values="count", aggfunc="sum", fill_value=0)
                 .reindex(node_ids, fill_value=0))
        base = np.zeros(len(node_ids))
        for cause in table.columns:
            counts = table[cause].to_numpy(dtype=float)
            reason = cause.split(" ", 1)[1]
            # END is not a loss (packets still queued when the run stopped): grey.
            bottom.bar(pos, counts, bottom=base, label=f"{cause} ({REASONS.get(reason, reason)})",
                       **({"color": "0.75"} if reason == "END" else {}))
            base += counts
        bottom.set_ylim(0, max(1.0, float(base.max())) * 1.1)
        # Right of the axes, so that no bar is hidden under it.
        bottom.legend(fontsize=7, title="layer and cause", title_fontsize=8, loc="upper left",
                      bbox_to_anchor=(1.01, 1.0))
    else:
        bottom.text(0.5, 0.5, "no drops", transform=bottom.transAxes, ha="center", va="center")
    bottom.set_ylabel("drops (packets)")
    bottom.set_xlabel("node")
    bottom.set_xticks(pos, [str(n) for n in node_ids])
    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3)
    info = getattr(result, "info", {}) or {}
    top.set_title(f"per node, scenario {info.get('scenario', '?')!r}, seed {info.get('seed', '?')}", fontsize=9)
    return finish(fig, path)
