//! RFC 5681 §3.1 window growth: slow start and congestion avoidance.

use super::support::{cfg, ms, Pair};
use crate::tcp::{TcpConfig, Variant};
use crate::time::Dur;

#[test]
fn initial_window_is_sent_at_once() {
    let mut p = Pair::new(&cfg(Variant::NewReno, 3), None, Dur::from_millis(50));
    p.run_until(ms(0));
    assert_eq!(p.sent.len(), 3);
    assert_eq!(p.sender.flight_size(), 3);
}

#[test]
fn slow_start_doubles_per_rtt() {
    // 50 ms each way, ACK per segment, IW 2: after k rounds cwnd = 2^(k+1).
    // A receive window large enough not to bind (64 KB would at 44 segments).
    let c = TcpConfig { receive_window: 1 << 30, ..cfg(Variant::NewReno, 2) };
    let mut p = Pair::new(&c, None, Dur::from_millis(50));
    for k in 1..=6u32 {
        p.run_until(ms(100 * k as u64));
        let want = 2f64.powi(k as i32 + 1);
        assert_eq!(p.sender.cwnd(), want, "after round {k}");
        assert_eq!(p.sender.flight_size(), want as u64, "whole window in flight after round {k}");
    }
    assert_eq!(p.sender.stats().retransmissions, 0);
    assert!(p.sender.ssthresh() > 1e5, "initial ssthresh is effectively infinite");
}

#[test]
fn congestion_avoidance_adds_about_one_segment_per_rtt() {
    // IW 16 and segment 0 lost once: fast recovery sets ssthresh = 8 and the
    // sender leaves recovery at t = 200 ms in congestion avoidance.
    let mut c = cfg(Variant::NewReno, 16);
    c.rto_min = Dur::from_millis(1000); // keep the timer out of the way
    let mut p = Pair::new(&c, None, Dur::from_millis(50));
    p.drop_data = Box::new(|s| s.seqno == 0 && !s.retransmit);
    p.run_until(ms(250));
    assert_eq!(p.sender.ssthresh(), 8.0);
    assert!(!p.sender.in_recovery());
    let mut prev = p.sender.cwnd();
    assert!(prev >= 8.0, "in congestion avoidance, cwnd {prev}");
    for round in 1..=8u64 {
        p.run_until(ms(250 + 100 * round));
        let now = p.sender.cwnd();
        let growth = now - prev;
        assert!((0.8..=1.2).contains(&growth), "round {round}: cwnd {prev} -> {now}");
        prev = now;
    }
    assert_eq!(p.sender.stats().fast_retransmits, 1);
    assert_eq!(p.sender.stats().timeouts, 0);
}
