//! Window clamp (`max_cwnd`): never more than max_cwnd segments outstanding.

use super::support::{ack, cfg, drain, ms, seqnos, Lcg, Pair};
use crate::tcp::{TcpConfig, TcpSender, Variant};
use crate::time::{Dur, SimTime};

fn clamped(variant: Variant, max: u32) -> TcpConfig {
    TcpConfig { max_cwnd: Some(max), ..cfg(variant, 3) }
}

#[test]
fn cwnd_is_capped_at_the_clamp() {
    let mut s = TcpSender::new(0, &clamped(Variant::NewReno, 4), None, false);
    let mut next_ack = 0;
    for round in 0..20u64 {
        let out = drain(&mut s, ms(100 * round));
        assert!(s.flight_size() <= 4);
        next_ack += out.len() as u64;
        s.handle_ack(ms(100 * round + 50), &ack(next_ack));
        assert!(s.cwnd() <= 4.0, "cwnd {} in round {round}", s.cwnd());
    }
    assert_eq!(s.cwnd(), 4.0);
}

#[test]
fn ssthresh_after_loss_comes_from_the_clamped_window() {
    let mut s = TcpSender::new(0, &clamped(Variant::Reno, 6), None, false);
    // Grow to the clamp: IW 3 -> 6 after three ACKs.
    assert_eq!(seqnos(&drain(&mut s, ms(0))), vec![0, 1, 2]);
    s.handle_ack(ms(100), &ack(3));
    let out = drain(&mut s, ms(100));
    assert_eq!(out.len(), 4, "cwnd 4");
    s.handle_ack(ms(200), &ack(7));
    assert_eq!(drain(&mut s, ms(200)).len(), 5, "cwnd 5");
    s.handle_ack(ms(300), &ack(12));
    assert_eq!(drain(&mut s, ms(300)).len(), 6, "cwnd 6 = clamp");
    for _ in 0..3 {
        s.handle_ack(ms(400), &ack(12));
    }
    assert_eq!(s.ssthresh(), 3.0, "half of the 6 in flight");
    // Inflation is capped too: ssthresh + 3 = 6, a further dup ACK gives no 7th segment.
    s.handle_ack(ms(400), &ack(12));
    assert_eq!(s.cwnd(), 6.0);
    let out = drain(&mut s, ms(400));
    assert_eq!(seqnos(&out), vec![12], "only the fast retransmission");
}

#[test]
fn clamp_never_exceeded_over_a_long_lossy_run() {
    for variant in [Variant::Reno, Variant::NewReno] {
        for max in [1u32, 2, 4, 8] {
            let mut c = clamped(variant, max);
            c.delayed_ack = true;
            let mut p = Pair::new(&c, Some(1460 * 1500 + 7), Dur::from_millis(10));
            p.data_tx = Dur::from_millis(2);
            let mut rng = Lcg(0x9e37_79b9 ^ max as u64);
            let mut rng2 = Lcg(0x1234_5678 ^ max as u64);
            p.drop_data = Box::new(move |_| rng.chance(0.08));
            p.drop_ack = Box::new(move |_| rng2.chance(0.05));
            // Pair::flush asserts flight_size <= max and cwnd <= max at every send.
            assert!(p.run_until_done(SimTime::from_secs_f64(10_000.0)), "{variant:?} max {max}");
            assert_eq!(p.max_flight, max as u64, "{variant:?}: the clamp is reached");
            assert_eq!(p.sink.stats().bytes_delivered, 1460 * 1500 + 7);
            assert_eq!(p.sink.stats().stream_errors, 0);
        }
    }
}
