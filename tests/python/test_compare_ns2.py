"""The ns2 profile against ns-2.35's recorded runs (validation/ns2_runs.jsonl,
no ns-2 needed): on the scenarios where the standards' reading and ns-2 differ
most, `compat = "ns2"` must bring hoplab within 5 % of ns-2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import mean

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation"))

import compare_ns2 as C  # noqa: E402


def _ratio(routing: str, hops: int, profile: str, seeds=(1, 2, 3)) -> float:
    a = argparse.Namespace(mss=1460, duration=120.0)
    cache = C.Ns2Cache(ROOT / "validation" / "ns2_runs.jsonl", fresh=False)
    ns2, ours = [], []
    for seed in seeds:
        args = C.ns2_args(routing, seed, a, rts_all=False, extra=["-hops", str(hops)])
        if " ".join(["chain.tcl", *args]) not in cache.runs:
            pytest.fail(f"no recorded ns-2 run for {args} in validation/ns2_runs.jsonl")
        ns2.append(C.ns2_result(cache.run("chain.tcl", args))["kbps"])
        sc = C.hoplab_scenario(profile, "chain", routing, a, hops=hops, flows=[(0, hops, 1.0)], rts_all=False)
        ours.append(C.hoplab_result(sc, seed)["kbps"])
    return mean(ours) / mean(ns2)


def test_ns2_mac_rules_close_the_static_chain_gap():
    # ns-2 withholds CTSs the standards' reading sends (VALIDATION §5).
    assert _ratio("static", 4, "standard") > 1.08
    assert 0.95 < _ratio("static", 4, "ns2") < 1.05


def test_cmu_aodv_repairs_as_fast_as_ns2():
    assert _ratio("aodv", 3, "standard") < 0.85
    assert 0.95 < _ratio("aodv", 3, "ns2") < 1.05
