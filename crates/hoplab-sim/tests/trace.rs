//! The `[output] trace` table records, and only records: a traced run is the
//! same run (same event hash, same tables), and the trace accounts for every
//! frame the MACs sent and every drop the counters saw.

mod common;

const CHAIN: &str = "duration = 10.0\n[topology]\nkind = \"chain\"\nnodes = 5\nspacing = 200.0\n\
    [mac]\nrts_threshold = 100\n\
    [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n";

#[test]
fn trace_changes_nothing_and_accounts_for_every_frame_and_drop() {
    let plain = common::run_toml(CHAIN, 3);
    let traced = common::run_toml(&format!("{CHAIN}[output]\ntrace = true\n"), 3);
    assert!(plain.trace.is_empty());
    assert_eq!(plain.info.event_hash, traced.info.event_hash);
    assert_eq!(plain.flows, traced.flows);
    assert_eq!(plain.drops, traced.drops);

    let t = &traced.trace;
    assert!(t.windows(2).all(|w| w[0].time_s <= w[1].time_s), "rows in time order");
    for n in &traced.nodes {
        let sent = t.iter().filter(|r| r.node == n.node && r.event == "send" && r.layer == "MAC").count() as u64;
        assert_eq!(sent, n.mac_frames_sent, "node {}: tx rows", n.node);
    }
    // Drops in the trace match the counters (END is counted after the run).
    for d in traced.drops.iter().filter(|d| d.reason != "END" && d.reason != "COL") {
        let rows = t.iter().filter(|r| r.event == "drop" && r.node == d.node && r.reason == d.reason && r.packet_type == d.packet_type).count() as u64;
        assert_eq!(rows, d.count, "{d:?}");
    }
    // It sees the chain at work: DATA decoded hop by hop, frames sensed two hops away.
    let data_rx = t.iter().filter(|r| r.event == "recv" && r.layer == "MAC" && r.frame == "DATA").count();
    assert!(data_rx > 500, "a 10 s 4-hop transfer decodes hundreds of DATA frames ({data_rx})");
    assert!(t.iter().any(|r| r.event == "weak"), "nodes two hops away sense frames they cannot decode");
}
