"""The experiment lab (issue 11 items 1-3): designs, the store, backends."""

from __future__ import annotations

import copy
import json
import sqlite3

import pandas as pd
import pytest

import hoplab
from hoplab import lab
from hoplab.lab.design import DesignError

# Short runs on the default chain: 1 and 2 hops x two windows.
BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 5.0}
DESIGN = {
    "name": "small",
    "base": BASE,
    "replicas": 2,
    "order": "interleaved",
    "factors": {
        "tcp.max_cwnd": [2, 0],
        "hops": {"1": {"topology.nodes": 2, "flows[0].dst": 1},
                 "2": {"topology.nodes": 3, "flows[0].dst": 2}},
    },
}


def design(**changes):
    d = copy.deepcopy(DESIGN)
    d.update(changes)
    for k in [k for k, v in d.items() if v is None]:
        del d[k]
    return lab.Design.from_dict(d)


# --- designs ------------------------------------------------------------------


def test_full_factorial_cells_levels_and_seeds():
    d = design()
    runs = d.expand()
    assert len(d.cells()) == 4 and len(runs) == 8
    assert {(r.cell["tcp.max_cwnd"], r.cell["hops"]) for r in runs} == {(2, 1), (2, 2), (0, 1), (0, 2)}
    assert sorted({r.seed for r in runs}) == [1, 2]
    # Each run's scenario carries its levels and its seed.
    for r in runs:
        assert r.scenario["tcp"]["max_cwnd"] == r.cell["tcp.max_cwnd"]
        assert r.scenario["topology"]["nodes"] == r.cell["hops"] + 1
        assert r.scenario["flows"][0]["dst"] == r.cell["hops"]
        assert r.scenario["seed"] == r.seed
    assert len({r.key for r in runs}) == 8


def test_run_orders():
    seq = design(order="sequential").expand()
    assert [(r.cell_index, r.replica) for r in seq] == [(c, k) for c in range(4) for k in (1, 2)]
    inter = design(order="interleaved").expand()  # seed 000 §3: one replica of each cell, then the next
    assert [(r.cell_index, r.replica) for r in inter] == [(c, k) for k in (1, 2) for c in range(4)]
    rnd = design(order="randomised", order_seed=7).expand()
    again = design(order="randomised", order_seed=7).expand()
    other = design(order="randomised", order_seed=8).expand()
    assert [r.key for r in rnd] == [r.key for r in again]
    assert [r.key for r in rnd] != [r.key for r in other]
    assert sorted(r.key for r in rnd) == sorted(r.key for r in seq)  # the same runs, reordered


def test_the_key_is_the_resolved_scenario_seed_and_engine():
    a = design().expand()
    # Writing a default explicitly does not change the run (the key hashes the resolved scenario).
    explicit = copy.deepcopy(DESIGN)
    explicit["base"] = {**BASE, "mac": {**BASE["mac"], "short_retry_limit": 7}}
    b = lab.Design.from_dict(explicit).expand()
    assert [r.key for r in a] == [r.key for r in b]
    assert all(r.key != s.key for r in a for s in design(seeds=[3, 4], replicas=None).expand())


def test_listed_treatments_cross_the_factorial():
    d = design(factors={"hops": DESIGN["factors"]["hops"]}, replicas=1,
               treatments=[{"factors": {"variant": "clamp"}, "set": {"tcp.max_cwnd": 3}},
                           {"factors": {"variant": "sack"}, "set": {"tcp.variant": "sack"}}])
    runs = d.expand()
    assert d.factor_names == ["hops", "variant"]
    assert len(runs) == 4
    clamp = [r for r in runs if r.cell["variant"] == "clamp"]
    assert all(r.scenario["tcp"]["max_cwnd"] == 3 for r in clamp)
    assert all(r.scenario["tcp"]["variant"] == "sack" for r in runs if r.cell["variant"] == "sack")


@pytest.mark.parametrize("change, field", [
    ({"order": "shuffled"}, "order"),
    ({"replicas": 0}, "replicas"),
    ({"seeds": [1, 1], "replicas": None}, "seeds"),
    ({"seeds": [1], "replicas": 2}, "seeds"),
    ({"factors": {"tcp.max_cwnd": []}}, 'factors."tcp.max_cwnd"'),
    ({"factors": {"not a path": [1]}}, 'factors."not a path"'),
    ({"factors": {"tcp.max_cwnd": [2, 2]}}, 'factors."tcp.max_cwnd"'),
    ({"factors": {"hops": {"1": 5}}}, 'factors."hops".1'),
    ({"colour": "red"}, "colour"),
    ({"base": "no/such/file.toml"}, "base"),
    ({"base": "example:nope"}, "base"),
    ({"treatments": [{"factors": {"hops": "x"}, "set": {}}]}, "treatments[0].factors.hops"),
])
def test_design_errors_name_the_field(change, field):
    with pytest.raises(DesignError) as e:
        design(**change).expand()
    assert e.value.field == field, str(e.value)


def test_a_bad_level_names_the_cell_and_the_scenario_field():
    with pytest.raises(DesignError, match=r"cell \{tcp.max_cwnd=-1, hops=1\}: tcp.max_cwnd"):
        design(factors={"tcp.max_cwnd": [-1], "hops": {"1": DESIGN["factors"]["hops"]["1"]}}).expand()
    with pytest.raises(DesignError, match=r"tcp.max_cwndx: unknown field"):
        design(factors={"tcp.max_cwndx": [2]}).expand()


def test_design_toml_file_with_a_relative_base(tmp_path):
    (tmp_path / "base.toml").write_text("duration_s = 2.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n"
                                        "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\n")
    (tmp_path / "d.toml").write_text('name = "f"\nbase = "base.toml"\nreplicas = 2\n'
                                     '[factors]\n"mac.rts_threshold_bytes" = [0, 3000]\n')
    d = lab.Design.load(tmp_path / "d.toml")
    assert len(d.expand()) == 4 and d.base["topology"]["nodes"] == 3


# --- the store -----------------------------------------------------------------


def test_run_store_reuse_and_tidy_load(tmp_path):
    store = tmp_path / "store"
    s1 = lab.run(design(), store, jobs=1, progress=False)
    assert (s1.total, s1.reused, s1.ran, s1.failed) == (8, 0, 8, 0)
    s2 = lab.run(design(), store, jobs=1, progress=False)  # nothing is run twice
    assert (s2.reused, s2.ran) == (8, 0)
    df = lab.load(store)
    assert len(df) == 8  # one row per run and flow (one flow)
    assert list(df.columns[:8]) == ["key", "design", "tcp.max_cwnd", "hops", "replica", "seed", "status", "error"]
    assert (df["status"] == "ok").all() and df["hops"].dtype == "int64"
    # The stored numbers are the numbers of a bare run of the same scenario and seed.
    r = next(r for r in design().expand() if r.cell == {"tcp.max_cwnd": 2, "hops": 2} and r.seed == 2)
    bare = hoplab.run(r.scenario, seed=r.seed).flows.iloc[0]
    row = df[df["key"] == r.key].iloc[0]
    for col in ("throughput_kbps", "bytes_delivered", "retransmissions", "rtt_mean_ms", "timeouts"):
        assert row[col] == bare[col], col
    # One hop carries more than two (the chain's spatial reuse, seed 000 Table 1).
    assert df.groupby("hops")["throughput_kbps"].mean()[1] > df.groupby("hops")["throughput_kbps"].mean()[2]
    nodes = lab.load(store, table="nodes")
    assert len(nodes) == 4 * 2 + 4 * 3  # 4 runs of 2 nodes, 4 of 3
    # The factor `hops` and the paths table's own `hops` column: one each, not a
    # column twice.
    paths = lab.load(store, table="paths")
    assert paths.columns.is_unique and "paths.hops" in paths.columns
    assert paths["hops"].dtype == "int64" and (paths["paths.hops"] == paths["hops"]).all()
    ts = lab.load(store, table="timeseries")
    assert set(ts["key"]) == set(df["key"]) and (ts["cwnd"] > 0).all()
    runs = lab.load(store, table="runs")
    assert len(runs) == 8 and (runs["events"] > 0).all()
    st = lab.status(store)
    assert st.to_dict("records") == [{"design": "small", "runs": 8, "done": 8, "failed": 0, "damaged": 0,
                                      "missing": 0}]


def test_a_shared_run_is_simulated_once(tmp_path):
    store = tmp_path / "s"
    lab.run(design(), store, jobs=1, progress=False)
    d2 = copy.deepcopy(DESIGN)
    d2["name"] = "wider"
    d2["factors"]["tcp.max_cwnd"] = [2, 0, 4]
    s = lab.run(d2, store, jobs=1, progress=False)
    assert (s.total, s.reused, s.ran) == (12, 8, 4)
    both = lab.load(store)
    assert set(both["design"]) == {"small", "wider"} and len(both) == 20


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    from hoplab import _run

    victim = design().expand()[3]
    real = _run.run_text

    def flaky(text, fmt, seed, *a, **k):
        if json.loads(text) == victim.scenario:
            raise hoplab.SimulationError("the engine failed (test)")
        return real(text, fmt, seed, *a, **k)

    monkeypatch.setattr(_run, "run_text", flaky)
    s = lab.run(design(), tmp_path / "s", jobs=1, progress=False)
    assert (s.ran, s.failed) == (8, 1)
    df = lab.load(tmp_path / "s")
    bad = df[df["key"] == victim.key].iloc[0]
    assert bad["status"] == "failed" and "the engine failed (test)" in bad["error"]
    assert pd.isna(bad["throughput_kbps"]) and (df["status"] == "ok").sum() == 7
    # A later run does not repeat it, unless asked to.
    assert lab.run(design(), tmp_path / "s", jobs=1, progress=False).ran == 0
    monkeypatch.setattr(_run, "run_text", real)
    again = lab.run(design(), tmp_path / "s", jobs=1, progress=False, retry_failed=True)
    assert (again.ran, again.failed) == (1, 0)
    assert (lab.load(tmp_path / "s")["status"] == "ok").all()


def test_jobs_1_jobs_2_and_dask_give_identical_stores(tmp_path):
    pytest.importorskip("dask.distributed")
    a = lab.run(design(), tmp_path / "a", jobs=1, progress=False)
    b = lab.run(design(), tmp_path / "b", jobs=2, progress=False)
    c = lab.run(design(), tmp_path / "c", jobs=2, backend="dask", progress=False)  # a LocalCluster
    assert a.ran == b.ran == c.ran == 8
    digests = {lab.Store(tmp_path / n).digest() for n in "abc"}
    assert len(digests) == 1
    pd.testing.assert_frame_equal(lab.load(tmp_path / "a"), lab.load(tmp_path / "c"))


def test_damaged_table_is_refused(tmp_path):
    store = tmp_path / "s"
    lab.run(design(replicas=1), store, jobs=1, progress=False)
    f = next((store / "tables").rglob("nodes.parquet"))
    f.write_bytes(f.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(lab.StoreError, match="checksum"):
        lab.load(store, table="nodes")
    assert len(lab.load(store)) == 4  # the index itself is intact


def test_not_a_store(tmp_path):
    with pytest.raises(lab.StoreError, match="not a hoplab store"):
        lab.load(tmp_path)
    (tmp_path / "store.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(lab.StoreError, match="not a usable store"):
        lab.load(tmp_path)


def test_no_duplicate_rows_in_the_index(tmp_path):
    store = tmp_path / "s"
    lab.run(design(), store, jobs=2, progress=False)
    lab.run(design(), store, jobs=2, progress=False)
    db = sqlite3.connect(store / "store.sqlite")
    assert db.execute("SELECT count(*), count(DISTINCT key) FROM runs").fetchone() == (8, 8)
    assert db.execute("SELECT count(*) FROM flows").fetchone() == (8,)


def test_a_table_cut_short_is_simulated_again(tmp_path):
    # What a power cut can leave (tables are written without fsync): the
    # next `lab run` finds the wrong size and runs that run again.
    store = tmp_path / "s"
    lab.run(design(replicas=1), store, jobs=1, progress=False)
    before = lab.Store(store).digest()
    f = next((store / "tables").rglob("timeseries.parquet"))
    f.write_bytes(f.read_bytes()[:100])
    s = lab.run(design(replicas=1), store, jobs=1, progress=False)
    assert s.ran == 1
    assert lab.Store(store).digest() == before
