//! DSR in the full simulator: seed 003's route break (A-B-C-D-E, F between
//! D and E, the D-E link breaks at 35 s) with the DSR-UU preset (passive and
//! network-layer ACKs) and the ns-2 preset (link-layer feedback), and a
//! static 6-hop chain.

use super::common;

use crate::world::World;
use crate::{RunOutput, Scenario};

struct Run {
    out: RunOutput,
    /// (time, hops) of the first data arrival at the sink after each path change.
    changes: Vec<(f64, u8)>,
    /// Data packets node 5 (F) forwarded.
    f_forwarded: u64,
}

fn route_break(preset: &str, seed: u64) -> Run {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/route_break.toml")).unwrap();
    let text = text.replace("protocol = \"aodv\"", "protocol = \"dsr\"").replace("preset = \"aodv-uu\"", &format!("preset = \"{preset}\""));
    let sc = Scenario::from_toml_str(&text).unwrap();
    let mut w = World::new(&sc, seed);
    w.run();
    let changes = w.nodes[4].stats.net.paths.get(&(0, false)).map_or(vec![], |t| t.change_times.iter().map(|(t, h, _)| (t.as_secs_f64(), *h)).collect());
    let f_forwarded = w.nodes[5].stats.forwarded;
    let out = w.results(0.0);
    Run { out, changes, f_forwarded }
}

fn report(name: &str, r: &Run) {
    let f = &r.out.flows[0];
    let via_f = r.changes.iter().find(|(t, h)| *t > 35.0 && *h == 5).map(|x| x.0);
    eprintln!(
        "{name}: {:.1} kbit/s, {} route changes, longest gap {:.2} s, {} timeouts, rexmits {}, via F at {:?}, F forwarded {}",
        f.throughput_kbps, f.route_changes, f.longest_gap_s, f.timeouts, f.retransmissions, via_f, r.f_forwarded
    );
    let mut drops: Vec<_> = r.out.drops.iter().map(|d| format!("n{} {} {} x{}", d.node, d.reason, d.packet_type, d.count)).collect();
    drops.sort();
    eprintln!("  drops: {drops:?}");
    let ev: Vec<_> = r.out.route_events.iter().filter(|e| e.event == "link_broken").map(|e| format!("{:.2} n{}->{} {}{}", e.time_s, e.node, e.peer, e.cause, if e.false_failure { " FALSE" } else { "" })).collect();
    eprintln!("  link_broken ({}): {:?}", ev.len(), &ev[..ev.len().min(30)]);
    eprintln!("  path changes ({}): {:?}", r.changes.len(), &r.changes[..r.changes.len().min(30)]);
}

#[test]
fn route_break_dsr_uu_salvages_through_f() {
    let uu = route_break("dsr-uu", 1);
    let ns2 = route_break("ns2", 1);
    report("dsr-uu", &uu);
    report("ns2", &ns2);
    for (name, r) in [("dsr-uu", &uu), ("ns2", &ns2)] {
        let f = &r.out.flows[0];
        assert_eq!(f.stream_errors, 0, "{name}");
        // After the break the data reaches E over 5 hops, through F.
        let via_f = r.changes.iter().find(|(t, h)| *t > 35.0 && *h == 5);
        assert!(via_f.is_some_and(|x| x.0 < 40.0), "{name}: not re-routed through F by 40 s: {:?}", r.changes);
        assert!(r.f_forwarded > 100, "{name}: F forwarded {}", r.f_forwarded);
        let last = r.changes.last().unwrap();
        assert!(last.1 == 5, "{name}: last path {last:?}");
        assert!(f.longest_gap_s < 10.0, "{name}: gap {:.1} s", f.longest_gap_s);
    }
    let (a, b) = (uu.out.flows[0].throughput_kbps, ns2.out.flows[0].throughput_kbps);
    assert!(a > 0.5 * b, "dsr-uu {a:.1} kbit/s vs ns2 {b:.1} kbit/s");
}

fn chain6(routing: &str, flows: &str) -> RunOutput {
    let toml = format!("duration = 120.0\n[topology]\nkind = \"chain\"\nnodes = 7\nspacing = 200.0\n[routing]\n{routing}\n{flows}");
    common::run_toml(&toml, 1)
}

#[test]
fn ns2_dsr_on_a_static_six_hop_chain() {
    let one = "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 6\n";
    let st = chain6("protocol = \"static\"", one);
    let dsr = chain6("protocol = \"dsr\"\npreset = \"ns2\"", one);
    let uu = chain6("protocol = \"dsr\"\npreset = \"dsr-uu\"", one);
    for (n, o) in [("static", &st), ("dsr ns2", &dsr), ("dsr-uu", &uu)] {
        let f = &o.flows[0];
        eprintln!("6-hop {n}: {:.1} kbit/s, {} route changes, gap {:.2} s, {} timeouts", f.throughput_kbps, f.route_changes, f.longest_gap_s, f.timeouts);
    }
    // Two flows, one each way.
    let two = format!("{one}[[flows]]\nkind = \"ftp\"\nsrc = 6\ndst = 0\nstart = 1.5\n");
    for (n, r) in [("static", "protocol = \"static\""), ("dsr ns2", "protocol = \"dsr\"\npreset = \"ns2\""), ("dsr-uu", "protocol = \"dsr\"\npreset = \"dsr-uu\"")] {
        let o = chain6(r, &two);
        let t: Vec<_> = o.flows.iter().map(|f| format!("{:.1} kbit/s ({} route changes, gap {:.2} s)", f.throughput_kbps, f.route_changes, f.longest_gap_s)).collect();
        eprintln!("6-hop two flows {n}: {t:?}");
        assert!(o.flows.iter().map(|f| f.throughput_kbps).sum::<f64>() > 50.0, "{n}");
    }
    let (s, d) = (st.flows[0].throughput_kbps, dsr.flows[0].throughput_kbps);
    assert!(d > 0.5 * s, "ns2 DSR {d:.1} vs static {s:.1}");
    assert!(uu.flows[0].throughput_kbps > 0.3 * s, "dsr-uu {:.1} vs static {s:.1}", uu.flows[0].throughput_kbps);
}
