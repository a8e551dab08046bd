"""The ns-2 objects a wireless script uses, as stand-ins that record what
the script asks for (`model.Model`) instead of simulating it.

`new Simulator`, `Topography`, `create-god`/`God instance`, `$ns_
node-config`, `$ns_ node`, `$node set X_`, `$ns_ at T "..."`, agents,
applications, `attach-agent`, `connect`, `create-connection`, traces,
`$defaultRNG seed`, class defaults (`Mac/802_11 set dataRate_ 2Mb`) and the
scheduler: `$ns_ run` runs the `$ns_ at` events in time order (ties in the
order they were scheduled, as ns-2's scheduler does), each script at the
global level, so `setdest`, `start`, `stop` and `halt` land at their times.

Anything else an ns-2 script could mean (wired nodes, hierarchical
addresses, MobileIP, other MACs and routing agents, energy, OTcl classes
that override ns-2's own) is refused in one line naming the file, line and
construct (`ScriptError`), never ignored.
"""

from __future__ import annotations

import heapq
import math
from typing import Any, Callable

from . import classvars
from .errors import Location, ScriptError
from .interp import SafeTcl
from .model import AgentObj, AppObj, Leg, Model, NodeObj, Obj, Value
from .units import parse_atof, parse_int, parse_number, parse_time

__all__ = ["Ns2World", "MAX_NODES"]

#: The most nodes a script may create (hoplab's engine takes up to 10^6, but
#: a script's Tcl loop at that size is a mistake far more often than a plan).
MAX_NODES = 100_000
MAX_EVENTS = 5_000_000

# ns-2 classes a wireless script names, by what hoplab does with them.
ROUTING = {"AODV": "aodv", "DSR": "dsr", "DSDV": "dsdv", "OLSR": "olsr", "DumbAgent": "static"}
TCP_AGENTS = {"Agent/TCP": "tahoe", "Agent/TCP/Reno": "reno", "Agent/TCP/Newreno": "new_reno",
              "Agent/TCP/Sack1": "sack", "Agent/TCP/Vegas": "vegas"}
SINKS = {"Agent/TCPSink": "every", "Agent/TCPSink/DelAck": "ns2", "Agent/TCPSink/Sack1": "every",
         "Agent/TCPSink/Sack1/DelAck": "ns2"}
UDP_AGENTS = {"Agent/UDP", "Agent/CBR"}
NULL_AGENTS = {"Agent/Null", "Agent/LossMonitor"}
APPS = {"Application/FTP": "ftp", "Application/Traffic/CBR": "cbr", "Application/Traffic/Exponential": "exp",
        "FTP": "ftp", "Traffic/CBR": "cbr", "CBR": "cbr", "Traffic/Exponential": "exp"}
APP_CLASS = {"ftp": "Application/FTP", "cbr": "Application/Traffic/CBR", "exp": "Application/Traffic/Exponential"}
# node-config options: what each may be.
CONFIG_CHOICES = {
    "-llType": {"LL"},
    "-macType": {"Mac/802_11"},
    "-ifqType": {"Queue/DropTail/PriQueue", "CMUPriQueue"},
    "-antType": {"Antenna/OmniAntenna"},
    "-propType": {"Propagation/TwoRayGround", "Propagation/FreeSpace", "Propagation/Shadowing"},
    "-phyType": {"Phy/WirelessPhy"},
    "-channelType": {"Channel/WirelessChannel"},
}
CONFIG_FREE = {"-adhocRouting", "-ifqLen", "-channel", "-topoInstance", "-agentTrace", "-routerTrace",
               "-macTrace", "-movementTrace", "-toraDebug", "-phyTrace", "-eotTrace", "-reset"}
CONFIG_REFUSED = {
    "-wiredRouting": "wired-cum-wireless nodes (base stations)",
    "-addressType": "hierarchical addresses",
    "-mobileIP": "MobileIP",
    "-energyModel": "the energy model",
    "-initialEnergy": "the energy model", "-rxPower": "the energy model", "-txPower": "the energy model",
    "-idlePower": "the energy model", "-sleepPower": "the energy model", "-transitionPower": "the energy model",
    "-errProc": "error models", "-IncomingErrProc": "error models", "-OutgoingErrProc": "error models",
    "-FECProc": "error models", "-diffusionFilter": "directed diffusion", "-satNodeType": "satellite nodes",
    "-rxTrace": "", "-sensorNode": "sensor nodes",
}
# Values of an agent or application that only the running simulation knows.
DYNAMIC = {"ack_", "cwnd_", "t_seqno_", "seqno_", "nrexmit_", "nrexmitpack_", "nrexmitbytes_", "ndatapack_",
           "ndatabytes_", "ssthresh_", "rtt_", "srtt_", "rttvar_", "backoff_", "maxseq_", "bytes_", "npkts_",
           "nlost_", "lastPktTime_", "expected_", "ncwndcuts_", "nackpack_", "singleton_"}
# Commands of a node that draw or label it for nam, or that ns-2 runs at the
# end of a script: they change nothing simulated.
NODE_NOOPS = {"reset", "color", "label", "shape", "label-color", "add-mark", "delete-mark", "log-movement",
              "namattach", "radius", "topography", "dump", "start-expire", "nodeid"}
SIM_NOOPS = {"flush-trace", "use-scheduler", "color", "nam-end-wireless", "initial_node_pos", "puts-nam-traceall",
             "set-animation-rate", "gen-map", "dump-namcolors", "namtrace-config", "add-agent-trace",
             "dumpq", "clearMemTrace", "use-taggedtrace"}
NAMESPACES = ("Agent", "Application", "Mac", "Phy", "Queue", "Propagation", "Antenna", "Channel", "LL", "Node",
              "Simulator", "Classifier", "Trace", "CMUTrace", "Topography", "God", "RNG", "RandomVariable",
              "ErrorModel", "Energy", "SRNode", "SRNodeNew", "CMUPriQueue", "Mac/802_11", "ARPTable",
              "Module", "Connector", "Link", "AddrParams", "Class", "Object", "TclObject", "Timer")


# Commands of a full Tcl that a safe interpreter lacks, and why they stay out.
_SHELL = {"exec": "runs a shell command", "socket": "opens a network connection", "cd": "changes the directory",
          "load": "loads machine code", "glob": "lists the file system", "pwd": "reads the process's directory",
          "encoding": "changes the system encoding", "unload": "unloads machine code"}


class Ns2World:
    """The stand-in objects inside one `SafeTcl`, filling one `Model`."""

    def __init__(self, tcl: SafeTcl, echo: Callable[[str], None]):
        self.t = tcl
        self.m = Model(str(tcl.script))
        self.echo = echo
        self.objs: dict[str, Obj] = {}
        self.config: dict[str, Value] = {}
        self.now = 0.0
        self.queue: list[tuple[float, int, str, Location]] = []
        self._seq = 0
        self.halted = False
        self.running = False
        self.sim: Obj | None = None
        self.god: Obj | None = None
        self._n = 0
        tcl.alias("new", self._new)
        tcl.alias("delete", lambda *a: None)
        tcl.alias("unknown", self._unknown)
        tcl.alias("create-god", self._create_god)
        tcl.alias("ns-random", self._ns_random)
        tcl.alias("Class", self._class)
        from importlib.resources import files

        tcl.eval_setup(files(__package__).joinpath("otcl.tcl").read_text())
        self.rng = self._make("RNG", "RNG")
        tcl.set_global("defaultRNG", self.rng.name)

    # ------------------------------------------------------------ helpers
    def where(self) -> Location:
        return self.t.where()

    def fail(self, problem: str) -> ScriptError:
        return ScriptError(self.where(), problem)

    def _make(self, cls: str, kind: str) -> Obj:
        self._n += 1
        name = f"_o{self._n}"
        loc = self.where()
        o: Obj
        if kind == "node":
            o = NodeObj(name, cls, loc)
        elif kind == "agent":
            o = AgentObj(name, cls, loc)
        elif kind == "app":
            o = AppObj(name, cls, loc)
        else:
            o = Obj(name, cls, loc)
        self.objs[name] = o
        self.t.alias(name, lambda *a, _o=o: self._call(_o, list(a)))
        return o

    # ------------------------------------------------------------ global commands
    def _new(self, *args: str) -> str:
        if not args:
            raise self.fail("new needs a class name")
        cls, rest = args[0], args[1:]
        if self._user_class(cls):
            return str(self.t.tcl.call("interp", "eval", self.t.child, ["::__oo::new", cls, *rest]))
        if cls == "Simulator":
            if self.sim is not None:
                raise self.fail("a second Simulator: ns-2 has one (Simulator instance)")
            self.sim = self._make("Simulator", "sim")
            return self.sim.name
        if cls in ("Topography", "RNG") or cls.startswith("RandomVariable/"):
            return self._make(cls, cls.lower()).name
        if cls in CONFIG_CHOICES["-propType"]:
            return self._make(cls, "prop").name
        if cls in CONFIG_CHOICES["-channelType"]:
            o = self._make(cls, "channel")
            return o.name
        if cls in TCP_AGENTS or cls in SINKS or cls in UDP_AGENTS or cls in NULL_AGENTS:
            o = self._make(cls, "agent")
            self.m.agents.append(o)  # type: ignore[arg-type]
            return o.name
        if cls in APPS:
            o = self._make(APP_CLASS[APPS[cls]], "app")
            self.m.apps.append(o)  # type: ignore[arg-type]
            return o.name
        if cls in ("God",):
            return self._create_god()
        raise self.fail(f"new {cls}: {self._why_not(cls)}")

    def _why_not(self, cls: str) -> str:
        if cls.startswith("Agent/TCP/") or cls.startswith("Agent/TCPSink"):
            return ("hoplab runs Agent/TCP (Tahoe), /Reno, /Newreno, /Sack1 and /Vegas with Agent/TCPSink, "
                    "/DelAck, /Sack1 and /Sack1/DelAck")
        if cls.startswith("Agent/"):
            return "not an agent hoplab models (TCP, UDP, CBR, Null and LossMonitor agents are)"
        if cls.startswith("Application/"):
            return "not an application hoplab models (FTP, Traffic/CBR and Traffic/Exponential are)"
        if cls.startswith("Mac/") or cls.startswith("Phy/"):
            return "hoplab models Mac/802_11 over Phy/WirelessPhy only"
        return "not an ns-2 class hoplab models"

    def _create_god(self, *args: str) -> str:
        if self.god is None:
            self.god = self._make("God", "god")
        return self.god.name

    def _ns_random(self, *args: str) -> str:
        if args:
            self._seed(args[0])
        return "0"

    def _seed(self, text: str) -> None:
        v = parse_int(text, "seed")
        if v < 0:
            raise self.fail(f"seed {text}: must not be negative")
        self.m.seed, self.m.seed_loc = v, self.where()

    def _class(self, *args: str) -> str:
        """`Class Name ?-superclass Base?`: a script's own OTcl class (otcl.tcl),
        as ns-2's test suites define them; one that extends an ns-2 class
        would override ns-2's behaviour, and is refused."""
        if not args:
            raise self.fail("Class needs a name")
        name, rest = args[0], list(args[1:])
        super_ = ""
        if rest[:1] == ["-superclass"] and len(rest) == 2:
            super_ = rest[1]
        elif rest:
            raise self.fail(f"Class {name} {' '.join(rest)[:40]}: hoplab's OTcl takes -superclass only")
        if super_ and not self._user_class(super_):
            raise self.fail(f"Class {name} -superclass {super_}: a class derived from ns-2's {super_} would change "
                            "what ns-2 simulates, which hoplab models as ns-2 defines it")
        if name.split("/")[0] in NAMESPACES or name in self.objs:
            raise self.fail(f"Class {name}: redefines an ns-2 class, which hoplab models as ns-2 defines it")
        return str(self.t.tcl.call("interp", "eval", self.t.child, ["::__oo::class", name, super_]))

    def _user_class(self, name: str) -> bool:
        return str(self.t.tcl.call("interp", "eval", self.t.child, ["::__oo::isclass", name])) == "1"

    def _unknown(self, *args: str) -> str:
        """Tcl's `unknown`: a class used as a command (`Mac/802_11 set
        dataRate_ 2Mb`, `God instance`, `Simulator instance`), else a refusal."""
        if not args:
            raise self.fail("empty command")
        cmd, rest = args[0], list(args[1:])
        if cmd in _SHELL:
            raise self.fail(f"{cmd}: {_SHELL[cmd]}, which hoplab's script interpreter does not allow")
        if cmd == "God" and rest == ["instance"]:
            return self._create_god()
        if cmd == "Simulator" and rest == ["instance"]:
            if self.sim is None:
                raise self.fail("Simulator instance: no simulator was made yet (set ns_ [new Simulator])")
            return self.sim.name
        if rest and rest[0] in ("instproc", "instproc-unknown", "proc", "superclass"):
            raise self.fail(f"{cmd} {rest[0]} ...: redefining an ns-2 class's methods is not modelled by hoplab "
                            "(it runs ns-2's classes as ns-2 defines them)")
        if rest and rest[0] in ("set", "instvar") and (cmd.split("/")[0] in NAMESPACES or "/" in cmd):
            return self._class_set(cmd, rest[1:])
        if cmd.split("/")[0] in NAMESPACES or "/" in cmd:
            raise self.fail(f"{cmd} {' '.join(rest)[:40]}: not an ns-2 class command hoplab models")
        raise self.fail(f"invalid command name \"{cmd[:60]}\"")

    def _class_set(self, cls: str, rest: list[str]) -> str:
        if len(rest) == 1:  # a read
            v = self.m.class_vars.get((cls, rest[0]))
            if v is not None:
                return v.text
            cv = classvars.lookup(cls, rest[0])
            if cv is None:
                raise self.fail(f"{cls} set {rest[0]}: not a variable hoplab knows")
            return cv.default
        if len(rest) != 2:
            raise self.fail(f"{cls} set: expected a variable and a value")
        var, value = rest
        cv = classvars.lookup(cls, var)
        if cv is None:
            if cls == "Simulator" or cls.startswith("Node"):
                raise self.fail(f"{cls} set {var}: not a setting hoplab models")
            raise self.fail(f"{cls} set {var} {value[:30]}: not a setting hoplab models (hoplab models "
                            "every ns-2 class variable it reads, and refuses the rest by name)")
        self._check(cv, value)
        self.m.class_vars[(cls, var)] = Value(value, self.where())
        return value

    def _check(self, cv: classvars.ClassVar, value: str) -> None:
        """A value that is refused or malformed fails where it is set; one that
        ns-2 itself never reads is said once, so no setting passes unseen."""
        what = f"{cv.cls} {cv.var}"
        if cv.ignored and value.strip() != cv.default and cv.why not in (classvars.PORT_WHY, classvars.NAM_WHY):
            self.m.notes.append(f"{self.where()}: {what} {value[:30]}: not used ({cv.why})")
        if cv.fixed:
            same = value.strip() == cv.default
            if not same:
                try:
                    same = math.isclose(parse_number(value, what), parse_number(cv.default, what))
                except ValueError:
                    same = False
            if not same:
                raise self.fail(f"{cv.var} {value[:30]}: hoplab models {cv.var} {cv.default} only ({cv.why})")
        elif cv.read is not None:
            cv.read(value, what)

    # ------------------------------------------------------------ objects
    def _call(self, o: Obj, a: list[str]) -> str:
        if not a:
            raise self.fail(f"{o.cls} object called without a method")
        if o.cls == "Simulator":
            return self._sim(o, a[0], a[1:])
        if isinstance(o, NodeObj):
            return self._node(o, a[0], a[1:])
        if isinstance(o, AgentObj):
            return self._agent(o, a[0], a[1:])
        if isinstance(o, AppObj):
            return self._app(o, a[0], a[1:])
        if o.cls == "God":
            if a[0] in ("set-dist", "num_nodes", "new_node", "on", "off", "set_pos", "set-pos", "update-dist",
                        "compute_route", "off_node"):
                return str(len(self.m.nodes)) if a[0] == "num_nodes" else ""
            raise self.fail(f"$god_ {a[0]}: not a God command hoplab models")
        if o.cls == "Topography":
            if a[0] == "load_flatgrid" and len(a) >= 3:
                self.m.area = (parse_number(a[1], "load_flatgrid x"), parse_number(a[2], "load_flatgrid y"))
                return ""
            raise self.fail(f"$topo {a[0]}: hoplab models a flat grid (load_flatgrid), not elevation maps")
        if o.cls in CONFIG_CHOICES["-channelType"]:
            raise self.fail(f"channel {a[0]}: not a channel command hoplab models")
        if o.cls == "RNG":
            return self._rng(o, a[0], a[1:])
        if o.cls in CONFIG_CHOICES["-propType"] and a[0] == "seed":
            self.m.notes.append(f"{self.where()}: {o.cls} seed {' '.join(a[1:])}: hoplab draws the shadowing from "
                                "the run's seed, not from ns-2's generator")
            return ""
        return self._var(o, a)

    def _var(self, o: Obj, a: list[str]) -> str:
        if a[0] != "set":
            raise self.fail(f"{o.cls} {a[0]}: not a command hoplab models")
        if len(a) == 2:
            if a[1] in DYNAMIC:
                raise self.fail(f"{o.cls} set {a[1]}: reads the running simulation's state, which hoplab's script "
                                "front end does not have while the script runs (the results tables and "
                                "[output] timeseries hold it after the run)")
            v = o.vars.get(a[1])
            if v is not None:
                return v.text
            cv = classvars.lookup(o.cls, a[1])
            if cv is not None:
                return self._class_value(o.cls, a[1], cv.default)
            raise self.fail(f"{o.cls} set {a[1]}: not a variable hoplab knows")
        if len(a) != 3:
            raise self.fail(f"{o.cls} set: expected a variable and a value")
        cv = classvars.lookup(o.cls, a[1])
        if cv is None:
            raise self.fail(f"{o.cls} set {a[1]} {a[2][:30]}: not a setting hoplab models")
        self._check(cv, a[2])
        if o.cls == "Application/Traffic/CBR" and a[1] == "interval_":
            # ns-source.tcl: interval_ sets rate_ = packetSize_ x 8 / interval_ with the size of this moment
            t = parse_time(a[2], "interval_")
            if t <= 0:
                raise self.fail(f"interval_ {a[2]}: must be positive")
            size = parse_int(self._var(o, ["set", "packetSize_"]), "packetSize_")
            o.vars["rate_"] = Value(repr(size * 8.0 / t), self.where())
        o.vars[a[1]] = Value(a[2], self.where())
        return a[2]

    def _class_value(self, cls: str, var: str, default: str) -> str:
        c = cls
        while c:
            v = self.m.class_vars.get((c, var))
            if v is not None:
                return v.text
            c = c.rpartition("/")[0]
        return default

    def _rng(self, o: Obj, method: str, a: list[str]) -> str:
        if method == "seed":
            if a:
                if o.name != self.rng.name:
                    raise self.fail("seed of an RNG other than $defaultRNG: hoplab draws every random number "
                                    "from the run's one seed")
                self._seed(a[0])
                return ""
            return str(self.m.seed or 0)
        raise self.fail(f"RNG {method}: the script's own random numbers (ns-2's MRG32k3a streams) are not "
                        "modelled; give the values, or let hoplab draw what it models (random positions, "
                        "movement)")

    # ------------------------------------------------------------ simulator
    def _sim(self, o: Obj, method: str, a: list[str]) -> str:
        if method == "node-config":
            return self._node_config(a)
        if method == "node":
            return self._new_node(a)
        if method == "at":
            if len(a) != 2:
                raise self.fail("$ns_ at takes a time and a script")
            return self._schedule(parse_atof(a[0], "$ns_ at time"), a[1])
        if method == "at-now":
            return self._schedule(self.now, " ".join(a))
        if method == "after":
            return self._schedule(self.now + parse_time(a[0], "$ns_ after delay"), " ".join(a[1:]))
        if method == "now":
            return repr(self.now)
        if method == "run":
            return self._run()
        if method == "halt":
            self._halt()
            return ""
        if method == "trace-all":
            if len(a) != 1 or a[0] not in self.t.files:
                raise self.fail("trace-all takes a file the script opened for writing ([open FILE w])")
            self.m.trace_file, self.m.trace_loc = a[0], self.where()
            return ""
        if method == "use-newtrace":
            self.m.new_trace = True
            return ""
        if method in ("namtrace-all-wireless", "namtrace-all"):
            if a and a[0] in self.t.files:
                self.m.nam_file = a[0]
            return ""
        if method in ("attach-agent", "detach-agent"):
            if len(a) != 2:
                raise self.fail(f"{method} takes a node and an agent")
            node, agent = self._obj(a[0], NodeObj, "a node"), self._obj(a[1], AgentObj, "an agent")
            if method == "attach-agent":
                self._attach(node, agent)  # type: ignore[arg-type]
            else:
                agent.node = None  # type: ignore[union-attr]
            return ""
        if method == "connect":
            if len(a) != 2:
                raise self.fail("connect takes two agents")
            x, y = self._obj(a[0], AgentObj, "an agent"), self._obj(a[1], AgentObj, "an agent")
            x.peer, y.peer = y, x  # type: ignore[union-attr]
            return ""
        if method in ("create-connection", "create-connection-list"):
            return self._create_connection(method, a)
        if method in ("duplex-link", "simplex-link", "duplex-link-op", "rtproto", "lossmodel", "multicast",
                      "mrtproto", "link", "queue-limit"):
            raise self.fail(f"$ns_ {method}: wired links are not modelled by hoplab (it simulates wireless ad hoc "
                            "networks only)")
        if method == "set-address-format":
            if a and a[0] not in ("def", "expanded"):
                raise self.fail(f"set-address-format {a[0]}: hierarchical addresses are not modelled by hoplab")
            return ""
        if method in ("get-node-by-id",):
            i = parse_int(a[0], "node id")
            if not 0 <= i < len(self.m.nodes):
                raise self.fail(f"get-node-by-id {a[0]}: no such node")
            return self.m.nodes[i].name
        if method in SIM_NOOPS:
            return ""
        if method == "set":
            return self._var(o, ["set", *a]) if len(a) == 2 else ""
        raise self.fail(f"$ns_ {method}: not a simulator command hoplab models")

    def _obj(self, name: str, kind: type, what: str) -> Any:
        o = self.objs.get(name)
        if not isinstance(o, kind):
            raise self.fail(f"{name[:40]} is not {what}")
        return o

    def _node_config(self, a: list[str]) -> str:
        if len(a) == 1 and a[0] == "-reset":
            self.config = {}
            return ""
        if len(a) % 2:
            raise self.fail("node-config takes -option value pairs")
        for opt, val in zip(a[::2], a[1::2]):
            if opt in CONFIG_REFUSED:
                off = val.strip().upper() in ("OFF", "", "0", "FALSE", "NONE", "FLAT")
                if not off:
                    raise self.fail(f"node-config {opt} {val[:30]}: {CONFIG_REFUSED[opt] or opt} not modelled "
                                    "by hoplab")
                continue
            if opt in CONFIG_CHOICES:
                if val not in CONFIG_CHOICES[opt]:
                    raise self.fail(f"node-config {opt} {val[:40]}: hoplab models "
                                    f"{', '.join(sorted(CONFIG_CHOICES[opt]))}")
            elif opt == "-adhocRouting":
                if val not in ROUTING:
                    raise self.fail(f"node-config -adhocRouting {val[:30]}: hoplab models "
                                    f"{', '.join(ROUTING)} (DumbAgent as static routes)")
            elif opt == "-propInstance":
                if not isinstance(self.objs.get(val), Obj) or self.objs[val].cls not in CONFIG_CHOICES["-propType"]:
                    raise self.fail(f"node-config -propInstance {val[:30]}: not a Propagation object")
            elif opt == "-channel":
                if not isinstance(self.objs.get(val), Obj) or self.objs[val].cls not in CONFIG_CHOICES["-channelType"]:
                    raise self.fail(f"node-config -channel {val[:30]}: not a Channel/WirelessChannel object")
                self.m.channels.setdefault(val, self.where())
            elif opt not in CONFIG_FREE:
                raise self.fail(f"node-config {opt}: not a node-config option hoplab models")
            self.config[opt] = Value(val, self.where())
        return ""

    def _new_node(self, a: list[str]) -> str:
        if a:
            raise self.fail(f"$ns_ node {a[0][:30]}: a node with an address is a hierarchical or wired node, "
                            "not modelled by hoplab")
        if "-adhocRouting" not in self.config:
            raise self.fail("$ns_ node without node-config -adhocRouting: a wired node, not modelled by hoplab "
                            "(give $ns_ node-config -adhocRouting AODV|DSR|DSDV ... first)")
        if len(self.m.nodes) >= MAX_NODES:
            raise self.fail(f"more than {MAX_NODES:,} nodes: hoplab's script front end stops there")
        o = self._make("Node/MobileNode", "node")
        assert isinstance(o, NodeObj)
        o.id = len(self.m.nodes)
        o.config = dict(self.config)
        self.m.nodes.append(o)
        return o.name

    def _schedule(self, t: float, script: str) -> str:
        if t < self.now:
            raise self.fail(f"$ns_ at {t:g}: before the current time {self.now:g} (ns-2: scheduler going backwards)")
        if len(self.queue) >= MAX_EVENTS:
            raise self.fail(f"more than {MAX_EVENTS:,} scheduled events")
        self._seq += 1
        heapq.heappush(self.queue, (t, self._seq, script, self.where()))
        return str(self._seq)

    def _halt(self) -> None:
        if self.m.end_s is None:
            self.m.end_s, self.m.end_loc = self.now, self.where()
        self.halted = True

    def _run(self) -> str:
        if self.running:
            raise self.fail("$ns_ run inside a running simulation")
        if self.m.ran:
            raise self.fail("$ns_ run a second time")
        self.running = True
        self.m.ran = True
        while self.queue and not self.halted:
            t, _, script, loc = heapq.heappop(self.queue)
            self.now = t
            self.t.eval_script(script, loc)
            if self.t.exited is not None:
                self._halt()
        self.running = False
        return ""

    # ------------------------------------------------------------ nodes
    def _node(self, o: NodeObj, method: str, a: list[str]) -> str:
        if method == "set":
            if len(a) == 1:
                if a[0] in ("X_", "Y_", "Z_"):
                    if self.running:
                        raise self.fail(f"$node set {a[0]} read during the run: the node's position then is "
                                        "the running simulation's")
                    v = o.pos.get(a[0])
                    return v.text if v is not None else "0.0"
                if a[0] == "id_":
                    return str(o.id)
                raise self.fail(f"node set {a[0]}: not a node variable hoplab models")
            if len(a) == 2 and a[0] in ("X_", "Y_", "Z_"):
                if self.running and self.now > 0:
                    raise self.fail(f"$node set {a[0]} at {self.now:g} s: moving a node by jumping is not modelled "
                                    "(use setdest)")
                v = parse_number(a[1], a[0])
                if a[0] == "Z_" and v != 0.0:
                    raise self.fail(f"$node set Z_ {a[1]}: node heights are not modelled (antenna height: "
                                    "Antenna/OmniAntenna set Z_)")
                o.pos[a[0]] = Value(a[1], self.where())
                return a[1]
            raise self.fail(f"node set {' '.join(a)[:40]}: hoplab models X_, Y_ and Z_")
        if method == "setdest":
            if len(a) != 3:
                raise self.fail("setdest takes x, y and a speed")
            x, y, v = (parse_number(a[0], "setdest x"), parse_number(a[1], "setdest y"),
                       parse_number(a[2], "setdest speed"))
            if v < 0:
                raise self.fail(f"setdest speed {a[2]}: must not be negative")
            self.m.legs.append(Leg(o.id, self.now, (x, y), v, self.where()))
            return ""
        if method == "random-motion":
            if a and parse_number(a[0], "random-motion") != 0:
                raise self.fail("random-motion 1: ns-2's built-in random motion is not modelled (give setdest "
                                "legs, e.g. from ns-2's setdest tool, or hoplab's mobility.model)")
            return ""
        if method in ("id", "node-addr", "address?"):
            return str(o.id)
        if method == "attach":
            agent = self._obj(a[0], AgentObj, "an agent") if a else None
            if agent is None:
                raise self.fail("attach takes an agent")
            self._attach(o, agent)
            return ""
        if method in NODE_NOOPS:
            return ""
        if method in ("start",):
            raise self.fail("$node start: ns-2's random motion is not modelled")
        if method in ("base-station", "set-base-station"):
            raise self.fail(f"$node {method}: base stations (wired-cum-wireless) are not modelled by hoplab")
        raise self.fail(f"$node {method}: not a node command hoplab models")

    def _attach(self, node: NodeObj, agent: AgentObj) -> None:
        agent.node, agent.node_loc = node, self.where()

    # ------------------------------------------------------------ agents and applications
    def _agent(self, o: AgentObj, method: str, a: list[str]) -> str:
        if method == "set":
            return self._var(o, ["set", *a])
        if method in ("attach-app", "attach-source", "attach-traffic"):
            if len(a) != 1:
                raise self.fail(f"{method} takes an application type")
            kind = APPS.get(a[0]) or APPS.get(a[0].removeprefix("Application/"))
            if method == "attach-traffic":
                app = self._obj(a[0], AppObj, "an application")
            else:
                if kind is None:
                    raise self.fail(f"{method} {a[0][:30]}: hoplab runs FTP, Traffic/CBR and Traffic/Exponential")
                app = self._make(APP_CLASS[kind], "app")
                self.m.apps.append(app)  # type: ignore[arg-type]
            app.agent = o  # type: ignore[union-attr]
            return app.name
        if method in ("port", "addr"):
            return "0" if method == "port" else str(o.node.id if o.node else 0)
        if method in ("reset", "close", "listen", "dump"):
            return ""
        if method in ("start", "stop", "send", "advance", "advanceby"):
            raise self.fail(f"$agent {method}: drive a TCP or UDP agent through an application "
                            "(FTP, Traffic/CBR), which hoplab models")
        raise self.fail(f"{o.cls} {method}: not an agent command hoplab models")

    def _create_connection(self, method: str, a: list[str]) -> str:
        if len(a) != 5:
            raise self.fail(f"{method} takes: srcType srcNode dstType dstNode flowId")
        st, sn, dt, dn = a[0], a[1], a[2], a[3]
        s_cls, d_cls = "Agent/" + st, "Agent/" + dt
        if s_cls not in TCP_AGENTS and s_cls not in UDP_AGENTS:
            raise self.fail(f"{method} {st[:30]}: {self._why_not(s_cls)}")
        if d_cls not in SINKS and d_cls not in NULL_AGENTS:
            raise self.fail(f"{method} ... {dt[:30]}: {self._why_not(d_cls)}")
        src = self._make(s_cls, "agent")
        dst = self._make(d_cls, "agent")
        assert isinstance(src, AgentObj) and isinstance(dst, AgentObj)
        self.m.agents += [src, dst]
        self._attach(self._obj(sn, NodeObj, "a node"), src)
        self._attach(self._obj(dn, NodeObj, "a node"), dst)
        src.peer, dst.peer = dst, src
        return src.name if method == "create-connection" else f"{src.name} {dst.name}"

    def _app(self, o: AppObj, method: str, a: list[str]) -> str:
        if method == "set":
            return self._var(o, ["set", *a])
        if method == "attach-agent":
            if len(a) != 1:
                raise self.fail("attach-agent takes an agent")
            o.agent = self._obj(a[0], AgentObj, "an agent")
            return ""
        if method in ("start", "stop"):
            if a:
                raise self.fail(f"{method} takes no argument")
            o.events.append((self.now, method, None, self.where()))
            return ""
        if method in ("send", "produce", "producemore"):
            if len(a) != 1:
                raise self.fail(f"{method} takes a count")
            if o.cls != "Application/FTP":
                raise self.fail(f"{method} applies to FTP")
            o.events.append((self.now, method, a[0], self.where()))
            return ""
        if method == "agent":
            return o.agent.name if o.agent else ""
        raise self.fail(f"{o.cls} {method}: not an application command hoplab models")
