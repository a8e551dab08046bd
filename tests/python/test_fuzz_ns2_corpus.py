"""validation/fuzz_ns2.py's corpus: its draw is fixed and committed, every
scenario in it is valid in hoplab and writable as an ns-2 script (so the
run compares simulators, not refusals), and the divergence finder tells a
difference from seed noise. The run through ns-2 is skipped without `ns`."""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation"))

import fuzz_ns2 as F  # noqa: E402

from hoplab import _core, run  # noqa: E402
from hoplab.formats.ns2.script.export import export_script, with_movement_of  # noqa: E402

CORPUS = F.corpus(100, F.DRAW)


def test_the_draw_is_deterministic_and_committed():
    assert F.corpus(100, F.DRAW) == CORPUS
    # scenario K depends on the seed and K only: --only K and --n N draw the same scenario
    assert F.draw(F.DRAW, 57) == CORPUS[57]
    assert F.corpus(3, F.DRAW + 1) != CORPUS[:3]
    committed = json.loads(F.CORPUS.read_text())
    assert committed == {"draw": F.DRAW, "scenarios": CORPUS}, \
        "validation/fuzz_corpus.json is not the draw: run validation/fuzz_ns2.py --list --save-corpus"


def test_the_corpus_spans_what_it_says():
    kinds = {("waypoint" if sc.get("mobility") else sc["topology"]["kind"]) for sc in CORPUS}
    assert kinds == {"chain", "grid", "random", "waypoint"}
    assert {sc["routing"]["protocol"] for sc in CORPUS} == {"aodv", "dsr", "dsdv"}
    assert {sc["tcp"]["variant"] for sc in CORPUS} == {"tahoe", "reno", "new_reno", "sack"}
    assert {sc["tcp"]["delayed_ack"] for sc in CORPUS} == {True, False}
    assert {sc["mac"]["data_rate_mbps"] for sc in CORPUS} == {1.0, 2.0}
    assert any(sc["tcp"]["max_cwnd"] for sc in CORPUS) and any(not sc["tcp"]["max_cwnd"] for sc in CORPUS)
    assert {f["kind"] for sc in CORPUS for f in sc["flows"]} == {"ftp", "cbr"}
    assert all(1 <= len(sc["flows"]) <= 6 and 60 <= sc["duration_s"] <= 150 for sc in CORPUS)
    mobile = [sc for sc in CORPUS if sc.get("mobility")]
    assert all(10 <= sc["topology"]["nodes"] <= 100 and sc["mobility"]["speed_max_mps"] <= 20 for sc in mobile)
    assert sum(sc["topology"]["nodes"] > 50 for sc in mobile) < len(mobile) / 2


def test_every_scenario_validates_and_exports_to_ns2():
    for k, sc in enumerate(CORPUS):
        _core.validate_json(json.dumps(sc))
        one = F.prepared(sc)
        drawn = F.cc.expressible(one)  # raises CrosscheckError naming the field ns-2 lacks
        assert drawn == bool(sc.get("mobility")), k
        if not drawn:
            assert export_script(one).rstrip().endswith("$ns_ run"), k
    # a mobile one with the legs a run drew, as the ns-2 side gets them (its first 2 s)
    sc = next(s for s in CORPUS if s.get("mobility") and not s["mobility"]["pause_s"])
    one = {k: v for k, v in _short(F.prepared(sc), 2.0).items() if k != "trace"}
    res = run(one, seed=1)
    script = export_script(with_movement_of(one, res.movement))
    assert "setdest" in script and script.rstrip().endswith("$ns_ run")


def _short(sc: dict, duration_s: float) -> dict:
    """``sc`` cut to ``duration_s``, its flows starting within it."""
    return {**sc, "duration_s": duration_s, "flows": [{**f, "start_s": duration_s / 4} for f in sc["flows"]]}


def _rec(h: list[list[int]], n: list[list[int]], kind: str = "received tcp 0->3") -> dict:
    return {"k": 0, "scenario": {"duration_s": 9.0},
            "timeline": {"hoplab": [{kind: b} for b in h], "ns2": [{kind: b} for b in n]}}


def test_a_divergence_is_found_where_every_seed_parts():
    same = [10] * 10
    # seeds agree for 4 s, then hoplab falls behind in every seed
    late = [10] * 4 + [2] * 6
    d = F.first_divergences(_rec([late, late, late], [same, same, same]))
    assert [(x["kind"], x["t_s"]) for x in d] == [("received tcp 0->3", 5)]  # second 4 ends at 5 s
    # behind in two seeds, ahead in the third: seed noise, not a divergence
    ahead = [10] * 4 + [30] * 6
    assert F.first_divergences(_rec([late, late, ahead], [same, same, same])) == []
    # apart for fewer than PERSIST_S seconds, then together again
    blip = [10, 10, 0, 20, 10, 10, 10, 10, 10, 10]
    assert F.first_divergences(_rec([blip] * 3, [same] * 3)) == []
    # two flows trading places between the simulators in every seed: neither parts, their sum does
    a, b = [10] * 10, [10] * 4 + [5] * 6
    rec = {"scenario": {"duration_s": 9.0},
           "timeline": {"hoplab": [{"received tcp 0->3": b, "received tcp 1->3": b}] * 3,
                        "ns2": [{"received tcp 0->3": a, "received tcp 1->3": b}, {"received tcp 0->3": b,
                                "received tcp 1->3": a}, {"received tcp 0->3": a, "received tcp 1->3": b}]}}
    assert [x["kind"] for x in F.first_divergences(rec)] == ["received, all flows"]
    # kinds one side does not write are left out
    assert F.first_divergences(_rec([[0]] * 3, [[50]] * 3, kind="drop IFQ END")) == []


def test_summary_ratios_and_the_paired_test():
    def values(d: float, retx: float) -> dict:
        return {"total\tdelivered": d, "total\trouting_packets": 10.0, "total\tretransmissions": retx,
                "total\ttimeouts": 0.0, "drops\tRTR CBK": 1.0}

    rec = {"k": 3, "describe": "x", "time": {}, "hoplab": [values(110, 2), values(120, 2), values(130, 2)],
           "ns2": [values(100, 1), values(110, 1), {k: v for k, v in values(120, 1).items() if k != "drops\tRTR CBK"}]}
    s = F.summary(rec)
    assert s["delivered"]["ratio"] == pytest.approx(120 / 110)
    assert s["retransmissions"]["ratio"] == pytest.approx(2.0)
    assert s["overlap"] and s["p"] == 0.0  # every seed 10 more: the same difference each time
    hop, ns2 = F.sides(rec)
    assert ns2.values[("drops", "RTR CBK")] == [1.0, 1.0, 0.0]  # a reason a run never wrote counts 0 there


def test_the_ratio_interval_is_paired():
    # seed N shares the placement: a network twice as busy in one seed moves both sides alike
    h, n = [1100.0, 5300.0, 2050.0, 9000.0], [1000.0, 5000.0, 2000.0, 8500.0]
    lo, hi = F.ratio_ci(h, n)
    r = sum(h) / sum(n)
    assert lo < r < hi and 1 < lo and hi - lo < 0.05  # unpaired, this spread would swallow the 5 %
    assert F.ratio_ci([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == (2.0, 2.0)
    lo, hi = F.ratio_ci([90.0, 110.0, 100.0], [110.0, 90.0, 100.0])
    assert lo < 1 < hi
    assert all(map(math.isnan, F.ratio_ci([1.0], [1.0]))) and all(map(math.isnan, F.ratio_ci([1.0, 2.0], [0.0, 0.0])))


def test_ns2_runs_are_seeded_apart():
    # ns-2's `seed S` fills MRG32k3a's state with S: seeds 1, 2, 3 draw in step; crosscheck and the
    # corpus give ns-2 a hash of the seed. Pinned: the ns-2 cache is keyed by the scripts.
    from hoplab.formats.ns2.script.export import spread_seed

    assert [spread_seed(n) for n in (1, 2, 3)] == [1294668924, 2046307919, 1328407426]
    seeds = [spread_seed(n) for n in range(1000)]
    assert len(set(seeds)) == 1000 and all(0 < s < 2**31 - 1 for s in seeds)
    sc = {**F.prepared(CORPUS[25]), "seed": 2}
    assert "$defaultRNG seed 2046307919" in export_script(sc, spread=True)
    assert "$defaultRNG seed 2\n" in export_script(sc)
    # crosscheck and the corpus make each seed's script in one place, seeded apart
    assert "$defaultRNG seed 2046307919\n" in F.cc.ns2_script(sc, None, False)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2)")
def test_one_scenario_in_both_and_the_ns2_cache(tmp_path):
    sc = _short(next(s for s in CORPUS if s["topology"]["kind"] == "chain" and s["topology"]["nodes"] <= 4), 5.0)
    cache = F.ScriptCache(tmp_path / "runs.jsonl", fresh=False)
    rec = F.run_one(0, sc, [1, 2], cache, tmp_path / "work")
    assert "refused" not in rec and rec["time"]["ns2_cached"] == 0
    assert len(rec["hoplab"]) == len(rec["ns2"]) == 2 and rec["ns2"][0]["total\tdelivered"] > 0
    again = F.run_one(0, sc, [1, 2], F.ScriptCache(tmp_path / "runs.jsonl", fresh=False), tmp_path / "work2")
    assert again["time"]["ns2_cached"] == 2 and again["ns2"] == rec["ns2"]
    assert not (tmp_path / "work2" / "ns2").exists()  # ns-2 did not run again
    F.report([rec], [], type("A", (), {"seed_list": [1, 2], "draw": F.DRAW})(), "<!-- test -->")
