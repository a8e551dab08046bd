"""Issue 23 item 3: a metric over an empty denominator is NaN (an empty CSV
field), never 0; `validate` and `run` warn of flows whose ends are not
connected when they start; times are written at the simulator's resolution
(whole nanoseconds), without float noise."""

from __future__ import annotations

import csv
import json
import math

import pytest
from click.testing import CliRunner

import hoplab
from hoplab.cli import cli

from .conftest import SMALL_TOML

# Seed 000's chain with nodes 2000 m apart: the radio reaches 250 m, so no
# segment the source sends can arrive (the "misleading numbers").
OUT_OF_RANGE = SMALL_TOML.replace("spacing_m = 200.0", "spacing_m = 2000.0")


def _cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def test_out_of_range_flow_has_nan_ratios_not_zero():
    f = hoplab.run(OUT_OF_RANGE).flows.iloc[0]
    assert f.packets_sent > 0 and f.retransmissions > 0 and f.packets_received == 0
    # retransmissions over zero delivered segments: undefined (was 0.00)
    assert math.isnan(f.retransmission_index)
    assert f.loss_rate == f.retransmissions / f.packets_sent  # a real ratio stays
    assert math.isnan(f.longest_gap_s)  # no two arrivals, no gap
    assert f.throughput_kbps == 0.0  # delivered nothing over a real window: a true 0
    assert f.oracle_hops_at_start == 0  # the oracle: no path when it started


def test_summary_says_which_flow_had_no_path():
    r = hoplab.run(OUT_OF_RANGE)
    lines = [ln for ln in r.summary().splitlines() if "no path between its ends" in ln]
    assert len(lines) == 1 and lines[0].startswith("flow 0 (0->2)")
    assert not [ln for ln in hoplab.run(SMALL_TOML).summary().splitlines() if "no path" in ln]


def test_connected_flow_keeps_its_numbers():
    f = hoplab.run(SMALL_TOML).flows.iloc[0]
    assert f.oracle_hops_at_start == 2
    assert f.packets_received > 0 and math.isfinite(f.retransmission_index)
    assert math.isfinite(f.longest_gap_s)


def test_nan_is_an_empty_csv_field(tmp_path):
    hoplab.run(OUT_OF_RANGE).save(tmp_path)
    with open(tmp_path / "flows.csv", newline="") as fh:
        row = next(csv.DictReader(fh))
    assert row["retransmission_index"] == "" and row["longest_gap_s"] == ""
    assert row["oracle_hops_at_start"] == "0"


def test_validate_and_run_warn_of_a_flow_without_a_path(tmp_path):
    p = tmp_path / "far.toml"
    p.write_text(OUT_OF_RANGE)
    code, out, err = _cli("validate", str(p))
    assert code == 0 and "OK" in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("hoplab: warning: flow 0 (node 0 to 2) has no path at the start"), err
    assert "250 m transmission range" in lines[0]
    code, out, err = _cli("run", str(p), "--no-save")
    assert code == 0 and err.count("hoplab: warning: flow 0 (node 0 to 2) has no path") == 1, err
    # --set moves the nodes into range: no warning
    code, out, err = _cli("validate", str(p), "--set", "topology.spacing_m=200")
    assert code == 0 and "warning" not in err, err


def test_no_warning_when_connected_or_when_nodes_move(tmp_path):
    p = tmp_path / "near.toml"
    p.write_text(SMALL_TOML)
    code, _, err = _cli("validate", str(p))
    assert code == 0 and err == ""
    # a scripted leg may bring the ends together later: not a static topology
    moving = OUT_OF_RANGE + "\n[[mobility.legs]]\nnode = 2\nat_s = 1.0\nto = [200.0, 0.0]\nspeed_mps = 100.0\n"
    p.write_text(moving)
    code, _, err = _cli("validate", str(p))
    assert code == 0 and "warning" not in err, err


def _seconds_columns() -> dict[str, list[str]]:
    return {t["name"]: [c["name"] for c in t["columns"] if c["unit"] == "s"] for t in hoplab._core.result_schema()}


def test_times_are_written_in_whole_nanoseconds(tmp_path):
    # 120 s came out as 120.00000000000001; times like 0.24821683700000002
    text = SMALL_TOML.replace("duration_s = 10.0", "duration_s = 120.0").replace(
        'dst = 2', 'dst = 2\nstart_s = 0.248216837')
    res = hoplab.run(text.replace("[tcp]", "[output]\ntimeseries = true\n\n[tcp]"))
    res.save(tmp_path)
    info = json.loads((tmp_path / "info.json").read_text())
    assert repr(info["duration_s"]) == "120.0"
    checked = 0
    for table, cols in _seconds_columns().items():
        path = tmp_path / f"{table}.csv"
        if table == "info" or not path.exists():
            continue
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                for c in cols:
                    if row[c]:
                        # the shortest text of a whole number of ns has at most 9 decimals
                        assert len(row[c].partition(".")[2]) <= 9, (table, c, row[c])
                        checked += 1
    assert checked > 100
    assert res.flows.start_s.iloc[0] == 0.248216837


def test_a_result_saved_before_a_column_existed_still_loads(tmp_path):
    import pandas as pd

    hoplab.run(SMALL_TOML).save(tmp_path)
    df = pd.read_csv(tmp_path / "flows.csv").drop(columns=["oracle_hops_at_start"])
    df.to_csv(tmp_path / "flows.csv", index=False)
    with pytest.warns(UserWarning, match="without checking"):
        old = hoplab.Result.load(tmp_path, verify=False)
    assert old.flows.oracle_hops_at_start.isna().all()  # unknown, not a hop count


def test_no_route_time_without_an_outage_is_plus_zero(tmp_path):
    """A flow that never lost its route had 0 s without one, not -0.0 (an empty
    float sum in Rust is -0.0): flows.csv says 0.0 and the routing table 0.00."""
    code, out, _ = _cli("run", "example:chain", "--out", str(tmp_path / "o"))
    assert code == 0
    row = next(csv.DictReader((tmp_path / "o" / "flows.csv").open()))
    assert row["no_route_s"] == "0.0"
    r = hoplab.run("example:chain")
    assert math.copysign(1.0, r.flows.no_route_s.iloc[0]) == 1.0
    assert "-0.00" not in r.routing_table()
