//! The pcap sink: which frames go where, the containers' bytes, and a
//! capture of every frame kind read back by tshark (skipped, saying so,
//! where tshark is not installed).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use super::*;
use crate::trace::event::{Layer, TraceEvent, TraceSink, What};
use crate::time::SimTime;
use crate::wire::bytes::tests::{samples, wire};
use crate::wire::{Frame, PacketType};

/// A `Write` the test can read back after the sink is done.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn opts() -> PcapOptions {
    PcapOptions { data_rate_bps: 2_000_000, basic_rate_bps: 1_000_000, short_preamble: false, wire: wire() }
}

fn ev<'a>(t_ns: u64, node: u32, what: What, f: &'a Frame) -> TraceEvent<'a> {
    TraceEvent {
        time: SimTime(t_ns),
        node,
        layer: Layer::Mac,
        what,
        frame: Some(f),
        packet: f.packet.as_ref(),
        ptype: f.packet.as_ref().map_or(PacketType::Mac, |p| p.ptype()),
        reason: None,
        airtime: None,
        power_w: None,
        next_hop: None,
        pos: (0.0, 0.0),
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hoplab-pcap-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Write every sample frame as sent by its transmitter, 1 ms apart, into `path`.
fn write_samples(path: &Path, container: Container) -> Vec<&'static str> {
    let frames = samples();
    let mut sink = PcapSink::channel(Box::new(std::fs::File::create(path).unwrap()), container, opts()).unwrap();
    for (i, (_, f)) in frames.iter().enumerate() {
        sink.event(&ev(1_000_000_000 + i as u64 * 1_000_000 + 7, f.src, What::Send, f)).unwrap();
    }
    sink.finish().unwrap();
    frames.iter().map(|(n, _)| *n).collect()
}

#[test]
fn pcap_records_carry_nanosecond_times_and_whole_frames() {
    let buf = Shared::default();
    let mut sink = PcapSink::channel(Box::new(buf.clone()), Container::Pcap, opts()).unwrap();
    let frames = samples();
    let f = &frames[0].1; // RTS
    sink.event(&ev(2_500_000_123, 0, What::Send, f)).unwrap();
    // Not the channel capture's: receptions, other layers.
    sink.event(&ev(2_600_000_000, 1, What::Recv, f)).unwrap();
    sink.event(&TraceEvent { layer: Layer::Phy, what: What::Collision, ..ev(2_700_000_000, 1, What::Send, f) }).unwrap();
    sink.finish().unwrap();
    let b = buf.0.lock().unwrap();
    assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1], "nanosecond magic, little-endian");
    assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 127, "radiotap link type");
    assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 500_000_123);
    let len = u32::from_le_bytes(b[32..36].try_into().unwrap());
    assert_eq!(len, 22 + 20, "radiotap + RTS with FCS");
    assert_eq!(b.len(), 24 + 16 + len as usize, "one record only");
    // Basic rate for a control frame: 1 Mbit/s = 2 units.
    assert_eq!(b[40 + 17], 2);
}

#[test]
fn per_node_files_hold_what_a_node_sent_and_what_was_for_it() {
    let dir = tmp("nodes");
    let frames = samples();
    let by = |n: &str| &frames.iter().find(|(k, _)| *k == n).unwrap().1;
    let mut sink = PcapSink::create(&dir, PcapMode::Nodes, Container::Pcap, 3, opts()).unwrap();
    sink.event(&ev(1, 0, What::Send, by("tcp-data"))).unwrap(); // 0 -> 1
    sink.event(&ev(2, 1, What::Recv, by("tcp-data"))).unwrap(); // for 1
    sink.event(&ev(3, 2, What::Recv, by("tcp-data"))).unwrap(); // overheard by 2: not kept
    sink.event(&ev(4, 2, What::Recv, by("aodv-rreq"))).unwrap(); // broadcast: kept
    sink.finish().unwrap();
    let records = |n: u32| pcap_records(&std::fs::read(dir.join(format!("node-{n}.pcap"))).unwrap());
    assert_eq!([records(0), records(1), records(2)], [1, 1, 1]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pcapng_has_one_interface_per_node() {
    let dir = tmp("ng");
    let frames = samples();
    let f = &frames[3].1;
    let mut sink = PcapSink::create(&dir, PcapMode::Nodes, Container::Pcapng, 2, opts()).unwrap();
    sink.event(&ev(5, 1, What::Recv, f)).unwrap();
    sink.finish().unwrap();
    let b = std::fs::read(dir.join("nodes.pcapng")).unwrap();
    let mut blocks = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let kind = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        let len = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        assert_eq!(len % 4, 0);
        assert_eq!(&b[at + 4..at + 8], &b[at + len - 4..at + len], "trailing length");
        blocks.push((kind, at));
        at += len;
    }
    assert_eq!(blocks.iter().map(|b| b.0).collect::<Vec<_>>(), [0x0a0d0d0a, 1, 1, 6]);
    let epb = blocks[3].1;
    assert_eq!(u32::from_le_bytes(b[epb + 8..epb + 12].try_into().unwrap()), 1, "interface = node 1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_follow_the_mac_and_each_flows_tcp() {
    let mac = crate::mac::config::Mac { data_rate_mbps: 11.0, basic_rate_mbps: 2.0, preamble: crate::phy::config::Preamble::Short, ..Default::default() };
    let flow = |t: &str| -> crate::app::config::Flow { toml::from_str(t).unwrap() };
    let tcp = crate::tcp::config::TcpParams { mss: Some(1000), syn: Some(true), ..Default::default() };
    let flows = [
        flow("kind = 'ftp'\nsrc = 0\ndst = 1\nbytes = 5000"),
        flow("kind = 'ftp'\nsrc = 0\ndst = 1\ntcp = { mss_bytes = 536 }"),
        flow("kind = 'cbr'\nsrc = 0\ndst = 1\nrate_kbps = 10.0"),
    ];
    let o = PcapOptions::new(&mac, &flows, &tcp);
    assert_eq!((o.data_rate_bps, o.basic_rate_bps, o.short_preamble), (11_000_000, 2_000_000, true));
    assert_eq!(o.wire.flows[0], FlowWire { mss: 1000, syn: true, bytes: Some(5000) });
    assert_eq!(o.wire.flows[1], FlowWire { mss: 536, syn: true, bytes: None });
}

fn rtr<'a>(t_ns: u64, node: u32, what: What, p: &'a crate::wire::Packet) -> TraceEvent<'a> {
    TraceEvent { time: SimTime(t_ns), node, layer: Layer::Rtr, what, frame: None, packet: Some(p), ptype: p.ptype(), reason: None, airtime: None, power_w: None, next_hop: None, pos: (0.0, 0.0) }
}

/// Count the records of a classic pcap file.
fn pcap_records(b: &[u8]) -> usize {
    let (mut at, mut k) = (24, 0);
    while at < b.len() {
        at += 16 + u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        k += 1;
    }
    k
}

#[test]
fn host_captures_hold_each_ip_packet_once_as_raw_ip() {
    let dir = tmp("hosts");
    let frames = samples();
    let by = |n: &str| frames.iter().find(|(k, _)| *k == n).unwrap().1.packet.clone().unwrap();
    let (data, arp) = (by("tcp-data"), by("arp-request"));
    let mut sink = PcapSink::create(&dir, PcapMode::Hosts, Container::Pcap, 2, opts()).unwrap();
    sink.event(&rtr(1, 0, What::Send, &data)).unwrap();
    sink.event(&rtr(2, 1, What::Recv, &data)).unwrap();
    sink.event(&rtr(3, 1, What::Forward, &data)).unwrap();
    sink.event(&rtr(4, 1, What::Drop, &data)).unwrap(); // not a packet crossing the host
    sink.event(&rtr(5, 0, What::Send, &arp)).unwrap(); // not IP
    let f = &frames[3].1;
    sink.event(&ev(6, 0, What::Send, f)).unwrap(); // the air is not the host's view
    sink.finish().unwrap();
    let h0 = std::fs::read(dir.join("host-0.pcap")).unwrap();
    let h1 = std::fs::read(dir.join("host-1.pcap")).unwrap();
    assert_eq!(u32::from_le_bytes(h0[20..24].try_into().unwrap()), 101, "LINKTYPE_RAW");
    assert_eq!((pcap_records(&h0), pcap_records(&h1)), (1, 2));
    assert_eq!(h0[24 + 16], 0x45, "the record starts with the IPv4 header");
    assert_eq!(h0.len(), 24 + 16 + data.size() as usize);
    // One node's file alone: the same bytes.
    let path = dir.join("alone.pcap");
    let mut one = PcapSink::node_file(&path, PcapMode::Hosts, 0, opts()).unwrap();
    one.event(&rtr(1, 0, What::Send, &data)).unwrap();
    one.event(&rtr(2, 1, What::Recv, &data)).unwrap();
    one.finish().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), h0);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- tshark -------------------------------------------------------------

fn tshark() -> Option<&'static str> {
    let ok = Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: tshark is not installed (apt-get install tshark); the capture is not checked by Wireshark");
    }
    ok.then_some("tshark")
}

fn run(tshark: &str, args: &[&str]) -> String {
    let o = Command::new(tshark).args(args).output().unwrap();
    assert!(o.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

const CHECKS: [&str; 10] = [
    "-o", "tcp.relative_sequence_numbers:FALSE", "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "wlan.check_checksum:TRUE",
];

/// One tab-separated line of `fields` per sample frame, by name.
fn decode(tshark: &str, path: &Path, names: &[&str], fields: &[&str]) -> Vec<(String, Vec<String>)> {
    let p = path.to_str().unwrap();
    let mut args: Vec<&str> = vec!["-r", p, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"];
    args.extend_from_slice(&CHECKS);
    for f in fields {
        args.extend_from_slice(&["-e", f]);
    }
    let out = run(tshark, &args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), names.len(), "one line per frame:\n{out}");
    names.iter().zip(lines).map(|(n, l)| (n.to_string(), l.split('\t').map(str::to_string).collect())).collect()
}

fn check_capture(container: Container) {
    let Some(ts) = tshark() else { return };
    let dir = tmp(container.extension());
    let path = dir.join(format!("all.{}", container.extension()));
    let names = write_samples(&path, container);
    let p = path.to_str().unwrap();
    // Nothing malformed, no checksum or FCS Wireshark calls bad, no expert error.
    let mut args = vec!["-r", p];
    args.extend_from_slice(&CHECKS);
    args.extend_from_slice(&["-Y", "_ws.malformed || _ws.expert.severity == error || ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0 || wlan.fcs.status == 0"]);
    assert_eq!(run(ts, &args), "", "frames tshark finds malformed or bad");
    let fields = [
        "frame.protocols", "wlan.fc.type_subtype", "wlan.fc.retry", "radiotap.datarate", "frame.time_epoch", "ip.checksum.status", "tcp.checksum.status", "udp.checksum.status", "wlan.fcs.status",
        "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.options.sack_le", "tcp.options.sack_re", "tcp.options.timestamp.tsval", "tcp.flags.ece", "tcp.flags.cwr", "ip.dsfield.ecn",
        "aodv.type", "olsr.message_type", "dsr.option.type", "arp.opcode", "ip.len", "udp.length",
    ];
    let rows = decode(ts, &path, &names, &fields);
    let col = |row: &[String], f: &str| row[fields.iter().position(|x| *x == f).unwrap()].clone();
    for (name, row) in &rows {
        let protos = col(row, "frame.protocols");
        assert!(protos.starts_with("radiotap:wlan_radio:wlan"), "{name}: {protos}");
        if name.starts_with("tcp") || name.starts_with("dsr-source") || name.starts_with("dsr-flow-state") {
            assert_eq!(col(row, "tcp.checksum.status"), "1", "{name}: TCP checksum good");
        }
        if protos.contains(":ip") {
            assert_eq!(col(row, "ip.checksum.status"), "1", "{name}: IP checksum good");
        }
        if protos.contains(":udp") {
            assert_eq!(col(row, "udp.checksum.status"), "1", "{name}: UDP checksum good");
        }
        assert_eq!(col(row, "wlan.fcs.status"), "1", "{name}: FCS good");
    }
    let get = |n: &str, f: &str| col(&rows.iter().find(|(k, _)| k == n).unwrap().1, f);
    assert_eq!(get("rts", "wlan.fc.type_subtype"), "0x001b");
    assert_eq!(get("cts", "wlan.fc.type_subtype"), "0x001c");
    assert_eq!(get("ack", "wlan.fc.type_subtype"), "0x001d");
    assert_eq!(get("rts", "radiotap.datarate"), "1");
    assert_eq!(get("tcp-data", "radiotap.datarate"), "2");
    assert_eq!(get("tcp-data", "wlan.fc.retry"), "1");
    assert_eq!(get("rts", "frame.time_epoch"), "1.000000007");
    assert_eq!(get("tcp-data", "tcp.seq_raw"), (1 + 5 * 1460).to_string());
    assert_eq!(get("tcp-data", "tcp.len"), "1460");
    assert_eq!(get("tcp-data", "ip.len"), "1512", "20 + 20 + 12 option bytes + 1460");
    assert_eq!(get("tcp-data", "tcp.options.timestamp.tsval"), "1234");
    assert_eq!(get("tcp-data", "tcp.flags.cwr"), "1");
    assert_eq!(get("tcp-data", "ip.dsfield.ecn"), "3");
    assert_eq!(get("tcp-ack", "tcp.ack_raw"), (1 + 4 * 1460).to_string());
    assert_eq!(get("tcp-ack", "tcp.flags.ece"), "1");
    assert_eq!(get("tcp-ack", "tcp.options.sack_le"), format!("{},{}", 1 + 5 * 1460, 1 + 9 * 1460));
    assert_eq!(get("tcp-ack", "tcp.options.sack_re"), format!("{},{}", 1 + 7 * 1460, 1 + 10 * 1460));
    assert_eq!(get("tcp-ack", "tcp.len"), "0");
    assert_eq!(get("cbr", "udp.length"), "520");
    assert_eq!(get("aodv-rreq", "aodv.type"), "1");
    assert_eq!(get("aodv-rrep", "aodv.type"), "2");
    assert_eq!(get("aodv-rerr", "aodv.type"), "3");
    assert_eq!(get("aodv-rrep-ack", "aodv.type"), "4");
    assert_eq!(get("olsr-hello", "olsr.message_type"), "1");
    assert_eq!(get("olsr-tc", "olsr.message_type"), "2");
    assert_eq!(get("dsr-request", "dsr.option.type"), "1");
    assert_eq!(get("dsr-reply", "dsr.option.type"), "2,96");
    assert_eq!(get("dsr-error", "dsr.option.type"), "3,96");
    assert_eq!(get("dsr-ack", "dsr.option.type"), "32");
    assert_eq!(get("dsr-source-route", "dsr.option.type"), "160,96");
    assert_eq!(get("arp-request", "arp.opcode"), "1");
    assert_eq!(get("arp-reply", "arp.opcode"), "2");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tshark_decodes_every_frame_kind_from_pcap() {
    check_capture(Container::Pcap);
}

#[test]
fn tshark_decodes_every_frame_kind_from_pcapng() {
    check_capture(Container::Pcapng);
}

// ---- tcptrace ------------------------------------------------------------

/// A transfer of 6 segments from node 0 to node 1 in which segment 2 is
/// lost and retransmitted, with SACK: tcptrace must find one connection,
/// 7 data packets, 1 retransmission and 6 * 1460 unique bytes.
#[test]
fn tcptrace_counts_a_host_capture_like_hoplab() {
    let ok = Command::new("tcptrace").arg("-v").output().is_ok();
    if !ok {
        eprintln!("SKIPPED: tcptrace is not installed (apt-get install tcptrace)");
        return;
    }
    use crate::wire::bytes::tests::seg;
    use crate::wire::{Body, Packet};
    let dir = tmp("tcptrace");
    let mut sink = PcapSink::create(&dir, PcapMode::Hosts, Container::Pcap, 2, opts()).unwrap();
    let mut t = 1_000_000_000u64;
    let mut uid = 0;
    let mut send = |sink: &mut PcapSink, node: u32, s: crate::wire::TcpSegment, t: u64| {
        uid += 1;
        let p = Packet::new(uid, node, 1 - node, Body::Tcp(s), SimTime(t));
        sink.event(&rtr(t, node, What::Send, &p)).unwrap();
        sink.event(&rtr(t + 5_000_000, 1 - node, What::Recv, &p)).unwrap();
    };
    for k in 0..6u64 {
        send(&mut sink, 0, seg(k, 0, 1460), t);
        t += 10_000_000;
        if k != 2 {
            let mut a = seg(0, if k < 2 { k + 1 } else { 2 }, 0);
            if k > 2 {
                a.sack.push(3, k + 1);
                a.options = a.sack.option_bytes();
            }
            a.window = Some(64240);
            send(&mut sink, 1, a, t);
            t += 10_000_000;
        }
    }
    send(&mut sink, 0, seg(2, 0, 1460), t);
    t += 10_000_000;
    let mut a = seg(0, 6, 0);
    a.window = Some(64240);
    send(&mut sink, 1, a, t);
    sink.finish().unwrap();
    let o = Command::new("tcptrace").args(["-l", "-n"]).arg(dir.join("host-0.pcap")).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "tcptrace: {out}{}", String::from_utf8_lossy(&o.stderr));
    let field = |name: &str| -> Vec<u64> {
        out.lines().filter(|l| l.contains(name)).flat_map(|l| l.split(name).skip(1).map(|r| r.split_whitespace().next().unwrap_or("").parse().unwrap_or(u64::MAX)).collect::<Vec<_>>()).collect()
    };
    assert!(out.contains("1 TCP connection traced"), "{out}");
    assert_eq!(field("actual data pkts:"), [7, 0], "{out}");
    assert_eq!(field("rexmt data pkts:"), [1, 0], "{out}");
    assert_eq!(field("unique bytes sent:"), [6 * 1460, 0], "{out}");
    assert_eq!(field(" sack pkts sent:"), [0, 3], "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
