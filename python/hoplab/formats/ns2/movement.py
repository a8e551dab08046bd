"""ns-2 movement files (the output of CMU's `setdest`, seed 002 §6.2's
"scenario files"): read them into a hoplab scenario, and write the movement
of any hoplab run in the same format.

What a movement file holds (ns-2 indep-utils/cmu-scen-gen/setdest/setdest.cc):

    $node_(i) set X_ x          initial position (also Y_; Z_ is read and ignored:
    $node_(i) set Y_ y          ns-2's mobile nodes move in the plane)
    $ns_ at t "$node_(i) setdest x y v"
                                from time t the node heads from wherever it is toward
                                (x, y) at v m/s and stops there; a later setdest
                                replaces it; v = 0 stops the node where it is
                                (setdest writes its pauses so: destination = position)
    $god_ set-dist i j d        GOD's shortest-path hop counts (also under `$ns_ at t`):
                                checked for well-formed node indices, otherwise ignored
    # ...                       comments; setdest's header `# nodes: N, ...` gives the count

Positions are piecewise linear (ns-2 MobileNode::update_position), which is
exactly what hoplab's scripted legs do (crates/hoplab-sim/src/mobility.rs), so
a file becomes an explicit topology plus `mobility.legs`. A stop (v = 0) while
the node is under way becomes a leg toward the point where it stands at that
time; a stop of a node that has already arrived is dropped (it changes nothing).

The `movement` table (one row per leg a node starts: node, time_s, x, y,
to_x, to_y, speed_mps, with the initial positions as rows of speed 0 at time
0) is what the writer reads; `movement_frame` builds it from a scenario's
positions and legs, `movement_of` from a `Result`.
"""

from __future__ import annotations

import bisect
import copy
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from . import _limits
from ._text import TCL_SPACE, Ns2FormatError, _tcl_lines, clip, commands, index, number, read_text, shown

__all__ = ["Ns2Movement", "Ns2Leg", "Track", "read_movement", "parse_movement", "hoplab_legs",
           "movement_frame", "format_movement", "write_movement", "tracks", "scenario_nodes",
           "initial_positions", "merge_movement", "MOVEMENT_COLUMNS"]

MOVEMENT_COLUMNS = ["node", "time_s", "x", "y", "to_x", "to_y", "speed_mps"]
# Closer than this to its target, a node counts as arrived (setdest prints 12 decimals).
ARRIVED_M = 1e-9
# The schema fields the file's numbers become (their ranges are checked as the
# engine checks them: see _limits). A setdest speed of 0 is a stop, not a leg.
COORD = "topology.positions[][]"
LEG_TIME = "mobility.legs[].at_s"
LEG_SPEED = "mobility.legs[].speed_mps"
NODE = "mobility.legs[].node"

# re.ASCII: \s is Tcl's white space, not a no-break space (see _text).
_SET = re.compile(r"\$node_\((\S*?)\)\s+set\s+(\S+)\s+(\S+)", re.ASCII)
_AT = re.compile(r"\$ns_?\s+at\s+(\S+)\s+\"(.*)\"", re.ASCII | re.DOTALL)
_SETDEST = re.compile(r"\$node_\((\S*?)\)\s+setdest\s+(\S+)\s+(\S+)\s+(\S+)", re.ASCII)
_GOD = re.compile(r"\$god_\s+set-dist\s+(\S+)\s+(\S+)\s+(\S+)", re.ASCII)
_GOD_INSTANCE = re.compile(r"set\s+god_\s+\[\s*God\s+instance\s*\]", re.ASCII)
_HEADER = re.compile(r"#\s*nodes:\s*([0-9]+)\b", re.ASCII)


@dataclass(frozen=True)
class Ns2Leg:
    """One `setdest`: from ``at_s`` the node heads for ``to`` at ``speed_mps`` (0 = stop)."""

    node: int
    at_s: float
    to: tuple[float, float]
    speed_mps: float
    line: int


@dataclass
class Ns2Movement:
    """A movement file read: initial positions (node i at index i) and legs in file order."""

    path: str
    positions: list[tuple[float, float]]
    legs: list[Ns2Leg]
    declared_nodes: int | None = None  # setdest's `# nodes: N` header
    god_lines: int = 0
    position_lines: list[int] = field(default_factory=list)

    @property
    def nodes(self) -> int:
        return len(self.positions)


class Track:
    """One node's movement, computed independently of the engine: piecewise
    linear from its start along legs ``(at_s, (x, y), speed)`` in time order
    (ns-2 MobileNode::set_destination: each leg starts where the node is;
    speed 0 stops it)."""

    def __init__(self, start: tuple[float, float], legs: Iterable[tuple[float, tuple[float, float], float]] = ()):
        self.start = (float(start[0]), float(start[1]))
        # (t0, from, to, speed) per leg; the node's state from t0 on.
        self.segments: list[tuple[float, tuple[float, float], tuple[float, float], float]] = []
        self._t0: list[float] = []  # the segments' start times, for bisection
        for at, to, v in legs:
            self.add(at, to, v)

    def add(self, at: float, to: tuple[float, float], speed: float) -> None:
        if self.segments and at < self.segments[-1][0]:
            raise ValueError(f"legs must be added in time order ({at} after {self.segments[-1][0]})")
        p = self.at(at)
        self.segments.append((float(at), p, (float(to[0]), float(to[1])), float(speed)))
        self._t0.append(float(at))

    def _segment(self, t: float) -> tuple[float, tuple[float, float], tuple[float, float], float] | None:
        """The leg in force at ``t``: the last one started at or before it."""
        k = bisect.bisect_right(self._t0, t)
        return self.segments[k - 1] if k else None

    def at(self, t: float) -> tuple[float, float]:
        """The position at time ``t`` (a leg starting at ``t`` has not moved yet)."""
        seg = self._segment(t)
        return self.start if seg is None else _along(seg[1], seg[2], seg[3], t - seg[0])

    def moving_at(self, t: float) -> tuple[bool, float]:
        """Whether the node is under way at ``t``, and the speed of its leg."""
        seg = self._segment(t)
        if seg is None or seg[3] <= 0.0:
            return False, 0.0
        t0, frm, to, v = seg
        return _dist(_along(frm, to, v, t - t0), to) > ARRIVED_M, v


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _along(frm: tuple[float, float], to: tuple[float, float], v: float, dt: float) -> tuple[float, float]:
    """Where a node is ``dt`` s after leaving ``frm`` for ``to`` at ``v`` m/s (as mobility.rs: f = moved/total)."""
    d = _dist(frm, to)
    if v <= 0.0 or d == 0.0:
        return frm
    total = d / v
    if dt >= total:
        return to
    f = dt / total
    return (frm[0] + (to[0] - frm[0]) * f, frm[1] + (to[1] - frm[1]) * f)


# ---------------------------------------------------------------- reading
def read_movement(path: str | Path, *, nodes: int | None = None) -> Ns2Movement:
    """Read a movement file; ``nodes``, if given, is the count it must have.
    Raises `Ns2FormatError` (``file:line: problem``) or OSError."""
    return parse_movement(read_text(path), str(path), nodes=nodes)


def parse_movement(text: str, path: str = "<movement>", *, nodes: int | None = None) -> Ns2Movement:
    """Parse a movement file's text (see the module docstring for the lines)."""
    xs: dict[int, float] = {}
    ys: dict[int, float] = {}
    first_line: dict[int, int] = {}
    first_leg: dict[int, int] = {}
    legs: list[Ns2Leg] = []
    declared: tuple[int, int] | None = None  # (count, line)
    god = 0

    for no, raw in enumerate(_tcl_lines(text).split("\n"), 1):
        m = _HEADER.match(raw.strip(TCL_SPACE))
        if m:
            try:  # a count of nodes: at most the largest node index + 1
                count = index(m.group(1), "# nodes:")
                _limits.check(max(count - 1, 0), NODE, f"# nodes: {count}")
            except ValueError as e:
                raise Ns2FormatError(path, no, str(e)) from None
            declared = (count, no)
            break
    limit = nodes if nodes is not None else declared[0] if declared else None

    def fail(no: int, problem: str) -> Ns2FormatError:
        return Ns2FormatError(path, no, problem)

    def node_of(tok: str, no: int) -> int:
        i = index(tok, "node", NODE)
        if limit is not None and i >= limit:
            whose = (f"the scenario's {nodes} nodes" if nodes is not None
                     else f"the file's {limit} nodes (header, line {declared[1]})")  # type: ignore[index]
            raise ValueError(f"node {i} is beyond {whose}")
        return i

    def coord(tok: str, what: str) -> float:
        return _limits.check(number(tok, what), COORD, f"{what} {shown(tok)}")

    def setdest(m: re.Match[str], at: float, no: int, scheduled: bool) -> None:
        i = node_of(m.group(1), no)
        x, y = coord(m.group(2), "x"), coord(m.group(3), "y")
        v = number(m.group(4), "speed")
        if v != 0:  # 0 stops the node (hoplab_legs); any other speed is a leg's
            _limits.check(v, LEG_SPEED, f"speed {shown(m.group(4))}", "or 0, a stop")
        if not scheduled:
            # `$ns_ at` events run after the whole file is read, so a scheduled
            # setdest may come before the position lines (ns-2 accepts it); one
            # run at load time would start from wherever the node is then.
            if i not in xs or i not in ys:
                raise ValueError(f"setdest for node {i} before its initial position ($node_({i}) set X_ / Y_)")
            first_leg.setdefault(i, no)
        legs.append(Ns2Leg(i, at, (x, y), v, no))

    def god_dist(m: re.Match[str], no: int) -> None:
        node_of(m.group(1), no)
        node_of(m.group(2), no)
        index(m.group(3), "distance")  # hops; read, not used

    def timed(script: str, at: float, no: int, scheduled: bool = True) -> bool:
        """Run the setdest and GOD commands of ``script`` (one, or several
        separated as Tcl separates them) at time ``at``; False if there are
        none or one is neither."""
        nonlocal god
        cmds = [c for _, c in commands(script)]
        if not cmds or not all(_SETDEST.fullmatch(c) or _GOD.fullmatch(c) for c in cmds):
            return False
        for cmd in cmds:
            if (d := _SETDEST.fullmatch(cmd)) is not None:
                setdest(d, at, no, scheduled)
            elif (g := _GOD.fullmatch(cmd)) is not None:
                god_dist(g, no)
                god += 1
        return True

    for no, line in commands(text):
        try:
            if (m := _SET.fullmatch(line)) is not None:
                i = node_of(m.group(1), no)
                var = m.group(2)
                if var not in ("X_", "Y_", "Z_"):
                    raise ValueError(f"$node_({i}) set {clip(var)}: hoplab reads X_, Y_ and Z_ only")
                if i in first_leg:
                    raise ValueError(f"initial position of node {i} set after its first setdest "
                                     f"(line {first_leg[i]})")
                v = coord(m.group(3), var[0].lower())
                first_line.setdefault(i, no)
                if var == "X_":
                    xs[i] = v
                elif var == "Y_":
                    ys[i] = v
            elif (m := _AT.fullmatch(line)) is not None:
                at = _limits.check(number(m.group(1), "time"), LEG_TIME, f"time {shown(m.group(1))}")
                inner = m.group(2).strip(TCL_SPACE)
                if not timed(inner, at, no):
                    raise ValueError(f"unsupported command at time {shown(m.group(1))}: {clip(inner)} "
                                     "(expected \"$node_(i) setdest x y v\" or \"$god_ set-dist i j d\")")
            elif _GOD_INSTANCE.fullmatch(line):  # setdest's first line: the God object, read and not used
                god += 1
            elif not timed(line, 0.0, no, scheduled=False):  # setdest's NODE_FORMAT2 / GOD_FORMAT2: at load time
                raise ValueError(f"not an ns-2 movement line: {clip(line)} (expected $node_(i) set X_/Y_/Z_, "
                                 "$ns_ at t \"$node_(i) setdest x y v\", $god_ set-dist or a # comment)")
        except ValueError as e:
            raise fail(no, str(e)) from None

    count = max([*xs, *ys], default=-1) + 1
    if declared is not None and nodes is None and count < declared[0]:
        count = declared[0]
    if nodes is not None:
        count = nodes
    if count == 0:
        raise Ns2FormatError(path, None, "no node positions ($node_(i) set X_ / Y_)")
    for i in range(count):
        for var, have in (("X_", xs), ("Y_", ys)):
            if i not in have:
                where = first_line.get(i)
                raise Ns2FormatError(path, where, f"node {i} has no initial {var} ($node_({i}) set {var} ...)")
    for leg in legs:
        if leg.node >= count:
            raise Ns2FormatError(path, leg.line, f"setdest for node {leg.node}, which has no initial position "
                                 f"($node_({leg.node}) set X_ / Y_; the file places nodes 0-{count - 1})")
    return Ns2Movement(path, [(xs[i], ys[i]) for i in range(count)], legs,
                       declared[0] if declared else None, god, [first_line[i] for i in range(count)])


def tracks(positions: list[tuple[float, float]], legs: Iterable[tuple[int, float, tuple[float, float], float]]
           ) -> list[Track]:
    """One `Track` per node from its start and ``(node, at_s, to, speed)`` legs
    (any order: each node's are taken by time, ties in the given order)."""
    per: list[list[tuple[float, int, tuple[float, float], float]]] = [[] for _ in positions]
    for k, (node, at, to, v) in enumerate(legs):
        per[node].append((at, k, to, v))
    out = []
    for start, ls in zip(positions, per):
        ls.sort(key=lambda r: (r[0], r[1]))
        out.append(Track(start, ((at, to, v) for at, _, to, v in ls)))
    return out


def hoplab_legs(mv: Ns2Movement) -> tuple[list[dict[str, Any]], list[int]]:
    """The file's legs as hoplab `mobility.legs` (each node's in time order,
    as the engine requires; ties keep the file's order, as ns-2's scheduler
    does), and the line each came from.

    hoplab's speeds are > 0: a stop (v = 0) of a node under way becomes a
    leg toward where it stands then (at the speed of the leg it ends, so the
    engine's own rounding of that point is covered in nanoseconds); a stop of
    a node at rest is dropped."""
    order = sorted(range(len(mv.legs)), key=lambda k: (mv.legs[k].node, mv.legs[k].at_s, k))
    trk = {i: Track(p) for i, p in enumerate(mv.positions)}
    out: list[tuple[float, int, dict[str, Any], int]] = []
    for k in order:
        leg = mv.legs[k]
        t = trk[leg.node]
        if leg.speed_mps > 0:
            out.append((leg.at_s, k, {"node": leg.node, "at_s": leg.at_s, "to": list(leg.to),
                                      "speed_mps": leg.speed_mps}, leg.line))
        else:
            moving, v = t.moving_at(leg.at_s)
            if moving:
                p = t.at(leg.at_s)
                out.append((leg.at_s, k, {"node": leg.node, "at_s": leg.at_s, "to": [p[0], p[1]],
                                          "speed_mps": v}, leg.line))
        t.add(leg.at_s, leg.to, leg.speed_mps)
    out.sort(key=lambda r: (r[0], r[1]))  # time order overall, as setdest writes them
    return [r[2] for r in out], [r[3] for r in out]


# ---------------------------------------------------------- scenario side
def scenario_nodes(sc: Mapping[str, Any]) -> int | None:
    """The node count of a scenario dict's topology (None if it has none)."""
    t = sc.get("topology")
    if not isinstance(t, Mapping):
        return None
    kind = t.get("kind")
    try:
        if kind in ("chain", "random"):
            return int(t["nodes"])
        if kind == "grid":
            return int(t["rows"]) * int(t["cols"])
        if kind == "explicit":
            return len(t["positions"])
    except (KeyError, TypeError, ValueError):
        return None
    return None


def initial_positions(sc: Mapping[str, Any], seed: int | None = None) -> list[tuple[float, float]]:
    """Where a scenario's nodes start (as crates/hoplab-sim/src/world.rs
    `positions`). Random positions come from the seed: they are read from a
    run of the bare topology (no flows, no movement, 1 us)."""
    t = sc["topology"]
    kind = t.get("kind")
    if kind == "chain":
        return [(i * float(t["spacing_m"]), 0.0) for i in range(int(t["nodes"]))]
    if kind == "grid":
        cols, s = int(t["cols"]), float(t["spacing_m"])
        return [((i % cols) * s, (i // cols) * s) for i in range(int(t["rows"]) * cols)]
    if kind == "explicit":
        return [(float(p[0]), float(p[1])) for p in t["positions"]]
    from ..._run import run

    bare = {k: copy.deepcopy(v) for k, v in sc.items() if k in ("name", "seed", "topology", "radio")}
    bare.update(duration_s=1e-6, flows=[], output={"timeseries": False})
    res = run(bare, seed=seed)
    return list(zip(res.nodes["x"].astype(float), res.nodes["y"].astype(float)))


def movement_frame(positions: list[tuple[float, float]], legs: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The `movement` table of nodes that start at ``positions`` and follow
    hoplab ``legs`` (dicts: node, at_s, to, speed_mps): a row of speed 0 at
    time 0 per node, then a row per leg with where it starts."""
    legs = list(legs)
    trk = tracks(positions, ((int(g["node"]), float(g["at_s"]), (float(g["to"][0]), float(g["to"][1])),
                              float(g["speed_mps"])) for g in legs))
    rows = [(i, 0.0, x, y, x, y, 0.0) for i, (x, y) in enumerate(positions)]
    order = sorted(range(len(legs)), key=lambda k: (float(legs[k]["at_s"]), k))
    for k in order:
        g = legs[k]
        i, at = int(g["node"]), float(g["at_s"])
        x, y = trk[i].at(at)
        rows.append((i, at, x, y, float(g["to"][0]), float(g["to"][1]), float(g["speed_mps"])))
    return pd.DataFrame(rows, columns=MOVEMENT_COLUMNS).astype({"node": "int64"})


def movement_of(result: Any) -> pd.DataFrame:
    """The movement of a `Result`: its `movement` table when the engine wrote
    one, else built from the scenario it ran (positions and scripted legs)."""
    table = getattr(result, "movement", None)
    if isinstance(table, pd.DataFrame) and len(table) > 0:
        return table[MOVEMENT_COLUMNS].copy()
    sc = _scenario_of(result)
    model = (sc.get("mobility") or {}).get("model", "legs")
    if model != "legs":
        raise ValueError(f"mobility.model = {model!r}: its movement is drawn while the run goes; "
                         "it needs the run's `movement` table, which this result does not have")
    positions = initial_positions(sc, result.info.get("seed"))
    return movement_frame(positions, (sc.get("mobility") or {}).get("legs", []))


def _scenario_of(result: Any) -> dict[str, Any]:
    import json
    import tomllib

    text, fmt = getattr(result, "scenario_text", None), getattr(result, "scenario_format", None)
    if text is None:
        raise ValueError("the result has no scenario to take the movement from")
    return json.loads(text) if fmt == "json" else tomllib.loads(text)


# ---------------------------------------------------------------- writing
def _f(v: float) -> str:
    return f"{v:.12f}"  # setdest's NODE_FORMAT precision


def format_movement(frame: pd.DataFrame, comment: str | None = None) -> str:
    """A `movement` table as an ns-2 movement file in setdest's formatting
    (`$node_(i) set X_ %.12f`, `$ns_ at %.12f "$node_(i) setdest %.12f %.12f %.12f"`).
    Each node's first row of speed 0 at time 0 is its initial position; every
    other row is a setdest at its time (speed 0: a stop)."""
    missing = [c for c in MOVEMENT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the movement table lacks column(s) {', '.join(missing)}")
    df = frame.reset_index(drop=True)
    start: dict[int, tuple[float, float]] = {}
    legs = []
    for k, r in enumerate(df.itertuples(index=False)):
        i = int(r.node)
        if i not in start and float(r.time_s) == 0.0 and float(r.speed_mps) == 0.0:
            start[i] = (float(r.x), float(r.y))
        else:
            legs.append((float(r.time_s), k, i, float(r.to_x), float(r.to_y), float(r.speed_mps)))
    n = max([*start, *(g[2] for g in legs)], default=-1) + 1
    absent = [i for i in range(n) if i not in start]
    if absent:
        raise ValueError(f"node {absent[0]} has no initial position (a row of speed 0 at time 0)")
    out = ["#", f"# nodes: {n}, written by hoplab" + (f": {comment}" if comment else ""), "#"]
    for i in range(n):
        x, y = start[i]
        out += [f"$node_({i}) set X_ {_f(x)}", f"$node_({i}) set Y_ {_f(y)}", f"$node_({i}) set Z_ {_f(0.0)}"]
    for t, _, i, x, y, v in sorted(legs):
        out.append(f'$ns_ at {_f(t)} "$node_({i}) setdest {_f(x)} {_f(y)} {_f(v)}"')
    return "\n".join(out) + "\n"


def write_movement(frame: pd.DataFrame, path: str | Path, comment: str | None = None) -> Path:
    """Write `format_movement` to ``path`` (atomically) and return it."""
    from ..._io import atomic_write_bytes

    p = Path(path)
    atomic_write_bytes(p, format_movement(frame, comment).encode())
    return p


# ------------------------------------------------------------------ merging
def merge_movement(base: Mapping[str, Any], mv: Ns2Movement) -> tuple[dict[str, Any], list[int]]:
    """``base`` with the file's nodes: an explicit topology at the initial
    positions and the file's legs as `mobility.legs` (replacing the base's),
    and the file line of each leg. The base's node count, if it has a
    topology, must be the file's."""
    have = scenario_nodes(base)
    if have is not None and have != mv.nodes:
        raise Ns2FormatError(mv.path, None, f"has {mv.nodes} nodes but the base scenario has {have}")
    sc = copy.deepcopy(dict(base))
    sc["topology"] = {"kind": "explicit", "positions": [[x, y] for x, y in mv.positions]}
    legs, lines = hoplab_legs(mv)
    mob = dict(sc.get("mobility") or {})
    for k in ("speed_min_mps", "speed_max_mps", "pause_s", "steady_state", "walk_interval_s"):  # random-model fields
        mob.pop(k, None)
    if "model" in mob:
        mob["model"] = "legs"
    mob["legs"] = legs
    sc["mobility"] = mob
    return sc, lines
