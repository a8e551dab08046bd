"""`hoplab reproduce seed001` on a tiny configuration (short runs, one chain length)."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from hoplab.papers.seed001 import experiment as r1
from hoplab.papers.seed001 import grids, window_loss
from hoplab.cli import cli
from hoplab.papers import ReproduceError
from hoplab.papers._framework import parse_hops


def test_parse_hops():
    assert parse_hops("6,14") == (6, 14)
    assert parse_hops("4-8") == (4, 5, 6, 7, 8)
    assert parse_hops("4-22:2") == r1.DEFAULT_HOPS
    assert parse_hops("14, 4-6") == (4, 5, 6, 14)
    for bad in ("", "x", "8-4", "4-8:0", "0"):
        with pytest.raises(ReproduceError, match="--hops"):
            parse_hops(bad)


def test_scenarios_follow_the_paper():
    sc = r1.Task("chain", 6, 4, "dsr", "tcp", 3, 200.0, "standard").scenario()
    assert sc["topology"] == {"kind": "chain", "nodes": 7, "spacing_m": 200.0}
    assert sc["radio"]["tx_range_m"] == 250.0 and sc["radio"]["cs_range_m"] == 550.0
    assert sc["radio"]["interference_range_m"] == 550.0
    assert sc["mac"]["data_rate_mbps"] == 2.0
    assert sc["routing"] == {"protocol": "dsr", "preset": "ns2"}
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(0, 6)] * 4
    assert sc["duration_s"] == 200.0 and sc["seed"] == 3
    grid = r1.Task("grid", 6, 2, "static", "tcp", 1, 120.0).scenario()
    assert grid["topology"]["rows"] == grid["topology"]["cols"] == 7
    assert [(f["src"], f["dst"]) for f in grid["flows"]] == [(21, 27)] * 2  # the middle row
    assert grid["routing"] == {"protocol": "static"}
    assert "compat" not in sc


def test_the_ns2_reading_is_the_ns2_profile_with_ns2_defaults():
    # The paper ran ns-2: the main reading leaves TCP's segment size, sink and
    # initial window, and the DSR preset, to `compat = "ns2"` (ns-2's defaults).
    import json
    import tomllib

    from hoplab import _core

    t = r1.Task("chain", 6, 2, "dsr", "few", 1, 200.0)
    assert t.reading == "ns2"
    sc = t.scenario()
    assert sc["compat"] == "ns2" and sc["routing"] == {"protocol": "dsr"}
    assert sc["tcp"] == {"variant": "new_reno", "receive_window_bytes": 20000, "few_alpha": 0.01}
    resolved = tomllib.loads(_core.resolved_scenario(json.dumps(sc), "json"))
    assert resolved["tcp"]["mss_bytes"] == 1000 and resolved["tcp"]["receiver"] == "every"
    assert resolved["tcp"]["initial_cwnd"] == 2 and resolved["tcp"]["syn"] is True  # windowInit_ 2 after a SYN


def test_schemes_use_the_agreed_fields():
    few = r1.Task("chain", 4, 1, "dsr", "few", 1, 10.0).scenario()
    assert few["tcp"]["few_alpha"] == 0.01 and "adtcp" not in few["tcp"]
    adtcp = r1.Task("chain", 4, 1, "dsr", "adtcp+few", 1, 10.0).scenario()
    assert adtcp["tcp"]["adtcp"] is True and adtcp["tcp"]["few_alpha"] == 0.01
    ecn = r1.Task("chain", 4, 2, "dsr", "ecn", 1, 10.0).scenario()
    assert ecn["tcp"]["ecn"] is True and ecn["lred"] == {"enabled": True} and "few_alpha" not in ecn["tcp"]
    tcp = r1.Task("chain", 4, 1, "dsr", "tcp", 1, 10.0, "standard").scenario()
    assert set(tcp["tcp"]) == {"variant", "mss_bytes"} and "lred" not in tcp


def test_plan_counts_and_durations():
    plan = r1.Plan(hops=(4, 6), replicas=2)
    tasks = plan.tasks()
    per_seed = 2 * 4 + 2 * 2 * len(r1.FIG9_CURVES) + 2 * len(r1.FIG12_CURVES)  # Table 1 in both readings
    assert len(tasks) == 2 * per_seed
    assert len({t.key() for t in tasks}) == len(tasks)
    assert {t.duration for t in tasks if t.topology == "grid"} == {120.0}
    assert {t.duration for t in tasks if t.flows != 2} == {200.0}
    only_tcp = r1.Plan(hops=(4,), replicas=1, schemes=("tcp",), duration=7.0).tasks()
    assert {t.scheme for t in only_tcp} == {"tcp"} and {t.duration for t in only_tcp} == {7.0}
    assert {(t.routing, t.flows) for t in only_tcp if t.topology == "chain" and t.hops == 4} == {
        ("static", 1), ("dsr", 1), ("static", 4), ("dsr", 4), ("dsr", 2)}


def test_unknown_field_stops_the_run_up_front(monkeypatch):
    bogus = r1.Scheme("bogus", "Bogus TCP", {"no_such_field": 1})
    monkeypatch.setitem(r1.SCHEMES, "bogus", bogus)
    with pytest.raises(ReproduceError, match=r"Bogus TCP \(--schemes bogus\) sets tcp.no_such_field") as e:
        r1.check_schemes([r1.Task("chain", 4, 1, "dsr", "tcp", 1, 5.0), r1.Task("chain", 4, 1, "dsr", "bogus", 1, 5.0)])
    assert "Traceback" not in str(e.value)
    r1.check_schemes([r1.Task("chain", 4, 1, "dsr", "tcp", 1, 5.0)])  # TCP runs on every build


def test_time_average_cwnd():
    ts = pd.DataFrame({"flow": [0, 0, 0, 1], "time_s": [0.0, 1.0, 3.0, 0.0], "cwnd": [1.0, 2.0, 4.0, 9.0]})
    # 1 for 1 s, 2 for 2 s, 4 for 1 s over [0, 4].
    assert r1.time_average_cwnd(ts, 0, 0.0, 4.0) == pytest.approx((1 + 4 + 4) / 4)
    assert r1.time_average_cwnd(ts, 1, 0.0, 4.0) == pytest.approx(9.0)


def test_claims_name_known_curves():
    c = r1.claims()
    assert c is not None and len(c) > 0
    chains = c[c["figure"].isin(["fig9", "fig12"])]
    assert set(chains["better"]) | set(chains["worse"]) <= set(r1.CURVE_KEYS)
    wl = c[c["figure"].isin(["fig5", "fig8"])]
    assert set(wl["better"]) <= set(window_loss.ALPHA_OF) and set(wl["worse"].dropna()) <= {"eq1", *window_loss.ALPHA_OF}
    g = c[c["figure"] == "fig11"]
    assert set(g["topology"]) == set(grids.TOPOLOGIES)
    for r in g.itertuples(index=False):
        for side in (r.better, r.worse):
            key, _, flows = side.partition("@")
            assert key in grids.CURVES and (not flows or flows in grids.patterns(r.topology))
        assert isinstance(r.flows, float) or set(r.flows.split(";")) <= set(grids.patterns(r.topology))
    assert set(c["figure"]) == {"fig5", "fig8", "fig9", "fig11", "fig12"}
    ref = r1.table1_reference()
    assert ref is not None and ref.loc[(ref.topology == "7x7 grid") & (ref.routing == "dsr"), "total"].item() == 178.16


def test_reproduce_seed001_smoke(tmp_path):
    out = tmp_path / "rep"
    args = ["reproduce", "seed001", "--schemes", "tcp", "--hops", "4", "--replicas", "1", "--duration", "5",
            "--out", str(out)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert "Table 1" in text and "Fig. 9(a)" in text and "Fig. 9(d)" in text and "Fig. 12" in text
    assert "6-hop chain" in text and "7x7 grid" in text and "(S-D)/D" in text and "207.47" in text
    assert "not run (add 14 to --hops)" in text and "Not reproduced" in text
    assert "[1/" in r.stderr
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 8 + 5  # Table 1 in both readings; 4 hops: static/DSR x 1 and 4 flows, DSR x 2 flows
    assert set(runs["reading"]) == {"ns2", "standard"}
    assert set(runs.loc[runs.topology == "chain", "reading"]) == {"ns2", "standard"}
    assert (runs["throughput_kbps"] > 0).all()
    assert set(runs.loc[runs.routing == "static", "link_breaks"]) == {0}
    assert (out / "summary.csv").is_file()
    r2 = CliRunner().invoke(cli, args)
    assert r2.exit_code == 0
    assert "reusing 13" in r2.stderr
    assert len(pd.read_csv(out / "runs.csv")) == 13


def test_reproduce_seed001_bad_options():
    r = CliRunner().invoke(cli, ["reproduce", "seed001", "--only", "fig7"])
    assert r.exit_code == 2 and "--only" in r.stderr and "table1" in r.stderr
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--hops", "4"])  # seed001's option only
    assert r.exit_code == 2 and "No such option" in r.stderr and "--hops" in r.stderr


def _fake_runs(plan: r1.Plan, kbps: dict[str, float]) -> pd.DataFrame:
    rows = []
    for t in plan.tasks():
        curve = "static" if t.routing == "static" else t.scheme
        rows.append({c: 0 for c in r1.RUN_COLUMNS} | {
            "topology": t.topology, "hops": t.hops, "flows": t.flows, "routing": t.routing, "scheme": t.scheme,
            "reading": t.reading,
            "seed": t.seed, "duration_s": t.duration, "throughput_kbps": kbps[curve] + t.seed,
            "flow_kbps": f"{kbps[curve] / 2};{kbps[curve] / 2}", "avg_cwnd": 2.0, "shortest_path_share": 1.0,
            "event_hash": "0"})
    return pd.DataFrame(rows, columns=r1.RUN_COLUMNS)


def test_report_compares_stated_gains_once_every_curve_runs():
    # The report of a full run (FeW, ADTCP and ECN present), on made-up
    # throughputs: FeW 1.9x TCP, so the 6-hop claim reads +90% measured.
    plan = r1.Plan(hops=(6, 10, 14), replicas=1)
    kbps = {"static": 300.0, "tcp": 99.0, "few": 189.0, "adtcp": 80.0, "adtcp+few": 150.0, "ecn": 110.0,
            "ecn+few": 190.0}
    text = r1.report_seed001(_fake_runs(plan, kbps), plan)
    fig9 = text[text.index("Fig. 9(a)"):text.index("Fig. 12")]
    assert "not run" not in fig9
    line = next(ln for ln in fig9.splitlines() if ln.lstrip().startswith("1     6  FeW a=0.01 vs TCP a=1"))
    assert "+90%" in line and "+90.0%" in line and "yes" in line  # (189+1)/(99+1) - 1
    assert "ADTCP a=0.01 vs ADTCP a=1" in fig9 and "3/3 hops" in fig9
    assert "close" in fig9
    fig12 = text[text.index("Fig. 12"):]
    assert "TCP-ECN a=0.01 vs TCP-ECN a=1" in fig12 and "not run" not in fig12.split("Not reproduced")[0]
