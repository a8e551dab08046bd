"""`hoplab reproduce seed002`: the rebuilt movements give the connectivity
the thesis states (checked with the engine's shortest-path oracle), the
designs have the thesis's sizes, a small reproduction runs end to end and
resumes from its store, and bad options are one-line errors."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

import hoplab
from hoplab.papers.seed002 import experiment as r2
from hoplab.papers.seed002 import scenarios as S
from hoplab.cli import cli
from hoplab.papers.seed002.report import expected, report

TCP = S.Tcp("reno", 1460, 11)


def _oracle(res, flow):
    o = res.oracle_paths[res.oracle_paths.flow == flow]
    return {int(h): float(t) for h, t in zip(o.hops, o.time_s)}


@pytest.mark.parametrize("routing", S.ROUTINGS)
def test_one_to_four_is_one_two_three_then_four_hops_from_5_25_45_s(routing):
    res = hoplab.run(S.one_to_four(routing, TCP), seed=1)
    f = res.flows.iloc[0]
    assert f.completed, "the 4 MB transfer ends"
    t = _oracle(res, 0)
    # §8.1: changes at 5, 25 and 45 s (the decode range is 250 m to within 0.1 m)
    assert set(t) == {1, 2, 3, 4}
    assert t[1] == pytest.approx(5.0, abs=0.01) and t[2] == pytest.approx(20.0, abs=1e-6)
    assert t[3] == pytest.approx(20.0, abs=1e-6)
    assert t[4] == pytest.approx(f.completion_s - 45.0, abs=0.01)
    # the route in use reached four hops too
    assert 4 in set(res.paths[res.paths.flow == 0].hops)


def test_overlap_follows_table_2():
    res = hoplab.run(S.overlap("aodv", TCP), seed=1)
    s1, s2 = _oracle(res, 0), _oracle(res, 1)
    end1 = res.flows.completion_s.iloc[0]
    # Table 2: stream one 1 hop to 17 s, 2 hops to 47 s, then 3; stream two 2 hops throughout
    assert set(s1) == {1, 2, 3} and s1[1] == pytest.approx(17.0, abs=0.01) and s1[2] == pytest.approx(30.0, abs=0.01)
    assert s1[3] == pytest.approx(end1 - 47.0, abs=0.01)
    assert set(s2) == {2}
    # the three changes are the three links of the walking node (thesis node four)
    for a, b, t in ((0, 3, 17.0), (1, 3, 37.0), (2, 3, 47.0)):
        assert S.overlap_distance(a, b, t) == pytest.approx(250.0, abs=0.1)
    for a, b in ((0, 1), (0, 4), (1, 4)):  # never linked
        assert min(S.overlap_distance(a, b, t) for t in range(0, 100)) > 255.0


def test_overlap_with_dsr_needs_ns2_idle_backoff_to_start_both_streams():
    # Both sources start at t = 0 and sense each other (262 m < 550 m): with
    # the standard's immediate access every route request of the two is sent
    # at the same instant and collides at node 3, for the whole run; ns-2's
    # MAC (which the thesis ran) backs off on an idle medium too.
    sc = S.overlap("dsr", TCP)
    res = hoplab.run(sc, seed=1)
    assert res.flows.completed.all()
    sc["mac"]["idle_backoff"] = False
    stuck = hoplab.run(sc, seed=1)
    assert stuck.flows.bytes_delivered.sum() == 0


def test_designs_have_the_thesis_sizes():
    assert len(r2.tasks("chain")) == 2 * 12 * 9  # 1 and 2 streams x 12 TCP sets x 1-9 hops
    assert len(r2.tasks("one-to-four")) == len(r2.tasks("overlap")) == 2 * 12
    assert len(r2.tasks("waypoint", 10)) == 10 * 2 * 2 * 2 * 12  # files x speeds x streams x routing x TCP
    assert len(r2.tasks("www", 10)) == 10 * 2 * 2 * 2
    sc = r2.tasks("waypoint", 1)[0].scenario()
    assert sc["mobility"]["speed_min_mps"] == pytest.approx(1.8) and sc["mobility"]["speed_max_mps"] == pytest.approx(2.2)
    assert sc["topology"] == {"kind": "random", "nodes": 30, "width_m": 1500.0, "height_m": 300.0}
    # the same source/destination pairs for every parameter set and file (§8.4)
    pairs = {tuple((f["src"], f["dst"]) for f in t.scenario()["flows"]) for t in r2.tasks("waypoint", 2) if t.streams == 1}
    assert len(pairs) == 1


def test_expected_throughput_is_eq_1():
    T = {1: 1000.0, 2: 500.0, 3: 333.0}
    assert expected({1: 5.0, 2: 20.0, 0: 25.0}, T) == pytest.approx((5 * 1000 + 20 * 500) / 50)
    assert expected({12: 10.0}, T) == pytest.approx(333.0)  # beyond the longest chain: its T


def test_a_small_reproduction_runs_reports_and_resumes(tmp_path, monkeypatch):
    tasks = r2.tasks

    def small(exp, files=r2.DEFAULT_FILES, readings=("ns2",)):
        keep = [t for t in tasks(exp, files, readings) if (t.variant, t.mss, t.window) == ("reno", 1460, 11)]
        return [t for t in keep if t.hops <= 4] if exp == "chain" else keep

    monkeypatch.setattr(r2, "tasks", small)
    msgs: list[str] = []
    rows = r2.run_experiments(("one-to-four",), files=1, out=tmp_path, jobs=1, progress=msgs.append)
    assert sorted(set(rows.exp)) == ["chain", "one-to-four"] and len(rows) == 8 + 2
    text = report(rows)
    assert "T_i: one 4 MB transfer" in text and "One-to-four hop (§8.1)" in text
    assert "ns-2's reading" in text and set(rows.reading) == {"ns2"}
    T = rows[(rows.exp == "chain") & (rows.streams == 1)].set_index("hops").thr1_kbps
    assert T[1] > 1.7 * T[2] > 0 and T[2] > T[4], T.to_dict()  # §7.1.1: throughput falls with the hops
    one = rows[rows.exp == "one-to-four"]
    assert one.done1.all() and (one.opt_hops1 > 2.0).all()
    assert (tmp_path / "runs-chain.csv").exists() and (tmp_path / "runs-one-to-four.csv").exists()
    again: list[str] = []
    rows2 = r2.run_experiments(("one-to-four",), files=1, out=tmp_path, jobs=1, progress=again.append)
    assert any("reusing 8 finished runs" in m for m in again) and any("0 runs to do" in m for m in again)
    pd.testing.assert_frame_equal(rows.reset_index(drop=True), rows2.reset_index(drop=True))


@pytest.mark.parametrize("args, message", [
    (["--only", "bogus"], "--only: bogus: choose from chain, one-to-four, overlap, waypoint, www"),
    (["--duration", "10"], "No such option"),  # its runs last until the transfers end: no --duration
])
def test_bad_options_are_one_line_errors(args, message):
    r = CliRunner().invoke(cli, ["reproduce", "seed002", *args])
    assert r.exit_code != 0 and message in r.output and "Traceback" not in r.output


def test_the_ns2_reading_leaves_the_presets_to_the_profile():
    from dataclasses import replace

    t = r2.Task("one-to-four", 1, routing="aodv")
    ns2, std = t.scenario(), replace(t, reading="standard").scenario()
    assert ns2["compat"] == "ns2" and ns2["routing"] == {"protocol": "aodv", "aodv": {"link_detection": "link_layer"}}
    assert "compat" not in std and std["routing"]["preset"] == "rfc3561"
    dsr = replace(t, routing="dsr").scenario()
    assert dsr["routing"] == {"protocol": "dsr", "dsr": {"promiscuous": True}}
    assert ns2["tcp"] == std["tcp"]  # the thesis's TCP sets are explicit in both readings
