//! ns-2 Agent/TCP flags as `[tcp]` fields: limited transmit (singledup_),
//! header bytes (useHeaders_), delay_growth_ with the SYN; rfc2988_ is
//! tested with the timer (tcp/rtt.rs).

use super::support::*;
use crate::tcp::{TcpConfig, TcpSender, Variant};
use crate::time::SimTime;

fn limited(variant: Variant, on: bool) -> TcpSender {
    let c = TcpConfig { limited_transmit: on, ..cfg(variant, 4) };
    let mut s = TcpSender::new(0, &c, None, false);
    assert_eq!(seqnos(&drain(&mut s, SimTime::ZERO)), [0, 1, 2, 3]);
    s
}

#[test]
fn limited_transmit_sends_one_new_segment_per_early_dupack() {
    // ns-2 tcp.cc, tcp-reno.cc and tcp-newreno.cc recv all call send_one.
    for variant in [Variant::NewReno, Variant::Tahoe, Variant::Reno] {
        // ns-2 send_one: t_seqno_ <= highest_ack_ + cwnd_ + dupacks_.
        let mut s = limited(variant, true);
        s.handle_ack(ms(100), &ack(0));
        assert_eq!(seqnos(&drain(&mut s, ms(100))), [4], "{variant:?}: first dupack");
        s.handle_ack(ms(101), &ack(0));
        assert_eq!(seqnos(&drain(&mut s, ms(101))), [5], "{variant:?}: second dupack");
        s.handle_ack(ms(102), &ack(0));
        assert_eq!(seqnos(&drain(&mut s, ms(102))), [0], "{variant:?}: the third is fast retransmit");
        assert_eq!(s.stats().fast_retransmits, 1);
    }
    // Off (the default), and for the variant whose ns-2 agent never reads
    // singledup_ (Sack1): nothing until the third dupack.
    assert!(!TcpConfig::default().limited_transmit);
    for (variant, on) in [(Variant::NewReno, false), (Variant::Sack, true)] {
        let mut s = limited(variant, on);
        for t in [100, 101] {
            s.handle_ack(ms(t), &ack(0));
            assert!(drain(&mut s, ms(t)).is_empty(), "{variant:?} {on}");
        }
    }
}

#[test]
fn limited_transmit_respects_the_receive_window_and_the_data_left() {
    // A receive window of 4 segments: nothing beyond it.
    let c = TcpConfig { limited_transmit: true, receive_window: 4 * 1460, ..cfg(Variant::NewReno, 4) };
    let mut s = TcpSender::new(0, &c, None, false);
    assert_eq!(drain(&mut s, SimTime::ZERO).len(), 4);
    s.handle_ack(ms(100), &ack(0));
    assert!(drain(&mut s, ms(100)).is_empty(), "t_seqno_ <= highest_ack_ + wnd_");
    // A clamp of 4 (ns-2's window_ 4) is a window too.
    let c = TcpConfig { limited_transmit: true, max_cwnd: Some(4), ..cfg(Variant::NewReno, 4) };
    let mut s = TcpSender::new(0, &c, None, false);
    assert_eq!(drain(&mut s, SimTime::ZERO).len(), 4);
    s.handle_ack(ms(100), &ack(0));
    assert!(drain(&mut s, ms(100)).is_empty(), "t_seqno_ <= highest_ack_ + wnd_, wnd_ = window_");
    // Four segments of data in all: nothing new to send.
    let c = TcpConfig { limited_transmit: true, ..cfg(Variant::NewReno, 4) };
    let mut s = TcpSender::new(0, &c, Some(4 * 1460), false);
    assert_eq!(drain(&mut s, SimTime::ZERO).len(), 4);
    s.handle_ack(ms(100), &ack(0));
    assert!(drain(&mut s, ms(100)).is_empty(), "t_seqno_ < curseq_");
}

#[test]
fn header_bytes_sets_the_size_of_data_segments_only() {
    use crate::wire::{Body, Packet};
    let size = |seg| Packet::new(1, 0, 1, Body::Tcp(seg), SimTime::ZERO).size();
    for (h, syn) in [(40, false), (0, false), (0, true), (52, true)] {
        let c = TcpConfig { header_bytes: h, syn, ..cfg(Variant::NewReno, 2) };
        let mut s = TcpSender::new(0, &c, None, false);
        let sent = drain(&mut s, SimTime::ZERO);
        let first_data = if syn {
            // tcp.cc output: the SYN is tcpip_base_hdr_size_ (40) bytes whatever useHeaders_.
            assert_eq!((sent[0].syn, size(sent[0].clone())), (true, 40));
            s.handle_ack(ms(100), &ack(1));
            drain(&mut s, ms(100)).remove(0)
        } else {
            sent[0].clone()
        };
        assert_eq!(size(first_data), 1460 + h, "header_bytes {h}, syn {syn}");
    }
    // The sink's ACKs stay 40 bytes (ns-2 TCPSink packetSize_ 40).
    assert_eq!(size(ack(3)), 40);
}

#[test]
fn delay_growth_decides_the_window_around_the_syn() {
    // ns-2 set_initial_window: syn_ && delay_growth_ -> cwnd_ 1, and the
    // SYN's ACK sets windowInit_ (recv: last_ack_ == 0 && delay_growth_).
    let run = |delay_growth: bool| {
        let c = TcpConfig { syn: true, delay_growth, ..cfg(Variant::NewReno, 2) };
        let mut s = TcpSender::new(0, &c, None, false);
        let first = seqnos(&drain(&mut s, SimTime::ZERO));
        s.handle_ack(ms(100), &ack(1));
        (first, s.cwnd(), seqnos(&drain(&mut s, ms(100))))
    };
    assert_eq!(run(true), (vec![0], 2.0, vec![1, 2]));
    // Without: windowInit_ from the start, the SYN one of its two segments;
    // its ACK grows the window as any ACK in slow start does.
    assert_eq!(run(false), (vec![0, 1], 3.0, vec![2, 3]));
    assert!(TcpConfig::default().delay_growth);
    // Without a SYN it changes nothing.
    let c = |dg: bool| TcpConfig { delay_growth: dg, ..cfg(Variant::NewReno, 2) };
    let (mut a, mut b) = (TcpSender::new(0, &c(true), None, false), TcpSender::new(0, &c(false), None, false));
    assert_eq!(seqnos(&drain(&mut a, SimTime::ZERO)), seqnos(&drain(&mut b, SimTime::ZERO)));
}

#[test]
fn ns2_rfc2988_reaches_the_senders_timer() {
    use crate::tcp::RtoEstimator;
    use crate::time::Dur;
    // A 37 ms sample (4 ticks): t_rtxcur_ 120 ms, under minrto_ 200 ms;
    // after a timeout the backed-off RTO is 400 ms with rfc2988_, 240 ms without.
    for (rfc2988, backed_off) in [(true, 400), (false, 240)] {
        let c = TcpConfig { rto_estimator: RtoEstimator::Ns2, ns2_rfc2988: rfc2988, ..cfg(Variant::NewReno, 1) };
        let mut s = TcpSender::new(0, &c, None, false);
        let t0 = SimTime(1_005_000_000);
        assert_eq!(seqnos(&drain(&mut s, t0)), [0]);
        let t1 = SimTime(1_042_000_000);
        s.handle_ack(t1, &ack(1));
        assert_eq!(seqnos(&drain(&mut s, t1)), [1, 2]);
        let expiry = s.poll_timeout().unwrap();
        assert_eq!(expiry, t1 + Dur::from_millis(200), "minrto_ either way");
        s.handle_timeout(expiry);
        assert_eq!(s.poll_timeout(), Some(expiry + Dur::from_millis(backed_off)), "rfc2988_ {rfc2988}");
    }
}

#[test]
fn ns2_recover_gate_needs_one_segment_beyond_recover() {
    // A fast retransmit of 0 sets recover to 3; an ACK of exactly 3 (next
    // expected 4) opens RFC 6582's gate, and ns-2's only beyond it
    // (tcp.cc dupack_action: highest_ack_ > recover_).
    for (ns2, want) in [(false, 2), (true, 1)] {
        let c = TcpConfig { ns2_recover_gate: ns2, ..cfg(Variant::Tahoe, 4) };
        let mut s = TcpSender::new(0, &c, None, false);
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 4);
        for t in [100, 101, 102] {
            s.handle_ack(ms(t), &ack(0));
        }
        assert_eq!(seqnos(&drain(&mut s, ms(102))), [0], "the third dupack retransmits");
        s.handle_ack(ms(200), &ack(4));
        assert!(!drain(&mut s, ms(200)).is_empty());
        for t in [201, 202, 203] {
            s.handle_ack(ms(t), &ack(4));
        }
        drain(&mut s, ms(203));
        assert_eq!(s.stats().fast_retransmits, want, "ns2_recover_gate {ns2}");
    }
}
