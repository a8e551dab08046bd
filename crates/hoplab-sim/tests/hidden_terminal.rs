//! The hidden-terminal problem: with carrier sense no wider than the
//! transmission range (250 m), senders at 0 m and 400 m cannot hear each
//! other while both reach a receiver at 200 m.

mod common;

fn hidden(rts_threshold: u32) -> hoplab_sim::RunOutput {
    let toml = format!(
        "duration = 20.0\n[topology]\nkind = \"explicit\"\npositions = [[0.0, 0.0], [200.0, 0.0], [400.0, 0.0]]\n\
         [radio]\ntx_range_m = 250.0\ncs_range_m = 250.0\n[mac]\nrts_threshold = {rts_threshold}\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 2000.0\npacket_size = 1000\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 2\ndst = 1\nrate_kbps = 2000.0\npacket_size = 1000\n"
    );
    common::run_toml(&toml, 3)
}

fn collisions_at_receiver(o: &hoplab_sim::RunOutput) -> u64 {
    o.nodes[1].rx_collisions
}

#[test]
fn rts_cts_cuts_hidden_terminal_collisions() {
    let basic = hidden(3000);
    let rts = hidden(0);
    let (cb, cr) = (collisions_at_receiver(&basic), collisions_at_receiver(&rts));
    let data_cb: u64 = basic.drops.iter().filter(|d| d.node == 1 && d.reason == "COL" && d.packet_type == "cbr").map(|d| d.count).sum();
    eprintln!("collisions at receiver: basic {cb} (data {data_cb}), rts/cts {cr}");
    assert!(data_cb > 500, "hidden senders without RTS/CTS should collide often, saw {data_cb}");
    assert!(cr * 4 < cb, "RTS/CTS should cut collisions at least 4x: {cr} vs {cb}");
    let tput = |o: &hoplab_sim::RunOutput| o.flows.iter().map(|f| f.throughput_kbps).sum::<f64>();
    assert!(tput(&rts) > tput(&basic), "RTS/CTS {:.1} vs basic {:.1}", tput(&rts), tput(&basic));
    // Frames lost to collisions are retried: the MAC counts retransmissions.
    assert!(basic.nodes[0].mac_retransmissions + basic.nodes[2].mac_retransmissions > 500);
}
