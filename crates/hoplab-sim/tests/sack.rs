//! SACK end to end: on a multihop chain with default settings, a SACK flow
//! (blocks in the ACKs, scoreboard recovery at the sender) delivers its
//! byte stream complete and in order.

mod common;

fn chain_flow(variant: &str, seed: u64) -> hoplab_sim::RunOutput {
    let toml = common::chain(
        4,
        &format!("[tcp]\nvariant = \"{variant}\"\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n"),
    );
    common::run_toml(&toml, seed)
}

#[test]
fn sack_flow_on_a_four_hop_chain_delivers_the_stream() {
    for seed in 1..=2 {
        let sack = chain_flow("sack", seed);
        let f = &sack.flows[0];
        eprintln!(
            "seed {seed}: sack {:.1} kbit/s, {} retransmissions, {} fast retransmits, {} timeouts",
            f.throughput_kbps, f.retransmissions, f.fast_retransmits, f.timeouts
        );
        assert_eq!(f.stream_errors, 0);
        assert!(f.bytes_delivered > 1_000_000, "{} bytes in 30 s", f.bytes_delivered);
        assert!(f.fast_retransmits > 0, "seed {seed}: SACK loss recovery never ran");
        let newreno = chain_flow("new_reno", seed);
        assert_ne!(sack.info.event_hash, newreno.info.event_hash, "the variant is in effect");
    }
}
