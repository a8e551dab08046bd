"""ns-2 movement files (setdest) and connection files (cbrgen): read into a
scenario, written from any run, round trips checked against positions
computed here, independently of hoplab.formats.ns2.movement, from the legs."""

from __future__ import annotations

import math
import tomllib

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import _toml_emit
from hoplab.formats.ns2 import movement as nm, traffic as nt
from hoplab.cli import cli

from .conftest import EXAMPLES, ROOT, run_module

NS2 = EXAMPLES / "ns2"


def reference_position(start, legs, t):
    """ns-2 MobileNode semantics, written out again: legs (at, (x, y), v) in
    time order; each heads from where the node is toward (x, y) at v m/s and
    stops there; v = 0 stops the node; a later leg replaces the current one."""
    p, cur = start, None  # cur = (t0, from, to, v)
    for at, to, v in legs:
        if at > t:
            break
        if cur is not None:
            p = _pos(cur, at)
        cur = (at, p, to, v)
    return p if cur is None else _pos(cur, t)


def _pos(cur, t):
    t0, frm, to, v = cur
    d = math.dist(frm, to)
    if v == 0 or d == 0:
        return frm
    f = min(1.0, (t - t0) * v / d)
    return (frm[0] + (to[0] - frm[0]) * f, frm[1] + (to[1] - frm[1]) * f)


def per_node(n, legs):
    """hoplab legs (dicts) -> per node [(at, to, v)] in time order (stable)."""
    out = [[] for _ in range(n)]
    for g in sorted(legs, key=lambda g: g["at_s"]):
        out[g["node"]].append((g["at_s"], tuple(g["to"]), g["speed_mps"]))
    return out


def assert_same_positions(start_a, legs_a, start_b, legs_b, times):
    for i, (sa, sb) in enumerate(zip(start_a, start_b)):
        for t in times:
            pa = reference_position(sa, legs_a[i], t)
            pb = reference_position(sb, legs_b[i], t)
            assert math.dist(pa, pb) <= 1e-9, (i, t, pa, pb)


# A hand-written file in setdest's exact output format (setdest.cc: the
# header, NODE_FORMAT3 positions, GOD_FORMAT2 at time 0, NODE_FORMAT legs with
# pauses as speed 0, GOD_FORMAT later, the counters at the end). Node 1 walks
# away from node 0 at 5 m/s from 1 s; at 250 m (41 s: 50 m + 5 x 40) the link
# breaks, as the GOD line says; it arrives at 300 m at 51 s and pauses.
SETDEST = """\
#
# nodes: 3, pause: 2.00, max speed: 5.00, max x: 400.00, max y: 100.00
#
$node_(0) set X_ 0.000000000000
$node_(0) set Y_ 50.000000000000
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 50.000000000000
$node_(1) set Y_ 50.000000000000
$node_(1) set Z_ 0.000000000000
$node_(2) set X_ 200.000000000000
$node_(2) set Y_ 10.000000000000
$node_(2) set Z_ 0.000000000000
$god_ set-dist 0 1 1
$god_ set-dist 0 2 1
$god_ set-dist 1 2 1
$ns_ at 1.000000000000 "$node_(1) setdest 300.000000000000 50.000000000000 5.000000000000"
$ns_ at 2.000000000000 "$node_(2) setdest 200.000000000000 90.000000000000 4.000000000000"
$ns_ at 22.000000000000 "$node_(2) setdest 200.000000000000 90.000000000000 0.000000000000"
$ns_ at 41.000000000000 "$god_ set-dist 0 1 2"
$ns_ at 51.000000000000 "$node_(1) setdest 300.000000000000 50.000000000000 0.000000000000"
#
# Destination Unreachables: 0
#
# Route Changes: 1
#
# Link Changes: 1
#
# Node | Route Changes | Link Changes
#    0 |             1 |            1
#    1 |             1 |            1
#    2 |             0 |            0
#
"""

BASE = {"name": "ns2-base", "duration_s": 60.0, "seed": 1,
        "topology": {"kind": "random", "nodes": 3, "width_m": 400.0, "height_m": 100.0},
        "mac": {"data_rate_mbps": 2.0, "basic_rate_mbps": 1.0},
        "flows": [{"kind": "cbr", "src": 0, "dst": 2, "rate_kbps": 16.0, "packet_size_bytes": 512}],
        "output": {"timeseries": False}}


def test_setdest_file_is_read_with_its_positions_legs_and_god_lines():
    mv = nm.parse_movement(SETDEST, "scen")
    assert mv.nodes == 3 and mv.declared_nodes == 3 and mv.god_lines == 4
    assert mv.positions == [(0.0, 50.0), (50.0, 50.0), (200.0, 10.0)]
    assert [(g.node, g.at_s, g.to, g.speed_mps, g.line) for g in mv.legs] == [
        (1, 1.0, (300.0, 50.0), 5.0, 16), (2, 2.0, (200.0, 90.0), 4.0, 17),
        (2, 22.0, (200.0, 90.0), 0.0, 18), (1, 51.0, (300.0, 50.0), 0.0, 20)]
    legs, lines = nm.hoplab_legs(mv)
    # Both pauses come after arrival (node 2 needs exactly 20 s for 80 m): they change nothing.
    assert legs == [{"node": 1, "at_s": 1.0, "to": [300.0, 50.0], "speed_mps": 5.0},
                    {"node": 2, "at_s": 2.0, "to": [200.0, 90.0], "speed_mps": 4.0}]
    assert lines == [16, 17]
    # Where the GOD line says the link breaks, the nodes are 250 m apart.
    p0 = reference_position(mv.positions[0], [], 41.0)
    p1 = reference_position(mv.positions[1], per_node(3, legs)[1], 41.0)
    assert math.dist(p0, p1) == pytest.approx(250.0, abs=1e-9)


def test_setdest_file_runs_through_hoplab_and_ends_where_the_legs_say():
    sc, _ = nm.merge_movement(BASE, nm.parse_movement(SETDEST, "scen"))
    assert sc["topology"] == {"kind": "explicit", "positions": [[0.0, 50.0], [50.0, 50.0], [200.0, 10.0]]}
    res = hoplab.run(sc, seed=1)
    assert res.info["events"] > 0 and res.flows.loc[0, "packets_received"] > 0
    ends = [(0.0, 50.0), (300.0, 50.0), (200.0, 90.0)]  # every leg is over before 60 s
    for i, (x, y) in enumerate(ends):
        assert res.nodes.loc[i, "x"] == pytest.approx(x, abs=1e-9)
        assert res.nodes.loc[i, "y"] == pytest.approx(y, abs=1e-9)


def test_a_stop_while_under_way_becomes_a_leg_to_where_the_node_stands():
    text = SETDEST.replace("$ns_ at 22.000000000000", "$ns_ at 7.000000000000")  # node 2 stops at (200, 30)
    mv = nm.parse_movement(text, "scen")
    legs, _ = nm.hoplab_legs(mv)
    stop = [g for g in legs if g["node"] == 2][-1]
    assert stop["at_s"] == 7.0 and stop["to"] == pytest.approx([200.0, 30.0], abs=1e-12) and stop["speed_mps"] == 4.0
    ns2 = per_node(3, [{"node": g.node, "at_s": g.at_s, "to": g.to, "speed_mps": g.speed_mps} for g in mv.legs])
    times = [k * 0.25 for k in range(0, 260)]
    assert_same_positions(mv.positions, ns2, mv.positions, per_node(3, legs), times)
    res = hoplab.run(nm.merge_movement(BASE, mv)[0], seed=1)
    assert (res.nodes.loc[2, "x"], res.nodes.loc[2, "y"]) == pytest.approx((200.0, 30.0), abs=1e-9)


def _legs_scenario():
    legs = [
        {"node": 0, "at_s": 0.0, "to": [100.0, 0.0], "speed_mps": 10.0},
        {"node": 0, "at_s": 4.5, "to": [0.0, 80.0], "speed_mps": 3.3},        # replaces the first mid-way
        {"node": 1, "at_s": 2.0, "to": [350.5, -20.25], "speed_mps": 7.123456789},
        {"node": 2, "at_s": 3.0, "to": [10.0, 10.0], "speed_mps": 1.0},       # already there: stays
        {"node": 1, "at_s": 30.0, "to": [0.0, 0.0], "speed_mps": 20.0},
        {"node": 3, "at_s": 1e-3, "to": [1234.5678, 987.654321], "speed_mps": 0.75},
    ]
    positions = [[0.0, 0.0], [200.0, 0.0], [10.0, 10.0], [400.0, 300.0]]
    return positions, legs


def test_movement_round_trips_write_then_read_same_positions():
    positions, legs = _legs_scenario()
    frame = nm.movement_frame([tuple(p) for p in positions], legs)
    assert list(frame.columns) == nm.MOVEMENT_COLUMNS
    assert (frame.iloc[:4]["speed_mps"] == 0).all() and (frame.iloc[:4]["time_s"] == 0).all()
    # The row of a leg starts where the node is then (node 0 at 4.5 s: 45 m along x).
    row = frame[(frame["node"] == 0) & (frame["time_s"] == 4.5)].iloc[0]
    assert (row["x"], row["y"]) == pytest.approx((45.0, 0.0), abs=1e-12)
    text = nm.format_movement(frame, "test")
    assert text.splitlines()[1] == "# nodes: 4, written by hoplab: test"
    assert '$ns_ at 4.500000000000 "$node_(0) setdest 0.000000000000 80.000000000000 3.300000000000"' in text
    back = nm.parse_movement(text, "written")
    legs_back, _ = nm.hoplab_legs(back)
    times = sorted({k * 0.173 for k in range(0, 1200)} | {g["at_s"] + d for g in legs for d in (-1e-6, 0, 1e-6)})
    assert_same_positions([tuple(p) for p in positions], per_node(4, legs), back.positions, per_node(4, legs_back),
                          [t for t in times if t >= 0])


def test_movement_export_of_a_run_reads_back_to_the_same_positions(tmp_path):
    positions, legs = _legs_scenario()
    sc = {"name": "legs", "duration_s": 40.0, "topology": {"kind": "explicit", "positions": positions},
          "mobility": {"legs": legs}, "flows": [], "output": {"timeseries": False}}
    hoplab.run(sc, seed=2).save(tmp_path / "run")
    out = tmp_path / "run.scen"
    r = CliRunner().invoke(cli, ["movement", "export", str(tmp_path / "run"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "4 nodes" in r.stdout
    back = nm.read_movement(out)
    times = [k * 0.31 for k in range(400)]
    assert_same_positions([tuple(p) for p in positions], per_node(4, legs), back.positions,
                          per_node(4, nm.hoplab_legs(back)[0]), times)


def test_movement_export_of_a_scenario_file_grid_and_random(tmp_path):
    grid = {"name": "g", "duration_s": 10.0, "topology": {"kind": "grid", "rows": 2, "cols": 3, "spacing_m": 150.0},
            "mobility": {"legs": [{"node": 5, "at_s": 1.0, "to": [0.0, 0.0], "speed_mps": 2.0}]}, "flows": []}
    (tmp_path / "g.toml").write_text(_toml_emit.dumps(grid))
    r = CliRunner().invoke(cli, ["movement", "export", str(tmp_path / "g.toml"), "-o", str(tmp_path / "g.scen")])
    assert r.exit_code == 0, r.output
    back = nm.read_movement(tmp_path / "g.scen")
    assert back.positions == [(0.0, 0.0), (150.0, 0.0), (300.0, 0.0), (0.0, 150.0), (150.0, 150.0), (300.0, 150.0)]
    # A random topology's positions come from the seed: the same as a run's.
    rnd = {"name": "r", "duration_s": 1.0, "topology": {"kind": "random", "nodes": 7, "width_m": 500.0,
                                                        "height_m": 200.0}, "flows": []}
    (tmp_path / "r.toml").write_text(_toml_emit.dumps(rnd))
    r = CliRunner().invoke(cli, ["movement", "export", str(tmp_path / "r.toml"), "--seed", "9",
                                 "-o", str(tmp_path / "r.scen")])
    assert r.exit_code == 0, r.output
    res = hoplab.run(rnd, seed=9)
    got = nm.read_movement(tmp_path / "r.scen").positions
    assert len(got) == 7
    for (x, y), (rx, ry) in zip(got, zip(res.nodes["x"], res.nodes["y"])):
        assert math.dist((x, y), (rx, ry)) < 1e-9


# ---------------------------------------------------------------- errors
HEAD = "#\n# nodes: 2, pause: 0.00, max speed: 1.00, max x: 10.00, max y: 10.00\n#\n"
POS = "$node_(0) set X_ 1.0\n$node_(0) set Y_ 2.0\n$node_(1) set X_ 3.0\n$node_(1) set Y_ 4.0\n"


def test_what_ns2_accepts_is_read() -> None:
    """setdest's own first line (`set god_ [God instance]`) and a scheduled
    setdest before a node's position lines (ns-2 runs `$ns_ at` events after
    the file is read)."""
    text = "set god_ [God instance]\n" + HEAD + '$ns_ at 1.0 "$node_(0) setdest 5.0 5.0 1.0"\n' + POS
    mv = nm.parse_movement(text, "ok.scen")
    assert mv.positions == [(1.0, 2.0), (3.0, 4.0)] and [(lg.node, lg.at_s) for lg in mv.legs] == [(0, 1.0)]


@pytest.mark.parametrize("text, line, words", [
    (HEAD + POS + '$ns_ at 1.0 "$node_(0) setdest 5.0 x5 1.0"\n', 8, ["y", "'x5' is not a number"]),
    (HEAD + POS + '$ns_ at 1.0 "$node_(2) setdest 5.0 5.0 1.0"\n', 8, ["node 2 is beyond the file's 2 nodes"]),
    (HEAD + "$node_(0) set X_ 1.0\n" + '$node_(0) setdest 5.0 5.0 1.0\n', 5,
     ["setdest for node 0 before its initial position"]),
    (HEAD + POS + "hello world\n", 8, ["not an ns-2 movement line", "'hello world'"]),
    (HEAD + POS + '$ns_ at 1.0 "$node_(0) set X_ 5.0"\n', 8, ["unsupported command at time 1.0"]),
    (HEAD + POS + '$ns_ at 1.0 "$node_(0) setdest 5.0 5.0 -1.0"\n', 8, ["speed -1.0"]),
    (HEAD + POS + '$ns_ at nan "$node_(0) setdest 5.0 5.0 1.0"\n', 8, ["time: 'nan' is not a number"]),
    (HEAD + POS + "$node_(0) set W_ 3\n", 8, ["X_, Y_ and Z_"]),
    (HEAD + POS + '$ns_ at 1 "$god_ set-dist 0 5 1"\n', 8, ["node 5 is beyond"]),
    (HEAD + POS + '$node_(0) setdest 5 5 1\n$node_(0) set X_ 1.0\n', 9, ["set after its first setdest (line 8)"]),
    (HEAD + "$node_(0) set X_ 1.0\n$node_(0) set Y_ 2.0\n$node_(1) set X_ 3.0\n", 6, ["node 1 has no initial Y_"]),
    # no header: a scheduled setdest for a node the file never places (found by scripts/fuzz.sh)
    ('$node_(0) set X_ 0.0\n$node_(0) set Y_ 1.0\n$ns_ at 1.0 "$node_(1) setdest 5.0 5.0 1.0"\n', 3,
     ["setdest for node 1, which has no initial position"]),
])
def test_malformed_movement_lines_name_their_line(text, line, words):
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement(text, "bad.scen")
    assert e.value.line == line and str(e.value).startswith(f"bad.scen:{line}: ")
    for w in words:
        assert w in str(e.value), str(e.value)


def test_cli_import_error_is_one_line_with_the_line_number(tmp_path):
    bad = tmp_path / "bad.scen"
    bad.write_text(HEAD + POS + '$ns_ at 1.0 "$node_(7) setdest 5.0 5.0 1.0"\n')
    r = run_module("movement", "import", str(bad), "--base", str(NS2 / "base.toml"), "-o", str(tmp_path / "o.toml"))
    assert r.returncode == 2
    assert r.stderr.splitlines() == [f"hoplab: error: {bad}:8: node 7 is beyond the file's 2 nodes (header, line 2)"]
    assert not (tmp_path / "o.toml").exists()


def test_cli_import_refuses_a_base_with_another_node_count(tmp_path):
    scen = tmp_path / "s.scen"
    scen.write_text(HEAD + POS)
    r = CliRunner().invoke(cli, ["movement", "import", str(scen), "--base", str(NS2 / "base.toml"),
                                 "-o", str(tmp_path / "o.toml")])
    assert r.exit_code == 2
    assert r.stderr.strip() == f"hoplab: error: {scen}: has 2 nodes but the base scenario has 5"


def test_cli_import_scenario_error_of_a_flow_names_the_connection_line(tmp_path):
    base = tomllib.loads((NS2 / "base.toml").read_text())
    base["duration_s"] = 2.0  # the first connection starts at 2.56 s
    (tmp_path / "base.toml").write_text(_toml_emit.dumps(base))
    r = CliRunner().invoke(cli, ["movement", "import", str(NS2 / "scen-5n-1000x300.tcl"), "--traffic",
                                 str(NS2 / "cbr-5n.tcl"), "--base", str(tmp_path / "base.toml"),
                                 "-o", str(tmp_path / "o.toml")])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"hoplab: error: {NS2 / 'cbr-5n.tcl'}:18: flows[0].start_s: "), r.stderr


def test_cli_import_of_the_examples_writes_a_scenario_that_runs(tmp_path):
    out = tmp_path / "ns2-5n.toml"
    r = CliRunner().invoke(cli, ["movement", "import", str(NS2 / "scen-5n-1000x300.tcl"), "--traffic",
                                 str(NS2 / "cbr-5n.tcl"), "--base", str(NS2 / "base.toml"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "5 nodes, 8 legs (11 setdest lines), 2 flows" in r.stdout
    assert r.stderr.count("hoplab: note: ") == 0, r.stderr
    sc = tomllib.loads(out.read_text())
    assert sc["topology"]["kind"] == "explicit" and len(sc["topology"]["positions"]) == 5
    assert sc["flows"][0] == {"kind": "cbr", "src": 0, "dst": 1, "start_s": 2.5568388786897245,
                              "rate_kbps": 512 * 8 / 0.25 / 1000, "packet_size_bytes": 512, "jitter": True}
    assert sc["routing"] == {"protocol": "aodv"} and sc["tcp"]["mss_bytes"] == 512  # the base's settings
    res = hoplab.run(out, seed=1)
    assert len(res.flows) == 2 and res.info["events"] > 0
    r = CliRunner().invoke(cli, ["movement", "import", str(NS2 / "scen-5n-1000x300.tcl"), "--traffic",
                                 str(NS2 / "tcp-5n.tcl"), "--base", str(NS2 / "base.toml"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stderr.strip() == (f"hoplab: note: {NS2 / 'tcp-5n.tcl'}:11: flows[0] keeps the file's TCP: "
                                "tcp.variant = 'tahoe' (the base's [tcp] says 'reno')")


# ---------------------------------------------------------------- traffic
def test_cbrgen_cbr_and_tcp_connections_become_flows():
    cbr, _ = nt.hoplab_flows(nt.read_traffic(NS2 / "cbr-5n.tcl"), duration_s=4000.0)
    assert [(f["src"], f["dst"], f["rate_kbps"], f["packet_size_bytes"]) for f in cbr] == [
        (0, 1, 16.384, 512), (3, 4, 16.384, 512)]
    # random_ 1 jitters the intervals; maxpkts_ 10000 at 4 packets/s can run out within 4000 s.
    assert cbr[0]["jitter"] is True and cbr[0]["max_packets"] == 10000 and "stop_s" not in cbr[0]
    tcp, lines = nt.hoplab_flows(nt.read_traffic(NS2 / "tcp-5n.tcl"))
    assert tcp == [{"kind": "ftp", "src": 2, "dst": 3, "start_s": 1.2930447608046234,
                    "tcp": {"variant": "tahoe", "receiver": "every", "delayed_ack": False, "max_cwnd": 32,
                            "mss_bytes": 512}}]
    assert lines == [11]


def test_cbr_interval_follows_ns2_rules_and_defaults():
    # ns-source.tcl: interval_ sets rate_ from the packet size of that moment.
    text = ("set u [new Agent/UDP]\n$ns_ attach-agent $node_(0) $u\nset n [new Agent/Null]\n"
            "$ns_ attach-agent $node_(1) $n\n$ns_ connect $u $n\nset c [new Application/Traffic/CBR]\n"
            "$c attach-agent $u\n$c set interval_ 0.1\n$c set packetSize_ 1000\n"
            '$ns_ at 1 "$c start"\n$ns_ at 9.5 "$c stop"\n'
            "set c2 [new Application/Traffic/CBR]\n$c2 attach-agent $u\n$ns_ at 0 \"$c2 start\"\n"
            "set c3 [new Application/Traffic/CBR]\n$c3 attach-agent $u\n$c3 set rate_ 64Kb\n$ns_ at 0 \"$c3 start\"\n")
    flows, _ = nt.hoplab_flows(nt.parse_traffic(text))
    assert flows[0]["rate_kbps"] == pytest.approx(210 * 8 / 0.1 / 1000) and flows[0]["packet_size_bytes"] == 1000
    assert flows[0]["stop_s"] == 9.5
    assert (flows[1]["rate_kbps"], flows[1]["packet_size_bytes"]) == (448.0, 210)  # ns-default.tcl
    assert flows[2]["rate_kbps"] == 64.0


def test_traffic_round_trips_through_the_writer():
    flows = [hoplab.scenario.cbr(0, 3, 123.456, packet_size=700, start=1.25, stop=30.0),
             hoplab.scenario.ftp(2, 1, start=0.5, bytes=4_000_000, variant="sack", receiver="every",
                                 delayed_ack=False, max_cwnd=8, mss_bytes=512),
             hoplab.scenario.ftp(1, 0, start=3.0, stop=20.0, variant="reno", max_cwnd=4, mss_bytes=1460)]
    text = nt.format_traffic(flows, {"receiver": "ns2"})
    back, _ = nt.hoplab_flows(nt.parse_traffic(text, "w"))
    assert back[0]["rate_kbps"] == pytest.approx(123.456, rel=1e-12)
    assert {k: v for k, v in back[0].items() if k != "rate_kbps"} == {
        "kind": "cbr", "src": 0, "dst": 3, "start_s": 1.25, "stop_s": 30.0, "packet_size_bytes": 700}
    assert back[1] == {"kind": "ftp", "src": 2, "dst": 1, "start_s": 0.5, "bytes": 4_000_000,
                       "tcp": {"variant": "sack", "receiver": "every", "delayed_ack": False, "max_cwnd": 8,
                               "mss_bytes": 512}}
    assert back[2]["stop_s"] == 20.0 and back[2]["tcp"]["variant"] == "reno"
    assert back[2]["tcp"]["receiver"] == "ns2" and back[2]["tcp"]["delayed_ack"] is True


@pytest.mark.parametrize("text, line, words", [
    ("$ns_ attach-agent $node_(0) $udp_(0)\n", 1, ["$udp_(0) is not defined above"]),
    ("set u [new Agent/UDP]\n$u set ttl_ 3\n", 2, ["ttl_"]),
    ("set u [new Agent/Foo]\n", 1, ["unsupported class 'Agent/Foo'"]),
    ("set c [new Application/Traffic/CBR]\n$c set interval_ -1\n", 2, ["interval_ -1 must be positive"]),
    ("set c [new Application/Traffic/CBR]\n$c set packetSize_ 1.5\n", 2, ["packetSize_"]),
    ("set c [new Application/Traffic/CBR]\n$ns_ at 1 \"$c start\"\n", 1, ["not attached to an agent"]),
    ("set c [new Application/Traffic/CBR]\n$ns_ at 1 \"$c explode\"\n", 2, ["unsupported command"]),
    ("puts hello\n", 1, ["not an ns-2 connection line"]),
])
def test_malformed_connection_lines_name_their_line(text, line, words):
    with pytest.raises(nt.Ns2FormatError) as e:
        nt.parse_traffic(text, "bad.tcl")
    assert e.value.line == line, str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_a_connection_to_a_node_beyond_the_scenario_names_its_attach_line(tmp_path):
    text = (NS2 / "cbr-5n.tcl").read_text().replace("$ns_ attach-agent $node_(4) $null_(1)",
                                                     "$ns_ attach-agent $node_(5) $null_(1)")
    (tmp_path / "c.tcl").write_text(text)
    r = CliRunner().invoke(cli, ["movement", "import", str(NS2 / "scen-5n-1000x300.tcl"), "--traffic",
                                 str(tmp_path / "c.tcl"), "--base", str(NS2 / "base.toml"),
                                 "-o", str(tmp_path / "o.toml")])
    assert r.exit_code == 2
    assert r.stderr.strip() == f"hoplab: error: {tmp_path / 'c.tcl'}:25: node 5 is beyond the scenario's 5 nodes"


def test_cli_export_writes_the_flows_as_a_connection_file(tmp_path):
    r = CliRunner().invoke(cli, ["movement", "export", str(EXAMPLES / "chain.toml"), "-o", str(tmp_path / "m.scen"),
                                 "--traffic", str(tmp_path / "t.tcl")])
    assert r.exit_code == 0, r.output
    flows, _ = nt.hoplab_flows(nt.read_traffic(tmp_path / "t.tcl"))
    # chain.toml: NewReno, 1460 B, unclamped (the 65535 B receive window: 44 segments), delayed ACKs.
    assert flows == [{"kind": "ftp", "src": 0, "dst": 4, "start_s": 0.0,
                      "tcp": {"variant": "new_reno", "receiver": "ns2", "delayed_ack": True, "max_cwnd": 44,
                              "mss_bytes": 1460}}]
    assert nm.read_movement(tmp_path / "m.scen").positions == [(200.0 * i, 0.0) for i in range(5)]


def test_toml_writer_round_trips_every_example():
    for p in sorted(EXAMPLES.glob("*.toml")) + [NS2 / "base.toml"]:
        d = tomllib.loads(p.read_text())
        assert tomllib.loads(_toml_emit.dumps(d)) == d, p
        resolved = tomllib.loads(hoplab._core.resolved_scenario(p.read_text(), "toml"))
        assert tomllib.loads(_toml_emit.dumps(resolved)) == resolved, p
    assert ROOT.exists()


def test_a_setdest_leg_slower_than_a_crawl_is_accepted():
    # setdest -v 1 draws speeds from U(0, max]: a valid file can hold 0.00044 m/s
    # (the 150-node file of validation/compare_ns2.py's seed 3 does).
    import json

    from hoplab import _core
    from hoplab.formats.ns2 import merge_movement, parse_movement

    text = ("$node_(0) set X_ 10.0\n$node_(0) set Y_ 10.0\n$node_(1) set X_ 100.0\n$node_(1) set Y_ 10.0\n"
            '$ns_ at 1.0 "$node_(0) setdest 50.0 10.0 0.00044221989831"\n')
    base = {"duration_s": 5.0, "flows": [{"kind": "ftp", "src": 0, "dst": 1}]}
    sc, _ = merge_movement(base, parse_movement(text))
    _core.validate_json(json.dumps(sc))
