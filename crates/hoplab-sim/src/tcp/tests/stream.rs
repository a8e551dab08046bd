//! Stream integrity (tcp/stream.rs): the sink's check must pass every
//! correct transfer, lossy ones included, and catch each kind of fault.

use super::support::{cfg, data, data_len, ms, Lcg, Pair};
use crate::tcp::{TcpConfig, TcpSink, Variant};
use crate::time::Dur;

fn sink() -> TcpSink {
    TcpSink::new(0, &TcpConfig { delayed_ack: false, ..TcpConfig::default() })
}

#[test]
fn a_lossy_transfer_with_retransmissions_is_whole() {
    for variant in [Variant::NewReno, Variant::Tahoe, Variant::Sack] {
        let bytes = 500 * 1460 + 321;
        let mut p = Pair::new(&cfg(variant, 3), Some(bytes), Dur::from_millis(20));
        let mut rng = Lcg(7);
        p.drop_data = Box::new(move |_| rng.chance(0.05));
        assert!(p.run_until_done(ms(600_000)), "{variant:?} did not finish");
        assert!(p.sender.stats().retransmissions > 0, "the losses must force retransmissions");
        assert_eq!(p.sink.stats().bytes_delivered, bytes);
        assert_eq!(p.sink.stats().stream_errors, 0, "{variant:?}");
    }
}

#[test]
fn a_segment_corrupted_in_flight_is_an_error() {
    let mut s = sink();
    s.handle_segment(ms(0), &data(0));
    let mut bad = data(1);
    bad.checksum ^= 1; // one bit of its content changed
    s.handle_segment(ms(1), &bad);
    s.handle_segment(ms(2), &data(2));
    assert_eq!(s.stats().stream_errors, 1);
    assert_eq!(s.rcv_nxt(), 3, "the sequence numbers themselves were fine");
}

#[test]
fn a_segment_with_a_shifted_offset_is_an_error() {
    // Segment 2's bytes arrive labelled as segment 1 (their header moved),
    // then the real segment 1 is a "duplicate" and segment 2 fills the hole:
    // offsets alone (the pre-issue-10 check) cannot see it.
    let mut s = sink();
    s.handle_segment(ms(0), &data(0));
    s.handle_segment(ms(1), &crate::wire::TcpSegment { seqno: 1, ..data(2) });
    s.handle_segment(ms(2), &data(1));
    s.handle_segment(ms(3), &data(2));
    assert_eq!(s.rcv_nxt(), 3);
    assert_eq!(s.stats().stream_errors, 1, "the misplaced range is delivered once, at offset 1460");
}

#[test]
fn a_duplicated_delivery_is_an_error() {
    let mut s = sink();
    s.handle_segment(ms(0), &data(0));
    s.inject_delivery(&data(0)); // reassembly hands the same bytes up twice
    assert_eq!(s.stats().stream_errors, 1);
}

#[test]
fn a_gap_and_an_out_of_order_delivery_are_errors() {
    let mut s = sink();
    s.inject_delivery(&data(0));
    s.inject_delivery(&data(2)); // segment 1 skipped
    assert_eq!(s.stats().stream_errors, 1);
    let mut s = sink();
    s.inject_delivery(&data(1)); // delivered before segment 0
    s.inject_delivery(&data(0));
    assert!(s.stats().stream_errors >= 1);
}

#[test]
fn a_short_segment_carries_the_checksum_of_its_own_length() {
    let mut s = sink();
    s.handle_segment(ms(0), &data_len(0, 100));
    assert_eq!(s.stats().stream_errors, 0);
    s.handle_segment(ms(1), &data_len(1, 100)); // claims 1460..1560, stream is at 100
    assert_eq!(s.stats().stream_errors, 1);
}
