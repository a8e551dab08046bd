//! CTSTimeout and ACKTimeout (IEEE 802.11-1999 §9.2.5.7, §9.2.8): SIFS +
//! the response's airtime + one slot (which covers the propagation delay)
//! after the end of our frame.

use super::support::*;
use crate::mac::MacTimer;
use crate::time::{Dur, SimTime};
use crate::wire::FrameKind;

/// SIFS + CTS (or ACK) at 1 Mbit/s + aSlotTime = 10 + 304 + 20 µs.
const RESPONSE_TIMEOUT: Dur = Dur::from_micros(334);

/// Named fixture: RTS for a 1500-byte datagram to `PEER` sent at 1 ms;
/// returns the station (clock at the RTS end) and the RTS end.
fn station_waiting_for_cts() -> (Station, SimTime) {
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Rts);
    st.finish_tx();
    let end = st.now;
    assert_eq!(end, at_us(1000) + RTS_TIME);
    (st, end)
}

#[test]
fn cts_timeout_is_sifs_cts_slot_after_rts_end() {
    let (mut st, rts_end) = station_waiting_for_cts();
    assert_eq!(st.deadline(MacTimer::Timeout), Some(rts_end + RESPONSE_TIMEOUT));
    assert_eq!(st.fire(MacTimer::Timeout), at_us(1000 + 352 + 334));
}

#[test]
fn ack_timeout_is_sifs_ack_slot_after_data_end() {
    // Without RTS.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    assert_eq!(st.now, at_us(1000 + 6304));
    assert_eq!(st.deadline(MacTimer::Timeout), Some(at_us(1000 + 6304 + 334)));

    // After RTS/CTS.
    let (mut st, rts_end) = station_waiting_for_cts();
    st.advance(SIFS);
    st.rx(&cts(ME, 6628));
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    let data_end = rts_end + SIFS + CTS_TIME + SIFS + data_time(1500);
    assert_eq!(st.now, data_end);
    assert_eq!(st.deadline(MacTimer::Timeout), Some(data_end + RESPONSE_TIMEOUT));
    assert_eq!(st.fire(MacTimer::Timeout), data_end + RESPONSE_TIMEOUT);
}

#[test]
fn cts_ending_just_before_the_timeout_is_accepted() {
    // The CTS starts almost a slot late (a long propagation delay) and ends
    // 1 ns before CTSTimeout.
    let (mut st, rts_end) = station_waiting_for_cts();
    let timeout = rts_end + RESPONSE_TIMEOUT;
    st.advance_to(before(timeout, CTS_TIME + Dur(1)));
    st.rx(&cts(ME, 6628));
    assert_eq!(st.now, before(timeout, Dur(1)));
    assert_eq!(st.deadline(MacTimer::Timeout), None);
    assert_eq!(st.fire(MacTimer::Sifs), before(timeout, Dur(1)) + SIFS);
    let f = st.expect_transmit(FrameKind::Data);
    assert!(!f.retry);
}

#[test]
fn cts_after_the_timeout_is_ignored() {
    let (mut st, rts_end) = station_waiting_for_cts();
    st.fire(MacTimer::Timeout);
    st.expect_no_events();
    st.advance(us(1));
    st.rx(&cts(ME, 6628));
    assert_eq!(st.deadline(MacTimer::Sifs), None, "no DATA after a late CTS");
    st.expect_no_events();
    // The exchange starts over with a new RTS (control frames carry no Retry bit, §7.1.3.1.4).
    let t = st.fire(MacTimer::Access);
    assert!(t > rts_end + RESPONSE_TIMEOUT);
    assert!(!st.expect_transmit(FrameKind::Rts).retry);
}

#[test]
fn ack_cancels_the_timeout_and_a_late_ack_is_ignored() {
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    let timeout = st.now + RESPONSE_TIMEOUT;
    // Ending 1 ns before the deadline: accepted.
    st.advance_to(before(timeout, ACK_TIME + Dur(1)));
    st.rx(&ack(ME));
    assert_eq!(st.expect_tx_ok(), PEER);
    assert_eq!(st.deadline(MacTimer::Timeout), None);

    // Next packet: its ACK comes after the timeout and does not count.
    st.enqueue(make_data_packet(2, 1500), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    st.fire(MacTimer::Timeout);
    st.advance(us(1));
    st.rx(&ack(ME));
    st.expect_no_events();
    st.fire(MacTimer::Access);
    assert!(st.expect_transmit(FrameKind::Data).retry);
}
