"""The routing side of the CLI and API: presets and overrides, the routing
tables of a Result, `hoplab timeline` and `--set`."""

from pathlib import Path

import pytest
from click.testing import CliRunner

import hoplab
from hoplab.cli import cli

ROOT = Path(__file__).resolve().parents[2]
ROUTE_BREAK = ROOT / "examples" / "route_break.toml"


def test_timeline_tells_the_route_break_story():
    r = CliRunner().invoke(cli, ["timeline", str(ROUTE_BREAK), "--protocol", "dsr", "--preset", "dsr-uu"])
    assert r.exit_code == 0, r.output
    assert "node 4 starts moving to (900, 0) at 10 m/s" in r.output
    assert "new 5-hop path" in r.output
    assert "declares its link to node 4 broken" in r.output or "declares its link to node 3 broken" in r.output
    assert "first ACK at node 0" in r.output


def test_timeline_protocol_switch_drops_the_other_protocols_table():
    # The AODV example has a [routing.aodv] table; --protocol olsr must not trip over it.
    r = CliRunner().invoke(cli, ["timeline", str(ROOT / "examples" / "aodv_hello_vs_ll.toml"), "--protocol", "olsr"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("aodv-hello-3hop: olsr, seed 1")


def test_set_overrides_a_routing_parameter(tmp_path):
    base = CliRunner().invoke(cli, ["run", str(ROUTE_BREAK), "--no-save"])
    imm = CliRunner().invoke(cli, ["run", str(ROUTE_BREAK), "--no-save", "--set", "routing.protocol=olsr",
                                   "--set", "routing.preset=oolsr", "--set", "routing.olsr.immediate_tc=true"])
    assert base.exit_code == 0 and imm.exit_code == 0, imm.output
    assert "aodv.rreq" in base.output and "olsr.tc" in imm.output


@pytest.mark.parametrize("sets, field", [
    (["routing.preset=nope"], "routing.preset"),
    (["routing.aodv.hello_interval_s=-1"], "routing.aodv.hello_interval_s"),
    (["routing.aodv.no_such_field=1"], "routing.aodv"),
    (["routing.dsr.salvage=true"], "routing.dsr"),
    (["mobility.legs=[{node=9, at_s=1.0, to=[0.0, 0.0], speed_mps=1.0}]"], "mobility.legs[0].node"),
])
def test_bad_routing_parameters_name_the_field(sets, field):
    args = ["run", str(ROUTE_BREAK), "--no-save"]
    for s in sets:
        args += ["--set", s]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    assert field in r.output and "Traceback" not in r.output


def test_result_has_routing_tables_that_round_trip(tmp_path):
    res = hoplab.run(ROUTE_BREAK, seed=1)
    assert {"aodv.rreq", "aodv.rrep", "aodv.hello"} <= set(res.overhead.kind)
    assert (res.route_events.event == "link_broken").any()
    assert (res.paths[res.paths.direction == "data"].hops == 5).any()
    assert set(res.outages.kind) <= {"gap", "no_route"}
    f = res.flows.iloc[0]
    assert f.rto_time_s > 0 and f.route_changes >= 1
    back = hoplab.Result.load(res.save(tmp_path / "r"))
    assert back == res
