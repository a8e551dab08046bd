"""The scenario's `[emulation]` table: which nodes are real, how time is
kept, what to run in each namespace. Read here and removed before the
scenario goes to the engine, which knows nothing of it.

    [emulation]
    nodes = [0, 3]              # real nodes: each gets a namespace and a TUN device
    namespaces = ["", "lab3"]   # optional: "" = a fresh one, else an existing `ip netns` name
    lookahead_ms = 2.0          # head start of the engine: added to the first hop's delay
    on_lag = "warn"             # or "abort": stop at the first write later than the threshold
    lag_threshold_ms = 5.0
    spin_us = 200.0             # spin before each deadline instead of sleeping
    realtime = false            # ask for SCHED_FIFO
    [[emulation.commands]]
    node = 3
    run = "{python} -m hoplab.emu.tcp recv --port 5001 --seconds 5"
    [[emulation.commands]]
    node = 0
    run = "{python} -m hoplab.emu.tcp send 10.0.0.4 --port 5001 --seconds 5"
    start_s = 0.2
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Command", "EmuConfig", "EmuConfigError", "split"]

# The engine's address plan (hoplab_sim::ipv4): node N is 10.0.0.0/16 + N + 1.
MAX_NODES = (1 << 16) - 2


def node_addr(n: int) -> str:
    a = 0x0A000000 + n + 1
    return ".".join(str((a >> s) & 0xFF) for s in (24, 16, 8, 0))


class EmuConfigError(ValueError):
    """A bad [emulation] field: the message names it."""


@dataclass
class Command:
    node: int
    run: str
    start_s: float = 0.0
    #: The run ends when every command that waits has exited.
    wait: bool = True


@dataclass
class EmuConfig:
    nodes: list[int]
    namespaces: list[str | None] = field(default_factory=list)
    lookahead_ms: float = 2.0
    on_lag: str = "warn"
    lag_threshold_ms: float = 5.0
    spin_us: float = 200.0
    realtime: bool = False
    commands: list[Command] = field(default_factory=list)


_KEYS = {"nodes", "namespaces", "lookahead_ms", "on_lag", "lag_threshold_ms", "spin_us", "realtime", "commands"}
_CMD_KEYS = {"node", "run", "start_s", "wait"}


def _number(t: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    v = t.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise EmuConfigError(f"emulation.{key}: expected a number, got {v!r}")
    if not lo <= v <= hi:
        raise EmuConfigError(f"emulation.{key}: {v} is outside [{lo}, {hi}]")
    return float(v)


def parse(t: Any, n_nodes: int) -> EmuConfig:
    """The [emulation] table of a scenario with `n_nodes` nodes."""
    if not isinstance(t, dict):
        raise EmuConfigError("emulation: expected a table")
    unknown = sorted(set(t) - _KEYS)
    if unknown:
        raise EmuConfigError(f"emulation.{unknown[0]}: unknown field (known: {', '.join(sorted(_KEYS))})")
    nodes = t.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(isinstance(n, int) and not isinstance(n, bool) for n in nodes):
        raise EmuConfigError("emulation.nodes: expected a non-empty list of node numbers, e.g. [0, 3]")
    for n in nodes:
        if not 0 <= n < min(n_nodes, MAX_NODES):
            raise EmuConfigError(f"emulation.nodes: node {n} is not in the scenario (nodes 0..{n_nodes - 1})")
    if len(set(nodes)) != len(nodes):
        raise EmuConfigError("emulation.nodes: a node is listed twice")
    ns = t.get("namespaces", [])
    if not isinstance(ns, list) or not all(isinstance(s, str) for s in ns) or len(ns) not in (0, len(nodes)):
        raise EmuConfigError("emulation.namespaces: expected one name per real node (\"\" for a fresh namespace)")
    for s in ns:
        if s and ("/" in s or s.startswith(".")):
            raise EmuConfigError(f"emulation.namespaces: {s!r} is not a namespace name")
    on_lag = t.get("on_lag", "warn")
    if on_lag not in ("warn", "abort"):
        raise EmuConfigError(f"emulation.on_lag: {on_lag!r} is not \"warn\" or \"abort\"")
    realtime = t.get("realtime", False)
    if not isinstance(realtime, bool):
        raise EmuConfigError(f"emulation.realtime: expected true or false, got {realtime!r}")
    cfg = EmuConfig(
        nodes=list(nodes),
        namespaces=[s or None for s in ns] or [None] * len(nodes),
        lookahead_ms=_number(t, "lookahead_ms", 2.0, 0.1, 1000.0),
        on_lag=on_lag,
        lag_threshold_ms=_number(t, "lag_threshold_ms", 5.0, 0.01, 60_000.0),
        spin_us=_number(t, "spin_us", 200.0, 0.0, 10_000.0),
        realtime=realtime,
    )
    cmds = t.get("commands", [])
    if not isinstance(cmds, list):
        raise EmuConfigError("emulation.commands: expected a list of tables ([[emulation.commands]])")
    for i, c in enumerate(cmds):
        where = f"emulation.commands[{i}]"
        if not isinstance(c, dict):
            raise EmuConfigError(f"{where}: expected a table with node and run")
        bad = sorted(set(c) - _CMD_KEYS)
        if bad:
            raise EmuConfigError(f"{where}.{bad[0]}: unknown field (known: {', '.join(sorted(_CMD_KEYS))})")
        if c.get("node") not in cfg.nodes:
            raise EmuConfigError(f"{where}.node: {c.get('node')!r} is not a real node ({cfg.nodes})")
        if not isinstance(c.get("run"), str) or not c["run"].strip():
            raise EmuConfigError(f"{where}.run: expected the command line as a string")
        start = c.get("start_s", 0.0)
        if isinstance(start, bool) or not isinstance(start, (int, float)) or not 0 <= start < 1e6:
            raise EmuConfigError(f"{where}.start_s: expected seconds >= 0, got {start!r}")
        wait = c.get("wait", True)
        if not isinstance(wait, bool):
            raise EmuConfigError(f"{where}.wait: expected true or false")
        cfg.commands.append(Command(c["node"], c["run"], float(start), wait))
    return cfg


def split(data: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """The scenario without its [emulation] table, and the table (None if absent)."""
    data = dict(data)
    return data, data.pop("emulation", None)
