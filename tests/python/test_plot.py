"""hoplab.plot and `hoplab plot`: figures of real (short) runs in every
format, the plotted numbers against the data's, and one-line CLI errors."""

from __future__ import annotations

import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats as st

import hoplab
from hoplab import models, plot
from hoplab.cli import cli
from hoplab.plot import PlotError
from hoplab.plot.labels import axis_label

from .conftest import run_module

SUFFIXES = (".png", ".svg", ".pdf")


def assert_valid(path: Path) -> None:
    data = path.read_bytes()
    if path.suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    elif path.suffix == ".svg":
        assert ET.fromstring(data).tag.endswith("svg")
    else:
        assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A 2-hop chain run for 3 s, saved as `hoplab run --out` saves it."""
    res = hoplab.run(hoplab.scenario.chain(2, duration=3.0), seed=1)
    return res.save(tmp_path_factory.mktemp("run") / "res")


@pytest.fixture(scope="module")
def result(run_dir) -> hoplab.Result:
    return hoplab.Result.load(run_dir)


@pytest.fixture(scope="module")
def sweep_df() -> pd.DataFrame:
    """One row per run: 1- and 2-hop chains, max_cwnd 2, 4 and 0 (unclamped),
    3 seeds, 2 s each (18 short runs), shaped like reproduce's runs.csv."""
    rows = []
    for hops in (1, 2):
        for w in (2, 4, 0):
            for seed in (1, 2, 3):
                sc = hoplab.scenario.chain(hops, duration=2.0, timeseries=False)
                sc["tcp"]["max_cwnd"] = w
                f = hoplab.run(sc, seed=seed).flows
                rows.append(f.assign(hops=hops, max_cwnd=w, seed=seed))
    return pd.concat(rows, ignore_index=True)


def errorbars(fig):
    """[(label, x, y, low, high)] of each ErrorbarContainer of the first axes."""
    out = []
    for c in fig.axes[0].containers:
        data_line, _caps, (bars, *_rest) = c.lines
        x, y = data_line.get_xdata(), data_line.get_ydata()
        segs = bars.get_segments()
        # A point without an interval (one run) has an empty segment: NaN here.
        ends = [(s[0][1], s[1][1]) if len(s) else (np.nan, np.nan) for s in segs]
        out.append((c.get_label(), np.asarray(x, float), np.asarray(y, float),
                    np.array([e[0] for e in ends]), np.array([e[1] for e in ends])))
    return out


# ----------------------------------------------------------------- formats

@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_plot_writes_every_format(tmp_path, suffix, result, sweep_df):
    figs = {
        "sweep": lambda p: plot.sweep(sweep_df, "max_cwnd", "throughput_kbps", "hops", path=p),
        "timeseries": lambda p: plot.timeseries(result, path=p),
        "nodes": lambda p: plot.nodes(result, path=p),
        "model": lambda p: plot.models(plot.curves.chain_clamp([1, 2, 4, 8], [1, 3]), xlabel="W", ylabel="x",
                                       path=p),
    }
    for name, draw in figs.items():
        path = tmp_path / f"{name}{suffix}"
        fig = draw(path)
        assert fig.axes and path.stat().st_size > 1000
        assert_valid(path)


def test_unknown_suffix_is_refused_before_drawing(tmp_path, result):
    with pytest.raises(PlotError, match=r"unknown output suffix \.jpg"):
        plot.timeseries(result, path=tmp_path / "f.jpg")
    with pytest.raises(PlotError, match=r"unknown output suffix \(none\)"):
        plot.save(plot.nodes(result), tmp_path / "f")
    assert list(tmp_path.iterdir()) == []


def test_import_does_not_touch_matplotlib_state(tmp_path, run_dir):
    # `import hoplab` (and its CLI) must not import matplotlib; drawing must
    # not import pyplot, select a backend or change rcParams.
    code = f"""
import sys
import hoplab, hoplab.cli
assert "matplotlib" not in sys.modules, "import hoplab imported matplotlib"
import matplotlib
# rcParams._get reads a value without resolving the "auto" backend, which
# plain rcParams["backend"] (and so dict(rcParams)) does by importing pyplot.
rc = matplotlib.rcParams
snapshot = lambda: {{k: rc._get(k) for k in list(rc.keys())}}
before = snapshot()
from hoplab import plot
plot.nodes(hoplab.Result.load({str(run_dir)!r}), path={str(tmp_path / 'n.png')!r})
plot.sweep(__import__("pandas").DataFrame({{"x": [1, 2], "y": [3.0, 4.0]}}), "x", "y",
           path={str(tmp_path / 's.pdf')!r})
assert "matplotlib.pyplot" not in sys.modules, "pyplot imported"
after = snapshot()
assert after == before, [k for k in before if before[k] != after[k]]
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------- sweep

def test_sweep_means_and_confidence_intervals_are_the_data(sweep_df):
    fig = plot.sweep(sweep_df, "max_cwnd", "throughput_kbps", "hops")
    bars = errorbars(fig)
    assert [b[0] for b in bars] == ["1", "2"]
    for label, x, y, low, high in bars:
        d = sweep_df[sweep_df.hops == int(label)]
        # Unclamped (max_cwnd 0) is drawn right of the largest clamp (4): at 6.
        assert list(x) == [2.0, 4.0, 6.0]
        for xi, w, yi, lo, hi in zip(x, (2, 4, 0), y, low, high):
            v = d[d.max_cwnd == w].throughput_kbps.to_numpy()
            # An independent route to the t interval: scipy's t.interval around
            # scipy's standard error (the plot uses t.ppf and std / sqrt(n)).
            assert yi == pytest.approx(v.mean(), rel=1e-12)
            if st.sem(v) > 0:
                ref = st.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=st.sem(v))
                assert (lo, hi) == pytest.approx(ref, rel=1e-9)
            else:  # a deterministic cell: a zero-width interval
                assert lo == hi == pytest.approx(v.mean())
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Max cwnd (segments)"
    assert ax.get_ylabel() == "Throughput (kbit/s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "4", "unclamped"]
    assert ax.get_legend().get_title().get_text() == "Hops"


def test_sweep_ci_matches_r_t_test():
    # R's t.test(1:5) prints the 95 % interval 1.036757 4.963243: by hand,
    # 3 ± t(0.975, 4) s/√n = 3 ± 2.776445 × 0.707107 (t from any t table).
    # 90 % for (10, 12, 15): 12.333333 ± t(0.95, 2) × s/√3 = ± 2.919986 ×
    # 1.452966 = ± 4.242641 (s = 2.516611), so (8.090693, 16.575974).
    df = pd.DataFrame({"g": ["a"] * 5 + ["b"] * 3, "v": [1, 2, 3, 4, 5, 10, 12, 15]})
    (_, _, y, lo, hi), = errorbars(plot.sweep(df[df.g == "a"], "g", "v"))
    assert (y[0], lo[0], hi[0]) == pytest.approx((3.0, 1.036757, 4.963243), abs=1e-6)
    (_, _, y, lo, hi), = errorbars(plot.sweep(df[df.g == "b"], "g", "v", confidence=0.9))
    assert (lo[0], hi[0]) == pytest.approx((8.090693, 16.575974), abs=1e-6)


def test_sweep_skips_failed_runs_and_keeps_design_order():
    # A design's level labels are strings; named levels keep their order of
    # appearance; a failed run (status failed, NaN metrics) is left out.
    df = pd.DataFrame({"topology": ["3hop", "3hop", "1hop", "1hop", "2by2"],
                       "tcp.max_cwnd": ["2", "2", "2", "2", "2"],
                       "throughput_kbps": [400.0, 420.0, 1400.0, np.nan, 300.0]})
    fig = plot.sweep(df, "topology", "throughput_kbps", "tcp.max_cwnd")
    (label, x, y, lo, hi), = errorbars(fig)
    assert label == "2"
    assert list(x) == [0, 1, 2] and list(y) == [410.0, 1400.0, 300.0]
    assert np.isnan(lo[1]) and np.isnan(hi[2])  # one run: no interval
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["3hop", "1hop", "2by2"]


@pytest.mark.parametrize("args, match", [
    (("max_cwnd", "thr", "hops"), r"column 'thr': not in the table \(available: flow, kind, "),
    (("max_cwnd", "throughput_kbps", "nodes"), r"column 'nodes': not in the table"),
    (("max_cwnd", "kind", None), r"column 'kind': has no numeric values"),
])
def test_sweep_errors_name_the_column(sweep_df, args, match):
    with pytest.raises(PlotError, match=match):
        plot.sweep(sweep_df, *args)


def test_sweep_empty_table():
    with pytest.raises(PlotError, match="the table is empty"):
        plot.sweep(pd.DataFrame({"a": [], "b": []}), "a", "b")


def test_chain_model_fit_recovers_the_constant():
    # Means exactly c W/(W+N-1) (c = 500 at 2 hops, 900 at 1 hop): the fit
    # returns c and its curve passes through every mean; W = 0 (unclamped)
    # has no model value and is left out.
    w = np.array([1, 2, 4, 8])
    df = pd.concat([pd.DataFrame({"hops": h, "w": np.r_[w, 0], "y": np.r_[c * w / (w + h), c]})
                    for h, c in ((1, 900.0), (2, 500.0))])
    curves = plot.curves.chain_clamp_fit(df, "w", "y", "hops")
    assert [c.level for c in curves] == [1.0, 2.0]
    assert [c.meta["scale"] for c in curves] == pytest.approx([900.0, 500.0])
    assert curves[1].label == "2: model W/(W+2)"
    # Node counts instead of hops: N = 3 is the 2-hop chain.
    by_nodes = plot.curves.chain_clamp_fit(df.assign(nodes=df.hops + 1), "w", "y", "nodes", nodes=True)
    assert [c.meta["scale"] for c in by_nodes] == pytest.approx([900.0, 500.0])
    fig = plot.sweep(df, "w", "y", "hops", curves=curves)
    dashed = [ln for ln in fig.axes[0].lines if ln.get_linestyle() == "--"]
    assert len(dashed) == 2
    # Each curve is drawn in its chain's colour.
    bars = fig.axes[0].containers
    assert [d.get_color() for d in dashed] == [b.lines[0].get_color() for b in bars]
    assert np.interp(4.0, dashed[1].get_xdata(), dashed[1].get_ydata()) == pytest.approx(500 * 4 / 6, rel=1e-3)


def test_chain_clamp_curves_are_the_model():
    (c,) = plot.curves.chain_clamp([1, 2, 4], [3], scale=2.0)
    assert list(c.y) == pytest.approx(list(models.chain_clamp_throughput(np.array([1, 2, 4]), 4, 2.0)))
    assert list(c.y) == pytest.approx([0.5, 0.8, 8 / 7])  # 2 W / (W + 3)


# ---------------------------------------------------------- labels and units

@pytest.mark.parametrize("column, label", [
    ("throughput_kbps", "Throughput (kbit/s)"),
    ("rtt_mean_ms", "RTT mean (ms)"),
    ("tcp.max_cwnd", "Max cwnd (segments)"),
    ("duration_s", "Duration (s)"),
    ("topology.spacing_m", "Spacing (m)"),
    ("retransmission_index", "Retransmission index (%)"),
    ("hops", "Hops"),
    ("mac.data_rate_mbps", "Data rate (Mbit/s)"),
    ("flows[2].off_s", "Off (s)"),       # a list item's field: the schema's flows[].off_s
    ("cbr_kbps", "CBR (kbit/s)"),        # no schema name: the suffix convention
    ("bytes_delivered", "Bytes delivered (B)"),  # the result schema's unit, not the suffix's
])
def test_axis_labels_carry_units(column, label):
    assert axis_label(column) == label


# -------------------------------------------------------- timeseries, nodes

def test_timeseries_draws_the_series(result):
    fig = plot.timeseries(result)
    top, bottom = fig.axes
    ts = result.timeseries[result.timeseries.flow == 0]
    cwnd, ssthresh = top.lines
    assert list(cwnd.get_xdata()) == list(ts.time_s) and list(cwnd.get_ydata()) == list(ts.cwnd)
    srtt, rto = bottom.lines
    assert np.array_equal(srtt.get_ydata(), ts.srtt_ms.to_numpy(), equal_nan=True)
    assert list(rto.get_ydata()) == list(ts.rto_ms)
    # ssthresh starts "unbounded" (a huge value): not drawn above 2 x max cwnd.
    assert ts.ssthresh.max() > 1e5
    shown = np.asarray(ssthresh.get_ydata(), float)
    assert np.all(np.isnan(shown) | (shown <= 2 * ts.cwnd.max()))
    assert top.get_ylabel() == "window (segments)" and bottom.get_ylabel() == "time (ms)"
    assert bottom.get_xlabel() == "simulated time (s)"
    assert top.get_shared_x_axes().joined(top, bottom)


def test_timeseries_errors(result):
    with pytest.raises(PlotError, match=r"flow 7 has no time series \(flows with one: 0\)"):
        plot.timeseries(result, flow=7)
    quiet = hoplab.run(hoplab.scenario.chain(1, duration=1.0, timeseries=False), seed=1)
    with pytest.raises(PlotError, match=r"\[output\] timeseries = true"):
        plot.timeseries(quiet)


def test_nodes_draws_queues_and_drops(result):
    fig = plot.nodes(result)
    top, bottom = fig.axes
    heights = [p.get_height() for p in top.patches]
    assert heights == pytest.approx(list(result.nodes.ifq_mean))
    (maxima,) = top.lines
    assert list(maxima.get_ydata()) == list(result.nodes.ifq_max)
    # The stacked bars add up to each node's drops.
    n = len(result.nodes)
    totals = np.zeros(n)
    for i, p in enumerate(bottom.patches):
        totals[i % n] += p.get_height()
    want = result.drops.groupby("node")["count"].sum().reindex(result.nodes.node, fill_value=0)
    assert list(totals) == list(want.to_numpy(float))
    labels = bottom.get_legend_handles_labels()[1]
    assert labels == sorted(labels) and all("(" in lb for lb in labels)  # "MAC RET (retry limit)"


# --------------------------------------------------------------------- CLI

def invoke(*args):
    return CliRunner().invoke(cli, ["plot", *map(str, args)])


def test_cli_sweep_reads_csv_parquet_and_reproduce_dir(tmp_path, sweep_df):
    csv = tmp_path / "t.csv"
    sweep_df.to_csv(csv, index=False)
    sweep_df.to_parquet(tmp_path / "t.parquet", index=False)
    (tmp_path / "rep").mkdir()
    sweep_df.to_csv(tmp_path / "rep" / "runs.csv", index=False)
    for i, src in enumerate((csv, tmp_path / "t.parquet", tmp_path / "rep")):
        out = tmp_path / f"s{i}.svg"
        r = invoke("sweep", src, "--x", "max_cwnd", "--y", "throughput_kbps", "--by", "hops",
                   "--model", "chain-clamp", "-o", out)
        assert r.exit_code == 0, r.output
        assert_valid(out)


def test_cli_sweep_where_selects_rows(tmp_path, sweep_df):
    # reproduce seed000's runs.csv holds the 3-hop-UDP rows beside the
    # 3-hop ones (same hops, cbr_kbps 192): --where keeps them apart.
    df = pd.concat([sweep_df.assign(cbr_kbps=0.0),
                    sweep_df.assign(cbr_kbps=192.0, throughput_kbps=sweep_df.throughput_kbps + 1e4)])
    df.to_csv(tmp_path / "runs.csv", index=False)
    r = invoke("sweep", tmp_path, "--x", "hops", "--y", "throughput_kbps", "--by", "max_cwnd",
               "--where", "cbr_kbps=0", "--where", "kind=ftp", "-o", tmp_path / "f.png")
    assert r.exit_code == 0, r.output
    kept = plot.tables.where(df, ["cbr_kbps=0", "kind=ftp"])
    assert len(kept) == len(sweep_df) and kept.throughput_kbps.max() < 1e4
    one_line_error(invoke("sweep", tmp_path, "--x", "hops", "--y", "throughput_kbps", "--where", "cbr_kbps=1",
                          "-o", tmp_path / "g.png"), "--where: no row has cbr_kbps = 1")
    one_line_error(invoke("sweep", tmp_path, "--x", "hops", "--y", "throughput_kbps", "--where", "cbr_kbps",
                          "-o", tmp_path / "g.png"), "--where: expected COL=VALUE, not 'cbr_kbps'")
    one_line_error(invoke("sweep", tmp_path, "--x", "hops", "--y", "throughput_kbps", "--where", "cbr=0",
                          "-o", tmp_path / "g.png"), "--where: column 'cbr' not in the table (available: flow,")


def test_cli_sweep_reads_a_lab_store_through_lab_load(tmp_path, sweep_df, monkeypatch):
    # A directory with store.sqlite is read by hoplab.lab.load (the lab's own
    # reader); a stand-in module records the call.
    calls = []
    fake = types.ModuleType("hoplab.lab")
    fake.load = lambda d: calls.append(Path(d)) or sweep_df  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "hoplab.lab", fake)
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "store.sqlite").touch()
    r = invoke("sweep", tmp_path / "store", "--x", "max_cwnd", "--y", "throughput_kbps", "-o", tmp_path / "s.png")
    assert r.exit_code == 0, r.output
    assert calls == [tmp_path / "store"]


def test_cli_timeseries_nodes_model(tmp_path, run_dir):
    for i, args in enumerate((("timeseries", run_dir, "--flow", "0"), ("nodes", run_dir), ("model", "chain-clamp"),
                              ("model", "tcp-friendly-window", "--alpha", "0.1"), ("model", "padhye", "--wmax", "8"))):
        out = tmp_path / f"{i}.pdf"
        r = invoke(*args, "-o", out)
        assert r.exit_code == 0, r.output
        assert r.output == f"wrote {out}\n"
        assert_valid(out)


def one_line_error(r, *fragments):
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.output
    for f in fragments:
        assert f in lines[0], lines[0]


def test_cli_errors_are_one_line(tmp_path, sweep_df, run_dir):
    csv = tmp_path / "t.csv"
    sweep_df.to_csv(csv, index=False)
    one_line_error(invoke("sweep", csv, "--x", "max_cwnd", "--y", "thr", "-o", tmp_path / "a.png"),
                   f"{csv}: column 'thr': not in the table (available: flow, kind,", "throughput_kbps")
    one_line_error(invoke("sweep", csv, "--x", "max_cwnd", "--y", "throughput_kbps", "-o", tmp_path / "a.gif"),
                   "unknown output suffix .gif: use .png, .svg or .pdf")
    empty = tmp_path / "empty.csv"
    sweep_df.head(0).to_csv(empty, index=False)
    one_line_error(invoke("sweep", empty, "--x", "max_cwnd", "--y", "throughput_kbps", "-o", tmp_path / "a.png"),
                   f"{empty}: the table is empty")
    (tmp_path / "blank.csv").touch()
    one_line_error(invoke("sweep", tmp_path / "blank.csv", "--x", "a", "--y", "b", "-o", tmp_path / "a.png"),
                   "is empty")
    one_line_error(invoke("sweep", tmp_path / "none.csv", "--x", "a", "--y", "b", "-o", tmp_path / "a.png"),
                   "none.csv: no such file or directory")
    one_line_error(invoke("sweep", tmp_path, "--x", "a", "--y", "b", "-o", tmp_path / "a.png"),
                   "not a lab store (store.sqlite) nor a `reproduce --out` directory (runs.csv)")
    (tmp_path / "t.txt").write_text("a,b\n1,2\n")
    one_line_error(invoke("sweep", tmp_path / "t.txt", "--x", "a", "--y", "b", "-o", tmp_path / "a.png"),
                   "unknown table suffix .txt")
    one_line_error(invoke("sweep", csv, "--x", "max_cwnd", "--y", "throughput_kbps", "--model", "chain-clamp",
                          "-o", tmp_path / "a.png"), "--model chain-clamp: needs --by")
    one_line_error(invoke("sweep", csv, "--x", "max_cwnd", "--y", "throughput_kbps", "--by", "kind",
                          "--model", "chain-clamp", "-o", tmp_path / "a.png"), "needs numeric hop (or node) counts")
    one_line_error(invoke("timeseries", run_dir, "--flow", "3", "-o", tmp_path / "a.png"),
                   "flow 3 has no time series")
    one_line_error(invoke("nodes", tmp_path / "nowhere", "-o", tmp_path / "a.png"), "not a result directory")
    one_line_error(invoke("nodes", tmp_path, "-o", tmp_path / "a.png"), "MANIFEST.json")
    assert not list(tmp_path.glob("a.*"))


def test_cli_no_timeseries_names_the_option_in_a_subprocess(tmp_path):
    # The whole path (python -m hoplab, main's exit codes): one line, exit 2.
    quiet = hoplab.run(hoplab.scenario.chain(1, duration=1.0, timeseries=False), seed=1).save(tmp_path / "q")
    r = run_module("plot", "timeseries", str(quiet), "-o", str(tmp_path / "t.png"), cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"hoplab: error: {quiet}: timeseries: the run recorded no time series: "
                               "set `[output] timeseries = true`")


def test_sweep_curves_need_a_numeric_x():
    df = pd.DataFrame({"topology": ["a", "b"], "y": [1.0, 2.0]})
    with pytest.raises(PlotError, match="model curves need a numeric x"):
        plot.sweep(df, "topology", "y", curves=plot.curves.chain_clamp([1, 2], [1]))
