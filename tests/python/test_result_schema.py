"""The result schema is the engine's: every table and column of a run reaches
the DataFrames, the files, the lab store and docs/RESULTS.md, and a stored run
comes back whole (issue 19: a stored run had lost `ecn_reductions`)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import hoplab
from hoplab import _core, lab
from hoplab._csv import csv_text
from hoplab._results_doc import results_markdown
from hoplab.lab.store import FLOW_COLUMNS, Store, StoreMigrationWarning
from hoplab.lab.stored import StoredRun
from hoplab.result import SCHEMA, TABLES, _frame

from .conftest import ROOT

# Two flows crossing a 4-hop chain with ECN and LRED: MAC retries make LRED
# mark (nodes.ecn_marks) and the senders back off (flows.ecn_reductions); the
# trace is on, so every table but downloads/oracle rows has rows.
ECN = {
    "name": "ecn", "duration_s": 20.0,
    "topology": {"kind": "chain", "nodes": 5, "spacing_m": 200.0},
    "tcp": {"ecn": True}, "lred": {"enabled": True}, "output": {"trace": True},
    "flows": [{"kind": "ftp", "src": 0, "dst": 4}, {"kind": "ftp", "src": 4, "dst": 0}],
}

# Written out on purpose: a column dropped or renamed anywhere fails here.
FLOWS = [
    "flow", "kind", "src", "dst", "start_s", "end_s", "bytes_delivered", "throughput_kbps", "packets_sent",
    "retransmissions", "packets_received", "retransmission_index", "loss_rate", "rtt_mean_ms", "rtt_std_ms",
    "rtt_samples", "timeouts", "fast_retransmits", "stream_errors", "completed", "route_changes", "rto_time_s",
    "no_route_s", "longest_gap_s", "elfn_events", "probes", "standby_s", "adtcp_congestion",
    "adtcp_channel_error", "adtcp_route_change", "adtcp_disconnection", "delay_mean_ms", "delay_std_ms",
    "jitter_ms", "completion_s", "transfer_throughput_kbps", "ecn_reductions", "oracle_hops_at_start"]
NODES = ["node", "x", "y", "ifq_mean", "ifq_max", "mac_frames_sent", "mac_data_sent", "mac_retransmissions",
         "rx_collisions", "forwarded", "ecn_marks"]


@pytest.fixture(scope="module")
def ecn_run() -> hoplab.Result:
    return hoplab.run(ECN, seed=1)


def engine_columns(table: str) -> list[str]:
    return [c["name"] for c in next(t for t in _core.result_schema() if t["name"] == table)["columns"]]


def test_the_engine_declares_every_table_once():
    names = [t["name"] for t in _core.result_schema()]
    assert names[0] == "info" and tuple(names[1:]) == TABLES
    assert TABLES == ("flows", "nodes", "drops", "timeseries", "overhead", "route_events", "paths", "outages",
                      "trace", "movement", "downloads", "oracle_paths")
    assert engine_columns("flows") == FLOWS and engine_columns("nodes") == NODES
    for t in _core.result_schema():
        for c in t["columns"]:
            assert c["dtype"] in ("int64", "float64", "bool", "str") and c["meaning"], (t["name"], c)


def test_every_table_of_a_run_has_exactly_the_engines_columns(ecn_run, tmp_path):
    for t in TABLES:
        df = getattr(ecn_run, t)
        assert list(df.columns) == engine_columns(t), t
        for c, d in SCHEMA[t].items():  # pandas 3 types str columns as str, pandas 2 as object
            assert (pd.api.types.is_string_dtype(df[c]) if d is str else str(df[c].dtype) == d), (t, c)
    assert list(ecn_run.info)[:7] == engine_columns("info")
    ecn_run.save(tmp_path / "r")
    for t in TABLES:
        if len(getattr(ecn_run, t)) == 0:  # not written; loads empty with its columns
            assert not (tmp_path / "r" / f"{t}.csv").exists(), t
            assert list(getattr(hoplab.Result.load(tmp_path / "r"), t).columns) == engine_columns(t), t
            continue
        header = (tmp_path / "r" / f"{t}.csv").read_text().split("\n", 1)[0]
        assert header.split(",") == engine_columns(t), t


def test_the_store_keeps_every_flows_column():
    assert FLOW_COLUMNS == FLOWS


def test_a_stored_run_round_trips_every_column(ecn_run, tmp_path):
    assert ecn_run.flows["ecn_reductions"].sum() > 0 and ecn_run.nodes["ecn_marks"].sum() > 0
    design = lab.Design.from_dict({"name": "ecn", "base": ECN, "replicas": 1, "factors": {}})
    lab.run(design, tmp_path / "s", jobs=1, progress=False)
    flows = lab.load(tmp_path / "s")
    lead = ["key", "design", "replica", "seed", "status", "error"]
    assert list(flows.columns) == lead + FLOWS
    pd.testing.assert_frame_equal(flows[FLOWS], ecn_run.flows, check_dtype=False)
    key = flows["key"].iloc[0]
    for t in TABLES:
        got = lab.load(tmp_path / "s", table=t)
        assert list(got.columns) == lead + engine_columns(t), t
        pd.testing.assert_frame_equal(got[engine_columns(t)].reset_index(drop=True), getattr(ecn_run, t),
                                      check_dtype=False, obj=t)
    with Store(tmp_path / "s") as st:
        stored = StoredRun(st, key)
        for t in TABLES:
            pd.testing.assert_frame_equal(getattr(stored, t), getattr(ecn_run, t), obj=t)


def test_an_older_store_migrates_and_says_what_its_runs_lack(tmp_path):
    design = lab.Design.from_dict({"name": "ecn", "base": {**ECN, "duration_s": 2.0}, "replicas": 1,
                                   "factors": {}})
    lab.run(design, tmp_path / "s", jobs=1, progress=False)
    # What a store written before the column was kept looks like.
    db = sqlite3.connect(tmp_path / "s" / "store.sqlite")
    db.execute("ALTER TABLE flows DROP COLUMN ecn_reductions")
    db.commit()
    db.close()
    with pytest.warns(StoreMigrationWarning, match=r"1 run\(s\) .* older hoplab .* ecn_reductions"):
        flows = lab.load(tmp_path / "s")
    assert flows["ecn_reductions"].isna().all() and [c for c in flows.columns if c in FLOWS] == FLOWS
    # Runs recorded after the migration are whole, and no warning is given for them.
    with Store(tmp_path / "s") as st:
        st.forget(st.recorded())
    lab.run(design, tmp_path / "s", jobs=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", StoreMigrationWarning)
        assert not lab.load(tmp_path / "s")["ecn_reductions"].isna().any()


def test_csv_without_pandas_is_the_file_pandas_writes():
    # Fresh runs: their tables are still the engine's columns (NaN, bools,
    # empty strings, the trace's -1s), written both ways.
    for res in (hoplab.run(ECN, seed=1), hoplab.run(ROOT / "examples" / "www.toml")):
        for t in TABLES:
            cols = res._columns[t]
            assert csv_text(list(SCHEMA[t]), cols) == _frame(t, cols).to_csv(index=False), t
    odd = {"flow": [0, 1], "kind": ["a,b", ""], "x": [float("nan"), 1e-7], "ok": [True, False]}
    assert csv_text(list(odd), odd) == pd.DataFrame(odd).to_csv(index=False)


def test_run_summary_and_save_need_no_pandas(tmp_path):
    code = ("import sys, hoplab; r = hoplab.run(sys.argv[1]); r.summary(); r.summary(full=True); r.save(sys.argv[2]); "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "examples" / "chain.toml"), str(tmp_path / "o")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    back = hoplab.Result.load(tmp_path / "o")
    again = hoplab.run(ROOT / "examples" / "chain.toml")
    for t in TABLES:
        pd.testing.assert_frame_equal(getattr(back, t), getattr(again, t), obj=t)


def test_a_scenario_is_parsed_once_on_the_run_path(monkeypatch, small_toml):
    def refuse(*_a, **_k):
        raise AssertionError("the run path parsed the scenario a second time")

    for name in ("check_scenario", "validate_toml", "validate_json", "run_toml", "run_json"):
        monkeypatch.setattr(_core, name, refuse)
    old = small_toml.replace("duration_s", "duration")
    with pytest.warns(hoplab._deprecation.ScenarioKeyDeprecationWarning, match="duration_s"):
        res = hoplab.run(old, seed=1)
    assert res.info["duration_s"] == 10.0


def test_results_reference_is_current():
    # Regenerate with: python -m hoplab._results_doc > docs/RESULTS.md
    assert (ROOT / "docs" / "RESULTS.md").read_text() == results_markdown()


def test_a_result_built_from_some_frames_saves_the_others_empty(ecn_run, tmp_path):
    r = hoplab.Result(dict(ecn_run.info), ecn_run.flows)
    r.save(tmp_path / "r")
    back = hoplab.Result.load(tmp_path / "r")
    pd.testing.assert_frame_equal(back.flows, ecn_run.flows)
    for t in TABLES[1:]:
        assert len(getattr(back, t)) == 0 and list(getattr(back, t).columns) == engine_columns(t), t
