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
    seg = t[(t.packet_type == "tcp") & (t.tcp_seq == 0) & (t.frame == "DATA") & (t.layer == "MAC") & (t.event.isin(["send", "recv"]))]
    seg = seg[seg.node == seg.dst.where(seg.event == "recv", seg.node)]
    hops = list(zip(seg.event, seg.src, seg.dst))[:4]
    assert hops == [("send", 0, 1), ("recv", 0, 1), ("send", 1, 2), ("recv", 1, 2)]
    assert seg.uid.nunique() == 1, "a packet keeps its uid across hops"
    res.save(tmp_path / "t")
    back = hoplab.Result.load(tmp_path / "t")
    pd.testing.assert_frame_equal(back.trace, res.trace)
    off = hoplab.run({**sc, "output": {"trace": False}}, seed=1)
    assert off.trace.empty and off.info["event_hash"] == res.info["event_hash"]


# ---- bad input to the Python API: the CLI's limits, one short line naming the field (issue 22) ----

def _scenario_error(scenario, **kw) -> hoplab.ScenarioError:
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(scenario, **kw)
    assert isinstance(ei.value, ValueError) and "\n" not in str(ei.value)
    return ei.value


def test_a_huge_string_is_refused_by_the_cli_limit_without_echoing_it():
    # Before: OSError "File name too long" carrying the whole 100 MB string.
    from hoplab._safe_read import MAX_SCENARIO_BYTES

    e = _scenario_error("x" * (100 * 1024 * 1024))
    assert str(e) == "scenario too large (104857600 bytes of text; the limit is 16 MB)"
    # The limit is the CLI's: counted in UTF-8 bytes, TOML text too.
    e = _scenario_error("duration_s = 1.0\n#" + "é" * (MAX_SCENARIO_BYTES // 2))
    assert "too large" in e.message and len(str(e)) < 100


def test_a_long_string_that_is_neither_a_file_nor_toml_is_not_echoed_whole():
    e = _scenario_error("y" * 5000)  # too long for a file name, no `key = value`
    assert "not a scenario file or TOML text" in e.message and "(5000 characters)" in e.message
    assert len(str(e)) < 200
    with pytest.raises(FileNotFoundError) as ei:
        hoplab.run("z/" * 1000 + "s.toml")
    assert len(str(ei.value)) < 300


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_an_empty_string_is_a_scenario_error(text):
    # Before: IsADirectoryError '.' (Path("") is the current directory).
    assert _scenario_error(text).message == "empty scenario: give a file path, TOML text or a dict"


def test_a_dict_over_the_size_limit_is_refused(small_dict):
    small_dict["name"] = "n" * (17 * 1024 * 1024)
    e = _scenario_error(small_dict)
    assert e.message.startswith("scenario too large (") and "as JSON; the limit is 16 MB" in e.message


@pytest.mark.parametrize("np_type", ["int64", "uint64", "int32"])
def test_a_numpy_integer_seed_is_a_seed(small_toml, np_type):
    np = pytest.importorskip("numpy")
    a = hoplab.run(small_toml, seed=getattr(np, np_type)(4))
    assert a.info["seed"] == 4
    assert a.info["event_hash"] == hoplab.run(small_toml, seed=4).info["event_hash"]


def test_a_seed_that_is_not_an_integer_is_still_refused(small_toml):
    np = pytest.importorskip("numpy")
    for bad in (np.float64(3.0), np.bool_(True), True, "3"):
        with pytest.raises(TypeError, match="seed must be an int"):
            hoplab.run(small_toml, seed=bad)
    with pytest.raises(ValueError):
        hoplab.run(small_toml, seed=np.int64(-1))


def test_numpy_numbers_and_arrays_are_taken_wherever_a_number_is(small_dict):
    # Before: TypeError "Object of type int64 is not JSON serializable".
    np = pytest.importorskip("numpy")
    want = hoplab.run(small_dict, seed=3).info["event_hash"]
    small_dict["duration_s"] = np.float64(small_dict["duration_s"])
    small_dict["topology"]["nodes"] = np.int64(3)
    small_dict["mac"]["rts_threshold_bytes"] = np.int32(100)
    small_dict["flows"][0]["src"] = np.uint8(0)
    small_dict["output"] = {"timeseries": np.bool_(True)}
    assert hoplab.run(small_dict, seed=3).info["event_hash"] == want
    # the scenario helpers' arguments, and an array of positions
    sc = hoplab.scenario.chain(np.int64(2), np.float64(200.0), duration=np.float32(2.0), seed=np.int16(1))
    assert hoplab.run(sc).info["nodes"] == 3
    sc = hoplab.scenario.explicit(np.array([[0.0, 0.0], [200.0, 0.0]]), duration=2.0,
                                  flows=[hoplab.scenario.ftp(np.int64(0), np.int64(1))])
    sc["topology"]["positions"] = np.array(sc["topology"]["positions"])
    assert hoplab.run(sc).info["nodes"] == 2


@pytest.mark.parametrize("where, value, field", [
    (("duration_s",), float("nan"), "duration_s"),
    (("duration_s",), float("inf"), "duration_s"),
    (("topology", "spacing_m"), -float("inf"), "topology.spacing_m"),
    (("flows", 0, "start_s"), float("nan"), "flows[0].start_s"),
    (("mac", "cw_min"), {1, 2}, "mac.cw_min"),
])
def test_a_value_json_cannot_carry_names_its_field(small_dict, where, value, field):
    # Before: NaN and infinity gave "expected value" with no field; a set, a TypeError.
    node = small_dict
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = value
    e = _scenario_error(small_dict)
    assert e.field == field and str(e).startswith(f"{field}: ")
    assert ("must be a finite number" in e.message) == isinstance(value, float)


def test_a_dict_nested_without_end_names_where():
    sc = hoplab.scenario.chain(1, duration=1.0)
    sc["output"]["self"] = sc
    e = _scenario_error(sc)
    assert e.field.startswith("output.self.output.self") and "nested more than" in e.message


def test_an_engine_message_never_echoes_a_huge_value_whole(small_dict):
    small_dict["routing"] = {"protocol": "p" * 100_000}
    e = _scenario_error(small_dict)
    assert e.field == "routing.protocol" and "unknown variant" in e.message
    assert "(100000 characters)" in e.message and len(str(e)) < 300


def test_result_load_on_a_lab_store_points_to_lab_load(tmp_path):
    # Before: "MANIFEST.json: missing ... load it with Result.load(dir, verify=False)", and
    # then FileNotFoundError for info.json.
    from hoplab import lab

    lab.Store(tmp_path / "st").close()
    for verify in (True, False):
        with pytest.raises(hoplab.ResultError) as ei:
            hoplab.Result.load(tmp_path / "st", verify=verify)
        assert "a lab store" in str(ei.value) and "hoplab.lab.load(" in str(ei.value)
        assert "verify=False" not in str(ei.value)


def test_result_load_without_verify_names_a_missing_info_json(tmp_path):
    with pytest.warns(UserWarning), pytest.raises(hoplab.ResultError, match="info.json: missing"):
        hoplab.Result.load(tmp_path, verify=False)


def test_cli_set_of_a_non_finite_number_names_the_field(tmp_path, small_toml):
    # Before: "s.toml: expected value" (json.dumps wrote NaN into the JSON for the engine).
    from .conftest import run_module

    p = tmp_path / "s.toml"
    p.write_text(small_toml)
    r = run_module("run", str(p), "--no-save", "--set", "topology.spacing_m=-inf", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"hoplab: error: {p}: topology.spacing_m: must be a finite number, not -inf"]
