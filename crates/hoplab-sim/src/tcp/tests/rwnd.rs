//! The receiver's advertised window bounds what is outstanding, even when
//! the congestion window is unclamped (RFC 5681 §2: min(cwnd, rwnd)).

use super::support::{ack, cfg, drain, ms, seqnos, Pair};
use crate::tcp::{TcpConfig, TcpSender, Variant, DEFAULT_RECEIVE_WINDOW};
use crate::time::{Dur, SimTime};

#[test]
fn default_window_is_65535_bytes_44_segments_of_1460() {
    let c = TcpConfig::default();
    assert_eq!(c.receive_window, DEFAULT_RECEIVE_WINDOW);
    assert_eq!(c.receive_window, 65_535);
    assert_eq!(c.receive_window_segments(), 44);
    assert_eq!(TcpConfig { mss: 512, ..c.clone() }.receive_window_segments(), 127);
}

#[test]
fn unclamped_sender_stops_at_the_receive_window() {
    // Lossless: cwnd grows without bound, the flight stops at 44.
    let mut p = Pair::new(&cfg(Variant::NewReno, 3), Some(1460 * 3000), Dur::from_millis(20));
    assert!(p.run_until_done(SimTime::from_secs_f64(1000.0)));
    assert_eq!(p.max_flight, 44);
    assert!(p.sender.cwnd() > 44.0, "cwnd {} keeps growing; rwnd is what binds", p.sender.cwnd());
}

#[test]
fn a_small_receive_window_binds_at_the_start() {
    // rwnd of two segments: the initial window of 3 cannot all go out.
    let c = TcpConfig { receive_window: 2 * 1460, ..cfg(Variant::NewReno, 3) };
    let mut s = TcpSender::new(0, &c, None, false);
    assert_eq!(drain(&mut s, ms(0)).len(), 2, "IW 3, but rwnd admits 2");
    s.handle_ack(ms(50), &ack(1));
    assert_eq!(drain(&mut s, ms(50)).len(), 1);
    assert_eq!(s.flight_size(), 2);
}

#[test]
fn the_receive_window_binds_in_fast_recovery_too() {
    // rwnd of 4 segments, all 4 out, segment 0 lost. Fast recovery inflates
    // cwnd to ssthresh + 3 = 5, then 6 and 7 with more dup ACKs; without the
    // receive window that would let segments 4, 5 and 6 out.
    let c = TcpConfig { receive_window: 4 * 1460, ..cfg(Variant::NewReno, 4) };
    let mut s = TcpSender::new(0, &c, None, false);
    assert_eq!(seqnos(&drain(&mut s, ms(0))), vec![0, 1, 2, 3]);
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![0], "only the fast retransmission");
    for _ in 0..2 {
        s.handle_ack(ms(100), &ack(0));
    }
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 7.0, "cwnd is inflated");
    assert!(drain(&mut s, ms(100)).is_empty(), "but nothing beyond snd_una + rwnd goes out");
    assert_eq!(s.flight_size(), 4);
}
