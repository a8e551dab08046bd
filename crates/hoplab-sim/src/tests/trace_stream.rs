//! The trace tap (issue 24): tracing never changes a run, the streamed
//! trace.csv is the in-memory `trace` table byte for byte, anim.csv holds
//! the animator's events, the filter keeps only what it says, and a write
//! error ends the run naming the file.

use crate::control::RunControl;
use crate::results::RunOutput;
use crate::scenario::Scenario;
use crate::trace::csv::{header, line};
use crate::trace::TraceRow;
use crate::world::{run_traced, RunError};
use std::path::PathBuf;

fn example(name: &str, duration_s: f64, extra: &str) -> Scenario {
    let path = format!("{}/../../python/hoplab/examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut v: toml::Table = text.parse().unwrap();
    v.insert("duration_s".into(), toml::Value::Float(duration_s));
    let extra: toml::Table = extra.parse().unwrap();
    for (k, x) in extra {
        match (v.get_mut(&k), x) {
            (Some(toml::Value::Table(t)), toml::Value::Table(x)) => t.extend(x),
            (_, x) => {
                v.insert(k, x);
            }
        }
    }
    Scenario::from_toml_str(&toml::to_string(&v).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hoplab-trace-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_in(sc: &Scenario, seed: u64, dir: Option<&std::path::Path>) -> RunOutput {
    let mut out = run_traced(sc, seed, &mut RunControl::default(), dir).unwrap();
    out.info.wall_s = 0.0;
    out
}

/// Everything but the trace itself, as text.
fn untraced_part(out: &RunOutput) -> String {
    let mut o = out.clone();
    o.trace.clear();
    o.trace_files.clear();
    format!("{o:?}")
}

fn csv_of(rows: &[TraceRow]) -> String {
    let mut s = header();
    for r in rows {
        line(r, &mut s);
    }
    s
}

fn check_invariant(sc: Scenario, seed: u64, tag: &str) {
    let plain = run_in(&sc, seed, None);
    let mut traced_sc = sc.clone();
    traced_sc.output.trace = true;
    traced_sc.trace.formats = vec!["csv".into(), "anim".into()];
    let dir = temp_dir(tag);
    let traced = run_in(&traced_sc, seed, Some(&dir));
    assert_eq!(plain.info.event_hash, traced.info.event_hash, "{tag}: tracing changed the run");
    assert_eq!(untraced_part(&plain), untraced_part(&traced), "{tag}: tracing changed a table");
    let rows = &traced.trace;
    assert!(!rows.is_empty());
    assert!(rows.windows(2).all(|w| w[0].time_s <= w[1].time_s), "{tag}: rows in time order");
    // Every layer reports.
    for layer in ["AGT", "RTR", "MAC", "PHY"] {
        assert!(rows.iter().any(|r| r.layer == layer), "{tag}: no {layer} rows");
    }
    let csv = std::fs::read_to_string(dir.join("trace.csv")).unwrap();
    assert!(csv == csv_of(rows), "{tag}: trace.csv differs from the in-memory table");
    let anim: Vec<TraceRow> = rows.iter().filter(|r| (r.layer == "MAC" && r.event == "send") || r.event == "drop").cloned().collect();
    assert!(std::fs::read_to_string(dir.join("anim.csv")).unwrap() == csv_of(&anim), "{tag}: anim.csv");
    assert_eq!(traced.trace_files, vec![("trace.csv".to_string(), rows.len() as u64), ("anim.csv".to_string(), anim.len() as u64)]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracing_changes_nothing_on_the_chain() {
    check_invariant(example("chain", 6.0, ""), 1, "chain");
}

#[test]
fn tracing_changes_nothing_on_the_grid_with_dsr() {
    check_invariant(example("grid", 4.0, "[routing]\nprotocol = \"dsr\""), 2, "grid-dsr");
}

#[test]
fn tracing_changes_nothing_with_random_waypoint() {
    check_invariant(example("waypoint", 15.0, ""), 3, "waypoint");
}

#[test]
fn agent_and_routing_events_match_the_counters() {
    // Chain 0 -> 4: the sender's agent hands down every segment it sends,
    // the receiver's gets every one delivered, relays forward.
    let mut sc = example("chain", 6.0, "");
    sc.output.trace = true;
    let out = run_in(&sc, 1, None);
    let f = &out.flows[0];
    let t = &out.trace;
    let count = |node: u32, layer: &str, event: &str, ptype: &str| t.iter().filter(|r| r.node == node && r.layer == layer && r.event == event && r.packet_type == ptype).count() as u64;
    let (src, dst) = (f.src, f.dst);
    assert_eq!(count(src, "AGT", "send", "tcp"), f.packets_sent);
    assert_eq!(count(src, "RTR", "send", "tcp"), f.packets_sent, "static routing sends all it is given");
    assert!(count(dst, "AGT", "recv", "tcp") >= f.packets_received);
    let relay = (src + dst) / 2;
    assert!(count(relay, "RTR", "fwd", "tcp") > 0 && count(relay, "RTR", "recv", "tcp") >= count(relay, "RTR", "fwd", "tcp"));
    assert_eq!(count(relay, "AGT", "send", "tcp") + count(relay, "RTR", "send", "tcp"), 0, "a relay originates no data");
    // MAC sends carry their airtime and size; only they have an airtime.
    for r in t {
        assert_eq!(r.airtime_s.is_nan(), !(r.layer == "MAC" && r.event == "send"), "{r:?}");
        if r.layer == "MAC" && r.event == "send" {
            assert!(r.airtime_s > 0.0 && r.size_bytes > 0);
        }
    }
}

#[test]
fn the_filter_keeps_only_what_it_says() {
    let mut sc = example("chain", 6.0, "[trace]\nnodes = [1, 3]\nlayers = [\"MAC\", \"RTR\"]\nevents = [\"send\", \"fwd\", \"drop\"]\npacket_types = [\"tcp\", \"MAC\"]\nstart_s = 2.0\nend_s = 4.0\n");
    sc.output.trace = true;
    sc.trace.formats = vec!["csv".into(), "anim".into()];
    let dir = temp_dir("filter");
    let out = run_in(&sc, 1, Some(&dir));
    let t = &out.trace;
    assert!(t.len() > 100);
    for r in t {
        assert!([1, 3].contains(&r.node) && ["MAC", "RTR"].contains(&r.layer) && ["send", "fwd", "drop"].contains(&r.event), "{r:?}");
        assert!(["tcp", "MAC"].contains(&r.packet_type) && (2.0..=4.0).contains(&r.time_s), "{r:?}");
    }
    assert!(t.iter().any(|r| r.layer == "RTR" && r.event == "fwd"));
    assert_eq!(std::fs::read_to_string(dir.join("trace.csv")).unwrap(), csv_of(t));
    // The animator's log: its own events (ACK packets too), the same nodes and window.
    let anim = std::fs::read_to_string(dir.join("anim.csv")).unwrap();
    let lines: Vec<&str> = anim.lines().skip(1).collect();
    assert!(lines.iter().any(|l| l.contains(",ack,")), "anim keeps every packet type");
    for l in &lines {
        let c: Vec<&str> = l.split(',').collect();
        let time: f64 = c[0].parse().unwrap();
        assert!(["1", "3"].contains(&c[1]) && (2.0..=4.0).contains(&time), "{l}");
        assert!((c[2] == "MAC" && c[3] == "send") || c[3] == "drop", "{l}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_write_error_ends_the_run_naming_the_file() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full to fill a disk with");
        return;
    }
    let mut sc = example("chain", 30.0, "");
    sc.trace.formats = vec!["anim".into(), "csv".into()];
    let dir = temp_dir("full");
    std::os::unix::fs::symlink("/dev/full", dir.join("trace.csv")).unwrap();
    let err = run_traced(&sc, 1, &mut RunControl::default(), Some(&dir)).unwrap_err();
    match err {
        RunError::Trace(e) => {
            assert_eq!(e.path, dir.join("trace.csv"));
            assert!(e.to_string().starts_with(&format!("{}: cannot write the trace: ", dir.join("trace.csv").display())), "{e}");
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
