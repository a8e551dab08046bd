"""The scenario's `[emulation]` table, as the engine validated it: which
nodes are real, how time is kept, what to run in each namespace. The table
is declared once, in the engine's scenario schema (crates/hoplab-sim:
scenario/model.rs, its rows in scenario/schema/fields.rs, its checks in
scenario/validate.rs; `hoplab config` lists it); here it is only read.

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

import json
from dataclasses import dataclass
from typing import Any

from .. import _core

__all__ = ["Command", "EmuConfig", "node_addr", "read"]


def node_addr(n: int) -> str:
    """Node `n`'s IPv4 address (the engine's plan, hoplab_sim::ipv4)."""
    return _core.node_ipv4(n)


@dataclass
class Command:
    node: int
    run: str
    start_s: float
    #: The run ends when every command that waits has exited.
    wait: bool


@dataclass
class EmuConfig:
    """The validated table, every default filled in by the engine (what each
    field means: `hoplab config`, docs/SCENARIO.md)."""
    nodes: list[int]
    namespaces: list[str]
    lookahead_ms: float
    on_lag: str
    lag_threshold_ms: float
    spin_us: float
    realtime: bool
    commands: list[Command]


def read(text: str, fmt: str) -> EmuConfig | None:
    """The `[emulation]` table of scenario `text` ("toml" or "json"), checked
    by the engine with the whole scenario (raises `_core.ScenarioError`
    naming the field), or None when the scenario has none."""
    raw = _core.emulation_table(text, fmt)
    if raw is None:
        return None
    t: dict[str, Any] = json.loads(raw)
    t["commands"] = [Command(**c) for c in t["commands"]]
    return EmuConfig(**t)
