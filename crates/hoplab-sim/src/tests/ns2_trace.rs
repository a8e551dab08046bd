//! `[trace] formats = ["ns2"]` end to end: a 4-hop AODV chain's trace.tr,
//! read the way ns-2 awk scripts read it, gives the run's drops table and
//! flow figures, in both formats (trace/ns2.rs writes the lines).

use std::collections::{BTreeMap, BTreeSet};

use crate::control::RunControl;
use crate::scenario::Scenario;
use crate::world::run_traced;

fn chain(extra: &str) -> Scenario {
    let path = format!("{}/../../python/hoplab/examples/chain.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap().replace("duration_s = 120.0", "duration_s = 20.0").replace("protocol = \"static\"", "protocol = \"aodv\"");
    Scenario::from_toml_str(&format!("{text}\n[trace]\n{extra}\n")).unwrap()
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("hoplab-ns2-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The drops table's packet type of an ns-2 type name.
fn table_type(t: &str) -> &str {
    match t {
        "RTS" | "CTS" | "ACK" => "MAC",
        "AODV" | "DSR" | "message" | "OLSR" => "routing",
        t => t,
    }
}

/// (event, time, node, level, reason, type, size, flow key) of each line:
/// old format by column, new format by tag.
fn parse(line: &str) -> (String, String, u32, String, String, String, u64, String) {
    let w: Vec<&str> = line.split_whitespace().collect();
    if w[1] == "-t" {
        let tag = |t: &str| w.iter().position(|x| *x == t).map(|i| w[i + 1]);
        let ty = tag("-It").unwrap_or(if tag("-P") == Some("arp") { "ARP" } else { "MAC" });
        let key = format!("{} {}", tag("-Is").unwrap_or(""), tag("-Ps").unwrap_or(""));
        (w[0].to_uppercase(), w[2].into(), tag("-Ni").unwrap().parse().unwrap(), tag("-Nl").unwrap().into(), tag("-Nw").unwrap().into(), ty.into(), tag("-Il").map_or(0, |s| s.parse().unwrap()), key)
    } else {
        let key = if w.len() > 17 { format!("{} {}", w[13], w[17]) } else { String::new() };
        (w[0].into(), w[1].into(), w[2].trim_matches('_').parse().unwrap(), w[3].into(), w[4].into(), w[6].into(), w[7].parse().unwrap(), key)
    }
}

#[test]
fn ns2_trace_gives_the_drops_and_flows_tables_in_both_formats() {
    let mut times = Vec::new();
    for fmt in ["old", "new"] {
        let dir = temp_dir(fmt);
        let out = run_traced(&chain(&format!("formats = [\"ns2\"]\nns2_format = \"{fmt}\"")), 3, &mut RunControl::default(), Some(&dir)).unwrap();
        let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
        let lines: Vec<_> = text.lines().map(parse).collect();
        assert!(lines.len() > 10_000, "{fmt}: {} lines", lines.len());
        // Drops by node, level, reason and type: the drops table exactly.
        let mut counted: BTreeMap<(u32, String, String, String), u64> = BTreeMap::new();
        for l in lines.iter().filter(|l| l.0 == "D") {
            *counted.entry((l.2, l.3.clone(), l.4.clone(), table_type(&l.5).to_string())).or_default() += 1;
        }
        let table: BTreeMap<_, _> = out.drops.iter().map(|r| ((r.node, r.layer.to_string(), r.reason.to_string(), r.packet_type.to_string()), r.count)).collect();
        assert!(table.keys().any(|k| k.2 == "COL") && table.keys().any(|k| k.2 == "RET"), "{table:?}");
        assert_eq!(counted, table, "{fmt}");
        // TCP received by the destination's agent: each segment once is the
        // flows table's count; every one is 1460 bytes + 40 of TCP/IP header.
        let f = &out.flows[0];
        let rx: Vec<_> = lines.iter().filter(|l| l.0 == "R" || l.0 == "r").filter(|l| l.3 == "AGT" && l.5 == "tcp" && l.2 == f.dst).collect();
        assert!(rx.iter().all(|l| l.6 == 1500));
        let unique: BTreeSet<_> = rx.iter().map(|l| l.7.clone()).collect();
        assert_eq!(unique.len() as u64, f.packets_received, "{fmt}");
        assert_eq!(unique.len() as u64 * 1460, f.bytes_delivered, "{fmt}");
        assert!(rx.len() > unique.len());
        times.push(lines.iter().map(|l| (l.1.clone(), l.2)).collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The same events, in the same order, in either format.
    assert_eq!(times[0], times[1]);
}

#[test]
fn ns2_trace_keeps_what_the_filter_keeps() {
    let dir = temp_dir("filter");
    run_traced(&chain("formats = [\"ns2\"]\nns2_format = \"old\"\nlayers = [\"AGT\"]\nnodes = [4]\nstart_s = 5.0\nend_s = 6.0"), 3, &mut RunControl::default(), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    let lines: Vec<_> = text.lines().map(parse).collect();
    assert!(lines.len() > 10);
    for l in &lines {
        let t: f64 = l.1.parse().unwrap();
        assert!(l.3 == "AGT" && l.2 == 4 && (5.0..=6.0).contains(&t), "{l:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn packets_still_queued_at_the_end_are_traced_as_end_drops() {
    // A CBR source far above what the chain carries keeps its interface
    // queue full, so the run ends with packets queued: ns-2 logs each as
    // `D <stop time> _n_ IFQ END`, and so do we (the drops table's END rows).
    let sc = chain("formats = [\"ns2\"]\nns2_format = \"old\"\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 4\nrate_kbps = 4000.0");
    let dir = temp_dir("end");
    let out = run_traced(&sc, 3, &mut RunControl::default(), Some(&dir)).unwrap();
    let lines: Vec<_> = std::fs::read_to_string(dir.join("trace.tr")).unwrap().lines().map(parse).collect();
    let end: Vec<_> = lines.iter().filter(|l| l.0 == "D" && l.4 == "END").collect();
    let table: u64 = out.drops.iter().filter(|r| r.reason == "END").map(|r| r.count).sum();
    assert!(table > 0);
    assert_eq!(end.len() as u64, table);
    assert!(end.iter().all(|l| l.1 == "20.000000000" && l.3 == "IFQ"), "{:?}", end.first());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_emulation_run_to_its_end_traces_the_end_drops_too() {
    // Stepped to the end without real packets, an emulation is the batch
    // run event for event; its trace must be the batch run's file, END drops
    // included (they were missing: only the batch loop wrote them).
    let sc = chain("formats = [\"ns2\"]\nns2_format = \"old\"\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 4\nrate_kbps = 4000.0");
    let (batch, stepped) = (temp_dir("end-batch"), temp_dir("end-stepped"));
    run_traced(&sc, 3, &mut RunControl::default(), Some(&batch)).unwrap();
    let mut e = crate::bridge::Emulation::new(&sc, 3, &[]);
    e.stream_trace(&stepped).unwrap();
    e.run_until(e.end_ns() / 2);
    e.run_until(e.end_ns() + 1);
    e.finish_trace().unwrap();
    let (a, b) = (std::fs::read_to_string(batch.join("trace.tr")).unwrap(), std::fs::read_to_string(stepped.join("trace.tr")).unwrap());
    assert!(b.lines().any(|l| l.starts_with("D ") && l.contains(" END ")), "no END drop in the emulation's trace");
    assert_eq!(a, b);
    for d in [batch, stepped] {
        let _ = std::fs::remove_dir_all(&d);
    }
}
