"""Signals at random moments of a live `hoplab emu` run, and what is left.

For each of SIGTERM, SIGHUP, SIGINT and SIGKILL, N runs (default 20), each
sent the signal at a moment drawn uniformly from the first 4.5 s after the
process starts (start-up, the run, its save and, now and then, after its
end). A run is a 1-hop chain with UDP probes both ways and a command that
detaches a child (`setsid -f sleep`), the one thing a process group and the
parent-death signal miss. After each run:

- nothing is left: no process carrying the run's id (its commands and what
  they started), no process in or holding one of its namespaces (so they
  and their TUN devices are gone), no hoplab TUN device in this namespace;
- a run not SIGKILLed exited as its end would (0 if the signal came after
  it, 128 + the signal if it stopped the run) and, when it wrote emu.json,
  replays to its event hash;
- a signal before hoplab took over (interpreter start-up) ends it with
  nothing written; counted apart.

    .venv/bin/python scripts/emu_signals.py [--runs 20] [--seed 1] [--signals TERM,HUP,INT,KILL]

Needs root (or CAP_NET_ADMIN), /dev/net/tun and nsenter. Exit 1 if any run
broke a rule above; one line per run and a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))

from _emu_util import ENV, PY, carrying, chain_toml, hoplab, hoplab_links, missing, ns_holders  # noqa: E402

#: Start-up takes ~1 s and the run ~3 s more (150 probes 15 ms apart): most
#: moments fall in the run, a few in start-up and after the end.
WINDOW_S = 4.5


def scenario(marker: int) -> str:
    return chain_toml(1, 5.0, f"""[emulation]
nodes = [0, 1]
[[emulation.commands]]
node = 1
run = "{PY} udp-recv --port 6001 --count 150 --timeout 2"
[[emulation.commands]]
node = 0
run = "{PY} udp-send 10.0.0.2 --port 6001 --count 150 --interval-ms 15"
start_s = 0.2
[[emulation.commands]]
node = 1
run = "setsid -f sleep {marker}"
wait = false
""")


def _marked(marker: int) -> list[int]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if f"sleep\0{marker}".encode() in (p / "cmdline").read_bytes():
                    found.append(int(p.name))
            except OSError:
                pass
    return found


def one(tmp: Path, sig: signal.Signals, at_s: float, marker: int) -> dict:
    """One run sent `sig` `at_s` after its start: what happened, what is left."""
    sc = tmp / "sc.toml"
    sc.write_text(scenario(marker))
    out = tmp / "run"
    p = subprocess.Popen([sys.executable, "-m", "hoplab", "emu", str(sc), "-o", str(out)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV)
    t0 = time.monotonic()
    keys: set[tuple[int, int]] = set()

    def look() -> None:  # the namespaces' keys, read while hoplab holds them
        f = out / "namespaces.json"
        if keys or not f.exists():
            return
        try:
            for v in json.loads(f.read_text()).values():
                st = os.stat(v["enter"].split("=", 1)[1])
                keys.add((st.st_dev, st.st_ino))
        except (OSError, ValueError):
            pass

    sent = False
    while p.poll() is None and time.monotonic() - t0 < at_s:
        look()
        time.sleep(0.005)
    if p.poll() is None:
        p.send_signal(sig)
        sent = True
    while p.poll() is None:
        look()
        time.sleep(0.005)
    _, err = p.communicate(timeout=60)
    rid = f"{p.pid}-"
    left: dict[str, list] = {}
    end = time.monotonic() + 10
    while True:  # give the watchdog and the kernel a moment
        left = {"processes": carrying(rid) + _marked(marker), "namespace holders": ns_holders(keys),
                "tun devices": hoplab_links()}
        if not any(left.values()) or time.monotonic() > end:
            break
        time.sleep(0.1)
    row = {"signal": sig.name, "at_s": round(at_s, 3), "sent": sent, "status": p.returncode,
           "saved": (out / "emu.json").exists(), "left": {k: v for k, v in left.items() if v}, "replay": None,
           "stderr": err.strip().splitlines()[-1:] if err.strip() else []}
    for pid in left["processes"]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if sig != signal.SIGKILL and row["saved"]:
        r = hoplab("emu", "--replay", str(out))
        row["replay"] = "same" if r.returncode == 0 and ": same" in r.stdout else (r.stdout + r.stderr).strip()[-200:]
    return row


def verdict(row: dict) -> tuple[str, bool]:
    """(what kind of outcome, whether it keeps the rules)."""
    if row["left"]:
        return "left something", False
    sig = signal.Signals[row["signal"]]
    status = row["status"]
    if sig == signal.SIGKILL:
        return ("killed" if status == -9 else "ended before the signal"), status in (-9, 0)
    if not row["sent"] or status == 0:
        return "ended before the signal", status == 0 and row["replay"] == "same"
    if status == 128 + sig:
        if row["saved"]:
            return "stopped, saved", row["replay"] == "same"
        return "stopped before the run", True
    if status == -sig and row["saved"]:
        # After the command, its handlers gone, in the interpreter's exit: the run was whole and saved.
        return "ended before the signal", row["replay"] == "same"
    # Before hoplab's handlers were in place (the interpreter starting): the default action, nothing written.
    return "before take-over", status == -sig and not row["saved"]


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--runs", type=int, default=20)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--signals", default="TERM,HUP,INT,KILL")
    args = a.parse_args()
    if missing():
        print(f"emu_signals: {missing()}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    sigs = [signal.Signals["SIG" + s.strip().upper()] for s in args.signals.split(",")]
    summary: dict[tuple[str, str], int] = {}
    bad = 0
    for sig in sigs:
        for k in range(args.runs):
            at = rng.uniform(0.0, WINDOW_S)
            with tempfile.TemporaryDirectory(prefix="hoplab-emu-signals-") as d:
                row = one(Path(d), sig, at, 40_000_000 + os.getpid() % 1000 * 100 + k)
            kind, ok = verdict(row)
            bad += not ok
            summary[(sig.name, kind)] = summary.get((sig.name, kind), 0) + 1
            print(f"{'ok ' if ok else 'BAD'} {sig.name:7} at {row['at_s']:5.3f} s: exit {row['status']}, {kind}"
                  f"{', replay ' + str(row['replay']) if row['replay'] else ''}"
                  f"{', left ' + json.dumps(row['left']) if row['left'] else ''}", flush=True)
    print("summary:")
    for (name, kind), n in sorted(summary.items()):
        print(f"  {name:7} {kind}: {n}")
    print(f"{len(sigs) * args.runs} runs, {bad} broke a rule")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
