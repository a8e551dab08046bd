"""A static picture of a network at one time: the nodes (with their ids),
the radio's range (circles, and the unit-disk links between nodes in range)
and each flow's path then.

The results record how long each path length lasted (`paths`,
`oracle_paths`), not which nodes a path crossed, so a flow's path is drawn as
the oracle defines it (oracle.rs, seed 002 §7.1.1): a shortest path in the
true topology at that time, over links of at most the decode range.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from . import _geometry as geo
from ._figure import finish, format_of, new_figure
from ._legend import place_legend
from ._style import check_style, figure_size, styled
from .errors import PlotError
from .labels import axis_label

MAX_LABELLED = 100  # more node ids than this would cover the picture
MAX_LINKED = 5000  # the pairwise link search is quadratic


def _source(source: Any, seed: int | None) -> tuple[dict[str, Any], Any, list[tuple[int, int, int, float, float]], float]:
    """(resolved scenario, movement table, flows as (flow, src, dst, start, stop), duration) of a
    `Result`, a result directory, or a scenario (dict, file or TOML text)."""
    from ..formats.ns2 import movement as nm
    from ..result import Result

    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        source = Result.load(source)
    if isinstance(source, Result):
        sc = geo.resolved(nm._scenario_of(source))
        f = source.flows
        flows = [(int(r.flow), int(r.src), int(r.dst), float(r.start_s), float(r.end_s)) for r in f.itertuples()]
        return sc, nm.movement_of(source), flows, float(source.info.get("duration_s", sc["duration_s"]))
    if isinstance(source, Mapping):
        raw = copy.deepcopy(dict(source))
    else:  # a file or TOML text; the CLI reads files itself, for its one-line errors
        import json
        import tomllib

        from .._run import read_scenario_source

        text, fmt, _ = read_scenario_source(source)
        raw = json.loads(text) if fmt == "json" else tomllib.loads(text)
    sc = geo.resolved(raw)
    duration = float(sc["duration_s"])
    flows = [(i, int(fl["src"]), int(fl["dst"]), float(fl.get("start_s", 0.0)), float(fl.get("stop_s", duration)))
             for i, fl in enumerate(sc.get("flows", []))]
    return sc, _scenario_movement(raw, seed, duration), flows, duration


def _scenario_movement(raw: dict[str, Any], seed: int | None, duration: float) -> Any:
    """Scripted legs are computed; a drawn model's movement comes from a run
    of the nodes alone (no flows, no routing: movement does not depend on
    traffic, each node's random stream is its own), as `hoplab movement export`."""
    from .._run import run
    from ..formats.ns2 import movement as nm

    seed = int(raw.get("seed", 1)) if seed is None else seed
    mob = raw.get("mobility") or {}
    if mob.get("model", "legs") == "legs":
        return nm.movement_frame(nm.initial_positions(raw, seed), mob.get("legs", []))
    bare = {k: v for k, v in raw.items() if k not in ("flows", "output", "routing")}
    bare.update(flows=[], output={"timeseries": False}, duration_s=duration)
    return nm.movement_of(run(bare, seed=seed))


def _circled(circles: Any, n: int, flows: list[tuple[int, int, int, float, float]]) -> list[int]:
    if circles in (None, "none"):
        return []
    if circles == "all":
        return list(range(n))
    if circles == "source":
        return [flows[0][1]] if flows else [0]
    nodes = [circles] if isinstance(circles, (int, np.integer)) else list(circles)
    bad = [v for v in nodes if not isinstance(v, (int, np.integer)) or not 0 <= v < n]
    if bad:
        raise PlotError("circles", f"node {bad[0]!r} is not a node of this network (0..{n - 1})")
    return [int(v) for v in nodes]


def topology(source: Any, *, at: float = 0.0, seed: int | None = None, circles: str | int | Iterable[int] = "source",
             links: bool = True, title: str | None = None, size: Any = None, style: str | None = None,
             path: str | Path | None = None) -> Figure:
    """Nodes, radio range and flow paths of a run or scenario at time ``at`` (s).

    ``source``: a `Result`, a `hoplab run --out` directory, or a scenario
    (dict, file or TOML text; ``seed`` places random nodes, default the
    scenario's). Positions at ``at`` follow the movement (a mobile run's
    `movement` table). ``circles``: the range drawn around "source" (the
    first flow's source), "all", "none" or the given node ids; ``links``:
    a line between every two nodes in range. Each flow's path is a shortest
    path in range at ``at`` (the oracle's). ``title``, ``size`` ("6x4"
    inches), ``style`` ("default", "paper", a matplotlib style) as in
    `sweep`. Saves to ``path`` if given; returns the Figure.
    """
    if path is not None:
        format_of(path)
    width, height = figure_size(check_style(style), size)
    sc, movement, flows, duration = _source(source, seed)
    if not 0 <= at <= duration:
        raise PlotError("at", f"{at:g} s is outside the run (0 to {duration:g} s)")
    n = int(movement["node"].max()) + 1
    pos = geo.positions_at(movement, at, n)
    r = geo.tx_range_m(sc)
    pairs = geo.links(pos, r) if n <= MAX_LINKED else []
    ringed = _circled(circles, n, flows)

    with styled(style):
        fig, ax = new_figure(width=width, height=height)
        handles: list[Any] = []
        if links and pairs:
            lc = LineCollection([pos[[a, b]] for a, b in pairs], colors="0.75", linewidths=0.8, zorder=1,
                                label=f"in range (≤ {r:.4g} m)")
            handles.append(ax.add_collection(lc))
        for i in ringed:
            c = Circle(tuple(pos[i]), r, fill=False, linestyle="--", edgecolor="0.45", linewidth=0.8, zorder=1,
                       label=f"radio range {r:.4g} m")
            ax.add_patch(c)
            if len(handles) < 2 or not isinstance(handles[-1], Circle):
                handles.append(c)
        for k, (flow, src, dst, start, stop) in enumerate(flows):
            hops = geo.shortest_path(n, pairs if n <= MAX_LINKED else [], src, dst)
            active = "" if start <= at <= stop else ", not active"
            if hops is None:
                handles += ax.plot(*pos[[src, dst]].T, linestyle=":", color=f"C{k}", linewidth=1.2, zorder=2,
                                   label=f"flow {flow}: {src}→{dst}, no path at {at:g} s{active}")
            else:
                handles += ax.plot(*pos[hops].T, color=f"C{k}", linewidth=2.2, alpha=0.8, zorder=2,
                                   label=f"flow {flow}: {'→'.join(map(str, hops))} ({len(hops) - 1} hops){active}")
        handles.append(ax.scatter(pos[:, 0], pos[:, 1], s=22, color="black", zorder=3, label=f"{n} nodes"))
        if n <= MAX_LABELLED:
            for i, (x, y) in enumerate(pos):
                ax.annotate(str(i), (x, y), xytext=(3, 3), textcoords="offset points", fontsize="small", zorder=4)
        ax.margins(0.08)  # the limits cover nodes, links and circles (autoscaled), with room for the ids
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(axis_label("x"))
        ax.set_ylabel(axis_label("y"))
        name = sc.get("name", "scenario")
        ax.set_title(title if title is not None else f"{name}: nodes at t = {at:g} s, radio range {r:.4g} m",
                     fontsize="medium")
        place_legend(fig, ax, handles, [h.get_label() for h in handles], fontsize="small")
        return finish(fig, path)
