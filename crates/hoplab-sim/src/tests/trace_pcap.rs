//! pcap from a whole run (issue 24 "done when"): the 4-hop chain's
//! captures decode in tshark without a malformed frame or a bad checksum,
//! and tcptrace's counts on the hosts' captures are the flows table's.
//! Each check is skipped, saying so, where its tool is not installed.

use crate::control::RunControl;
use crate::scenario::Scenario;
use crate::world::run_traced;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chain(duration_s: f64, pcap: &str) -> Scenario {
    let path = format!("{}/../../python/hoplab/examples/chain.toml", env!("CARGO_MANIFEST_DIR"));
    let mut v: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    v.insert("duration_s".into(), toml::Value::Float(duration_s));
    let t: toml::Table = format!("formats = [\"pcap\"]\npcap = \"{pcap}\"").parse().unwrap();
    v.insert("trace".into(), toml::Value::Table(t));
    Scenario::from_toml_str(&toml::to_string(&v).unwrap()).unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hoplab-pcap-run-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn have(tool: &str) -> bool {
    let ok = Command::new(tool).arg(if tool == "tshark" { "--version" } else { "-v" }).output().is_ok();
    if !ok {
        eprintln!("SKIPPED: {tool} is not installed (apt-get install {tool})");
    }
    ok
}

fn tshark_lines(file: &Path, filter: &str) -> usize {
    let o = Command::new("tshark")
        .args(["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "wlan.check_checksum:TRUE", "-r"])
        .arg(file)
        .args(["-Y", filter])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).lines().count()
}

#[test]
fn chain_channel_capture_has_no_malformed_frame() {
    let dir = temp_dir("channel");
    let out = run_traced(&chain(10.0, "channel"), 1, &mut RunControl::default(), Some(&dir)).unwrap();
    assert!(out.trace_files[0].0.ends_with("channel.pcap"));
    if have("tshark") {
        let f = dir.join("channel.pcap");
        // The flow's data segments on the air: at least one DATA frame per hop each.
        let data = tshark_lines(&f, "tcp.len > 0") as u64;
        assert!(data >= 4 * out.flows[0].packets_received, "{data} TCP data frames");
        let bad = "_ws.malformed || _ws.expert.severity == error || ip.checksum.status == 0 || tcp.checksum.status == 0 || wlan.fcs.status == 0";
        assert_eq!(tshark_lines(&f, bad), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// tcptrace -l -n: the a->b column's value of `field` for the one connection.
fn tcptrace(file: &Path, field: &str) -> u64 {
    let o = Command::new("tcptrace").args(["-l", "-n"]).arg(file).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 TCP connection traced"), "{text}");
    let line = text.lines().find(|l| l.contains(field)).unwrap_or_else(|| panic!("{field}: {text}"));
    line.split(field).nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn tcptrace_on_the_hosts_captures_agrees_with_the_flows_table() {
    let dir = temp_dir("hosts");
    let out = run_traced(&chain(20.0, "hosts"), 1, &mut RunControl::default(), Some(&dir)).unwrap();
    assert_eq!(out.trace_files.len(), 5, "host-0.pcap .. host-4.pcap");
    if have("tcptrace") {
        let f = &out.flows[0];
        let (src, dst) = (dir.join("host-0.pcap"), dir.join("host-4.pcap"));
        assert_eq!(tcptrace(&src, "actual data pkts:"), f.packets_sent, "every segment TCP sent, once");
        assert_eq!(tcptrace(&src, "rexmt data pkts:"), f.retransmissions);
        assert_eq!(tcptrace(&dst, "unique bytes sent:"), f.bytes_delivered, "the bytes that reached the sink");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Capturing only observes: every pcap mode leaves the run's results and
/// event hash as they are untraced.
#[test]
fn capturing_changes_nothing() {
    let plain = crate::world::run(&chain(5.0, "channel"), 2);
    for mode in ["channel", "nodes", "hosts"] {
        let dir = temp_dir(&format!("same-{mode}"));
        let out = run_traced(&chain(5.0, mode), 2, &mut RunControl::default(), Some(&dir)).unwrap();
        assert_eq!(out.info.event_hash, plain.info.event_hash, "{mode}");
        assert_eq!(format!("{:?}", out.flows), format!("{:?}", plain.flows), "{mode}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn grid(duration_s: f64, extra: &str) -> Scenario {
    let path = format!("{}/../../python/hoplab/examples/grid.toml", env!("CARGO_MANIFEST_DIR"));
    let mut v: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    v.insert("duration_s".into(), toml::Value::Float(duration_s));
    let x: toml::Table = format!("{extra}\n[trace]\nformats = [\"pcap\"]\n").parse().unwrap();
    for (k, x) in x {
        match (v.get_mut(&k), x) {
            (Some(toml::Value::Table(t)), toml::Value::Table(x)) => t.extend(x),
            (_, x) => {
                v.insert(k, x);
            }
        }
    }
    Scenario::from_toml_str(&toml::to_string(&v).unwrap()).unwrap()
}

/// Every routing protocol's real messages (and DSR's headers on data, ns-2
/// flow state and its second IP header included) decode without a
/// malformed frame; in debug builds `encode_packet` also asserts each
/// datagram is hoplab's size.
#[test]
fn routing_protocols_captures_decode() {
    let cases = [
        ("aodv", "[routing]\nprotocol = \"aodv\"\n"),
        ("olsr", "[routing]\nprotocol = \"olsr\"\n"),
        ("dsr", "compat = \"ns2\"\n[routing]\nprotocol = \"dsr\"\n"),
        ("dsdv", "[routing]\nprotocol = \"dsdv\"\ndsdv = { packet_format = \"udp\" }\n"),
        ("arp", "[link]\narp = \"queue\"\n[routing]\nprotocol = \"aodv\"\n"),
    ];
    for (tag, extra) in cases {
        let dir = temp_dir(tag);
        // DSDV's first periodic updates come after seconds, not milliseconds.
        let duration = if tag == "dsdv" { 20.0 } else { 4.0 };
        run_traced(&grid(duration, extra), 1, &mut RunControl::default(), Some(&dir)).unwrap();
        if have("tshark") {
            let f = dir.join("channel.pcap");
            assert_eq!(tshark_lines(&f, "_ws.malformed || _ws.expert.severity == error || ip.checksum.status == 0 || udp.checksum.status == 0"), 0, "{tag}");
            let proto = match tag { "arp" => "arp", "dsdv" => "udp.port == 49152", t => t };
            assert!(tshark_lines(&f, proto) > 0, "{tag}: no {proto} frame");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `formats = ["pcapng"]`: one file per mode, an interface per node.
#[test]
fn pcapng_is_one_file_with_an_interface_per_node() {
    let dir = temp_dir("ng");
    let mut sc = chain(3.0, "hosts");
    sc.trace.formats = vec!["pcapng".into()];
    let out = run_traced(&sc, 1, &mut RunControl::default(), Some(&dir)).unwrap();
    assert_eq!(out.trace_files.len(), 1);
    assert!(out.trace_files[0].0.ends_with("hosts.pcapng"));
    if have("tshark") {
        let f = dir.join("hosts.pcapng");
        let o = Command::new("tshark").arg("-r").arg(&f).args(["-T", "fields", "-e", "frame.interface_name"]).output().unwrap();
        let mut names: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect();
        names.sort();
        names.dedup();
        assert_eq!(names, ["host-0", "host-1", "host-2", "host-3", "host-4"]);
        assert_eq!(tshark_lines(&f, "_ws.malformed"), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A node's capture shows the power of each frame it received, as its
/// driver would in radiotap's dBm antenna signal; what it sent has none.
#[test]
fn received_frames_carry_their_antenna_signal() {
    let dir = temp_dir("signal");
    let out = run_traced(&chain(3.0, "nodes"), 1, &mut RunControl::default(), Some(&dir)).unwrap();
    assert!(out.trace_files.iter().any(|(p, _)| p.ends_with("node-1.pcap")), "{:?}", out.trace_files);
    let f = dir.join("node-1.pcap");
    if have("tshark") {
        let o = Command::new("tshark").arg("-r").arg(&f).args(["-T", "fields", "-e", "radiotap.dbm_antsignal", "-e", "wlan.ta", "-e", "wlan.ra"]).output().unwrap();
        let rows: Vec<Vec<String>> = String::from_utf8_lossy(&o.stdout).lines().map(|l| l.split('\t').map(str::to_string).collect()).collect();
        let (with, without): (Vec<_>, Vec<_>) = rows.iter().partition(|r| !r[0].is_empty());
        assert!(with.len() > 10 && without.len() > 10, "{} received, {} sent", with.len(), without.len());
        // Two-ray ground at 200 m with ns-2's defaults (0.2818 W, antennas
        // 1.5 m): 8.92e-10 W, -60.5 dBm; only 200 m neighbours are decoded.
        assert!(with.iter().all(|r| r[0] == "-60"), "{:?}", with.iter().find(|r| r[0] != "-60"));
        // What node 1 sent carries its own address as transmitter (RTS, DATA).
        assert!(without.iter().all(|r| r[1].is_empty() || r[1] == "02:00:00:00:00:01"), "{:?}", without.iter().find(|r| !r[1].is_empty() && r[1] != "02:00:00:00:00:01"));
        assert_eq!(tshark_lines(&f, "_ws.malformed || _ws.expert.severity == error"), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
