"""From what a script asked for (`model.Model`) to a hoplab scenario.

The scenario says `compat = "ns2"`: hoplab's ns-2.35 reading of the MAC,
radio, routing and TCP. On top of it come ns-2.35's class defaults where
they differ from that profile (the script front end starts from ns-2's
`ns-default.tcl`, as `ns` does: `Mac/802_11 dataRate_ 1Mb`, `Agent/TCP
window_ 20`, `LL delay_ 25us`, ...), then every value the script set. Each
field remembers where its value came from (`ScriptPlan.sources`), which
`hoplab import` writes beside it as a comment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import classvars
from .errors import Location, ScriptError
from .interp import OutFile, SafeTcl
from .model import AgentObj, AppObj, Model, Value
from .ns import ROUTING, SINKS, TCP_AGENTS, Ns2World

__all__ = ["ScriptPlan", "load_script", "DEFAULT_TIME_LIMIT_S"]

DEFAULT_TIME_LIMIT_S = 60.0
NS2_DEFAULT = "ns-2.35 default (ns-default.tcl)"
_PROPAGATION = {"Propagation/TwoRayGround": "two_ray_ground", "Propagation/FreeSpace": "free_space",
                "Propagation/Shadowing": "shadowing"}
_LAYERS = (("-agentTrace", "AGT"), ("-routerTrace", "RTR"), ("-macTrace", "MAC"))
# node-config options that must agree across nodes (hoplab's settings are the scenario's).
_SHARED = ("-adhocRouting", "-llType", "-macType", "-ifqType", "-ifqLen", "-antType", "-propType", "-propInstance",
           "-phyType", "-agentTrace", "-routerTrace", "-macTrace")


@dataclass
class Output:
    """A file the script opened for writing, and what hoplab puts there."""

    file: OutFile
    role: str  # "trace" (ns-2's trace, hoplab's run), "nam" (not written), "file" (what the script wrote)


@dataclass
class ScriptPlan:
    script: Path
    scenario: dict[str, Any]
    sources: dict[str, Location]
    notes: list[str]
    outputs: list[Output]
    printed: str  # what the script printed while it was read

    @property
    def trace(self) -> Output | None:
        return next((o for o in self.outputs if o.role == "trace"), None)


def load_script(path: str | Path, args: list[str] | tuple[str, ...] = (), *, cwd: str | Path | None = None,
                time_limit_s: float = DEFAULT_TIME_LIMIT_S, echo: Callable[[str], None] | None = None) -> ScriptPlan:
    """Evaluate an ns-2 script and return the scenario it describes.
    Raises ScriptError (`file:line: problem`) for anything hoplab refuses."""
    script = Path(path)
    wd = Path(cwd) if cwd is not None else Path.cwd()
    printed: list[str] = []

    def out(text: str) -> None:
        printed.append(text)
        if echo is not None:
            echo(text)

    if not script.is_file():
        raise ScriptError(Location(str(script)), "no such script file")
    tcl = SafeTcl(script, wd, time_limit_s, out)
    world = Ns2World(tcl, out)
    tcl.source_main(list(args))
    m = world.m
    b = _Builder(m, tcl, world)
    sc = b.scenario()
    outputs = []
    for f in tcl.files.values():
        role = "trace" if f.name == m.trace_file else "nam" if f.name == m.nam_file else "file"
        outputs.append(Output(f, role))
    return ScriptPlan(script, sc, b.sources, m.notes + b.notes, outputs, "".join(printed))


class _Builder:
    def __init__(self, m: Model, tcl: SafeTcl, world: Ns2World):
        self.m, self.tcl, self.world = m, tcl, world
        self.sources: dict[str, Location] = {}
        self.notes: list[str] = []
        self.script_loc = Location(str(tcl.script))

    def put(self, sc: dict[str, Any], path: str, value: Any, loc: Location | None) -> None:
        """Set the dotted ``path`` of ``sc`` and remember where it came from."""
        d = sc
        keys = path.split(".")
        for k in keys[:-1]:
            d = d.setdefault(k, {})
        d[keys[-1]] = value
        if loc is not None:
            self.sources[path] = loc

    # ------------------------------------------------------------ whole scenario
    def scenario(self) -> dict[str, Any]:
        m = self.m
        if not m.ran:
            raise ScriptError(self.script_loc, "the script never calls $ns_ run: there is nothing to simulate")
        if not m.nodes:
            raise ScriptError(self.script_loc, "the script makes no node ($ns_ node)")
        if m.end_s is None:
            raise ScriptError(self.script_loc, "the simulation never ends: the script schedules no \"$ns_ halt\" "
                              "(or exit) and ns-2 would run for ever")
        if m.end_s <= 0:
            raise ScriptError(m.end_loc or self.script_loc, "the simulation halts at time 0: nothing to simulate")
        sc: dict[str, Any] = {}
        self.put(sc, "name", Path(m.script).stem, None)
        self.put(sc, "compat", "ns2", None)
        self.put(sc, "seed", m.seed if m.seed is not None else 1, m.seed_loc)
        if m.seed is None:
            self.notes.append("the script sets no seed: hoplab runs seed 1 (ns-2's own default streams cannot be "
                              "reproduced; compare over several seeds)")
        self.put(sc, "duration_s", float(m.end_s), m.end_loc)
        cfg = self._config()
        self._topology(sc)
        self._routing(sc, cfg)
        self._radio_mac(sc, cfg)
        self._flows(sc)
        self._mobility(sc)
        self._trace(sc, cfg)
        return sc

    def _config(self) -> dict[str, Value]:
        first = self.m.nodes[0]
        for n in self.m.nodes[1:]:
            for opt in _SHARED:
                a, b = first.config.get(opt), n.config.get(opt)
                if (a.text if a else None) != (b.text if b else None):
                    raise ScriptError(n.loc, f"node {n.id} has node-config {opt} {b.text if b else '(unset)'} "
                                      f"where node 0 has {a.text if a else '(unset)'}: hoplab's nodes share one "
                                      "configuration")
        chans = {n.config["-channel"].text for n in self.m.nodes if "-channel" in n.config}
        if len(chans) > 1:
            n = next(n for n in self.m.nodes if n.config.get("-channel") and n.config["-channel"].text != sorted(chans)[0])
            raise ScriptError(n.config["-channel"].loc, "a second channel: hoplab's nodes share one radio channel")
        return first.config

    # ------------------------------------------------------------ topology and mobility
    def _topology(self, sc: dict[str, Any]) -> None:
        positions, locs = [], []
        for n in self.m.nodes:
            x, y = n.pos.get("X_"), n.pos.get("Y_")
            # ns-2: a MobileNode starts at (0, 0) until its X_ and Y_ are set
            positions.append([float(x.text) if x else 0.0, float(y.text) if y else 0.0])
            locs.append((x or y).loc if (x or y) else n.loc)
        self.put(sc, "topology", {"kind": "explicit", "positions": positions}, None)
        for i, loc in enumerate(locs):
            self.sources[f"topology.positions[{i}]"] = loc

    def _mobility(self, sc: dict[str, Any]) -> None:
        from ..movement import Ns2Leg, Ns2Movement, hoplab_legs

        end = float(sc["duration_s"])
        legs = [lg for lg in self.m.legs if lg.at_s < end]
        if not legs:
            return
        pos = [tuple(p) for p in sc["topology"]["positions"]]
        locs = {}
        ns2legs = []
        for k, lg in enumerate(legs):
            ns2legs.append(Ns2Leg(lg.node, lg.at_s, lg.to, lg.speed_mps, k))
            locs[k] = lg.loc
        mv = Ns2Movement(str(self.m.script), pos, ns2legs)  # type: ignore[arg-type]
        out, keys = hoplab_legs(mv)
        if out:
            sc["mobility"] = {"legs": out}
            for i, k in enumerate(keys):
                self.sources[f"mobility.legs[{i}]"] = locs[k]

    # ------------------------------------------------------------ routing, radio, MAC, link
    def _routing(self, sc: dict[str, Any], cfg: dict[str, Value]) -> None:
        v = cfg["-adhocRouting"]
        proto = ROUTING[v.text]
        self.put(sc, "routing.protocol", proto, v.loc)
        if v.text == "DumbAgent":
            self.notes.append(f"{v.loc}: DumbAgent delivers to one-hop neighbours only; hoplab's static routing "
                              "also relays over several hops")
        if v.text == "DSR" and cfg.get("-ifqType") and cfg["-ifqType"].text != "CMUPriQueue":
            self.notes.append(f"{cfg['-ifqType'].loc}: ns-2's DSR agent needs CMUPriQueue; hoplab's DSR uses its "
                              "own interface queue either way")

    def _class_value(self, cls: str, var: str) -> tuple[str, Location | None]:
        """The value a new object of ``cls`` gets for ``var``: the nearest
        class's `set`, else ns-2's default."""
        c = cls
        while c:
            v = self.m.class_vars.get((c, var))
            if v is not None:
                return v.text, v.loc
            c = c.rpartition("/")[0]
        cv = classvars.lookup(cls, var)
        return (cv.default if cv else ""), None

    def _apply_class(self, sc: dict[str, Any], cls: str, obj_vars: dict[str, Value] | None = None,
                     skip: tuple[str, ...] = ()) -> None:
        """Every scenario-wide field of ``cls``'s variables (and its bases')."""
        for cv in classvars.CLASS_VARS:
            if cv.field is None or not cls.startswith(cv.cls) or cv.var in skip:
                continue
            if not (cls == cv.cls or cls.startswith(cv.cls + "/")):
                continue
            if classvars.scope_of(cv) != "scenario":
                continue
            own = (obj_vars or {}).get(cv.var)
            text, loc = (own.text, own.loc) if own else self._class_value(cls, cv.var)
            if not text:
                continue
            value = cv.read(text, f"{cv.cls} {cv.var}")  # type: ignore[misc]
            self.put(sc, cv.field, value, loc or self._default_loc(cv))

    def _default_loc(self, cv: classvars.ClassVar) -> Location:
        return Location(f"{NS2_DEFAULT}: {cv.cls} set {cv.var} {cv.default}")

    def _radio_mac(self, sc: dict[str, Any], cfg: dict[str, Value]) -> None:
        self._apply_class(sc, cfg["-macType"].text if "-macType" in cfg else "Mac/802_11")
        self._apply_class(sc, "LL")
        self._apply_class(sc, cfg["-phyType"].text if "-phyType" in cfg else "Phy/WirelessPhy")
        self._apply_class(sc, "Antenna/OmniAntenna", skip=("Gt_", "Gr_"))
        ifq = cfg.get("-ifqType")
        if ifq is not None and ifq.text == "Queue/DropTail/PriQueue":
            self._apply_class(sc, ifq.text)
        if "-ifqLen" in cfg:
            from .units import parse_int

            n = parse_int(cfg["-ifqLen"].text, "-ifqLen")
            if ifq is not None and ifq.text == "CMUPriQueue" and n != classvars.CMU_PRIQUEUE_LIMIT:
                self.notes.append(f"{cfg['-ifqLen'].loc}: CMUPriQueue ignores -ifqLen (each class holds its "
                                  f"compiled-in {classvars.CMU_PRIQUEUE_LIMIT} packets), so hoplab keeps "
                                  f"mac.queue_limit = {classvars.CMU_PRIQUEUE_LIMIT}")
            else:
                self.put(sc, "mac.queue_limit", n, cfg["-ifqLen"].loc)
        # Antenna gains: every ns-2 propagation model computes Pt_ x Gt_ x Gr_ (folded into the power).
        gt, gt_loc = self._class_value("Antenna/OmniAntenna", "Gt_")
        gr, gr_loc = self._class_value("Antenna/OmniAntenna", "Gr_")
        g = float(gt) * float(gr)
        if g <= 0:
            raise ScriptError(gt_loc or gr_loc or self.script_loc, "antenna gains must be positive")
        if g != 1.0:
            pt = sc["radio"]["tx_power_w"] * g
            self.put(sc, "radio.tx_power_w", pt, gt_loc or gr_loc)
            self.notes.append(f"{gt_loc or gr_loc}: antenna gains Gt_ {gt} x Gr_ {gr} are folded into "
                              f"radio.tx_power_w = {pt:g} W (ns-2 multiplies Pt_, Gt_ and Gr_ in every model)")
        # Propagation: a type, or an object with its own variables.
        prop_cls, prop_vars, prop_loc = "Propagation/TwoRayGround", {}, None
        if "-propInstance" in cfg:
            o = self.world.objs[cfg["-propInstance"].text]
            prop_cls, prop_vars, prop_loc = o.cls, o.vars, cfg["-propInstance"].loc
        elif "-propType" in cfg:
            prop_cls, prop_loc = cfg["-propType"].text, cfg["-propType"].loc
        model = _PROPAGATION[prop_cls]
        if model != "two_ray_ground":
            self.put(sc, "radio.propagation", model, prop_loc)
        if model == "shadowing":
            self._apply_class(sc, prop_cls, prop_vars)

    # ------------------------------------------------------------ flows
    def _flows(self, sc: dict[str, Any]) -> None:
        flows: list[dict[str, Any]] = []
        end = float(sc["duration_s"])
        for app in self.m.apps:
            f = self._flow(app, end)
            if f is None:
                continue
            flow, srcs = f
            k = len(flows)
            flows.append(flow)
            for key, loc in srcs.items():
                self.sources[f"flows[{k}].{key}"] = loc
        if not flows:
            raise ScriptError(self.script_loc, "the script starts no traffic (an FTP or CBR application's start "
                              "before the end of the run): hoplab needs at least one flow")
        self._tcp_tables(sc, flows)
        sc["flows"] = flows

    def _flow(self, app: AppObj, end: float) -> tuple[dict[str, Any], dict[str, Location]] | None:
        starts = [e for e in app.events if e[1] != "stop"]
        stops = [e for e in app.events if e[1] == "stop"]
        if not starts:
            self.notes.append(f"{app.loc}: {app.cls} {app.name} is never started before the end: no flow")
            return None
        if len(starts) > 1 or len(stops) > 1:
            extra = (starts[1:] or stops[1:])[0]
            raise ScriptError(extra[3], f"{app.cls} started or stopped more than once: hoplab's flows have one "
                              "start and one stop")
        t0, verb, arg, where = starts[0]
        agent = app.agent
        if agent is None:
            raise ScriptError(app.loc, f"{app.cls} is started but not attached to an agent")
        if agent.node is None:
            raise ScriptError(agent.loc, f"{agent.cls} is not attached to a node ($ns_ attach-agent)")
        peer = agent.peer
        if peer is None or peer.node is None:
            raise ScriptError(agent.loc, f"{agent.cls} is not connected to an agent on a node ($ns_ connect)")
        if agent.node is peer.node:
            raise ScriptError(agent.loc, "source and sink on the same node: hoplab's flows cross the network")
        srcs: dict[str, Location] = {"kind": app.loc, "src": agent.node_loc or agent.loc,
                                     "dst": peer.node_loc or peer.loc, "start_s": where}
        f: dict[str, Any] = {"kind": "", "src": agent.node.id, "dst": peer.node.id, "start_s": t0}
        if stops:
            if stops[0][0] <= t0:
                raise ScriptError(stops[0][3], f"stop at {stops[0][0]:g} s is not after the start at {t0:g} s")
            if stops[0][0] < end:
                f["stop_s"] = stops[0][0]
                srcs["stop_s"] = stops[0][3]
        if app.cls == "Application/FTP":
            if agent.cls not in TCP_AGENTS or peer.cls not in SINKS:
                raise ScriptError(app.loc, f"FTP runs over a TCP agent to a TCPSink (here {agent.cls} to {peer.cls})")
            f["kind"] = "ftp"
            if verb in ("send", "produce"):
                from .units import parse_int

                n = parse_int(arg or "0", verb)
                mss = int(self._agent_value(agent, "packetSize_")[0])
                f["bytes"] = n if verb == "send" else n * mss
                srcs["bytes"] = where
            f["_agent"], f["_sink"] = agent, peer
        else:
            if agent.cls not in ("Agent/UDP", "Agent/CBR") or peer.cls not in ("Agent/Null", "Agent/LossMonitor"):
                raise ScriptError(app.loc, f"{app.cls} runs over Agent/UDP to Agent/Null or Agent/LossMonitor "
                                  f"(here {agent.cls} to {peer.cls})")
            f["kind"] = "cbr"
            for cv in classvars.CLASS_VARS:
                if cv.cls != app.cls or cv.field is None or cv.var == "interval_":
                    continue
                own = app.vars.get(cv.var)
                text, loc = (own.text, own.loc) if own else self._class_value(app.cls, cv.var)
                key = cv.field.removeprefix("flows[].")
                value = cv.read(text, f"{app.cls} {cv.var}")  # type: ignore[misc]
                if cv.var == "maxpkts_":
                    if own is None and not self.m.class_vars.get((app.cls, "maxpkts_")):
                        continue  # ns-2's 2^28: no limit in any run
                    value = max(int(value), 1)  # cbr_traffic.cc: the first packet goes before the count is tested
                if cv.var == "random_" and not value:
                    continue
                f[key] = value
                srcs[key] = loc or self._default_loc(cv)
            if app.cls == "Application/Traffic/Exponential":
                f["distribution"] = "exponential"
            udp_size = int(float(self._class_value(agent.cls, "packetSize_")[0] or 1000))
            if f.get("packet_size_bytes", 0) > udp_size and agent.cls == "Agent/UDP":
                raise ScriptError(app.loc, f"packetSize_ {f['packet_size_bytes']} above the UDP agent's packetSize_ "
                                  f"{udp_size}: ns-2 would split each message, which hoplab does not model")
        return f, srcs

    def _agent_value(self, o: AgentObj, var: str) -> tuple[str, Location | None]:
        v = o.vars.get(var)
        return (v.text, v.loc) if v else self._class_value(o.cls, var)

    def _tcp_tables(self, sc: dict[str, Any], flows: list[dict[str, Any]]) -> None:
        """TCP settings: the values shared by every TCP flow go to [tcp], the
        others to each flow's own table; variant and receiver are per flow."""
        per: list[dict[str, tuple[Any, Location | None]]] = []
        tcp_vars = [cv for cv in classvars.CLASS_VARS if cv.field and cv.field.startswith("tcp.")]
        for f in flows:
            if f["kind"] != "ftp":
                continue
            agent, sink = f.pop("_agent"), f.pop("_sink")
            vals: dict[str, tuple[Any, Location | None]] = {}
            vals["variant"] = (TCP_AGENTS[agent.cls], agent.loc)
            vals["receiver"] = (SINKS[sink.cls], sink.loc)
            for cv in tcp_vars:
                if cv.cls.startswith("Agent/TCPSink"):
                    if not sink.cls.startswith(cv.cls):
                        continue
                    text, loc = self._agent_value(sink, cv.var)
                elif agent.cls.startswith(cv.cls):
                    text, loc = self._agent_value(agent, cv.var)
                else:
                    continue
                vals[cv.field.removeprefix("tcp.")] = (cv.read(text, f"{cv.cls} {cv.var}"),  # type: ignore[misc]
                                                        loc or self._default_loc(cv))
            # tcp.cc TcpAgent::reset runs as the agent is made and sets
            # ssthresh_ = window_ as its class has it then; the agent's own
            # `set window_` comes later and leaves it.
            win_cv = next(cv for cv in tcp_vars if cv.var == "window_")
            text, loc = self._class_value(agent.cls, "window_")
            vals["initial_ssthresh"] = (max(int(float(text)), 1), loc or self._default_loc(win_cv))
            w = vals.get("max_cwnd")
            if w is not None and w[0] < 1:
                raise ScriptError(w[1] or self.script_loc, "window_ below 1: ns-2 never sends a segment "
                                  "(tcp.cc TcpAgent::window), and hoplab's max_cwnd 0 means unclamped")
            per.append(vals)
        # Agent/TCP class settings of a script without TCP flows still become [tcp] (they change nothing).
        if not per:
            for cv in tcp_vars:
                v = self.m.class_vars.get((cv.cls, cv.var))
                if v is not None:
                    self.put(sc, cv.field, cv.read(v.text, f"{cv.cls} {cv.var}"), v.loc)  # type: ignore[misc,arg-type]
            return
        keys = list(per[0])
        tcp_flows = [f for f in flows if f["kind"] == "ftp"]
        for key in keys:
            values = [p[key][0] for p in per]
            if all(v == values[0] for v in values):
                self.put(sc, f"tcp.{key}", values[0], per[0][key][1])
            else:
                for f, p in zip(tcp_flows, per):
                    f.setdefault("tcp", {})[key] = p[key][0]
                    k = flows.index(f)
                    if p[key][1] is not None:
                        self.sources[f"flows[{k}].tcp.{key}"] = p[key][1]  # type: ignore[assignment]

    # ------------------------------------------------------------ traces
    def _trace(self, sc: dict[str, Any], cfg: dict[str, Value]) -> None:
        """ns-2's trace switches govern the s/r/f lines of their levels; the
        RTR and IFQ drop targets are traced whatever they say (ns-mobilenode.tcl
        add-interface: "always on regardless of other tracing")."""
        m = self.m
        if m.trace_file is None:
            return
        layers = [layer for opt, layer in _LAYERS if opt in cfg and cfg[opt].text.upper() == "ON"]
        self.put(sc, "trace.formats", ["ns2"], m.trace_loc)
        self.put(sc, "trace.ns2_format", "new" if m.new_trace else "old", m.trace_loc)
        if layers:
            self.put(sc, "trace.layers", layers, cfg[next(o for o, l in _LAYERS if l == layers[0])].loc)
        else:  # every switch OFF: drops only (PHY has no line of its own in an ns-2 trace)
            self.put(sc, "trace.layers", ["PHY"], m.trace_loc)
            self.put(sc, "trace.events", ["drop"], m.trace_loc)
        self.put(sc, "trace.drop_levels", ["RTR", "IFQ"], m.trace_loc)
