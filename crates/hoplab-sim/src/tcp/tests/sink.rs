//! The sink: delayed ACKs, duplicate ACKs, reassembly and stream checks.

use super::support::{data, data_len, ms, Lcg};
use crate::tcp::{TcpConfig, TcpSink};
use crate::wire::TcpSegment;

fn delack_sink() -> TcpSink {
    TcpSink::new(3, &TcpConfig::default())
}

fn acknos(s: &mut TcpSink, now_ms: u64) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(ms(now_ms))).map(|a| a.ackno).collect()
}

#[test]
fn delayed_ack_timer_fires_after_100ms_for_one_segment() {
    let mut s = delack_sink();
    s.handle_segment(ms(10), &data(0));
    assert!(acknos(&mut s, 10).is_empty(), "held back");
    assert_eq!(s.poll_timeout(), Some(ms(110)));
    s.handle_timeout(ms(109)); // too early: nothing
    assert!(acknos(&mut s, 109).is_empty());
    s.handle_timeout(ms(110));
    let a = s.poll_transmit(ms(110)).unwrap();
    assert_eq!(a, TcpSegment { flow: 3, seqno: 0, ackno: 1, payload: 0, options: 0, sack: Default::default(), retransmit: false, window: Some(65_535), ecn: Default::default(), adtcp: None, checksum: 0, syn: false, headers: 40 });
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.stats().acks_sent, 1);
}

#[test]
fn acks_every_second_segment() {
    let mut s = delack_sink();
    let mut got = Vec::new();
    for i in 0..6u64 {
        s.handle_segment(ms(i), &data(i));
        got.push(acknos(&mut s, i));
    }
    let want: Vec<Vec<u64>> = vec![vec![], vec![2], vec![], vec![4], vec![], vec![6]];
    assert_eq!(got, want);
    assert_eq!(s.poll_timeout(), None, "timer cancelled by the ACK");
    s.handle_segment(ms(6), &data(6));
    assert_eq!(s.poll_timeout(), Some(ms(106)), "timer started by the first unacked segment");
}

#[test]
fn without_delayed_ack_every_segment_is_acked() {
    let mut s = TcpSink::new(0, &TcpConfig { delayed_ack: false, ..TcpConfig::default() });
    for i in 0..4u64 {
        s.handle_segment(ms(i), &data(i));
        assert_eq!(acknos(&mut s, i), vec![i + 1]);
    }
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn out_of_order_segment_gets_an_immediate_duplicate_ack() {
    let mut s = delack_sink();
    s.handle_segment(ms(0), &data(0));
    s.handle_segment(ms(1), &data(1));
    assert_eq!(acknos(&mut s, 1), vec![2]);
    s.handle_segment(ms(2), &data(3)); // 2 missing
    assert_eq!(acknos(&mut s, 2), vec![2]);
    s.handle_segment(ms(3), &data(4));
    s.handle_segment(ms(3), &data(5));
    assert_eq!(acknos(&mut s, 3), vec![2, 2], "one dup ACK each, even when polled late");
    // Filling the hole: immediate cumulative ACK.
    s.handle_segment(ms(4), &data(2));
    assert_eq!(acknos(&mut s, 4), vec![6]);
    assert_eq!(s.stats().segments_unique, 6);
    assert_eq!(s.stats().bytes_delivered, 6 * 1460);
}

#[test]
fn partial_hole_fill_acks_at_once() {
    let mut s = delack_sink();
    for i in [1u64, 3] {
        s.handle_segment(ms(0), &data(i));
    }
    acknos(&mut s, 0);
    s.handle_segment(ms(1), &data(0)); // fills 0, 1; hole at 2 remains
    assert_eq!(acknos(&mut s, 1), vec![2]);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn duplicate_segment_is_counted_and_acked() {
    let mut s = delack_sink();
    s.handle_segment(ms(0), &data(0));
    s.handle_segment(ms(1), &data(0));
    assert_eq!(acknos(&mut s, 1), vec![1]);
    s.handle_segment(ms(2), &data(2));
    s.handle_segment(ms(3), &data(2)); // duplicate of a buffered segment
    assert_eq!(acknos(&mut s, 3), vec![1, 1]);
    assert_eq!(s.stats().duplicates, 2);
    assert_eq!(s.stats().segments_unique, 1);
    assert_eq!(s.stats().bytes_delivered, 1460);
}

#[test]
fn reassembly_survives_heavy_reordering_and_duplication() {
    // 300 segments, the last one short; every segment sent 1-3 times, shuffled.
    let total: u64 = 299 * 1460 + 123;
    let seg = |i: u64| data_len(i, if i == 299 { 123 } else { 1460 });
    let mut arrivals: Vec<u64> = (0..300).flat_map(|i| std::iter::repeat_n(i, 1 + (i % 3) as usize)).collect();
    let mut rng = Lcg(42);
    for i in (1..arrivals.len()).rev() {
        // Fisher-Yates with the test generator.
        let mut j = 0;
        for bit in 0..16 {
            j |= (rng.chance(0.5) as usize) << bit;
        }
        arrivals.swap(i, j % (i + 1));
    }
    let mut s = TcpSink::new(0, &TcpConfig::default());
    for (k, &i) in arrivals.iter().enumerate() {
        s.handle_segment(ms(k as u64), &seg(i));
        while s.poll_transmit(ms(k as u64)).is_some() {}
    }
    let st = s.stats();
    assert_eq!(st.bytes_delivered, total);
    assert_eq!(st.segments_unique, 300);
    assert_eq!(st.duplicates, arrivals.len() as u64 - 300);
    assert_eq!(st.stream_errors, 0);
    assert_eq!(s.rcv_nxt(), 300);
}

#[test]
fn stream_check_catches_a_short_segment_mid_stream() {
    // The verifier must not be vacuous: a short segment followed by more
    // data leaves a gap in the byte stream.
    let mut s = TcpSink::new(0, &TcpConfig { delayed_ack: false, ..TcpConfig::default() });
    s.handle_segment(ms(0), &data(0));
    s.handle_segment(ms(1), &data_len(1, 100));
    assert_eq!(s.stats().stream_errors, 0);
    s.handle_segment(ms(2), &data(2));
    assert_eq!(s.stats().stream_errors, 1);
}

#[test]
fn ns2_syn_is_a_40_byte_first_segment_acked_at_once_then_the_initial_window() {
    use super::support::{drain, ms, Pair};
    use crate::tcp::config::TcpReceiver;
    use crate::tcp::{TcpSender, Variant};
    use crate::time::Dur;
    let c = crate::tcp::TcpConfig { syn: true, receiver: TcpReceiver::Ns2, ..super::support::cfg(Variant::NewReno, 2) };
    let mut s = TcpSender::new(0, &c, None, false);
    let first = drain(&mut s, ms(0));
    assert_eq!(first.len(), 1, "cwnd 1 for the SYN (tcp.cc set_initial_window)");
    assert!(first[0].syn && first[0].payload == 0 && !first[0].is_pure_ack());
    assert_eq!(crate::wire::TCP_HEADER + first[0].payload + 20, 40, "40 bytes at IP");
    // The DelAck sink ACKs the SYN at once (SYN_immediate_ack_) and delivers no bytes.
    let mut k = crate::tcp::TcpSink::new(0, &c);
    k.handle_segment(ms(10), &first[0]);
    let a = k.poll_transmit(ms(10)).expect("immediate ACK of the SYN");
    assert_eq!(a.ackno, 1);
    assert_eq!((k.stats().bytes_delivered, k.stats().segments_unique), (0, 0));
    // Its ACK opens the window to initial_cwnd (windowInit_), not 1 + 1 from slow start.
    s.handle_ack(ms(20), &a);
    assert_eq!(s.cwnd(), 2.0);
    let next = drain(&mut s, ms(20));
    assert_eq!(next.iter().map(|x| (x.seqno, x.payload, x.syn)).collect::<Vec<_>>(), vec![(1, 1460, false), (2, 1460, false)]);
    // A whole transfer: the stream check sees the right bytes, all delivered.
    let mut p = Pair::new(&c, Some(1460 * 50 + 7), Dur::from_millis(10));
    assert!(p.run_until_done(ms(60_000)));
    assert_eq!(p.sink.stats().bytes_delivered, 1460 * 50 + 7);
    assert_eq!(p.sink.stats().stream_errors, 0);
    assert_eq!(p.sent.iter().filter(|(_, x)| x.syn).count(), 1);
}
