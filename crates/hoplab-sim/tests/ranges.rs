//! Transmission and carrier-sense ranges (defaults: two-ray ground, 250 m
//! decode, 550 m sense).

mod common;

/// Two sender->receiver pairs, each 200 m long, senders `gap` metres apart.
fn two_pairs(gap: f64) -> hoplab_sim::RunOutput {
    let toml = format!(
        "duration = 20.0\n[topology]\nkind = \"explicit\"\n\
         positions = [[-200.0, 0.0], [0.0, 0.0], [{gap}, 0.0], [{}, 0.0]]\n\
         [mac]\nrts_threshold = 3000\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 1\ndst = 0\nrate_kbps = 4000.0\npacket_size = 1000\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 2\ndst = 3\nrate_kbps = 4000.0\npacket_size = 1000\n",
        gap + 200.0
    );
    common::run_toml(&toml, 5)
}

#[test]
fn nodes_out_of_range_exchange_nothing() {
    // Senders 2 km apart: neither senses the other, both get a full channel.
    let far = two_pairs(2000.0);
    let alone = 1000.0 * 8.0 / 5090.0 * 1000.0; // one exchange, basic access (see budget.rs)
    for f in &far.flows {
        assert!(f.throughput_kbps > 0.97 * alone, "flow {} got {:.1}", f.flow, f.throughput_kbps);
    }
    assert_eq!(far.nodes.iter().map(|n| n.rx_collisions).sum::<u64>(), 0);
    // A flow to a node beyond decoding range has no route at all.
    let toml = "duration = 5.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 300.0\n\
                [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 100.0\n";
    let o = common::run_toml(toml, 1);
    assert_eq!(o.flows[0].packets_received, 0);
    assert_eq!(o.nodes[0].mac_frames_sent, 0);
    assert!(o.drops.iter().any(|d| d.reason == "NRTE" && d.count == o.flows[0].packets_sent));
}

#[test]
fn a_node_in_carrier_sense_range_defers() {
    // Senders 400 m apart: cannot decode each other but sense each other, so
    // they take turns: each gets about half, with few collisions.
    let near = two_pairs(400.0);
    let far = two_pairs(2000.0);
    let total = |o: &hoplab_sim::RunOutput| o.flows.iter().map(|f| f.throughput_kbps).sum::<f64>();
    let share = total(&near) / total(&far);
    assert!((0.40..0.60).contains(&share), "sharing ratio {share:.3}");
    for f in &near.flows {
        assert!(f.throughput_kbps > 0.35 * total(&far) / 2.0, "flow {} starved: {:.1}", f.flow, f.throughput_kbps);
    }
    let col: u64 = near.nodes.iter().map(|n| n.rx_collisions).sum();
    let sent: u64 = near.flows.iter().map(|f| f.packets_received).sum();
    assert!((col as f64) < 0.1 * sent as f64, "{col} collisions for {sent} frames");
}
