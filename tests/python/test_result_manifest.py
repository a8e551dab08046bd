"""Result directories prove they are whole (issue 10 item 4): MANIFEST.json,
verification on load, a kill at any step of a save, the user's umask."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import _core, _io, manifest
from hoplab.cli import cli
from hoplab.result import TABLES

from .conftest import SMALL_TOML

SHORT = SMALL_TOML.replace("duration = 10.0", "duration = 2.0")


@pytest.fixture(scope="module")
def results():
    """Two different results of the small chain (seeds 1 and 2)."""
    return hoplab.run(SHORT, seed=1), hoplab.run(SHORT, seed=2)


def _load_or_error(d: Path):
    try:
        return hoplab.Result.load(d)
    except hoplab.ResultError as e:
        return e


def test_manifest_lists_every_file_and_the_writer(tmp_path, results):
    res = results[0]
    d = res.save(tmp_path / "r")
    m = json.loads((d / "MANIFEST.json").read_text())
    assert m["format"] == "hoplab-result" and m["format_version"] == 1 and m["table_format"] == "csv"
    assert m["hoplab_version"] == _core.__version__ and m["git_commit"] == _core.__git_commit__
    # A table without rows is not written (issue 23 item 7): no header-only files.
    names = {f"{t}.csv" for t in TABLES if len(getattr(res, t))} | {"info.json", "scenario.toml"}
    assert set(m["files"]) == names and "trace.csv" not in names
    for name, meta in m["files"].items():
        assert meta["size"] == (d / name).stat().st_size
        assert re.fullmatch(r"[0-9a-f]{64}", meta["sha256"])
    assert m["files"]["flows.csv"]["rows"] == len(res.flows) == 1
    assert m["files"]["nodes.csv"]["rows"] == 3
    # the staging directory is gone
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_info_names_the_version_and_commit_that_ran(tmp_path, results):
    info = results[0].info
    assert info["hoplab_version"] == hoplab.__version__
    commit = _core.__git_commit__
    assert commit == "unknown" or re.fullmatch(r"[0-9a-f]{40}(-dirty)?", commit)
    assert info["git_commit"] == commit
    saved = json.loads((results[0].save(tmp_path / "r") / "info.json").read_text())
    assert saved["hoplab_version"] == hoplab.__version__ and saved["git_commit"] == commit


@pytest.mark.parametrize("damage, file, words", [
    ("delete", "nodes.csv", "missing"),
    ("truncate", "timeseries.csv", "truncated"),
    ("header-only", "flows.csv", "truncated"),
    ("flip", "drops.csv", "checksum"),
    ("delete", "info.json", "missing"),
    ("delete", "MANIFEST.json", "verify=False"),
    ("garble", "MANIFEST.json", "unreadable"),
])
def test_load_refuses_a_damaged_directory(tmp_path, results, damage, file, words):
    d = results[0].save(tmp_path / "r")
    p = d / file
    if damage == "delete":
        p.unlink()
    elif damage == "truncate":
        p.write_bytes(p.read_bytes()[:-7])
    elif damage == "header-only":
        p.write_text(p.read_text().splitlines()[0] + "\n")
    elif damage == "flip":
        b = bytearray(p.read_bytes())
        b[-3] = ord("7") if b[-3] != ord("7") else ord("8")
        p.write_bytes(bytes(b))
    else:
        p.write_text("{not json")
    with pytest.raises(hoplab.ResultError) as ei:
        hoplab.Result.load(d)
    assert ei.value.path == p and words in str(ei.value) and "\n" not in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_load_checks_the_rows_the_manifest_lists(tmp_path, results):
    """A header-only table whose size and checksum were made to match (a
    writer bug, say) is still refused: the manifest says how many rows."""
    d = results[0].save(tmp_path / "r")
    (d / "flows.csv").write_text((d / "flows.csv").read_text().splitlines()[0] + "\n")
    m = json.loads((d / "MANIFEST.json").read_text())
    m["files"]["flows.csv"].update(size=(d / "flows.csv").stat().st_size,
                                   sha256=manifest._sha256(d / "flows.csv"))
    (d / "MANIFEST.json").write_text(json.dumps(m))
    with pytest.raises(hoplab.ResultError, match=r"flows.csv: 0 rows read, the manifest lists 1"):
        hoplab.Result.load(d)


def test_load_refuses_a_table_of_the_other_format(tmp_path, results):
    d = results[0].save(tmp_path / "r")
    (d / "flows.parquet").write_bytes(b"PAR1 from another run")
    with pytest.raises(hoplab.ResultError, match=r"flows.parquet: not in the manifest: a parquet table "
                                                 r"beside this csv result"):
        hoplab.Result.load(d)


def test_csv_then_parquet_into_one_directory(tmp_path, results):
    pytest.importorskip("pyarrow")
    d = tmp_path / "r"
    results[0].save(d)
    results[1].save(d, format="parquet")
    back = hoplab.Result.load(d)
    assert back == results[1] and back.info["seed"] == 2
    assert not list(d.glob("*.csv"))  # the CSV tables went to previous/, with their manifest
    (old,) = (d / "previous").iterdir()
    assert (old / "flows.csv").is_file() and (old / "MANIFEST.json").is_file()
    # and back again
    results[0].save(d)
    assert hoplab.Result.load(d) == results[0] and not list(d.glob("*.parquet"))


def test_a_directory_saved_before_manifests(tmp_path, results):
    """Refused by default (it cannot be told from an interrupted save);
    verify=False reads it with a warning, and saving it again adds a manifest."""
    d = results[0].save(tmp_path / "r")
    (d / "MANIFEST.json").unlink()
    with pytest.raises(hoplab.ResultError, match="MANIFEST.json: missing.*verify=False"):
        hoplab.Result.load(d)
    with pytest.warns(UserWarning, match="without checking"):
        old = hoplab.Result.load(d, verify=False)
    assert old == results[0]
    old.save(d)
    assert hoplab.Result.load(d) == results[0]


def test_missing_directory_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        hoplab.Result.load(tmp_path / "nothing")


# ----------------------------------------------------------- kills during save
def _save_killed_at(res, d: Path, fmt: str, k: int) -> bool:
    """Save in a forked child killed (os._exit, no cleanup) at the k-th step;
    True if the save finished before step k."""
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 0
        try:
            calls = [0]

            def step(what: str) -> None:
                calls[0] += 1
                if calls[0] == k:
                    os._exit(9)

            manifest._step = step
            res.save(d, format=fmt)
        except BaseException:
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code in (0, 9), f"child failed with {code}"
    return code == 0


def _count_steps(res, d: Path, fmt: str, monkeypatch) -> int:
    steps: list[str] = []
    monkeypatch.setattr(manifest, "_step", steps.append)
    res.save(d, format=fmt)
    monkeypatch.undo()
    return len(steps)


@pytest.mark.parametrize("case", ["fresh", "over-old", "over-same", "csv-to-parquet"])
def test_a_kill_at_any_step_of_save_never_leaves_a_mix(tmp_path, results, monkeypatch, case):
    old, new = results
    fmt = "csv"
    if case == "csv-to-parquet":
        pytest.importorskip("pyarrow")
        fmt = "parquet"
    if case == "over-same":
        new = hoplab.Result(dict(old.info, wall_s=0.5), *(getattr(old, t) for t in TABLES),
                            scenario_text=old.scenario_text, scenario_format=old.scenario_format)

    def prepare(d: Path) -> None:
        if case != "fresh":
            old.save(d)
            (d / "notes.txt").write_text("mine")

    probe = tmp_path / "probe"
    prepare(probe)
    n = _count_steps(new, probe, fmt, monkeypatch)
    assert n >= sum(1 for t in TABLES if len(getattr(new, t))) + 2  # the tables with rows, info, scenario
    seen = set()
    for k in range(1, n + 2):
        d = tmp_path / f"k{k}" / "r"
        d.parent.mkdir()
        prepare(d)
        finished = _save_killed_at(new, d, fmt, k)
        assert finished == (k > n)
        got = _load_or_error(d) if d.exists() else FileNotFoundError()
        if isinstance(got, hoplab.Result):
            assert got == new or (case != "fresh" and got == old), f"a mixed result after a kill at step {k}"
            seen.add("new" if got == new else "old")
        else:
            assert isinstance(got, (hoplab.ResultError, FileNotFoundError)), got
            seen.add("error")
            if isinstance(got, hoplab.ResultError):
                assert "interrupted" in str(got) or "not in the manifest" in str(got)
        if case != "fresh":
            assert (d / "notes.txt").read_text() == "mine"
        # the next save always recovers
        new.save(d, format=fmt)
        assert hoplab.Result.load(d) == new
    assert "new" in seen and ("old" in seen or case == "fresh")


def test_sigkill_at_random_moments_never_leaves_a_mix(tmp_path, results):
    """A child saves the two results in turn into one directory until it is
    SIGKILLed at a random moment; whatever is left loads as one of them or is
    refused."""
    a, b = results
    rng = random.Random(10)
    outcomes = {"a": 0, "b": 0, "error": 0}
    for i in range(12):
        d = tmp_path / f"run{i}"
        a.save(d)
        pid = os.fork()
        if pid == 0:
            try:
                while True:
                    b.save(d)
                    a.save(d)
            finally:
                os._exit(3)
        time.sleep(rng.uniform(0.0, 0.3))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        got = _load_or_error(d)
        if isinstance(got, hoplab.Result):
            assert got == a or got == b
            outcomes["a" if got == a else "b"] += 1
        else:
            outcomes["error"] += 1
    assert outcomes["a"] + outcomes["b"] > 0, outcomes


# ------------------------------------------------------------------ umask
@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_files_get_the_users_umask(tmp_path, results, mask):
    old = os.umask(mask)
    try:
        fresh = results[0].save(tmp_path / "fresh")
        over = tmp_path / "over"
        over.mkdir()
        (over / "flows.csv").write_text("older\n")
        results[0].save(over)
        summary = _io.atomic_write_bytes(tmp_path / "summary.csv", b"a,b\n1,2\n")
    finally:
        os.umask(old)
    want_file, want_dir = 0o666 & ~mask, 0o777 & ~mask
    for d in (fresh, over):
        assert (d / "MANIFEST.json").is_file()
        for p in d.rglob("*"):
            mode = stat.S_IMODE(p.stat().st_mode)
            assert mode == (want_dir if p.is_dir() else want_file), (p, oct(mode))
    assert stat.S_IMODE(fresh.stat().st_mode) == want_dir  # the renamed staging directory
    assert stat.S_IMODE(summary.stat().st_mode) == want_file


def test_umask_is_read_without_changing_it():
    old = os.umask(0o027)
    try:
        assert _io.umask() == 0o027 and _io.umask() == 0o027
    finally:
        os.umask(old)


# ------------------------------------------------- writable --out, before the run
def _read_only_dir(tmp_path: Path) -> Path:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    if not _cannot_write(ro):  # root ignores the mode: try a read-only file system
        sysdir = Path("/sys/kernel")
        if sysdir.is_dir() and _cannot_write(sysdir):
            return sysdir
        pytest.skip("no read-only directory available")
    return ro


def _cannot_write(d: Path) -> bool:
    try:
        manifest.check_writable(d)
    except OSError:
        return True
    return False


@pytest.mark.parametrize("sub", ["", "new/deeper"])
def test_run_refuses_a_read_only_out_before_running(tmp_path, sub):
    ro = _read_only_dir(tmp_path)
    sc = tmp_path / "s.toml"
    sc.write_text(SHORT)
    out = ro / sub if sub else ro
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(out)])
    assert r.exit_code == 2
    assert r.stdout == ""  # no summary: the run never started
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"hoplab: error: {out}: ") and ("not writable" in line or "cannot be created" in line)


def test_run_refuses_an_out_that_is_a_file(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(SHORT)
    f = tmp_path / "file"
    f.write_text("x")
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(f / "sub")])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == f"hoplab: error: {f / 'sub'}: not a directory ({f} is a file)"


def test_check_writable_leaves_nothing_behind(tmp_path):
    assert hoplab.Result.check_writable(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_the_old_result_and_no_staging(tmp_path, results):
    d = results[0].save(tmp_path / "r")

    def boom(path: Path) -> None:
        path.write_bytes(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        manifest.save_dir(d, [manifest.Entry("flows.csv", boom, 1)], table_format="csv",
                          result_names=["flows.csv"])
    assert hoplab.Result.load(d) == results[0]
    assert not [p for p in d.iterdir() if p.name.startswith(".")]


def test_save_into_a_file_is_refused(tmp_path, results):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(NotADirectoryError):
        results[0].save(f)
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_reproduce_refuses_a_read_only_out_before_running(tmp_path):
    ro = _read_only_dir(tmp_path)
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--replicas", "1", "--duration", "1",
                                 "--out", str(ro / "rep")])
    assert r.exit_code == 2 and r.stdout == ""
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"hoplab: error: {ro / 'rep'}: cannot be created")


def test_a_save_of_the_other_format_moves_the_old_tables_aside(tmp_path, results):
    """The save side of CSV-then-Parquet, without needing pyarrow: the new
    result's tables are stand-ins, checked by the manifest alone."""
    d = results[0].save(tmp_path / "r")
    entries = [manifest.Entry(f"{t}.parquet", lambda p, t=t: p.write_bytes(t.encode()), 0) for t in TABLES]
    manifest.save_dir(d, entries, table_format="parquet", result_names=hoplab.result.RESULT_NAMES)
    m = manifest.verify(d, hoplab.result.RESULT_NAMES)
    assert m["table_format"] == "parquet" and set(m["files"]) == {f"{t}.parquet" for t in TABLES}
    assert not list(d.glob("*.csv")) and not (d / "info.json").exists()
    (old,) = (d / "previous").iterdir()
    written = {f"{t}.csv" for t in TABLES if len(getattr(results[0], t))}
    assert {p.name for p in old.iterdir()} >= written | {"info.json", "MANIFEST.json"}
