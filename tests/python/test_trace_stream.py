"""Streamed traces (issue 24 item 1): `[trace] formats` files written while
the run goes into the result directory, filtered as the table says, the same
bytes as the in-memory `trace` table's CSV export, carried by the result's
manifest; and the refusals, each one line with exit 2."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import _core
from hoplab._csv import csv_text
from hoplab._schema import SCHEMA
from hoplab.cli import cli

from .conftest import TRACE_CHAIN as CHAIN, run_module


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _write(tmp_path: Path, trace: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(CHAIN + trace)
    return p


def test_run_streams_the_files_into_the_result_directory(tmp_path):
    sc = _write(tmp_path, '[trace]\nformats = ["csv", "anim"]\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "trace.csv" in r.output and "streamed trace files: anim.csv" in r.output
    names = {p.name for p in out.iterdir()}
    assert {"trace.csv", "anim.csv", "flows.csv", "MANIFEST.json"} <= names
    assert not any(n.startswith(".trace-partial") for n in names), "the staging directory is gone"
    m = json.loads((out / "MANIFEST.json").read_text())
    rows = _rows(out / "trace.csv")
    assert m["files"]["trace.csv"]["rows"] == len(rows) > 1000 and "anim.csv" in m["files"]
    # Every layer reports; rows come in time order.
    assert {r["layer"] for r in rows} == {"AGT", "RTR", "MAC", "PHY"}
    times = [float(r["time_s"]) for r in rows]
    assert times == sorted(times)
    # The animator's log: frames on the air and drops only.
    anim = _rows(out / "anim.csv")
    assert anim and all((a["layer"], a["event"]) == ("MAC", "send") or a["event"] == "drop" for a in anim)
    assert len(anim) == sum(1 for r in rows if (r["layer"], r["event"]) == ("MAC", "send") or r["event"] == "drop")
    # The result loads, its trace table read from the streamed file.
    res = hoplab.Result.load(out)
    assert len(res.trace) == len(rows) and set(res.trace_files) == {"trace.csv", "anim.csv"}
    assert res.trace.airtime_s.notna().sum() == sum(1 for r in rows if r["airtime_s"])


def test_streamed_csv_is_the_in_memory_table_byte_for_byte(tmp_path):
    text = CHAIN + '[output]\ntrace = true\n[trace]\nformats = ["csv"]\n'
    raw, _ = _core.run(text, "toml", 2, None, str(tmp_path))
    cols = raw["trace"]
    assert (tmp_path / "trace.csv").read_text() == csv_text(list(SCHEMA["trace"]), cols)
    assert raw["trace_files"] == {"trace.csv": len(cols["time_s"])}
    # Tracing observes only: the same run untraced.
    plain, _ = _core.run(CHAIN, "toml", 2, None, None)
    assert plain["info"]["event_hash"] == raw["info"]["event_hash"]
    for t in ("flows", "drops", "nodes"):
        assert csv_text(list(SCHEMA[t]), plain[t]) == csv_text(list(SCHEMA[t]), raw[t]), t


def test_filters_keep_only_what_they_say(tmp_path):
    res = hoplab.run(CHAIN + '[trace]\nformats = ["csv", "anim"]\nnodes = [2]\nlayers = ["RTR", "MAC"]\n'
                     'events = ["fwd", "send"]\npacket_types = ["tcp", "ack"]\nstart_s = 1.0\nend_s = 3.5\n',
                     trace_dir=tmp_path)
    rows = _rows(tmp_path / "trace.csv")
    assert len(rows) > 100
    assert {r["node"] for r in rows} == {"2"}
    assert {(r["layer"], r["event"]) for r in rows} == {("RTR", "fwd"), ("MAC", "send")}
    assert {r["packet_type"] for r in rows} == {"tcp", "ack"}
    assert all(1.0 <= float(r["time_s"]) <= 3.5 for r in rows)
    # anim.csv: the same nodes and window, its own events (control frames too).
    anim = _rows(tmp_path / "anim.csv")
    assert {a["node"] for a in anim} == {"2"} and all(1.0 <= float(a["time_s"]) <= 3.5 for a in anim)
    assert "MAC" in {a["packet_type"] for a in anim}
    assert len(res.trace) == len(rows)  # the table reads the streamed file


def test_saving_into_the_trace_directory_keeps_the_files_in_place(tmp_path):
    d = tmp_path / "r"
    res = hoplab.run(CHAIN + '[trace]\nformats = ["csv"]\n', trace_dir=d)
    inode = (d / "trace.csv").stat().st_ino
    res.save(d)
    assert (d / "trace.csv").stat().st_ino == inode, "listed as it is, not rewritten"
    assert not (d / "previous").exists()
    back = hoplab.Result.load(d)
    assert len(back.trace) == len(_rows(d / "trace.csv"))
    # Saved elsewhere, the file comes along; the directory loads on its own.
    back.save(tmp_path / "copy")
    assert (tmp_path / "copy" / "trace.csv").read_bytes() == (d / "trace.csv").read_bytes()
    assert len(hoplab.Result.load(tmp_path / "copy").trace) == len(back.trace)


def test_a_second_run_keeps_the_first_runs_files(tmp_path):
    out = tmp_path / "out"
    for seed in ("1", "2"):
        r = CliRunner().invoke(cli, ["run", str(_write(tmp_path, '[trace]\nformats = ["csv"]\n')), "--out",
                                     str(out), "--seed", seed])
        assert r.exit_code == 0, r.output
    previous = list((out / "previous").iterdir())
    assert len(previous) == 1 and (previous[0] / "trace.csv").is_file()
    assert (previous[0] / "trace.csv").read_bytes() != (out / "trace.csv").read_bytes()
    hoplab.Result.load(out)


def test_no_save_with_trace_files_is_refused_before_running(tmp_path):
    sc = _write(tmp_path, '[trace]\nformats = ["anim"]\n')
    r = run_module("run", str(sc), "--no-save", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("hoplab: error: ") and "--no-save" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists() and r.stdout == ""


@pytest.mark.parametrize("trace, field", [
    ('layers = ["IP"]', "trace.layers[0]"),
    ('formats = ["csv", "csv"]', "trace.formats[1]"),
    ('formats = ["bogus"]', "trace.formats[0]"),
    ("nodes = [5]", "trace.nodes[0]"),
    ("start_s = 2.0\nend_s = 1.0", "trace.start_s"),
    ('events = ["tx"]', "trace.events[0]"),
])
def test_a_bad_trace_field_is_one_line_naming_it(tmp_path, trace, field):
    sc = _write(tmp_path, f"[trace]\n{trace}\n")
    r = run_module("run", str(sc), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and field in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_window_after_the_runs_end_is_refused_naming_start_s(tmp_path):
    """start_s and end_s both past the 6 s run: an empty window, refused as
    docs/GUIDE.md says, not a run that writes an empty trace."""
    sc = _write(tmp_path, '[trace]\nformats = ["csv"]\nstart_s = 7.0\nend_s = 9.0\n')
    r = run_module("run", str(sc), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [f"hoplab: error: {sc}: trace.start_s: 7 s must be before the end of the run "
                                     "(6 s): the window 7-9 s holds no event"]
    assert not (tmp_path / "o").exists()


def test_python_api_refuses_files_without_a_directory():
    with pytest.raises(hoplab.ScenarioError) as e:
        hoplab.run(CHAIN + '[trace]\nformats = ["csv"]\n')
    assert e.value.field == "trace.formats" and "trace_dir" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to fill a disk with")
def test_a_write_error_ends_the_run_naming_the_file(tmp_path, monkeypatch):
    d = tmp_path / "t"
    d.mkdir()
    (d / "trace.csv").symlink_to("/dev/full")
    long_run = CHAIN.replace("duration_s = 6.0", "duration_s = 60.0") + '[trace]\nformats = ["csv"]\n'
    with pytest.raises(OSError) as e:
        hoplab.run(long_run, trace_dir=d)
    assert e.value.filename == str(d / "trace.csv") and "cannot write the trace" in str(e.value)
    # The CLI: one line, exit 2, the staging directory removed.
    import tempfile

    real = tempfile.mkdtemp

    def full_stage(prefix: str = "", dir: str | None = None) -> str:
        s = real(prefix=prefix, dir=dir)
        os.symlink("/dev/full", os.path.join(s, "trace.csv"))
        return s

    monkeypatch.setattr(tempfile, "mkdtemp", full_stage)
    sc = tmp_path / "long.toml"
    sc.write_text(long_run)
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    assert "trace.csv" in r.stderr and "cannot write the trace" in r.stderr and r.stderr.count("\n") == 1
    assert "Traceback" not in r.output and not list((tmp_path / "o").glob(".trace-partial*"))
