//! Seed 000 §4.1 end to end: with a two-segment receive window, the Linux
//! receiver ACKs every data segment and ns-2's every second one (1-hop chain,
//! default radio and MAC, static routing).

mod common;

use std::collections::HashSet;

/// (unique data segments delivered, TCP ACKs the sink sent) on a 1-hop chain.
fn acks_per_segment(tcp: &str) -> (u64, usize) {
    let toml = format!(
        "duration = 10.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 200.0\n\
         [mac]\nrts_threshold = 100\n[tcp]\n{tcp}\n\
         [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 1\n[output]\ntrace = true\n"
    );
    let out = common::run_toml(&toml, 1);
    let f = &out.flows[0];
    assert_eq!(f.stream_errors, 0);
    // Each ACK packet once, however many MAC attempts it took.
    let acks: HashSet<i64> = out.trace.iter()
        .filter(|r| r.event == "send" && r.layer == "MAC" && r.node == 1 && r.frame == "DATA" && r.packet_type == "ack")
        .map(|r| r.uid)
        .collect();
    eprintln!("{tcp:?}: {} ACKs for {} segments", acks.len(), f.packets_received);
    (f.packets_received, acks.len())
}

#[test]
fn linux_acks_every_segment_and_ns2_every_second_with_a_two_segment_window() {
    let (segs, acks) = acks_per_segment("max_cwnd = 2\nclamp = \"receiver\"\nreceiver = \"linux\"");
    assert!(segs > 1000, "{segs} segments in 10 s");
    assert!(acks as u64 >= segs - 1 && acks as u64 <= segs, "linux: {acks} ACKs for {segs} segments");

    let (segs, acks) = acks_per_segment("max_cwnd = 2\nclamp = \"receiver\"\nreceiver = \"ns2\"");
    let ratio = acks as f64 / segs as f64;
    assert!((0.49..=0.52).contains(&ratio), "ns2: {acks} ACKs for {segs} segments");

    // Linux's every-segment ACKs come from the clamp on its own window:
    // with a sender-side cap its window is its 64 KB buffer.
    let (segs, acks) = acks_per_segment("max_cwnd = 2\nclamp = \"sender\"\nreceiver = \"linux\"");
    let ratio = acks as f64 / segs as f64;
    assert!((0.49..=0.52).contains(&ratio), "linux, sender cap: {acks} ACKs for {segs} segments");
}

#[test]
fn a_receiver_clamp_and_a_sender_cap_of_the_same_size_carry_alike() {
    // Same window, either way; the receiver clamp lets cwnd grow beyond it,
    // which on a lossless hop changes nothing the flow can see.
    let (a, _) = acks_per_segment("max_cwnd = 2\nclamp = \"receiver\"");
    let (b, _) = acks_per_segment("max_cwnd = 2\nclamp = \"sender\"");
    assert!((a as f64 / b as f64 - 1.0).abs() < 0.02, "{a} vs {b}");
}
