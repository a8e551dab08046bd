"""`hoplab reproduce seed001`'s optional figures: Figs. 5 and 8 (W against p
beside Eq. 1, `window_loss`) and Figs. 10 and 11 (grids and mobile nodes,
`grids`), on tiny configurations and made-up rows."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from click.testing import CliRunner

from hoplab import models
from hoplab.cli import cli
from hoplab.papers.seed001 import experiment as r1
from hoplab.papers.seed001 import grids, window_loss
from hoplab.papers.seed001.intervals import mean_half, t975


def test_eq1_curve_is_the_papers_equation():
    # Seed 001 Eq. 1 by hand at p = 0.02, alpha 1, K 2: 1 / (sqrt(2p/3) + 2 min(1, 3 sqrt(3p/8)) p (1 + 32p^2)).
    p = 0.02
    by_hand = 1 / (math.sqrt(2 * p / 3) + 2 * min(1, 3 * math.sqrt(3 * p / 8)) * p * (1 + 32 * p * p))
    assert models.tcp_friendly_window(p, 1.0, 2.0) == pytest.approx(by_hand)
    text = window_loss.eq1_curves()
    row = next(ln.split() for ln in text.splitlines() if ln.startswith("0.02 "))
    assert row[1:3] == ["8.66", "7.94"]  # K = 0 (Eq. 7: sqrt(1.5/p)) and K = 2
    assert "W = 1 at p = 0.189, W = 2 at p = 0.119" in text and ": agrees." in text  # §3.2's 0.19 and 0.12


def test_t_quantiles():
    assert t975(1) == 12.706 and t975(4) == 2.776 and t975(30) == 2.042
    assert t975(31) == pytest.approx(2.0395, abs=1e-4) and t975(120) == pytest.approx(1.9799, abs=1e-4)
    m, h, n = mean_half([1.0, 2.0, 3.0])
    assert (m, n) == (2.0, 3) and h == pytest.approx(4.303 * 1.0 / math.sqrt(3))
    assert math.isnan(mean_half([5.0])[1]) and mean_half([])[2] == 0


def test_grid_patterns():
    assert grids.grid_flows(7, 7, "2o") == [(21, 27)] * 2  # Table 1's middle row
    assert grids.grid_flows(7, 7, "2c") == [(21, 27), (3, 45)]
    fourteen = grids.grid_flows(13, 13, "14")
    assert [s // 13 for s, _ in fourteen[:7]] == list(range(0, 13, 2)) and [s for s, _ in fourteen[7:]] == list(
        range(0, 13, 2))
    assert grids.grid_flows(5, 13, "2c") == [(26, 38), (6, 58)]  # 12 hops along the stripe, 4 across
    assert len(set(grids.grid_flows(5, 13, "14"))) == 14
    with pytest.raises(ValueError, match="do not fit"):
        grids.grid_flows(2, 2, "8")
    pairs = grids.random_pairs(32)
    assert pairs == grids.random_pairs(32) and len({s for s, _ in pairs}) == len({d for _, d in pairs}) == 32
    assert all(s != d and max(s, d) < 150 for s, d in pairs)


def test_scenarios_follow_the_paper():
    fig9 = r1.Task("chain", 6, 2, "static", "tcp", 3, 500.0).scenario()
    w = window_loss.WindowTask(6, 2, 1.0, 3, 500.0).scenario()
    assert {k: v for k, v in w.items() if k != "name"} == {k: v for k, v in fig9.items() if k != "name"}
    few = window_loss.WindowTask(6, 2, 0.04, 3, 500.0).scenario()
    assert few["tcp"]["few_alpha"] == 0.04 and few["routing"] == {"protocol": "static"} and few["compat"] == "ns2"
    g = grids.GridTask("13x5", "4", "adtcp+few", 2, 200.0).scenario()
    assert g["topology"] == {"kind": "grid", "rows": 5, "cols": 13, "spacing_m": 200.0}
    assert g["routing"] == {"protocol": "dsr"} and g["tcp"]["adtcp"] is True and g["tcp"]["few_alpha"] == 0.01
    assert [(f["src"], f["dst"]) for f in g["flows"]] == grids.grid_flows(5, 13, "4")
    m = grids.GridTask("mobile", "32", "tcp", 1, 200.0).scenario()
    assert m["topology"] == {"kind": "random", "nodes": 150, "width_m": 2000.0, "height_m": 2000.0}
    assert m["mobility"] == {"model": "waypoint", "speed_min_mps": 0.0, "speed_max_mps": 10.0, "pause_s": 0.0}
    assert len(m["flows"]) == 32 and m["duration_s"] == 200.0


def test_plans():
    plan = r1.Plan(experiments=("fig5",), hops=(4, 6), replicas=2)
    assert r1.Plan(experiments=("fig5",)).tasks() == []  # the optional figures run apart
    t5 = window_loss.tasks(plan)
    assert len(t5) == 2 * 2 * 4 and {t.alpha for t in t5} == {1.0} and {t.duration for t in t5} == {500.0}
    t8 = window_loss.tasks(r1.Plan(experiments=("fig8",), hops=(4,), replicas=1))
    assert sorted({t.alpha for t in t8}) == [0.01, 0.04, 0.1, 1.0]
    assert {t.alpha for t in window_loss.tasks(r1.Plan(experiments=("fig8",), hops=(4,), schemes=("tcp",)))} == {1.0}
    t11 = grids.tasks(r1.Plan(experiments=("fig11",), replicas=1, schemes=("tcp", "few", "ecn"), duration=50.0))
    assert len(t11) == (3 * 5 + 3) * 2 and {t.scheme for t in t11} == {"tcp", "few"}
    assert {t.duration for t in t11} == {50.0}
    assert grids.tasks(plan) == [] and not grids.selected(plan)


def test_one_short_run_gives_a_sane_window_and_loss_rate():
    from hoplab import run

    rows = {}
    for alpha in (1.0, 0.01):
        t = window_loss.WindowTask(4, 2, alpha, 1, 60.0)
        rows[alpha] = window_loss.row_of(t, run(t.scenario(), seed=1))
    for r in rows.values():
        assert 0.5 < r["W"] < 40 and 0 < r["p"] < 0.5 and 0 < r["p_ind"] <= r["p"]
        assert r["throughput_kbps"] > 50 and r["stream_errors"] == 0
    assert rows[0.01]["W"] < rows[1.0]["W"]  # §5.2: a smaller average window with a small alpha


def _fake_points(alpha_w: dict[float, float]) -> pd.DataFrame:
    rows = []
    for alpha, scale in alpha_w.items():
        for flows in (1, 2):
            for hops, p in ((4, 0.01), (8, 0.03), (12, 0.06)):
                for seed in (1, 2):
                    rows.append({c: 0 for c in window_loss.COLUMNS} | {
                        "hops": hops, "flows": flows, "alpha": alpha, "reading": "ns2", "seed": seed,
                        "p": p * math.sqrt(alpha), "W": scale * models.tcp_friendly_window(p * math.sqrt(alpha), alpha),
                        "p_ind": p / 2, "throughput_kbps": 100.0})
    return pd.DataFrame(rows, columns=window_loss.COLUMNS)


def test_window_loss_verdicts_on_made_up_points():
    plan = r1.Plan(experiments=("fig5", "fig8"), hops=(4, 8, 12), replicas=2)
    text = window_loss.report(_fake_points({1.0: 1.0, 0.1: 1.1, 0.04: 3.0, 0.01: 1.0}), plan)
    assert "Fig. 5 (seed 001 §3.2)" in text and "Fig. 8 (seed 001 §5.2)" in text
    claims5 = text[text.index("statements on Fig. 5"):text.index("statements on Fig. 8")]
    assert "W/Eq.1 median 1.00, 6/6 within x2  holds" in claims5 and "falls" in claims5
    claims8 = text[text.index("statements on Fig. 8"):]
    a04 = next(ln for ln in claims8.splitlines() if ln.startswith("FeW a=0.04  Eq. 1"))
    assert "0/6 within x2" in a04 and "does not hold" in a04
    lower = next(ln for ln in claims8.splitlines() if "lower p" in ln)
    assert "6/6 points" in lower and "holds" in lower
    assert "n = 2 seed(s) per point" in text and "Student-t" in text


def _fake_grid_runs(kbps: dict[str, float], few_gain: float) -> pd.DataFrame:
    rows = []
    for t in grids.tasks(r1.Plan(experiments=("fig11",), replicas=2)):
        k = kbps[t.scheme] * (few_gain if t.scheme == "few" and t.pattern not in ("2o", "2c") else 1.0)
        rows.append({c: 0 for c in grids.COLUMNS} | {
            "topology": t.topology, "pattern": t.pattern, "scheme": t.scheme, "reading": t.reading, "seed": t.seed,
            "throughput_kbps": k + t.seed, "flows": len(t.pairs())})
    return pd.DataFrame(rows, columns=grids.COLUMNS)


def test_grid_verdicts_on_made_up_runs():
    runs = _fake_grid_runs({"tcp": 99.0, "few": 99.0, "adtcp": 90.0, "adtcp+few": 95.0}, 1.5)
    text = grids.report(runs, r1.Plan(experiments=("fig11",), replicas=2))
    assert "Fig. 10 (seed 001 §5.4)" in text and "13x5   2 cross    row 2 left->right (12 hops); column 6" in text
    for panel in ("(a) 7x7 grid", "(b) 13x13 grid", "(c) 13x5 grid", "(d) mobile random"):
        assert f"Fig. 11{panel}" in text
    claims = text[text.index("statements on Fig. 11"):]
    over35 = next(ln for ln in claims.splitlines() if "over 35%" in ln)
    assert "32: +49.3%" in over35 and "holds" in over35  # (148.5 + 1.5) / (99 + 1.5) - 1
    adtcp = next(ln for ln in claims.splitlines() if "fails to make improvement" in ln)
    assert "holds" in adtcp
    two = next(ln for ln in claims.splitlines() if "two-flow cases" in ln)
    assert "2 overlap: +0.0%" in two and "does not hold" in two


def test_reproduce_optional_figures_smoke(tmp_path):
    out = tmp_path / "rep"
    args = ["reproduce", "seed001", "--only", "fig5,fig8,fig11", "--schemes", "tcp,few", "--hops", "4",
            "--replicas", "1", "--duration", "4", "--out", str(out)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    text = r.stdout
    for part in ("Eq. 1 (seed 001 §3.2)", "Fig. 5 (seed 001 §3.2)", "Fig. 8 (seed 001 §5.2)", "Fig. 10 (seed 001",
                 "Fig. 11(a) 7x7 grid", "Fig. 11(d) mobile", "statements on Fig. 5", "statements on Fig. 11"):
        assert part in text, part
    assert "Table 1" not in text and "Fig. 9(a)" not in text
    verdicts = [ln for ln in text.splitlines() if any(v in ln for v in (" holds ", " partly ", " does not hold "))]
    assert len(verdicts) >= 10
    assert "ADTCP a=1 vs TCP a=1" in text and "not run" in text  # ADTCP left out by --schemes
    wl = pd.read_csv(out / window_loss.CSV_NAME)
    assert len(wl) == 4 * 4 and (wl["W"] > 0).all() and ((wl["p"] >= 0) & (wl["p"] < 1)).all()
    g = pd.read_csv(out / grids.CSV_NAME)
    assert len(g) == (3 * 5 + 3) * 2 and set(g["scheme"]) == {"tcp", "few"}
    assert (out / window_loss.SUMMARY_NAME).is_file() and (out / grids.SUMMARY_NAME).is_file()
    assert not (out / "summary.csv").exists() and not (out / "runs.csv").exists()  # Table 1, Figs. 9, 12 not run
    assert "runs-fig5-8.csv" in r.stdout and "summary-fig11.csv" in r.stdout


def test_quick_and_all_options(monkeypatch):
    seen = {}

    def fake(plan, **kw):
        seen["plan"] = plan
        return pd.DataFrame(columns=r1.RUN_COLUMNS)

    monkeypatch.setattr(r1, "run_seed001", fake)
    monkeypatch.setattr(window_loss, "run", lambda plan, **kw: pd.DataFrame(columns=window_loss.COLUMNS))
    monkeypatch.setattr(grids, "run", lambda plan, **kw: pd.DataFrame(columns=grids.COLUMNS))
    r = CliRunner().invoke(cli, ["reproduce", "seed001", "--only", "all", "--quick"])
    assert r.exit_code == 0, r.output
    plan = seen["plan"]
    assert plan.experiments == r1.EXPERIMENTS + r1.OPTIONAL_EXPERIMENTS
    assert plan.hops == (4, 10, 16, 22) and plan.replicas == 1
    assert "Fig. 11(c) 13x5 grid" in r.stdout and "Not run this time" not in r.stdout
    r = CliRunner().invoke(cli, ["reproduce", "seed001", "--only", "table1", "--quick", "--replicas", "3"])
    assert seen["plan"].replicas == 3 and "(--only fig5,fig8,fig11 runs them" in r.stdout
