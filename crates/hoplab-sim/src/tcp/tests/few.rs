//! FeW (seed 001 §4): α/W growth per ACK in congestion avoidance, W < 1
//! paced by its own timer, the w_min / ssthresh_min bounds, and composition
//! with the loss-recovery variants.

use super::support::{ack, cfg, drain, ms, seqnos};
use crate::tcp::{FewParams, TcpConfig, TcpSender, Variant};
use crate::time::{Dur, SimTime};

fn few(variant: Variant, iw: u32, alpha: f64) -> TcpConfig {
    TcpConfig { few: Some(FewParams { alpha, w_min: 0.1, ssthresh_min: 0.1 }), ..cfg(variant, iw) }
}

fn started(c: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(0, c, None, false);
    let n = c.initial_cwnd as u64;
    assert_eq!(seqnos(&drain(&mut s, SimTime::ZERO)), (0..n).collect::<Vec<_>>());
    s
}

/// Fire the earliest timer and return what the sender then sends.
fn fire(s: &mut TcpSender) -> (SimTime, Vec<u64>) {
    let t = s.poll_timeout().expect("a timer runs");
    s.handle_timeout(t);
    (t, seqnos(&drain(s, t)))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn congestion_avoidance_grows_by_alpha_over_w_per_ack_for_every_variant() {
    for variant in [Variant::Tahoe, Variant::Reno, Variant::NewReno] {
        let mut s = started(&few(variant, 10, 0.25));
        // A timeout with ten in flight: ssthresh = 10/2, cwnd = 1 (W >= 2).
        let (t, out) = fire(&mut s);
        assert_eq!(out, vec![0], "{variant:?}: the retransmission goes at once");
        assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 5.0), "{variant:?}");
        // Slow start is untouched: one segment per ACK up to ssthresh.
        for a in 1..=4 {
            s.handle_ack(t + Dur::from_millis(10 * a), &ack(a));
        }
        assert_eq!(s.cwnd(), 5.0, "{variant:?}");
        // Congestion avoidance: W += α/W per ACK (seed 001 Eq. 9).
        let mut w = 5.0;
        for a in 5..=9 {
            s.handle_ack(t + Dur::from_millis(10 * a), &ack(a));
            w += 0.25 / w;
            assert!(close(s.cwnd(), w), "{variant:?}: cwnd {} != {w}", s.cwnd());
        }
    }
}

#[test]
fn alpha_one_is_the_standard_increase() {
    let grow = |c: &TcpConfig| {
        let mut s = started(c);
        let (t, _) = fire(&mut s);
        for a in 1..=9 {
            s.handle_ack(t + Dur::from_millis(10 * a), &ack(a));
        }
        s.cwnd()
    };
    let standard = grow(&cfg(Variant::NewReno, 10));
    assert!(close(grow(&few(Variant::NewReno, 10, 1.0)), standard));
    assert!(grow(&few(Variant::NewReno, 10, 0.01)) < standard);
    // α = 1 with no bound given is not FeW at all: the config says so.
    let p = crate::scenario::TcpParams { few_alpha: Some(1.0), ..Default::default() };
    assert_eq!(TcpConfig::from_params(&p).few, None);
    let p = crate::scenario::TcpParams { few_alpha: Some(0.01), ..Default::default() };
    assert_eq!(TcpConfig::from_params(&p).few, Some(FewParams { alpha: 0.01, w_min: 0.1, ssthresh_min: 0.1 }));
}

#[test]
fn fast_retransmit_and_recovery_are_the_variants_own() {
    // Reno: ssthresh = FlightSize/2, cwnd = ssthresh + 3, exit at ssthresh,
    // then FeW growth from there.
    let mut s = started(&few(Variant::Reno, 10, 0.5));
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![0]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 8.0));
    s.handle_ack(ms(200), &ack(10));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
    assert_eq!(seqnos(&drain(&mut s, ms(200))), vec![10, 11, 12, 13, 14]);
    s.handle_ack(ms(300), &ack(11));
    assert!(close(s.cwnd(), 5.0 + 0.5 / 5.0));
    // NewReno: a partial ACK keeps it in recovery, as without FeW.
    let mut s = started(&few(Variant::NewReno, 10, 0.5));
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    drain(&mut s, ms(100));
    s.handle_ack(ms(200), &ack(4));
    assert!(s.in_recovery());
    assert_eq!(seqnos(&drain(&mut s, ms(200))), vec![4]);
}

#[test]
fn fractional_window_sends_one_segment_every_rtt_over_w_on_its_own_timer() {
    let c = few(Variant::NewReno, 1, 0.05);
    let mut s = started(&c);
    s.handle_ack(ms(100), &ack(1)); // srtt = 100 ms; slow start: cwnd 2
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![1, 2]);
    // Two outages: cwnd 2 -> 1 (ssthresh 1); the retransmission of 1 is
    // answered (Eq. 9: 1 + 0.05), then the resent 2 times out: W halves
    // below one segment.
    let (t, out) = fire(&mut s);
    assert_eq!(out, vec![1], "the timeout's retransmission is not paced");
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 1.0));
    s.handle_ack(t + Dur::from_millis(100), &ack(2));
    assert!(close(s.cwnd(), 1.05));
    assert_eq!(seqnos(&drain(&mut s, t + Dur::from_millis(100))), vec![2]);
    let (t, out) = fire(&mut s);
    assert!(close(s.cwnd(), 0.525) && close(s.ssthresh(), 0.5), "{} {}", s.cwnd(), s.ssthresh());
    assert_eq!(out, vec![2], "the timeout's retransmission is not paced");
    // Everything is acknowledged; W < 1 now sends one segment per RTT/W.
    let mut now = t + Dur::from_millis(100);
    s.handle_ack(now, &ack(3));
    let mut last = t;
    for round in 0..4 {
        let w = s.cwnd();
        assert!(w < 1.0, "round {round}: cwnd {w}");
        assert!(drain(&mut s, now).is_empty(), "round {round}: ACK clocking sends nothing at W < 1");
        let srtt = s.srtt().unwrap().as_secs_f64();
        let due = last + crate::time::Dur::from_secs_f64(srtt / w);
        let (at, out) = fire(&mut s);
        assert_eq!(at, due, "round {round}: the timer is RTT/W after the last segment");
        assert_eq!(out.len(), 1, "round {round}: one segment per timer");
        last = at;
        now = at + Dur::from_millis(100);
        s.handle_ack(now, &ack(out[0] + 1));
        assert!(s.cwnd() > w, "Eq. 9 on the ACK");
    }
}

/// Fire timers until the retransmission timer has expired once more
/// (FeW's W < 1 send timer may come first); what was sent meanwhile.
fn fire_rto(s: &mut TcpSender) -> (SimTime, Vec<u64>) {
    let n = s.stats().timeouts;
    let mut sent = Vec::new();
    loop {
        let (t, out) = fire(s);
        sent.extend(out);
        if s.stats().timeouts > n {
            return (t, sent);
        }
    }
}

#[test]
fn w_min_and_ssthresh_min_bound_repeated_decreases() {
    let c = TcpConfig { few: Some(FewParams { alpha: 0.01, w_min: 0.3, ssthresh_min: 0.2 }), ..cfg(Variant::NewReno, 4) };
    let mut s = started(&c);
    let (_, out) = fire_rto(&mut s);
    assert_eq!(out, vec![0], "the retransmission goes at once");
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 2.0));
    // The same outage times out again: both are held (RFC 5681 §3.1).
    for _ in 0..3 {
        let (_, out) = fire_rto(&mut s);
        assert_eq!(out, vec![0]);
        assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 2.0));
    }
    // Separate outages (each ended by a new ACK) halve W below one segment,
    // down to the bounds w_min and ssthresh_min, and no further.
    let mut seen = Vec::new();
    for _ in 0..8 {
        let (t, _) = fire(&mut s);
        s.handle_ack(t, &ack(s.snd_una() + 1));
        drain(&mut s, t);
        fire_rto(&mut s);
        seen.push((s.cwnd(), s.ssthresh()));
    }
    assert!(seen.iter().all(|&(w, t)| w >= 0.3 - 1e-9 && t >= 0.2 - 1e-9), "{seen:?}");
    assert!(seen.windows(2).any(|p| p[1].0 < p[0].0 && p[1].0 < 1.0), "W halves below one: {seen:?}");
    assert_eq!(*seen.last().unwrap(), (0.3, 0.2), "{seen:?}");
    // Without FeW a timeout never goes below one segment nor ssthresh below two.
    let mut s = started(&cfg(Variant::NewReno, 4));
    for _ in 0..3 {
        fire(&mut s);
    }
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 2.0));
}
