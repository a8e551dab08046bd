//! Virtual carrier sense: the NAV (IEEE 802.11-1999 §9.2.1, §9.2.5.4).

use std::collections::BTreeSet;

use super::support::*;
use crate::mac::MacTimer;
use crate::wire::{Frame, FrameKind};

/// Overhear `f` at t = 1 ms on a fresh station; return it with the end of the frame.
fn overhear(seed: u64, f: &Frame) -> (Station, crate::time::SimTime) {
    let mut st = Station::new(seed, NO_RTS);
    st.advance_to(at_us(1000));
    st.rx(f);
    let end = st.now;
    (st, end)
}

#[test]
fn overheard_rts_cts_and_data_set_nav_to_frame_end_plus_duration() {
    // §9.2.5.4: the NAV is set from the Duration field of frames addressed
    // to other stations, counted from the end of the frame.
    for f in [rts(THIRD, OTHER, 6942), cts(THIRD, 6628), data(THIRD, OTHER, 0, false, make_data_packet(1, 1500))] {
        let (st, end) = overhear(1, &f);
        let expect = end + us(f.duration_us as u64);
        assert_eq!(st.deadline(MacTimer::Nav), Some(expect), "{:?}", f.kind);
    }
    let (_, end) = overhear(1, &rts(THIRD, OTHER, 6942));
    assert_eq!(end, at_us(1000) + RTS_TIME);
}

#[test]
fn access_is_deferred_until_nav_end_plus_difs() {
    // §9.2.1: the medium is busy while the NAV is set, whatever the PHY
    // says; a packet arriving then waits for NAV end + DIFS + backoff.
    let mut seen = BTreeSet::new();
    for seed in 0..32 {
        let (mut st, end) = overhear(seed, &rts(THIRD, OTHER, 6942));
        let nav_end = end + us(6942);
        st.advance(us(1000));
        st.enqueue(make_data_packet(1, 1000), PEER);
        assert_eq!(st.deadline(MacTimer::Access), None, "no access under the NAV");
        assert_eq!(st.fire(MacTimer::Nav), nav_end);
        let t = st.fire(MacTimer::Access);
        st.expect_transmit(FrameKind::Data);
        let k = backoff_slots(t - nav_end, DIFS);
        assert!(k <= CW_MIN);
        seen.insert(k);
    }
    assert!(seen.len() >= 8, "backoffs: {seen:?}");

    // No packet during the NAV: one arriving 20 µs after it goes at NAV end + DIFS.
    let (mut st, end) = overhear(1, &cts(THIRD, 1000));
    let nav_end = end + us(1000);
    st.fire(MacTimer::Nav);
    st.advance(us(20));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), nav_end + DIFS);
    st.expect_transmit(FrameKind::Data);
}

#[test]
fn shorter_later_duration_does_not_shrink_nav() {
    // §9.2.5.4: the NAV is updated only when the new value is greater.
    let (mut st, end) = overhear(1, &rts(THIRD, OTHER, 6942));
    let nav_end = end + us(6942);
    st.advance(SIFS);
    st.rx(&cts(THIRD, 1000));
    assert_eq!(st.deadline(MacTimer::Nav), Some(nav_end));
    // Past where the shorter NAV would have ended, the medium is still busy.
    st.advance(us(2000));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.deadline(MacTimer::Access), None);
    assert_eq!(st.fire(MacTimer::Nav), nav_end);
    let t = st.fire(MacTimer::Access);
    assert!(backoff_slots(t - nav_end, DIFS) <= CW_MIN);
}

#[test]
fn longer_later_duration_extends_nav() {
    let (mut st, end) = overhear(1, &cts(THIRD, 1000));
    assert_eq!(st.deadline(MacTimer::Nav), Some(end + us(1000)));
    st.advance(us(100));
    st.rx(&rts(OTHER, THIRD, 6942));
    assert_eq!(st.deadline(MacTimer::Nav), Some(st.now + us(6942)));
}

#[test]
fn frames_addressed_to_us_do_not_set_nav() {
    // §9.2.5.4: only frames whose RA is not this STA update the NAV.
    let (mut st, _) = overhear(1, &data(PEER, ME, 0, false, make_data_packet(1, 1500)));
    assert_eq!(st.deadline(MacTimer::Nav), None);
    st.expect_deliver();
    let (st, _) = overhear(1, &rts(PEER, ME, 6942));
    assert_eq!(st.deadline(MacTimer::Nav), None);
}

#[test]
fn ack_is_sent_even_while_nav_is_set() {
    // §9.2.8: the ACK goes SIFS after the DATA without regard to the busy
    // state of the medium (which includes the NAV).
    let (mut st, _) = overhear(1, &cts(THIRD, 20_000));
    st.advance(us(100));
    st.rx(&data(PEER, ME, 0, false, make_data_packet(1, 1500)));
    let end = st.now;
    st.expect_deliver();
    assert_eq!(st.fire(MacTimer::Sifs), end + SIFS);
    st.expect_transmit(FrameKind::Ack);
}

// ----- NAV reset after an RTS (§9.2.5.4), `[mac] nav_reset` -----

/// A station with the NAV reset on, that overheard an RTS at t = 1 ms.
fn overhear_rts_with_reset(seed: u64) -> (Station, crate::time::SimTime) {
    let m = crate::scenario::Mac { rts_threshold: NO_RTS, nav_reset: true, ..crate::scenario::Mac::default() };
    let mut st = Station::with_mac(seed, &m);
    st.advance_to(at_us(1000));
    st.rx(&rts(THIRD, OTHER, 6942));
    let end = st.now;
    (st, end)
}

/// §9.2.5.4: 2 x aSIFSTime + CTS_Time + 2 x aSlotTime after the RTS's end.
const NAV_RESET_WINDOW: crate::time::Dur = crate::time::Dur::from_micros(2 * 10 + 304 + 2 * 20);

#[test]
fn nav_reset_frees_the_medium_when_no_frame_follows_the_rts() {
    let (mut st, end) = overhear_rts_with_reset(1);
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.deadline(MacTimer::Access), None, "the RTS's NAV holds the packet");
    // No CTS and no DATA: at the end of the window the NAV is reset, and
    // the packet goes after DIFS plus a backoff, 6.6 ms before the RTS's
    // NAV would have ended.
    assert_eq!(st.fire(MacTimer::Nav), end + NAV_RESET_WINDOW);
    let t = st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    assert!(backoff_slots(t - (end + NAV_RESET_WINDOW), DIFS) <= CW_MIN);
    assert!(t < end + us(6942));
}

#[test]
fn nav_reset_does_not_happen_when_a_frame_starts_in_the_window() {
    // The CTS is not decodable here (hidden responder), but its start is
    // sensed: the exchange goes on, so the NAV stays until its end.
    let (mut st, end) = overhear_rts_with_reset(1);
    st.advance(SIFS);
    st.rx_error(CTS_TIME);
    assert_eq!(st.deadline(MacTimer::Nav), Some(end + us(6942)));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Nav), end + us(6942));
    let t = st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    // EIFS: the last frame sensed (the CTS) was not received correctly.
    assert!(backoff_slots(t - (end + us(6942)), EIFS) <= CW_MIN);
}

#[test]
fn nav_reset_applies_only_to_a_nav_set_by_an_rts() {
    // A CTS-set NAV is kept for its whole duration, with the option on.
    let m = crate::scenario::Mac { rts_threshold: NO_RTS, nav_reset: true, ..crate::scenario::Mac::default() };
    let mut st = Station::with_mac(1, &m);
    st.advance_to(at_us(1000));
    st.rx(&cts(THIRD, 6628));
    let end = st.now;
    assert_eq!(st.deadline(MacTimer::Nav), Some(end + us(6628)));
    // And with the option off (the default, as ns-2), an RTS's NAV is kept too.
    let (st, end) = overhear(1, &rts(THIRD, OTHER, 6942));
    assert!(!crate::scenario::Mac::default().nav_reset);
    assert_eq!(st.deadline(MacTimer::Nav), Some(end + us(6942)));
}
