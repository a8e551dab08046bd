"""`hoplab validate`, `hoplab config`, docs/SCENARIO.md and the deprecated
key names."""

from __future__ import annotations

import json
import tomllib
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import _core
from hoplab._bench.suite import SCENARIOS, build
from hoplab.cli import config as cli_config
from hoplab.papers.seed000 import experiment as reproduce
from hoplab.papers.seed001 import experiment as reproduce_seed001
from hoplab.papers.seed003 import experiment as reproduce_seed003
from hoplab.cli import cli

from .conftest import EXAMPLES, ROOT, SMALL_TOML, run_module

OLD_TOML = (SMALL_TOML.replace("duration_s", "duration").replace("spacing_m", "spacing")
            .replace("mss_bytes", "mss").replace("dst = 2", "dst = 2\nstart = 0.5"))


def test_docs_scenario_md_is_generated_and_current():
    # Regenerate with: ./hoplab config --markdown > docs/SCENARIO.md
    assert (ROOT / "docs" / "SCENARIO.md").read_text() == cli_config.markdown(), \
        "docs/SCENARIO.md is stale: run ./hoplab config --markdown > docs/SCENARIO.md"


def test_config_lists_every_field_with_its_range_and_default():
    ref = cli_config.reference()
    paths = {f["path"] for f in ref["fields"]}
    assert {"duration_s", "tcp.min_rto_s", "routing.aodv.hello_interval_s", "flows[].start_s"} <= paths
    r = CliRunner().invoke(cli, ["config"])
    assert r.exit_code == 0
    for p in paths:
        assert f"\n{p}: " in "\n" + r.output
    rate = next(f for f in ref["fields"] if f["path"] == "mac.data_rate_mbps")
    assert rate["range"] == "[0.1, 10000]" and rate["default"] == "2.0" and "802.11" in rate["why"]


def test_validate_ok_and_error(tmp_path):
    r = run_module("validate", str(EXAMPLES / "chain.toml"))
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.strip().endswith("OK: chain-4hop, 5 nodes")
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL_TOML.replace("[mac]", "[mac]\ndata_rate_mbps = 1e-7"))
    r = run_module("validate", str(bad))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"hoplab: error: {bad}: mac.data_rate_mbps: 1e-7 Mbit/s is outside [0.1, 10000]")
    r = run_module("validate", str(bad), "--set", "mac.data_rate_mbps=11")
    assert r.returncode == 0, r.stderr


def test_resolved_fills_every_default_and_reparses(tmp_path):
    r = CliRunner().invoke(cli, ["config", "--resolved", str(EXAMPLES / "route_break.toml")])
    assert r.exit_code == 0, r.output
    t = tomllib.loads(r.output)
    assert t["tcp"]["min_rto_s"] == 0.2 and t["radio"]["frequency_hz"] == 914e6
    assert "hello_interval_s" in t["routing"][t["routing"]["protocol"]]
    p = tmp_path / "resolved.toml"
    p.write_text(r.output)
    assert CliRunner().invoke(cli, ["config", "--resolved", str(p)]).output == r.output
    a = hoplab.run(EXAMPLES / "route_break.toml", seed=2)
    b = hoplab.run(p, seed=2)
    assert a.info["event_hash"] == b.info["event_hash"]


def test_old_key_names_work_warn_and_give_the_same_run(tmp_path):
    new = OLD_TOML.replace("duration", "duration_s").replace("spacing", "spacing_m") \
        .replace("mss", "mss_bytes").replace("start", "start_s")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = hoplab.run(new)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b = hoplab.run(OLD_TOML)
    assert [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)][0] == \
        "duration is deprecated, use duration_s"
    assert a.info["event_hash"] == b.info["event_hash"]
    old = tmp_path / "old.toml"
    old.write_text(OLD_TOML)
    r = run_module("validate", str(old))
    assert r.returncode == 0
    assert r.stderr.splitlines() == [
        "hoplab: warning: duration is deprecated, use duration_s",
        "hoplab: warning: topology.spacing is deprecated, use topology.spacing_m",
        "hoplab: warning: flows[0].start is deprecated, use flows[0].start_s",
        "hoplab: warning: tcp.mss is deprecated, use tcp.mss_bytes",
    ]
    both = tmp_path / "both.toml"
    both.write_text("duration = 1.0\n" + new)
    r = run_module("validate", str(both))
    assert r.returncode == 2
    assert "duration_s: both duration (deprecated) and duration_s are given" in r.stderr


def _no_old_keys(sc: dict) -> None:
    assert _core.check_scenario(json.dumps(sc), "json")[2] == [], sc.get("name")


def test_our_own_scenarios_use_the_new_names():
    for p in sorted(EXAMPLES.glob("*.toml")):
        assert _core.check_scenario(p.read_text(), "toml")[2] == [], p
    for name in SCENARIOS:
        _no_old_keys(build(name))
    for t in reproduce.seed000_tasks(replicas=1, duration=5.0)[:3]:
        _no_old_keys(t.scenario())
    for t in reproduce_seed001.Plan(hops=(4,), replicas=1).tasks()[:5]:
        _no_old_keys(t.scenario())
    _no_old_keys(reproduce_seed003.base_scenario())
