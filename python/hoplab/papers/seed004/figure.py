"""Seed 004's Figure 2 from simulated runs: mean throughput, average RTT and
standard deviation of RTT per plot, one line per treatment (matplotlib,
headless; the format follows the file's extension: .png, .svg, .pdf)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .design import PLOTS, TREATMENT_NAMES, TREATMENTS
from .tables import METRICS, table2

__all__ = ["figure"]


def figure(runs: pd.DataFrame, path: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    means = table2(runs[runs["status"] == "ok"])
    plots = [p for p in PLOTS if p in means["throughput_mbps"].columns]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), constrained_layout=True)
    for ax, (m, (title, _, _)) in zip(axes, METRICS.items()):
        t = means[m]
        for tr in TREATMENTS:
            if tr in t.index:
                clamped = TREATMENTS[tr][0]
                ax.plot(plots, t.loc[tr, plots], marker="o", linestyle="-" if clamped else "--",
                        label=f"{tr} {TREATMENT_NAMES[tr]}")
        if m != "throughput_mbps":
            ax.set_yscale("log")  # clamped and unclamped RTTs differ by 10x and more
        ax.set_title(title)
        ax.set_xlabel("plot")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Seed 004, simulated: means over runs per treatment (solid: clamped)")
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
