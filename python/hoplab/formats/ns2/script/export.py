"""A hoplab scenario written as an ns-2.35 wireless script: the subset of
Tcl that `script/ns.py` reads, generated from the scenario through the
class-variable table (`classvars.py`), never from a hand-written template.
Reading the script back gives the same scenario (tests check it), and
`ns` runs it as ns-2 users' own scripts run.

A field ns-2 cannot express is refused in one line naming it (`ExportError`):
a routing protocol stock ns-2.35 lacks (static routes, OLSR), a routing
parameter other than ns-2's compiled-in value, a hoplab reading that ns-2
does not have (`mac.idle_backoff = false`, ...), random mobility models
(their legs are drawn during the run), the WWW model, ECN, ELFN, ADTCP.
"""

from __future__ import annotations

import json
import math
import tomllib
from typing import Any, Mapping

from . import classvars

__all__ = ["ExportError", "export_script", "resolved", "ns2_reading", "with_movement_of", "leaves", "get_path"]

SPEED_OF_LIGHT = 299_792_458.0  # as phy/propagation.rs

_PROTOCOL = {"aodv": "AODV", "dsr": "DSR", "dsdv": "DSDV"}
_PRESET = {"aodv": "cmu", "dsr": "cmu", "dsdv": "ns2"}
# What the resolution names it: DSDV's first preset is ns2, and the resolved scenario leaves it unnamed.
_PRESET_OK = {"aodv": {"cmu"}, "dsr": {"cmu"}, "dsdv": {"ns2", None}}
_VARIANT = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "new_reno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1",
            "vegas": "Agent/TCP/Vegas"}
_PROPAGATION = {"two_ray_ground": "Propagation/TwoRayGround", "free_space": "Propagation/FreeSpace",
                "shadowing": "Propagation/Shadowing"}
# Fields read elsewhere in this writer (topology, flows, ...) or that change no simulated outcome.
_WRITTEN = ("name", "seed", "duration_s", "compat", "topology.", "flows", "mobility.", "trace.", "output.",
            "routing.protocol", "routing.preset", "tcp.variant", "tcp.receiver", "tcp.delayed_ack", "tcp.max_cwnd",
            "tcp.receive_window_bytes", "radio.propagation", "tcp.clamp", "mac.queue_limit")


class ExportError(ValueError):
    """`field: why ns-2 cannot express it`."""


# ns-default.tcl `Agent/TCP set window_ 20`: every exported agent is made
# with it, so TcpAgent::reset starts it at ssthresh_ 20.
_NS2_CLASS_WINDOW = 20
# hoplab's initial_ssthresh 0 (RFC 5681's "arbitrarily high") in ns-2's int.
_NS2_UNBOUNDED_SSTHRESH = 1 << 30


def resolved(sc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario with every default filled in (the engine's own resolution)."""
    from .... import _core

    return tomllib.loads(_core.resolved_scenario(json.dumps(sc), "json"))


def leaves(d: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every (dotted path, value) of a nested dict, lists as values."""
    out = []
    for k, v in d.items():
        p = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out += leaves(v, p)
        else:
            out.append((p, v))
    return out


def get_path(d: Any, path: str) -> Any:
    """The value at a dotted path, or None."""
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _bare(r: Mapping[str, Any], protocol: str) -> dict[str, Any]:
    """The resolution of a scenario that sets nothing but the essentials:
    what the ns2 profile gives each field."""
    return resolved({"name": "bare", "compat": "ns2", "duration_s": 1.0,
                     "topology": {"kind": "chain", "nodes": 2, "spacing_m": 100.0},
                     "routing": {"protocol": protocol}, "flows": [{"kind": "cbr", "src": 0, "dst": 1, "rate_kbps": 1.0}]})


def ns2_reading(sc: Mapping[str, Any]) -> dict[str, Any]:
    """``sc`` under compat = "ns2", keeping what it says: the profile's
    receiver is ns-2's TCPSink (an ACK per segment), so a scenario that asks
    for delayed ACKs (`tcp.delayed_ack = true`) gets ns-2's DelAck sink."""
    base = json.loads(json.dumps(dict(sc)))
    base["compat"] = "ns2"
    for t in [base.get("tcp")] + [f.get("tcp") for f in base.get("flows", []) if isinstance(f, dict)]:
        if isinstance(t, dict) and t.get("delayed_ack") is True and "receiver" not in t:
            t["receiver"] = "ns2"
    return base


def _threshold_at(radio: Mapping[str, Any], d: float) -> float:
    """The power at distance ``d`` (phy/propagation.rs: Friis, two-ray ground
    beyond the crossover), so that a range can be written as ns-2's threshold."""
    lam = SPEED_OF_LIGHT / float(radio["frequency_hz"])
    pt, loss, h = float(radio["tx_power_w"]), float(radio["system_loss"]), float(radio["antenna_height_m"])
    friis = pt * lam * lam / ((4.0 * math.pi) ** 2 * d * d * loss)
    if radio["propagation"] == "two_ray_ground" and d >= 4.0 * math.pi * h * h / lam:
        return pt * h ** 4 / (d ** 4 * loss)
    return friis


def _ranges_to_thresholds(r: dict[str, Any]) -> None:
    radio = r["radio"]
    if radio["propagation"] not in _PROPAGATION:
        raise ExportError(f"radio.propagation = {radio['propagation']!r}: not an ns-2.35 propagation model "
                          "(two_ray_ground, free_space and shadowing are)")
    for rng, thr in (("tx_range_m", "rx_threshold_w"), ("cs_range_m", "cs_threshold_w")):
        d = radio.pop(rng, None)
        if d is not None:
            if radio["propagation"] not in ("two_ray_ground", "free_space"):
                raise ExportError(f"radio.{rng} with radio.propagation = {radio['propagation']!r}: give "
                                  f"radio.{thr} (ns-2 takes thresholds)")
            radio[thr] = _threshold_at(radio, float(d))


def spread_seed(seed: int) -> int:
    """An ns-2 seed for hoplab's ``seed`` whose draws are independent of its
    neighbours'. ns-2's `$defaultRNG seed S` fills all six words of
    MRG32k3a's state with S (tools/rng.cc RNG::set_seed), and the generator
    is linear, so draw k of seed S is frac(S * c_k): seeds 1, 2, 3 begin
    0.0003, 0.0007, 0.0010 and keep drawing in step. A SplitMix64 hash of
    the seed (Steele et al., OOPSLA 2014) breaks that line."""
    m = (1 << 64) - 1
    x = (seed + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    x ^= x >> 31
    return x % 2147483646 + 1  # RNG::command refuses 0 and MAXINT and above


def export_script(sc: Mapping[str, Any], *, trace: str = "trace.tr", comment: str = "",
                  spread: bool = False) -> str:
    """``sc`` (a scenario dict) as an ns-2 script that writes its old-format
    trace (agent and router levels) to ``trace``; read with compat = "ns2".
    ``spread``: seed ns-2 with spread_seed(seed) instead of the seed itself,
    for runs meant as independent replicates."""
    r = resolved(ns2_reading(sc))
    _ranges_to_thresholds(r)
    proto = r["routing"]["protocol"]
    if proto not in _PROTOCOL:
        raise ExportError(f"routing.protocol = {proto!r}: stock ns-2.35 has no {proto} routing for mobile nodes "
                          "(AODV, DSR and DSDV it has)")
    if r["routing"].get("preset") not in _PRESET_OK[proto]:
        raise ExportError(f"routing.preset = {r['routing'].get('preset')!r}: ns-2.35's {_PROTOCOL[proto]} is "
                          f"hoplab's preset {_PRESET[proto]!r}")
    bare = _bare(r, proto)
    _ranges_to_thresholds(bare)
    mapped = {cv.field for cv in classvars.CLASS_VARS if cv.field}
    for path, value in leaves(r):
        if path.startswith(_WRITTEN) or path in mapped or path.startswith(("emulation", "lred.")):
            continue
        want = get_path(bare, path)
        if value != want:
            raise ExportError(f"{path} = {json.dumps(value)}: ns-2.35 has no setting for it (its reading is "
                              f"{json.dumps(want)})")
    if r.get("lred", {}).get("enabled"):
        raise ExportError("lred.enabled = true: ns-2.35's 802.11 MAC has no link-layer ECN marking")
    if r.get("emulation"):
        raise ExportError("emulation: real nodes cannot run inside ns-2")
    mob = r.get("mobility", {})
    if mob.get("model", "legs") != "legs":
        raise ExportError(f"mobility.model = {mob['model']!r}: its legs are drawn during the run; give them as "
                          "mobility.legs (`hoplab crosscheck` takes them from hoplab's run of each seed)")
    out: list[str] = []
    w = out.append
    w("# ns-2.35 wireless script written by hoplab" + (f": {comment}" if comment else ""))
    w("# It runs under `ns`; `hoplab run` reads it back to the same scenario (compat = \"ns2\").")
    w("")
    _class_defaults(r, w)
    positions = _positions(sc, r)
    legs = list(mob.get("legs", []))
    n = len(positions)
    # ns-2's topography spans [0, x] x [0, y] and refuses a setdest not strictly
    # inside it (mobilenode.cc set_destination: x >= upperX() || x <= lowerX()):
    # shift the whole network into it (distances are all that count) and size it to fit.
    xs = [p[0] for p in positions] + [float(lg["to"][0]) for lg in legs]
    ys = [p[1] for p in positions] + [float(lg["to"][1]) for lg in legs]
    lx = [float(lg["to"][0]) for lg in legs]
    ly = [float(lg["to"][1]) for lg in legs]
    dx = max(-min(xs), 1.0 - min(lx) if lx else 0.0, 0.0)
    dy = max(-min(ys), 1.0 - min(ly) if ly else 0.0, 0.0)
    positions = [(x + dx, y + dy) for x, y in positions]
    legs = [{**lg, "to": [float(lg["to"][0]) + dx, float(lg["to"][1]) + dy]} for lg in legs]
    xs, ys = [x + dx for x in xs], [y + dy for y in ys]
    w("")
    w("set ns_ [new Simulator]")
    if spread:
        w(f"# hoplab seed {int(r['seed'])}, spread: ns-2's seeds 1, 2, 3... draw in step")
    w(f"$defaultRNG seed {spread_seed(int(r['seed'])) if spread else int(r['seed'])}")
    w(f"set tracefd [open {_tcl_word(trace)} w]")
    w("$ns_ trace-all $tracefd")
    w("set topo [new Topography]")
    w(f"$topo load_flatgrid {math.ceil(max(xs)) + 1} {math.ceil(max(ys)) + 1}")
    w(f"set god_ [create-god {n}]")
    prop = _PROPAGATION.get(r["radio"]["propagation"])
    if prop is None:
        raise ExportError(f"radio.propagation = {r['radio']['propagation']!r}: not an ns-2.35 propagation model")
    ifq = "CMUPriQueue" if proto == "dsr" else "Queue/DropTail/PriQueue"
    if proto == "dsr" and int(r["mac"]["queue_limit"]) != classvars.CMU_PRIQUEUE_LIMIT:
        raise ExportError(f"mac.queue_limit = {r['mac']['queue_limit']}: ns-2.35's DSR runs on CMUPriQueue, "
                          f"whose classes hold {classvars.CMU_PRIQUEUE_LIMIT} packets each whatever -ifqLen says "
                          "(queue/dsr-priqueue.h IFQ_MAXLEN)")
    w(f"$ns_ node-config -adhocRouting {_PROTOCOL[proto]} -llType LL -macType Mac/802_11 -ifqType {ifq} "
      f"-ifqLen {int(r['mac']['queue_limit'])} -antType Antenna/OmniAntenna -propType {prop} "
      "-phyType Phy/WirelessPhy -channelType Channel/WirelessChannel -topoInstance $topo "
      "-agentTrace ON -routerTrace ON -macTrace OFF -movementTrace OFF")
    w(f"for {{set i 0}} {{$i < {n}}} {{incr i}} {{")
    w("    set node_($i) [$ns_ node]")
    w("    $node_($i) random-motion 0")
    w("}")
    for i, (x, y) in enumerate(positions):
        w(f"$node_({i}) set X_ {float(x)!r}; $node_({i}) set Y_ {float(y)!r}; $node_({i}) set Z_ 0.0")
    for leg in legs:
        w(f"$ns_ at {float(leg['at_s'])!r} \"$node_({int(leg['node'])}) setdest {float(leg['to'][0])!r} "
          f"{float(leg['to'][1])!r} {float(leg['speed_mps'])!r}\"")
    _flows(r, w)
    dur = float(r["duration_s"])
    w("")
    w("proc finish {} {")
    w("    global ns_ tracefd")
    w("    if {[info procs hoplab_report] != \"\"} { hoplab_report }")
    w("    $ns_ flush-trace")
    w("    close $tracefd")
    w("    $ns_ halt")
    w("}")
    w(f"$ns_ at {dur!r} \"finish\"")
    w("$ns_ run")
    return "\n".join(out) + "\n"


def _tcl_word(s: str) -> str:
    return "{" + s + "}" if any(c in s for c in " \t$[]\";\\") else s


def _class_defaults(r: Mapping[str, Any], w: Any) -> None:
    """Every mapped scenario-wide field as its class variable."""
    done: set[tuple[str, str]] = set()
    for cv in classvars.CLASS_VARS:
        if cv.field is None or cv.write is None or (cv.cls, cv.var) in done:
            continue
        if classvars.scope_of(cv) == "flow" or cv.var in ("Gt_", "Gr_") or cv.field == "tcp.max_cwnd":
            continue  # per flow (window_ is set on each agent), or folded into Pt_
        if cv.field.startswith("radio.shadowing") and r["radio"]["propagation"] != "shadowing":
            continue
        value = get_path(r, cv.field)
        if value is None:
            continue
        w(f"{cv.cls} set {cv.var} {cv.write(value)}")
        done.add((cv.cls, cv.var))
    w("Antenna/OmniAntenna set Gt_ 1.0")
    w("Antenna/OmniAntenna set Gr_ 1.0")


def _positions(sc: Mapping[str, Any], r: Mapping[str, Any]) -> list[tuple[float, float]]:
    from ..movement import initial_positions

    return initial_positions(r, seed=int(r["seed"]))


def _flows(r: Mapping[str, Any], w: Any) -> None:
    tcp = r["tcp"]
    for k, f in enumerate(r["flows"]):
        src, dst, start = int(f["src"]), int(f["dst"]), float(f.get("start_s", 0.0))
        w("")
        if f["kind"] == "cbr":
            exp = f.get("on_s") is not None or f.get("off_s") is not None
            if exp and f.get("distribution", "exponential") != "exponential":
                raise ExportError(f"flows[{k}].distribution = {f['distribution']!r}: ns-2's Traffic/Exponential "
                                  "draws its periods")
            app = "Application/Traffic/Exponential" if exp else "Application/Traffic/CBR"
            w(f"set udp_({k}) [new Agent/UDP]")
            w(f"$ns_ attach-agent $node_({src}) $udp_({k})")
            w(f"set null_({k}) [new Agent/Null]")
            w(f"$ns_ attach-agent $node_({dst}) $null_({k})")
            w(f"set app_({k}) [new {app}]")
            size = int(f.get("packet_size_bytes", 512))
            if size > 1000:
                w(f"$udp_({k}) set packetSize_ {size}")
            w(f"$app_({k}) set packetSize_ {size}")
            w(f"$app_({k}) set rate_ {float(f['rate_kbps']) * 1e3!r}")
            if exp:
                w(f"$app_({k}) set burst_time_ {float(f['on_s'])!r}")
                w(f"$app_({k}) set idle_time_ {float(f.get('off_s', 0.0))!r}")
            elif f.get("jitter"):
                w(f"$app_({k}) set random_ 1")
            if f.get("max_packets") is not None:
                w(f"$app_({k}) set maxpkts_ {int(f['max_packets'])}")
            w(f"$app_({k}) attach-agent $udp_({k})")
            w(f"$ns_ connect $udp_({k}) $null_({k})")
            w(f"$ns_ at {start!r} \"$app_({k}) start\"")
        elif f["kind"] == "ftp":
            t = {**tcp, **dict(f.get("tcp") or {})}
            if t.get("clamp", "sender") != "sender":
                raise ExportError(f"flows[{k}] tcp.clamp = {t['clamp']!r}: ns-2's window_ clamps the sender")
            receiver = "every" if not t.get("delayed_ack", True) else t.get("receiver", "ns2")
            if receiver == "linux":
                raise ExportError(f"flows[{k}] tcp.receiver = \"linux\": ns-2.35 has no Linux receiver")
            variant = t.get("variant", "new_reno")
            sink = ("Agent/TCPSink/Sack1" if variant == "sack" else "Agent/TCPSink") + \
                   ("" if receiver == "every" else "/DelAck")
            mss = int(t.get("mss_bytes", 1000))
            window = int(t.get("max_cwnd", 0)) or max(1, int(t.get("receive_window_bytes", 65535)) // mss)
            w(f"set tcp_({k}) [new {_VARIANT[variant]}]")
            w(f"set sink_({k}) [new {sink}]")
            w(f"$ns_ attach-agent $node_({src}) $tcp_({k})")
            w(f"$ns_ attach-agent $node_({dst}) $sink_({k})")
            w(f"$ns_ connect $tcp_({k}) $sink_({k})")
            w(f"$tcp_({k}) set window_ {window}")
            # tcp.cc TcpAgent::reset gave the agent ssthresh_ = the class's
            # window_ (20) as it was made; any other start is set on it.
            ssthresh = int(t.get("initial_ssthresh", 0))
            if ssthresh != _NS2_CLASS_WINDOW:
                w(f"$tcp_({k}) set ssthresh_ {ssthresh or _NS2_UNBOUNDED_SSTHRESH}")
            for key, v in (f.get("tcp") or {}).items():  # the flow's own settings, as object variables
                cv = next((c for c in classvars.CLASS_VARS if c.field == f"tcp.{key}" and c.write), None)
                if cv is not None and key != "max_cwnd":
                    target = f"$sink_({k})" if cv.cls.startswith("Agent/TCPSink") else f"$tcp_({k})"
                    w(f"{target} set {cv.var} {cv.write(v)}")
            w(f"set app_({k}) [new Application/FTP]")
            w(f"$app_({k}) attach-agent $tcp_({k})")
            verb = "start" if f.get("bytes") is None else f"send {int(f['bytes'])}"
            w(f"$ns_ at {start!r} \"$app_({k}) {verb}\"")
        else:
            raise ExportError(f"flows[{k}].kind = {f['kind']!r}: hoplab's WWW model has no ns-2 counterpart")
        if f.get("stop_s") is not None and math.isfinite(float(f["stop_s"])):
            w(f"$ns_ at {float(f['stop_s'])!r} \"$app_({k}) stop\"")


def with_movement_of(sc: Mapping[str, Any], movement: Any) -> dict[str, Any]:
    """``sc`` with the movement a run drew (its `movement` table: a row per
    node at time 0, then a row per leg start) as an explicit topology and
    scripted legs, so that ns-2 moves the nodes exactly as that run did."""
    out = json.loads(json.dumps(dict(sc)))
    m = movement.sort_values(["time_s", "node"], kind="stable")
    starts = m[(m["time_s"] == 0.0) & (m["speed_mps"] == 0.0)].drop_duplicates("node").sort_values("node")
    legs_rows = m.drop(index=starts.index)
    out["topology"] = {"kind": "explicit", "positions": [[float(x), float(y)] for x, y in zip(starts["x"], starts["y"])]}
    legs = [{"node": int(n), "at_s": float(t), "to": [float(tx), float(ty)], "speed_mps": float(v)}
            for n, t, tx, ty, v in zip(legs_rows["node"], legs_rows["time_s"], legs_rows["to_x"], legs_rows["to_y"],
                                        legs_rows["speed_mps"]) if v > 0]
    out["mobility"] = {k: v for k, v in (out.get("mobility") or {}).items() if k == "step_m"}
    out["mobility"]["legs"] = legs
    return out
