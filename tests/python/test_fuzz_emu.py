"""Fuzzing the emulator's inputs: the scenario's `[emulation]` table, a
saved run's emu.json and ingress log, and signals at random moments of a
live run. Bad input must give one line naming the field or the file (and,
in the ingress log, the byte), exit 2; never a traceback or an internal
error (exit 70). A run stopped by a signal other than SIGKILL is saved and
replays to its event hash; nothing a run started outlives it.

CI runs a few examples (the "ci" profile of test_fuzz_scenarios); the long
run is HOPLAB_FUZZ=long (`scripts/fuzz.sh`). The signal test needs root and
is skipped elsewhere.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from click.testing import CliRunner  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoplab import _core  # noqa: E402
from hoplab.cli import cli  # noqa: E402

from ._emu_util import ROOT, missing, synthetic_run  # noqa: E402
from .test_fuzz_scenarios import LONG  # noqa: E402 - registers and loads the ci/long profiles

BASE = {"name": "fz", "duration_s": 2.0, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200.0}}

# Characters that matter to splitting, and a few that do not.
WORDS = st.text(alphabet=list("ab \t\n\\'\"{}é"), max_size=12)


def _splits(run: str) -> bool:
    try:
        return bool(shlex.split(run))
    except ValueError:
        return False


def _invoke(args: list[str]):
    """The CLI in this process; a Ctrl-C (scripts/fuzz.sh stops a test with
    SIGINT), which the CLI reports as exit 130, is raised again."""
    r = CliRunner().invoke(cli, args)
    if r.exit_code == 130:
        raise KeyboardInterrupt
    return r


@given(WORDS)
def test_fuzz_the_engine_splits_commands_as_shlex(run: str) -> None:
    """validate.rs's check and `hoplab emu`'s shlex.split agree: a command
    the engine accepts always splits into at least one word, and one it
    refuses never does."""
    sc = dict(BASE, emulation={"nodes": [0, 2], "commands": [{"node": 0, "run": run}]})
    try:
        _core.emulation_table(json.dumps(sc), "json")
        accepted = True
    except _core.ScenarioError as e:
        assert e.field == "emulation.commands[0].run", e
        accepted = False
    assert accepted == _splits(run), (run, accepted)


_NUM = st.one_of(st.integers(-3, 70000), st.floats(allow_nan=True, allow_infinity=True), st.just(0.05), st.text(max_size=3))
TABLES = st.fixed_dictionaries({}, optional={
    "nodes": st.lists(st.one_of(st.integers(-1, 4), st.just(70000)), max_size=4),
    "namespaces": st.lists(st.one_of(st.just(""), st.text(max_size=6), st.just("a/b"), st.just("..")), max_size=3),
    "lookahead_ms": _NUM, "lag_threshold_ms": _NUM, "spin_us": _NUM,
    "on_lag": st.sampled_from(["warn", "abort", "panic", 1]),
    "realtime": st.one_of(st.booleans(), st.integers(0, 1)),
    "commands": st.lists(st.fixed_dictionaries({}, optional={
        "node": st.integers(-1, 4), "run": WORDS, "start_s": _NUM, "wait": st.one_of(st.booleans(), st.just("yes")),
    }), max_size=3),
    "bogus": st.just(1),
})


@given(TABLES)
def test_fuzz_emulation_tables_are_accepted_or_named_in_one_line(table: dict) -> None:
    from hoplab.emu import config as C

    with tempfile.TemporaryDirectory() as d:
        sc = Path(d) / "sc.json"
        sc.write_text(json.dumps(dict(BASE, emulation=table)))
        r = _invoke(["validate", str(sc)])
        assert r.exit_code in (0, 2), (r.exit_code, r.output, r.exception)
        if r.exit_code == 2:
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"hoplab: error: {sc}"), r.stderr
            return
        cfg = C.read(sc.read_text(), "json")
        assert cfg is not None and all(_splits(c.run) for c in cfg.commands), cfg


# -- a saved run's files -----------------------------------------------------------

@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One synthetic run directory per module, copied for each example."""
    return synthetic_run(tmp_path_factory.mktemp("fuzz-emu") / "run")


def _replay(d: Path):
    return _invoke(["emu", "--replay", str(d)])


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                           max_leaves=6)
KEYS = ["seed", "nodes", "horizon_ns", "event_hash", "scenario_json", "t0_ns"]
META_OPS = st.lists(st.one_of(
    st.tuples(st.just("set"), st.sampled_from(KEYS), JSON_VALUES),
    st.tuples(st.just("drop"), st.sampled_from(KEYS)),
    st.tuples(st.just("cut"), st.integers(0, 4000)),
    st.tuples(st.just("flip"), st.integers(0, 4000), st.integers(1, 255)),
), min_size=1, max_size=3)


@given(META_OPS)
def test_fuzz_a_damaged_emu_json_replays_or_is_named(pristine: Path, ops: list) -> None:
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(pristine, run)
        path = run / "emu.json"
        for op in ops:
            raw = path.read_bytes()
            if op[0] in ("set", "drop"):
                try:
                    meta = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(meta, dict):
                    continue
                if op[0] == "set":
                    meta[op[1]] = op[2]
                else:
                    meta.pop(op[1], None)
                path.write_text(json.dumps(meta))
            elif op[0] == "cut":
                path.write_bytes(raw[: op[1] % (len(raw) + 1)])
            else:
                b = bytearray(raw)
                if b:
                    b[op[1] % len(b)] ^= op[2]
                path.write_bytes(bytes(b))
        r = _replay(run)
        assert r.exit_code in (0, 1, 2), (r.exit_code, r.output, r.exception)
        if r.exit_code == 1:
            assert ": DIFFERENT" in r.stdout  # a valid change (another seed, a shorter horizon): another run
        if r.exit_code == 2:
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"hoplab: error: {path}: "), r.stderr


LOG_OPS = st.lists(st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10_000)),
    st.tuples(st.just("append"), st.binary(min_size=1, max_size=40)),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.binary(min_size=1, max_size=8)),
), min_size=1, max_size=3)


@given(LOG_OPS)
def test_fuzz_a_damaged_ingress_log_is_named_with_its_byte(pristine: Path, ops: list) -> None:
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(pristine, run)
        path = run / "ingress.log"
        good = path.read_bytes()
        b = bytearray(good)
        for op in ops:
            if op[0] == "flip" and b:
                b[op[1] % len(b)] ^= op[2]
            elif op[0] == "cut":
                del b[op[1] % (len(b) + 1):]
            elif op[0] == "append":
                b += op[1]
            elif op[0] == "insert":
                at = op[1] % (len(b) + 1)
                b[at:at] = op[2]
        path.write_bytes(bytes(b))
        r = _replay(run)
        if bytes(b) == good:
            assert r.exit_code == 0 and ": same" in r.stdout, r.output
            return
        if b[:8] == good[:8] and b[8:12] == b"\x01\0\0\0":
            # Turned into format 1 (no checksums): read as such, the records misaligned.
            assert r.exit_code in (0, 1, 2), (r.exit_code, r.output, r.exception)
            return
        assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hoplab: error: {path}: byte "), r.stderr


# -- signals at random moments of a live run ---------------------------------------

def _signals_script():
    spec = importlib.util.spec_from_file_location("emu_signals", ROOT / "scripts" / "emu_signals.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(missing() is not None, reason=f"live emulation {missing()}")
@settings(max_examples=10_000_000 if LONG else 4)
@given(st.sampled_from([signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL]), st.floats(0.0, 4.5),
       st.integers(0, 99))
def test_fuzz_signals_at_random_moments_leave_nothing_and_keep_the_run(sig: int, at_s: float, k: int) -> None:
    """scripts/emu_signals.py's one run and its rules (its main runs 20 per signal)."""
    m = _signals_script()
    with tempfile.TemporaryDirectory(prefix="hoplab-fuzz-emu-") as d:
        row = m.one(Path(d), signal.Signals(sig), at_s, 41_000_000 + k)
    kind, ok = m.verdict(row)
    assert ok, (kind, row)
