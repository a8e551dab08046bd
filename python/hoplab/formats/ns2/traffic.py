"""ns-2 connection-pattern files (the output of CMU's `cbrgen.tcl`, seed 002
§6.2's "communication pattern"): read them into hoplab `flows`, and write a
scenario's flows in the same form.

cbrgen writes, per CBR connection (ns-2 indep-utils/cmu-scen-gen/cbrgen.tcl):

    set udp_(i) [new Agent/UDP]
    $ns_ attach-agent $node_(src) $udp_(i)
    set null_(i) [new Agent/Null]
    $ns_ attach-agent $node_(dst) $null_(i)
    set cbr_(i) [new Application/Traffic/CBR]
    $cbr_(i) set packetSize_ 512
    $cbr_(i) set interval_ 0.25
    $cbr_(i) set random_ 1
    $cbr_(i) set maxpkts_ 10000
    $cbr_(i) attach-agent $udp_(i)
    $ns_ connect $udp_(i) $null_(i)
    $ns_ at t "$cbr_(i) start"

and per TCP connection:

    set tcp_(i) [$ns_ create-connection TCP $node_(src) TCPSink $node_(dst) 0]
    $tcp_(i) set window_ 32
    $tcp_(i) set packetSize_ 512
    set ftp_(i) [$tcp_(i) attach-source FTP]
    $ns_ at t "$ftp_(i) start"

The reader follows ns-2's semantics, not just these lines: the same objects
made with `new`, `attach-agent`, `connect`, `attach-app`, and `stop`/`send
nbytes` events, in any order ns-2 would accept. Rules taken from ns-2:

- CBR (tcl/lib/ns-source.tcl): `set interval_ T` sets rate_ = packetSize_ x 8 / T
  with the packet size of that moment; at start the interval is
  packetSize_ x 8 / rate_. Defaults (ns-default.tcl) packetSize_ 210, rate_ 448 kbit/s.
  hoplab: ``rate_kbps = rate_ / 1000``, ``packet_size_bytes = packetSize_``.
  The sink may be Agent/Null or Agent/LossMonitor.
  `random_ 1` (ns-2 jitters each interval by up to +-50 %) is ``jitter =
  true``, and `maxpkts_` is ``max_packets``: the flow sends that many packets.
- TCP: `Agent/TCP` is ns-2's Tahoe, `/Reno`, `/Newreno`, `/Sack1`, `/Vegas`
  the others (``tcp.variant``); `TCPSink` ACKs every segment (``receiver =
  "every"``), `TCPSink/DelAck` delays them (``"ns2"``); `window_` (default 20)
  bounds the window (``tcp.max_cwnd``, ns-2's min(cwnd_, window_)) and
  `packetSize_` (default 1000) is the segment payload (``tcp.mss_bytes``).
  FTP `start` sends forever; `send nbytes` sends nbytes (``bytes``).
- `window_` below 1 is refused. ns-2 sends while t_seqno_ <= highest_ack_ +
  window(), and window() is min(cwnd_, window_) truncated to an integer
  (tcp/tcp.cc TcpAgent::window, send_much): with window_ 0 the first
  segment (t_seqno_ 0, highest_ack_ -1) is never sent and the connection
  stays silent. hoplab's `max_cwnd = 0` means the opposite (unclamped), and a
  flow that never sends is no flow: the file is refused rather than changed.
  A fractional window_ clamps to its integer part, as window() does.
- `maxpkts_` (a C int, tools/cbr_traffic.cc) counts packets sent: the first
  goes at start before the count is tested (TrafficGenerator::timeout, then
  CBR_Traffic::next_interval: `++seqno_ < maxpkts_`), so 0 sends one, as 1 does.

Every number is range-checked where it is read, against the range of the
scenario field it becomes (`_limits`: the engine's own ranges), so that an
error names its line and no infinity or zero rate reaches the scenario.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import _limits
from ._text import NAME, TCL_SPACE, Ns2FormatError, clip, commands, index, number, read_text, shown

__all__ = ["Connection", "Ns2Traffic", "read_traffic", "parse_traffic", "hoplab_flows", "format_traffic",
           "write_traffic", "merge_traffic"]

TCP_VARIANTS = {"TCP": "tahoe", "TCP/Reno": "reno", "TCP/Newreno": "new_reno", "TCP/Sack1": "sack",
                "TCP/Vegas": "vegas"}
SINKS = {"TCPSink": "every", "TCPSink/DelAck": "ns2", "TCPSink/Sack1": "every", "TCPSink/Sack1/DelAck": "ns2"}
# ns-2 ns-default.tcl defaults.
CBR_SIZE, CBR_RATE_BPS = 210, 448_000.0
TCP_WINDOW, TCP_SIZE = 20, 1000
# Parameters read; those in IGNORED change nothing hoplab models.
PARAMS = {"packetSize_", "interval_", "rate_", "random_", "maxpkts_", "window_"}
IGNORED = {"fid_", "class_", "prio_"}
# ns-2 binds maxpkts_ to a C int (tools/cbr_traffic.cc).
C_INT_MAX = 2**31 - 1
# The scenario fields the numbers become (their ranges: _limits).
F_SRC, F_DST, F_START, F_STOP = "flows[].src", "flows[].dst", "flows[].start_s", "flows[].stop_s"
F_BYTES, F_RATE, F_SIZE = "flows[].bytes", "flows[].rate_kbps", "flows[].packet_size_bytes"
F_MSS, F_WINDOW = "tcp.mss_bytes", "tcp.max_cwnd"

# re.ASCII: \s is Tcl's white space, not a no-break space (see _text).
_NEW = re.compile(rf"set\s+({NAME})\s+\[\s*new\s+(\S+)\s*\]", re.ASCII)
_CREATE = re.compile(rf"set\s+({NAME})\s+\[\s*\$ns_?\s+create-connection\s+(\S+)\s+\$node_\((\S*?)\)\s+(\S+)"
                     rf"\s+\$node_\((\S*?)\)\s+(\S+)\s*\]", re.ASCII)
_ATTACH_SRC = re.compile(rf"set\s+({NAME})\s+\[\s*\$({NAME})\s+(attach-source|attach-app)\s+(\S+)\s*\]", re.ASCII)
_NS_ATTACH = re.compile(rf"\$ns_?\s+attach-agent\s+\$node_\((\S*?)\)\s+\$({NAME})", re.ASCII)
_APP_ATTACH = re.compile(rf"\$({NAME})\s+attach-agent\s+\$({NAME})", re.ASCII)
_CONNECT = re.compile(rf"\$ns_?\s+connect\s+\$({NAME})\s+\$({NAME})", re.ASCII)
_SET = re.compile(rf"\$({NAME})\s+set\s+(\S+)\s+(\S+)", re.ASCII)
_AT = re.compile(r"\$ns_?\s+at\s+(\S+)\s+\"(.*)\"", re.ASCII | re.DOTALL)
_EVENT = re.compile(rf"\$({NAME})\s+(start|stop|send)(?:\s+(\S+))?", re.ASCII)
_BANDWIDTH = re.compile(r"([0-9.eE+-]+)\s*([kKmMgG]?)(b|bps|B|Bps)?", re.ASCII)


@dataclass
class _Obj:
    name: str
    cls: str  # "Agent/UDP", "Agent/Null", "Agent/TCP/Reno", "TCPSink/DelAck", "CBR", "FTP"
    line: int
    node: int | None = None
    node_line: int = 0  # where it was attached to its node
    peer: "_Obj | None" = None
    agent: "_Obj | None" = None
    size: int | None = None
    rate_bps: float | None = None
    random: bool = False
    maxpkts: int | None = None
    window: int | None = None
    events: list[tuple[float, str, int | None, int]] = field(default_factory=list)  # (t, verb, bytes, line)

    @property
    def is_app(self) -> bool:
        return self.cls in ("CBR", "FTP")

    @property
    def is_sink(self) -> bool:
        return self.cls in ("Agent/Null", "Agent/LossMonitor") or self.cls[len("Agent/"):] in SINKS

    @property
    def is_tcp(self) -> bool:
        return self.cls[len("Agent/"):] in TCP_VARIANTS


@dataclass
class Connection:
    """One flow of the file: kind "cbr" or "ftp", its ends and settings, and the line that started it."""

    kind: str
    src: int
    dst: int
    start_s: float
    line: int
    stop_s: float | None = None
    bytes: int | None = None
    rate_kbps: float | None = None
    packet_size_bytes: int | None = None
    max_packets: int | None = None
    jitter: bool = False
    tcp: dict[str, Any] = field(default_factory=dict)
    src_line: int = 0  # the lines that attached the agents to their nodes
    dst_line: int = 0


@dataclass
class Ns2Traffic:
    path: str
    connections: list[Connection]
    notes: list[str]


def read_traffic(path: str | Path) -> Ns2Traffic:
    """Read a connection file; raises `Ns2FormatError` (``file:line: problem``) or OSError."""
    return parse_traffic(read_text(path), str(path))


def _bandwidth(tok: str) -> float:
    """An ns-2 bandwidth (`448Kb`, `1Mb`, `64000`, `2MB`) in bit/s, in the
    range of ``flows[].rate_kbps``."""
    m = _BANDWIDTH.fullmatch(tok)
    if not m:
        raise ValueError(f"rate_: {clip(tok)} is not a bandwidth")
    v = number(m.group(1), "rate_") * {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    v *= 8.0 if m.group(3) in ("B", "Bps") else 1.0
    _limits.check(v / 1000.0, F_RATE, f"rate_ {shown(tok)} ({v / 1000.0:g} kbit/s)")
    return v


def _event_time(tok: str, verb: str) -> float:
    """The time of a start, send or stop, in the range of its flow field."""
    return _limits.check(number(tok, "time"), F_STOP if verb == "stop" else F_START, f"time {shown(tok)}")


def _node(tok: str, field: str) -> int:
    return index(tok, "node", field)


def parse_traffic(text: str, path: str = "<traffic>") -> Ns2Traffic:
    """Parse a connection file's text (see the module docstring)."""
    objs: dict[str, _Obj] = {}
    notes: list[str] = []

    def ref(name: str) -> _Obj:
        if name not in objs:
            raise ValueError(f"${name} is not defined above")
        return objs[name]

    def agent_class(cls: str) -> str:
        if cls in ("Agent/UDP", "Agent/Null", "Agent/LossMonitor") or cls[len("Agent/"):] in TCP_VARIANTS or cls[len("Agent/"):] in SINKS:
            return cls
        raise ValueError(f"unsupported class {clip(cls)} (hoplab runs Agent/UDP + Agent/Null with "
                         "Application/Traffic/CBR, Agent/TCP[/Reno|/Newreno|/Sack1|/Vegas] + Agent/TCPSink[/DelAck] "
                         "with Application/FTP)")

    for no, line in commands(text):
        try:
            if (m := _NEW.fullmatch(line)) is not None:
                cls = m.group(2)
                kind = {"Application/Traffic/CBR": "CBR", "Application/FTP": "FTP"}.get(cls) or agent_class(cls)
                objs[m.group(1)] = _Obj(m.group(1), kind, no)
            elif (m := _CREATE.fullmatch(line)) is not None:
                src_t, dst_t = m.group(2), m.group(4)
                if src_t not in TCP_VARIANTS or dst_t not in SINKS:
                    raise ValueError(f"create-connection {clip(src_t)} ... {clip(dst_t)}: hoplab reads TCP "
                                     "connections (TCP[/Reno|/Newreno|/Sack1|/Vegas] to TCPSink[/DelAck])")
                a = _Obj(m.group(1), "Agent/" + src_t, no, node=_node(m.group(3), F_SRC), node_line=no)
                b = _Obj(m.group(1) + "#sink", "Agent/" + dst_t, no, node=_node(m.group(5), F_DST), node_line=no)
                a.peer, b.peer = b, a
                objs[a.name] = a
            elif (m := _ATTACH_SRC.fullmatch(line)) is not None:
                agent = ref(m.group(2))
                app = {"FTP": "FTP", "Traffic/CBR": "CBR", "Application/FTP": "FTP",
                       "Application/Traffic/CBR": "CBR"}.get(m.group(4))
                if app is None:
                    raise ValueError(f"{m.group(3)} {clip(m.group(4))}: hoplab runs FTP and CBR sources")
                objs[m.group(1)] = _Obj(m.group(1), app, no, agent=agent)
            elif (m := _NS_ATTACH.fullmatch(line)) is not None:
                a = ref(m.group(2))
                if a.is_app:
                    raise ValueError(f"${a.name} is an application: attach it to an agent, not a node")
                a.node, a.node_line = _node(m.group(1), F_DST if a.is_sink else F_SRC), no
            elif (m := _APP_ATTACH.fullmatch(line)) is not None:
                app, agent = ref(m.group(1)), ref(m.group(2))
                if not app.is_app or agent.is_app:
                    raise ValueError(f"${app.name} attach-agent ${agent.name}: expected an application and an agent")
                app.agent = agent
            elif (m := _CONNECT.fullmatch(line)) is not None:
                a, b = ref(m.group(1)), ref(m.group(2))
                if a.is_app or b.is_app:
                    raise ValueError("connect joins two agents")
                a.peer, b.peer = b, a
            elif (m := _SET.fullmatch(line)) is not None:
                o, param, val = ref(m.group(1)), m.group(2), m.group(3)
                if param in IGNORED:
                    continue
                if param not in PARAMS:
                    raise ValueError(f"${o.name} set {clip(param)}: hoplab reads {', '.join(sorted(PARAMS))} "
                                     f"(and ignores {', '.join(sorted(IGNORED))})")
                _set_param(o, param, val, notes, path, no)
            elif (m := _AT.fullmatch(line)) is not None:
                # The quoted script may hold several commands (Tcl.n rule [1]).
                inner = m.group(2).strip(TCL_SPACE)
                events = [(c, _EVENT.fullmatch(c)) for _, c in commands(inner)] or [(inner, None)]
                for cmd, e in events:
                    if e is None:
                        raise ValueError(f"unsupported command at time {shown(m.group(1))}: {clip(cmd)} "
                                         "(expected \"$app start\", \"$app stop\" or \"$ftp send nbytes\")")
                for cmd, e in events:
                    app = ref(e.group(1))  # type: ignore[union-attr]
                    verb, arg = e.group(2), e.group(3)  # type: ignore[union-attr]
                    t = _event_time(m.group(1), verb)
                    if (verb == "send") != (arg is not None):
                        raise ValueError(f"{clip(cmd)}: send takes a byte count, start and stop take nothing")
                    if verb == "send" and app.cls != "FTP":
                        raise ValueError(f"{clip(cmd)}: send applies to FTP")
                    nbytes = None
                    if arg is not None:
                        if arg.strip("0") == "":
                            raise ValueError("send 0 bytes")
                        nbytes = index(arg, "bytes", F_BYTES)
                    app.events.append((t, verb, nbytes, no))
            else:
                raise ValueError(f"not an ns-2 connection line: {clip(line)}")
        except ValueError as e:
            raise Ns2FormatError(path, no, str(e)) from None

    conns = []
    for o in objs.values():
        if o.is_app:
            conns.extend(_connection(o, path, notes))
    return Ns2Traffic(path, conns, notes)


def _set_param(o: _Obj, param: str, val: str, notes: list[str], path: str, no: int) -> None:
    if param == "packetSize_":
        # The CBR's is the payload per packet, a TCP agent's the segment payload;
        # others' (a UDP agent's, a sink's) are read but not used.
        field = F_SIZE if o.cls == "CBR" else F_MSS if o.is_tcp else None
        o.size = index(val, "packetSize_", field)
    elif param == "interval_":
        if o.cls != "CBR":
            raise ValueError("interval_ applies to Application/Traffic/CBR")
        t = number(val, "interval_")
        if t <= 0:
            raise ValueError(f"interval_ {shown(val)} must be positive")
        size = o.size if o.size is not None else CBR_SIZE
        o.rate_bps = size * 8.0 / t  # ns-source.tcl: rate_ from the packet size of this moment
        _limits.check(o.rate_bps / 1000.0, F_RATE,
                      f"interval_ {shown(val)} (packetSize_ {size} x 8 / interval_ = {o.rate_bps / 1000.0:g} kbit/s)")
    elif param == "rate_":
        if o.cls != "CBR":
            raise ValueError("rate_ applies to Application/Traffic/CBR")
        o.rate_bps = _bandwidth(val)
    elif param == "random_":
        o.random = number(val, "random_") != 0
    elif param == "maxpkts_":
        long = val.isascii() and val.isdigit() and len(val.lstrip("0")) > len(str(C_INT_MAX))
        o.maxpkts = C_INT_MAX + 1 if long else index(val, "maxpkts_")
        if o.maxpkts > C_INT_MAX:
            raise ValueError(f"maxpkts_ {shown(val)} is more than ns-2 holds (a C int, tools/cbr_traffic.cc: "
                             f"at most {C_INT_MAX})")
    elif param == "window_":
        if not o.is_tcp:
            raise ValueError("window_ applies to a TCP agent")
        w = number(val, "window_")
        if w < 1:  # see the module docstring: ns-2 then never sends
            raise ValueError(f"window_ {shown(val)}: ns-2 never sends a segment with a window below 1 "
                             "(tcp/tcp.cc TcpAgent::window, send_much), and hoplab's max_cwnd = 0 means "
                             "unclamped: give a window of at least 1 segment")
        o.window = int(_limits.check(math.floor(w), F_WINDOW, f"window_ {shown(val)}"))


def _connection(app: _Obj, path: str, notes: list[str]) -> list[Connection]:
    def fail(problem: str, line: int | None = None) -> Ns2FormatError:
        return Ns2FormatError(path, line or app.line, problem)

    if not app.events:
        notes.append(f"{path}:{app.line}: ${app.name} is never started: no flow")
        return []
    agent = app.agent
    if agent is None:
        raise fail(f"${app.name} is not attached to an agent")
    if agent.node is None:
        raise fail(f"${agent.name} is not attached to a node ($ns_ attach-agent $node_(i) ${agent.name})", agent.line)
    peer = agent.peer
    if peer is None:
        raise fail(f"${agent.name} is not connected to a sink ($ns_ connect ...)", agent.line)
    if peer.node is None:
        raise fail(f"${peer.name} is not attached to a node", peer.line)
    starts = [e for e in app.events if e[1] in ("start", "send")]
    stops = [e for e in app.events if e[1] == "stop"]
    if not starts:
        raise fail(f"${app.name} is stopped but never started", app.events[0][3])
    if len(starts) > 1 or len(stops) > 1:
        extra = (starts[1:] or stops[1:])[0]
        raise fail(f"${app.name} is started or stopped more than once (hoplab flows have one start and one stop)",
                   extra[3])
    t0, verb, nbytes, line = starts[0]
    c = Connection("", agent.node, peer.node, t0, line, bytes=nbytes, src_line=agent.node_line,
                   dst_line=peer.node_line)
    if stops:
        if stops[0][0] <= t0:
            raise fail(f"${app.name} stops at {stops[0][0]:g} s, not after its start at {t0:g} s", stops[0][3])
        c.stop_s = stops[0][0]
    if app.cls == "CBR":
        if agent.cls != "Agent/UDP" or peer.cls not in ("Agent/Null", "Agent/LossMonitor"):
            raise fail(f"${app.name}: hoplab runs CBR over Agent/UDP to Agent/Null or Agent/LossMonitor "
                       f"(here {agent.cls} to {peer.cls})")
        size = app.size if app.size is not None else CBR_SIZE
        rate = app.rate_bps if app.rate_bps is not None else CBR_RATE_BPS
        # ns-2 sends the first packet before it tests maxpkts_ (module docstring): 0 sends one.
        packets = max(app.maxpkts, 1) if app.maxpkts is not None else None
        c.kind, c.rate_kbps, c.packet_size_bytes, c.max_packets = "cbr", rate / 1000.0, size, packets
        c.jitter = app.random
    else:
        variant = TCP_VARIANTS.get(agent.cls[len("Agent/"):])
        receiver = SINKS.get(peer.cls[len("Agent/"):])
        if variant is None or receiver is None:
            raise fail(f"${app.name}: hoplab runs FTP over a TCP agent to a TCPSink (here {agent.cls} to {peer.cls})")
        c.kind = "ftp"
        c.tcp = {"variant": variant, "receiver": receiver, "delayed_ack": receiver != "every",
                 "max_cwnd": agent.window if agent.window is not None else TCP_WINDOW,
                 "mss_bytes": agent.size if agent.size is not None else TCP_SIZE}
    return [c]


def hoplab_flows(tr: Ns2Traffic, duration_s: float | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """The connections as hoplab `flows` (in the order the file made their
    sources) and the line each came from. ``duration_s`` is the run's (a
    maxpkts_ that outlasts it is left out)."""
    flows, lines = [], []
    for c in tr.connections:
        f: dict[str, Any] = {"kind": c.kind, "src": c.src, "dst": c.dst, "start_s": c.start_s}
        stop = c.stop_s
        if c.kind == "cbr":
            f["rate_kbps"] = c.rate_kbps
            f["packet_size_bytes"] = c.packet_size_bytes
            if c.jitter:
                f["jitter"] = True  # ns-2 random_ 1 (cbr_traffic.cc next_interval)
            if c.max_packets is not None:
                interval = c.packet_size_bytes * 8.0 / (c.rate_kbps * 1000.0)  # type: ignore[operator]
                # sent at most every half interval (jitter): a count the run cannot reach is no limit
                end = c.start_s + c.max_packets * interval * (0.5 if c.jitter else 1.0)
                if duration_s is None or end < (stop if stop is not None else duration_s):
                    f["max_packets"] = c.max_packets
        if stop is not None:
            f["stop_s"] = stop
        if c.bytes is not None:
            f["bytes"] = c.bytes
        if c.tcp:
            f["tcp"] = dict(c.tcp)
        flows.append(f)
        lines.append(c.line)
    return flows, lines


def merge_traffic(sc: dict[str, Any], tr: Ns2Traffic) -> list[int]:
    """Replace ``sc``'s flows by the file's (in place); the line of each flow.
    Node indices are checked against the scenario's count."""
    from .movement import scenario_nodes

    n = scenario_nodes(sc)
    duration = sc.get("duration_s")
    flows, lines = hoplab_flows(tr, float(duration) if isinstance(duration, (int, float)) else None)
    if n is not None:
        for c in tr.connections:
            for node, line in ((c.src, c.src_line), (c.dst, c.dst_line)):
                if node >= n:
                    raise Ns2FormatError(tr.path, line, f"node {node} is beyond the scenario's {n} nodes")
    base_tcp = sc.get("tcp") if isinstance(sc.get("tcp"), Mapping) else {}
    for k, (f, line) in enumerate(zip(flows, lines)):
        for key in ("variant", "receiver"):
            mine, theirs = f.get("tcp", {}).get(key), base_tcp.get(key)  # type: ignore[union-attr]
            if mine is not None and theirs is not None and mine != theirs:
                tr.notes.append(f"{tr.path}:{line}: flows[{k}] keeps the file's TCP: tcp.{key} = {mine!r} "
                                f"(the base's [tcp] says {theirs!r})")
    sc["flows"] = flows
    return lines


# ---------------------------------------------------------------- writing
_VARIANT_CLASS = {v: k for k, v in TCP_VARIANTS.items()}


def format_traffic(flows: list[Mapping[str, Any]], tcp: Mapping[str, Any] | None = None,
                   comment: str | None = None) -> str:
    """hoplab flows as a cbrgen-style connection file. ``tcp`` is the
    scenario's resolved `[tcp]` table (a flow's own `tcp` table overrides
    it); a window clamp of 0 (unclamped) is written as the receive window in
    segments."""
    base = dict(tcp or {})
    out = ["#", f"# connections: {len(flows)}, written by hoplab" + (f": {comment}" if comment else ""), "#"]
    for i, f in enumerate(flows):
        src, dst, start = int(f["src"]), int(f["dst"]), float(f.get("start_s", 0.0))
        out += ["#", f"# {src} connecting to {dst} at time {start!r}", "#"]
        if f["kind"] == "cbr":
            size = int(f.get("packet_size_bytes", 512))
            interval = size * 8.0 / (float(f["rate_kbps"]) * 1000.0)
            out += [f"set udp_({i}) [new Agent/UDP]", f"$ns_ attach-agent $node_({src}) $udp_({i})",
                    f"set null_({i}) [new Agent/Null]", f"$ns_ attach-agent $node_({dst}) $null_({i})",
                    f"set cbr_({i}) [new Application/Traffic/CBR]", f"$cbr_({i}) set packetSize_ {size}",
                    f"$cbr_({i}) set interval_ {interval!r}", f"$cbr_({i}) set random_ {1 if f.get('jitter') else 0}",
                    *([f"$cbr_({i}) set maxpkts_ {int(f['max_packets'])}"] if f.get("max_packets") else []),
                    f"$cbr_({i}) attach-agent $udp_({i})", f"$ns_ connect $udp_({i}) $null_({i})",
                    f'$ns_ at {start!r} "$cbr_({i}) start"']
            app = f"cbr_({i})"
        else:
            t = {**base, **dict(f.get("tcp") or {})}
            variant = str(t.get("variant", "new_reno"))
            receiver = str(t.get("receiver", "ns2"))
            mss = int(t.get("mss_bytes", 1460))
            window = int(t.get("max_cwnd", 0)) or max(1, int(t.get("receive_window_bytes", 65535)) // mss)
            sink = ("TCPSink/Sack1" if variant == "sack" else "TCPSink") + ("" if receiver == "every" else "/DelAck")
            if receiver == "linux":
                out.append("# hoplab's receiver \"linux\" has no ns-2 sink; TCPSink/DelAck is the nearest")
            out += [f"set tcp_({i}) [$ns_ create-connection {_VARIANT_CLASS[variant]} $node_({src}) {sink} "
                    f"$node_({dst}) 0]",
                    f"$tcp_({i}) set window_ {window}", f"$tcp_({i}) set packetSize_ {mss}",
                    f"set ftp_({i}) [$tcp_({i}) attach-source FTP]"]
            app = f"ftp_({i})"
            verb = "start" if f.get("bytes") is None else f"send {int(f['bytes'])}"
            out.append(f'$ns_ at {start!r} "${app} {verb}"')
        if f.get("stop_s") is not None:
            out.append(f'$ns_ at {float(f["stop_s"])!r} "${app} stop"')
    return "\n".join(out) + "\n"


def write_traffic(flows: list[Mapping[str, Any]], path: str | Path, tcp: Mapping[str, Any] | None = None,
                  comment: str | None = None) -> Path:
    """Write `format_traffic` to ``path`` (atomically) and return it."""
    from ..._io import atomic_write_bytes

    p = Path(path)
    atomic_write_bytes(p, format_traffic(flows, tcp, comment).encode())
    return p
