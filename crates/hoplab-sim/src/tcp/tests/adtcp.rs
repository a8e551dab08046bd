//! ADTCP (Fu et al., ICNP 2002): the receiver's detector classifies
//! synthetic arrival patterns; the sender reduces its window only for
//! congestion, and freezes and probes on a disconnection.

use super::support::{ack, cfg, data, drain, ms, seqnos};
use crate::tcp::adtcp::{Detector, Level, NetState, Params, TIMESTAMP_OPTION};
use crate::tcp::{TcpConfig, TcpSender, TcpSink, Variant};
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

const B: u32 = 1460;

/// Segments 0..n sent every 10 ms and arriving 50 ms later: a steady path.
fn steady(n: u64) -> Detector {
    let mut d = Detector::new(Params::default());
    for i in 0..n {
        d.on_arrival(ms(50 + 10 * i), ms(10 * i), i, B);
    }
    d
}

#[test]
fn steady_arrivals_are_normal() {
    let d = steady(200);
    assert_eq!(d.state(ms(50 + 10 * 199)), NetState::Normal);
}

#[test]
fn growing_delay_and_falling_throughput_is_congestion() {
    let mut d = steady(200);
    // Same departures every 10 ms; each arrival 2 ms later than the last
    // spacing: a queue builds, so IDD grows and the throughput falls.
    let mut r = 50 + 10 * 199;
    for (k, i) in (200..230).enumerate() {
        r += 10 + 2 * (k as u64 + 1);
        d.on_arrival(ms(r), ms(10 * i), i, B);
    }
    assert_eq!(d.levels()[0], Level::High, "IDD");
    assert_eq!(d.levels()[1], Level::Low, "STT");
    assert_eq!(d.state(ms(r)), NetState::Congestion);
}

#[test]
fn high_loss_with_normal_delay_is_channel_error() {
    let mut d = steady(200);
    // Every third segment is lost; the others keep their timing exactly.
    for i in (200..260).filter(|i| i % 3 != 0) {
        d.on_arrival(ms(50 + 10 * i), ms(10 * i), i, B);
    }
    // The arrival right after a hole of two (260, 261): PLR is high, IDD is not.
    d.on_arrival(ms(50 + 10 * 262), ms(10 * 262), 262, B);
    assert_eq!(d.levels()[3], Level::High, "PLR");
    assert_ne!(d.levels()[0], Level::High, "IDD");
    assert_eq!(d.state(ms(50 + 10 * 262)), NetState::ChannelError);
}

#[test]
fn out_of_order_burst_is_route_change() {
    let mut d = steady(200);
    // A new, shorter path: 205..210 overtake 200..204, which arrive after them.
    let order = [205, 206, 207, 208, 209, 210, 200, 201, 202, 203, 204];
    let mut t = 50 + 10 * 199;
    for &i in &order {
        t += 5;
        d.on_arrival(ms(t), ms(10 * i), i, B);
    }
    assert_eq!(d.levels()[2], Level::High, "POR");
    assert_eq!(d.state(ms(t)), NetState::RouteChange);
}

#[test]
fn long_silence_is_disconnection_and_the_next_arrival_reports_it() {
    let mut d = steady(200);
    let last = ms(50 + 10 * 199);
    assert_eq!(d.state(last + Dur::from_millis(500)), NetState::Normal);
    assert_eq!(d.state(last + Dur::from_millis(1500)), NetState::Disconnection);
    // A segment after 3 s of silence: its ACK still says disconnection, ...
    d.on_arrival(last + Dur::from_millis(3000), ms(10 * 200 + 2950), 200, B);
    assert_eq!(d.state(last + Dur::from_millis(3000)), NetState::Disconnection);
    // ... the next one no longer does.
    d.on_arrival(last + Dur::from_millis(3010), ms(10 * 200 + 2960), 201, B);
    assert_ne!(d.state(last + Dur::from_millis(3010)), NetState::Disconnection);
}

#[test]
fn sink_acks_carry_the_state_and_data_carries_the_timestamp() {
    let c = TcpConfig { adtcp: true, ..cfg(Variant::NewReno, 3) };
    let mut k = TcpSink::new(0, &c);
    k.handle_segment_sent(ms(50), &data(0), ms(0));
    assert_eq!(k.poll_transmit(ms(50)).unwrap().adtcp, Some(NetState::Normal));
    let mut plain = TcpSink::new(0, &cfg(Variant::NewReno, 3));
    plain.handle_segment_sent(ms(50), &data(0), ms(0));
    assert_eq!(plain.poll_transmit(ms(50)).unwrap().adtcp, None, "off by default");
    let mut s = TcpSender::new(0, &c, None, false);
    let segs = drain(&mut s, SimTime::ZERO);
    assert!(segs.iter().all(|g| g.options == TIMESTAMP_OPTION));
}

fn state_ack(ackno: u64, st: NetState) -> TcpSegment {
    TcpSegment { adtcp: Some(st), ..ack(ackno) }
}

/// An ADTCP sender at cwnd 8 with 4..12 outstanding, the last ACK carrying `st`.
fn grown(st: NetState) -> TcpSender {
    let c = TcpConfig { adtcp: true, ..cfg(Variant::NewReno, 4) };
    let mut s = TcpSender::new(0, &c, None, false);
    drain(&mut s, SimTime::ZERO);
    for a in 1..=4 {
        s.handle_ack(ms(100), &state_ack(a, st));
    }
    assert_eq!(seqnos(&drain(&mut s, ms(100))), (4..12).collect::<Vec<_>>());
    s
}

fn three_dupacks(s: &mut TcpSender, st: NetState) {
    for t in 0..3 {
        s.handle_ack(ms(200 + t), &state_ack(4, st));
    }
}

#[test]
fn congestion_reduces_the_window() {
    let mut s = grown(NetState::Congestion);
    three_dupacks(&mut s, NetState::Congestion);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 4.0, "FlightSize 8 / 2");
    assert_eq!(s.cwnd(), 7.0, "ssthresh + 3");
    assert_eq!(s.stats().adtcp_reactions, [1, 0, 0, 0]);
}

#[test]
fn channel_error_and_route_change_retransmit_without_reduction() {
    for (st, k) in [(NetState::ChannelError, 1), (NetState::RouteChange, 2), (NetState::Disconnection, 3)] {
        let mut s = grown(st);
        let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
        three_dupacks(&mut s, st);
        assert!(!s.in_recovery(), "{st:?}");
        assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh), "{st:?}: window kept");
        let sent = drain(&mut s, ms(202));
        assert_eq!(seqnos(&sent), vec![4], "{st:?}: the missing segment, once");
        assert!(sent[0].retransmit);
        let mut want = [0; 4];
        want[k] = 1;
        assert_eq!(s.stats().adtcp_reactions, want);
        assert_eq!(s.stats().fast_retransmits, 1);
        // More duplicates change nothing; the next new ACK grows the window.
        s.handle_ack(ms(203), &state_ack(4, st));
        assert!(drain(&mut s, ms(203)).is_empty());
        s.handle_ack(ms(300), &state_ack(12, NetState::Normal));
        assert!(s.cwnd() > cwnd);
    }
}

#[test]
fn timeout_without_congestion_freezes_and_probes() {
    let mut s = grown(NetState::Normal);
    let (cwnd, ssthresh, rto) = (s.cwnd(), s.ssthresh(), s.rto());
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    assert!(s.in_standby());
    assert_eq!((s.cwnd(), s.ssthresh(), s.rto()), (cwnd, ssthresh, rto), "no reduction, no backoff");
    // The timeout's retransmission is the first probe; then one per interval.
    assert_eq!(seqnos(&drain(&mut s, t)), vec![4]);
    assert_eq!(s.poll_timeout(), Some(t + Dur::from_millis(2000)));
    s.handle_timeout(t + Dur::from_millis(2000));
    assert_eq!(seqnos(&drain(&mut s, t + Dur::from_millis(2000))), vec![4]);
    // An ACK resumes with the frozen window, going back to snd_una as a
    // timeout does: 5.. are resent under cwnd 8 (+1 for this ACK).
    let r = t + Dur::from_millis(2100);
    s.handle_ack(r, &state_ack(5, NetState::Disconnection));
    assert!(!s.in_standby());
    assert_eq!(s.cwnd(), cwnd + 1.0);
    assert_eq!(seqnos(&drain(&mut s, r)), (5..14).collect::<Vec<_>>());
    assert_eq!(s.poll_timeout(), Some(r + rto));
    assert_eq!(s.stats().adtcp_reactions, [0, 0, 0, 1]);
    assert_eq!((s.stats().timeouts, s.stats().probes), (1, 2));
}

#[test]
fn timeout_under_congestion_is_a_normal_timeout() {
    let mut s = grown(NetState::Congestion);
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    assert!(!s.in_standby());
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 4.0);
    assert_eq!(seqnos(&drain(&mut s, t)), vec![4]);
    assert_eq!(s.stats().adtcp_reactions, [1, 0, 0, 0]);
}
