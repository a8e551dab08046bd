"""ns-2 wireless scripts through hoplab's Tcl front end (formats/ns2/script):
the class-default table against the installed ns-2, the packaged ns-2
examples and regression suites read as ns-2 reads them, and scripts written
to break the importer, each refused in one line (exit 2)."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hoplab.formats.ns2.script import ScriptError, load_script
from hoplab.formats.ns2.script import classvars

from ._ns2_scripts import DATA, EXAMPLES, ROOT, cli as _cli, copy_examples, needs_examples, needs_ns


@pytest.fixture(scope="module")
def ns2_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ns-2.35's tcl/ex, tcl/test and tcl/mobility/scene as ns-2 users run
    them: copied, the scene files gunzipped (as the suite's test-all scripts do)."""
    if not EXAMPLES.is_dir():
        pytest.skip("ns2-examples is not installed (apt-get install ns2-examples)")
    return copy_examples(tmp_path_factory.mktemp("ns2-tcl"))


@needs_ns
def test_class_defaults_are_ns2s_own(tmp_path: Path) -> None:
    """Every default in the table is what the installed ns-2.35 prints."""
    probe = [f"if {{[catch {{puts \"{cv.cls}|{cv.var}|[{cv.cls} set {cv.var}]\"}}]}} "
             f"{{puts \"{cv.cls}|{cv.var}|\"}}" for cv in classvars.CLASS_VARS]
    (tmp_path / "probe.tcl").write_text("\n".join(probe) + "\n")
    out = subprocess.run(["ns", "probe.tcl"], cwd=tmp_path, capture_output=True, text=True, timeout=60).stdout
    got = {tuple(line.split("|")[:2]): line.split("|", 2)[2] for line in out.splitlines() if line.count("|") >= 2}
    assert len(got) == len(classvars.CLASS_VARS)
    for cv in classvars.CLASS_VARS:
        theirs = got[(cv.cls, cv.var)]
        if cv.read is not None and cv.default:
            mine = cv.read(cv.default, cv.var)
            assert cv.read(theirs, cv.var) == mine, (cv.cls, cv.var, theirs, cv.default)
        else:
            assert theirs.strip() == cv.default, (cv.cls, cv.var, theirs, cv.default)


def test_switches_bound_as_integers_read_as_ns2_reads_them() -> None:
    # tclcl `bind` parses with strtol: `true` is 0 (checked in ns-2.35 below)
    from hoplab.formats.ns2.script.units import parse_int_flag
    for text, on in [("1", True), ("0", False), ("true", False), ("on", False), ("0.5", False),
                     ("1.5", True), (" 1", True), ("1e3", True), ("0x10", True), ("-1", True), ("abc", False)]:
        assert parse_int_flag(text) is on, text
    cv = classvars.lookup("Agent/TCP", "singledup_")
    assert cv.read("true", "singledup_") is False and cv.write(True) == "1"


@needs_ns
def test_every_written_switch_reads_back_in_ns2(tmp_path: Path) -> None:
    """What the exporter writes for a true or false field is what ns-2.35
    then holds: a switch bound as an int must not be written `true`."""
    switches = [cv for cv in classvars.CLASS_VARS if cv.write is not None and cv.read is not None
                and cv.read.__name__ in ("_bool", "_not", "_int_flag")]
    assert {cv.var for cv in switches} >= {"singledup_", "Prefer_Routing_Protocols", "syn_", "random_"}
    lines = ["set ns [new Simulator]"]
    for i, cv in enumerate(switches):
        for on in (True, False):
            lines += [f"{cv.cls} set {cv.var} {cv.write(on)}",
                      f"puts \"{i}|{int(on)}|[[new {cv.cls}] set {cv.var}]\""]
    (tmp_path / "probe.tcl").write_text("\n".join(lines) + "\n")
    out = subprocess.run(["ns", "probe.tcl"], cwd=tmp_path, capture_output=True, text=True, timeout=60).stdout
    got = [line.split("|") for line in out.splitlines() if line.count("|") == 2]
    assert len(got) == 2 * len(switches), out[-500:]
    for i, on, held in got:
        cv = switches[int(i)]
        assert cv.read(held, cv.var) == bool(int(on)), (cv.cls, cv.var, on, held)


def test_lookup_walks_the_class_tree() -> None:
    assert classvars.lookup("Agent/TCP/Newreno", "window_").cls == "Agent/TCP"
    assert classvars.lookup("Agent/TCPSink/DelAck", "interval_").field == "tcp.delack_timeout_s"
    assert classvars.lookup("Mac/802_11", "nonsense_") is None


def test_minimal_script(tmp_path: Path) -> None:
    shutil.copy(DATA / "base.tcl", tmp_path)
    shutil.copy(DATA / "good.tcl", tmp_path)
    plan = load_script(tmp_path / "good.tcl", cwd=tmp_path)
    sc = plan.scenario
    assert sc["compat"] == "ns2" and sc["duration_s"] == 5.0
    assert sc["topology"]["positions"] == [[0.0, 0.0], [200.0, 0.0], [400.0, 0.0]]
    assert sc["routing"]["protocol"] == "aodv"
    # ns-2.35's own defaults where hoplab's ns2 profile differs: 1 Mbit/s DATA, LL delay_ 25 us
    assert sc["mac"]["data_rate_mbps"] == 1.0 and sc["link"]["delay_us"] == 25.0
    (f,) = sc["flows"]
    assert (f["kind"], f["src"], f["dst"], f["start_s"]) == ("cbr", 0, 2, 1.0)
    assert f["packet_size_bytes"] == 512 and math.isclose(f["rate_kbps"], 512 * 8 / 0.1 / 1e3)
    assert plan.sources["flows[0].start_s"].line == 24  # base.tcl's `$ns_ at 1.0 "$cbr start"`
    assert plan.sources["duration_s"].line == 2 and plan.sources["duration_s"].file.endswith("good.tcl")


@needs_examples
def test_simple_wireless(ns2_tree: Path) -> None:
    ex = ns2_tree / "ex"
    plan = load_script(ex / "simple-wireless.tcl", cwd=ex)
    sc = plan.scenario
    assert sc["routing"]["protocol"] == "dsdv" and sc["duration_s"] == 150.01
    assert sc["topology"]["positions"] == [[5.0, 2.0], [390.0, 385.0]]
    # three setdest legs, in time order
    assert [(lg["node"], lg["at_s"]) for lg in sc["mobility"]["legs"]] == [(0, 10.0), (1, 50.0), (1, 100.0)]
    (f,) = sc["flows"]
    assert (f["kind"], f["src"], f["dst"], f["start_s"]) == ("ftp", 0, 1, 10.0)
    # Agent/TCP is ns-2's Tahoe, TCPSink ACKs every segment, window_ 20, packetSize_ 1000
    assert sc["tcp"]["variant"] == "tahoe" and sc["tcp"]["receiver"] == "every"
    assert sc["tcp"]["max_cwnd"] == 20 and sc["tcp"]["mss_bytes"] == 1000
    assert sc["trace"] == {"formats": ["ns2"], "ns2_format": "old", "layers": ["AGT", "RTR"],
                           "drop_levels": ["RTR", "IFQ"]}
    assert [(o.file.path.name, o.role) for o in plan.outputs] == [("simple.tr", "trace")]
    assert "Starting Simulation..." in plan.printed and "NS EXITING..." in plan.printed


@needs_examples
def test_packet_demo_and_csci694(ns2_tree: Path) -> None:
    ex = ns2_tree / "ex"
    sc = load_script(ex / "wireless-pkt-demo.tcl", cwd=ex).scenario
    # `$opt(stop).000000001` is read as ns-2's atof reads it: 90.0
    assert sc["duration_s"] == 90.0
    kinds = [(f["kind"], f["src"], f["dst"]) for f in sc["flows"]]
    assert kinds == [("cbr", 2, 3), ("cbr", 2, 4), ("cbr", 0, 4), ("ftp", 1, 3), ("ftp", 2, 0), ("ftp", 1, 4)]
    assert all(f["jitter"] and f["max_packets"] == 10000 for f in sc["flows"] if f["kind"] == "cbr")
    assert sc["tcp"]["mss_bytes"] == 512 and sc["tcp"]["max_cwnd"] == 32  # the connections' own settings
    assert math.isclose(sc["radio"]["tx_power_w"], 0.2818)
    plan = load_script(ex / "wireless-demo-csci694.tcl", cwd=ex)
    assert plan.scenario["duration_s"] == 200.0 and len(plan.scenario["flows"]) == 2
    assert [(o.file.path.name, o.role) for o in plan.outputs] == [("694demo.tr", "trace"), ("694demo.nam", "nam")]
    assert plan.scenario["trace"]["layers"] == ["AGT", "MAC"]


@needs_examples
@pytest.mark.parametrize("suite,test,protocol", [("test-suite-wireless-lan-aodv.tcl", "aodv", "aodv"),
                                                 ("test-suite-wireless-lan-newnode.tcl", "dsdv", "dsdv"),
                                                 ("test-suite-wireless-lan-newnode.tcl", "dsr", "dsr")])
def test_regression_suites_run_unmodified(ns2_tree: Path, suite: str, test: str, protocol: str) -> None:
    """ns-2's own regression tests, OTcl test classes and all."""
    t = ns2_tree / "test"
    plan = load_script(t / suite, [test], cwd=t)
    sc = plan.scenario
    assert sc["routing"]["protocol"] == protocol
    assert len(sc["topology"]["positions"]) == 50 and len(sc["flows"]) == 20 and sc["duration_s"] == 1000.0  # `$opt(stop).1` is "1000.0.1": atof reads 1000.0
    assert all(f["kind"] == "cbr" and f["packet_size_bytes"] == 512 and f["jitter"] for f in sc["flows"])
    assert all(math.isclose(f["rate_kbps"], 512 * 8 / 4.0 / 1e3) for f in sc["flows"])
    # the suite's TCP globals and `bugFix_timer_ false` are carried, not dropped
    assert sc["mac"]["idle_defer"] is True
    assert sc["tcp"]["tick_s"] == 0.1 and sc["tcp"]["ns2_rfc2988"] is False and sc["tcp"]["initial_cwnd"] == 1
    trace = plan.trace
    assert trace is not None and trace.file.path.name == "temp.rands"
    assert trace.file.text().startswith("M 0.0 nn:50 x:670 y:670 rp:")  # what the suite itself writes


# ---------------------------------------------------------------- refusals
BAD = {
    "wired_node": ("set ns_ [new Simulator]\nset n [$ns_ node]\n", 2, "wired node"),
    "duplex_link": ("source base.tcl\n$ns_ duplex-link $node_(0) $node_(1) 1Mb 10ms DropTail\n", 2, "wired links"),
    "syntax": ("source base.tcl\nset x {\n", 0, "Tcl error"),
    "exec": ("source base.tcl\nexec ls\n", 2, "exec: runs a shell command"),
    "caught_exec": ("source base.tcl\ncatch {exec ls}\n$ns_ at 2 \"$ns_ halt\"\n$ns_ run\n", 2, "exec"),
    "pipe": ("source base.tcl\nset f [open \"|ls\" r]\n", 2, "a pipe runs a shell command"),
    "write_outside": ("source base.tcl\nset f [open /tmp/hoplab-evil.tr w]\n", 2, "outside the working directory"),
    "write_parent": ("source base.tcl\nset f [open ../evil.tr w]\n", 2, "outside the working directory"),
    "hierarchical": ("source base.tcl\nset n [$ns_ node 0.0.1]\n", 2, "hierarchical or wired node"),
    "wired_routing": ("set ns_ [new Simulator]\n$ns_ node-config -adhocRouting AODV -wiredRouting ON\n", 2,
                      "wired-cum-wireless"),
    "tora": ("set ns_ [new Simulator]\n$ns_ node-config -adhocRouting TORA\n", 2, "-adhocRouting TORA"),
    "mac_simple": ("set ns_ [new Simulator]\n$ns_ node-config -macType Mac/Simple\n", 2, "-macType Mac/Simple"),
    "energy": ("set ns_ [new Simulator]\n$ns_ node-config -energyModel EnergyModel\n", 2, "energy model"),
    "mobileip": ("set ns_ [new Simulator]\n$ns_ node-config -mobileIP ON\n", 2, "MobileIP"),
    "otcl_override": ("Agent/TCP instproc done {} { puts hi }\n", 1, "redefining an ns-2 class"),
    "otcl_subclass": ("Class MyTCP -superclass Agent/TCP\n", 1, "derived from ns-2's Agent/TCP"),
    "dynamic_state": ("source base.tcl\nputs [$udp set bytes_]\n", 2, "running simulation's state"),
    "socket": ("socket localhost 80\n", 1, "opens a network connection"),
    "never_halts": ("source base.tcl\n$ns_ run\n", 0, "never ends"),
    "backwards": ("source base.tcl\n$ns_ at 2 \"$ns_ at 1 {puts x}\"\n$ns_ at 3 \"$ns_ halt\"\n$ns_ run\n", 2,
                  "going backwards"),
    "unknown_var": ("Mac/802_11 set fooBar_ 1\n", 1, "not a setting hoplab models"),
    "bad_value": ("Phy/WirelessPhy set Pt_ lots\n", 1, "is not a number"),
    "fixed_value": ("Agent/TCP set timestamps_ true\n", 1, "timestamps_ false only"),
    "no_run": ("source base.tcl\n", 0, "never calls $ns_ run"),
    "source_device": ("source /dev/zero\n", 1, "not a regular file"),
    "random_motion": ("source base.tcl\n$node_(0) random-motion 1\n", 2, "random motion"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_scripts_are_refused_in_one_line(tmp_path: Path, name: str) -> None:
    text, line, words = BAD[name]
    shutil.copy(DATA / "base.tcl", tmp_path)
    (tmp_path / f"{name}.tcl").write_text(text)
    p = _cli("run", f"{name}.tcl", "--no-save", cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    err = [ln for ln in p.stderr.splitlines() if not ln.startswith("hoplab: note:")]
    assert len(err) == 1 and err[0].startswith("hoplab: error: "), p.stderr
    assert words in err[0], err[0]
    if line:
        assert f"{name}.tcl:{line}:" in err[0], err[0]
    assert "Traceback" not in p.stderr
    assert not (tmp_path.parent / "evil.tr").exists() and not Path("/tmp/hoplab-evil.tr").exists()


def test_endless_loop_is_stopped(tmp_path: Path) -> None:
    (tmp_path / "loop.tcl").write_text("while 1 { incr x }\n")
    p = _cli("run", "loop.tcl", "--tcl-time-limit", "1", cwd=tmp_path)
    assert p.returncode == 2 and "longer than 1 s of wall-clock time" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1


def test_a_million_nodes_are_refused(tmp_path: Path) -> None:
    shutil.copy(DATA / "base.tcl", tmp_path)
    (tmp_path / "huge.tcl").write_text("source base.tcl\nfor {set i 0} {$i < 1000000} {incr i} { $ns_ node }\n")
    p = _cli("run", "huge.tcl", cwd=tmp_path)
    assert p.returncode == 2 and ("more than 100,000 nodes" in p.stderr or "wall-clock" in p.stderr), p.stderr
