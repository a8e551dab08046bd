"""A live emulation: devices up (the engine's hoplab_emu), the commands
started in their namespaces, the run, the results saved with the ingress
log; and the replay of a saved run in pure simulation.

Nothing outlives the run: the namespaces are unnamed and held only by this
process' file descriptors, the TUN devices are not persistent, and every
command gets SIGKILL when this process dies (PR_SET_PDEATHSIG), so even a
SIGKILL of `hoplab emu` leaves no namespace, device or process behind.
"""

from __future__ import annotations

import ctypes
import json
import os
import shlex
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import _core
from .config import EmuConfig, node_addr

__all__ = ["EMU_COLUMNS", "LOG_NAME", "META_NAME", "live", "replay", "SUSTAINED_EVENTS_PER_S"]

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
    """The [emulation] commands, each in its node's namespace, its output in
    `commands/nodeN-K.log`."""

    def __init__(self, cfg: EmuConfig, out: Path) -> None:
        self.cfg = cfg
        self.out = out
        self.ns: dict[int, str] = {}
        self.procs: list[tuple[Any, subprocess.Popen[bytes], Any]] = []

    def ready(self, info: list[tuple[int, int, int, str]]) -> None:
        """Start every command now, before the real-time loop: a fork of this
        process takes milliseconds, which the loop must not spend. A delayed
        one sleeps in a shell that then execs it (PR_SET_PDEATHSIG survives
        exec, so it still dies with hoplab)."""
        for node, pid, fd, _ifname in info:
            self.ns[node] = f"/proc/{pid}/fd/{fd}"
        (self.out / "namespaces.json").write_text(json.dumps(
            {str(n): {"enter": f"nsenter --net={p}", "address": node_addr(n)} for n, p in self.ns.items()}, indent=2) + "\n")
        (self.out / "commands").mkdir(exist_ok=True)
        for k, c in enumerate(self.cfg.commands):
            argv = [a.replace("{python}", sys.executable) for a in shlex.split(c.run)]
            if c.start_s > 0:
                argv = ["sh", "-c", f'sleep {c.start_s:.6f} && exec "$@"', "sh", *argv]
            log = open(self.out / "commands" / f"node{c.node}-{k}.log", "wb")
            p = subprocess.Popen(["nsenter", f"--net={self.ns[c.node]}", "--", *argv], stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent, start_new_session=True)
            self.procs.append((c, p, log))

    def poll(self) -> bool:
        """True when the run should stop: every waited-for command ended."""
        waited = [p for c, p, _ in self.procs if c.wait]
        return bool(waited) and all(p.poll() is not None for p in waited)

    def stop(self) -> list[tuple[int, str, int | None]]:
        """End what still runs; (node, command, exit status) of each."""
        res = []
        for c, p, log in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(timeout=2)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    p.wait()
            log.close()
            res.append((c.node, c.run, p.returncode))
        return res


def live(scenario_json: str, cfg: EmuConfig, seed: int | None, out: Path, *, stall: tuple[float, float] | None = None) -> dict[str, Any]:
    """Run `scenario_json` live (the engine reads its [emulation] table;
    `cfg` is that table as `config.read` gave it, for the commands); save
    the results into `out`. Returns {"emu", "result", "commands", "meta"}."""
    from ..result import Result, event_hash_text

    out.mkdir(parents=True, exist_ok=True)
    cmds = _Commands(cfg, out)
    ns_stall = None if stall is None else (int(stall[0] * 1e9), int(stall[1] * 1e9))
    try:
        raw = _core.emulate(scenario_json, "json", seed, str(out / LOG_NAME), cmds.ready, cmds.poll, stall=ns_stall)
    finally:
        finished = cmds.stop()
    emu = raw["emu"]
    if raw.get("interrupted"):
        emu["ended"] = "interrupted"
    result = Result.from_core(raw["output"], scenario_text=scenario_json, scenario_format="json")
    result.save(out)
    meta = {
        "seed": result.info["seed"], "nodes": cfg.nodes, "horizon_ns": emu["horizon_ns"], "t0_ns": emu["t0_ns"],
        "event_hash": event_hash_text(result.info["event_hash"]), "events": result.info["events"],
        "config": asdict(cfg), "scenario_json": scenario_json, "episodes": emu["episodes"], "fifo": emu["fifo"],
        "message": emu["message"], "commands": [{"node": n, "run": r, "exit": rc} for n, r, rc in finished],
        "emu": {k: emu[k] for k in EMU_COLUMNS},
    }
    (out / META_NAME).write_text(json.dumps(meta, indent=2) + "\n")
    (out / "emu.csv").write_text(",".join(EMU_COLUMNS) + "\n" + ",".join(str(emu[k]) for k in EMU_COLUMNS) + "\n")
    return {"emu": emu, "result": result, "commands": finished, "meta": meta, "interrupted": bool(raw.get("interrupted"))}


def replay(run_dir: Path, sets: tuple[str, ...] = (), out: Path | None = None) -> tuple[str, str, Any]:
    """Re-run a saved live run from its ingress log: (replayed hash, live hash,
    Result). `sets` override scenario fields that only observe (the trace:
    `output.trace=true`, `trace.formats=["csv","anim"]`); `out` saves the
    result there, with its trace files."""
    import tempfile

    from .. import overrides
    from ..result import Result, event_hash_text

    meta = json.loads((run_dir / META_NAME).read_text())
    sjson = meta["scenario_json"]
    if sets:
        data = json.loads(sjson)
        overrides.apply(data, sets)
        sjson = json.dumps(data)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent if out else None) as tmp:
        raw = _core.emulate_replay(sjson, "json", meta["seed"], meta["nodes"], str(run_dir / LOG_NAME), meta["horizon_ns"],
                                   trace_dir=tmp)
        result = Result.from_core(raw["output"], scenario_text=sjson, scenario_format="json", trace_dir=tmp)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            result.save(out)
    return event_hash_text(result.info["event_hash"]), meta["event_hash"], result
