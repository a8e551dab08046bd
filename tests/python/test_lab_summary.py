"""`hoplab lab summary` (issue 23 item 5): mean, std, n and t-interval per
cell of a store, the numbers of `hoplab.stats.describe` on `hoplab.lab.load`."""

from __future__ import annotations

import io
import json
import sqlite3
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from hoplab import lab, stats
from hoplab.cli import cli
from hoplab.result import read_csv_kw

from .test_store_hardening import _in_namespace, _listing, needs_namespace

BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 3.0}
# 2 windows x 2 hop counts x 3 seeds, the hop count derived into three fields.
SWEEP = {"name": "sweep", "base": BASE, "replicas": 3,
         "factors": {"tcp.max_cwnd": [2, 0], "hops": [1, 2]},
         "derive": {"topology.nodes": "hops + 1", "flows[0].dst": "hops"}}
# A second design in the same store: one seed (a cell of n = 1), no hops factor (NaN there).
SINGLE = {"name": "single", "base": BASE, "replicas": 1, "factors": {"tcp.max_cwnd": [3]}}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("summary")
    for spec in (SWEEP, SINGLE):
        p = d / f"{spec['name']}.json"
        p.write_text(json.dumps(spec))
        r = CliRunner().invoke(cli, ["lab", "run", str(p), "--store", str(d / "store"), "--jobs", "1",
                                     "--no-progress"])
        assert r.exit_code == 0, r.output
    return d / "store"


def summary(store, *args):
    return CliRunner().invoke(cli, ["lab", "summary", str(store), *args])


def expected(store, by, metrics, level=0.95, design=None):
    df = lab.load(store, design)
    parts = []
    for m in metrics:
        part = stats.describe(df, m, by, level)
        part.insert(0, "metric", m)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("by, metrics, extra", [
    (["tcp.max_cwnd", "hops"], ["throughput_kbps", "retransmission_index"], []),
    (["hops"], ["rtt_mean_ms"], ["--level", "0.9"]),
    (["design", "tcp.max_cwnd"], ["throughput_kbps"], []),  # cells of n = 1: NaN std and interval
    (["hops"], ["throughput_kbps", "loss_rate"], ["--design", "sweep", "--level", "0.99"]),
])
def test_summary_reproduces_stats_describe_on_the_same_store(store, by, metrics, extra):
    args = [a for b in by for a in ("--by", b)] + [a for m in metrics for a in ("--metric", m)]
    r = summary(store, *args, *extra, "--format", "csv")
    assert r.exit_code == 0, r.output
    got = pd.read_csv(io.StringIO(r.stdout), **read_csv_kw())
    level = float(extra[extra.index("--level") + 1]) if "--level" in extra else 0.95
    design = extra[extra.index("--design") + 1] if "--design" in extra else None
    want = expected(store, by, metrics, level, design)
    assert list(got.columns) == ["metric", *by, "n", "mean", "std", "sem", "ci_low", "ci_high"]
    assert len(got) == len(want) > 1
    for c in ["n", "mean", "std", "sem", "ci_low", "ci_high"]:  # every digit
        assert got[c].astype(float).tolist() == pytest.approx(want[c].astype(float).tolist(), rel=0, abs=0,
                                                              nan_ok=True), c
    for b in by:
        assert got[b].astype(str).tolist() == want[b].astype(str).tolist()


def test_nan_cells_are_empty_in_csv_and_dashes_in_the_table(store):
    r = summary(store, "--by", "design", "--by", "tcp.max_cwnd", "--metric", "throughput_kbps", "--format", "csv")
    single = [ln for ln in r.stdout.splitlines() if ",single," in ln]
    assert single == [single[0]] and single[0].startswith("throughput_kbps,single,3,1,")
    assert single[0].endswith(",,,,")  # std, sem, ci_low, ci_high undefined for n = 1
    r = summary(store, "--by", "design", "--by", "tcp.max_cwnd", "--metric", "throughput_kbps")
    row = [ln for ln in r.stdout.splitlines() if " single " in ln][0].split()
    assert row[:4] == ["throughput_kbps", "single", "3", "1"] and row[-2:] == ["-", "-"]


def test_table_rounds_describe_to_the_metrics_digits(store):
    r = summary(store, "--by", "hops", "--by", "tcp.max_cwnd", "--metric", "throughput_kbps", "--design", "sweep")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["metric", "hops", "tcp.max_cwnd", "n", "mean", "std", "95%", "CI"]
    want = expected(store, ["hops", "tcp.max_cwnd"], ["throughput_kbps"], design="sweep")
    rows = [ln.split(maxsplit=6) for ln in lines[2:]]
    assert len(rows) == len(want) == 4
    for row, w in zip(rows, want.to_dict("records")):
        assert row[1:4] == [str(w["hops"]), str(w["tcp.max_cwnd"]), str(w["n"])]
        decimals = len(row[4].partition(".")[2])
        assert float(row[4]) == round(w["mean"], decimals) and float(row[5]) == round(w["std"], decimals)
        assert row[6] == f"[{w['ci_low']:.{decimals}f}, {w['ci_high']:.{decimals}f}]"
        assert w["std"] >= 10 ** -decimals  # a spread is never printed as 0


def test_markdown(store):
    r = summary(store, "--by", "hops", "--metric", "throughput_kbps", "--design", "sweep", "--format", "markdown",
                "--level", "0.99")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "| metric | hops | n | mean | std | 99% CI |"
    assert lines[1] == "| --- | --- | ---: | ---: | ---: | ---: |"
    assert len(lines) == 4 and all(ln.startswith("| throughput_kbps | ") for ln in lines[2:])


@pytest.mark.parametrize("args, words", [
    (["--by", "hop", "--metric", "throughput_kbps"],
     "--by hop: not one of design, tcp.max_cwnd, hops, flow, kind, src, dst"),
    (["--by", "hops", "--metric", "throughput"], "--metric throughput: not one of start_s, end_s, "),
    (["--by", "hops", "--metric", "kind"], "--metric kind: not one of "),
    (["--by", "hops", "--metric", "throughput_kbps", "--design", "other"],
     "no design named 'other' (designs: single, sweep)"),
])
def test_unknown_names_are_one_line_listing_the_valid_ones(store, args, words):
    r = summary(store, *args)
    assert r.exit_code == 2
    assert len(r.output.splitlines()) == 1 and words in r.output, r.output
    assert "throughput_kbps" in r.output or "--by" in r.output or "designs:" in r.output


def test_empty_stores_are_one_line(tmp_path):
    lab.Store(tmp_path / "new").close()
    r = summary(tmp_path / "new", "--by", "hops", "--metric", "throughput_kbps")
    assert r.exit_code == 2 and r.output == (f"hoplab: error: {tmp_path / 'new'}: the store has no design yet "
                                             f"(run `hoplab lab run DESIGN --store {tmp_path / 'new'}`)\n")
    with lab.Store(tmp_path / "registered") as st:  # a design, no run finished yet
        st.register_design(lab.Design.from_dict(SWEEP))
    r = summary(tmp_path / "registered", "--by", "hops", "--metric", "throughput_kbps")
    assert r.exit_code == 2 and r.output == (f"hoplab: error: {tmp_path / 'registered'}: no run recorded yet "
                                             f"(`hoplab lab run DESIGN --store {tmp_path / 'registered'}`)\n")
    r = summary(tmp_path / "nothing", "--by", "hops", "--metric", "throughput_kbps")
    assert r.exit_code == 2 and len(r.output.splitlines()) == 1 and "not a hoplab store" in r.output


def test_a_metric_without_any_value_is_one_line(store, tmp_path):
    # completion_s: an FTP flow has no transfer to complete, so it is NaN in every row.
    r = summary(store, "--by", "hops", "--metric", "completion_s")
    assert r.exit_code == 2 and len(r.output.splitlines()) == 1
    assert r.output.startswith(f"hoplab: error: {store}: completion_s: no value in any of the ")


def test_summary_reads_a_store_whose_write_lock_is_held(store):
    writer = sqlite3.connect(store / "store.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        t0 = time.perf_counter()
        r = summary(store, "--by", "hops", "--metric", "throughput_kbps")
        assert r.exit_code == 0, r.output
        assert time.perf_counter() - t0 < 10  # not waiting out the busy timeout
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@needs_namespace
def test_summary_works_on_a_read_only_mount(store, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    want = summary(store, "--by", "hops", "--metric", "throughput_kbps", "--format", "csv").stdout
    before = _listing(store)
    r = _in_namespace(f"""
        mount --bind {store} {ro} && mount -o remount,bind,ro {ro} || exit 99
        touch {ro}/probe 2>/dev/null && {{ echo "mount is writable"; exit 98; }}
        $HOPLAB lab summary {ro} --by hops --metric throughput_kbps --format csv
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == want
    assert _listing(store) == before
