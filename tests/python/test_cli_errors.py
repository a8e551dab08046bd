"""Every kind of bad input gives exactly one stderr line `hoplab: error: ...`
naming the file or field, exit status 2, and no traceback (issue 10's list:
TOML syntax errors, TOML dates in --set, unreadable files, FIFOs, devices,
huge files, errors after --set, list items in --set); a bug gives one line
`hoplab: internal error: ...` and exit 70."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import _core, overrides
from hoplab.cli import cli

from .conftest import ROOT, SMALL_TOML, run_module

SYNTAX = SMALL_TOML.replace("duration_s = 10.0", "duration_s = ")  # line 2, column 14


def _one_error_line(stderr: str, *names: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("hoplab: error: "), stderr
    for n in names:
        assert n in lines[0], (n, stderr)
    assert "Traceback" not in stderr
    return lines[0]


def _invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def _main(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """hoplab's real entry point (cli.main, with its last-resort handlers)."""
    return subprocess.run([sys.executable, "-c", "import sys, hoplab.cli as c; c.main(sys.argv[1:])", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("sets", [[], ["--set", "seed=2"]])
def test_toml_syntax_error_is_one_line_with_line_and_column(tmp_path, sets):
    p = tmp_path / "syntax.toml"
    p.write_text(SYNTAX)
    code, _, err = _invoke(str(p), "--no-save", *sets)
    assert code == 2
    line = _one_error_line(err, f"{p}:2:14: invalid TOML: ")
    assert "^" not in line and "|" not in line  # no caret diagram
    # the same message from the engine's parser with and without --set
    assert "string values must be quoted" in line


def test_api_toml_syntax_error_is_one_line():
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(SYNTAX)
    assert "\n" not in str(ei.value) and (ei.value.line, ei.value.column) == (2, 14)
    assert ei.value.field == "" and ei.value.message.startswith("invalid TOML: ")


def test_set_a_toml_date_becomes_a_string(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML)
    r = CliRunner().invoke(cli, ["run", str(p), "--out", str(tmp_path / "o"), "--set", "name=1979-05-27",
                                 "--set", "duration_s=1"])
    assert r.exit_code == 0, r.output
    assert '"scenario": "1979-05-27"' in (tmp_path / "o" / "info.json").read_text()
    # where no string is wanted, the error names the field
    code, _, err = _invoke(str(p), "--no-save", "--set", "duration_s=1979-05-27")
    assert code == 2
    _one_error_line(err, str(p), "duration_s")


def test_toml_date_in_the_file_with_set_names_the_field(tmp_path):
    p = tmp_path / "d.toml"
    p.write_text(SMALL_TOML.replace('name = "small"', "name = 1979-05-27"))
    code, _, err = _invoke(str(p), "--no-save", "--set", "seed=3")
    assert code == 2
    _one_error_line(err, str(p), "name", "date")


def test_unreadable_file(tmp_path, monkeypatch):
    p = tmp_path / "secret.toml"
    p.write_text(SMALL_TOML)
    if os.geteuid() != 0:  # a real permission error
        p.chmod(0)
    else:  # root reads anything: make the open fail as it would for a user
        import hoplab._safe_read as sr

        def denied(path, flags, *a):
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(sr.os, "open", denied)
    code, _, err = _invoke(str(p), "--no-save")
    assert code == 2
    _one_error_line(err, str(p), "Permission denied")
    assert "Usage:" not in err


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    # Opening a FIFO for reading blocks until a writer appears: the timeout
    # (generous: a cold interpreter start) is what would catch a regression.
    r = run_module("run", str(fifo), "--no-save", cwd=tmp_path)
    assert r.returncode == 2
    _one_error_line(r.stderr, str(fifo), "FIFO")


def test_device_is_refused():
    code, _, err = _invoke("/dev/zero", "--no-save")
    assert code == 2
    _one_error_line(err, "/dev/zero", "not a regular file")


def test_huge_file_is_refused(tmp_path):
    p = tmp_path / "huge.toml"
    with open(p, "wb") as f:
        f.truncate(17 * 1024 * 1024)  # sparse: no disk used
    code, _, err = _invoke(str(p), "--no-save")
    assert code == 2
    _one_error_line(err, str(p), "too large")


@pytest.mark.parametrize("value, field", [("duration_s=abc", "duration_s"), ("flows=5", "flows"),
                                          ("flows[0].dst=99", "flows[0].dst"),
                                          ("flows[0].start=true", "flows[0].start"),
                                          # a value inside the topology's kind: its field
                                          ("topology.spacing_m=[1]", "topology.spacing_m: invalid type"),
                                          # a field another kind has: the engine names the table,
                                          # the hint the override
                                          ("topology.rows=3", "topology: unknown field `rows` for kind = \"chain\", "
                                                              "expected one of `nodes`, `spacing_m` "
                                                              "(from --set topology.rows=3)")])
def test_errors_after_set_name_the_field_not_a_json_column(tmp_path, value, field):
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML)
    code, _, err = _invoke(str(p), "--no-save", "--set", value)
    assert code == 2
    line = _one_error_line(err, str(p), field)
    assert "column" not in line and "line 1" not in line


def test_set_list_items(tmp_path):
    sc = {"flows": [{"src": 0, "dst": 2}], "topology": {"kind": "explicit", "positions": [[0, 0], [1, 0], [2, 0]]}}
    overrides.apply(sc, ["flows[0].dst=1", "topology.positions[2]=[10,0]"])
    assert sc["flows"][0]["dst"] == 1 and sc["topology"]["positions"][2] == [10, 0]
    # through the CLI: the flow really goes to the node set
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML)
    r = CliRunner().invoke(cli, ["run", str(p), "--out", str(tmp_path / "o"), "--set", "flows[0].dst=1",
                                 "--set", "duration_s=2"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "flows.csv").read_text().splitlines()[1].split(",")[3] == "1"  # dst column


@pytest.mark.parametrize("value, names", [
    ("flows[1].dst=3", ("flows[1]", "index out of range", "1 item")),
    ("topology.positions[0]=[1,1]", ("topology.positions[0]", "index out of range")),
    ("name.x=1", ("name", "not a table")),
    ("flows[0]]=1", ("--set", "expected path=value")),
])
def test_bad_set_paths(tmp_path, value, names):
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML)
    code, _, err = _invoke(str(p), "--no-save", "--set", value)
    assert code == 2
    _one_error_line(err, *names)


def test_unwritable_out_is_one_line_naming_the_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML.replace("duration = 10.0", "duration = 1.0"))
    code, _, err = _invoke(str(p), "--out", str(blocker / "sub"))
    assert code == 2
    _one_error_line(err, str(blocker))


def test_os_error_anywhere_is_one_line(tmp_path):
    code = ("import sys, hoplab.cli as c, hoplab.cli._input as i\n"
            "def boom(*a, **k): raise PermissionError(13, 'Permission denied', '/x/y')\n"
            "i.read = boom\n"
            "c.main(['run', 'whatever.toml'])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2
    _one_error_line(r.stderr, "/x/y", "Permission denied")


@pytest.mark.parametrize("debug", ["", "1"])
def test_internal_error_is_one_line_exit_70(tmp_path, debug):
    code = ("import sys, hoplab.cli as c, hoplab._run as r\n"
            "def boom(*a, **k): raise KeyError('bug\\nhere')\n"
            "r.run_text = boom\n"
            f"c.main(['run', {str(ROOT / 'examples' / 'chain.toml')!r}, '--no-save'])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                       env={**os.environ, "HOPLAB_DEBUG": debug})
    assert r.returncode == 70
    last = r.stderr.splitlines()[-1]
    assert last.startswith("hoplab: internal error: KeyError: ") and "HOPLAB_DEBUG=1" in last
    assert ("Traceback" in r.stderr) == (debug == "1")
    if not debug:
        assert len(r.stderr.splitlines()) == 1


def test_version_names_version_and_commit():
    r = _main("--version")
    assert r.returncode == 0
    commit = getattr(_core, "__git_commit__", None) or "unknown"
    assert r.stdout.strip() == f"hoplab {_core.__version__} (git {commit})"


def test_parquet_hint_names_pip_install_pyarrow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML)
    code, _, err = _invoke(str(p), "--format", "parquet")
    assert code == 2
    _one_error_line(err, "pip install pyarrow")


def test_base_exception_from_the_engine_is_an_internal_error(tmp_path):
    # pyo3's PanicException derives from BaseException, not Exception
    code = ("import sys, hoplab.cli as c, hoplab._run as r\n"
            "class PanicException(BaseException): pass\n"
            "def boom(*a, **k): raise PanicException('index out of bounds')\n"
            "r.run_text = boom\n"
            f"c.main(['run', {str(ROOT / 'examples' / 'chain.toml')!r}, '--no-save'])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                       env={**os.environ, "HOPLAB_DEBUG": ""})
    assert r.returncode == 70
    assert r.stderr.startswith("hoplab: internal error: PanicException: index out of bounds")
    assert len(r.stderr.splitlines()) == 1
