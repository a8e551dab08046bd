"""What a user sees of one run (issue 23 items 4, 7, 9 and item 8's result
slips): a summary that fits a terminal, consistent result directories (TOML
scenario, no tables without rows, one event-hash form, loading only the
tables a figure draws), Jupyter's display, the progress bar of `hoplab run`,
and `lab status` on a store that lost a table file."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import lab, manifest
from hoplab.cli import cli
from hoplab.result import TABLES

# Issue 23's example: a 60 s 5x5 grid with AODV and two FTP flows, which
# printed ~180 lines (one drops row per node, layer, cause and type).
GRID = {
    "name": "grid5-aodv", "duration_s": 60.0, "seed": 1,
    "topology": {"kind": "grid", "rows": 5, "cols": 5, "spacing_m": 200.0},
    "routing": {"protocol": "aodv"},
    "flows": [{"kind": "ftp", "src": 10, "dst": 14}, {"kind": "ftp", "src": 2, "dst": 22}],
}


@pytest.fixture(scope="module")
def grid_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("grid") / "grid.json"
    p.write_text(json.dumps(GRID))
    return p


@pytest.fixture(scope="module")
def grid():
    return hoplab.run(GRID)


def test_grid_summary_fits_in_40_lines(grid_file, tmp_path):
    out = tmp_path / "g"
    r = CliRunner().invoke(cli, ["run", str(grid_file), "--out", str(out)])
    assert r.exit_code == 0, r.output
    summary = r.output.split("\nresults written to")[0].splitlines()
    assert len(summary) <= 40, "\n".join(summary)
    res = hoplab.Result.load(out)
    # Drops totalled by layer and cause, with their total.
    i = summary.index("Drops by layer and cause")
    total = next(line for line in summary[i:] if line.startswith("total"))
    assert total.split() == ["total", f"{int(res.drops['count'].sum()):,}"]
    for layer, n in res.drops.groupby("layer")["count"].sum().items():
        assert any(line.split()[:2] == [layer, f"{n:,}"] for line in summary[i:]), layer
    # One line per other table: its rows and its file; the empty ones in one line.
    for t in TABLES[1:]:
        n = len(getattr(res, t))
        if n:
            assert f"{t:<13}{n:>10,} rows  {t}.csv" in summary, t
            assert (out / f"{t}.csv").is_file()
        else:
            assert t in summary[-1] and summary[-1].startswith("no rows: "), t
            assert not (out / f"{t}.csv").exists()


def test_detail_prints_the_full_tables(grid_file):
    r = CliRunner().invoke(cli, ["run", str(grid_file), "--no-save", "--detail"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    nodes = lines.index("Nodes")
    assert lines[nodes + 1].split()[:3] == ["node", "x", "m"] and lines[nodes + 3 + 24].startswith("24 ")
    assert "Drops" in lines and "Drops by layer and cause" not in lines and len(lines) > 100


def test_summary_repr_and_full_view(grid):
    s = grid.summary()
    assert repr(grid) == f"<hoplab.Result>\n{s}"
    assert len(s.splitlines()) <= 40 and "Drops by layer and cause" in s and f"nodes{25:>18} rows  .nodes" in s
    full = grid.summary(full=True)
    assert "\nNodes\n" in full and "\nDrops\n" in full and "Other tables" not in full


def test_repr_html_shows_info_flows_and_the_other_tables(grid):
    html = grid._repr_html_()
    assert html.count("<tr>") == 1 + len(grid.flows)  # header and one row per flow
    assert "10-&gt;14" in html and "2-&gt;22" in html
    assert grid.info["event_hash"] in html and "route_events" in html and "no rows: trace" in html


def test_set_saves_scenario_toml_that_runs_the_same(tmp_path):
    out = tmp_path / "o"
    r = CliRunner().invoke(cli, ["run", "example:chain", "--set", "duration_s=3", "--set", "tcp.max_cwnd=4",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert not (out / "scenario.json").exists()
    text = (out / "scenario.toml").read_text()
    assert text.startswith("# example:chain run with --set duration_s=3 tcp.max_cwnd=4\n")
    again = hoplab.run(out / "scenario.toml")
    assert again.info["event_hash"] == json.loads((out / "info.json").read_text())["event_hash"]
    # a dict is saved as TOML too
    hoplab.run({**GRID, "duration_s": 1.0}).save(tmp_path / "d")
    assert (tmp_path / "d" / "scenario.toml").is_file() and not (tmp_path / "d" / "scenario.json").exists()


def test_event_hash_is_hex_everywhere_and_old_decimal_reads(grid, tmp_path):
    h = grid.info["event_hash"]
    assert isinstance(h, str) and len(h) == 16 and int(h, 16) >= 0
    assert grid.info_line().endswith(f"event hash {h}")
    d = grid.save(tmp_path / "r")
    assert json.loads((d / "info.json").read_text())["event_hash"] == h
    # info.json as hoplab wrote it before: a decimal number (manifest made to match)
    info = json.loads((d / "info.json").read_text())
    info["event_hash"] = int(h, 16)
    (d / "info.json").write_text(json.dumps(info))
    m = json.loads((d / "MANIFEST.json").read_text())
    m["files"]["info.json"].update(size=(d / "info.json").stat().st_size, sha256=manifest._sha256(d / "info.json"))
    (d / "MANIFEST.json").write_text(json.dumps(m))
    assert hoplab.Result.load(d).info["event_hash"] == h


def _traced(tmp_path: Path) -> Path:
    sc = hoplab.scenario.chain(2, duration=3.0, timeseries=True)
    sc["output"]["trace"] = True
    return hoplab.run(sc, seed=1).save(tmp_path / "t")


def test_load_reads_only_the_named_tables_and_checks_the_rest_on_use(tmp_path, monkeypatch):
    d = _traced(tmp_path)
    trace = d / "trace.csv"
    b = bytearray(trace.read_bytes())
    b[-3] = ord("7") if b[-3] != ord("7") else ord("8")
    trace.write_bytes(bytes(b))  # same size, other content
    with pytest.raises(hoplab.ResultError, match="checksum"):
        hoplab.Result.load(d)
    import pandas as pd

    read, real = [], pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda p, **kw: (read.append(Path(p).name), real(p, **kw))[1])
    res = hoplab.Result.load(d, tables=("flows", "timeseries"))
    assert sorted(read) == ["flows.csv", "timeseries.csv"] and len(res.timeseries) > 0
    assert f"{'trace':<13}{res._length('trace'):>10,} rows" in res.summary()  # counted from the manifest
    assert "trace.csv" not in read  # (the summary read drops.csv, which it totals)
    with pytest.raises(hoplab.ResultError, match=r"trace.csv: content differs"):
        res.trace
    with pytest.raises(ValueError, match="tables: 'nope' is not a table"):
        hoplab.Result.load(d, tables=("nope",))


def test_plot_timeseries_does_not_read_the_trace(tmp_path):
    pytest.importorskip("matplotlib")
    d = _traced(tmp_path)
    (d / "trace.csv").write_bytes(b"x" * (d / "trace.csv").stat().st_size)  # unreadable if it were read
    r = CliRunner().invoke(cli, ["plot", "timeseries", str(d), "-o", str(tmp_path / "ts.png")])
    assert r.exit_code == 0, r.output


def test_plot_timeseries_of_a_cbr_only_run_says_why(tmp_path):
    pytest.importorskip("matplotlib")
    sc = hoplab.scenario.chain(2, duration=2.0, timeseries=True, flows=[hoplab.scenario.cbr(0, 2, 100.0)])
    d = hoplab.run(sc, seed=1).save(tmp_path / "c")
    r = CliRunner().invoke(cli, ["plot", "timeseries", str(d), "-o", str(tmp_path / "ts.png")])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "CBR flows have no TCP time series" in r.output and "timeseries = true" not in r.output


def test_result_load_of_a_lab_store_says_what_it_is(tmp_path):
    base = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 1.0}
    lab.run({"name": "one", "base": base, "replicas": 1, "factors": {}}, tmp_path / "s", jobs=1, progress=False)
    with pytest.raises(hoplab.ResultError, match=r"a lab store \(store.sqlite\), not the result of one run"):
        hoplab.Result.load(tmp_path / "s")


def test_lab_status_counts_a_run_whose_table_was_deleted_as_damaged(tmp_path):
    base = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 1.0}
    lab.run({"name": "two", "base": base, "replicas": 2, "factors": {}}, tmp_path / "s", jobs=1, progress=False)
    victim = next((tmp_path / "s" / "tables").rglob("*.parquet"))
    victim.unlink()
    st = lab.status(tmp_path / "s")
    assert st.to_dict("records") == [{"design": "two", "runs": 2, "done": 1, "failed": 0, "damaged": 1,
                                      "missing": 0}]
    r = CliRunner().invoke(cli, ["lab", "status", "--store", str(tmp_path / "s")])
    assert "damaged" in r.output.splitlines()[0]


def _run_with_stderr(tty: bool) -> bytes:
    """`hoplab run example:grid` for 600 s (a few seconds: several redraws
    of the bar, however fast the build) with stderr on a terminal (a pty,
    100 columns) or a pipe; what it wrote to stderr."""
    args = [sys.executable, "-m", "hoplab", "run", "example:grid", "--set", "duration_s=600", "--no-save"]
    if not tty:
        return subprocess.run(args, capture_output=True, timeout=120).stderr
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    p.wait(timeout=120)
    os.close(master)
    return got


def test_progress_bar_on_a_terminal_only():
    shown = _run_with_stderr(tty=True).decode()
    assert "s simulated" in shown and "M events/s" in shown and "%|" in shown  # tqdm's bar
    assert shown.endswith("\r")  # cleared before the summary
    assert _run_with_stderr(tty=False) == b""
