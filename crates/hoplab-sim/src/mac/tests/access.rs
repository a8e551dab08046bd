//! Basic access, backoff and EIFS (IEEE 802.11-1999 §9.2.3, §9.2.5.1,
//! §9.2.5.2, §9.2.10).

use std::collections::BTreeSet;

use super::support::*;
use crate::mac::{MacEvent, MacTimer};
use crate::time::{Dur, SimTime};
use crate::wire::{FrameKind, BROADCAST};

/// Named fixture: a station whose packet arrived while the medium was busy,
/// so that it draws a backoff (§9.2.5.1); the medium went idle at the
/// returned time. Returns the station, that time and the backoff in slots.
fn station_backing_off(seed: u64) -> (Station, SimTime, u32) {
    let mut st = Station::new(seed, NO_RTS);
    st.advance_to(at_us(1000));
    st.signal_start();
    st.advance(us(100));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.deadline(MacTimer::Access), None, "no access while the medium is busy");
    st.advance(ACK_TIME - us(100));
    st.signal_end_rx(&ack(OTHER));
    let idle = st.now;
    let at = st.deadline(MacTimer::Access).expect("access scheduled once the medium is idle");
    let k = backoff_slots(at - idle, DIFS);
    (st, idle, k)
}

/// The first seed whose backoff is at least `min` slots.
fn seed_with_backoff_at_least(min: u32) -> u64 {
    (0..1000).find(|&s| station_backing_off(s).2 >= min).expect("some seed draws a large backoff")
}

#[test]
fn packet_at_medium_idle_for_difs_goes_at_once() {
    // §9.2.5.1: the medium has been idle for >= DIFS, so no deferral.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), at_us(1000));
    st.expect_transmit(FrameKind::Data);

    // Idle for exactly DIFS is enough.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.overhear_ack();
    st.advance(DIFS);
    let now = st.now;
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), now);
    st.expect_transmit(FrameKind::Data);
}

#[test]
fn packet_at_medium_idle_for_less_than_difs_waits_the_rest_of_difs() {
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.overhear_ack();
    let idle = st.now;
    assert_eq!(idle, at_us(1304));
    st.advance(us(30));
    st.enqueue(make_data_packet(1, 1000), PEER);
    // No backoff: the medium was idle when the packet arrived.
    assert_eq!(st.fire(MacTimer::Access), idle + DIFS);
    st.expect_transmit(FrameKind::Data);
}

#[test]
fn packet_at_busy_medium_waits_difs_plus_backoff_within_cwmin() {
    // §9.2.5.1/§9.2.5.2: DIFS after the medium goes idle, then a backoff
    // of Random() × aSlotTime with Random() uniform in [0, CWmin].
    let mut seen = BTreeSet::new();
    for seed in 0..64 {
        let (mut st, idle, k) = station_backing_off(seed);
        assert!(k <= CW_MIN, "seed {seed}: backoff {k} > CWmin");
        assert_eq!(st.fire(MacTimer::Access), idle + DIFS + SLOT.mul(k as u64));
        st.expect_transmit(FrameKind::Data);
        seen.insert(k);
    }
    // A backoff really is drawn over the whole window.
    assert!(seen.len() >= 16, "backoffs drawn: {seen:?}");
    assert!(*seen.last().unwrap() >= 24, "backoffs drawn: {seen:?}");
}

/// A unicast exchange without RTS that completes; the clock is left at the end of the ACK.
fn exchange_data_ack(st: &mut Station, uid: u64) {
    st.enqueue(make_data_packet(uid, 1000), PEER);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    st.advance(SIFS);
    st.rx(&ack(ME));
    assert_eq!(st.expect_tx_ok(), PEER);
}

#[test]
fn post_backoff_follows_a_successful_exchange() {
    // §9.2.5.2: a backoff is performed after every successful transmission,
    // even if no other frame is waiting; a packet arriving during it waits
    // for it: DIFS + k slots after the ACK, k in [0, CWmin].
    let mut seen = BTreeSet::new();
    for seed in 0..64 {
        let mut st = Station::new(seed, NO_RTS);
        st.advance_to(at_us(1000));
        exchange_data_ack(&mut st, 1);
        let ack_end = st.now;
        st.enqueue(make_data_packet(2, 1000), PEER);
        let t = st.fire(MacTimer::Access);
        st.expect_transmit(FrameKind::Data);
        let k = backoff_slots(t - ack_end, DIFS);
        assert!(k <= CW_MIN, "seed {seed}: backoff {k}");
        seen.insert(k);
    }
    assert!(seen.len() >= 16, "post-backoffs drawn: {seen:?}");
}

#[test]
fn packet_after_completed_post_backoff_goes_at_once() {
    let mut st = Station::new(3, NO_RTS);
    st.advance_to(at_us(1000));
    exchange_data_ack(&mut st, 1);
    let ack_end = st.now;
    // The post-backoff runs out with nothing to send.
    let t = st.fire(MacTimer::Access);
    let k = backoff_slots(t - ack_end, DIFS);
    assert!(k <= CW_MIN);
    st.expect_no_events();
    assert_eq!(st.next_deadline(), None);
    st.advance(us(1000));
    let now = st.now;
    st.enqueue(make_data_packet(2, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), now);
    st.expect_transmit(FrameKind::Data);
}

/// Interrupt the countdown of `station_backing_off(seed)` at `busy_at`
/// after the medium went idle, with a 304 µs ACK to someone else; return
/// the (old, new) transmission times and the end of the interruption.
fn interrupt_countdown(seed: u64, busy_at: Dur) -> (SimTime, SimTime, SimTime, u32) {
    let (mut st, idle, k) = station_backing_off(seed);
    let planned = st.deadline(MacTimer::Access).unwrap();
    st.advance_to(idle + busy_at);
    st.signal_start();
    assert_eq!(st.deadline(MacTimer::Access), None, "the backoff freezes while the medium is busy");
    st.advance(ACK_TIME);
    st.signal_end_rx(&ack(OTHER));
    let idle2 = st.now;
    let t = st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    (planned, t, idle2, k)
}

#[test]
fn backoff_freezes_while_busy_and_resumes_with_remaining_slots() {
    // §9.2.5.2: the backoff timer counts down only while the medium is idle
    // after DIFS, is suspended while it is busy and resumes, after another
    // DIFS, with the slots that were left.
    let seed = seed_with_backoff_at_least(6);

    // Busy exactly at the end of the third slot: 3 slots counted, so the
    // transmission is late by the busy time plus one DIFS.
    let (planned, t, _, _) = interrupt_countdown(seed, DIFS + SLOT.mul(3));
    assert_eq!(t, planned + ACK_TIME + DIFS);

    // Busy 7 µs into the third slot: that slot does not count, so the 7 µs
    // are lost as well.
    let (planned, t, _, _) = interrupt_countdown(seed, DIFS + SLOT.mul(2) + us(7));
    assert_eq!(t, planned + ACK_TIME + DIFS + us(7));

    // Busy 1 ns before the third slot ends: still only two slots.
    let (planned, t, _, _) = interrupt_countdown(seed, DIFS + SLOT.mul(3) - Dur(1));
    assert_eq!(t, planned + ACK_TIME + DIFS + (SLOT - Dur(1)));

    // Busy during the DIFS: no slot counted, the whole backoff remains.
    let (_, t, idle2, k) = interrupt_countdown(seed, us(30));
    assert_eq!(t, idle2 + DIFS + SLOT.mul(k as u64));
}

#[test]
fn rx_error_defers_eifs() {
    // §9.2.3.4: after a frame received in error the station defers EIFS
    // (§9.2.10: 10 + 304 + 50 = 364 µs) instead of DIFS.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.rx_error(us(500));
    let idle = st.now;
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), idle + EIFS);
    st.expect_transmit(FrameKind::Data);

    // A packet that arrived during the erroneous frame: EIFS + whole slots.
    for seed in 0..16 {
        let mut st = Station::new(seed, NO_RTS);
        st.advance_to(at_us(1000));
        st.signal_start();
        st.advance(us(100));
        st.enqueue(make_data_packet(1, 1000), PEER);
        st.advance(us(400));
        st.signal_end_error();
        let idle = st.now;
        let t = st.fire(MacTimer::Access);
        assert!(backoff_slots(t - idle, EIFS) <= CW_MIN);
    }
}

#[test]
fn correct_reception_ends_eifs() {
    // §9.2.3.4: an error-free frame resynchronises the station; DIFS again.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.rx_error(us(500));
    st.advance(us(100));
    st.overhear_ack();
    let idle = st.now;
    st.enqueue(make_data_packet(1, 1000), PEER);
    assert_eq!(st.fire(MacTimer::Access), idle + DIFS);
    st.expect_transmit(FrameKind::Data);
}

#[test]
fn eifs_is_not_used_after_our_own_transmission() {
    // §9.2.3.4: the EIFS interval begins when the medium goes idle after the
    // erroneous frame, and §9.2.5.2 uses EIFS only when the last frame
    // detected on the medium was not received correctly. Here the EIFS ran
    // out long ago and the last frame on the medium is our own broadcast:
    // the post-backoff defers DIFS, not EIFS.
    let mut st = Station::new(1, NO_RTS);
    st.advance_to(at_us(1000));
    st.rx_error(us(500));
    st.advance(us(5000));
    st.enqueue(make_data_packet(1, 1000), BROADCAST);
    st.fire(MacTimer::Access);
    st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    assert_eq!(st.expect_tx_ok(), BROADCAST);
    let end = st.now;
    st.enqueue(make_data_packet(2, 1000), BROADCAST);
    let t = st.fire(MacTimer::Access);
    let k = backoff_slots(t - end, DIFS);
    assert!(k <= CW_MIN);
}

#[test]
fn packet_arriving_before_our_ack_draws_a_backoff() {
    // A relay receives a DATA frame and forwards its packet: the packet
    // reaches the MAC at the end of the DATA, the medium has been idle for
    // 0 µs, and our own ACK makes it busy SIFS later. §9.2.5.1 allows
    // transmission without backoff only after the medium was idle for DIFS;
    // otherwise (§9.2.5.2) the station defers and then backs off, so the
    // forwarded frame waits DIFS + Random() × aSlotTime after the ACK.
    let mut seen = BTreeSet::new();
    for seed in 0..32 {
        let mut st = Station::new(seed, NO_RTS);
        st.advance_to(at_us(1000));
        st.rx(&data(PEER, ME, 0, false, make_data_packet(1, 1000)));
        let (from, p) = st.expect_deliver();
        assert_eq!(from, PEER);
        st.enqueue(p, OTHER);
        st.fire(MacTimer::Sifs);
        st.expect_transmit(FrameKind::Ack);
        st.finish_tx();
        let ack_end = st.now;
        let t = st.fire(MacTimer::Access);
        let f = st.expect_transmit(FrameKind::Data);
        assert_eq!(f.dst, OTHER);
        let k = backoff_slots(t - ack_end, DIFS);
        assert!(k <= CW_MIN);
        seen.insert(k);
    }
    assert!(seen.len() >= 8, "backoffs after our ACK: {seen:?}");
}

#[test]
fn medium_busy_during_difs_of_a_packet_without_backoff_draws_one() {
    // The same rule when the interruption is someone else's frame: the
    // packet arrived at an idle medium, but the medium went busy before
    // DIFS elapsed, so it backs off after the next DIFS (§9.2.5.1).
    let mut seen = BTreeSet::new();
    for seed in 0..32 {
        let mut st = Station::new(seed, NO_RTS);
        st.advance_to(at_us(1000));
        st.overhear_ack();
        st.advance(us(20));
        st.enqueue(make_data_packet(1, 1000), PEER);
        st.advance(us(10));
        st.overhear_ack();
        let idle = st.now;
        let t = st.fire(MacTimer::Access);
        let k = backoff_slots(t - idle, DIFS);
        assert!(k <= CW_MIN);
        seen.insert(k);
        assert!(matches!(st.next_event(), Some(MacEvent::Transmit)));
    }
    assert!(seen.len() >= 8, "backoffs: {seen:?}");
}

#[test]
fn with_idle_backoff_a_packet_at_an_idle_medium_waits_difs_and_a_backoff_from_its_arrival() {
    // ns-2 Mac802_11::send (`mac.idle_backoff`): unlike §9.2.5.1, the frame
    // waits DIFS + k slots counted from its arrival, k in [0, CWmin], even
    // after a long idle period; different seeds draw different k.
    let m = crate::scenario::Mac { rts_threshold: NO_RTS, idle_backoff: true, ..crate::scenario::Mac::default() };
    let mut seen = BTreeSet::new();
    for seed in 0..64 {
        let mut st = Station::with_mac(seed, &m);
        st.advance_to(at_us(1000));
        st.enqueue(make_data_packet(1, 1000), PEER);
        let t = st.fire(MacTimer::Access);
        let k = backoff_slots(t - at_us(1000), DIFS);
        assert!(k <= CW_MIN, "seed {seed}: backoff {k} > CWmin");
        st.expect_transmit(FrameKind::Data);
        seen.insert(k);
    }
    assert!(seen.len() >= 16, "backoffs drawn: {seen:?}");
    assert!(!crate::scenario::Mac::default().idle_backoff);
}
