"""`hoplab reproduce seed004`: the design (Kawadia & Kumar's Table 1 x 9
plots x 15 runs), the tables against the paper's published numbers, the CLI
on a tiny configuration, and the physics the findings rest on."""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd
import pytest
from click.testing import CliRunner

import hoplab
from hoplab import lab
from hoplab.papers.seed004 import experiment as r4
from hoplab.cli import cli
from hoplab.papers.seed004.design import PLOTS, RTS_OFF_BYTES, TREATMENTS, clamp, design, parse_plots
from hoplab.papers.seed004.tables import per_run, table5, reference_table2


@pytest.fixture(scope="module")
def full_runs():
    return lab.Design.from_dict(design()).expand()


def test_the_design_has_1080_runs_in_72_cells_of_15_replicas(full_runs):
    assert len(full_runs) == 1080
    cells = Counter((r.cell["treatment"], r.cell["plot"]) for r in full_runs)
    assert len(cells) == 72 and set(cells.values()) == {15}
    assert {t for t, _ in cells} == set("01234567") and {p for _, p in cells} == set(PLOTS)
    seeds = {c: sorted(r.seed for r in full_runs if (r.cell["treatment"], r.cell["plot"]) == c) for c in cells}
    assert all(s == list(range(1, 16)) for s in seeds.values())
    # randomised (seed 004 §3.1): the first 72 runs are not one cell's replicas, nor cell order
    first = [(r.cell["treatment"], r.cell["plot"]) for r in full_runs[:72]]
    assert len(set(first)) > 30


def test_clamp_is_ceil_of_three_halves_n():
    # §2 item 1: ceil(3n/2); Table 1 writes 3 * (hops / 2)
    assert [clamp(n) for n in range(1, 7)] == [2, 3, 5, 6, 8, 9]


EXPECTED_CLAMP = {"1hop": 2, "2hop": 3, "3hop": 5, "4hop": 6, "5hop": 8, "6hop": 9, "2by2": 3, "3by2": 5, "4by2": 6}


def test_every_run_has_its_treatments_and_plots_overrides(full_runs):
    for r in full_runs:
        t, p = r.cell["treatment"], r.cell["plot"]
        sc = r.scenario
        c, sack, rts_off = TREATMENTS[t]
        assert sc["tcp"]["max_cwnd"] == (EXPECTED_CLAMP[p] if c else 0), (t, p)
        assert sc["tcp"]["variant"] == ("sack" if sack else "new_reno"), (t, p)
        assert sc["mac"]["rts_threshold_bytes"] == (RTS_OFF_BYTES if rts_off else 0), (t, p)
        # settings the paper fixes (§2, §4)
        assert sc["mac"]["data_rate_mbps"] == 11.0 and sc["mac"]["basic_rate_mbps"] == 1.0
        assert sc["mac"]["short_retry_limit"] == sc["mac"]["long_retry_limit"] == 8
        assert sc["mac"]["queue_limit"] == 100
        assert sc["tcp"]["mss_bytes"] == 2276 - 40 and sc["tcp"]["clamp"] == "sender"
        assert sc["routing"] == {"protocol": "static"}
        hops, nflows = PLOTS[p]
        assert len(sc["flows"]) == nflows
        if nflows == 1:
            assert sc["topology"] == {"kind": "chain", "nodes": hops + 1, "spacing_m": 200.0}
            assert (sc["flows"][0]["src"], sc["flows"][0]["dst"]) == (0, hops)
    # RTS off means above the largest frame: the 2276 B packet plus the 28 B MAC header and FCS
    assert RTS_OFF_BYTES > 2276 + 28


def _path(positions, src, dst, rng=250.0):
    """Shortest path by hops over the 250 m range graph (what static routing builds)."""
    n = len(positions)
    adj = [[j for j in range(n) if j != i and math.dist(positions[i], positions[j]) <= rng] for i in range(n)]
    prev, frontier = {src: None}, [src]
    while frontier:
        nxt = []
        for u in frontier:
            for v in adj[u]:
                if v not in prev:
                    prev[v] = u
                    nxt.append(v)
        frontier = nxt
    path, u = [], dst
    while u is not None:
        path.append(u)
        u = prev[u]
    return path[::-1]


@pytest.mark.parametrize("plot", ["2by2", "3by2", "4by2"])
def test_crossing_flows_share_exactly_one_relay(plot):
    d = lab.Design.from_dict(design(replicas=1, plots=[plot], treatments=["0"]))
    sc = d.expand()[0].scenario
    pos = sc["topology"]["positions"]
    hops = PLOTS[plot][0]
    paths = [_path(pos, f["src"], f["dst"]) for f in sc["flows"]]
    assert [len(p) - 1 for p in paths] == [hops, hops]
    shared = set(paths[0]) & set(paths[1])
    assert len(shared) == 1
    (centre,) = shared
    assert pos[centre] == [0.0, 0.0] and centre not in (paths[0][0], paths[0][-1], paths[1][0], paths[1][-1])


def test_parse_plots():
    assert parse_plots("4by2, 1hop") == ["1hop", "4by2"]
    for bad in ("", "7hop", "1hop,x"):
        with pytest.raises(ValueError, match="--plots"):
            parse_plots(bad)


def test_per_run_totals_throughput_and_averages_rtt_over_flows():
    flows = pd.DataFrame({"key": ["a", "a", "b"], "treatment": ["0", "0", "1"], "plot": ["2by2", "2by2", "1hop"],
                          "replica": [1, 1, 1], "seed": [1, 1, 1], "status": ["ok"] * 3,
                          "throughput_kbps": [1000.0, 500.0, 3000.0], "rtt_mean_ms": [100.0, 300.0, 8.0],
                          "rtt_std_ms": [10.0, 30.0, 1.0], "timeouts": [1, 2, 0]})
    r = per_run(flows).set_index("key")
    assert r.loc["a", "throughput_mbps"] == 1.5 and r.loc["a", "rtt_mean_ms"] == 200.0
    assert r.loc["a", "rtt_std_ms"] == 20.0 and r.loc["a", "timeouts"] == 3
    assert r.loc["b", "throughput_mbps"] == 3.0


def test_table5_of_the_testbeds_table2_gives_the_papers_table5():
    # Kawadia & Kumar Table 5 is the percent change of Table 2's means w.r.t.
    # treatment 1; values as printed in the paper (3 significant digits).
    t5 = table5(reference_table2())
    thr, rtt, sd = (t5[m][0] for m in ("throughput_mbps", "rtt_mean_ms", "rtt_std_ms"))
    assert thr.loc["0", "1hop"] == pytest.approx(23.7, abs=0.05)
    assert thr.loc["7", "3by2"] == pytest.approx(21.2, abs=0.05)
    assert thr.loc["2", "6hop"] == pytest.approx(-10.3, abs=0.05)
    assert rtt.loc["0", "2hop"] == pytest.approx(4.29e3, rel=0.005)
    assert rtt.loc["6", "2by2"] == pytest.approx(15.9, abs=0.05)
    assert sd.loc["4", "6hop"] == pytest.approx(219, abs=0.5)
    assert (thr.loc["1"] == 0).all()


def _run(plot: str, treatment: str, duration: float = 20.0, seed: int = 1) -> pd.DataFrame:
    d = lab.Design.from_dict(design(replicas=1, duration=duration, plots=[plot], treatments=[treatment]))
    return hoplab.run(d.expand()[0].scenario, seed=seed).flows


def test_clamp_cuts_the_rtt_of_3_hops_by_an_order_of_magnitude():
    # Finding 1: unclamped, the window fills the first relay's 100-packet
    # queue; clamped to 5 segments, the queues stay near empty.
    default, clamped = _run("3hop", "0"), _run("3hop", "2")
    assert default.rtt_mean_ms[0] > 10 * clamped.rtt_mean_ms[0]
    assert default.rtt_std_ms[0] > 10 * clamped.rtt_std_ms[0]
    assert clamped.throughput_kbps[0] > 0.8 * default.throughput_kbps[0]


def test_rts_off_raises_one_hop_throughput():
    # Finding 2: RTS and CTS at 1 Mbit/s cost ~0.7 ms per frame against a
    # ~2.5 ms DATA/ACK exchange at 11 Mbit/s.
    on, off = _run("1hop", "2"), _run("1hop", "5")
    assert off.throughput_kbps[0] > 1.2 * on.throughput_kbps[0]


def test_sack_changes_nothing_when_the_clamp_prevents_every_loss():
    # Finding 3 where the clamp is on: no segment is lost, so SACK never acts
    a, b = _run("2hop", "2", 10.0), _run("2hop", "6", 10.0)
    assert a.retransmissions[0] == b.retransmissions[0] == 0
    assert a.throughput_kbps[0] == b.throughput_kbps[0] and a.rtt_mean_ms[0] == b.rtt_mean_ms[0]


def test_cli_runs_a_tiny_reproduction_and_prints_every_table(tmp_path):
    out_dir, fig = tmp_path / "out", tmp_path / "fig.png"
    args = ["reproduce", "seed004", "--replicas", "2", "--duration", "4", "--plots", "1hop,2by2", "--jobs", "1",
            "--out", str(out_dir), "--plot", str(fig)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    out = r.stdout
    for title in ("Table 2.", "Table 3.", "Table 4.", "Table 5.", "Finding 1", "Finding 2", "Finding 3",
                  "Mechanisms", "Little's law"):
        assert title in out, title
    assert "Runs: 32." in out
    assert "(4.12)" in out and "(1.91)" in out  # the testbed's 1hop and 2by2 default throughput beside ours
    assert "{7, 3}" in out  # the paper's Table 4 subset for 1hop throughput
    assert fig.stat().st_size > 0
    runs = pd.read_csv(out_dir / "runs.csv")
    assert len(runs) == 32 and set(runs["plot"]) == {"1hop", "2by2"}
    # resumed from the store: the same numbers, nothing simulated again
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0 and again.stdout == out
    st = lab.status(out_dir / "store")
    assert st["runs"].tolist() == [32] and st["done"].tolist() == [32]


@pytest.mark.parametrize("args, message", [
    (["reproduce", "seed004", "--plots", "7hop"], "--plots: unknown plot '7hop'"),
    (["reproduce", "seed004", "--plot", "x.gif"], "x.gif"),
])
def test_cli_errors_are_one_line(args, message):
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: ") and message in lines[0]


def test_plots_is_seed004s_option_only():
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--plots", "1hop"])
    assert r.exit_code == 2 and "No such option" in r.stderr and "--plots" in r.stderr


def test_the_control_setting_sets_the_preamble_and_the_control_rate():
    import json

    from hoplab import _core
    from hoplab.papers.seed004 import design as d4

    assert d4.base_scenario()["mac"]["preamble"] == "long" and d4.base_scenario()["mac"]["basic_rate_mbps"] == 1.0
    for name, (preamble, basic) in d4.CONTROLS.items():
        mac = d4.base_scenario(control=name)["mac"]
        assert (mac["preamble"], mac["basic_rate_mbps"]) == (preamble, basic)
        _core.validate_json(json.dumps(d4.base_scenario(control=name)))  # 802.11b allows each
    bad = d4.base_scenario()
    bad["mac"]["preamble"] = "short"
    with pytest.raises(_core.ScenarioError, match="preamble"):
        _core.validate_json(json.dumps(bad))  # a short preamble at 1 Mbit/s is refused
