//! Tahoe as ns-2's `Agent/TCP`: fast retransmit, then slow start from one
//! segment going back to snd_una; no fast recovery, no inflation.

use super::support::{ack, cfg, drain, ms, sender_with_outstanding, seqnos, Lcg, Pair};
use crate::tcp::Variant;
use crate::time::{Dur, SimTime};

#[test]
fn third_dupack_retransmits_and_restarts_from_one_segment() {
    let mut s = sender_with_outstanding(Variant::Tahoe, 10);
    for _ in 0..2 {
        s.handle_ack(ms(100), &ack(0));
        assert!(drain(&mut s, ms(100)).is_empty());
    }
    s.handle_ack(ms(100), &ack(0));
    let out = drain(&mut s, ms(100));
    assert_eq!(seqnos(&out), vec![0], "only the lost segment: cwnd is 1");
    assert!(out[0].retransmit);
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 1.0), "ssthresh = FlightSize/2, cwnd = 1");
    assert!(!s.in_recovery(), "Tahoe has no fast recovery");
    assert_eq!(s.stats().fast_retransmits, 1);
    // More dup ACKs neither inflate the window nor retransmit again.
    for _ in 0..5 {
        s.handle_ack(ms(100), &ack(0));
    }
    assert!(drain(&mut s, ms(100)).is_empty());
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn after_the_retransmission_it_slow_starts_going_back_n() {
    let mut s = sender_with_outstanding(Variant::Tahoe, 10);
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    drain(&mut s, ms(100));
    // The retransmitted 0 fills the only hole below 5: ACK 5 is new.
    s.handle_ack(ms(200), &ack(5));
    assert_eq!(s.cwnd(), 2.0, "slow start: one more segment per ACK");
    let out = drain(&mut s, ms(200));
    // Go-back-N from snd_una (ns-2 t_seqno_ = highest_ack_ + 1): 5 and 6, both re-sent.
    assert_eq!(seqnos(&out), vec![5, 6]);
    assert!(out.iter().all(|seg| seg.retransmit));
}

#[test]
fn a_lossy_transfer_completes_in_order() {
    let mut c = cfg(Variant::Tahoe, 3);
    c.delayed_ack = true;
    let mut p = Pair::new(&c, Some(1460 * 800 + 11), Dur::from_millis(10));
    p.data_tx = Dur::from_millis(2);
    let mut rng = Lcg(0x7a40e);
    p.drop_data = Box::new(move |_| rng.chance(0.05));
    assert!(p.run_until_done(SimTime::from_secs_f64(10_000.0)));
    assert_eq!(p.sink.stats().bytes_delivered, 1460 * 800 + 11);
    assert_eq!(p.sink.stats().stream_errors, 0);
    assert!(p.sender.stats().fast_retransmits > 0, "losses were repaired by fast retransmit too");
}
