"""Ctrl-C, progress and engine failures.

The SIGINT tests measure from the signal to the process's exit. The engine
checks for signals every ~50 ms of wall time; the issue's bound is 0.5 s. The
assertion allows 2 s because CI machines (here: 2 cores shared by several
jobs) can stall a process for longer than the bound itself; the measured time
is printed so a regression shows in the log (typically 0.05-0.15 s).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hoplab

from .conftest import ROOT

#: A run of ~10 minutes: long enough that only an interrupt ends it in time.
LONG_TOML = """\
name = "long"
duration_s = 100000.0
[topology]
kind = "chain"
nodes = 5
spacing_m = 200.0
[output]
timeseries = false
[[flows]]
kind = "ftp"
src = 0
dst = 4
"""

SLACK_S = 2.0


def _popen(args: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, MPLCONFIGDIR=str(cwd / ".mpl"))
    return subprocess.Popen([sys.executable, "-m", "hoplab", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _interrupt_after_start(proc: subprocess.Popen, wait_s: float) -> float:
    time.sleep(wait_s)
    assert proc.poll() is None, proc.communicate()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    return time.monotonic() - t0


def test_sigint_stops_a_long_run_quickly(tmp_path):
    p = tmp_path / "long.toml"
    p.write_text(LONG_TOML)
    proc = _popen(["run", str(p), "--no-save"], tmp_path)
    took = _interrupt_after_start(proc, 2.0)
    out, err = proc.communicate()
    print(f"SIGINT to exit: {took:.3f} s")
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["hoplab: interrupted"], err
    assert took < SLACK_S


def test_progress_callback_sees_time_advance_and_can_stop_the_run():
    seen: list[tuple[float, float, int, float]] = []

    class Stop(Exception):
        pass

    def progress(sim_s, dur_s, events, rate):
        seen.append((sim_s, dur_s, events, rate))
        if len(seen) >= 3:
            raise Stop

    with pytest.raises(Stop):
        hoplab.run(LONG_TOML, seed=1, progress=progress)
    assert [s[1] for s in seen] == [100000.0] * 3
    assert seen[0][0] < seen[2][0] and seen[0][2] < seen[2][2]
    assert all(s[3] > 0 for s in seen)


def test_progress_does_not_change_the_run(small_toml):
    a = hoplab.run(small_toml, seed=2)
    b = hoplab.run(small_toml, seed=2, progress=lambda *a: None)
    assert a.info["event_hash"] == b.info["event_hash"] and a.info["events"] == b.info["events"]


def test_simulation_error_is_a_runtime_error():
    assert issubclass(hoplab.SimulationError, RuntimeError)
    assert not issubclass(hoplab.SimulationError, hoplab.ScenarioError)


def test_cli_reports_an_engine_failure_in_one_line(tmp_path, monkeypatch, small_toml):
    from click.testing import CliRunner

    from hoplab import _core, _run
    from hoplab.cli import cli

    def boom(*a, **k):
        raise _core.SimulationError('scenario "small", seed 1: the engine failed: index out of bounds')

    monkeypatch.setattr(_run, "run_text", boom)
    p = tmp_path / "s.toml"
    p.write_text(small_toml)
    r = CliRunner().invoke(cli, ["run", str(p), "--no-save"])
    assert r.exit_code == 70
    assert r.output.strip().splitlines() == ['hoplab: error: scenario "small", seed 1: the engine failed: index out of bounds']


# ---- Ctrl-C at any moment of a process's life, start-up and teardown included (issue 22) ----

# Delays from the start of the process to the SIGINT: dense over the start-up
# (the interpreter, then the imports of hoplab, click and the extension:
# 0.05-0.3 s, longer on a loaded machine), then spread over the run.
STARTUP_DELAYS = [i * 0.012 for i in range(14)] + [0.25, 0.4, 0.6, 0.9, 1.2, 1.5]


def _outcome(proc: subprocess.Popen, wait_s: float) -> tuple[int, str, str]:
    time.sleep(wait_s)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def _interpreter_only(err: str) -> bool:
    """A KeyboardInterrupt inside CPython's own start-up, before it runs any
    hoplab code (importing `site` or `runpy`, or runpy's import machinery
    finding the package): no hoplab frame, and nothing hoplab can handle."""
    return "KeyboardInterrupt" in err and "hoplab" not in err.replace('"-m", "hoplab"', "")


def _check_interrupted(rc: int, err: str, wait_s: float) -> None:
    lines = err.strip().splitlines()
    if rc == -signal.SIGINT and not lines:
        return  # killed before the interpreter installed its handler; shells report 130
    if _interpreter_only(err):
        print(f"SIGINT at {wait_s:.3f} s landed in the interpreter's own start-up: {err.splitlines()[:2]}")
        return
    assert (rc, lines) == (130, ["hoplab: interrupted"]), f"SIGINT at {wait_s:.3f} s: exit {rc}\n{err}"


def test_sigint_at_any_moment_of_start_up_is_one_line_and_130(tmp_path):
    # Before: a KeyboardInterrupt traceback of 5-30 lines from whatever was
    # being imported (3 of 14 tries), exit 1 or -2.
    p = tmp_path / "long.toml"
    p.write_text(LONG_TOML)
    for wait_s in STARTUP_DELAYS:
        rc, _, err = _outcome(_popen(["run", str(p), "--no-save"], tmp_path), wait_s)
        _check_interrupted(rc, err, wait_s)


def test_sigint_during_a_short_command_or_its_teardown_is_one_line_or_ignored(tmp_path):
    # `validate` ends within the delays: a Ctrl-C lands in its start-up, its
    # work or the interpreter's teardown (ignored there: the command's own
    # status and output, complete).
    p = tmp_path / "s.toml"
    p.write_text(LONG_TOML)
    normal = subprocess.run([sys.executable, "-m", "hoplab", "validate", str(p)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=60)
    assert normal.returncode == 0, normal.stderr
    for wait_s in [i * 0.02 for i in range(16)]:
        rc, out, err = _outcome(_popen(["validate", str(p)], tmp_path), wait_s)
        if rc == 0:
            assert (out, err) == (normal.stdout, ""), f"SIGINT at {wait_s:.3f} s"
        else:
            _check_interrupted(rc, err, wait_s)


def test_the_entry_modules_import_nothing_before_taking_over_ctrl_c():
    # `python -m hoplab` runs hoplab/__init__.py, then __main__.py, then
    # hoplab.cli; until hoplab.cli.main installs its handler, a Ctrl-C is a
    # traceback, so these must load in well under a millisecond: nothing
    # beyond what the interpreter has already imported.
    code = ("import sys; before = set(sys.modules); import hoplab, hoplab.cli; "
            "print(sorted(set(sys.modules) - before - {'hoplab', 'hoplab.cli', '__future__'}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_ctrl_c_while_click_parses_the_command_line_is_one_line_and_130(monkeypatch, capsys):
    # click turns a KeyboardInterrupt in its own parsing into Abort; before,
    # that printed "Aborted!" and exit 1 (seen once in 16 start-up timings).
    from hoplab.cli import _app

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(_app.cli, "make_context", interrupted)
    assert _app._run(["validate", "example:chain"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["hoplab: interrupted"]
