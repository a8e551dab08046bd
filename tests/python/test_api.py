from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import hoplab
from hoplab.result import SCHEMA, TABLES, read_csv_kw

from .conftest import EXAMPLES

FLOW_COLUMNS = ["flow", "src", "dst", "throughput_kbps", "retransmission_index", "loss_rate",
                "rtt_mean_ms", "rtt_std_ms"]


def check_result(res: hoplab.Result, n_nodes: int, n_flows: int) -> None:
    assert isinstance(res, hoplab.Result)
    for t in TABLES:
        df = getattr(res, t)
        assert isinstance(df, pd.DataFrame)
        assert list(df.columns)[: len(SCHEMA[t])] == list(SCHEMA[t])
    assert set(FLOW_COLUMNS) <= set(res.flows.columns)
    assert len(res.flows) == n_flows
    assert list(res.flows["flow"]) == list(range(n_flows))
    assert len(res.nodes) == n_nodes
    assert sorted(res.nodes["node"]) == list(range(n_nodes))
    for key in ("scenario", "seed", "duration_s", "nodes", "events", "wall_s", "event_hash"):
        assert key in res.info
    assert res.info["nodes"] == n_nodes
    assert res.info["events"] > 0


def test_run_accepts_toml_string(small_toml):
    check_result(hoplab.run(small_toml, seed=1), 3, 1)


def test_run_accepts_dict(small_dict):
    check_result(hoplab.run(small_dict, seed=1), 3, 1)


def test_run_accepts_path_and_str_path(tmp_path, small_toml):
    p = tmp_path / "s.toml"
    p.write_text(small_toml)
    a = hoplab.run(p, seed=2)
    b = hoplab.run(str(p), seed=2)
    check_result(a, 3, 1)
    assert a.info["event_hash"] == b.info["event_hash"]


def test_toml_string_dict_and_file_give_the_same_run(small_toml, small_dict):
    a = hoplab.run(small_toml, seed=5)
    b = hoplab.run(small_dict, seed=5)
    assert a.info["event_hash"] == b.info["event_hash"]
    pd.testing.assert_frame_equal(a.flows, b.flows)


def test_load_scenario_reads_the_examples():
    sc = hoplab.load_scenario(EXAMPLES / "chain.toml")
    assert sc["topology"]["nodes"] == 5
    sc["duration_s"] = 5.0
    check_result(hoplab.run(sc), 5, 1)


def test_same_seed_is_identical(small_toml):
    a = hoplab.run(small_toml, seed=7)
    b = hoplab.run(small_toml, seed=7)
    assert a.info["event_hash"] == b.info["event_hash"]
    assert a.info["events"] == b.info["events"]
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.nodes, b.nodes)
    pd.testing.assert_frame_equal(a.drops, b.drops)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)


def test_different_seeds_differ(small_toml):
    hashes = {hoplab.run(small_toml, seed=s).info["event_hash"] for s in (1, 2, 3)}
    assert len(hashes) > 1


def test_default_seed_is_the_scenarios(small_dict):
    small_dict["seed"] = 11
    a = hoplab.run(small_dict)
    assert a.info["seed"] == 11
    assert a.info["event_hash"] == hoplab.run(small_dict, seed=11).info["event_hash"]


def test_one_hop_ftp_delivers_in_order():
    sc = hoplab.scenario.chain(1, duration=10.0)
    f = hoplab.run(sc, seed=1).flows.iloc[0]
    assert f.throughput_kbps > 0
    assert f.bytes_delivered > 0
    assert f.stream_errors == 0
    # throughput is delivered bytes over the active time, in kbit/s
    active = f.end_s - f.start_s
    assert math.isclose(f.throughput_kbps, f.bytes_delivered * 8 / 1000 / active, rel_tol=1e-6)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["flows"][0].__setitem__("dst", 9), "flows[0].dst"),
        (lambda d: d.setdefault("mac", {}).__setitem__("cw_min", 30), "mac.cw_min"),
        (lambda d: d.__setitem__("duration_s", -1.0), "duration_s"),
    ],
)
def test_scenario_errors_name_the_field(small_dict, change, field):
    change(small_dict)
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(small_dict)
    assert isinstance(ei.value, ValueError)
    assert ei.value.field == field
    assert ei.value.message
    assert field in str(ei.value)


def test_toml_syntax_error_is_a_scenario_error():
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run("duration_s = 10\n[topology\n")
    assert ei.value.field == ""
    assert "TOML" in ei.value.message


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        hoplab.run(tmp_path / "nope.toml")
    with pytest.raises(FileNotFoundError):
        hoplab.run(str(tmp_path / "nope.toml"))


def test_bad_seed_is_rejected(small_toml):
    with pytest.raises(ValueError):
        hoplab.run(small_toml, seed=-1)
    with pytest.raises(TypeError):
        hoplab.run(small_toml, seed=1.5)


def test_save_csv_round_trips(tmp_path, small_toml):
    res = hoplab.run(small_toml, seed=3)
    res.save(tmp_path / "r")
    for name in ("flows.csv", "nodes.csv", "drops.csv", "timeseries.csv", "info.json", "scenario.toml"):
        assert (tmp_path / "r" / name).is_file()
    back = hoplab.Result.load(tmp_path / "r")
    assert back.info == res.info
    for t in TABLES:
        pd.testing.assert_frame_equal(getattr(back, t), getattr(res, t))
    # plain pandas sees the same flows table
    plain = pd.read_csv(tmp_path / "r" / "flows.csv", **read_csv_kw())
    assert list(plain["throughput_kbps"]) == list(res.flows["throughput_kbps"])


def test_save_keeps_existing_files(tmp_path, small_toml):
    d = tmp_path / "r"
    d.mkdir()
    (d / "notes.txt").write_text("mine")
    (d / "flows.csv").write_text("an older result\n")
    hoplab.run(small_toml, seed=3).save(d)
    assert (d / "notes.txt").read_text() == "mine"
    olds = list((d / "previous").glob("*/flows.csv"))
    assert len(olds) == 1 and olds[0].read_text() == "an older result\n"
    assert not list(d.glob(".*.tmp"))
    # saving the same result again changes nothing and keeps no duplicate
    hoplab.run(small_toml, seed=3).save(d)
    assert len(list((d / "previous").glob("*/flows.csv"))) == 1


def test_summary_and_repr(small_toml):
    res = hoplab.run(small_toml, seed=1)
    s = res.summary()
    assert "small" in s and "0->2" in s and "thr kbps" in s
    assert "events" in repr(res)
    assert "Drops" in res.summary(full=True)


def test_grid_helper_builds_crossing_flows():
    sc = hoplab.scenario.grid(7, 7)
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(21, 27), (3, 45)]


def test_save_parquet_round_trips(tmp_path, small_toml):
    pytest.importorskip("pyarrow")
    res = hoplab.run(small_toml, seed=3)
    res.save(tmp_path / "p", format="parquet")
    assert (tmp_path / "p" / "flows.parquet").is_file()
    back = hoplab.Result.load(tmp_path / "p")
    for t in TABLES:
        pd.testing.assert_frame_equal(getattr(back, t), getattr(res, t))


def test_trace_follows_a_segment_hop_by_hop_and_round_trips(tmp_path):
    sc = hoplab.scenario.chain(2, duration=2.0, flows=[hoplab.scenario.ftp(0, 2)])
    sc["output"]["trace"] = True
    res = hoplab.run(sc, seed=1)
    t = res.trace
    assert list(t.columns)[: len(SCHEMA["trace"])] == list(SCHEMA["trace"])
    # The first data segment: sent by 0 to 1, decoded by 1, sent by 1 to 2, decoded by 2.
    seg = t[(t.packet_type == "tcp") & (t.tcp_seq == 0) & (t.frame == "DATA") & (t.event.isin(["tx", "rx"]))]
    seg = seg[seg.node == seg.dst.where(seg.event == "rx", seg.node)]
    hops = list(zip(seg.event, seg.src, seg.dst))[:4]
    assert hops == [("tx", 0, 1), ("rx", 0, 1), ("tx", 1, 2), ("rx", 1, 2)]
    assert seg.uid.nunique() == 1, "a packet keeps its uid across hops"
    res.save(tmp_path / "t")
    back = hoplab.Result.load(tmp_path / "t")
    pd.testing.assert_frame_equal(back.trace, res.trace)
    off = hoplab.run({**sc, "output": {"trace": False}}, seed=1)
    assert off.trace.empty and off.info["event_hash"] == res.info["event_hash"]
