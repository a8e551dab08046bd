//! ns-2.35's `Mac802_11` rules, each an option of `[mac]` (off by default):
//! `cts_needs_idle`, `capture_nav`, `eifs_nav`, `rts_threshold_basis`.
//! Sources: ns-2.35 mac/mac-802_11.cc, named in each test.

use super::support::*;
use crate::mac::{MacEvent, MacTimer};
use crate::mac::config::RtsThresholdBasis;
use crate::scenario::Mac;
use crate::time::{Dur, SimTime};
use crate::wire::FrameKind;

fn ns2_mac(rts_threshold: u32) -> Mac {
    Mac { rts_threshold, cts_needs_idle: true, ..Mac::default() }
}

#[test]
fn ns2_rules_are_off_by_default() {
    let m = Mac::default();
    assert!(!m.cts_needs_idle && !m.capture_nav && !m.eifs_nav);
    assert_eq!(m.rts_threshold_basis, RtsThresholdBasis::Mpdu);
}

#[test]
fn with_cts_needs_idle_the_nav_is_checked_when_the_cts_is_due_not_at_the_rts() {
    // recvRTS checks only tx_state_ and pktCTRL_; check_pktCTRL discards
    // the CTS (DROP_MAC_BUSY) if !is_idle() SIFS after the RTS.
    let mut st = Station::with_mac(1, &ns2_mac(0));
    st.advance_to(at_us(1000));
    st.rx(&cts(OTHER, 2000)); // NAV until this CTS's end + 2 ms
    st.advance(us(100));
    st.rx(&rts(PEER, ME, 6942));
    let rts_end = st.now;
    assert_eq!(st.fire(MacTimer::Sifs), rts_end + SIFS, "a CTS is prepared despite the NAV");
    assert!(matches!(st.next_event(), Some(MacEvent::Withheld)), "and withheld: the NAV is set");
    st.expect_no_events();
    assert_eq!(st.dcf.stats.cts_withheld, 1);
    // With the NAV clear and the medium idle at SIFS, the CTS goes.
    st.fire(MacTimer::Nav);
    st.advance(us(100));
    st.rx(&rts(PEER, ME, 6942));
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Cts);
}

#[test]
fn with_cts_needs_idle_a_frame_sensed_during_sifs_withholds_the_cts() {
    // is_idle() is false while rx_state_ != MAC_IDLE: any reception, even
    // one that cannot be decoded, started in the SIFS before the CTS.
    let mut st = Station::with_mac(1, &ns2_mac(0));
    st.advance_to(at_us(1000));
    st.rx(&rts(PEER, ME, 6942));
    st.advance(us(5));
    st.signal_start();
    st.fire(MacTimer::Sifs);
    assert!(matches!(st.next_event(), Some(MacEvent::Withheld)));
    st.advance(us(400));
    st.signal_end_error();
    st.expect_no_events();
    // Default: the CTS goes regardless of the medium once the RTS was accepted.
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.rx(&rts(PEER, ME, 6942));
    st.advance(us(5));
    st.signal_start();
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Cts);
}

#[test]
fn with_cts_needs_idle_a_busy_medium_after_the_cts_sends_the_rts_again_with_a_doubled_cw() {
    // check_pktTx: `if(! is_idle()) { sendRTS(...); inc_cw(); mhBackoff_.start(cw_, is_idle()); }`
    // No retry is counted: the next attempt is an RTS after DIFS + a
    // backoff in [0, 63] slots, and the short retry limit is still 7.
    let mut seen_above_31 = false;
    for seed in 0..32 {
        let mut st = Station::with_mac(seed, &ns2_mac(0));
        st.advance_to(at_us(1000));
        st.enqueue(make_data_packet(1, 1500), PEER);
        st.fire(MacTimer::Access);
        st.expect_transmit(FrameKind::Rts);
        st.finish_tx();
        st.advance(SIFS);
        st.rx(&cts(ME, 6628));
        st.advance(us(5));
        st.signal_start(); // a frame from elsewhere before our DATA
        st.fire(MacTimer::Sifs);
        st.expect_no_events();
        assert_eq!(st.dcf.stats.data_withheld, 1);
        assert_eq!(st.dcf.stats.retransmissions, 0);
        st.advance(us(300));
        st.signal_end_error();
        let idle = st.now;
        let t = st.fire(MacTimer::Access);
        let slots = backoff_slots(t - idle, EIFS);
        assert!(slots <= CW_AFTER[1]);
        seen_above_31 |= slots > CW_MIN;
        let f = st.expect_transmit(FrameKind::Rts);
        assert!(!f.retry);
    }
    assert!(seen_above_31, "the CW doubled");
}

#[test]
fn capture_nav_sets_the_nav_to_eifs_plus_the_captured_frames_airtime() {
    // Mac802_11::capture: `set_nav(usec(phymib_.getEIFS() + txtime(p)))`.
    let m = Mac { rts_threshold: NO_RTS, capture_nav: true, ..Mac::default() };
    let mut st = Station::with_mac(1, &m);
    st.advance_to(at_us(1000));
    st.signal_start(); // the frame being received
    st.advance(us(100));
    st.signal_start(); // a weaker one the radio drops
    st.dcf.handle_captured(st.now, ACK_TIME);
    let nav_end = st.now + EIFS + ACK_TIME;
    assert_eq!(st.deadline(MacTimer::Nav), Some(nav_end));
    st.advance(ACK_TIME);
    st.signal_end_rx(&ack(OTHER));
    st.advance(us(200));
    st.signal_end_rx(&ack(OTHER));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.deadline(MacTimer::Access), None, "the NAV holds the medium");
    assert_eq!(st.fire(MacTimer::Nav), nav_end);
    let t = st.fire(MacTimer::Access);
    assert!(backoff_slots(t - nav_end, DIFS) <= CW_MIN);
    // Off (default): capture leaves the NAV alone.
    let mut st = Station::new(1, NO_RTS);
    st.dcf.handle_captured(at_us(10), ACK_TIME);
    assert_eq!(st.deadline(MacTimer::Nav), None);
}

#[test]
fn eifs_nav_defers_eifs_then_difs_after_an_error() {
    // recv_timer: `set_nav(usec(phymib_.getEIFS()))` after an error; the
    // backoff resumes with DIFS when the NAV expires (navHandler), so the
    // first slot counts EIFS + DIFS = 414 µs after the error.
    let m = Mac { rts_threshold: NO_RTS, eifs_nav: true, ..Mac::default() };
    for seed in 0..8 {
        let mut st = Station::with_mac(seed, &m);
        st.advance_to(at_us(1000));
        st.signal_start();
        st.advance(us(100));
        st.enqueue(make_data_packet(1, 1000), PEER);
        st.advance(us(400));
        st.signal_end_error();
        let end = st.now;
        assert_eq!(st.deadline(MacTimer::Nav), Some(end + EIFS));
        assert_eq!(st.fire(MacTimer::Nav), end + EIFS);
        let t = st.fire(MacTimer::Access);
        assert!(backoff_slots(t - end, EIFS + DIFS) <= CW_MIN);
        st.expect_transmit(FrameKind::Data);
    }
}

#[test]
fn ns2_rts_threshold_counts_plcp_and_a_34_byte_header_and_uses_rts_from_the_threshold_on() {
    // sendRTS: no RTS if `ch->size() < RTSThreshold_`, ch->size() = IP + 58
    // (getHdrLen11: 24 B PLCP + 30 B header + 4 B FCS). Threshold 300: a
    // 242-byte datagram (300 B) gets RTS, a 241-byte one (299 B) does not.
    // On the MPDU basis (IP + 28 > 300) neither does.
    let ns2 = |t| Mac { rts_threshold: t, rts_threshold_basis: RtsThresholdBasis::Ns2, ..Mac::default() };
    for (m, ip, first) in [
        (ns2(300), 242, FrameKind::Rts),
        (ns2(300), 241, FrameKind::Data),
        (mac_config(300), 242, FrameKind::Data),
        (mac_config(300), 273, FrameKind::Rts),
    ] {
        let mut st = Station::with_mac(1, &m);
        st.advance_to(at_us(1000));
        st.enqueue(make_data_packet(1, ip), PEER);
        st.fire(MacTimer::Access);
        st.expect_transmit(first);
    }
}

#[test]
fn ns2_data_header_makes_data_frames_six_bytes_longer() {
    // ns-2 hdr_mac802_11 has four addresses (30 bytes) before the FCS:
    // getHdrLen11() = 24 B PLCP + 30 + 4. At 2 Mbit/s, 24 µs more a DATA
    // frame, also inside the RTS Duration (6942 + 24).
    let m = Mac { rts_threshold: 0, data_header_bytes: 30, ..Mac::default() };
    let mut st = Station::with_mac(1, &m);
    let f = data(ME, PEER, 0, false, make_data_packet(1, 1500));
    assert_eq!(st.dcf.airtime(&f), data_time(1500) + us(24));
    assert_eq!(st.dcf.airtime(&rts(ME, PEER, 0)), RTS_TIME, "control frames are unchanged");
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    assert_eq!(st.expect_transmit(FrameKind::Rts).duration_us, 6942 + 24);
}

/// The station with `mac.idle_backoff` (and `idle_defer` if asked), a
/// packet arriving at t0 = 1 ms on a long idle medium, and an overheard
/// ACK from t0 + 10 us to t0 + 314 us. Returns when it sent its DATA and,
/// if the defer expired on the busy medium, the wait after the ACK's end.
fn idle_arrival_then_an_ack(seed: u64, idle_defer: bool) -> (SimTime, Option<Dur>) {
    let m = Mac { rts_threshold: NO_RTS, idle_backoff: true, idle_defer, ..Mac::default() };
    let mut st = Station::with_mac(seed, &m);
    let t0 = at_us(1000);
    st.advance_to(t0);
    st.enqueue(make_data_packet(1, 1000), PEER);
    st.advance(us(10));
    st.signal_start();
    let end = t0 + us(314);
    let mut expired_busy = false;
    if st.next_deadline().is_some_and(|(at, _)| at <= end) {
        // Only the defer fires on a busy medium; a backoff is frozen.
        assert!(idle_defer, "the backoff timer paused: nothing fires while busy");
        st.fire(MacTimer::Access);
        st.expect_no_events();
        expired_busy = true;
    }
    st.advance_to(end);
    st.signal_end_rx(&ack(OTHER));
    let t = st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    (t, expired_busy.then(|| t - end))
}

#[test]
fn idle_defer_does_not_pause_and_a_busy_end_doubles_the_cw() {
    // ns-2 Mac802_11::send with bugFix_timer_ false: mhDefer_ for DIFS +
    // k slots from the arrival, running through the busy medium; with
    // bugFix_timer_ true (idle_backoff alone) the backoff timer pauses.
    let t0 = at_us(1000);
    let (mut on_time, mut late, mut beyond_cw_min) = (0, 0, 0);
    for seed in 0..64 {
        // Both draw the same k first: the backoff waits DIFS + k after the ACK.
        let (tb, _) = idle_arrival_then_an_ack(seed, false);
        let k = backoff_slots(tb - (t0 + us(314)), DIFS) as u64;
        let (td, after_busy) = idle_arrival_then_an_ack(seed, true);
        let expiry = t0 + DIFS + SLOT.mul(k);
        if expiry > t0 + us(314) {
            // It expired on an idle medium: sent then, where the paused
            // backoff is later by the 10 us and the ACK's 304 us.
            assert_eq!((td, after_busy), (expiry, None), "seed {seed}, k {k}");
            assert_eq!(tb - td, us(314));
            on_time += 1;
        } else {
            // Busy at expiry: check_pktTx's inc_cw() and a backoff in [0, 63].
            let wait = after_busy.unwrap_or_else(|| panic!("seed {seed}: k {k} expired busy"));
            let k2 = backoff_slots(wait, DIFS);
            assert!(k2 <= 63, "seed {seed}: {k2}");
            beyond_cw_min += (k2 > CW_MIN) as u32;
            late += 1;
        }
    }
    assert!(on_time >= 10 && late >= 10, "{on_time} on time, {late} late");
    assert!(beyond_cw_min >= 3, "the doubled CW was never used: {beyond_cw_min}");
}

#[test]
fn idle_defer_restarts_after_our_ack() {
    // ns-2 tx_resume: a frame that arrives while we owe an ACK starts its
    // defer only when the ACK is done (DIFS + k slots after its end), and a
    // running defer is stopped by a frame we must answer (recvRTS).
    let m = Mac { rts_threshold: NO_RTS, idle_backoff: true, idle_defer: true, ..Mac::default() };
    for seed in 0..16 {
        let mut st = Station::with_mac(seed, &m);
        st.advance_to(at_us(1000));
        st.rx(&data(PEER, ME, 0, false, make_data_packet(9, 200)));
        st.expect_deliver();
        st.enqueue(make_data_packet(1, 1000), PEER); // the ACK is due after SIFS
        st.fire(MacTimer::Sifs);
        st.expect_transmit(FrameKind::Ack);
        st.finish_tx();
        let end = st.now;
        let t = st.fire(MacTimer::Access);
        assert!(backoff_slots(t - end, DIFS) <= CW_MIN, "seed {seed}");
        st.expect_transmit(FrameKind::Data);
    }
    // A defer under way when an RTS for us arrives starts again after the CTS.
    let m = Mac { rts_threshold: 0, idle_backoff: true, idle_defer: true, cts_needs_idle: true, ..Mac::default() };
    let mut tested = 0;
    for seed in 0..32 {
        let mut st = Station::with_mac(seed, &m);
        st.advance_to(at_us(1000));
        st.enqueue(make_data_packet(1, 1000), PEER);
        let first = st.deadline(MacTimer::Access).unwrap();
        st.advance(us(1)); // an RTS from OTHER starts: the defer runs on
        st.signal_start();
        assert_eq!(st.deadline(MacTimer::Access), Some(first), "the defer does not pause");
        if first <= st.now + RTS_TIME {
            continue; // this defer ends inside the RTS: the test above covers that
        }
        tested += 1;
        st.advance(RTS_TIME);
        st.signal_end_rx(&rts(OTHER, ME, 1000));
        assert_eq!(st.deadline(MacTimer::Access), None, "stopped by the RTS we answer");
        st.fire(MacTimer::Sifs);
        st.expect_transmit(FrameKind::Cts);
        st.finish_tx();
        let end = st.now;
        let t = st.deadline(MacTimer::Access).expect("a new defer after the CTS");
        assert!(backoff_slots(t - end, DIFS) <= CW_MIN);
    }
    assert!(tested >= 4, "{tested} seeds with a defer beyond the RTS");
}

#[test]
fn idle_defer_needs_idle_backoff() {
    let base = "duration_s = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing_m = 100.0\n";
    let e = crate::Scenario::from_toml_str(&format!("{base}[mac]\nidle_defer = true\n")).unwrap_err();
    assert_eq!(e.field, "mac.idle_defer", "{e}");
    crate::Scenario::from_toml_str(&format!("{base}[mac]\nidle_defer = true\nidle_backoff = true\n")).unwrap();
    crate::Scenario::from_toml_str(&format!("compat = \"ns2\"\n{base}[mac]\nidle_defer = true\n")).unwrap();
    assert!(!Mac::default().idle_defer);
}
