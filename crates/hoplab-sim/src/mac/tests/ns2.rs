//! ns-2.35's `Mac802_11` rules, each an option of `[mac]` (off by default):
//! `cts_needs_idle`, `capture_nav`, `eifs_nav`, `rts_threshold_basis`.
//! Sources: ns-2.35 mac/mac-802_11.cc, named in each test.

use super::support::*;
use crate::mac::{MacEvent, MacTimer};
use crate::mac::config::RtsThresholdBasis;
use crate::scenario::Mac;
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
