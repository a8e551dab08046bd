"""Seed 000's published testbed numbers, shipped as package data (data/)."""

from __future__ import annotations

import pandas as pd

from .._framework import data_frame

SEED000_TABLES = "seed000_tables1-4.csv"


def seed000_testbed() -> pd.DataFrame | None:
    """Seed 000's *testbed* Tables 1-4 (real laptops, Linux, AODV/OLSR) —
    columns table, routing, scenario, max_cwnd, avg, min, max. None if the
    data file is missing."""
    return data_frame(__package__, SEED000_TABLES)
