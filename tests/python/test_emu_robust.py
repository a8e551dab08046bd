"""`hoplab emu` on bad input and against the world: commands that do not
split or that detach, two sessions on one directory, re-runs, damaged or
missing saved files, `cleanup` beside a live run, SIGTERM and SIGHUP, and
`reproduce seed000 --real`'s option ranges. Each case: one line naming the
file or field, exit 2; or a run that ends, is saved and replays.

The live tests need root (or CAP_NET_ADMIN), /dev/net/tun and nsenter, and
are skipped elsewhere, as in test_emu.py.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._emu_util import (ENV, carrying, chain_toml, udp_pair, hoplab, ingress_log, missing, ns_holders, one_line_error,
                        synthetic_run)

live = pytest.mark.skipif(missing() is not None, reason=f"live emulation {missing()}")


def _cli(tmp: Path, toml: str, *args: str):
    from click.testing import CliRunner

    from hoplab.cli import cli

    sc = tmp / "sc.toml"
    sc.write_text(toml)
    return sc, CliRunner().invoke(cli, [args[0], str(sc), *args[1:]])


# -- commands that do not split ------------------------------------------------------

@pytest.mark.parametrize("run, why", [
    ("echo 'unbalanced", "a single quote (') is not closed"),
    ('echo "unbalanced', 'a double quote (") is not closed'),
    ('echo "a \\"', 'a double quote (") is not closed'),
    ("echo trailing\\", "ends with an escaping \\"),
])
def test_a_command_that_does_not_split_is_refused_by_validate_and_emu(tmp_path: Path, run: str, why: str) -> None:
    toml = chain_toml(1, 5.0, f"[emulation]\nnodes = [0, 1]\n[[emulation.commands]]\nnode = 0\nrun = 'sleep 1'\n"
                              f"[[emulation.commands]]\nnode = 1\nrun = {json.dumps(run)}\n")
    with pytest.raises(ValueError):
        shlex.split(run)  # the splitter `hoplab emu` uses
    for command in ("validate", "emu"):
        sc, r = _cli(tmp_path, toml, command)
        line = one_line_error(r, str(sc), "emulation.commands[1].run: ")
        assert why in line, line


def test_what_splits_is_accepted() -> None:
    from hoplab.emu import config as C

    for run in ("echo 'a b' \"c d\" e\\ f", "echo \"it's\"", "echo 'a\\'", "echo \"a \\\" b\""):
        shlex.split(run)
        toml = chain_toml(1, 5.0, f"[emulation]\nnodes = [0, 1]\n[[emulation.commands]]\nnode = 1\nrun = {json.dumps(run)}\n")
        assert C.read(toml, "toml").commands[0].run == run


# -- damaged or missing saved files (no privileges needed: a run made without one) ---

def test_the_synthetic_run_replays(tmp_path: Path) -> None:
    d = synthetic_run(tmp_path / "run")
    r = hoplab("emu", "--replay", str(d))
    assert r.returncode == 0 and ": same" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("damage, says", [
    (lambda m, raw: raw[: len(raw) // 2], "not valid JSON: "),
    (lambda m, raw: b"\xff\xfe" + raw, "not valid JSON: not UTF-8 at byte 0"),
    (lambda m, raw: b"[1, 2]", "not a JSON object"),
    (lambda m, raw: {k: v for k, v in m.items() if k != "seed"}, "seed: missing"),
    (lambda m, raw: {**m, "seed": "one"}, 'seed: "one" is not a seed'),
    (lambda m, raw: {**m, "seed": -1}, "seed: -1 is not a seed"),
    (lambda m, raw: {**m, "horizon_ns": 1.5}, "horizon_ns: 1.5 is not a time in ns"),
    (lambda m, raw: {**m, "horizon_ns": 2 ** 70}, "horizon_ns: "),
    (lambda m, raw: {**m, "nodes": [0, 9]}, "nodes: [0, 9] are not the scenario's real nodes [0, 1]"),
    (lambda m, raw: {**m, "nodes": "0,1"}, 'nodes: "0,1" is not a list of nodes'),
    (lambda m, raw: {**m, "event_hash": 12}, "event_hash: 12 is not an event hash"),
    (lambda m, raw: {**m, "scenario_json": "{"}, "scenario_json: "),
    (lambda m, raw: {**m, "scenario_json": json.dumps({"duration_s": 1.0})}, "scenario_json: "),
])
def test_a_damaged_emu_json_is_one_line_naming_it(tmp_path: Path, damage, says: str) -> None:
    d = synthetic_run(tmp_path / "run")
    raw = (d / "emu.json").read_bytes()
    bad = damage(json.loads(raw), raw)
    (d / "emu.json").write_bytes(bad if isinstance(bad, bytes) else json.dumps(bad).encode())
    line = one_line_error(hoplab("emu", "--replay", str(d)), f"{d / 'emu.json'}: ")
    assert says in line, line


def test_a_missing_ingress_log_is_named(tmp_path: Path) -> None:
    d = synthetic_run(tmp_path / "run")
    (d / "ingress.log").unlink()
    line = one_line_error(hoplab("emu", "--replay", str(d)), f"{d / 'ingress.log'}: missing")


def _log_error(d: Path) -> str:
    return one_line_error(hoplab("emu", "--replay", str(d)), f"{d / 'ingress.log'}: byte ")


def test_a_flipped_byte_in_the_ingress_log_is_found_with_its_offset(tmp_path: Path) -> None:
    d = synthetic_run(tmp_path / "run")
    log = bytearray((d / "ingress.log").read_bytes())
    second = 12 + 16 + (log[24] | log[25] << 8) + 4  # the second record's first byte
    for at in (second + 16 + 30, second + 5, second + 13):  # its payload, its time, its length
        bad = bytearray(log)
        bad[at] ^= 0x01
        (d / "ingress.log").write_bytes(bad)
        line = _log_error(d)
        assert f"byte {second}: record 1" in line and ("checksum does not match" in line or "cut short" in line
                                                       or "more than an IP packet" in line), line


def test_bytes_after_the_end_and_a_cut_are_found(tmp_path: Path) -> None:
    d = synthetic_run(tmp_path / "run")
    log = (d / "ingress.log").read_bytes()
    # A record appended after the trailer (as a second writer would).
    extra = ingress_log([(0, 40_000_000, b"\x45" + b"\0" * 27)])[12:]
    (d / "ingress.log").write_bytes(log + extra)
    assert f"byte {len(log)}: {len(extra)} bytes after the trailer" in _log_error(d)
    (d / "ingress.log").write_bytes(log[:-16])  # no trailer: cut where a killed run stops
    assert f"byte {len(log) - 16}: ends without its trailer" in _log_error(d)
    (d / "ingress.log").write_bytes(log[:40])
    assert "byte 12: record 0 is cut short" in _log_error(d)


def test_an_old_format_1_log_is_still_read(tmp_path: Path) -> None:
    """Format 1 (before checksums): the same records, no CRC, no trailer."""
    import struct

    d = synthetic_run(tmp_path / "run")
    from hoplab import _core

    recs = _core.ingress_log(str(d / "ingress.log"))
    v1 = b"HOPLABIN" + struct.pack("<I", 1) + b"".join(struct.pack("<IQI", n, t, len(b)) + b for n, t, b in recs)
    (d / "ingress.log").write_bytes(v1)
    r = hoplab("emu", "--replay", str(d))
    assert r.returncode == 0 and ": same" in r.stdout, r.stdout + r.stderr
    (d / "ingress.log").write_bytes(b"HOPLABIN" + struct.pack("<I", 7))
    assert "byte 8: ingress log format 7 is not one this hoplab reads" in _log_error(d)


# -- reproduce seed000 --real: its option ranges ----------------------------------

@pytest.mark.parametrize("duration, says", [
    ("0.001", "--duration 0.001 s is shorter than a TCP handshake may take with --real"),
    ("0.5", "--duration 0.5 s is shorter than"),
    ("1e7", "--duration 1e+07 s is too long for --real"),
    ("3601", "--duration 3601 s is too long for --real"),
])
def test_seed000_real_refuses_a_transfer_too_short_or_too_long(monkeypatch: pytest.MonkeyPatch, duration: str,
                                                              says: str) -> None:
    from click.testing import CliRunner

    from hoplab.cli import cli
    from hoplab.papers.seed000 import real as R

    def never(*a, **k):
        raise AssertionError("ran a transfer")

    monkeypatch.setattr(R, "real_run", never)
    r = CliRunner().invoke(cli, ["reproduce", "seed000", "--real", "--duration", duration])
    assert says in one_line_error(r, "1 to 3600 s")


def test_seed000_real_report_without_traffic_says_so() -> None:
    """A cell with no traffic (a failed transfer, a simulated 0) is not a "nan%"."""
    import pandas as pd

    from hoplab.papers.seed000 import real as R

    rows = [{"hops": h, "max_cwnd": w, "runs": 1, "real_kbps": 100.0 if h > 1 else 0.0, "real_ci_low_kbps": float("nan"),
             "real_ci_high_kbps": float("nan"), "real_min_kbps": 100.0, "real_max_kbps": 100.0,
             "real_acks_per_segment": 1.0, "simulated_linux_kbps": 0.0, "testbed_kbps": 1.0}
            for h in R.HOPS for w in R.WINDOWS]
    runs = pd.DataFrame([{c: 0 for c in R.RUN_COLUMNS} | {"hops": h, "max_cwnd": w, "goodput_kbps": 100.0}
                         for h in R.HOPS for w in R.WINDOWS])
    text = R.report(pd.DataFrame(rows), runs, replicas=1, seconds=1.0)
    assert "nan%" not in text
    assert "simulated Linux receiver: n/a (no traffic)" in text


# -- live: detached children, one session per directory, re-runs, signals, cleanup --

def _start(tmp: Path, toml: str, out: Path, *args: str) -> subprocess.Popen[str]:
    sc = tmp / f"sc-{out.name}.toml"
    sc.write_text(toml)
    return subprocess.Popen([sys.executable, "-m", "hoplab", "emu", str(sc), "-o", str(out), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def _wait_running(out: Path, p: subprocess.Popen[str] | None = None) -> dict:
    """namespaces.json of a run that has started its commands."""
    for _ in range(400):
        f = out / "namespaces.json"
        if f.exists() and (out / "commands").exists():
            try:
                return json.loads(f.read_text())
            except ValueError:
                pass
        assert p is None or p.poll() is None, p.communicate()
        time.sleep(0.025)
    raise AssertionError("the run did not start")


def _ns_keys(ns: dict) -> set[tuple[int, int]]:
    keys = set()
    for v in ns.values():
        st = os.stat(v["enter"].split("=", 1)[1])
        keys.add((st.st_dev, st.st_ino))
    return keys


def _gone(keys: set[tuple[int, int]], marker: str, wait_s: float = 10.0) -> tuple[list[int], list[int]]:
    """(processes holding the namespaces, processes carrying the marker), after waiting for them to go."""
    end = time.monotonic() + wait_s
    while True:
        held, left = ns_holders(keys), _marked(marker)
        if not held and not left or time.monotonic() > end:
            return held, left
        time.sleep(0.1)


def _marked(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (what a test started in a namespace)."""
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker.encode() in (p / "cmdline").read_bytes():
                    found.append(int(p.name))
            except OSError:
                pass
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _replays(out: Path) -> None:
    r = hoplab("emu", "--replay", str(out))
    assert r.returncode == 0 and ": same" in r.stdout, r.stdout + r.stderr


@live
def test_a_detached_child_does_not_outlive_the_run(tmp_path: Path) -> None:
    """`setsid` puts a command's child out of its process group and out of
    PR_SET_PDEATHSIG's reach; the run still ends it, and so its namespace goes."""
    marker = f"31{os.getpid() % 1000:03d}7"  # a unique `sleep` length to find it by
    toml = chain_toml(1, 30.0, f"""[emulation]
nodes = [0, 1]
[[emulation.commands]]
node = 1
run = "setsid -f sleep {marker}"
wait = false
[[emulation.commands]]
node = 0
run = "sleep 1.5"
""")
    p = _start(tmp_path, toml, tmp_path / "run")
    try:
        keys = _ns_keys(_wait_running(tmp_path / "run", p))
        p.wait(timeout=60)
        assert p.returncode == 0, p.stderr.read()
        held, left = _gone(keys, marker)
        assert not left, f"the detached `sleep {marker}` outlived the run"
        assert not held, "a namespace of the run outlived it"
    finally:
        _kill(_marked(marker))


def _killed_with_a_detached_child(tmp: Path, marker: str, *, watchdog_too: bool) -> tuple[set[tuple[int, int]], int]:
    """Start a run whose command detaches `sleep MARKER`, SIGKILL hoplab
    (and its watchdog first, if asked); the run's namespace keys and hoplab's pid."""
    toml = chain_toml(1, 30.0, f'[emulation]\nnodes = [0, 1]\n[[emulation.commands]]\nnode = 1\nrun = "setsid -f sleep {marker}"\n'
                               'wait = false\n[[emulation.commands]]\nnode = 0\nrun = "sleep 20"\n')
    p = _start(tmp, toml, tmp / "run")
    keys = _ns_keys(_wait_running(tmp / "run", p))
    for _ in range(100):
        if _marked(marker):
            break
        time.sleep(0.05)
    if watchdog_too:
        dog = _marked("hoplab.emu.watchdog")
        dog = [d for d in dog if f"{p.pid}-".encode() in Path(f"/proc/{d}/cmdline").read_bytes()]
        assert len(dog) == 1, dog
        _kill(dog)
    p.kill()
    p.wait(timeout=20)
    return keys, p.pid


def _cleanup_alone() -> subprocess.CompletedProcess[str]:
    """`hoplab emu cleanup` with a private, empty /run/netns: the `ip netns`
    names of other sessions on this machine are not this test's to remove."""
    script = f"mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns && exec {shlex.quote(sys.executable)} -m hoplab emu cleanup"
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, env=ENV, timeout=60)


@live
def test_a_detached_child_goes_even_after_sigkill(tmp_path: Path) -> None:
    """hoplab's watchdog sees it die (end of file on a pipe) and ends what
    carries the run's id."""
    from hoplab.emu import registry

    marker = f"33{os.getpid() % 1000:03d}7"
    try:
        keys, pid = _killed_with_a_detached_child(tmp_path, marker, watchdog_too=False)
        held, left = _gone(keys, marker)
        assert not left and not held
        # the watchdog removes the pid file after it has ended the processes: give it the same 10 s
        end = time.monotonic() + 10.0
        while list(registry.run_dir().glob(f"{pid}-*.json")) and time.monotonic() < end:
            time.sleep(0.1)
        assert not list(registry.run_dir().glob(f"{pid}-*.json")), "the watchdog removed the run's pid file"
    finally:
        _kill(_marked(marker))


@live
def test_cleanup_ends_what_a_killed_run_left(tmp_path: Path) -> None:
    """With the watchdog killed too, nothing of the run can act; `emu
    cleanup` finds the detached child by the run id it carries, and its
    namespace goes."""
    marker = f"32{os.getpid() % 1000:03d}7"
    try:
        keys, _ = _killed_with_a_detached_child(tmp_path, marker, watchdog_too=True)
        time.sleep(0.5)
        assert _marked(marker), "the detached child survives (the case cleanup is for)"
        r = _cleanup_alone()
        assert r.returncode == 0, r.stderr
        assert "killed 1 process(es) left by runs that are gone" in r.stdout, r.stdout
        held, left = _gone(keys, marker)
        assert not left and not held
    finally:
        _kill(_marked(marker))


@live
def test_a_second_session_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    toml = chain_toml(1, 30.0, '[emulation]\nnodes = [0, 1]\n[[emulation.commands]]\nnode = 0\nrun = "sleep 2"\n')
    out = tmp_path / "run"
    first = _start(tmp_path, toml, out)
    try:
        _wait_running(out, first)
        second = hoplab("emu", str(tmp_path / "sc-run.toml"), "-o", str(out), timeout=60)
        line = one_line_error(second, f"{out}: in use by another `hoplab emu` (pid {first.pid})")
        assert line.endswith("give another -o")
        first.wait(timeout=60)
        assert first.returncode == 0, first.stderr.read()
        _replays(out)
    finally:
        first.kill()


@live
def test_a_rerun_keeps_the_whole_earlier_run(tmp_path: Path) -> None:
    toml = chain_toml(1, 5.0, "[emulation]\nnodes = [0, 1]\n" + udp_pair(20, 3, start_s=0.2))
    out = tmp_path / "run"
    sc = tmp_path / "sc.toml"
    sc.write_text(toml)
    assert hoplab("emu", str(sc), "-o", str(out)).returncode == 0
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".emu.lock"}
    r = hoplab("emu", str(sc), "-o", str(out))
    assert r.returncode == 0, r.stderr
    (prev,) = (out / "previous").iterdir()
    assert f"the earlier run in {out} is kept in {prev}" in r.stderr
    kept = {p.relative_to(prev): p.read_bytes() for p in prev.rglob("*") if p.is_file()}
    assert kept == first, "previous/ holds the whole earlier run, byte for byte"
    for name in ("ingress.log", "emu.json", "emu.csv", "namespaces.json", "commands/node1-0.log", "nodes.csv", "MANIFEST.json"):
        assert Path(name) in kept, name
    _replays(prev)
    _replays(out)


@live
@pytest.mark.parametrize("sig, status, ended", [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hangup"),
                                                (signal.SIGINT, 130, "interrupted")])
def test_sigterm_and_sighup_end_the_run_as_its_end_would(tmp_path: Path, sig: int, status: int, ended: str) -> None:
    toml = chain_toml(1, 60.0, "[emulation]\nnodes = [0, 1]\n" + udp_pair(1000, 30))
    out = tmp_path / "run"
    p = _start(tmp_path, toml, out)
    keys = _ns_keys(_wait_running(out, p))
    time.sleep(1.0)
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == status, err
    assert err.strip().splitlines()[-1] == ("hoplab: interrupted" if sig == signal.SIGINT else
                                            f"hoplab: stopped by {signal.Signals(sig).name}"), err
    meta = json.loads((out / "emu.json").read_text())
    assert meta["emu"]["ended"] == ended and meta["emu"]["packets_in"] > 10
    _replays(out)
    held, _ = _gone(keys, "\0never\0")
    assert not held


@live
def test_cleanup_keeps_a_namespace_a_live_run_uses(tmp_path: Path) -> None:
    """In a mount namespace of its own, so that the `ip netns` names it adds
    and removes are this test's only (other sessions' stay untouched); they
    go with it."""
    name = f"hoplab-keep-{os.getpid()}"
    toml = chain_toml(1, 60.0, f'[emulation]\nnodes = [0, 1]\nnamespaces = ["", "{name}"]\n'
                               '[[emulation.commands]]\nnode = 1\nrun = "sleep 30"\n')
    (tmp_path / "sc.toml").write_text(toml)
    out = tmp_path / "run"
    script = f"""
set -u
mkdir -p /run/netns
mount -t tmpfs tmpfs /run/netns
ip netns add {name}
ip netns add hoplab-stale-{os.getpid()}
{shlex.quote(sys.executable)} -m hoplab emu {tmp_path}/sc.toml -o {out} >{tmp_path}/emu.out 2>&1 &
emu=$!
for _ in $(seq 400); do [ -e {out}/commands ] && break; sleep 0.025; done
echo "== during"
{shlex.quote(sys.executable)} -m hoplab emu cleanup
ip netns list | cut -d' ' -f1
kill -TERM $emu; wait $emu; echo "== status $?"
{shlex.quote(sys.executable)} -m hoplab emu cleanup
echo "== after"
ip netns list | cut -d' ' -f1
"""
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    during, rest = r.stdout.split("== during\n")[1].split("== status ")
    status, after = rest.split("\n", 1)
    assert f"kept namespace {name}: a live run uses it (pid " in during, during
    assert f"removed 1 namespace(s): hoplab-stale-{os.getpid()}" in during, during
    assert name in during.split(), "the live run's namespace is still listed"
    assert status.strip() == "143", (tmp_path / "emu.out").read_text()
    assert f"removed 1 namespace(s): {name}" in after, after
    assert name not in after.split("== after")[1].split()
    _replays(out)
