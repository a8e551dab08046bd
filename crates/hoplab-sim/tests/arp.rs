//! ARP between routing and the interface queue (`[link] arp`), as ns-2's
//! LL/ARP sits (seed 002 §2): resolution costs one request/reply exchange,
//! ns-2's one-packet hold drops bursts toward unresolved next hops, and
//! "off" leaves runs exactly as they were.

mod common;

use hoplab_sim::RunOutput;

fn overhead(out: &RunOutput, kind: &str) -> Vec<(u32, u64)> {
    out.overhead.iter().filter(|r| r.kind == kind).map(|r| (r.node, r.packets)).collect()
}

fn drops(out: &RunOutput, reason: &str) -> u64 {
    out.drops.iter().filter(|d| d.reason == reason).map(|d| d.count).sum()
}

const CBR_1HOP: &str = "[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 64.0\nstart = 1.0\n";

#[test]
fn one_exchange_then_everything_flows() {
    let out = common::run_toml(&common::chain(1, &format!("[link]\narp = \"ns2\"\n{CBR_1HOP}")), 1);
    eprintln!("overhead {:?}\ndrops {:?}\nflow {:?}", out.overhead, out.drops, out.flows[0]);
    // Node 0 asks once; node 1 answers once (RFC 826) and has learnt node 0
    // from the request, so it never asks.
    assert_eq!(overhead(&out, "arp.request"), vec![(0, 1)]);
    assert_eq!(overhead(&out, "arp.reply"), vec![(1, 1)]);
    assert_eq!(drops(&out, "ARP"), 0);
    let f = &out.flows[0];
    assert!(f.packets_sent > 400, "{f:?}");
    assert!(f.packets_received + 1 >= f.packets_sent, "{f:?}");
}

/// A 4-hop AODV chain 0-1-2-3-4. Flow A (0 -> 1) runs first: node 1 ARPs
/// node 0 to send its RREP, and node 2 overhears that request. Then flow B
/// (1 -> 4) starts and AODV buffers its packets during route discovery.
fn aodv_burst(arp: &str) -> RunOutput {
    let extra = format!(
        "[link]\narp = \"{arp}\"\n[routing]\nprotocol = \"aodv\"\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 64.0\nstart = 1.0\nstop = 3.0\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 1\ndst = 4\nrate_kbps = 512.0\nstart = 5.0\n"
    );
    common::run_toml(&common::chain(4, &extra), 1)
}

#[test]
fn ns2_hold_of_one_drops_a_burst_toward_an_unresolved_next_hop() {
    // ns-2's arpinput learns node 1 from node 1's request for node 0, so
    // node 2 answers RREP with no ARP of its own and node 1 is left not
    // knowing node 2 when AODV releases its buffered burst: ns-2 holds one
    // packet per address and drops the rest (DROP_IFQ_ARP_FULL).
    let ns2 = aodv_burst("ns2");
    // RFC 826's merge rule does not learn from a request for someone else,
    // so node 2 ARPs node 1 before the RREP, and node 1 learns node 2; a
    // held queue would have kept the burst anyway.
    let queue = aodv_burst("queue");
    for (name, out) in [("ns2", &ns2), ("queue", &queue)] {
        eprintln!("{name}: drops {:?}\n  arp {:?}\n  flow B {}/{}", out.drops, out.overhead.iter().filter(|r| r.kind.starts_with("arp")).map(|r| (r.node, r.kind, r.packets)).collect::<Vec<_>>(), out.flows[1].packets_received, out.flows[1].packets_sent);
    }
    let ns2_arp: Vec<_> = ns2.drops.iter().filter(|d| d.reason == "ARP").collect();
    assert!(!ns2_arp.is_empty(), "no ARP drops with arp = ns2: {:?}", ns2.drops);
    assert!(ns2_arp.iter().all(|d| d.node == 1 && d.packet_type == "cbr" && d.layer == "IFQ"), "{ns2_arp:?}");
    assert_eq!(drops(&queue, "ARP"), 0, "{:?}", queue.drops);
    assert!(queue.flows[1].packets_received > ns2.flows[1].packets_received.saturating_sub(5));
}

#[test]
fn off_is_the_default_and_changes_nothing() {
    let ftp = "[mac]\nrts_threshold = 0\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 3\n";
    let default = common::run_toml(&common::chain(3, ftp), 2);
    let off = common::run_toml(&common::chain(3, &format!("[link]\narp = \"off\"\n{ftp}")), 2);
    eprintln!("static 3-hop ftp: {:.3} kbit/s, {} events, hash {:#x}", default.flows[0].throughput_kbps, default.info.events, default.info.event_hash);
    assert_eq!(default.info.event_hash, off.info.event_hash);
    assert_eq!(default.flows, off.flows);
    assert_eq!(default.drops, off.drops);
    assert!(off.overhead.iter().all(|r| !r.kind.starts_with("arp")));
    // With ARP on, the same run pays one exchange per hop and otherwise
    // behaves alike.
    let ns2 = common::run_toml(&common::chain(3, &format!("[link]\narp = \"ns2\"\n{ftp}")), 2);
    eprintln!("  with arp = ns2: {:.3} kbit/s", ns2.flows[0].throughput_kbps);
    assert!(ns2.flows[0].throughput_kbps > 0.8 * off.flows[0].throughput_kbps);
}
