"""What an ns-2 script asked for, as the stand-in objects recorded it
(`script/ns.py`), before it becomes a scenario (`script/build.py`). Every
value keeps the file and line it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import Location

__all__ = ["Value", "Obj", "NodeObj", "AgentObj", "AppObj", "Leg", "Model"]


@dataclass
class Value:
    text: str
    loc: Location


@dataclass
class Obj:
    name: str
    cls: str
    loc: Location
    vars: dict[str, Value] = field(default_factory=dict)


@dataclass
class NodeObj(Obj):
    id: int = 0
    config: dict[str, Value] = field(default_factory=dict)  # node-config options when it was made
    pos: dict[str, Value] = field(default_factory=dict)  # X_, Y_, Z_ set before the run


@dataclass
class AgentObj(Obj):
    node: NodeObj | None = None
    node_loc: Location | None = None
    peer: "AgentObj | None" = None


@dataclass
class AppObj(Obj):
    agent: AgentObj | None = None
    events: list[tuple[float, str, str | None, Location]] = field(default_factory=list)  # (t, verb, arg, where)


@dataclass
class Leg:
    node: int
    at_s: float
    to: tuple[float, float]
    speed_mps: float
    loc: Location


@dataclass
class Model:
    script: str
    class_vars: dict[tuple[str, str], Value] = field(default_factory=dict)
    nodes: list[NodeObj] = field(default_factory=list)
    agents: list[AgentObj] = field(default_factory=list)
    apps: list[AppObj] = field(default_factory=list)
    legs: list[Leg] = field(default_factory=list)
    channels: dict[str, Location] = field(default_factory=dict)
    area: tuple[float, float] | None = None
    trace_file: str | None = None  # the handle given to trace-all
    trace_loc: Location | None = None
    new_trace: bool = False
    nam_file: str | None = None
    seed: int | None = None
    seed_loc: Location | None = None
    end_s: float | None = None  # $ns_ halt / exit during the run
    end_loc: Location | None = None
    ran: bool = False
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
