"""hoplab.formats.ns2.trace_metrics: the classic awk figures from ns-2
wireless traces, checked on ns-2's own regression outputs (counts verified
with awk, below), on a new-format trace of real ns-2 against the old-format
trace of the same run, and on hoplab's trace.tr against its flows table."""

from __future__ import annotations

import csv
import gzip
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hoplab.formats.ns2.trace_metrics import (Event, compare_table, iter_events, parse_line, summarize,
                                              to_frames)

ROOT = Path(__file__).resolve().parents[2]
REF = Path("/usr/share/doc/ns2/examples/tcl/test/test-output-wireless-lan")
NS = shutil.which("ns")

needs_ref = pytest.mark.skipif(not (REF / "aodv.gz").is_file(),
                               reason=f"ns-2's reference traces are not installed ({REF}; Debian: ns2-examples)")

# ---------------------------------------------------------------------------
# ns-2.35's regression outputs (test-suite-wireless-lan.tcl: 50 nodes,
# 670 x 670 m, 20 CBR connections of 512 bytes, 1000 s). Every number was
# counted independently with awk over the zcat'ed file:
#   sent:     awk '$1=="s" && $4=="AGT" && $7=="cbr"' | wc -l
#   received: awk '$1=="r" && $4=="AGT" && $7=="cbr"' | wc -l
#   per conn: the same, counted by "$14 $15" (the [src:port dst:port] columns)
#   routing:  awk '($1=="s"||$1=="f") && $4=="RTR" && $7=="AODV"' (and the sizes $8 summed)
#   drops:    awk '$1=="D" {print $4, $5}' | sort | uniq -c
#   delay:    mean over receptions of $2 minus the AGT send time of the same uid ($6)
# The dsdv and dsr outputs keep only AGT lines and drops (the test filters
# them), so they have no routing lines.
REFERENCE = {
    "aodv": dict(sent=4533, received=4480, delay_mean=0.018592713, routing_sent=3810, routing_forwarded=111,
                 routing_bytes=186424, data_forwards=5544,
                 drops={("IFQ", "ARP"): 11, ("RTR", "CBK"): 47, ("RTR", "NRTE"): 1, ("RTR", "TTL"): 229},
                 drops_by_type={"AODV": 237, "cbr": 51},
                 conns="1:0-2:0 213 211, 1:1-3:0 217 215, 2:1-3:1 226 224, 8:0-9:0 217 214, 8:1-10:0 237 236, "
                       "9:1-10:1 213 210, 9:2-11:0 248 244, 10:2-11:1 211 209, 11:2-12:0 217 217, "
                       "11:3-13:0 227 224, 12:1-13:1 223 220, 12:2-14:0 233 231, 13:2-14:1 236 232, "
                       "14:2-15:0 213 208, 16:0-17:0 237 236, 18:0-19:0 229 219, 18:1-20:0 252 252, "
                       "19:1-20:1 236 233, 20:2-21:0 236 236, 22:0-23:0 212 209"),
    "dsdv": dict(sent=4548, received=4477, delay_mean=0.013476653, routing_sent=0, routing_forwarded=0,
                 routing_bytes=0, data_forwards=0,
                 drops={("IFQ", "END"): 1, ("RTR", "CBK"): 70}, drops_by_type={"cbr": 71},
                 conns="1:0-2:0 200 196, 1:1-3:0 219 211, 2:1-3:1 227 223, 8:0-9:0 219 218, 8:1-10:0 240 239, "
                       "9:1-10:1 222 218, 9:2-11:0 249 240, 10:2-11:1 213 210, 11:2-12:0 214 214, "
                       "11:3-13:0 221 220, 12:1-13:1 227 221, 12:2-14:0 241 239, 13:2-14:1 248 245, "
                       "14:2-15:0 216 214, 16:0-17:0 247 247, 18:0-19:0 234 221, 18:1-20:0 238 236, "
                       "19:1-20:1 231 225, 20:2-21:0 231 231, 22:0-23:0 211 209"),
    "dsr": dict(sent=4531, received=4494, delay_mean=0.027508942, routing_sent=0, routing_forwarded=0,
                routing_bytes=0, data_forwards=0,
                drops={("IFQ", "ARP"): 49, ("IFQ", "END"): 10, ("RTR", "CBK"): 8},
                drops_by_type={"DSR": 30, "cbr": 37},
                conns="1:0-2:0 203 201, 1:1-3:0 217 216, 2:1-3:1 234 234, 8:0-9:0 218 218, 8:1-10:0 245 245, "
                      "9:1-10:1 216 214, 9:2-11:0 244 243, 10:2-11:1 219 219, 11:2-12:0 213 213, "
                      "11:3-13:0 225 225, 12:1-13:1 220 218, 12:2-14:0 246 236, 13:2-14:1 243 243, "
                      "14:2-15:0 209 206, 16:0-17:0 242 242, 18:0-19:0 227 218, 18:1-20:0 244 244, "
                      "19:1-20:1 226 219, 20:2-21:0 237 237, 22:0-23:0 203 203"),
}


def _conn_table(text: str) -> dict[tuple[int, int, int, int], tuple[int, int]]:
    out = {}
    for item in text.split(", "):
        ends, sent, recv = item.split()
        a, b = ends.split("-")
        (s, sp), (d, dp) = (map(int, a.split(":")), map(int, b.split(":")))
        out[(s, sp, d, dp)] = (int(sent), int(recv))
    return out


@needs_ref
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_reference_traces(name):
    want = REFERENCE[name]
    s = summarize(REF / f"{name}.gz")
    assert (s.format, s.writer) == ("old", "ns2")
    t = s.totals
    assert (t.packets_sent, t.packets_sent_unique, t.packets_received) == (want["sent"], want["sent"],
                                                                           want["received"])
    assert t.delivery_ratio == want["received"] / want["sent"]
    assert t.delay_mean == pytest.approx(want["delay_mean"], abs=1e-9)
    assert (t.routing_sent, t.routing_forwarded, t.routing_bytes, t.data_forwards) == (
        want["routing_sent"], want["routing_forwarded"], want["routing_bytes"], want["data_forwards"])
    assert s.drops == want["drops"]
    assert s.drops_by_type == want["drops_by_type"]
    assert {c.key: (c.packets_sent, c.packets_received) for c in s.connections} == _conn_table(want["conns"])
    for c in s.connections:
        assert c.kind == "cbr" and c.retransmissions == 0 and c.receptions == c.packets_received
        # ns-2's UDP agent adds no header: the payload is the 512 bytes sent
        assert c.payload_bytes_received == 512 * c.packets_received
        assert c.throughput_bps == pytest.approx(c.payload_bytes_received * 8 / (c.last_recv - c.first_send))
    assert not s.mac.present  # the regression traces were written without -macTrace


@needs_ref
def test_reference_aodv_details():
    s = summarize(REF / "aodv.gz")
    c = s.connection(18, 20)  # the first packet of the trace: uid 0, sent 22.465028699
    assert (c.sport, c.dport, c.first_send) == (1, 0, 22.465028699)
    assert c.packets_received == 252 and c.delivery_ratio == 1.0
    # AODV's sizes: a RREQ is 48 bytes at RTR (aodv_packet.h + IP header)
    assert s.routing["AODV"].sent == 3810 and s.routing["AODV"].bytes_forwarded == 4884
    assert s.skipped == 99  # the 'M' header and movement lines


# ---------------------------------------------------------------------------
# Line parsing, both formats, taken from ns-2 and hoplab traces.

def test_parse_old_lines():
    e = parse_line("s 22.465028699 _18_ AGT  --- 0 cbr 512 [0 0 0 0] ------- [18:1 20:0 32 0] [0] 0 2")
    assert e == Event("s", 22.465028699, 18, "AGT", "---", 0, "cbr", 512, 18, 1, 20, 0, 32, 0)
    e = parse_line("r 1.092383829 _4_ AGT  --- 2 tcp 1040 [13a 4 3 800] ------- [0:0 4:0 27 4] [1 0] 4 0")
    assert (e.op, e.node, e.uid, e.seq, e.ttl) == ("r", 4, 2, 1, 27)
    e = parse_line("D 1.083748163 _1_ MAC  COL 0 RTS 44 [24ce 1 0 0] ")
    assert (e.op, e.level, e.reason, e.ptype, e.size, e.src) == ("D", "MAC", "COL", "RTS", 44, None)
    e = parse_line("D 22.615814338 _13_ IFQ  ARP 10 DSR 60 [13a d d 800] ------- [20:255 18:255 252 18] 4 [0 2] "
                   "[1 2 4 18->20] [0 0 0 0->0]")
    assert (e.reason, e.ptype, e.src, e.sport, e.dst, e.seq) == ("ARP", "DSR", 20, 255, 18, None)
    e = parse_line("s 1.0 _0_ MAC  --- 0 ARP 86 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]")
    assert (e.ptype, e.src) == ("ARP", None)
    for other in ("M 0.0 nn:50 x:670 y:670 rp:aodv", "SFESTs 22.642334853 _18_ 0 [18 -> 20] 1(1) to 24",
                  "Sconfig 0.00000 tap: on snoop: rts? on errs? on", "", "s 1.0 _0_", "s 1.0 _x_ AGT --- 0 cbr 5"):
        assert parse_line(other) is None


def test_parse_new_lines():
    e = parse_line("s -t 1.000000000 -Hs 0 -Hd -2 -Ni 0 -Nx 10.00 -Ny 100.00 -Nz 0.00 -Ne -1.000000 -Nl AGT "
                   "-Nw --- -Ma 0 -Md 0 -Ms 0 -Mt 0 -Is 0.0 -Id 4.0 -It tcp -Il 40 -If 0 -Ii 7 -Iv 32 -Pn tcp "
                   "-Ps 3 -Pa 0 -Pf 0 -Po 0 ")
    assert e == Event("s", 1.0, 0, "AGT", "---", 7, "tcp", 40, 0, 0, 4, 0, 32, 3)
    e = parse_line("s -t 2.0 -Hs 1 -Hd -2 -Ni 1 -Nx 1 -Ny 1 -Nz 0 -Ne -1 -Nl AGT -Nw --- -Ma 0 -Md 0 -Ms 0 -Mt 0 "
                   "-Is 1.0 -Id 3.0 -It cbr -Il 512 -If 0 -Ii 43 -Iv 32 -Pn cbr -Pi 9 -Pf 0 -Po 0 ")
    assert (e.uid, e.seq, e.src, e.dst) == (43, 9, 1, 3)
    e = parse_line("d -t 1.083748163 -Hs 1 -Hd -2 -Ni 1 -Nx 210.00 -Ny 100.00 -Nz 0.00 -Ne -1.000000 -Nl MAC "
                   "-Nw COL -Ma 24ce -Md 1 -Ms 0 -Mt 0 ")
    assert (e.op, e.reason, e.ptype, e.size) == ("D", "COL", "MAC", 0)
    e = parse_line("s -t 1.0 -Hs 0 -Hd -2 -Ni 0 -Nx 10.00 -Ny 100.00 -Nz 0.00 -Ne -1.000000 -Nl RTR -Nw --- "
                   "-Ma 0 -Md 0 -Ms 0 -Mt 0 -Is 0.255 -Id -1.255 -It AODV -Il 48 -If 0 -Ii 0 -Iv 30 -P aodv "
                   "-Pt 0x2 -Ph 1 -Pb 1 -Pd 4 -Pds 0 -Ps 0 -Pss 4 -Pc REQUEST ")
    assert (e.ptype, e.dst, e.dport, e.seq) == ("AODV", -1, 255, None)


def _trace_lines() -> list[str]:
    # one CBR packet over two hops (sent, forwarded, received twice), an AODV
    # request and its relay, a TCP segment sent twice and its ACK
    return [
        "s 1.000000000 _0_ AGT  --- 5 cbr 512 [0 0 0 0] ------- [0:0 2:0 32 0] [0] 0 0",
        "s 1.000000000 _0_ RTR  --- 6 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] [0x2 1 1 [2 0] [0 4]] (REQUEST)",
        "f 1.001000000 _1_ RTR  --- 7 AODV 44 [0 0 0 0] ------- [2:255 0:255 30 0] [0x4 1 [2 4] 10.000000] (REPLY)",
        "f 1.010000000 _1_ RTR  --- 5 cbr 532 [13a 1 0 800] ------- [0:0 2:0 31 2] [0] 1 0",
        "r 1.020000000 _2_ AGT  --- 5 cbr 532 [13a 2 1 800] ------- [0:0 2:0 30 2] [0] 2 0",
        "r 1.030000000 _2_ AGT  --- 5 cbr 532 [13a 2 1 800] ------- [0:0 2:0 30 2] [0] 2 0",
        "s 2.000000000 _0_ AGT  --- 8 tcp 1040 [0 0 0 0] ------- [0:1 2:1 32 0] [1 0] 0 0",
        "s 3.000000000 _0_ AGT  --- 9 tcp 1040 [0 0 0 0] ------- [0:1 2:1 32 0] [1 0] 0 0",
        "r 3.500000000 _2_ AGT  --- 9 tcp 1040 [13a 2 1 800] ------- [0:1 2:1 30 2] [1 0] 2 0",
        "s 3.500000000 _2_ AGT  --- 10 ack 40 [0 0 0 0] ------- [2:1 0:1 32 0] [1 0] 0 0",
        "D 3.600000000 _1_ RTR  NRTE 10 ack 40 [0 0 0 0] ------- [2:1 0:1 31 0] [1 0] 1 0",
        "M 4.0 1 (1.00, 2.00, 0.00), (3.00, 4.00), 5.00",
    ]


def test_counting_rules(tmp_path):
    p = tmp_path / "t.tr.gz"  # gzip is recognised by its bytes, not the name
    with gzip.open(p, "wt") as f:
        f.write("\n".join(_trace_lines()) + "\n")
    s = summarize(p)
    assert (s.events, s.skipped, s.writer) == (11, 1, "ns2")
    cbr, tcp = s.connection(0, 2, "cbr"), s.connection(0, 2, "tcp")
    assert (cbr.packets_sent, cbr.packets_received, cbr.receptions, cbr.forwards) == (1, 1, 2, 1)
    assert cbr.delay_mean == pytest.approx(0.02) and cbr.bytes_received == 532
    assert cbr.payload_bytes_received == 512  # the size sent at the agent, not the 532 received
    # TCP: seqno 1 sent twice (new uid each time); the reception is uid 9's
    assert (tcp.packets_sent, tcp.packets_sent_unique, tcp.retransmissions, tcp.packets_received) == (2, 1, 1, 1)
    assert tcp.delay_mean == pytest.approx(0.5) and tcp.payload_bytes_received == 1000
    assert tcp.throughput_bps == pytest.approx(1000 * 8 / 1.5)
    assert (tcp.acks_sent, tcp.acks_received) == (1, 0)
    assert s.routing["AODV"].sent == 1 and s.routing["AODV"].forwarded == 1
    assert s.drops == {("RTR", "NRTE"): 1} and s.drops_by_type == {"ack": 1}
    assert s.totals.data_forwards == 1 and s.totals.normalized_routing_load == 1.0
    assert len(list(iter_events(p))) == 11


def test_compare_table_and_frames(tmp_path):
    p = tmp_path / "t.tr"
    p.write_text("\n".join(_trace_lines()) + "\n")
    s = summarize(p)
    rows = compare_table(s, s, labels=("ns-2", "hoplab"))
    assert rows[0] == ("metric", "ns-2", "hoplab", "hoplab/ns-2")
    assert all(len(r) == 4 for r in rows)
    byname = {r[0]: r for r in rows}
    assert byname["total packets_received"][1:] == (2, 2, 1.0)
    assert byname["tcp 0->2 packets_sent"][1:] == (2, 2, 1.0)
    pd = pytest.importorskip("pandas")
    fr = to_frames(s)
    assert isinstance(fr["connections"], pd.DataFrame) and len(fr["connections"]) == 2
    assert fr["drops"].to_dict("records") == [{"level": "RTR", "reason": "NRTE", "type": "ack", "count": 1}]
    assert int(fr["totals"]["packets_received"].iloc[0]) == 2


# ---------------------------------------------------------------------------
# Real ns-2: the same run written in both formats gives the same numbers.

NS2_CHAIN = r"""
set rp [lindex $argv 0]
set ns_ [new Simulator]
if {[lindex $argv 1] == "new"} { $ns_ use-newtrace }
set tracefd [open [lindex $argv 2] w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 1000 300
create-god 5
if {$rp == "DSR"} { set ifq CMUPriQueue } else { set ifq Queue/DropTail/PriQueue }
$ns_ node-config -adhocRouting $rp -llType LL -macType Mac/802_11 -ifqType $ifq -ifqLen 50 \
  -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
  -channelType Channel/WirelessChannel -topoInstance $topo -agentTrace ON -routerTrace ON -macTrace ON \
  -movementTrace OFF
for {set i 0} {$i < 5} {incr i} {
  set node_($i) [$ns_ node]
  $node_($i) random-motion 0
  $node_($i) set X_ [expr 10.0 + 200.0*$i]
  $node_($i) set Y_ 100.0
  $node_($i) set Z_ 0.0
}
set tcp [new Agent/TCP]
$tcp set packetSize_ 1000
set sink [new Agent/TCPSink]
$ns_ attach-agent $node_(0) $tcp
$ns_ attach-agent $node_(4) $sink
$ns_ connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns_ at 1.0 "$ftp start"
set udp [new Agent/UDP]
set null [new Agent/Null]
$ns_ attach-agent $node_(1) $udp
$ns_ attach-agent $node_(3) $null
$ns_ connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 512
$cbr set interval_ 0.05
$cbr attach-agent $udp
$ns_ at 2.0 "$cbr start"
$ns_ at 15.0 "$node_(2) setdest 500.0 290.0 20.0"
$ns_ at 30.0 "$ns_ flush-trace; close $tracefd"
$ns_ at 30.01 "$ns_ halt"
$ns_ run
"""


@pytest.mark.skipif(NS is None, reason="ns-2 is not installed (Debian: ns2)")
@pytest.mark.parametrize("rp", ["AODV", "DSR"])
def test_ns2_new_format_matches_old(tmp_path, rp):
    script = tmp_path / "chain.tcl"
    script.write_text(NS2_CHAIN)
    for fmt in ("old", "new"):
        subprocess.run([NS, str(script), rp, fmt, str(tmp_path / f"{fmt}.tr")], cwd=tmp_path, check=True,
                       capture_output=True, timeout=120)
    old, new = summarize(tmp_path / "old.tr"), summarize(tmp_path / "new.tr")
    assert (old.format, new.format, old.writer, new.writer) == ("old", "new", "ns2", "ns2")
    assert old.connections == new.connections
    assert old.totals == new.totals
    assert old.routing == new.routing and old.drops == new.drops
    assert (old.events, old.skipped) == (new.events, new.skipped)
    # The new format prints no type or size for RTS/CTS/ACK (cmu-trace.cc
    # CMUTrace::format: PT_MAC has no format_ip part), so only counts agree.
    assert (old.mac.frames_sent, old.mac.frames_received, old.mac.collisions) == (
        new.mac.frames_sent, new.mac.frames_received, new.mac.collisions)
    tcp, cbr = old.connection(0, 4, "tcp"), old.connection(1, 3, "cbr")
    assert tcp.retransmissions == tcp.packets_sent - tcp.packets_sent_unique
    assert tcp.acks_sent > 0 and tcp.packets_received > 0 and cbr.packets_received > 0
    # ns-2's TCP counts 40 header bytes: 1040 per segment, 40 for the SYN-like seqno 0
    assert tcp.payload_bytes_received == 1000 * (tcp.packets_received - 1)
    assert cbr.payload_bytes_received == 512 * cbr.packets_received
    assert old.routing[rp].sent > 0


# ---------------------------------------------------------------------------
# hoplab's own trace.tr against its flows table.

HOPLAB_SCENARIO = (ROOT / "python" / "hoplab" / "examples" / "chain.toml").read_text().replace(
    "duration_s = 120.0", "duration_s = 20.0").replace('protocol = "static"', 'protocol = "aodv"') + """
[[flows]]
kind = "cbr"
src = 1
dst = 3
start_s = 1.0
rate_kbps = 40.0
"""


def _hoplab_run(tmp_path: Path, fmt: str) -> Path:
    scen = tmp_path / f"{fmt}.toml"
    scen.write_text(HOPLAB_SCENARIO + f'\n[trace]\nformats = ["ns2"]\nns2_format = "{fmt}"\n')
    out = tmp_path / f"run-{fmt}"
    subprocess.run([sys.executable, "-m", "hoplab", "run", str(scen), "--seed", "3", "--out", str(out)],
                   check=True, capture_output=True, text=True, timeout=300)
    return out


def test_hoplab_trace_against_flows_table(tmp_path):
    runs = {fmt: _hoplab_run(tmp_path, fmt) for fmt in ("old", "new")}
    sums = {fmt: summarize(d / "trace.tr") for fmt, d in runs.items()}
    assert sums["old"].format == "old" and sums["new"].format == "new"
    assert sums["old"].writer == sums["new"].writer == "hoplab"
    assert sums["old"].connections == sums["new"].connections and sums["old"].totals == sums["new"].totals
    with open(runs["old"] / "flows.csv", newline="") as f:
        flows = list(csv.DictReader(f))
    assert len(flows) == len(sums["old"].connections) == 2
    for row in flows:
        kind = {"ftp": "tcp", "cbr": "cbr"}[row["kind"]]
        c = sums["old"].connection(int(row["src"]), int(row["dst"]), kind)
        # hoplab gives each flow's agents the flow's index as their port
        assert c.sport == c.dport == int(row["flow"])
        assert c.packets_sent == int(row["packets_sent"])
        assert c.retransmissions == int(row["retransmissions"])
        assert c.packets_received == int(row["packets_received"])
        assert c.payload_bytes_received == int(row["bytes_delivered"])
        # the flows table divides by the flow's time, the trace by first send to last reception
        span = float(row["end_s"]) - float(row["start_s"])
        assert c.payload_bytes_received * 8 / span / 1000 == pytest.approx(float(row["throughput_kbps"]), rel=1e-9)
        assert c.throughput_bps > 0 and c.last_recv - c.first_send <= span
        if row["delay_mean_ms"]:
            assert c.delay_mean * 1000 == pytest.approx(float(row["delay_mean_ms"]), rel=1e-9)
    assert sums["old"].routing["AODV"].sent > 0 and sums["old"].mac.present
    assert not math.isnan(sums["old"].totals.delay_mean)


# The classic awk of ns-2 users, as they run it on ns-2's own trace: packets
# and bytes received at the agent, and the mean delay from the uid's send.
CLASSIC_AWK = r"""
$4 == "AGT" && $1 == "s" && $7 == "tcp" { if (!($6 in sent)) sent[$6] = $2 }
$4 == "AGT" && $1 == "r" && $7 == "tcp" {
    n++; bytes += $8; sizes[$8] = 1
    if ($6 in sent) { d += $2 - sent[$6]; nd++ }
}
END { printf "%d %d %.9f", n, bytes, nd ? d / nd : 0; for (s in sizes) printf " %s", s; print "" }
"""


@pytest.mark.parametrize("protocol", ["dsr", "aodv"])
def test_classic_awk_reads_the_flows_table_under_the_ns2_reading(tmp_path, protocol):
    # ns-2's agent-level size is the agent's packet: 1000 B + 40 B of TCP/IP
    # headers, whatever header the routing agent adds below it.
    scen = tmp_path / "s.toml"
    scen.write_text(f"""compat = "ns2"
duration_s = 30.0
[topology]
kind = "chain"
nodes = 5
spacing_m = 200.0
[mac]
data_rate_mbps = 2.0
[routing]
protocol = "{protocol}"
[[flows]]
kind = "ftp"
src = 0
dst = 4
start_s = 1.0
[trace]
formats = ["ns2"]
ns2_format = "old"
""")
    out = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "hoplab", "run", str(scen), "--seed", "2", "--out", str(out)],
                   check=True, capture_output=True, text=True, timeout=300)
    awk = subprocess.run(["awk", CLASSIC_AWK, str(out / "trace.tr")], check=True, capture_output=True, text=True)
    n, total, _delay, *sizes = awk.stdout.split()
    with open(out / "flows.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert sorted(int(s) for s in sizes) == [40, 1040]
    # Every reception the awk sums is 40 B of headers and the payload: its
    # throughput, headers taken off, is the flows table's (which counts
    # in-order delivery: a few segments past a hole at the end differ).
    span = float(row["end_s"]) - float(row["start_s"])
    payload_kbps = (int(total) - 40 * int(n)) * 8 / span / 1000
    unique = summarize(out / "trace.tr").connection(0, 4, "tcp")
    assert int(n) == unique.receptions and int(row["packets_received"]) <= unique.packets_received
    assert payload_kbps >= float(row["throughput_kbps"])
    # What the trace counts beyond the flows table is what the sink still held
    # past a hole when the run ended: at most a window (ns-2's window_ 20).
    beyond = unique.payload_bytes_received - int(row["bytes_delivered"])
    assert 0 <= beyond <= 20 * 1000
