from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from hoplab import _core
from hoplab._bench.suite import ROUTED, SCENARIOS, build, largest_component
from hoplab.cli import cli

from .conftest import EXAMPLES, SMALL_TOML, run_module

TABLE_FILES = ("flows.csv", "nodes.csv", "info.json", "scenario.toml", "MANIFEST.json")


def _no_header_only_tables(d: Path) -> None:
    """Every table written has rows (issue 23 item 7): no header-only files."""
    for p in d.glob("*.csv"):
        assert len(p.read_text().splitlines()) > 1, p.name


def _bad(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


BAD = [
    ("dst.toml", SMALL_TOML.replace("dst = 2", "dst = 9"), "flows[0].dst"),
    ("cw.toml", SMALL_TOML.replace("rts_threshold_bytes = 100", "rts_threshold_bytes = 100\ncw_min = 30"), "mac.cw_min"),
    ("dur.toml", SMALL_TOML.replace("duration_s = 10.0", "duration_s = -1"), "duration_s"),
    ("syntax.toml", "duration_s = 10\n[topology\n", "TOML"),
]


@pytest.mark.parametrize("name, text, field", BAD)
def test_cli_bad_scenario_exits_2(tmp_path, name, text, field):
    p = _bad(tmp_path, name, text)
    r = CliRunner().invoke(cli, ["run", str(p), "--no-save"])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("hoplab: error: ")
    assert field in r.stderr and str(p) in r.stderr
    assert "Traceback" not in r.output


def test_cli_missing_file_exits_2(tmp_path):
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "missing.toml")])
    assert r.exit_code == 2
    assert "missing.toml" in r.stderr and "not found" in r.stderr
    assert "Traceback" not in r.output


@pytest.mark.parametrize("name, text, field", BAD[:1] + BAD[3:])
def test_subprocess_bad_scenario_exits_2(tmp_path, name, text, field):
    p = _bad(tmp_path, name, text)
    r = run_module("run", str(p), "--no-save", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("hoplab: error: ")
    assert field in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_subprocess_missing_file_exits_2(tmp_path):
    r = run_module("run", "does-not-exist.toml", cwd=tmp_path)
    assert r.returncode == 2
    assert "does-not-exist.toml" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_cli_runs_every_example(tmp_path, example):
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(EXAMPLES / example), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "Flows" in r.stdout and "events" in r.stdout
    for name in TABLE_FILES:
        assert (out / name).is_file(), name
    _no_header_only_tables(out)
    flows = pd.read_csv(out / "flows.csv")
    assert len(flows) >= 1


def test_subprocess_run_writes_default_out_dir(tmp_path):
    shutil.copy(EXAMPLES / "hidden_terminal.toml", tmp_path / "ht.toml")
    r = run_module("run", "ht.toml", "--seed", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = tmp_path / "out" / "hidden-terminal" / "seed-4"
    for name in TABLE_FILES:
        assert (d / name).is_file(), name
    _no_header_only_tables(d)
    assert not (d / "trace.csv").exists()  # tracing is off


def test_cli_out_keeps_existing_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("keep me")
    sc = _bad(tmp_path, "s.toml", SMALL_TOML)
    for seed in ("1", "2"):
        r = CliRunner().invoke(cli, ["run", str(sc), "--seed", seed, "--out", str(out)])
        assert r.exit_code == 0, r.output
    assert (out / "keep.txt").read_text() == "keep me"
    # the seed-1 results were moved aside, not lost
    prev = list((out / "previous").glob("*/info.json"))
    assert len(prev) == 1 and '"seed": 1' in prev[0].read_text()
    assert '"seed": 2' in (out / "info.json").read_text()


def test_reproduce_seed000_smoke(tmp_path):
    out = tmp_path / "rep"
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--replicas", "1", "--duration", "5",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    text = r.stdout
    for h in ("1-hop", "2-hop", "3-hop", "4-hop", "3-hop-UDP"):
        assert h in text
    assert "Table 1" in text and "Table 2" in text and "TESTBED" in text and "AODV-UU with HELLO" in text
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 20  # 4 chains and the chain with CBR, 4 windows each
    assert set(runs["max_cwnd"]) == {2, 3, 4, 32}
    assert set(runs["routing"]) == {"aodv-hello"} and set(runs["receiver"]) == {"ns2"}
    assert (runs["throughput_kbps"] > 0).all()
    udp = runs[runs["cbr_kbps"] > 0]
    assert len(udp) == 4 and (udp["hops"] == 3).all() and (udp["cbr_throughput_kbps"] > 0).all()
    assert (out / "summary.csv").is_file()
    # a second invocation resumes from the store instead of re-running
    r2 = CliRunner().invoke(cli, ["reproduce", "seed000", "--replicas", "1", "--duration", "5",
                                  "--out", str(out)])
    assert r2.exit_code == 0
    assert "reusing 20" in r2.stderr
    assert len(pd.read_csv(out / "runs.csv")) == 20
    # another receiver is another set of runs in the same file
    r3 = CliRunner().invoke(cli, ["reproduce", "seed000", "--replicas", "1", "--duration", "5", "--receiver",
                                  "linux", "--routing", "static", "--out", str(out)])
    assert r3.exit_code == 0, r3.output
    assert "reusing" not in r3.stderr and "Linux 2.6 receiver" in r3.stdout
    # runs.csv is this reproduction's rows; the store keeps both sets of runs.
    assert set(pd.read_csv(out / "runs.csv")["receiver"]) == {"linux"}
    from hoplab import lab
    assert len(lab.Store(out / "store").recorded()) == 40
    assert set(lab.load(out / "store")["design"]) == {"seed000-ns2-aodv-hello", "seed000-linux-static"}


def test_reproduce_seed000_routing_smoke(tmp_path):
    out = tmp_path / "rt"
    r = CliRunner().invoke(cli, ["reproduce", "seed000-routing", "--replicas", "1", "--duration", "5",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    for label in ("AODV-LL, IF = CS", "AODV-HELLO, IF = CS", "AODV-LL, IF < CS", "AODV-HELLO, IF < CS", "OLSR"):
        assert label in r.stdout
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 5 and set(runs["max_cwnd"]) == {2} and set(runs["hops"]) == {3}
    assert (out / "summary-routing.csv").is_file()


def test_reproduce_rejects_the_old_linux_acks_flag():
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--linux-acks"])
    assert r.exit_code == 2


def test_reproduce_tasks_set_receiver_clamp_routing_and_background():
    from hoplab.papers.seed000.experiment import IF_RANGE_BELOW_CS_M, Task

    ns2 = Task(2, 2, 1, 5.0).scenario()
    assert ns2["tcp"]["receiver"] == "ns2" and ns2["tcp"]["clamp"] == "sender"
    assert ns2["routing"] == {"protocol": "aodv", "preset": "aodv-uu"}  # the paper's Fig. 3 AODV
    lin = Task(2, 2, 1, 5.0, "linux", "static").scenario()
    assert lin["tcp"]["receiver"] == "linux" and lin["tcp"]["clamp"] == "receiver"  # TCP_WINDOW_CLAMP
    assert lin["routing"] == {"protocol": "static"}
    assert Task(3, 32, 1, 5.0).scenario()["tcp"]["max_cwnd"] == 0  # unclamped
    ll = Task(3, 2, 1, 5.0, "ns2", "aodv-ll").scenario()
    assert ll["routing"]["aodv"] == {"link_detection": "link_layer"}
    udp = Task(3, 2, 1, 5.0, cbr_kbps=192.0).scenario()
    assert [f["kind"] for f in udp["flows"]] == ["ftp", "cbr"]
    assert (udp["flows"][1]["src"], udp["flows"][1]["dst"], udp["flows"][1]["rate_kbps"]) == (2, 1, 192.0)
    far = Task(3, 2, 1, 5.0, if_range_m=IF_RANGE_BELOW_CS_M).scenario()
    assert far["radio"]["interference_range_m"] == IF_RANGE_BELOW_CS_M < 400  # below two hops
    import json

    for sc in (ns2, lin, ll, udp, far):
        _core.validate_json(json.dumps(sc))


def test_bench_scenarios_are_fixed_and_valid():
    for name in SCENARIOS:
        import json

        _core.validate_json(json.dumps(build(name)))
    a, b = build("rand200"), build("rand200")
    assert a == b
    assert len(a["topology"]["positions"]) == 200 and len(a["flows"]) == 20


def test_bench_routing_scenarios_match_their_static_baselines():
    assert set(ROUTED) == {"grid7-dsr", "rand200-aodv", "rand200-olsr"} <= set(SCENARIOS)
    for name, (base, protocol) in ROUTED.items():
        assert base in SCENARIOS and base not in ROUTED
        routed, static = build(name), build(base)
        assert routed["routing"] == {"protocol": protocol}  # default preset
        assert "routing" not in static
        del routed["routing"], routed["name"], static["name"]
        assert routed == static  # same topology, flows, duration and settings


def test_bench_sack_scenario_changes_only_the_variant():
    from hoplab._bench.suite import TCP_VARIANTS, build

    assert TCP_VARIANTS["grid7-dsr-sack"] == ("grid7-dsr", {"variant": "sack"})
    sack, base = build("grid7-dsr-sack"), build("grid7-dsr")
    assert sack["tcp"] == {**base["tcp"], "variant": "sack"}
    del sack["tcp"], base["tcp"], sack["name"], base["name"]
    assert sack == base


def test_bench_few_scenario_changes_only_few_alpha():
    from hoplab._bench.suite import TCP_VARIANTS, build

    assert TCP_VARIANTS["grid7-dsr-few"] == ("grid7-dsr", {"few_alpha": 0.01})
    few, base = build("grid7-dsr-few"), build("grid7-dsr")
    assert few["tcp"] == {**base["tcp"], "few_alpha": 0.01}
    del few["tcp"], base["tcp"], few["name"], base["name"]
    assert few == base


def test_bench_ratio_and_verdict():
    from hoplab._bench import suite as b

    row = {"scenario": "rand200-aodv", "baseline": "rand200", "wall_target_s": None, "peak_rss_mb": 80.0}
    assert b._verdict({**row, "ratio_to_static": 2.9}) == "ok"
    assert b._verdict({**row, "ratio_to_static": 3.1}) == "MISSED"
    assert b._verdict({**row, "baseline": None, "ratio_to_static": None}) == "ok"


def test_largest_component_bfs():
    pos = [(0, 0), (200, 0), (400, 0), (2000, 2000), (2100, 2000)]
    assert largest_component(pos, 250.0) == [0, 1, 2]


def test_reproduce_seed003_through_the_store_with_a_plot(tmp_path):
    out = tmp_path / "r3"
    args = ["reproduce", "seed003", "--replicas", "1", "--out", str(out), "--plot", str(tmp_path / "fig.png")]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert "AODV-UU" in r.stdout and "OOLSR, TC 3 s, immediate" in r.stdout
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(pd.read_csv(out / "runs.csv")) == 6
    again = CliRunner().invoke(cli, args)  # everything comes from the store
    assert again.exit_code == 0 and "reusing 6" in again.stderr and "0 runs to do" in again.stderr
    assert again.stdout == r.stdout


def test_reproduce_plot_errors():
    # seed001 draws no figure: its command has no --plot (each paper declares its own options)
    r = CliRunner().invoke(cli, ["reproduce", "seed001", "--plot", "x.png"])
    assert r.exit_code == 2 and "No such option" in r.stderr and "--plot" in r.stderr
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--plot", "x.gif"])
    assert r.exit_code == 2 and "unknown output suffix .gif" in r.stderr
