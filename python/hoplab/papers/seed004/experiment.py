"""`hoplab reproduce seed004`: Kawadia & Kumar's 8 treatments x 9 plots x 15
runs (seed 004) run as a lab design through the result store, printed as
its Tables 2-5 beside the testbed's, with a verdict per finding.

    from hoplab.papers.seed004 import experiment as r4
    runs = r4.run(r4.design(replicas=2, duration=30), store="out/s4", jobs=2)
    print(r4.report(runs, replicas=2, duration=30))
"""

from __future__ import annotations

import os
import tempfile
from contextlib import nullcontext
from typing import Any

import pandas as pd

from ... import lab
from .design import (DEFAULT_CONTROL, DEFAULT_DURATION_S, DEFAULT_REPLICAS, PLOTS, TREATMENTS, design,
                             parse_plots)
from .report import report

__all__ = ["design", "run", "report", "reproduce", "parse_plots", "DEFAULT_DURATION_S", "DEFAULT_REPLICAS",
           "PLOTS", "TREATMENTS"]


def _node_stats(store: str | os.PathLike[str], name: str) -> pd.DataFrame:
    """Per run: the longest mean interface queue of any node (the
    bottleneck's), and drops per cause (queue overflow, MAC retry limit)."""
    nodes = lab.load(store, design=name, table="nodes")
    drops = lab.load(store, design=name, table="drops")
    q = nodes.groupby("key")["ifq_mean"].max().rename("bottleneck_queue")
    if len(drops):
        d = drops[drops["packet_type"] != "MAC"]
        overflow = d[(d["layer"] == "IFQ") & (d["reason"] == "IFQ")].groupby("key")["count"].sum()
        retry = d[(d["layer"] == "MAC") & (d["reason"] == "RET")].groupby("key")["count"].sum()
    else:
        overflow = retry = pd.Series(dtype="int64")
    out = pd.DataFrame({"bottleneck_queue": q})
    out["overflow_drops"] = overflow.reindex(out.index).fillna(0)
    out["retry_drops"] = retry.reindex(out.index).fillna(0)
    return out.reset_index()


def run(design_dict: dict[str, Any], store: str | os.PathLike[str], *, jobs: int = 2,
        progress: bool | None = None) -> pd.DataFrame:
    """Run the design into ``store`` (only what it misses) and return one
    row per run (`tables.per_run`) with the queue and drop figures
    of each run joined on."""
    from .tables import per_run

    d = lab.Design.from_dict(design_dict)
    lab.run(d, store=store, jobs=jobs, progress=progress)
    runs = per_run(lab.load(store, design=d.name))
    return runs.merge(_node_stats(store, d.name), on="key", how="left")


def reproduce(*, replicas: int = DEFAULT_REPLICAS, duration: float = DEFAULT_DURATION_S,
              plots: list[str] | None = None, jobs: int = 2, store: str | os.PathLike[str] | None = None,
              progress: bool | None = None, control: str = DEFAULT_CONTROL) -> tuple[str, pd.DataFrame]:
    """Run the design (in ``store``, or a temporary store) and return the
    report and the per-run rows."""
    dd = design(replicas=replicas, duration=duration, plots=plots or list(PLOTS), control=control)
    ctx = nullcontext(str(store)) if store is not None else tempfile.TemporaryDirectory(prefix="hoplab-seed004-")
    with ctx as where:
        runs = run(dd, where, jobs=jobs, progress=progress)
    return report(runs, replicas=replicas, duration=duration, control=control), runs
