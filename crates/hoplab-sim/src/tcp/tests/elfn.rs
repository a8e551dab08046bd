//! ELFN standby (Holland & Vaidya 1999): freeze on notification, probe at
//! the interval, resume on an ACK with the frozen window and RTO.

use super::support::{ack, cfg, drain, ms, seqnos};
use crate::tcp::{TcpConfig, TcpSender, Variant};
use crate::time::{Dur, SimTime};

fn elfn_cfg() -> TcpConfig {
    TcpConfig { elfn: true, ..cfg(Variant::NewReno, 4) }
}

/// A sender that got a 100 ms RTT sample and grew to cwnd 8, with segments
/// 4..12 outstanding at 200 ms.
fn grown(c: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(0, c, None, false);
    assert_eq!(seqnos(&drain(&mut s, SimTime::ZERO)), vec![0, 1, 2, 3]);
    for a in 1..=4 {
        s.handle_ack(ms(100), &ack(a));
    }
    assert_eq!(seqnos(&drain(&mut s, ms(100))), (4..12).collect::<Vec<_>>());
    assert_eq!(s.cwnd(), 8.0);
    s
}

#[test]
fn elfn_freezes_window_and_timer_and_probes_at_the_interval() {
    let mut s = grown(&elfn_cfg());
    let (cwnd, ssthresh, rto) = (s.cwnd(), s.ssthresh(), s.rto());
    assert!(s.handle_elfn(ms(150)));
    assert!(s.in_standby());
    assert_eq!((s.cwnd(), s.ssthresh(), s.rto()), (cwnd, ssthresh, rto), "nothing changes");
    // The retransmission timer is stopped: the only deadline is the probe's.
    assert_eq!(s.poll_timeout(), Some(ms(2150)));
    assert!(drain(&mut s, ms(150)).is_empty(), "no data in standby");
    // Waking early (another timer) sends nothing and keeps the deadline.
    s.handle_timeout(ms(1000));
    assert!(drain(&mut s, ms(1000)).is_empty());
    assert_eq!(s.poll_timeout(), Some(ms(2150)));
    // At the interval: one probe, the first unacknowledged segment.
    s.handle_timeout(ms(2150));
    let p = drain(&mut s, ms(2150));
    assert_eq!(seqnos(&p), vec![4]);
    assert!(p[0].retransmit);
    assert_eq!(s.poll_timeout(), Some(ms(4150)));
    s.handle_timeout(ms(4150));
    assert_eq!(seqnos(&drain(&mut s, ms(4150))), vec![4]);
    assert_eq!((s.cwnd(), s.ssthresh(), s.rto()), (cwnd, ssthresh, rto), "still frozen");
    assert_eq!(s.stats().timeouts, 0, "no retransmission timeout in standby");
    assert_eq!(s.rto_time_until(ms(4150)), 0.0);
    // The probe's ACK ends standby: the saved window grows by this ACK as
    // any ACK would (slow start), the RTO is the saved one (no sample from
    // a retransmission, Karn) and the timer restarts.
    s.handle_ack(ms(4250), &ack(5));
    assert!(!s.in_standby());
    assert_eq!(s.cwnd(), cwnd + 1.0);
    assert_eq!((s.ssthresh(), s.rto()), (ssthresh, rto));
    assert_eq!(s.poll_timeout(), Some(ms(4250) + rto));
    let st = s.stats();
    assert_eq!((st.elfn_events, st.probes), (1, 2));
    assert!((st.standby_s - 4.1).abs() < 1e-9, "{}", st.standby_s);
    // And new data flows again under the frozen (now grown) window: 5..14.
    assert_eq!(seqnos(&drain(&mut s, ms(4250))), (12..14).collect::<Vec<_>>());
}

#[test]
fn a_duplicate_ack_also_ends_standby() {
    let mut s = grown(&elfn_cfg());
    s.handle_elfn(ms(150));
    s.handle_ack(ms(300), &ack(4)); // a duplicate of the last cumulative ACK
    assert!(!s.in_standby());
    assert_eq!(s.poll_timeout(), Some(ms(300) + s.rto()));
    assert_eq!(s.dupacks(), 1);
}

#[test]
fn elfn_off_ignores_the_notification() {
    let mut s = grown(&cfg(Variant::NewReno, 4));
    let before = s.poll_timeout();
    assert!(!s.handle_elfn(ms(150)));
    assert!(!s.in_standby());
    assert_eq!(s.poll_timeout(), before);
    assert_eq!(s.stats().elfn_events, 0);
}

#[test]
fn notification_with_nothing_outstanding_is_counted_only() {
    let mut s = TcpSender::new(0, &elfn_cfg(), Some(1460), false);
    drain(&mut s, SimTime::ZERO);
    s.handle_ack(ms(100), &ack(1));
    assert!(s.handle_elfn(ms(200)));
    assert!(!s.in_standby());
    assert_eq!(s.stats().elfn_events, 1);
}

#[test]
fn repeated_notifications_keep_the_probe_schedule() {
    let mut s = grown(&elfn_cfg());
    s.handle_elfn(ms(150));
    s.handle_elfn(ms(1150));
    assert_eq!(s.poll_timeout(), Some(ms(2150)));
    assert_eq!(s.stats().elfn_events, 2);
}

#[test]
fn notification_during_backoff_ends_the_rto_episode() {
    let c = TcpConfig { probe_interval: Dur::from_millis(500), ..elfn_cfg() };
    let mut s = grown(&c);
    let rto = s.rto();
    let armed = s.poll_timeout().unwrap();
    s.handle_timeout(armed);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(s.rto(), Dur(rto.0 * 2), "backed off");
    drain(&mut s, armed);
    // ELFN 100 ms after the timeout: the RTO episode (armed at 100 ms) ends.
    let t = armed + Dur::from_millis(100);
    s.handle_elfn(t);
    let episode = t.since(ms(100)).as_secs_f64();
    assert!((s.rto_time_until(t + Dur::from_millis(5000)) - episode).abs() < 1e-9);
    assert_eq!(s.rto(), Dur(rto.0 * 2), "the backed-off RTO is frozen too");
    assert_eq!(s.poll_timeout(), Some(t + Dur::from_millis(500)), "probe_interval");
}
