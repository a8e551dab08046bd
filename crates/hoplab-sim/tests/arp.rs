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
