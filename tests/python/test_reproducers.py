"""Issue 10's reproducers (tests/python/reproducers.py) through `hoplab.run`
and the CLI: each gives a clean ScenarioError naming the field that drives
the cost, or a finished run. A hang would hit the subprocess timeout; a panic
would surface as PanicException (API) or a traceback (CLI)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import hoplab
from hoplab.cli import cli

from .conftest import run_module
from .reproducers import CORPUS

#: name -> the field the error names; absent: the scenario must run.
REFUSED = {
    "data_rate_1e-7": "mac.data_rate_mbps",
    "basic_rate_1e-7": "mac.basic_rate_mbps",
    "initial_rto_1e-12": "tcp.initial_rto_s",
    "max_rto_1e-12": "tcp.max_rto_s",
    "max_rto_1e-12_long": "tcp.max_rto_s",
    "tx_range_1e9": "radio.tx_range_m",
    "initial_cwnd_u32_max": "tcp.initial_cwnd",
    "chain_1e6_nodes": "topology",
    "random_65535_in_500m": "topology",
    "mobility_step_1e-9": "mobility.step_m",
    "cbr_1e12_kbps": "flows[0].rate_kbps",
    "aodv_hello_1e-9": "routing.aodv.hello_interval_s",
    "olsr_timers_1e-9": "routing.olsr.hello_interval_s",
    "dsdv_update_1e-9": "routing.dsdv.periodic_update_s",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_reproducer_through_the_api(name):
    sc = CORPUS[name]
    if name in REFUSED:
        with pytest.raises(hoplab.ScenarioError) as e:
            hoplab.run(sc, seed=1)
        assert e.value.field == REFUSED[name]
    else:
        res = hoplab.run(sc, seed=1)
        assert res.info["duration_s"] == sc["duration_s"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_reproducer_through_the_cli(tmp_path, name):
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(CORPUS[name]))
    r = CliRunner().invoke(cli, ["run", str(p), "--no-save"])
    if name in REFUSED:
        assert r.exit_code == 2, r.output
        assert REFUSED[name] in r.output
    else:
        assert r.exit_code == 0, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)


@pytest.mark.parametrize("name", ["data_rate_1e-7", "max_rto_1e-12", "chain_1e6_nodes"])
def test_reproducer_in_a_subprocess_prints_one_line_or_a_summary(tmp_path, name):
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(CORPUS[name]))
    r = run_module("run", str(p), "--no-save", cwd=tmp_path)
    assert "Traceback" not in r.stderr + r.stdout and "panicked" not in r.stderr
    if name in REFUSED:
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("hoplab: error: ")
    else:
        assert r.returncode == 0, r.stderr
