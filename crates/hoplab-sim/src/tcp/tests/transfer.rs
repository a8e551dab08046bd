//! Whole transfers through the fake pipe: completion, exact delivery,
//! traces and stop().

use super::support::{cfg, ms, Lcg, Pair};
use crate::tcp::{TcpConfig, Variant};
use crate::time::{Dur, SimTime};

#[test]
fn lossy_transfer_completes_with_exact_bytes() {
    let total = 1460 * 3000 + 811;
    for variant in [Variant::Reno, Variant::NewReno] {
        for delayed_ack in [false, true] {
            for (seed, loss) in [(1u64, 0.02), (2, 0.1), (3, 0.25)] {
                let c = TcpConfig { delayed_ack, ..cfg(variant, 3) };
                let mut p = Pair::new(&c, Some(total), Dur::from_millis(20));
                p.data_tx = Dur::from_millis(1);
                let mut rd = Lcg(seed * 7919);
                let mut ra = Lcg(seed * 104_729);
                p.drop_data = Box::new(move |_| rd.chance(loss));
                p.drop_ack = Box::new(move |_| ra.chance(loss / 2.0));
                let what = format!("{variant:?} delack {delayed_ack} loss {loss}");
                assert!(p.run_until_done(SimTime::from_secs_f64(100_000.0)), "{what}: did not finish");
                let (tx, rx) = (p.sender.stats().clone(), p.sink.stats().clone());
                assert_eq!(rx.bytes_delivered, total, "{what}");
                assert_eq!(rx.segments_unique, 3001, "{what}");
                assert_eq!(rx.stream_errors, 0, "{what}");
                assert!(tx.retransmissions > 0, "{what}");
                assert_eq!(tx.done_at, Some(p.now), "{what}");
                assert_eq!(tx.segments_sent, p.sent.len() as u64, "{what}");
                assert_eq!(tx.retransmissions, p.sent.iter().filter(|(_, s)| s.retransmit).count() as u64, "{what}");
                // Only the last segment is short.
                assert!(p.sent.iter().all(|(_, s)| s.payload == if s.seqno == 3000 { 811 } else { 1460 }));
                assert!(p.sent.iter().all(|(_, s)| s.seqno <= 3000 && s.ackno == 0 && s.options == 0));
                assert!(tx.rtt_samples > 0 && tx.rtt_sum_s / tx.rtt_samples as f64 >= 0.04, "{what}");
            }
        }
    }
}

#[test]
fn lossless_transfer_has_no_retransmissions() {
    let mut p = Pair::new(&TcpConfig::default(), Some(1_000_000), Dur::from_millis(5));
    p.data_tx = Dur::from_micros(500);
    assert!(p.run_until_done(SimTime::from_secs_f64(100.0)));
    let st = p.sender.stats();
    assert_eq!((st.retransmissions, st.timeouts, st.fast_retransmits), (0, 0, 0));
    assert_eq!(p.sink.stats().bytes_delivered, 1_000_000);
    assert_eq!(p.sink.stats().duplicates, 0);
    assert!(p.sender.is_done());
    assert!(p.sink.stats().acks_sent < 685 / 2 + 10, "delayed ACKs halve the ACK count");
}

#[test]
fn trace_records_only_changes() {
    let mut p = Pair::new(&cfg(Variant::NewReno, 2), Some(1460 * 50), Dur::from_millis(50));
    p.drop_data = Box::new(|s| s.seqno == 20 && !s.retransmit);
    assert!(p.run_until_done(SimTime::from_secs_f64(100.0)));
    let tr = p.sender.take_trace();
    assert!(tr.len() > 5);
    assert_eq!(tr[0].time, SimTime::ZERO);
    assert_eq!((tr[0].cwnd, tr[0].srtt, tr[0].rto), (2.0, None, Dur::from_millis(1000)));
    for w in tr.windows(2) {
        assert!(w[0].time <= w[1].time);
        let same = w[0].cwnd == w[1].cwnd && w[0].ssthresh == w[1].ssthresh && w[0].srtt == w[1].srtt && w[0].rto == w[1].rto;
        assert!(!same, "duplicate sample {:?}", w[1]);
    }
    assert!(tr.iter().any(|t| t.ssthresh < 100.0), "the loss shows in ssthresh");
    assert!(p.sender.take_trace().is_empty(), "drained");
}

#[test]
fn no_trace_unless_asked() {
    let mut s = crate::tcp::TcpSender::new(0, &TcpConfig::default(), None, false);
    while s.poll_transmit(ms(0)).is_some() {}
    assert!(s.take_trace().is_empty());
}

#[test]
fn stop_ends_new_data_but_outstanding_data_is_still_recovered() {
    let mut p = Pair::new(&cfg(Variant::NewReno, 4), None, Dur::from_millis(50));
    p.drop_data = Box::new(|s| s.seqno == 9 && !s.retransmit);
    p.run_until(ms(150));
    p.sender.stop();
    assert!(p.sender.is_stopped());
    let highest = p.sent.iter().map(|(_, s)| s.seqno).max().unwrap();
    p.run_until(SimTime::from_secs_f64(30.0));
    assert!(p.sent.iter().all(|(_, s)| s.seqno <= highest), "no new data after stop()");
    assert!(p.sent.iter().any(|(_, s)| s.seqno == 9 && s.retransmit), "lost segment retransmitted");
    assert_eq!(p.sink.rcv_nxt(), highest + 1, "everything sent before stop() delivered");
    assert_eq!(p.sender.poll_timeout(), None);
    assert!(!p.sender.is_done(), "an infinite source is never done");
}
