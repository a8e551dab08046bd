"""Workloads and seed 002's metrics from Python: the new flows columns, the
downloads and oracle_paths tables, and Eq. 1's expected throughput."""

from __future__ import annotations

import math

import pytest

import hoplab
from hoplab.papers.seed002.expected import with_expected
from hoplab.result import SCHEMA, Result


def _chain(nodes: int, duration: float, flows: list[dict], **extra) -> dict:
    return {"name": "w", "duration_s": duration, "topology": {"kind": "chain", "nodes": nodes, "spacing_m": 200.0},
            "flows": flows, **extra}


def test_new_flows_columns_are_appended_at_the_end():
    cols = list(SCHEMA["flows"])
    # ecn_reductions was written last (after the declared columns) before the
    # engine declared it; it and every later column stay in that order so
    # that old and new files line up.
    assert cols[-4:] == ["completion_s", "transfer_throughput_kbps", "ecn_reductions", "oracle_hops_at_start"]
    assert cols[: cols.index("jitter_ms") + 1][-1] == "jitter_ms"


def test_eq1_on_a_static_chain_is_the_chain_value():
    r = hoplab.run(_chain(4, 60.0, [{"kind": "ftp", "src": 0, "dst": 3, "bytes": 200_000}]))
    f = r.flows.iloc[0]
    assert bool(f.completed) and f.completion_s == pytest.approx(f.end_s)
    assert f.transfer_throughput_kbps == pytest.approx(200_000 * 8 / f.completion_s / 1e3)
    assert list(r.oracle_paths.hops) == [3]
    assert r.oracle_paths.time_s.iloc[0] == pytest.approx(f.completion_s)
    e = with_expected(r, {1: 600.0, 2: 300.0, 3: 200.0}).iloc[0]
    assert e.expected_throughput_kbps == pytest.approx(200.0)
    assert e.fraction_of_expected == pytest.approx(f.transfer_throughput_kbps / 200.0)
    with pytest.raises(KeyError, match="3"):
        with_expected(r, {1: 600.0})


def test_eq1_weighs_the_oracle_times_under_movement():
    # Node 2 comes within 250 m of node 0 at 16 s (see tests/workloads.rs).
    sc = _chain(3, 30.0, [{"kind": "cbr", "src": 0, "dst": 2, "rate_kbps": 8.0}],
                radio={"tx_range_m": 250.0, "cs_range_m": 550.0},
                mobility={"legs": [{"node": 2, "at_s": 1.0, "to": [0.0, 0.0], "speed_mps": 10.0}]})
    r = hoplab.run(sc)
    t = dict(zip(r.oracle_paths.hops, r.oracle_paths.time_s))
    assert t == pytest.approx({1: 14.0, 2: 16.0})
    e = with_expected(r, {1: 800.0, 2: 400.0}).iloc[0]
    assert e.expected_throughput_kbps == pytest.approx((16 * 400.0 + 14 * 800.0) / 30)
    assert math.isnan(r.flows.iloc[0].completion_s)


def test_www_downloads_table_round_trips(tmp_path):
    r = hoplab.run(_chain(2, 120.0, [{"kind": "www", "src": 0, "dst": 1, "downloads": 4, "think_scale_s": 0.2}]))
    d = r.downloads
    assert list(d.columns) == list(SCHEMA["downloads"])
    assert list(d.download) == [0, 1, 2, 3] and d.completed.all()
    assert (d.end_s > d.start_s).all()
    assert r.flows.iloc[0].kind == "www" and int(r.flows.iloc[0].bytes_delivered) == int(d.bytes.sum())
    back = Result.load(r.save(tmp_path / "out"))
    assert back.downloads.equals(r.downloads) and back.oracle_paths.equals(r.oracle_paths)


@pytest.mark.parametrize("flow, field", [
    ({"kind": "ftp", "src": 0, "dst": 1, "on_s": 1.0, "off_s": 1.0}, "flows[0]"),
    ({"kind": "cbr", "src": 0, "dst": 1, "rate_kbps": 8.0, "on_s": 1.0}, "flows[0].off_s"),
    ({"kind": "cbr", "src": 0, "dst": 1, "rate_kbps": 8.0, "downloads": 3}, "flows[0]"),
    ({"kind": "www", "src": 0, "dst": 1, "bytes": 1000}, "flows[0]"),
    ({"kind": "www", "src": 0, "dst": 1, "size_sigma": -1.0}, "flows[0].size_sigma"),
])
def test_workload_fields_are_checked(flow, field):
    with pytest.raises(hoplab.ScenarioError) as e:
        hoplab.run(_chain(2, 5.0, [flow]))
    assert e.value.field == field
