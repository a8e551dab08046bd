"""Published reference numbers shipped in the repository's data/ folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

SEED000_TABLES = "seed000_tables1-4.csv"


def data_file(name: str) -> Path | None:
    """The path of ``data/<name>``: in the source tree (next to python/), or
    in an installed package's hoplab/data/. None if it is not there."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent.parent / "data" / name, here / "data" / name):
        if cand.is_file():
            return cand
    return None


def seed000_testbed() -> pd.DataFrame | None:
    """Seed 000's *testbed* Tables 1-4 (real laptops, Linux, AODV/OLSR) —
    columns table, routing, scenario, max_cwnd, avg, min, max. None if the
    data file is missing."""
    p = data_file(SEED000_TABLES)
    if p is None:
        return None
    return pd.read_csv(p, comment="#")
