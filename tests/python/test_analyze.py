"""`hoplab analyze` / `hoplab.analyze`: a run's flow metrics from captures.

Checked against tcptrace (`tcptrace -l -n -r`, Debian) on a committed capture
of real Linux TCP (tests/data/captures/) and, where this machine allows
(root, ip, tc, tcpdump, tcptrace), on a fresh capture between network
namespaces; every link type read, from the same segments; a multihop 802.11
capture made from a run's trace against the run's own flows table; and
corrupt or cut files, which must give one line naming the byte offset.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import struct
import subprocess
import sys

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hoplab
from hoplab.capture import CaptureError, TooManyIntervals, analyze
from hoplab.capture.read import records
from hoplab.cli import cli

from . import _netns_capture
from .conftest import ROOT

CAPTURES = ROOT / "tests" / "data" / "captures"
LINUX = CAPTURES / "linux-tcp.pcap"
TCPTRACE = shutil.which("tcptrace")


# ---------------------------------------------------------------- helpers
def tcptrace_figures(text: str) -> dict[str, float]:
    """The a->b column of `tcptrace -l -n -r`'s figures we compare, plus elapsed seconds."""
    out = {}
    for label in ("unique bytes sent", "actual data pkts", "rexmt data pkts", "throughput", "RTT samples",
                  "RTT avg", "RTT stdev"):
        m = re.search(rf"^\s+{re.escape(label)}:\s+([\d.]+)", text, re.M)
        assert m, label
        out[label] = float(m.group(1))
    h, mi, s = re.search(r"elapsed time:\s+(\d+):(\d+):([\d.]+)", text).groups()
    out["elapsed"] = int(h) * 3600 + int(mi) * 60 + float(s)
    return out


def tcptrace_like_rtt(direction) -> tuple[int, float, float]:
    """tcptrace's RTT figures from our samples: its count and mean include the
    SYN's and FIN's samples, and its stdev divides by n-1 (output.c Stdev)."""
    xs = [x / 1e6 for x in direction.rtt_ns + direction.rtt_synfin_ns]
    n = len(xs)
    mean = sum(xs) / n
    return n, mean, math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))


def assert_agrees_with_tcptrace(result, text: str) -> None:
    t = tcptrace_figures(text)
    f = result.flows.iloc[0]
    d = result.connections[0].a
    assert f.unique_bytes == t["unique bytes sent"]
    assert f.packets_sent == t["actual data pkts"]
    assert f.retransmissions == t["rexmt data pkts"]
    # tcptrace's throughput: unique bytes over the connection's first-to-last packet.
    assert f.last_s - f.first_s == pytest.approx(t["elapsed"], abs=2e-6)
    assert f.unique_bytes / (f.last_s - f.first_s) == pytest.approx(t["throughput"], rel=0.01)
    n, mean, std = tcptrace_like_rtt(d)
    assert n == t["RTT samples"]
    # tcptrace prints 0.1 ms: the like-for-like figures agree within that and 1 %.
    assert mean == pytest.approx(t["RTT avg"], rel=0.01, abs=0.05)
    assert std == pytest.approx(t["RTT stdev"], rel=0.01, abs=0.05)
    # hoplab's own RTT: data segments only, over n (the engine's definition).
    assert f.rtt_samples == len(d.rtt_ns) == n - len(d.rtt_synfin_ns)
    assert f.rtt_mean_ms == pytest.approx(t["RTT avg"], rel=0.02)


def pcap_bytes(frames: list[tuple[int, bytes, int]], linktype: int, *, order: str = "<", nano: bool = False) -> bytes:
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = [struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)]
    for t, data, orig in frames:
        sec, frac = divmod(t, 1_000_000_000)
        out.append(struct.pack(order + "IIII", sec, frac if nano else frac // 1000, len(data), orig) + data)
    return b"".join(out)


def pcapng_bytes(frames: list[tuple[int, bytes, int]], linktype: int, interfaces: int = 1,
                 iface_of=lambda i: 0, order: str = "<", tsresol: int = 9) -> bytes:
    def block(btype: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack(order + "II", btype, n) + body + struct.pack(order + "I", n)

    out = [block(0x0A0D0D0A, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1)),
           block(0x0BAD, b"an unknown block type: skipped")]
    for _ in range(interfaces):  # if_tsresol option (9: ns; 0x80 | k: 2^-k s)
        out.append(block(1, struct.pack(order + "HHI", linktype, 0, 65535)
                         + struct.pack(order + "HHB3x", 9, 1, tsresol) + b"\0" * 4))
    for i, (t, data, orig) in enumerate(frames):
        ticks = t if tsresol == 9 else (t << (tsresol & 0x7F)) // 1_000_000_000
        out.append(block(6, struct.pack(order + "IIIII", iface_of(i), ticks >> 32, ticks & 0xFFFFFFFF, len(data),
                                        orig) + data))
    return b"".join(out)


def linux_frames(limit: int | None = None) -> list[tuple[int, bytes, int]]:
    """The committed capture's records (Ethernet): (time ns, bytes, original length)."""
    out = [(r.time_ns, r.data, r.orig_len) for r in records(LINUX)]
    return out[:limit] if limit else out


KEY = ["packets_sent", "retransmissions", "packets_received", "bytes_delivered", "unique_bytes", "rtt_samples",
       "rtt_mean_ms", "rtt_std_ms", "throughput_kbps", "cwnd_mean", "completed"]


@pytest.fixture(scope="module")
def linux():
    return analyze(LINUX)


# ------------------------------------------------------ real Linux TCP
def test_linux_capture_metrics(linux):
    """The committed capture: 1,500,000 bytes, Linux retransmitting into a
    20,000-byte bottleneck queue; the figures follow the run's definitions."""
    assert len(linux.flows) == 1  # the ACK direction carried no data
    f = linux.flows.iloc[0]
    assert (f.kind, f.src, f.dst, f.src_addr, f.dst_addr, f.dst_port) == ("tcp", 0, 1, "192.0.2.1", "198.51.100.2", 5001)
    assert f.completed and f.bytes_delivered == f.unique_bytes == 1_500_000
    assert (f.packets_sent, f.retransmissions, f.packets_received) == (1051, 15, 1036)
    assert f.retransmission_index == pytest.approx(100 * 15 / 1036)
    assert f.loss_rate == pytest.approx(15 / 1051)
    assert f.end_s == f.completion_s and f.start_s == 0.0
    assert f.throughput_kbps == pytest.approx(1_500_000 * 8 / (f.end_s - f.start_s) / 1e3)
    assert f.mss_bytes == 1448  # 1460 less the timestamp option
    assert 10 < f.rtt_mean_ms < 25 and f.rtt_std_ms > 0 and f.rtt_samples == 501
    assert math.isnan(f.timeouts) and f.oracle_hops_at_start == -1
    # Time series: one row per ACK of new data, the estimate bounded by the queue.
    ts = linux.timeseries
    assert (ts.flow == 0).all() and ts.time_s.is_monotonic_increasing
    assert ts.delivered_bytes.iloc[-1] == 1_500_000 and ts.delivered_bytes.is_monotonic_increasing
    assert f.cwnd_mean == pytest.approx(ts.cwnd.mean())
    # CUBIC's sawtooth in a 20,000-byte queue: 9 to 14 segments once past slow
    # start. SACKed bytes are not in flight: counting them would show spikes of
    # 22-26 segments at each loss.
    steady = ts[ts.time_s.between(0.2, 1.5)].cwnd
    assert steady.max() == 14 and steady.min() >= 8 and 10 < steady.mean() < 13
    assert ts.rtt_ms.count() == f.rtt_samples
    assert ts.rtt_ms.mean() == pytest.approx(f.rtt_mean_ms)
    # Throughput per interval adds up to the bytes delivered.
    assert linux.throughput.bytes.sum() == 1_500_000


def test_linux_capture_agrees_with_stored_tcptrace(linux):
    assert_agrees_with_tcptrace(linux, (CAPTURES / "linux-tcp.tcptrace.txt").read_text())


@pytest.mark.skipif(TCPTRACE is None, reason="needs tcptrace (apt-get install tcptrace)")
def test_stored_tcptrace_figures_are_tcptraces():
    live = subprocess.run([TCPTRACE, "-l", "-n", "-r", LINUX.name], cwd=CAPTURES, capture_output=True, text=True,
                          check=True).stdout
    assert tcptrace_figures(live) == tcptrace_figures((CAPTURES / "linux-tcp.tcptrace.txt").read_text())


@pytest.mark.skipif(_netns_capture.missing_tools() is not None or TCPTRACE is None,
                    reason=f"live capture {_netns_capture.missing_tools() or 'needs tcptrace'}")
def test_live_namespace_capture_agrees_with_tcptrace(tmp_path):
    """A fresh capture of Linux TCP between namespaces (NewReno this time)."""
    out = tmp_path / "live.pcap"
    got = _netns_capture.capture(out, 600_000, rate="8mbit", queue_bytes=15_000, snaplen=96, congestion="reno")
    assert got == 600_000
    r = analyze(out)
    f = r.flows.iloc[0]
    assert f.completed and f.bytes_delivered == 600_000
    text = subprocess.run([TCPTRACE, "-l", "-n", "-r", str(out)], capture_output=True, text=True, check=True).stdout
    assert_agrees_with_tcptrace(r, text)


# ------------------------------------------------------------ link types
def _strip_ethernet(frames):
    return [(t, d[14:], o - 14) for t, d, o in frames]


def _sll(frames):  # Linux cooked v1: packet type 4 (sent by us), ARPHRD_ETHER, address, protocol
    return [(t, struct.pack(">HHH8sH", 4, 1, 6, d[6:12] + b"\0\0", 0x0800) + d[14:], o + 2) for t, d, o in frames]


def _sll2(frames):  # Linux cooked v2: protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address
    return [(t, struct.pack(">HHiHBB8s", 0x0800, 0, 2, 1, 4, 6, d[6:12] + b"\0\0") + d[14:], o + 6)
            for t, d, o in frames]


def _radiotap(frames):
    """802.11 data frames (ad hoc: addr3 = BSSID), LLC/SNAP, a radiotap header with TSFT and Flags."""
    macs: dict[bytes, bytes] = {}
    seqs: dict[bytes, int] = {}
    out = []
    for t, d, o in frames:
        src, dst = d[26:30], d[30:34]  # IPv4 addresses
        ta = macs.setdefault(src, bytes([2, 0, 0, 0, 0, len(macs) + 1]))
        ra = macs.setdefault(dst, bytes([2, 0, 0, 0, 0, len(macs) + 1]))
        seqs[ta] = (seqs.get(ta, -1) + 1) % 4096
        rt = struct.pack("<BBHIQB3x", 0, 0, 20, 0b11, t // 1000, 0)  # TSFT, Flags (no FCS)
        hdr = struct.pack("<BBH6s6s6sH", 0x08, 0, 0, ra, ta, b"\x02\0\0\0\xff\xff", seqs[ta] << 4)
        body = rt + hdr + b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + d[14:]
        out.append((t, body, o - len(d) + len(body)))
    return out


@pytest.mark.parametrize("name, linktype, convert, container", [
    ("raw IP", 101, _strip_ethernet, "pcap"),
    ("SLL", 113, _sll, "pcap"),
    ("SLL2", 276, _sll2, "pcap"),
    ("radiotap", 127, _radiotap, "pcap"),
    ("Ethernet pcapng", 1, lambda f: f, "pcapng"),
    ("SLL2 pcapng", 276, _sll2, "pcapng"),
    ("Ethernet big-endian ns", 1, lambda f: f, "pcap-be-ns"),
    ("Ethernet pcapng big-endian, 2^-30 s", 1, lambda f: f, "pcapng-be-bin"),
])
def test_every_link_type_gives_the_same_flows(tmp_path, linux, name, linktype, convert, container):
    frames = convert(linux_frames())
    if container == "pcapng":
        data = pcapng_bytes(frames, linktype)
    elif container == "pcapng-be-bin":
        data = pcapng_bytes(frames, linktype, order=">", tsresol=0x80 | 30)
    elif container == "pcap-be-ns":
        data = pcap_bytes(frames, linktype, order=">", nano=True)
    else:
        data = pcap_bytes(frames, linktype)
    p = tmp_path / f"x.{container}"
    p.write_bytes(data)
    r = analyze(p)
    for col in KEY:  # 2^-30 s ticks: RTTs within a few ns
        assert r.flows[col].iloc[0] == pytest.approx(linux.flows[col].iloc[0], rel=1e-6 if "2^" in name else 1e-9), \
            (name, col)
    tshark = shutil.which("tshark")
    if tshark and linktype in (127, 276):  # our crafted headers are what Wireshark reads too
        got = subprocess.run([tshark, "-r", str(p), "-Y", "tcp && !_ws.malformed", "-T", "fields", "-e", "frame.number"],
                             capture_output=True, text=True, check=True).stdout.split()
        assert len(got) == len(frames)


# ------------------------------------------------------- multihop 802.11
@pytest.fixture(scope="module")
def chain_run(tmp_path_factory):
    """The 4-hop chain for 30 s with its captures as the pcap writer makes
    them (trace/pcap): `channel.pcap` (every frame on the air) and
    `host-N.pcap` (each node's IP packets, as tcpdump on it sees them)."""
    import tomllib

    sc = tomllib.loads((ROOT / "examples" / "chain.toml").read_text())  # 4 hops
    sc["duration_s"] = 30.0
    sc.setdefault("output", {})["trace"] = True
    d = tmp_path_factory.mktemp("chain")
    for mode in ("channel", "hosts"):
        sc["trace"] = {"formats": ["pcap"], "pcap": mode}
        r = hoplab.run(sc, seed=1, trace_dir=d)
    r.capture_dir = d
    return r


def test_multihop_channel_capture_reproduces_the_flows_table(tmp_path, chain_run):
    """Every hop's copy and every MAC retry of a segment is on the channel:
    analyze counts the source's own transmissions, and delivery by the
    destination's ACKs, so the run's figures come back."""
    p = chain_run.capture_dir / "channel.pcap"
    n = sum(1 for _ in records(p))
    tr = chain_run.trace
    src_tx = tr[(tr.layer == "MAC") & (tr.event == "send") & (tr.frame == "DATA") & (tr.packet_type == "tcp")
                & (tr.src == 0)]
    assert n > 2 * len(src_tx) and src_tx.retry.any()  # hops and MAC retries are in the file
    a = analyze(p).flows.iloc[0]
    s = chain_run.flows.iloc[0]
    assert (a.src, a.dst) == (0, 4)  # hoplab's addressing gives node ids back
    assert a.bytes_delivered == pytest.approx(s.bytes_delivered, rel=0.01)
    assert a.packets_received == pytest.approx(s.packets_received, rel=0.01)
    assert a.throughput_kbps == pytest.approx(s.throughput_kbps, rel=0.01)
    # On the air: one first copy per segment that left the source's MAC.
    assert a.packets_sent - a.retransmissions == src_tx.uid.nunique() - (src_tx.drop_duplicates("uid").tcp_seq.duplicated().sum())
    assert a.retransmissions <= s.retransmissions and a.packets_sent <= s.packets_sent


def test_the_senders_host_capture_reproduces_the_flows_table_within_one_percent(chain_run):
    """host-0.pcap holds what tcpdump on the source would: each segment once as
    TCP hands it to IP (retransmissions included, MAC retries not) and the
    ACKs that come back, so the sender's counters are exact and delivery
    (from the ACKs) lags only by the ACKs still in flight at the end."""
    a = analyze(chain_run.capture_dir / "host-0.pcap").flows.iloc[0]
    s = chain_run.flows.iloc[0]
    assert (a.src, a.dst) == (0, 4)
    assert (a.packets_sent, a.retransmissions) == (s.packets_sent, s.retransmissions)
    for col in ("packets_received", "bytes_delivered", "throughput_kbps", "rtt_mean_ms", "rtt_std_ms",
                "retransmission_index", "loss_rate"):
        assert a[col] == pytest.approx(s[col], rel=0.01), col


def test_a_frame_recorded_at_two_interfaces_counts_once(tmp_path, chain_run):
    """pcapng with one interface per node holds each frame as sent and as
    received: the copies are one transmission."""
    single = chain_run.capture_dir / "channel.pcap"
    frames = [(r.time_ns, r.data, r.orig_len) for r in records(single)]
    doubled = [x for t, d, o in frames for x in ((t, d, o), (t + 1000, d, o))]
    p = tmp_path / "nodes.pcapng"
    p.write_bytes(pcapng_bytes(doubled, 127, interfaces=2, iface_of=lambda i: i % 2))
    a, b = analyze(single).flows, analyze(p).flows
    for col in ("packets_sent", "retransmissions", "packets_received", "bytes_delivered", "rtt_samples"):
        assert a[col].iloc[0] == b[col].iloc[0], col


# ------------------------------------------------------- corrupt files
def _cut_cases(tmp_path) -> list[tuple[str, bytes, int, str]]:
    good = pcap_bytes(linux_frames(20), 1)
    first = 24 + 16 + len(linux_frames(1)[0][1])  # offset of the second record
    huge = bytearray(good)
    struct.pack_into("<I", huge, first + 8, 0x7FFFFFFF)
    ng = pcapng_bytes(linux_frames(20), 1)
    # The first packet block: its trailing length disagrees.
    epb_at = 0
    while struct.unpack_from("<I", ng, epb_at)[0] != 6:
        epb_at += struct.unpack_from("<I", ng, epb_at + 4)[0]
    epb_len = struct.unpack_from("<I", ng, epb_at + 4)[0]
    wrong = bytearray(ng)
    struct.pack_into("<I", wrong, epb_at + epb_len - 4, epb_len + 4)
    odd = bytearray(ng)
    struct.pack_into("<I", odd, epb_at + 4, epb_len + 2)
    return [
        ("garbage magic", b"GARBAGE!" * 8, 0, "not a pcap or pcapng capture"),
        ("empty", b"", 0, "too short"),
        ("cut in a record header", good[:first + 7], first, "record header cut short"),
        ("record past the end", good[:first + 30], first, "runs past the end of the file"),
        ("implausible record length", bytes(huge), first, "not plausible"),
        ("pcapng block of wrong length", bytes(wrong), epb_at, "of wrong length"),
        ("pcapng block length not a multiple of 4", bytes(odd), epb_at, "bad length"),
        ("pcapng cut in a block", ng[:epb_at + 20], epb_at, "runs past the end"),
    ]


def test_corrupt_captures_name_the_byte_offset(tmp_path):
    for name, data, offset, words in _cut_cases(tmp_path):
        p = tmp_path / "bad.pcap"
        p.write_bytes(data)
        with pytest.raises(CaptureError) as e:
            analyze(p)
        assert e.value.offset == offset, name
        assert f"{p}: byte {offset}: " in str(e.value) and words in str(e.value), (name, str(e.value))
        r = CliRunner().invoke(cli, ["analyze", str(p)])
        assert r.exit_code == 2, (name, r.output)
        lines = r.stderr.splitlines()
        assert lines == [f"hoplab: error: {e.value}"], (name, r.stderr)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(container=st.sampled_from(["pcap", "pcapng"]), cut=st.integers(0, 4000),
       flips=st.lists(st.tuples(st.integers(0, 3999), st.integers(0, 255)), max_size=4))
def test_fuzzed_captures_give_a_result_or_a_capture_error(tmp_path, container, cut, flips):
    frames = linux_frames(30)
    data = bytearray(pcap_bytes(frames, 1) if container == "pcap" else pcapng_bytes(frames, 1))
    for pos, val in flips:
        if pos < len(data):
            data[pos] = val
    p = tmp_path / "fuzz"
    p.write_bytes(bytes(data[:cut]))
    try:
        r = analyze(p)
    except (CaptureError, TooManyIntervals) as e:  # TooManyIntervals: a corrupt timestamp, a flow of years
        assert str(e).startswith(f"{p}: ") and "\n" not in str(e)
    else:
        assert len(r.flows) <= 30


# ----------------------------------------------------------- CLI
def test_cli_writes_a_result_directory(tmp_path, linux):
    out = tmp_path / "res"
    r = CliRunner().invoke(cli, ["analyze", str(LINUX), "--out", str(out), "--interval", "0.5"])
    assert r.exit_code == 0, r.output
    assert "192.0.2.1:" in r.stdout and "1,500,000" in r.stdout
    back = hoplab.Result.load(out)
    for col in KEY:
        assert back.flows[col].iloc[0] == pytest.approx(linux.flows[col].iloc[0]), col
    assert math.isnan(back.flows.timeouts.iloc[0])  # not observable: NaN, as in memory
    assert len(back.timeseries) == len(linux.timeseries)
    # Both print (a REPL, Jupyter): counters a capture lacks show as "-".
    assert "192.0.2.1:" in repr(linux) and "<table" in linux._repr_html_()
    assert "7,642.2" in repr(back) and "<table" in back._repr_html_()
    tp = (out / "throughput.csv").read_text().splitlines()
    assert tp[0] == "flow,start_s,end_s,bytes,throughput_kbps" and len(tp) == 1 + 4  # 1.57 s in 0.5 s steps
    # Part of the saved unit: listed, with its checksum, in the manifest.
    listed = json.loads((out / "MANIFEST.json").read_text())["files"]
    assert listed["throughput.csv"]["rows"] == 4
    assert listed["throughput.csv"]["sha256"] == hashlib.sha256((out / "throughput.csv").read_bytes()).hexdigest()


def test_cli_parquet(tmp_path):
    out = tmp_path / "res"
    r = CliRunner().invoke(cli, ["analyze", str(LINUX), "--out", str(out), "--format", "parquet"])
    assert r.exit_code == 0, r.output
    assert (out / "flows.parquet").is_file() and (out / "throughput.parquet").is_file()
    assert "throughput.parquet" in json.loads((out / "MANIFEST.json").read_text())["files"]
    assert hoplab.Result.load(out).flows.packets_sent.iloc[0] == 1051


def test_an_interval_too_short_is_one_line():
    r = CliRunner().invoke(cli, ["analyze", str(LINUX), "--interval", "1e-7"])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith(f"hoplab: error: {LINUX}: flow 0 lasts 2 s, more than 1,000,000 intervals of 1e-07 s")
    assert r.stderr.rstrip().endswith("give a longer --interval")


def test_missing_file_and_missing_dpkt_are_one_line(tmp_path, monkeypatch):
    r = CliRunner().invoke(cli, ["analyze", str(tmp_path / "nope.pcap")])
    assert r.exit_code == 2 and r.stderr.startswith("hoplab: error: ") and len(r.stderr.splitlines()) == 1
    assert "nope.pcap: cannot read" in r.stderr
    monkeypatch.setitem(sys.modules, "dpkt", None)  # as if not installed
    r = CliRunner().invoke(cli, ["analyze", str(LINUX)])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
    assert "pip install 'hoplab[capture]'" in r.stderr


# ------------------------------------------------ sequence space, several flows
def _shift_seq(frames, delta_a: int, delta_b: int, port_delta: int = 0, dt_ns: int = 0):
    """The frames with the a->b sequence numbers (and b's ACKs) moved by delta_a, b's by
    delta_b, the client port moved by port_delta and times by dt_ns (TCP checksums are not read)."""
    out = []
    for t, d, o in frames:
        b = bytearray(d)
        tcp = 14 + (b[14] & 0x0F) * 4
        sport, dport, seq, ack = struct.unpack_from(">HHII", b, tcp)
        if dport == 5001:  # a -> b
            seq, ack, sport = (seq + delta_a) % 2**32, (ack + delta_b) % 2**32, sport + port_delta
        else:
            seq, ack, dport = (seq + delta_b) % 2**32, (ack + delta_a) % 2**32, dport + port_delta
        struct.pack_into(">HHII", b, tcp, sport, dport, seq, ack)
        i, end = tcp + 20, min(len(b), tcp + (b[tcp + 12] >> 4) * 4)
        while i < end and b[i] != 0:  # SACK edges (RFC 2018 §3) are the other side's numbers
            if b[i] == 1:
                i += 1
                continue
            if b[i] == 5:
                for k in range(i + 2, i + b[i + 1], 4):
                    edge = struct.unpack_from(">I", b, k)[0]
                    struct.pack_into(">I", b, k, (edge + (delta_a if dport != 5001 else delta_b)) % 2**32)
            i += b[i + 1]
        out.append((t + dt_ns, bytes(b), o))
    return out


def test_sequence_numbers_that_wrap_give_the_same_flows(tmp_path, linux):
    """RFC 9293 §3.4: sequence numbers wrap at 2^32; an ISN just below it changes nothing."""
    frames = linux_frames()
    isn = struct.unpack_from(">I", frames[0][1], 14 + 20 + 4)[0]
    p = tmp_path / "wrap.pcap"
    p.write_bytes(pcap_bytes(_shift_seq(frames, 2**32 - 700_000 - isn, 12345), 1))
    r = analyze(p)
    for col in KEY:
        assert r.flows[col].iloc[0] == pytest.approx(linux.flows[col].iloc[0], rel=1e-12), col


def test_two_interleaved_connections_are_two_flows(tmp_path, linux):
    a = linux_frames()
    b = _shift_seq(a, 1000, 2000, port_delta=1, dt_ns=300_000_000)
    merged = sorted(a + b, key=lambda x: x[0])
    p = tmp_path / "two.pcap"
    p.write_bytes(pcap_bytes(merged, 1))
    r = analyze(p)
    assert len(r.flows) == 2 and r.info["connections"] == 2
    assert r.flows.src_port.iloc[1] == r.flows.src_port.iloc[0] + 1
    assert (r.flows.start_s.iloc[1] - r.flows.start_s.iloc[0]) == pytest.approx(0.3)
    for col in ("packets_sent", "retransmissions", "bytes_delivered", "rtt_samples", "rtt_mean_ms"):
        assert r.flows[col].iloc[0] == r.flows[col].iloc[1] == pytest.approx(linux.flows[col].iloc[0]), col
    assert set(r.timeseries.flow) == {0, 1}


def test_a_capture_and_a_run_compare_in_one_table(chain_run, linux):
    """The flows tables share their columns: one DataFrame, hoplab.stats over it."""
    import pandas as pd

    from hoplab.stats import describe

    both = pd.concat([chain_run.flows.assign(source="simulation"), linux.flows.assign(source="testbed")],
                     ignore_index=True)
    assert list(both.columns[:len(chain_run.flows.columns)]) == list(chain_run.flows.columns)
    d = describe(both, "throughput_kbps", "source")
    assert len(d) == 2


def test_a_transfer_cut_by_the_capture_ends_with_it(tmp_path, linux):
    """Half the capture: not completed, end_s is the capture's last record,
    delivered bytes are what the receiver acknowledged by then."""
    frames = linux_frames()[:800]
    p = tmp_path / "half.pcap"
    p.write_bytes(pcap_bytes(frames, 1))
    f = analyze(p).flows.iloc[0]
    assert not f.completed and math.isnan(f.completion_s)
    assert f.end_s == pytest.approx((frames[-1][0] - frames[0][0]) / 1e9)
    assert 0 < f.bytes_delivered < f.unique_bytes < 1_500_000
    assert f.bytes_delivered % 1448 == 0  # whole segments acknowledged
    assert f.throughput_kbps == pytest.approx(f.bytes_delivered * 8 / f.end_s / 1e3)


def test_a_hoplab_capture_keeps_the_runs_flow_numbers(tmp_path, chain_run):
    """hoplab's wire gives flow f port 50000 + f at both ends: flow 3 stays flow 3."""
    p = chain_run.capture_dir / "channel.pcap"
    frames = []
    for r in records(p):
        b = bytearray(r.data)
        rt = struct.unpack_from("<H", b, 2)[0]  # radiotap's own length
        ip = rt + 24 + 8  # 802.11 data header, LLC/SNAP
        if b[rt] & 0x0C == 0x08 and b[ip - 2:ip] == b"\x08\x00" and b[ip + 9] == 6:  # DATA, IPv4, TCP
            struct.pack_into(">HH", b, ip + 4 * (b[ip] & 0x0F), 50003, 50003)
        frames.append((r.time_ns, bytes(b), r.orig_len))
    q = tmp_path / "flow3.pcap"
    q.write_bytes(pcap_bytes(frames, 127))
    f = analyze(q)
    assert list(f.flows.flow) == [3] and set(f.timeseries.flow) == {3} and set(f.throughput.flow) == {3}
    assert analyze(LINUX).flows.flow.tolist() == [0]  # not hoplab's addresses: numbered in order


def test_node_ids_follow_the_engines_address_plan():
    from hoplab.capture.metrics import node_ids

    # Inside the engine's plan (10.0.0.0/16 + node + 1): the node ids themselves.
    assert node_ids(["10.0.0.5", "10.0.0.1"]) == {"10.0.0.5": 4, "10.0.0.1": 0}
    # One address outside it (another /16, or the network address): numbered by appearance.
    assert node_ids(["10.0.0.5", "10.1.0.1"]) == {"10.0.0.5": 0, "10.1.0.1": 1}
    assert node_ids(["10.0.0.0", "10.0.0.2"]) == {"10.0.0.0": 0, "10.0.0.2": 1}


def test_a_capture_with_dsdvs_second_ip_header_reads_as_the_run(tmp_path):
    """ns-2's DSDV charges what a node originates a second IP header
    (`routing.dsdv.double_ip_header`, on under compat = "ns2"); the capture
    carries it as IP in IP (RFC 2003) and analyze reads the TCP inside."""
    sc = {"compat": "ns2", "duration_s": 40.0, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200.0},
          "routing": {"protocol": "dsdv", "dsdv": {"use_settling": False}},
          "flows": [{"kind": "ftp", "src": 0, "dst": 2}],
          "trace": {"formats": ["pcap"], "pcap": "channel"}}
    r = hoplab.run(sc, seed=1, trace_dir=tmp_path)
    s = r.flows.iloc[0]
    assert s.bytes_delivered > 100_000
    a = analyze(tmp_path / "channel.pcap").flows.iloc[0]
    assert (a.src, a.dst) == (0, 2)
    assert a.bytes_delivered == pytest.approx(s.bytes_delivered, rel=0.01)


# ------------------------------------------- time order, damage, nothing to measure
def _cli_lines(path, *args):
    r = CliRunner().invoke(cli, ["analyze", str(path), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr.splitlines()


def test_records_out_of_time_order_are_sorted_saying_so_in_one_warning(tmp_path, linux):
    """Two halves of a capture concatenated the wrong way round (mergecap -a of
    files in the wrong order): read in file order, the capture lasted a
    negative time and its first half looked resent; sorted, it is the capture."""
    frames = linux_frames()
    half = len(frames) // 2
    p = tmp_path / "swapped.pcap"
    p.write_bytes(pcap_bytes(frames[half:] + frames[:half], 1))
    second_half_at = 24 + sum(16 + len(d) for _, d, _ in frames[half:])  # where time goes back
    r = analyze(p)
    assert r.info["duration_s"] == pytest.approx(linux.info["duration_s"]) and r.info["connections"] == 1
    for col in KEY:
        assert r.flows[col].iloc[0] == pytest.approx(linux.flows[col].iloc[0], rel=1e-12), col
    back = (frames[-1][0] - frames[0][0]) / 1e9
    assert r.info["warnings"] == [f"{p}: byte {second_half_at}: a record {back:.9g} s earlier than one before it "
                                  f"({half:,} of {len(frames):,} records out of time order); analysed sorted by time"]
    code, out, err = _cli_lines(p)
    assert code == 0 and err == [f"hoplab: warning: {r.info['warnings'][0]}"]
    assert out.startswith(f"capture {p}  1.570 s  ")


def test_a_capture_in_time_order_has_no_warning(linux):
    assert "warnings" not in linux.info


def _with_ip_total_length(frames, k: int, value: int):
    """The frames with record k's IPv4 Total Length (Ethernet: bytes 16-17) set to `value`."""
    t, d, o = frames[k]
    return frames[:k] + [(t, d[:16] + struct.pack(">H", value) + d[18:], o)] + frames[k + 1:]


@pytest.mark.parametrize("value, words", [
    (65535, "IPv4 total length 65535 bytes is more than the 1500 bytes the packet had on the link"),
    (12, "IPv4 total length 12 bytes is less than its 20-byte header"),
])
def test_a_damaged_ip_total_length_names_the_record(tmp_path, value, words):
    """An IPv4 Total Length beyond what the record says the packet had on the
    link (its original length; RFC 791 §3.1), or short of its own header, is
    damage: it used to make flows larger than the file."""
    frames = linux_frames(30)
    k = next(i for i, (_, d, o) in enumerate(frames) if o == 1514)  # a full-sized data segment
    data = pcap_bytes(_with_ip_total_length(frames, k, value), 1)
    offset = 24 + sum(16 + len(d) for _, d, _ in frames[:k])
    p = tmp_path / "damaged.pcap"
    p.write_bytes(data)
    with pytest.raises(CaptureError) as e:
        analyze(p)
    assert (e.value.offset, e.value.problem) == (offset, f"{words} (a damaged record)")
    code, out, err = _cli_lines(p)
    assert code == 2 and err == [f"hoplab: error: {p}: byte {offset}: {words} (a damaged record)"]


@pytest.mark.parametrize("container", ["pcap", "pcapng"])
def test_an_implausible_original_length_names_the_record(tmp_path, container):
    """A record header's original length of 4 GB (a TSO packet's size is taken
    from it) is corruption, not a packet."""
    frames = linux_frames(5)
    frames[3] = (frames[3][0], frames[3][1], 0xFFFFFFF0)
    data = pcap_bytes(frames, 1) if container == "pcap" else pcapng_bytes(frames, 1)
    p = tmp_path / f"orig.{container}"
    p.write_bytes(data)
    with pytest.raises(CaptureError, match="original length 4294967280 bytes is not plausible") as e:
        analyze(p)
    if container == "pcap":
        assert e.value.offset == 24 + sum(16 + len(d) for _, d, _ in frames[:3])
    code, _, err = _cli_lines(p)
    assert code == 2 and len(err) == 1 and f"byte {e.value.offset}: " in err[0]


def _nothing_cases():
    frames = linux_frames()
    return [
        ("an unknown link type", pcap_bytes(frames, 147),
         "1,676 of link type 147, which hoplab does not read (it reads Ethernet, raw IP, "),
        ("Ethernet frames labelled raw IP", pcap_bytes(frames, 101),
         "1,676 not IPv4 or IPv6 (is link type 101 (raw IP) what the file holds?)"),
        ("a snap length of 40 bytes", pcap_bytes([(t, d[:40], o) for t, d, o in frames], 1),
         "1,676 cut short before the end of their TCP header, at 40 bytes or fewer (the snap length: "
         "capture with tcpdump -s 256 or more)"),
        ("radiotap cut to 30 bytes", pcap_bytes([(t, d[:30], o) for t, d, o in _radiotap(frames)], 127),
         "1,676 cut short before the end of their TCP header, at 30 bytes or fewer"),
        ("no records", pcap_bytes([], 1), "nothing to measure: no packet records (the file holds headers only)"),
        ("the handshake only", pcap_bytes(frames[:3], 1),
         "nothing to measure: its 3 TCP segments (1 connection) carry no data"),
    ]


@pytest.mark.parametrize("case", range(6), ids=[c[0] for c in _nothing_cases()])
def test_a_capture_with_nothing_to_measure_says_why_exit_2(tmp_path, case):
    """A capture of a link type not read, or not the one its header names, or
    cut to a tiny snap length, used to give exit 0, no flow and no word."""
    name, data, words = _nothing_cases()[case]
    p = tmp_path / "nothing.pcap"
    p.write_bytes(data)
    with pytest.raises(CaptureError, match="nothing to measure") as e:
        analyze(p)
    assert e.value.offset is None and words in str(e.value), str(e.value)
    code, out, err = _cli_lines(p)
    assert code == 2 and out == "" and err == [f"hoplab: error: {e.value}"], (name, err)


def test_unknown_link_types_beside_known_ones_are_one_warning(tmp_path, linux):
    ng = pcapng_bytes(linux_frames(), 1, interfaces=2)  # interface 1, never used: Ethernet too
    # a second section whose one interface is of link type 147, with a record
    p = tmp_path / "mixed.pcapng"
    p.write_bytes(ng + pcapng_bytes(linux_frames(1), 147))
    r = analyze(p)
    assert r.info["warnings"][0] == f"{p}: 1 records of link type 147 skipped (not read)"


def _feed_fifo(path, data: bytes):
    import threading

    def write():
        with open(path, "wb") as f:
            f.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("container", ["pcap", "pcapng"])
def test_a_fifo_reads_as_the_file_does(tmp_path, linux, container):
    """A pcapng capture from a FIFO (`tcpdump -w - | hoplab analyze
    /dev/stdin`) used to fail on a seek, reported as an --interval error."""
    import os

    frames = linux_frames()
    half = len(frames) // 2
    swapped = frames[half:] + frames[:half]  # out of time order too: a pipe cannot be read twice
    data = pcap_bytes(swapped, 1) if container == "pcap" else pcapng_bytes(swapped, 1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = _feed_fifo(fifo, data)
    r = analyze(fifo)
    writer.join(5)
    for col in KEY:
        assert r.flows[col].iloc[0] == pytest.approx(linux.flows[col].iloc[0], rel=1e-12), col
    assert "out of time order" in r.info["warnings"][0]
    writer = _feed_fifo(fifo, data[:len(data) // 3])  # cut short: the stream ends inside a record
    with pytest.raises(CaptureError, match="the stream ends|cut short"):
        analyze(fifo)
    writer.join(5)


def test_a_capture_of_years_names_the_capture_and_the_option(tmp_path):
    """A capture of 38 days at the default 1 s: over the throughput table's
    bound. The error is the capture's, not a bad --interval value."""
    frames = [(t + (2 * 10**15 if i > 500 else 0), d, o) for i, (t, d, o) in enumerate(linux_frames())]
    p = tmp_path / "long.pcap"
    p.write_bytes(pcap_bytes(frames, 1))
    code, _, err = _cli_lines(p)
    assert code == 2 and err == [f"hoplab: error: {p}: flow 0 lasts 2,000,002 s, more than 1,000,000 intervals "
                                 "of 1 s (the throughput table's bound per flow); give a longer --interval"]
    with pytest.raises(TooManyIntervals, match="give a longer interval_s"):
        analyze(p)


@pytest.mark.parametrize("value", ["inf", "nan", "Infinity"])
def test_an_interval_that_is_not_finite_is_refused_in_one_line(value):
    code, out, err = _cli_lines(LINUX, "--interval", value)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0].startswith("hoplab: error: --interval: ") and "not a finite number of seconds" in err[0], err
    with pytest.raises(ValueError, match="interval_s must be a finite number of seconds above 0"):
        analyze(LINUX, interval_s=float(value))
