"""Issue 10 measurement fixes: flows.kind, CBR delay and jitter with no RTT,
the bounded time series, and NaN surviving summaries and files."""

from __future__ import annotations

import math

import pytest

import hoplab
from hoplab import scenario


@pytest.fixture(scope="module")
def mixed() -> hoplab.Result:
    # Seed 000 §4.3's 3-hop chain with a 192 kbit/s CBR flow beside the FTP flow.
    sc = scenario.chain(3, duration=30.0, flows=[scenario.ftp(0, 3), scenario.cbr(3, 2, 192.0)], name="mixed")
    return hoplab.run(sc, seed=1)


def test_kind_is_the_flow_kind_of_the_scenario(mixed):
    assert list(mixed.flows.kind) == ["ftp", "cbr"]


def test_cbr_reports_delay_and_jitter_and_no_rtt(mixed):
    ftp, cbr = mixed.flows.iloc[0], mixed.flows.iloc[1]
    assert math.isnan(cbr.rtt_mean_ms) and math.isnan(cbr.rtt_std_ms) and cbr.rtt_samples == 0
    # One hop at 2 Mbit/s: at least the airtime of a 540-byte frame (~2.5 ms), at most seconds.
    assert 2.0 < cbr.delay_mean_ms < 2000.0
    assert cbr.delay_std_ms > 0 and 0 < cbr.jitter_ms < 1000.0
    assert ftp.rtt_mean_ms > 0
    assert math.isnan(ftp.delay_mean_ms) and math.isnan(ftp.jitter_ms)


def test_nan_survives_summary_and_files(mixed, tmp_path):
    text = mixed.summary()
    assert "nan" not in text.lower()
    assert "delay ms" in text and "jitter ms" in text
    mixed.save(tmp_path / "r")
    back = hoplab.Result.load(tmp_path / "r")
    assert math.isnan(back.flows.rtt_mean_ms.iloc[1])
    assert back.flows.delay_mean_ms.iloc[1] == mixed.flows.delay_mean_ms.iloc[1]
    assert list(back.flows.kind) == ["ftp", "cbr"]


def test_timeseries_interval_bounds_the_samples():
    sc = scenario.chain(1, duration=60.0, name="ts")
    every = hoplab.run(sc, seed=1)
    sc["output"]["timeseries_interval_s"] = 1.0
    coarse = hoplab.run(sc, seed=1)
    assert len(every.timeseries) > 1000
    assert len(coarse.timeseries) <= 61
    assert coarse.info["event_hash"] == every.info["event_hash"]
    sc["output"]["timeseries_max_samples"] = 3
    with pytest.raises(hoplab.ScenarioError) as e:
        hoplab.run(sc, seed=1)
    assert e.value.field == "output.timeseries_max_samples"


def test_memory_bench_scenarios_differ_only_in_the_time_series():
    import json

    from hoplab import _core
    from hoplab._bench import memory as bench_memory

    on, off = bench_memory.build("chain1-36000s"), bench_memory.build("chain1-36000s-nots")
    for sc in (on, off):
        _core.validate_json(json.dumps(sc))
    assert on["duration_s"] == 36_000.0 and on["topology"]["nodes"] == 2 and len(on["flows"]) == 1
    assert on["output"]["timeseries"] and not off["output"]["timeseries"]
    del on["output"], off["output"], on["name"], off["name"]
    assert on == off
