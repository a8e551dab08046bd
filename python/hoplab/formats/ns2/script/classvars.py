"""Every ns-2 class variable a wireless script may set (`Class set var_
value`, or `$object set var_ value`), declared once: its ns-2.35 default,
the scenario field it becomes and how its value converts both ways.

The script front end reads a script through this table (`script/build.py`)
and the exporter writes a scenario back through it (`script/export.py`), so
a value has one mapping in each direction. Three kinds of entry:

- a *field*: the value becomes that scenario field (`read` converts ns-2's
  text, `write` the field's value back);
- *ignored*: ns-2 itself never reads the value, or it changes nothing a
  scenario can observe (a port number, a nam colour); `why` says which;
- *fixed*: hoplab models exactly one value (ns-2's default); any other is
  refused by name, never dropped.

Defaults are ns-2.35's `tcl/lib/ns-default.tcl` as `ns` prints them
(`puts [Mac/802_11 set dataRate_]`); tests/python/test_ns2_script.py checks
them against the installed `ns` where there is one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from .units import parse_bandwidth, parse_bool, parse_int, parse_int_flag, parse_number, parse_time

# CMUPriQueue, the queue ns-2's DSR runs on, holds this many packets per class
# whatever -ifqLen says: queue/dsr-priqueue.h IFQ_MAXLEN is compiled in, and
# the Tcl `limit_` the mobile node sets reaches no C++ variable of it.
CMU_PRIQUEUE_LIMIT = 50

__all__ = ["ClassVar", "CLASS_VARS", "lookup", "SCOPES", "scope_of"]

#: Where a value lands: the scenario as a whole, the flow whose source agent
#: or application it belongs to, or that flow's TCP table.
SCOPES = ("scenario", "tcp", "flow", "sink")


@dataclass(frozen=True)
class ClassVar:
    cls: str
    var: str
    default: str
    field: str | None = None  # dotted scenario path; "tcp.x" / "flows[].x" are per flow
    read: Callable[[str, str], Any] | None = None
    write: Callable[[Any], str] | None = None
    why: str = ""  # the source, or why an ignored value changes nothing
    fixed: bool = False  # only the default is modelled

    @property
    def ignored(self) -> bool:
        return self.field is None and not self.fixed


def _mbps(t: str, what: str) -> float:
    return parse_bandwidth(t, what) / 1e6


def _us(t: str, what: str) -> float:
    return round(parse_time(t, what) * 1e6, 6)  # 25us is 25.0, not 24.999999999999996


def _us_int(t: str, what: str) -> int:
    # A plain `bind` (a double read with atof): "20us" would be 20 seconds
    # under ns-2, so only a plain number of seconds is taken.
    v = parse_number(t, what) * 1e6
    if abs(v - round(v)) > 1e-6:
        raise ValueError(f"{what}: {t!r} is not a whole number of microseconds")
    return int(round(v))


def _s(t: str, what: str) -> float:
    """A time bound with `bind_time` (units allowed)."""
    return parse_time(t, what)


def _s_plain(t: str, what: str) -> float:
    """A time bound as a plain double (TCP's delay_bind): seconds, no unit."""
    return parse_number(t, what)


def _num(t: str, what: str) -> float:
    return parse_number(t, what)


def _int(t: str, what: str) -> int:
    return parse_int(t, what)


def _bool(t: str, what: str) -> bool:
    return parse_bool(t, what)


def _not(t: str, what: str) -> bool:
    return not parse_bool(t, what)


def _int_flag(t: str, what: str) -> bool:
    return parse_int_flag(t)


def _db(t: str, what: str) -> float:
    v = parse_number(t, what)
    if v <= 0:
        raise ValueError(f"{what}: {t!r} must be a positive power ratio")
    return 10.0 * math.log10(v)


def _preamble(t: str, what: str) -> str:
    v = parse_int(t, what)
    if v == 144:
        return "long"
    if v == 72:
        return "short"
    raise ValueError(f"{what}: {t!r}: hoplab models the long (144 bits) and short (72 bits) DSSS preambles")


def _header_bytes(t: str, what: str) -> int:
    return 40 if parse_bool(t, what) else 0


def _g(v: Any) -> str:
    """A number as Tcl text that reads back to the same float."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return repr(float(v))


def _w_mb(v: Any) -> str:
    return f"{float(v) * 1e6!r}"


def _w_us(v: Any) -> str:
    return repr(float(v) * 1e-6)  # plain seconds: read alike by bind and bind_time


def _w_s(v: Any) -> str:
    return repr(float(v))


def _w_bool(v: Any) -> str:
    return "true" if v else "false"


def _w_int_flag(v: Any) -> str:
    # a switch bound as an int reads `true` as 0 (units.parse_int_flag)
    return "1" if v else "0"


def _w_not(v: Any) -> str:
    return "false" if v else "true"


def _w_ratio(v: Any) -> str:
    return repr(10.0 ** (float(v) / 10.0))


def _w_preamble(v: Any) -> str:
    return "72" if v == "short" else "144"


def _w_headers(v: Any) -> str:
    return "true" if int(v) else "false"


def F(cls: str, var: str, default: str, field: str, read: Callable[[str, str], Any], write: Callable[[Any], str],
      why: str) -> ClassVar:
    return ClassVar(cls, var, default, field, read, write, why)


def IGN(cls: str, var: str, default: str, why: str) -> ClassVar:
    return ClassVar(cls, var, default, why=why)


def FIX(cls: str, var: str, default: str, why: str) -> ClassVar:
    return ClassVar(cls, var, default, why=why, fixed=True)


M, PHY, ANT, LL, TCP = "Mac/802_11", "Phy/WirelessPhy", "Antenna/OmniAntenna", "LL", "Agent/TCP"
CBR, EXP = "Application/Traffic/CBR", "Application/Traffic/Exponential"
PORT_WHY = _PORT = "a port number: hoplab numbers ports itself, and no wireless figure depends on them"
NAM_WHY = _NAM = "a nam/flow label: it changes nothing simulated"

CLASS_VARS: tuple[ClassVar, ...] = (
    # --- 802.11 MAC (mac/mac-802_11.cc MAC_MIB / PHY_MIB) ---
    F(M, "dataRate_", "1Mb", "mac.data_rate_mbps", _mbps, _w_mb, "mac-802_11.cc dataRate_"),
    F(M, "basicRate_", "1Mb", "mac.basic_rate_mbps", _mbps, _w_mb, "mac-802_11.cc basicRate_"),
    F(M, "RTSThreshold_", "0", "mac.rts_threshold_bytes", _int, _g, "mac-802_11.cc MAC_MIB RTSThreshold_"),
    F(M, "ShortRetryLimit_", "7", "mac.short_retry_limit", _int, _g, "mac-802_11.cc MAC_MIB ShortRetryLimit_"),
    F(M, "LongRetryLimit_", "4", "mac.long_retry_limit", _int, _g, "mac-802_11.cc MAC_MIB LongRetryLimit_"),
    F(M, "CWMin_", "31", "mac.cw_min", _int, _g, "mac-802_11.cc PHY_MIB CWMin"),
    F(M, "CWMax_", "1023", "mac.cw_max", _int, _g, "mac-802_11.cc PHY_MIB CWMax"),
    F(M, "SlotTime_", "0.000020", "mac.slot_us", _us_int, _w_us, "mac-802_11.cc PHY_MIB SlotTime"),
    F(M, "SIFS_", "0.000010", "mac.sifs_us", _us_int, _w_us, "mac-802_11.cc PHY_MIB SIFSTime"),
    F(M, "PreambleLength_", "144", "mac.preamble", _preamble, _w_preamble, "mac-802_11.cc PHY_MIB PreambleLength"),
    FIX(M, "PLCPHeaderLength_", "48", "the DSSS PLCP header is 48 bits (IEEE 802.11-1999 §15.2.3)"),
    FIX(M, "PLCPDataRate_", "1.0e6", "the DSSS PLCP is sent at 1 Mbit/s (IEEE 802.11-1999 §15.2.3)"),
    F(M, "bugFix_timer_", "true", "mac.idle_defer", _not, _w_not,
      "mac-802_11.cc: bugFix_timer_ false defers DIFS + a backoff on a timer that does not pause"),
    # --- link layer (mac/ll.cc: LL is a LinkDelay; sendDown/sendUp schedule after delay_) ---
    F(LL, "delay_", "25us", "link.delay_us", _us, _w_us, "ll.cc LL::sendDown, LL::sendUp"),
    IGN(LL, "mindelay_", "50us", "ns-2.35 binds it in no C++ class: its value is never read"),
    IGN(LL, "bandwidth_", "0", "LL::sendDown and sendUp never read it (ns-default.tcl: \"not used\")"),
    IGN(LL, "debug_", "false", "debugging output only"),
    IGN(LL, "avoidReordering_", "false", "ns-default.tcl: \"not used\""),
    # --- radio (mac/wireless-phy.cc) ---
    F(PHY, "Pt_", "0.28183815", "radio.tx_power_w", _num, _g, "wireless-phy.cc Pt_"),
    F(PHY, "freq_", "914e+6", "radio.frequency_hz", _num, _g, "wireless-phy.cc freq_ (lambda_ = c / freq_)"),
    F(PHY, "L_", "1.0", "radio.system_loss", _num, _g, "wireless-phy.cc L_"),
    F(PHY, "RXThresh_", "3.652e-10", "radio.rx_threshold_w", _num, _g, "wireless-phy.cc RXThresh_"),
    F(PHY, "CSThresh_", "1.559e-11", "radio.cs_threshold_w", _num, _g, "wireless-phy.cc CSThresh_"),
    F(PHY, "CPThresh_", "10.0", "radio.capture_threshold_db", _db, _w_ratio, "wireless-phy.cc CPThresh_ (a ratio)"),
    IGN(PHY, "Rb_", "", "ns-2.35 has no such variable (the MAC's dataRate_ sets the rate); the value is never read"),
    IGN(PHY, "bandwidth_", "2e6", "wireless-phy.cc: its bind is commented out; the value is never read"),
    # --- antenna (mobile/antenna.cc); the gains multiply Pt_ in every propagation model ---
    F(ANT, "Z_", "1.5", "radio.antenna_height_m", _num, _g, "antenna.cc Z_ (two-ray ground heights)"),
    IGN(ANT, "X_", "0", "an offset added to every node's position alike: distances do not change"),
    IGN(ANT, "Y_", "0", "an offset added to every node's position alike: distances do not change"),
    # Every ns-2 propagation model multiplies Pt_ by Gt_ and Gr_ (propagation.cc, shadowing.cc Pr), so the
    # gains fold into radio.tx_power_w (build.py): the same received power at every distance.
    F(ANT, "Gt_", "1.0", "radio.tx_power_w", _num, _g, "two-ray ground / Friis / shadowing Pr: Pt Gt Gr"),
    F(ANT, "Gr_", "1.0", "radio.tx_power_w", _num, _g, "two-ray ground / Friis / shadowing Pr: Pt Gt Gr"),
    # --- propagation (mobile/shadowing.cc) ---
    F("Propagation/Shadowing", "pathlossExp_", "2.0", "radio.shadowing_path_loss_exponent", _num, _g,
      "shadowing.cc pathlossExp_"),
    F("Propagation/Shadowing", "std_db_", "4.0", "radio.shadowing_std_db", _num, _g, "shadowing.cc std_db_"),
    F("Propagation/Shadowing", "dist0_", "1.0", "radio.shadowing_reference_m", _num, _g, "shadowing.cc dist0_"),
    IGN("Propagation/Shadowing", "seed_", "0",
        "shadowing.cc seeds its own generator; hoplab draws the shadowing from the run's seed"),
    # --- interface queue (queue/priqueue.cc) ---
    F("Queue/DropTail/PriQueue", "Prefer_Routing_Protocols", "1", "mac.queue_routing_first", _int_flag, _w_int_flag,
      "priqueue.cc PriQueue::recv"),
    IGN("CMUPriQueue", "qlen_logthresh_", "10", "logging only"),
    IGN("CMUPriQueue", "fw_logthresh_", "25", "logging only"),
    IGN("CMUPriQueue", "debug_", "false", "debugging output only"),
    # --- TCP senders (tcp/tcp.cc TcpAgent); per flow ---
    F(TCP, "packetSize_", "1000", "tcp.mss_bytes", _int, _g, "tcp.cc size_"),
    F(TCP, "window_", "20", "tcp.max_cwnd", _int, _g, "tcp.cc TcpAgent::window: min(cwnd_, window_)"),
    F(TCP, "windowInit_", "2", "tcp.initial_cwnd", _int, _g, "tcp.cc set_initial_window"),
    F(TCP, "syn_", "true", "tcp.syn", _bool, _w_bool, "tcp.cc output: a SYN as seqno 0"),
    F(TCP, "tcpTick_", "0.01", "tcp.tick_s", _s_plain, _w_s, "tcp.cc tcp_tick_"),
    F(TCP, "minrto_", "0.2", "tcp.min_rto_s", _s_plain, _w_s, "tcp.cc rtt_timeout"),
    F(TCP, "maxrto_", "60", "tcp.max_rto_s", _s_plain, _w_s, "tcp.cc rtt_timeout"),
    F(TCP, "rtxcur_init_", "3.0", "tcp.initial_rto_s", _s_plain, _w_s, "tcp.cc reset: t_rtxcur_"),
    F(TCP, "rfc2988_", "true", "tcp.ns2_rfc2988", _bool, _w_bool, "tcp.cc rtt_timeout, rtt_update"),
    IGN(TCP, "precisionReduce_", "true", "tcp.cc slowdown: it keeps a fraction of cwnd after a halving, and "
        "hoplab halves the flight into whole segments"),
    IGN(TCP, "updated_rttvar_", "true", "ns-default.tcl binds it, and no C++ of ns-2.35 reads it"),
    F(TCP, "singledup_", "1", "tcp.limited_transmit", _int_flag, _w_int_flag, "tcp.cc dupack handling (singledup_)"),
    F(TCP, "useHeaders_", "true", "tcp.header_bytes", _header_bytes, _w_headers, "tcp.cc headersize()"),
    F(TCP, "delay_growth_", "true", "tcp.delay_growth", _bool, _w_bool, "tcp.cc set_initial_window"),
    FIX(TCP, "maxcwnd_", "0", "a cap of cwnd_ itself (hoplab clamps with window_, tcp.max_cwnd)"),
    FIX(TCP, "maxburst_", "0", "no burst limit"),
    FIX(TCP, "overhead_", "0", "no per-packet send delay"),
    FIX(TCP, "timestamps_", "false", "no TCP timestamps (one timed segment per RTT)"),
    FIX(TCP, "ecn_", "0", "no ECN (hoplab's ECN is seed 001's, a scenario field of its own)"),
    FIX(TCP, "ts_resetRTO_", "false", "no timestamps"),
    FIX(TCP, "srtt_init_", "0", "no initial srtt"),
    FIX(TCP, "rttvar_init_", "12", "ns-2's initial rttvar"),
    FIX(TCP, "T_SRTT_BITS", "3", "srtt scaled by 8"),
    FIX(TCP, "T_RTTVAR_BITS", "2", "rttvar scaled by 4"),
    FIX(TCP, "rttvar_exp_", "2", "RTO = srtt + 4 rttvar"),
    # every agent's (ns-default.tcl `Agent set ...`; subclasses inherit them)
    IGN("Agent", "sport_", "", _PORT), IGN("Agent", "dport_", "", _PORT),  # no default: bound per object
    IGN("Agent", "class_", "0", _NAM), IGN("Agent", "fid_", "0", _NAM), IGN("Agent", "prio_", "0", _NAM),
    IGN("Agent", "flags_", "0", "IP flags: no hoplab model reads them"),
    IGN(TCP, "trace_all_oneline_", "false", "trace formatting only"),
    # --- TCP sinks (tcp/tcp-sink.cc) ---
    FIX("Agent/TCPSink", "packetSize_", "40", "an ACK is 40 bytes at IP"),
    F("Agent/TCPSink/DelAck", "interval_", "100ms", "tcp.delack_timeout_s", _s, _w_s, "tcp-sink.cc DelAckSink"),
    IGN("Agent/TCPSink", "sport_", "0", _PORT), IGN("Agent/TCPSink", "dport_", "0", _PORT),
    IGN("Agent/TCPSink", "bytes_", "0", "a counter the sink increments"),
    # --- UDP, CBR (tools/cbr_traffic.cc, tcl/lib/ns-source.tcl) ---
    F(CBR, "packetSize_", "210", "flows[].packet_size_bytes", _int, _g, "cbr_traffic.cc size_"),
    F(CBR, "random_", "0", "flows[].jitter", _int_flag, _w_int_flag, "cbr_traffic.cc CBR_Traffic::next_interval"),
    F(CBR, "maxpkts_", "268435456", "flows[].max_packets", _int, _g, "cbr_traffic.cc maxpkts_"),
    # interval_ sets rate_ from the packet size of that moment (ns-source.tcl); ns.py records it as rate_.
    F(CBR, "interval_", "", "flows[].rate_kbps", _s, _w_s, "ns-source.tcl Application/Traffic/CBR set interval_"),
    F(CBR, "rate_", "448Kb", "flows[].rate_kbps", lambda t, w: parse_bandwidth(t, w) / 1e3,
      lambda v: f"{float(v) * 1e3!r}", "cbr_traffic.cc rate_"),
    F(EXP, "packetSize_", "210", "flows[].packet_size_bytes", _int, _g, "expoo.cc size_"),
    F(EXP, "rate_", "64Kb", "flows[].rate_kbps", lambda t, w: parse_bandwidth(t, w) / 1e3,
      lambda v: f"{float(v) * 1e3!r}", "expoo.cc rate_"),
    F(EXP, "burst_time_", ".5", "flows[].on_s", _s, _w_s, "expoo.cc ontime_"),
    F(EXP, "idle_time_", ".5", "flows[].off_s", _s, _w_s, "expoo.cc offtime_"),
    IGN("Agent/UDP", "packetSize_", "1000", "the largest UDP datagram before ns-2 splits an application's "
        "message; CBR packets are smaller (checked in build.py)"),
    IGN("Agent/CBR", "sport_", "0", _PORT), IGN("Agent/CBR", "dport_", "0", _PORT),
    IGN("Agent/Null", "sport_", "0", _PORT), IGN("Agent/Null", "dport_", "0", _PORT),
    # --- the simulator's trace switches (ns-lib.tcl) are node-config options, read there ---
)

_BY_KEY = {(c.cls, c.var): c for c in CLASS_VARS}


def lookup(cls: str, var: str) -> ClassVar | None:
    """The entry for ``var`` of ``cls`` or of the nearest base class that
    declares it (`Agent/TCP/Newreno` finds `Agent/TCP`'s window_)."""
    c = cls
    while c:
        hit = _BY_KEY.get((c, var))
        if hit is not None:
            return hit
        c = c.rpartition("/")[0]
    return None


def scope_of(cv: ClassVar) -> str:
    """Where the entry's value lands (one of SCOPES)."""
    if cv.field is None:
        return "scenario"
    if cv.field.startswith("flows[]."):
        return "flow"
    if cv.cls.startswith("Agent/TCPSink"):
        return "sink"
    if cv.field.startswith("tcp."):
        return "tcp"
    return "scenario"
