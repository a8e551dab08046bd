"""ns-2 scripts run end to end: the trace written where ns-2 writes it and
read by the classic awk, `hoplab import` giving the same run, a scenario
exported as an ns-2 script reading back to itself, and `hoplab crosscheck`
against the installed ns-2.35."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hoplab.formats.ns2.script import load_script
from hoplab.formats.ns2.script.export import ExportError, export_script, ns2_reading, resolved

from ._ns2_scripts import DATA, EXAMPLES, ROOT, cli as _cli, copy_examples, needs_examples, needs_ns


def _info(d: Path) -> dict:
    return json.loads((d / "info.json").read_text())


@needs_examples
def test_run_writes_the_scripts_trace_and_awk_reads_hoplabs_figures(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "ex" / "simple-wireless.tcl", tmp_path)
    p = _cli("run", "simple-wireless.tcl", "--out", "out", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Starting Simulation..." in p.stdout and "simple.tr: ns-2 trace" in p.stdout
    trace = tmp_path / "simple.tr"
    assert trace.is_file() and trace.stat().st_size > 0
    flows = (tmp_path / "out" / "flows.csv").read_text().splitlines()
    head, row = flows[0].split(","), flows[1].split(",")
    f = dict(zip(head, row))
    # the classic awk: TCP segments received at the destination's agent level, unique sequence numbers
    awk = subprocess.run(["awk", '$1=="r" && $3=="_1_" && $4=="AGT" && $7=="tcp" && $8>40 {print $(NF-3)}',
                          str(trace)], capture_output=True, text=True).stdout.split()
    assert len(set(awk)) == int(f["packets_received"]) > 100


SIX = [("ex", "simple-wireless.tcl", []), ("ex", "wireless-demo-csci694.tcl", []), ("ex", "wireless-pkt-demo.tcl", []),
       ("test", "test-suite-wireless-lan-aodv.tcl", ["aodv"]), ("test", "test-suite-wireless-lan-newnode.tcl", ["dsdv"]),
       ("test", "test-suite-wireless-lan-newnode.tcl", ["dsr"])]


@needs_examples
@pytest.mark.parametrize("sub,script,args", SIX, ids=[f"{s}{a}" for _, s, a in SIX])
def test_import_runs_the_same_events(tmp_path: Path, sub: str, script: str, args: list[str]) -> None:
    ex = copy_examples(tmp_path) / sub
    extra = ["--", *args] if args else []
    a = _cli("run", script, "--out", "a", *extra, cwd=ex)
    assert a.returncode == 0, a.stderr
    i = _cli("import", script, "-o", "imported.toml", *extra, cwd=ex)
    assert i.returncode == 0, i.stderr
    text = (ex / "imported.toml").read_text()
    # The ns-2 defaults the ns2 profile already gives (dataRate_ 1Mb) are left to it.
    assert "set dataRate_ 1Mb" not in text
    assert f"# {script}:" in text  # values carry their script line
    b = _cli("run", "imported.toml", "--out", "b", cwd=ex)
    assert b.returncode == 0, b.stderr
    assert _info(ex / "a")["event_hash"] == _info(ex / "b")["event_hash"]
    assert _info(ex / "a")["events"] == _info(ex / "b")["events"] > 0
    # The classic awk over the script's own trace counts the CBR packets hoplab's flows table received.
    trace = load_script(ex / script, args, cwd=ex).trace
    head, *rows = [ln.split(",") for ln in (ex / "a" / "flows.csv").read_text().splitlines()]
    cbr = sum(int(r[head.index("packets_received")]) for r in rows if r[head.index("kind")] == "cbr")
    if cbr:
        awk = subprocess.run(["awk", '$1=="r" && $4=="AGT" && $7=="cbr" {n++} END {print n+0}',
                              str(trace.file.path)], capture_output=True, text=True).stdout
        assert int(awk) == cbr


@needs_ns
@needs_examples
@pytest.mark.parametrize("sub,script,args", [SIX[0], SIX[3]], ids=["simple", "aodv"])
def test_the_exported_script_is_the_original_for_ns2(tmp_path: Path, sub: str, script: str, args: list[str]) -> None:
    """ns-2 itself runs the original script and hoplab's export of its
    scenario to the same figures."""
    from hoplab.formats.ns2.trace_metrics import summarize

    ex = copy_examples(tmp_path) / sub
    plan = load_script(ex / script, args, cwd=ex)
    trace = plan.trace.file.path.name
    (ex / "orig.tcl").write_text(f"set argv [list {' '.join(args)}]\nsource {script}\n")
    assert subprocess.run(["ns", "orig.tcl"], cwd=ex, capture_output=True, timeout=600).returncode == 0
    orig = summarize(ex / trace, writer="ns2")
    (ex / "export.tcl").write_text(export_script(plan.scenario, trace="export.tr"))
    assert subprocess.run(["ns", "export.tcl"], cwd=ex, capture_output=True, timeout=600).returncode == 0
    exp = summarize(ex / "export.tr", writer="ns2")
    for o in orig.connections:
        e = exp.connection(o.src, o.dst, o.kind)
        assert e is not None, (o.src, o.dst)
        assert abs(e.packets_received - o.packets_received) <= max(2, 0.02 * o.packets_received), (o, e)
    assert abs(exp.totals.packets_received - orig.totals.packets_received) <= 0.01 * orig.totals.packets_received


@needs_examples
@pytest.mark.parametrize("script,args", [("ex/simple-wireless.tcl", []), ("ex/wireless-pkt-demo.tcl", []),
                                         ("test/test-suite-wireless-lan-aodv.tcl", ["aodv"])])
def test_export_reads_back_to_the_same_scenario(tmp_path: Path, script: str, args: list[str]) -> None:
    copy_examples(tmp_path)
    path = tmp_path / script
    sc = load_script(path, args, cwd=path.parent).scenario
    (tmp_path / "x.tcl").write_text(export_script(sc, trace="x.tr"))
    back = load_script(tmp_path / "x.tcl", cwd=tmp_path).scenario
    one, two = resolved(sc), resolved(back)
    for d in (one, two):
        d.pop("name"), d.pop("trace")
    assert one == two


def test_export_refuses_what_ns2_cannot_express() -> None:
    sc = {"name": "s", "duration_s": 10.0, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200.0},
          "flows": [{"kind": "ftp", "src": 0, "dst": 2}]}
    with pytest.raises(ExportError, match="routing.protocol = 'static': stock ns-2.35 has no static"):
        export_script(sc)
    with pytest.raises(ExportError, match="tcp.ecn = true: ns-2.35 has no setting"):
        export_script({**sc, "routing": {"protocol": "aodv"}, "tcp": {"ecn": True}})
    with pytest.raises(ExportError, match="flows\\[0\\].kind = 'www'"):
        export_script({**sc, "routing": {"protocol": "dsr"}, "flows": [{"kind": "www", "src": 0, "dst": 2}]})
    # ns-2's DSR runs on CMUPriQueue, 50 packets a class whatever -ifqLen says
    with pytest.raises(ExportError, match="mac.queue_limit = 30: ns-2.35's DSR runs on CMUPriQueue"):
        export_script({**sc, "routing": {"protocol": "dsr"}, "mac": {"queue_limit": 30}})
    assert "-ifqLen 30" in export_script({**sc, "routing": {"protocol": "aodv"}, "mac": {"queue_limit": 30}})


def test_the_ns2_reading_takes_each_protocols_ns2_machinery() -> None:
    # CMUPriQueue under DSR (tcl/mobility/dsr.tcl), DSDV's second IP header (dsdv.cc recv), CMU
    # AODV without routes to the previous hop (aodv.cc recvRequest), ns-2's ARP (arp.cc);
    # the standards' reading has none of them.
    base = {"name": "s", "duration_s": 10.0, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200.0},
            "flows": [{"kind": "ftp", "src": 0, "dst": 2}]}
    for proto, path, ns2, std in [("dsr", ("mac", "queue_classes"), True, False),
                                  ("aodv", ("mac", "queue_classes"), False, False),
                                  ("dsdv", ("routing", "dsdv", "double_ip_header"), True, False),
                                  ("aodv", ("routing", "aodv", "learn_previous_hop"), False, True),
                                  ("aodv", ("link", "arp"), "ns2", "off")]:
        sc = {**base, "routing": {"protocol": proto}}
        for reading, want in ((resolved(ns2_reading(sc)), ns2), (resolved(sc), std)):
            for k in path:
                reading = reading[k]
            assert reading == want, (proto, path, want)


@needs_ns
def test_crosscheck_against_ns2(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        'name = "c"\nduration_s = 30.0\n[topology]\nkind = "chain"\nnodes = 3\nspacing_m = 200.0\n'
        '[routing]\nprotocol = "aodv"\n[[flows]]\nkind = "cbr"\nsrc = 0\ndst = 2\nrate_kbps = 40.0\nstart_s = 1.0\n')
    p = _cli("crosscheck", "c.toml", "--seeds", "1-2", "--out", "cc", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = {(r["row"], r["metric"]): r for r in json.loads((tmp_path / "cc" / "crosscheck.json").read_text())}
    d = rows[("total", "delivered")]
    # 40 kbit/s of 512-byte packets for 29 s over two uncontended hops: all of them, on both sides
    assert d["seeds"] == 2 and d["ns2"] > 250 and abs(d["ratio"] - 1.0) < 0.02, d
    assert (tmp_path / "cc" / "ns2" / "seed-1" / "script.tcl").is_file()
    s = _cli("crosscheck", "c.toml", "--set", "routing.protocol=static", cwd=tmp_path)
    assert s.returncode == 2 and s.stderr.count("\n") == 1 and "routing.protocol = 'static'" in s.stderr


EXAMPLE_REFUSALS = {
    "aodv_hello_vs_ll": "routing.preset = 'aodv-uu'",
    "chain": "routing.protocol = 'static'",
    "grid": "routing.protocol = 'static'",
    "hidden_terminal": "routing.protocol = 'static'",
    "route_break": "radio.propagation = 'flat'",
    "www": "flows[0].kind = 'www'",
}


@needs_ns
@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "python" / "hoplab" / "examples").glob("*.toml")))
def test_crosscheck_every_packaged_example(tmp_path: Path, name: str) -> None:
    """Each packaged example runs in both simulators, or is refused in one
    line naming the field ns-2 cannot express."""
    p = _cli("crosscheck", str(ROOT / "python" / "hoplab" / "examples" / f"{name}.toml"),
             "--seeds", "1", "--out", "cc", cwd=tmp_path)
    if name in EXAMPLE_REFUSALS:
        assert p.returncode == 2, p.stderr
        lines = [ln for ln in p.stderr.splitlines() if not ln.startswith("crosscheck:")]
        assert len(lines) == 1 and "ns-2 cannot express" in lines[0] and EXAMPLE_REFUSALS[name] in lines[0], p.stderr
        return
    assert p.returncode == 0, p.stderr
    rows = json.loads((tmp_path / "cc" / "crosscheck.json").read_text())
    delivered = next(r for r in rows if (r["row"], r["metric"]) == ("total", "delivered"))
    assert delivered["ns2"] > 0 and delivered["hoplab"] > 0 and 0.5 < delivered["ratio"] < 2.0, delivered
