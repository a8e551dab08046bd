"""Random walk and random direction from Python: the movement table of the
example against each model's rules, the final positions against those
recomputed from the table, determinism and errors (the models themselves
are tested in Rust, crates/hoplab-sim/tests/mobility_walk.rs)."""

from __future__ import annotations

import math

import numpy as np
from click.testing import CliRunner

import hoplab
from hoplab.cli import cli

from .conftest import EXAMPLES

W, H = 1500.0, 300.0


def _run(model: str = "walk", seed: int = 2, **mobility) -> hoplab.Result:
    sc = hoplab.load_scenario(EXAMPLES / "walk.toml")
    sc["duration_s"] = 120.0
    sc["mobility"].update(model=model, **mobility)
    return hoplab.run(sc, seed=seed)


def _end_positions(m, t: float) -> np.ndarray:
    """Each node's position at `t` from the movement table alone."""
    out = []
    for _, g in m.groupby("node"):
        r = g[g.time_s <= t].iloc[-1]
        d = math.hypot(r.to_x - r.x, r.to_y - r.y)
        f = 1.0 if r.speed_mps == 0 or d == 0 else min(1.0, (t - r.time_s) * r.speed_mps / d)
        out.append((r.x + (r.to_x - r.x) * f, r.y + (r.to_y - r.y) * f))
    return np.array(out)


def _on_border(x: float, y: float) -> bool:
    return x in (0.0, W) or y in (0.0, H)


def test_walk_legs_follow_the_interval_and_reflect_at_the_border():
    res = _run("walk", walk_interval_s=20.0)
    m = res.movement
    legs = m[m.speed_mps > 0]
    assert legs.to_x.between(0, W).all() and legs.to_y.between(0, H).all()
    assert legs.speed_mps.between(9.0, 11.0).all()
    reflections = 0
    for _, g in legs.groupby("node"):
        assert g.time_s.iloc[0] == 0.0
        t_in = 0.0
        for a, b in zip(g.itertuples(), g.iloc[1:].itertuples()):
            assert (b.x, b.y) == (a.to_x, a.to_y)
            dt = b.time_s - a.time_s
            assert math.isclose(dt, math.hypot(a.to_x - a.x, a.to_y - a.y) / a.speed_mps, abs_tol=3e-9)
            t_in += dt
            if math.isclose(t_in, 20.0, abs_tol=1e-6):
                t_in = 0.0
            else:
                # Cut by the border: the same speed on, the direction mirrored.
                assert t_in < 20.0 and _on_border(a.to_x, a.to_y) and b.speed_mps == a.speed_mps
                reflections += 1
    assert reflections > 20
    # The channel's final positions (nodes table) are the table's, to within a step.
    end = _end_positions(m, 120.0)
    got = res.nodes[["x", "y"]].to_numpy()
    assert np.hypot(*(got - end).T).max() <= 1.0 + 1e-9


def test_direction_legs_end_on_the_border_and_pause():
    res = _run("direction", pause_s=5.0)
    legs = res.movement[res.movement.speed_mps > 0]
    assert all(_on_border(x, y) for x, y in zip(legs.to_x, legs.to_y))
    for _, g in legs.groupby("node"):
        assert g.time_s.iloc[0] == 0.0
        for a, b in zip(g.itertuples(), g.iloc[1:].itertuples()):
            arrival = a.time_s + math.hypot(a.to_x - a.x, a.to_y - a.y) / a.speed_mps
            assert (b.x, b.y) == (a.to_x, a.to_y) and math.isclose(b.time_s, arrival + 5.0, abs_tol=3e-9)
    end = _end_positions(res.movement, 120.0)
    assert np.hypot(*(res.nodes[["x", "y"]].to_numpy() - end).T).max() <= 1.0 + 1e-9


def test_same_seed_same_run():
    a, b, c = _run(seed=7), _run(seed=7), _run(seed=8)
    assert a.info["event_hash"] == b.info["event_hash"] and a.movement.equals(b.movement)
    assert a.info["event_hash"] != c.info["event_hash"]


def test_walk_errors_are_one_line_and_name_the_field():
    for setting, field in [("mobility.pause_s=3", "mobility.pause_s"), ("mobility.walk_interval_s=0", "mobility.walk_interval_s"),
                           ("mobility.steady_state=true", "mobility.steady_state")]:
        r = CliRunner().invoke(cli, ["validate", str(EXAMPLES / "walk.toml"), "--set", setting])
        assert r.exit_code != 0 and field in r.output and "Traceback" not in r.output, r.output


def test_walk_exported_as_an_ns2_movement_file_replays_the_same_positions(tmp_path):
    from hoplab.formats.ns2 import movement as nm

    res = _run("walk", walk_interval_s=7.0)
    res.save(tmp_path / "run")
    r = CliRunner().invoke(cli, ["movement", "export", str(tmp_path / "run"), "-o", str(tmp_path / "walk.scen")])
    assert r.exit_code == 0, r.output
    sc, _ = nm.merge_movement(hoplab.load_scenario(EXAMPLES / "walk.toml"), nm.read_movement(tmp_path / "walk.scen"))
    assert sc["mobility"]["model"] == "legs" and "walk_interval_s" not in sc["mobility"]
    sc.update(duration_s=120.0, flows=[])
    replay = hoplab.run(sc, seed=2)
    for t in (0.0, 33.3, 77.7, 120.0):
        a, b = _end_positions(res.movement, t), _end_positions(replay.movement, t)
        assert np.hypot(*(a - b).T).max() < 1e-6, t
