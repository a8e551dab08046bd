//! RFC 5681 §3.2 fast retransmit / fast recovery and RFC 6582 NewReno.

use super::support::{ack, drain, ms, sender_with_outstanding, seqnos};
use crate::tcp::{TcpSender, Variant};

/// Named fixture: 10 segments out, 0 and 5 lost, so the sink has sent one
/// duplicate ACK for each of 1-4 and 6-9 (8 dup ACKs at t = 100 ms).
/// Returns the sender after the 8 dup ACKs and what it sent meanwhile.
fn two_holes(variant: Variant) -> (TcpSender, Vec<u64>) {
    let mut s = sender_with_outstanding(variant, 10);
    let mut sent = Vec::new();
    for _ in 0..8 {
        s.handle_ack(ms(100), &ack(0));
        sent.extend(seqnos(&drain(&mut s, ms(100))));
    }
    (s, sent)
}

#[test]
fn fast_retransmit_on_third_dupack_not_second() {
    let mut s = sender_with_outstanding(Variant::Reno, 10);
    for i in 1..=2 {
        s.handle_ack(ms(100), &ack(0));
        assert!(drain(&mut s, ms(100)).is_empty(), "nothing sent after dup ACK {i}");
        assert_eq!(s.stats().fast_retransmits, 0);
        assert_eq!(s.cwnd(), 10.0);
    }
    s.handle_ack(ms(100), &ack(0));
    let out = drain(&mut s, ms(100));
    assert_eq!(seqnos(&out), vec![0]);
    assert!(out[0].retransmit);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().retransmissions, 1);
    assert_eq!(s.ssthresh(), 5.0, "max(FlightSize/2, 2) with 10 in flight");
    assert_eq!(s.cwnd(), 8.0, "ssthresh + 3");
    assert!(s.in_recovery());
    // A 4th dup ACK inflates cwnd by one and does not retransmit again.
    s.handle_ack(ms(100), &ack(0));
    assert!(drain(&mut s, ms(100)).is_empty());
    assert_eq!(s.cwnd(), 9.0);
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn inflation_lets_new_segments_out() {
    // 8 dup ACKs: cwnd = 5 + 3 + 5 = 13 > 10 in flight, so 10, 11, 12 go out.
    let (s, sent) = two_holes(Variant::NewReno);
    assert_eq!(sent, vec![0, 10, 11, 12]);
    assert_eq!(s.cwnd(), 13.0);
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_at_once() {
    let (mut s, _) = two_holes(Variant::NewReno);
    let timer_before = s.poll_timeout();
    // The retransmitted 0 arrives: ACK 5 is partial (recover = 9).
    s.handle_ack(ms(200), &ack(5));
    let out = drain(&mut s, ms(200));
    // Hole 5 first, without 3 more dup ACKs; then the deflated window
    // (9 from snd_una 5, 8 in flight) lets new segment 13 out.
    assert_eq!(seqnos(&out), vec![5, 13]);
    assert!(out[0].retransmit);
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 13.0 - 5.0 + 1.0, "deflate by 5 acked, add back 1");
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().retransmissions, 2);
    // First partial ACK restarts the timer (RFC 6582 §3.2 step 5).
    assert_ne!(s.poll_timeout(), timer_before);
    assert_eq!(s.poll_timeout(), Some(ms(200) + s.rto()));
}

#[test]
fn newreno_only_first_partial_ack_restarts_timer() {
    // Holes at 0, 3 and 6: two partial ACKs.
    let mut s = sender_with_outstanding(Variant::NewReno, 10);
    for _ in 0..7 {
        s.handle_ack(ms(100), &ack(0));
    }
    drain(&mut s, ms(100));
    s.handle_ack(ms(200), &ack(3));
    assert_eq!(seqnos(&drain(&mut s, ms(200)))[0], 3);
    let t1 = s.poll_timeout();
    s.handle_ack(ms(300), &ack(6));
    assert_eq!(seqnos(&drain(&mut s, ms(300)))[0], 6);
    assert!(s.in_recovery());
    assert_eq!(s.poll_timeout(), t1, "Impatient variant: second partial ACK keeps the timer");
}

#[test]
fn newreno_full_ack_exits_recovery() {
    let (mut s, _) = two_holes(Variant::NewReno);
    s.handle_ack(ms(200), &ack(5));
    drain(&mut s, ms(200));
    // Retransmitted 5 arrives; 10-13 had arrived too: everything acked.
    s.handle_ack(ms(300), &ack(14));
    assert!(!s.in_recovery());
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 2.0, "min(ssthresh, max(FlightSize, 1) + 1) with nothing in flight");
    assert_eq!(s.poll_timeout(), None, "nothing outstanding, timer off");
}

#[test]
fn reno_leaves_recovery_on_partial_ack() {
    let (mut s, _) = two_holes(Variant::Reno);
    s.handle_ack(ms(200), &ack(5));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0, "cwnd = ssthresh");
    assert!(drain(&mut s, ms(200)).is_empty(), "no retransmission of 5, window full (8 in flight)");
    // Dup ACKs for the second hole of the same window do not trigger a
    // second fast retransmit (ACK 5 does not cover recover = 9).
    for _ in 0..7 {
        s.handle_ack(ms(250), &ack(5));
    }
    assert!(drain(&mut s, ms(250)).is_empty());
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn new_loss_after_recovery_triggers_fast_retransmit_again() {
    let (mut s, _) = two_holes(Variant::NewReno);
    s.handle_ack(ms(200), &ack(5));
    drain(&mut s, ms(200));
    s.handle_ack(ms(300), &ack(14));
    let out = drain(&mut s, ms(300));
    assert_eq!(seqnos(&out), vec![14, 15]);
    s.handle_ack(ms(400), &ack(15));
    drain(&mut s, ms(400));
    for _ in 0..3 {
        s.handle_ack(ms(500), &ack(15));
    }
    let out = drain(&mut s, ms(500));
    assert_eq!(out.first().map(|x| (x.seqno, x.retransmit)), Some((15, true)));
    assert_eq!(s.stats().fast_retransmits, 2);
}

#[test]
fn old_and_future_acks_are_ignored() {
    let mut s = sender_with_outstanding(Variant::NewReno, 4);
    s.handle_ack(ms(100), &ack(2));
    let cwnd = s.cwnd();
    s.handle_ack(ms(101), &ack(1)); // old
    s.handle_ack(ms(102), &ack(99)); // acks unsent data
    assert_eq!(s.snd_una(), 2);
    assert_eq!(s.dupacks(), 0);
    assert_eq!(s.cwnd(), cwnd);
}

/// Two losses in one window through the pipe: NewReno repairs both in one
/// fast recovery; Reno leaves recovery on the partial ACK and, with the
/// dup-ACK gate, needs a timeout for the second hole.
#[test]
fn two_losses_in_one_window_newreno_vs_reno() {
    use super::support::{cfg, Pair};
    use crate::time::{Dur, SimTime};
    let run = |variant| {
        let mut p = Pair::new(&cfg(variant, 16), Some(1460 * 200), Dur::from_millis(50));
        p.drop_data = Box::new(|s| (s.seqno == 3 || s.seqno == 8) && !s.retransmit);
        assert!(p.run_until_done(SimTime::from_secs_f64(60.0)));
        assert_eq!(p.sink.stats().bytes_delivered, 1460 * 200);
        p.sender.stats().clone()
    };
    let nr = run(Variant::NewReno);
    assert_eq!((nr.fast_retransmits, nr.timeouts), (1, 0), "{nr:?}");
    assert_eq!(nr.retransmissions, 2, "exactly the two holes");
    let reno = run(Variant::Reno);
    assert_eq!(reno.fast_retransmits, 1, "{reno:?}");
    assert!(reno.timeouts >= 1, "{reno:?}");
}

#[test]
fn same_inputs_same_outputs() {
    use super::support::{cfg, Lcg, Pair};
    use crate::time::{Dur, SimTime};
    let run = || {
        let mut p = Pair::new(&cfg(Variant::NewReno, 3), Some(1460 * 500), Dur::from_millis(7));
        p.data_tx = Dur::from_micros(900);
        let mut r = Lcg(99);
        p.drop_data = Box::new(move |_| r.chance(0.1));
        assert!(p.run_until_done(SimTime::from_secs_f64(1e4)));
        (p.sent, p.sender.take_trace(), p.sender.stats().clone(), p.sink.stats().clone())
    };
    assert_eq!(run(), run());
}
