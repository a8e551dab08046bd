//! Receiver models (`tcp::ack_policy`): which segments the sink ACKs at
//! once, its delayed-ACK timer, and the window it advertises.

use super::support::{data, ms, Pair};
use crate::scenario::{TcpParams, TcpReceiver, WindowClamp};
use crate::tcp::ack_policy::Linux;
use crate::tcp::{TcpConfig, TcpSink};
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

fn linux(max_cwnd: Option<u32>, clamp: WindowClamp) -> TcpConfig {
    TcpConfig { receiver: TcpReceiver::Linux, max_cwnd, clamp, ..TcpConfig::default() }
}

/// Feed segments `from..to`, one every `gap_ms` from `t0_ms`, and return
/// for each the ACKs it released at once (acknos).
fn feed(s: &mut TcpSink, from: u64, to: u64, t0_ms: u64, gap_ms: u64) -> Vec<Vec<u64>> {
    (from..to)
        .map(|i| {
            let t = ms(t0_ms + (i - from) * gap_ms);
            s.handle_segment(t, &data(i));
            std::iter::from_fn(|| s.poll_transmit(t)).map(|a| a.ackno).collect()
        })
        .collect()
}

#[test]
fn linux_with_a_two_segment_clamp_acks_every_segment() {
    // Seed 000 §4.1: the window-update rule of tcp_cleanup_rbuf. Each read
    // doubles what is left of a 2920-byte window (1460 -> 2920).
    let mut s = TcpSink::new(0, &linux(Some(2), WindowClamp::Receiver));
    let got = feed(&mut s, 0, 20, 0, 10);
    assert_eq!(got, (1..=20).map(|a| vec![a]).collect::<Vec<_>>());
    assert_eq!(s.poll_timeout(), None, "no ACK left owed");
}

#[test]
fn linux_with_a_three_segment_clamp_acks_every_second_segment() {
    let mut s = TcpSink::new(0, &linux(Some(3), WindowClamp::Receiver));
    let got = feed(&mut s, 0, 9, 0, 10);
    // Segment 0: the one quick ACK of a 4380-byte window (4380 / 2920 = 1);
    // then an ACK once more than one segment is unacknowledged.
    let want: Vec<Vec<u64>> = vec![vec![1], vec![], vec![3], vec![], vec![5], vec![], vec![7], vec![], vec![9]];
    assert_eq!(got, want);
}

#[test]
fn linux_receiver_is_not_clamped_by_a_sender_cap() {
    // clamp = "sender": the receiver's window is its 64 KB buffer, so even
    // with max_cwnd = 2 it ACKs every second segment after the quick ACKs.
    let mut s = TcpSink::new(0, &linux(Some(2), WindowClamp::Sender));
    let got = feed(&mut s, 0, 40, 0, 10);
    // 64240 / (2 * 1460) = 22 quick ACKs, capped at TCP_MAX_QUICKACKS = 16.
    assert!(got[..16].iter().all(|a| a.len() == 1), "{got:?}");
    assert_eq!(&got[16..20], &[vec![], vec![18], vec![], vec![20]]);
}

#[test]
fn linux_delayed_ack_timer_is_40ms_with_a_handshake_rtt() {
    let mut s = TcpSink::new(0, &linux(Some(3), WindowClamp::Receiver));
    feed(&mut s, 0, 3, 0, 10); // quick ACK, then a pair
    s.handle_segment(ms(100), &data(3));
    assert!(s.poll_transmit(ms(100)).is_none());
    assert_eq!(s.poll_timeout(), Some(ms(140)), "ato = TCP_ATO_MIN");
    s.handle_timeout(ms(140));
    assert_eq!(s.poll_transmit(ms(140)).map(|a| a.ackno), Some(4));
    // The missed timer doubles ato to 80 ms, but an RTT estimate below
    // TCP_DELACK_MIN bounds it to 40 ms (tcp_send_delayed_ack).
    s.handle_segment(ms(300), &data(4));
    assert_eq!(s.poll_timeout(), Some(ms(340)));
}

#[test]
fn linux_timer_adapts_between_40_and_500_ms_without_an_rtt_estimate() {
    // No handshake RTT (a passive open without timestamps): only HZ/2 bounds
    // the timer for full segments, TCP_DELACK_MAX for short ones.
    let mut l = Linux::new(4380, 1460, None);
    let mut t = 0;
    let mut next = |l: &mut Linux, len: u32| {
        t += 1000; // far apart: ato is not shrunk by fast arrivals
        (l.on_in_order(ms(t), len, true), SimTime(t * 1_000_000))
    };
    let (now, _) = next(&mut l, 1460);
    assert!(now, "the first segment gets a quick ACK");
    l.on_ack_sent();
    let mut timeouts = Vec::new();
    for _ in 0..6 {
        let (now, at) = next(&mut l, 1460);
        assert!(!now);
        let d = l.deadline().unwrap();
        timeouts.push((d.0 - at.0) / 1_000_000);
        assert!(l.on_timeout(d));
        l.on_ack_sent();
    }
    assert_eq!(timeouts, vec![40, 80, 160, 320, 500, 500]);
    // A short segment (PUSHED) lowers the bound to TCP_DELACK_MAX; read at
    // once with nothing else buffered, it is ACKed at once anyway.
    let (now, _) = next(&mut l, 100);
    assert!(now, "a pushed segment that empties the buffer is ACKed when read");
    assert!(l.ato() >= Dur::from_millis(500));
}

#[test]
fn linux_ato_shrinks_towards_40ms_when_segments_come_fast() {
    let mut l = Linux::new(4380, 1460, None); // one quick ACK
    l.on_in_order(ms(0), 1460, true);
    l.on_ack_sent();
    // Force the ato up with two missed timers, then feed segments 10 ms apart.
    for k in 1..=2u64 {
        l.on_in_order(ms(k * 1000), 1460, true);
        let d = l.deadline().unwrap();
        l.on_timeout(d);
        l.on_ack_sent();
    }
    assert!(l.ato() > Dur::from_millis(40));
    let ato_before = l.ato();
    for k in 0..10u64 {
        l.on_in_order(ms(5000 + 10 * k), 1460, true);
    }
    assert!(l.ato() < ato_before);
    assert!(l.ato() <= Dur::from_millis(41), "m <= TCP_ATO_MIN/2: ato -> ato/2 + 20 ms ({:?})", l.ato());
}

#[test]
fn linux_reordering_and_duplicates_enter_quickack_mode() {
    let mut s = TcpSink::new(0, &TcpConfig { receiver: TcpReceiver::Linux, ..TcpConfig::default() });
    feed(&mut s, 0, 40, 0, 10); // past the 16 initial quick ACKs: every second segment
    assert_eq!(feed(&mut s, 40, 42, 400, 10), vec![vec![], vec![42]]);
    // Segment 42 lost; 43 arrives out of order: a duplicate ACK and quick mode.
    s.handle_segment(ms(500), &data(43));
    assert_eq!(s.poll_transmit(ms(500)).map(|a| a.ackno), Some(42));
    s.handle_segment(ms(510), &data(42)); // fills the hole: ACK at once
    assert_eq!(s.poll_transmit(ms(510)).map(|a| a.ackno), Some(44));
    // Quick ACKs continue for in-order data (16 granted, 2 spent).
    let got = feed(&mut s, 44, 50, 520, 10);
    assert!(got.iter().all(|a| a.len() == 1), "{got:?}");
    // A duplicate is ACKed at once.
    s.handle_segment(ms(600), &data(10));
    assert_eq!(s.poll_transmit(ms(600)).map(|a| a.ackno), Some(50));
}

#[test]
fn every_and_ns2_models() {
    let mut every = TcpSink::new(0, &TcpConfig { receiver: TcpReceiver::Every, ..TcpConfig::default() });
    assert_eq!(feed(&mut every, 0, 3, 0, 10), vec![vec![1], vec![2], vec![3]]);
    let mut ns2 = TcpSink::new(0, &TcpConfig::default());
    assert_eq!(feed(&mut ns2, 0, 4, 0, 10), vec![vec![], vec![2], vec![], vec![4]]);
    // delayed_ack = false overrides any model with "every".
    let c = TcpConfig { receiver: TcpReceiver::Linux, delayed_ack: false, ..TcpConfig::default() };
    assert_eq!(c.receiver_model(), TcpReceiver::Every);
}

#[test]
fn acks_advertise_the_window() {
    let ack_window = |c: &TcpConfig| {
        let mut s = TcpSink::new(0, c);
        s.handle_segment(ms(0), &data(0));
        s.handle_segment(ms(1), &data(1));
        let a: Vec<TcpSegment> = std::iter::from_fn(|| s.poll_transmit(ms(1))).collect();
        a.last().unwrap().window
    };
    assert_eq!(ack_window(&TcpConfig::default()), Some(65_535));
    let clamped = TcpConfig { max_cwnd: Some(2), ..TcpConfig::default() };
    assert_eq!(ack_window(&clamped), Some(65_535), "a sender cap leaves the receiver's window alone");
    let rcv = TcpConfig { clamp: WindowClamp::Receiver, ..clamped.clone() };
    assert_eq!(ack_window(&rcv), Some(2 * 1460));
    assert_eq!(rcv.cwnd_clamp(), None);
    assert_eq!(clamped.cwnd_clamp(), Some(2));
    // Linux rounds its window to a multiple of the segment size.
    assert_eq!(ack_window(&linux(None, WindowClamp::Sender)), Some(44 * 1460));
}

#[test]
fn a_receiver_clamp_bounds_the_flight_but_not_cwnd() {
    let c = TcpConfig { max_cwnd: Some(2), clamp: WindowClamp::Receiver, delayed_ack: false, initial_cwnd: 3, ..TcpConfig::default() };
    let mut p = Pair::new(&c, Some(1460 * 400), Dur::from_millis(20));
    p.clamp = None; // cwnd is not clamped here; the flight is
    assert!(p.run_until_done(SimTime::from_secs_f64(100.0)));
    assert_eq!(p.max_flight, 2, "the advertised window binds");
    assert!(p.sender.cwnd() > 2.0, "cwnd grows past it ({})", p.sender.cwnd());
    // The sender takes a smaller window from an ACK, and ignores older ACKs'.
    let mut s = crate::tcp::TcpSender::new(0, &TcpConfig { delayed_ack: false, initial_cwnd: 10, ..TcpConfig::default() }, None, false);
    assert_eq!(super::support::drain(&mut s, ms(0)).len(), 10);
    let ack = |a: u64, w: u32| TcpSegment { window: Some(w), ..super::support::ack(a) };
    s.handle_ack(ms(10), &ack(5, 3 * 1460));
    assert!(super::support::drain(&mut s, ms(10)).is_empty(), "5..10 outstanding, window 3 from 5");
    s.handle_ack(ms(11), &ack(4, 65_535)); // older than snd_una: ignored
    s.handle_ack(ms(12), &ack(8, 65_535));
    assert!(!super::support::drain(&mut s, ms(12)).is_empty());
}

#[test]
fn scenario_fields_reach_the_config() {
    let p = TcpParams { receiver: Some(TcpReceiver::Linux), clamp: Some(WindowClamp::Receiver), ..TcpParams::default() };
    let c = TcpConfig::from_params(&p);
    assert_eq!((c.receiver, c.clamp, c.delayed_ack), (TcpReceiver::Linux, WindowClamp::Receiver, true));
    let c = TcpConfig::from_params(&TcpParams { delayed_ack: Some(false), ..TcpParams::default() });
    assert_eq!((c.receiver, c.receiver_model()), (TcpReceiver::Every, TcpReceiver::Every));
    let c = TcpConfig::from_params(&TcpParams { receiver: Some(TcpReceiver::Every), ..TcpParams::default() });
    assert!(!c.delayed_ack);
}
