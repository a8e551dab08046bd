//! ECN-capable TCP (RFC 3168 §6.1): CE is echoed as ECE until CWR; the
//! sender halves once per window and sets CWR on the next new segment.

use super::support::{ack, cfg, data, drain, ms, seqnos};
use crate::tcp::{FewParams, TcpConfig, TcpSender, TcpSink, Variant};
use crate::time::SimTime;
use crate::wire::{Ecn, TcpSegment};

fn ecn_cfg(iw: u32) -> TcpConfig {
    TcpConfig { ecn: true, ..cfg(Variant::NewReno, iw) }
}

fn with(seg: TcpSegment, ecn: Ecn) -> TcpSegment {
    TcpSegment { ecn, ..seg }
}

fn ece(a: u64) -> TcpSegment {
    with(ack(a), Ecn { ece: true, ..Ecn::default() })
}

#[test]
fn sink_echoes_ce_as_ece_until_cwr() {
    let mut k = TcpSink::new(0, &ecn_cfg(1));
    let mut feed = |seg: TcpSegment| {
        k.handle_segment(ms(1), &seg);
        k.poll_transmit(ms(1)).expect("an ACK").ecn.ece
    };
    let ect = Ecn { ect: true, ..Ecn::default() };
    assert!(!feed(with(data(0), ect)));
    assert!(feed(with(data(1), Ecn { ce: true, ..ect })), "CE arrives: ECE");
    assert!(feed(with(data(2), ect)), "ECE on every ACK until CWR");
    assert!(feed(with(data(5), ect)), "duplicate ACKs too");
    assert!(!feed(with(data(3), Ecn { cwr: true, ..ect })), "CWR stops the echo");
    assert!(!feed(with(data(4), ect)));
    assert!(feed(with(data(6), Ecn { cwr: true, ce: true, ..ect })), "CWR and CE together: a new echo");
    // Without ECN the sink never echoes.
    let mut k = TcpSink::new(0, &cfg(Variant::NewReno, 1));
    k.handle_segment(ms(1), &with(data(0), Ecn { ce: true, ect: true, ..Ecn::default() }));
    assert!(!k.poll_transmit(ms(1)).unwrap().ecn.ece);
}

#[test]
fn data_carries_ect_retransmissions_and_acks_do_not() {
    let mut s = TcpSender::new(0, &ecn_cfg(3), None, false);
    let out = drain(&mut s, SimTime::ZERO);
    assert!(out.iter().all(|seg| seg.ecn == Ecn { ect: true, ..Ecn::default() }));
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    let _ = s.poll_transmit(ms(100)); // (the window is full: nothing)
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    let rtx = drain(&mut s, t);
    assert!(rtx[0].retransmit && !rtx[0].ecn.ect, "RFC 3168 §6.1.5");
    let mut k = TcpSink::new(0, &ecn_cfg(3));
    k.handle_segment(ms(1), &out[0]);
    assert!(!k.poll_transmit(ms(1)).unwrap().ecn.ect, "§6.1.4: pure ACKs are not ECT");
    // Without ECN nothing is marked.
    let mut s = TcpSender::new(0, &cfg(Variant::NewReno, 3), None, false);
    assert!(drain(&mut s, SimTime::ZERO).iter().all(|seg| seg.ecn == Ecn::default()));
}

#[test]
fn ece_halves_once_per_window_and_cwr_goes_on_the_next_new_segment() {
    let mut s = TcpSender::new(0, &ecn_cfg(10), None, false);
    assert_eq!(drain(&mut s, SimTime::ZERO).len(), 10);
    // ACK 1 with ECE: slow start made cwnd 11, then the reduction:
    // min(cwnd, FlightSize 10) / 2 = 5 for both cwnd and ssthresh.
    s.handle_ack(ms(100), &ece(1));
    assert_eq!((s.cwnd(), s.ssthresh()), (5.0, 5.0));
    assert_eq!(s.stats().ecn_reductions, 1);
    assert!(drain(&mut s, ms(100)).is_empty(), "nine still in flight, cwnd 5");
    // More ECE in the same window: no second reduction.
    for a in 2..=6 {
        s.handle_ack(ms(100 + a), &ece(a));
    }
    assert_eq!(s.stats().ecn_reductions, 1, "one reduction per window");
    assert!(s.cwnd() > 5.0, "the window grows on those ACKs as usual");
    let sent = drain(&mut s, ms(110));
    assert!(!sent.is_empty());
    assert!(sent[0].ecn.cwr, "CWR on the first new data segment after the reduction");
    assert!(sent[1..].iter().all(|seg| !seg.ecn.cwr), "and only on it");
    // ACKs up to the CWR segment may still echo the old mark: ignored.
    let cwr_seq = sent[0].seqno;
    assert_eq!(cwr_seq, 10);
    s.handle_ack(ms(200), &ece(cwr_seq));
    assert_eq!(s.stats().ecn_reductions, 1, "the ACK before the CWR segment echoes the same mark");
    // A retransmission of the CWR segment carries CWR again (not ECT).
    for _ in 0..3 {
        s.handle_ack(ms(205), &ack(cwr_seq));
    }
    let rtx = drain(&mut s, ms(205));
    assert_eq!(rtx[0].seqno, cwr_seq);
    assert_eq!(rtx[0].ecn, Ecn { cwr: true, ..Ecn::default() });
    // Once the CWR segment is acknowledged, ECE is a new mark.
    s.handle_ack(ms(210), &ece(cwr_seq + 1));
    assert_eq!(s.stats().ecn_reductions, 2);
}

#[test]
fn ece_is_ignored_during_fast_recovery_and_without_ecn() {
    let mut s = TcpSender::new(0, &ecn_cfg(10), None, false);
    drain(&mut s, SimTime::ZERO);
    for _ in 0..3 {
        s.handle_ack(ms(100), &ack(0));
    }
    assert!(s.in_recovery());
    s.handle_ack(ms(100), &ece(0));
    assert_eq!(s.stats().ecn_reductions, 0, "the loss reaction already halved this window");
    let mut s = TcpSender::new(0, &cfg(Variant::NewReno, 10), None, false);
    drain(&mut s, SimTime::ZERO);
    s.handle_ack(ms(100), &ece(1));
    assert_eq!((s.stats().ecn_reductions, s.cwnd()), (0, 11.0));
}

#[test]
fn with_few_an_ece_can_take_the_window_below_one_segment() {
    let c = TcpConfig { few: Some(FewParams { alpha: 0.01, w_min: 0.1, ssthresh_min: 0.1 }), ..ecn_cfg(1) };
    let mut s = TcpSender::new(0, &c, None, false);
    drain(&mut s, SimTime::ZERO);
    s.handle_ack(ms(100), &ece(1));
    assert_eq!((s.cwnd(), s.ssthresh()), (0.5, 0.5), "min(cwnd 2, FlightSize 1) / 2");
    assert!(drain(&mut s, ms(100)).is_empty(), "W = 0.5: the next segment waits RTT/W");
    assert_eq!(s.poll_timeout(), Some(ms(200)), "RTT/W = 100 ms / 0.5 after the segment sent at 0");
    // Without FeW the window stays at one segment.
    let mut s = TcpSender::new(0, &ecn_cfg(1), None, false);
    drain(&mut s, SimTime::ZERO);
    s.handle_ack(ms(100), &ece(1));
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 2.0));
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![1]);
}
