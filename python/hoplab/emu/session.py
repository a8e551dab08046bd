"""A live emulation: devices up (the engine's hoplab_emu), the commands
started in their namespaces, the run, the results saved with the ingress
log; and the replay of a saved run in pure simulation.

Nothing outlives the run: the namespaces are unnamed and held only by this
process' file descriptors, the TUN devices are not persistent, and every
command gets SIGKILL when this process dies (PR_SET_PDEATHSIG), so even a
SIGKILL of `hoplab emu` leaves no namespace, device or process behind. At
the run's end every process still in one of its fresh namespaces, or
carrying its id, is killed too (reap.py): a command's child that detached
itself (setsid) is in neither its process group nor under its death signal.
SIGINT, SIGTERM and SIGHUP end the run as its end would (signals.py).
"""

from __future__ import annotations

import ctypes
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import _core
from . import reap, registry
from .config import EmuConfig, node_addr
from .signals import ENDED, Caught

__all__ = ["EMU_COLUMNS", "LOG_NAME", "META_NAME", "ReplayError", "live", "replay", "SUSTAINED_EVENTS_PER_S"]

LOG_NAME = "ingress.log"
META_NAME = "emu.json"

#: Events per simulated second the engine sustains on this kind of machine
#: (validation/speed.py, the 4-hop chain: about 0.8-1.0 million events/s of
#: wall time on one loaded core). The preflight keeps a scenario's estimated
#: rate under a fifth of it: the rest is the driver's, the real stacks' and
#: the machine's.
SUSTAINED_EVENTS_PER_S = 800_000
PREFLIGHT_SHARE = 0.2

#: The `emu` table's columns, in order.
EMU_COLUMNS = [
    "ended", "packets_in", "packets_out", "write_drops", "dropped_not_ipv4", "dropped_malformed",
    "dropped_unknown_destination", "writes", "lateness_p50_us", "lateness_p90_us", "lateness_p99_us",
    "lateness_max_us", "lag_episodes", "lag_worst_ms", "lag_total_ms", "steps", "max_step_us",
]

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """In the child: SIGKILL when hoplab dies (prctl(2) PR_SET_PDEATHSIG)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def preflight(scenario_json: str) -> str | None:
    """Why the engine cannot keep up with the scenario in real time, or None."""
    c = _core.estimate_cost_json(scenario_json)
    rate = float(c["events_per_s"])
    limit = SUSTAINED_EVENTS_PER_S * PREFLIGHT_SHARE
    if rate > limit:
        return (f"estimated {rate:,.0f} events per simulated second; real time allows at most {limit:,.0f} "
                f"(a fifth of the ~{SUSTAINED_EVENTS_PER_S:,} events/s the engine sustains): fewer nodes or flows")
    return None


class _Commands:
    """The [emulation] commands, each in its node's namespace and its own
    process group, its output in `commands/nodeN-K.log`; each carries the
    run's id in its environment (registry.ENV)."""

    def __init__(self, cfg: EmuConfig, out: Path, rid: str) -> None:
        self.cfg = cfg
        self.out = out
        self.rid = rid
        self.ns: dict[int, str] = {}
        #: The run's fresh namespaces, (device, inode): every process in one is the run's.
        self.fresh: set[reap.NsKey] = set()
        self.procs: list[tuple[Any, subprocess.Popen[bytes], Any]] = []

    def ready(self, info: list[tuple[int, int, int, str]]) -> None:
        """Start every command now, before the real-time loop: a fork of this
        process takes milliseconds, which the loop must not spend. A delayed
        one sleeps in a shell that then execs it (PR_SET_PDEATHSIG survives
        exec, so it still dies with hoplab)."""
        named = dict(zip(self.cfg.nodes, self.cfg.namespaces))
        for node, pid, fd, _ifname in info:
            self.ns[node] = f"/proc/{pid}/fd/{fd}"
            key = reap.ns_key(self.ns[node])
            if not named.get(node) and key is not None:
                self.fresh.add(key)
        (self.out / "namespaces.json").write_text(json.dumps(
            {str(n): {"enter": f"nsenter --net={p}", "address": node_addr(n)} for n, p in self.ns.items()}, indent=2) + "\n")
        (self.out / "commands").mkdir(exist_ok=True)
        env = {**os.environ, registry.ENV: self.rid}
        for k, c in enumerate(self.cfg.commands):
            # The engine checked that it splits (scenario/validate.rs); the words are the command's own.
            argv = [a.replace("{python}", sys.executable) for a in shlex.split(c.run)]
            if c.start_s > 0:
                argv = ["sh", "-c", f'sleep {c.start_s:.6f} && exec "$@"', "sh", *argv]
            log = open(self.out / "commands" / f"node{c.node}-{k}.log", "wb")
            p = subprocess.Popen(["nsenter", f"--net={self.ns[c.node]}", "--", *argv], stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent, start_new_session=True, env=env)
            self.procs.append((c, p, log))

    def poll(self) -> bool:
        """True when the run should stop: every waited-for command ended."""
        waited = [p for c, p, _ in self.procs if c.wait]
        return bool(waited) and all(p.poll() is not None for p in waited)

    def stop(self, grace_s: float = 2.0) -> list[tuple[int, str, int | None]]:
        """End what still runs: SIGTERM to each command's process group, SIGKILL
        to whatever is left after `grace_s`, then to every process still in a
        fresh namespace of the run or carrying its id. (node, command, exit
        status) of each command."""
        for _, p, _ in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + grace_s
        for _, p, _ in self.procs:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        reap.kill_all(self.fresh, self.rid)
        res = []
        for c, p, log in self.procs:
            log.close()
            res.append((c.node, c.run, p.returncode))
        return res


def live(scenario_json: str, cfg: EmuConfig, seed: int | None, out: Path, *, stall: tuple[float, float] | None = None,
         rid: str | None = None, caught: Caught | None = None) -> dict[str, Any]:
    """Run `scenario_json` live (the engine reads its [emulation] table;
    `cfg` is that table as `config.read` gave it, for the commands); save
    the results into `out`. `rid`: the run's id (registry.run_id). SIGINT,
    SIGTERM and SIGHUP stop the run, which is saved as at its end; "signal"
    in the result says which came (`caught`: the caller's, already in
    place, with a signal that came before the run perhaps). Returns {"emu",
    "result", "commands", "meta", "signal"}."""
    from .._io import atomic_write_bytes
    from ..result import Result, event_hash_text
    from . import watchdog

    out.mkdir(parents=True, exist_ok=True)
    cmds = _Commands(cfg, out, rid or registry.run_id())
    ns_stall = None if stall is None else (int(stall[0] * 1e9), int(stall[1] * 1e9))
    with (Caught() if caught is None else nullcontext(caught)) as caught:
        def poll() -> bool:
            return caught.signum is not None or cmds.poll()

        guard = watchdog.start(cmds.rid)
        try:
            raw = _core.emulate(scenario_json, "json", seed, str(out / LOG_NAME), cmds.ready, poll, stall=ns_stall)
        finally:
            finished = cmds.stop()
            os.close(guard)
        emu = raw["emu"]
        if caught.signum is not None:
            emu["ended"] = ENDED[caught.signum]
        elif raw.get("interrupted"):  # a KeyboardInterrupt raised by other means (the Python API)
            emu["ended"] = ENDED[signal.SIGINT]
            caught.signum = signal.SIGINT
        result = Result.from_core(raw["output"], scenario_text=scenario_json, scenario_format="json")
        result.save(out)
        meta = {
            "seed": result.info["seed"], "nodes": cfg.nodes, "horizon_ns": emu["horizon_ns"], "t0_ns": emu["t0_ns"],
            "event_hash": event_hash_text(result.info["event_hash"]), "events": result.info["events"],
            "config": asdict(cfg), "scenario_json": scenario_json, "episodes": emu["episodes"], "fifo": emu["fifo"],
            "message": emu["message"], "commands": [{"node": n, "run": r, "exit": rc} for n, r, rc in finished],
            "emu": {k: emu[k] for k in EMU_COLUMNS},
        }
        # Whole or absent (a temporary file renamed): replay never reads half of it.
        atomic_write_bytes(out / "emu.csv", (",".join(EMU_COLUMNS) + "\n" + ",".join(str(emu[k]) for k in EMU_COLUMNS)
                                             + "\n").encode(), keep_previous=False)
        atomic_write_bytes(out / META_NAME, (json.dumps(meta, indent=2) + "\n").encode(), keep_previous=False)
    return {"emu": emu, "result": result, "commands": finished, "meta": meta, "signal": caught.signum}


class ReplayError(ValueError):
    """A saved run that cannot be replayed: one line naming the file and why."""


def replay(run_dir: Path, sets: tuple[str, ...] = (), out: Path | None = None) -> tuple[str, str, Any]:
    """Re-run a saved live run from its ingress log: (replayed hash, live hash,
    Result). `sets` override scenario fields that only observe (the trace:
    `output.trace=true`, `trace.formats=["csv","anim"]`); `out` saves the
    result there, with its trace files. A damaged emu.json or ingress log
    raises ReplayError (meta.MetaError) or OSError naming the file."""
    import tempfile

    from .. import overrides
    from ..result import Result, event_hash_text
    from .meta import read

    meta = read(run_dir)
    log = run_dir / LOG_NAME
    if not log.is_file():
        raise ReplayError(f"{log}: missing: the run's ingress log, which replay injects")
    sjson = meta["scenario_json"]
    if sets:
        data = json.loads(sjson)
        overrides.apply(data, sets)
        sjson = json.dumps(data)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent if out else None) as tmp:
        try:
            raw = _core.emulate_replay(sjson, "json", meta["seed"], meta["nodes"], str(log), meta["horizon_ns"],
                                       trace_dir=tmp)
        except ValueError as e:  # a packet the engine refuses (the log is intact: written by another scenario?)
            if isinstance(e, _core.ScenarioError):
                raise
            raise ReplayError(f"{log}: {e}") from None
        result = Result.from_core(raw["output"], scenario_text=sjson, scenario_format="json", trace_dir=tmp)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            result.save(out)
    return event_hash_text(result.info["event_hash"]), meta["event_hash"], result
