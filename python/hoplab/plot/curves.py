"""Model curves from `hoplab.models`, to draw alone (`models`) or over a
sweep (`sweep(..., curves=...)`).

A `Curve` is plain data: a label, x and y arrays, and optionally the level
of the sweep's `by` column it belongs to (it is then drawn in that level's
colour). The builders below evaluate the seeds' models:

- `chain_clamp`: seed 004 §4, throughput ∝ W/(W+N-1) of an N-node chain.
- `chain_clamp_fit`: the same, its one free constant per chain fitted to a
  sweep's means (the paper gives the proportionality only).
- `tcp_friendly_window`: seed 001 Eq. 1, window against loss rate.
- `padhye`: Padhye et al.'s throughput against loss rate (seed 002 Eq. 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import pandas as pd

from .. import models
from ._columns import level_text, levels, numeric, require_columns
from .errors import PlotError
from .summary import describe


@dataclass
class Curve:
    label: str
    x: np.ndarray
    y: np.ndarray
    level: Any = None
    meta: dict[str, Any] = field(default_factory=dict)


def chain_clamp(windows: Iterable[float], hops: Iterable[int], scale: float = 1.0) -> list[Curve]:
    """One curve per chain length: scale · W/(W + hops) (N = hops + 1 nodes)."""
    w = np.asarray(list(windows), dtype=float)
    return [Curve(f"W/(W+{h}), {h} hop{'s' if h != 1 else ''}", w,
                  np.asarray(models.chain_clamp_throughput(w, h + 1, scale)), level=float(h))
            for h in hops]


def chain_clamp_fit(df: pd.DataFrame, x: str, y: str, by: str, *, nodes: bool = False,
                    points: int = 200) -> list[Curve]:
    """Seed 004 §4's model over a sweep of the window clamp ``x`` per chain
    ``by`` (hop counts; ``nodes=True`` if ``by`` counts nodes instead).

    For each chain the constant c of y = c · W/(W+N-1) is the least-squares
    fit to the chain's means (c = Σ ȳ f / Σ f², f = W/(W+N-1)). Windows <= 0
    (hoplab's "unclamped") have no model value and are left out of the fit.
    """
    require_columns(df, x, y, by)
    chains, chain_levels, is_num = levels(df[by])
    if not is_num:
        raise PlotError(f"column {by!r}", "the chain model needs numeric hop (or node) counts")
    xs, _, x_num = levels(df[x])
    if not x_num:
        raise PlotError(f"column {x!r}", "the chain model needs numeric window clamps")
    data = pd.DataFrame({"x": xs, "by": chains, "y": numeric(df, y)})
    data = data[data["x"] > 0]
    cells = describe(data, "y", ["by", "x"])
    out = []
    for level in chain_levels:
        c = cells[cells["by"] == level]
        if len(c) == 0:
            continue
        n_nodes = level if nodes else level + 1
        if n_nodes < 2:
            raise PlotError(f"column {by!r}", f"a chain of {level_text(level)} {'nodes' if nodes else 'hops'} "
                            "has no model value (needs at least 2 nodes)")
        f = np.asarray(models.chain_clamp_throughput(c["x"].to_numpy(), n_nodes))
        scale = float(np.sum(c["mean"].to_numpy() * f) / np.sum(f * f))
        w = np.linspace(c["x"].min(), c["x"].max(), points)
        out.append(Curve(f"{level_text(level)}: model W/(W+{level_text(n_nodes - 1)})", w,
                         np.asarray(models.chain_clamp_throughput(w, n_nodes, scale)),
                         level=level, meta={"scale": scale}))
    return out


def tcp_friendly_window(p: Iterable[float], alphas: Iterable[float] = (1.0,), K: float = 2.0) -> list[Curve]:
    """Seed 001 Eq. 1: average window W (packets) against loss rate p, per α."""
    pa = np.asarray(list(p), dtype=float)
    return [Curve(f"Eq. 1, α = {a:g}, K = {K:g}", pa, np.asarray(models.tcp_friendly_window(pa, a, K)))
            for a in alphas]


def padhye(p: Iterable[float], rtt: float, t0: float, *, b: float = 2.0, wmax: float = np.inf,
           mss: float | None = None, model: str = "approximate") -> list[Curve]:
    """Padhye et al.'s throughput against loss rate (packets/s, or kbit/s with mss)."""
    pa = np.asarray(list(p), dtype=float)
    y = np.asarray(models.padhye_throughput(pa, rtt, t0, b, wmax, mss, model=model))
    lim = "" if not np.isfinite(wmax) else f", Wmax = {wmax:g}"
    return [Curve(f"Padhye ({model}), RTT = {rtt * 1e3:g} ms, T0 = {t0:g} s{lim}", pa, y)]
