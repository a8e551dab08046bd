//! The RTS/CTS/DATA/ACK exchange, its Duration fields and the responder's
//! side (IEEE 802.11-1999 §7.2.1, §7.2.2, §9.2, §9.2.6, §9.2.8, §9.2.9).

use super::support::*;
use crate::mac::{MacEvent, MacTimer};
use crate::scenario;
use crate::wire::{FrameKind, PacketType, BROADCAST};

/// RTS Duration for a 1500-byte datagram at 2 Mbit/s (§7.2.1.1):
/// 3 × SIFS + CTS + DATA + ACK = 30 + 304 + 6304 + 304 µs.
const RTS_DUR_1500: u32 = 6942;

/// Named fixture: a station that has just finished sending an RTS for a
/// 1500-byte datagram to `PEER`; the clock is at the end of the RTS.
fn station_after_rts(seed: u64) -> Station {
    let mut st = Station::new(seed, 0);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Rts);
    st.finish_tx();
    st
}

#[test]
fn airtimes_are_the_standards() {
    let st = Station::new(1, 0);
    assert_eq!(st.dcf.airtime(&rts(ME, PEER, 0)), RTS_TIME);
    assert_eq!(st.dcf.airtime(&cts(PEER, 0)), CTS_TIME);
    assert_eq!(st.dcf.airtime(&ack(PEER)), ACK_TIME);
    assert_eq!(data_time(1500), us(6304));
    assert_eq!(st.dcf.airtime(&data(ME, PEER, 0, false, make_data_packet(1, 1500))), data_time(1500));
}

#[test]
fn unicast_starts_with_rts_covering_the_whole_exchange() {
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    assert_eq!(st.fire(MacTimer::Access), at_us(1000));
    let f = st.expect_transmit(FrameKind::Rts);
    assert_eq!((f.src, f.dst, f.retry), (ME, PEER, false));
    assert_eq!(f.duration_us, RTS_DUR_1500);
    assert!(f.packet.is_none());
    st.finish_tx();
    assert_eq!(st.now, at_us(1000) + RTS_TIME);
}

#[test]
fn rts_duration_is_rounded_up_to_microseconds() {
    // §7.1.3.2 / §7.2.1.1: at 11 Mbit/s the DATA lasts 192 + 1528·8/11 =
    // 1303.27 µs, so 30 + 304 + 1303.27 + 304 = 1941.27 µs -> 1942.
    let m = scenario::Mac { data_rate_mbps: 11.0, rts_threshold: 0, ..scenario::Mac::default() };
    let mut st = Station::with_mac(1, &m);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    assert_eq!(st.expect_transmit(FrameKind::Rts).duration_us, 1942);
}

#[test]
fn cts_releases_data_sifs_after_it_and_ack_completes() {
    let mut st = station_after_rts(1);
    st.advance(SIFS);
    st.rx(&cts(ME, RTS_DUR_1500 - 314));
    let cts_end = st.now;
    assert_eq!(st.deadline(MacTimer::Timeout), None, "the CTS cancels the CTS timeout");
    // §9.2.5.1 (Figure 53): DATA SIFS after the CTS.
    assert_eq!(st.fire(MacTimer::Sifs), cts_end + SIFS);
    let f = st.expect_transmit(FrameKind::Data);
    assert_eq!((f.src, f.dst, f.retry), (ME, PEER, false));
    // §7.2.2: Duration of a unicast DATA = SIFS + ACK = 314 µs.
    assert_eq!(f.duration_us, 314);
    assert_eq!(f.packet, Some(make_data_packet(1, 1500)));
    st.finish_tx();
    assert_eq!(st.now, cts_end + SIFS + data_time(1500));
    st.advance(SIFS);
    st.rx(&ack(ME));
    assert_eq!(st.expect_tx_ok(), PEER);
    assert_eq!(st.deadline(MacTimer::Timeout), None);
    assert!(st.dcf.is_ready());
}

#[test]
fn rts_threshold_applies_to_mpdus_longer_than_it() {
    // dot11RTSThreshold: RTS/CTS for MPDUs longer than the threshold. A
    // 1500-byte datagram makes a 1528-byte MPDU.
    for (threshold, first) in [(NO_RTS, FrameKind::Data), (1528, FrameKind::Data), (1527, FrameKind::Rts), (0, FrameKind::Rts)] {
        let mut st = Station::new(1, threshold);
        st.advance_to(at_us(1000));
        st.enqueue(make_data_packet(1, 1500), PEER);
        st.fire(MacTimer::Access);
        st.expect_transmit(first);
    }
    // Without RTS, DATA goes at once and waits for its ACK.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st.fire(MacTimer::Access);
    let f = st.expect_transmit(FrameKind::Data);
    assert_eq!((f.dst, f.duration_us), (PEER, 314));
}

#[test]
fn broadcast_goes_without_rts_or_ack() {
    // §9.2.7: broadcast MPDUs use no RTS/CTS, are not acknowledged and
    // carry a Duration of 0 (§7.2.2).
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), BROADCAST);
    st.fire(MacTimer::Access);
    let f = st.expect_transmit(FrameKind::Data);
    assert_eq!((f.dst, f.duration_us), (BROADCAST, 0));
    st.finish_tx();
    assert_eq!(st.now, at_us(1000) + data_time(1500));
    assert_eq!(st.expect_tx_ok(), BROADCAST);
    assert_eq!(st.deadline(MacTimer::Timeout), None, "no ACK awaited");
    assert!(st.dcf.is_ready());
}

#[test]
fn rts_to_us_is_answered_with_cts_after_sifs() {
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.rx(&rts(PEER, ME, RTS_DUR_1500));
    let rts_end = st.now;
    assert_eq!(st.fire(MacTimer::Sifs), rts_end + SIFS);
    let f = st.expect_transmit(FrameKind::Cts);
    assert_eq!(f.dst, PEER);
    // §7.2.1.2: the RTS Duration minus SIFS and the CTS time: 6942 - 314.
    assert_eq!(f.duration_us, 6628);
    st.finish_tx();
    assert_eq!(st.now, rts_end + SIFS + CTS_TIME);
}

#[test]
fn rts_is_not_answered_while_nav_is_set() {
    // §9.2.5.4 / §9.2.6: a STA addressed by an RTS responds with CTS only
    // if its NAV indicates that the medium is idle.
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    st.rx(&cts(OTHER, 2000));
    let nav_end = st.now + us(2000);
    assert_eq!(st.deadline(MacTimer::Nav), Some(nav_end));
    st.advance(us(100));
    st.rx(&rts(PEER, ME, RTS_DUR_1500));
    assert!(st.now < nav_end);
    assert_eq!(st.deadline(MacTimer::Sifs), None, "no CTS while the NAV is set");
    st.expect_no_events();
    // Once the NAV has expired, the same RTS is answered.
    st.fire(MacTimer::Nav);
    st.advance(us(100));
    st.rx(&rts(PEER, ME, RTS_DUR_1500));
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Cts);
}

#[test]
fn data_to_us_is_delivered_and_acked_after_sifs() {
    // §9.2.8: an ACK SIFS after a correctly received unicast DATA frame.
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    let p = make_data_packet(7, 1500);
    st.rx(&data(PEER, ME, 7, false, p.clone()));
    let end = st.now;
    assert_eq!(st.expect_deliver(), (PEER, p));
    assert_eq!(st.fire(MacTimer::Sifs), end + SIFS);
    let f = st.expect_transmit(FrameKind::Ack);
    // §7.2.1.3: ACK Duration 0 (no More Fragments).
    assert_eq!((f.dst, f.duration_us), (PEER, 0));
    st.finish_tx();
    st.expect_no_events();
}

#[test]
fn retransmitted_data_is_delivered_once_and_acked_again() {
    // §9.2.9: a frame with the Retry bit set whose <TA, sequence number>
    // is in the cache is discarded, but still acknowledged.
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    let p = make_data_packet(7, 1500);
    st.rx(&data(PEER, ME, 7, false, p.clone()));
    assert_eq!(st.expect_deliver(), (PEER, p.clone()));
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Ack);
    st.finish_tx();

    // Our ACK was lost: PEER retries.
    st.advance(us(500));
    st.rx(&data(PEER, ME, 7, true, p.clone()));
    assert!(matches!(st.next_event(), Some(MacEvent::Duplicate { ptype: PacketType::Cbr })));
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Ack);
    st.finish_tx();
    st.expect_no_events();

    // The same sequence number from another transmitter is new.
    st.advance(us(500));
    st.rx(&data(OTHER, ME, 7, true, p.clone()));
    assert_eq!(st.expect_deliver().0, OTHER);
    st.fire(MacTimer::Sifs);
    st.expect_transmit(FrameKind::Ack);
    st.finish_tx();

    // A retry of PEER's next sequence number was never seen: delivered.
    st.advance(us(500));
    let p8 = make_data_packet(8, 1500);
    st.rx(&data(PEER, ME, 8, true, p8.clone()));
    assert_eq!(st.expect_deliver(), (PEER, p8));
}

#[test]
fn broadcast_data_is_delivered_without_ack() {
    let mut st = Station::new(1, 0);
    st.advance_to(at_us(1000));
    let p = make_data_packet(7, 500);
    st.rx(&data(PEER, BROADCAST, 3, false, p.clone()));
    assert_eq!(st.expect_deliver(), (PEER, p));
    assert_eq!(st.deadline(MacTimer::Sifs), None);
    assert_eq!(st.deadline(MacTimer::Nav), None);
}
