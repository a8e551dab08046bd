"""Random waypoint from Python: the movement table, its files, the example and
the mobile bench scenarios (the model itself is tested in Rust,
crates/hoplab-sim/tests/mobility_waypoint.rs)."""

from __future__ import annotations

import json
import math

import numpy as np
from click.testing import CliRunner

import hoplab
from hoplab import _core
from hoplab._bench.suite import MOBILE, SCENARIOS, build
from hoplab.cli import cli
from hoplab.result import SCHEMA, TABLES

from .conftest import EXAMPLES


def _example(duration: float = 30.0) -> dict:
    sc = hoplab.load_scenario(EXAMPLES / "waypoint.toml")
    sc["duration_s"] = duration
    return sc


def test_movement_table_follows_the_waypoint_rules(tmp_path):
    assert "movement" in TABLES and list(SCHEMA["movement"]) == [
        "node", "time_s", "x", "y", "to_x", "to_y", "speed_mps"]
    res = hoplab.run(_example(200.0), seed=2)
    m = res.movement
    first = m.groupby("node").head(1)
    assert len(first) == 30 and (first.time_s == 0).all() and (first.speed_mps == 0).all()
    legs = m[m.speed_mps > 0]
    assert len(legs) >= 30  # steady state, no pause: every node is on a leg from 0 s
    assert legs.to_x.between(0, 1500).all() and legs.to_y.between(0, 300).all()
    assert legs.speed_mps.between(1.8, 2.2).all()
    assert m.time_s.is_monotonic_increasing
    # Each later leg starts where the node's previous one ended, when its length says.
    for _, g in legs.groupby("node"):
        for a, b in zip(g.itertuples(), g.iloc[1:].itertuples()):
            assert (b.x, b.y) == (a.to_x, a.to_y)
            assert math.isclose(b.time_s, a.time_s + math.hypot(a.to_x - a.x, a.to_y - a.y) / a.speed_mps,
                                abs_tol=3e-9)
    # The table round-trips through the result files.
    res.save(tmp_path / "r")
    back = hoplab.Result.load(tmp_path / "r")
    assert back.movement.equals(res.movement)
    assert (tmp_path / "r" / "movement.csv").exists()


def test_static_runs_list_their_positions_only():
    res = hoplab.run(hoplab.scenario.chain(2, duration=2.0))
    assert res.movement[["node", "x", "speed_mps"]].values.tolist() == [[0, 0.0, 0.0], [1, 200.0, 0.0], [2, 400.0, 0.0]]


def test_waypoint_errors_are_one_line_and_name_the_field():
    r = CliRunner().invoke(cli, ["validate", str(EXAMPLES / "waypoint.toml"), "--set", "mobility.speed_min_mps=0"])
    assert r.exit_code != 0
    assert "mobility.speed_min_mps" in r.output and "1/v" in r.output and "Traceback" not in r.output


def test_mobile_bench_scenarios_keep_seed001_density():
    assert set(MOBILE) <= set(SCENARIOS)
    for name, (nodes, protocol) in MOBILE.items():
        sc = build(name)
        _core.validate_json(json.dumps(sc))
        t = sc["topology"]
        assert t["kind"] == "random" and t["nodes"] == nodes
        assert math.isclose(nodes / (t["width_m"] * t["height_m"]), 150 / 2000.0**2)
        assert sc["routing"] == {"protocol": protocol} and len(sc["flows"]) == 32
        assert sc["duration_s"] == 200.0
        assert sc["mobility"] == {"model": "waypoint", "speed_min_mps": 0.0, "speed_max_mps": 10.0, "pause_s": 0.0}
        assert all(f["src"] != f["dst"] and max(f["src"], f["dst"]) < nodes for f in sc["flows"])
    assert build("mobile150-aodv") == build("mobile150-aodv")
    a, d = build("mobile150-aodv"), build("mobile150-dsr")
    assert np.array_equal([f["src"] for f in a["flows"]], [f["src"] for f in d["flows"]])
