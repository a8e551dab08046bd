//! RFC 6298 retransmission timer: estimator, backoff, Karn's rule, go-back-N.

use super::support::{ack, cfg, drain, ms, sender_with_outstanding, seqnos};
use crate::tcp::{RttEstimator, TcpSender, Variant};
use crate::time::{Dur, SimTime};

fn dms(v: u64) -> Dur {
    Dur::from_millis(v)
}

#[test]
fn estimator_matches_hand_computed_rfc6298_values() {
    let mut e = RttEstimator::new(dms(1000), Dur::ZERO, dms(60_000), dms(1));
    assert_eq!(e.rto(), dms(1000), "(2.1) before any sample");
    assert_eq!(e.srtt(), None);
    // (2.2): SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
    e.sample(dms(100));
    assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(dms(100)), dms(50), dms(300)));
    // (2.3): RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
    // RTO = 112.5 + 250 = 362.5 ms.
    e.sample(dms(200));
    assert_eq!(e.rttvar(), Dur(62_500_000));
    assert_eq!(e.srtt(), Some(Dur(112_500_000)));
    assert_eq!(e.rto(), Dur(362_500_000));
    // RTTVAR = 3/4*62.5 + 1/4*12.5 = 50; SRTT = 7/8*112.5 + 12.5 = 110.9375; RTO = 310.9375 ms.
    e.sample(dms(100));
    assert_eq!(e.rttvar(), dms(50));
    assert_eq!(e.srtt(), Some(Dur(110_937_500)));
    assert_eq!(e.rto(), Dur(310_937_500));
}

#[test]
fn estimator_applies_min_max_and_granularity() {
    // (2.4) lower bound.
    let mut e = RttEstimator::new(dms(1000), dms(200), dms(60_000), dms(1));
    e.sample(dms(10));
    assert_eq!(e.rto(), dms(200));
    // G: with a steady RTT, RTTVAR decays to 0 and RTO -> SRTT + G.
    let mut e = RttEstimator::new(dms(1000), Dur::ZERO, dms(60_000), dms(1));
    for _ in 0..200 {
        e.sample(dms(100));
    }
    assert_eq!(e.rttvar(), Dur::ZERO);
    assert_eq!(e.rto(), dms(101));
    // (2.5) upper bound.
    let mut e = RttEstimator::new(dms(1000), dms(200), dms(2000), dms(1));
    e.sample(dms(1500));
    assert_eq!(e.rto(), dms(2000));
}

#[test]
fn timer_starts_on_first_send_and_stops_when_all_acked() {
    let mut s = TcpSender::new(0, &cfg(Variant::NewReno, 2), None, false);
    assert_eq!(s.poll_timeout(), None, "nothing outstanding");
    drain(&mut s, ms(5));
    assert_eq!(s.poll_timeout(), Some(ms(5) + dms(1000)), "(5.1) with the initial RTO");
    // (5.3): new data acked -> restart with the new RTO (300 ms after a 100 ms sample).
    s.handle_ack(ms(105), &ack(1));
    assert_eq!(s.srtt(), Some(dms(100)));
    assert_eq!(s.rto(), dms(300));
    assert_eq!(s.poll_timeout(), Some(ms(105) + dms(300)));
    // (5.2): all acked -> off (what the slow-start growth sent meanwhile excluded).
    let sent = drain(&mut s, ms(105));
    let last = sent.last().unwrap().seqno;
    s.handle_ack(ms(205), &ack(last + 1));
    assert_eq!(s.flight_size(), 0);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn early_timeout_call_is_ignored() {
    let mut s = sender_with_outstanding(Variant::NewReno, 2);
    s.handle_timeout(ms(999));
    assert_eq!(s.stats().timeouts, 0);
    assert!(drain(&mut s, ms(999)).is_empty());
}

#[test]
fn rto_backoff_doubles_up_to_rto_max() {
    let mut s = sender_with_outstanding(Variant::NewReno, 1);
    let mut rtos = Vec::new();
    for i in 1..=8u64 {
        let t = s.poll_timeout().expect("timer running");
        s.handle_timeout(t);
        let out = drain(&mut s, t);
        assert_eq!(seqnos(&out), vec![0], "timeout {i} retransmits snd_una");
        assert!(out[0].retransmit);
        assert_eq!(s.poll_timeout(), Some(t + s.rto()), "(5.6) timer restarted with the backed-off RTO");
        rtos.push(s.rto());
    }
    let want: Vec<Dur> = [2, 4, 8, 16, 32, 60, 60, 60].iter().map(|&x| dms(x * 1000)).collect();
    assert_eq!(rtos, want);
    assert_eq!(s.stats().timeouts, 8);
    assert_eq!(s.stats().retransmissions, 8);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 2.0);
}

#[test]
fn karn_no_sample_from_retransmitted_segment_and_backoff_kept() {
    let mut s = sender_with_outstanding(Variant::NewReno, 1);
    s.handle_ack(ms(100), &ack(1)); // sample 100 ms: SRTT 100, RTTVAR 50, RTO 300
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![1, 2]);
    assert_eq!(s.poll_timeout(), Some(ms(400)));
    s.handle_timeout(ms(400));
    assert_eq!(s.rto(), dms(600));
    assert_eq!(seqnos(&drain(&mut s, ms(400))), vec![1]);
    // ACK of the retransmitted segment: ambiguous, no sample, RTO stays backed off.
    s.handle_ack(ms(450), &ack(2));
    assert_eq!(s.srtt(), Some(dms(100)));
    assert_eq!(s.stats().rtt_samples, 1);
    assert_eq!(s.rto(), dms(600));
    let out = drain(&mut s, ms(450));
    assert_eq!(out.iter().map(|x| (x.seqno, x.retransmit)).collect::<Vec<_>>(), vec![(2, true), (3, false)]);
    // Covers the re-sent 2: still no sample.
    s.handle_ack(ms(500), &ack(3));
    assert_eq!(s.stats().rtt_samples, 1);
    drain(&mut s, ms(500));
    // Covers only 3, sent once at 450 ms: a 100 ms sample ends the backoff.
    s.handle_ack(ms(550), &ack(4));
    assert_eq!(s.stats().rtt_samples, 2);
    assert_eq!(s.srtt(), Some(dms(100)));
    assert_eq!(s.rto(), dms(250), "100 + 4 * (3/4 * 50)");
    let st = s.stats();
    assert!((st.rtt_sum_s - 0.2).abs() < 1e-12);
    assert!((st.rtt_sum_sq_s - 0.02).abs() < 1e-12);
}

#[test]
fn timeout_goes_back_n_from_snd_una() {
    let mut s = sender_with_outstanding(Variant::Reno, 5);
    let t = s.poll_timeout().unwrap();
    assert_eq!(t, SimTime::ZERO + dms(1000));
    s.handle_timeout(t);
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 2.0), "cwnd 1, ssthresh max(5/2, 2)");
    assert_eq!(seqnos(&drain(&mut s, t)), vec![0]);
    s.handle_ack(t + dms(100), &ack(1));
    let out = drain(&mut s, t + dms(100));
    assert_eq!(out.iter().map(|x| (x.seqno, x.retransmit)).collect::<Vec<_>>(), vec![(1, true), (2, true)]);
    // The sink had 3 and 4: the ACK jumps past snd_nxt and new data follows.
    s.handle_ack(t + dms(200), &ack(5));
    let out = drain(&mut s, t + dms(200));
    assert!(out.iter().all(|x| !x.retransmit && x.seqno >= 5), "{out:?}");
    assert_eq!(seqnos(&out)[0], 5);
    assert_eq!(s.stats().retransmissions, 3);
    assert_eq!(s.stats().segments_sent, 5 + 3 + out.len() as u64);
}

#[test]
fn dupacks_after_timeout_do_not_fast_retransmit_old_window() {
    let mut s = sender_with_outstanding(Variant::NewReno, 6);
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    drain(&mut s, t);
    for _ in 0..5 {
        s.handle_ack(t + dms(50), &ack(0));
    }
    assert_eq!(s.stats().fast_retransmits, 0, "recover = 5 set at the timeout");
    assert!(drain(&mut s, t + dms(50)).is_empty());
}

#[test]
fn karn_times_a_new_segment_acked_together_with_a_retransmission() {
    // ns-2 tcp.cc: a timeout clears rtt_active_ and the next new segment is
    // timed; the ACK that reaches it gives a sample and ends the backoff even
    // if it also covers a retransmission (4.4BSD's t_rtt does the same). With
    // a delayed-ACK sink that is the usual first ACK after go-back-N.
    let mut s = sender_with_outstanding(Variant::NewReno, 2);
    s.handle_timeout(ms(1000));
    assert_eq!(s.rto(), dms(2000), "backed off");
    assert_eq!(seqnos(&drain(&mut s, ms(1000))), vec![0]);
    s.handle_ack(ms(1100), &ack(1));
    assert_eq!(s.stats().rtt_samples, 0, "re-sent 0 only");
    let out = drain(&mut s, ms(1100));
    assert_eq!(out.iter().map(|x| (x.seqno, x.retransmit)).collect::<Vec<_>>(), vec![(1, true), (2, false)]);
    // One ACK for re-sent 1 and new 2: timed from 2, 100 ms; RTO = 100 + 4*50.
    s.handle_ack(ms(1200), &ack(3));
    assert_eq!(s.stats().rtt_samples, 1);
    assert_eq!((s.srtt(), s.rto()), (Some(dms(100)), dms(300)), "backoff ended");
}

fn ns2_cfg(variant: Variant, iw: u32) -> crate::tcp::TcpConfig {
    use crate::tcp::RtoEstimator;
    crate::tcp::TcpConfig { rto_estimator: RtoEstimator::Ns2, rto_initial: dms(3000), ..cfg(variant, iw) }
}

#[test]
fn ns2_timer_takes_one_sample_per_timed_segment() {
    let mut s = TcpSender::new(0, &ns2_cfg(Variant::NewReno, 2), None, false);
    assert_eq!(seqnos(&drain(&mut s, ms(0))), vec![0, 1]); // 0 is timed, 1 is not
    assert_eq!(s.poll_timeout(), Some(ms(3000)), "rtxcur_init_");
    s.handle_ack(ms(100), &ack(1)); // covers 0: 10 ticks -> rtxcur 30 ticks
    assert_eq!(s.rto(), dms(300));
    assert_eq!(s.poll_timeout(), Some(ms(400)));
    drain(&mut s, ms(100)); // 2 and 3 sent at 100 ms; 2 is timed
    s.handle_ack(ms(150), &ack(2)); // covers 1 only: not timed
    assert_eq!(s.stats().rtt_samples, 1, "RFC 6298 would take a sample from every ACK");
    s.handle_ack(ms(250), &ack(3)); // covers 2: 15 ticks
    assert_eq!(s.stats().rtt_samples, 2);
    assert_eq!(s.srtt(), Some(Dur(106_250_000)), "srtt8 = 80 + 5 = 85 ticks / 8");
}

#[test]
fn ns2_timer_restarts_at_a_fast_retransmit() {
    // ns-2 newreno dupack_action: reset_rtx_timer(1, 0). hoplab's RFC timer keeps running.
    for (ns2, want) in [(false, ms(3000)), (true, ms(4200))] {
        let c = if ns2 { ns2_cfg(Variant::NewReno, 8) } else { crate::tcp::TcpConfig { rto_initial: dms(3000), ..cfg(Variant::NewReno, 8) } };
        let mut s = TcpSender::new(0, &c, None, false);
        assert_eq!(drain(&mut s, ms(0)).len(), 8);
        for t in [1000, 1100, 1200] {
            s.handle_ack(ms(t), &ack(0)); // seg 0 lost: three duplicate ACKs
        }
        assert!(s.in_recovery());
        let out = drain(&mut s, ms(1300));
        assert_eq!(out[0].seqno, 0);
        assert_eq!(s.poll_timeout(), Some(want), "ns2 = {ns2}: armed at 0 s, or again at the third dup ACK");
    }
}
