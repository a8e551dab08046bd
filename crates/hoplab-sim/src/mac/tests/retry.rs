//! Retransmission: retry counts, limits, the contention window and the
//! Retry bit (IEEE 802.11-1999 §7.1.3.1.4, §9.2.4, §9.2.5.3).

use std::collections::BTreeSet;

use super::support::*;
use crate::mac::MacTimer;
use crate::time::SimTime;
use crate::wire::{Frame, FrameKind};

/// One attempt of `kind` (RTS, or DATA without RTS) that gets no answer.
/// Returns when the attempt started and when its timeout fired.
#[track_caller]
fn attempt_unanswered(st: &mut Station, kind: FrameKind) -> (SimTime, SimTime, Frame) {
    let start = st.fire(MacTimer::Access);
    let f = st.expect_transmit(kind);
    st.finish_tx();
    let timeout = st.fire(MacTimer::Timeout);
    (start, timeout, f)
}

/// RTS, CTS, DATA, and no ACK. Returns the DATA frame.
#[track_caller]
fn attempt_data_unacked(st: &mut Station) -> Frame {
    st.fire(MacTimer::Access);
    let r = st.expect_transmit(FrameKind::Rts);
    st.finish_tx();
    st.advance(SIFS);
    st.rx(&cts(ME, r.duration_us - 314));
    st.fire(MacTimer::Sifs);
    let d = st.expect_transmit(FrameKind::Data);
    st.finish_tx();
    st.fire(MacTimer::Timeout);
    d
}

/// Named fixture: a station at t = 1 ms, idle medium, that has just
/// accepted a 1500-byte datagram (uid 1) for `PEER`.
fn station_with_packet(seed: u64, rts_threshold: u32) -> Station {
    let mut st = Station::new(seed, rts_threshold);
    st.advance_to(at_us(1000));
    st.enqueue(make_data_packet(1, 1500), PEER);
    st
}

#[test]
fn rts_is_sent_short_retry_limit_times_then_the_packet_fails() {
    // §9.2.5.3 / §9.2.4: each CTS timeout increments the short retry count;
    // at dot11ShortRetryLimit (7) the MSDU is discarded and the failure is
    // reported with the packet.
    let mut st = station_with_packet(1, 0);
    for attempt in 0..7 {
        let (_, _, f) = attempt_unanswered(&mut st, FrameKind::Rts);
        // §7.1.3.1.4: Retry is a data/management frame bit; RTS never has it.
        assert!(!f.retry, "attempt {attempt}");
        if attempt < 6 {
            st.expect_no_events();
        }
    }
    let (next_hop, packet) = st.expect_tx_failed();
    assert_eq!((next_hop, packet), (PEER, make_data_packet(1, 1500)));
    st.expect_no_events();
    assert!(st.dcf.is_ready());
    // Only the post-drop backoff is left; no eighth RTS.
    st.fire(MacTimer::Access);
    st.expect_no_events();
    assert_eq!(st.next_deadline(), None);
}

#[test]
fn data_without_rts_counts_against_the_short_retry_limit() {
    // §9.2.4: a frame no longer than dot11RTSThreshold is retried until the
    // short retry count reaches dot11ShortRetryLimit; same sequence number,
    // Retry bit set on every retransmission (§7.1.3.1.4).
    let mut st = station_with_packet(1, NO_RTS);
    let mut seqs = BTreeSet::new();
    for attempt in 0..7 {
        let (_, _, f) = attempt_unanswered(&mut st, FrameKind::Data);
        assert_eq!(f.retry, attempt > 0, "attempt {attempt}");
        seqs.insert(f.seq);
        if attempt < 6 {
            st.expect_no_events();
        }
    }
    assert_eq!(seqs.len(), 1, "one sequence number for all attempts");
    assert_eq!(st.expect_tx_failed().0, PEER);
}

#[test]
fn missing_acks_after_cts_count_against_the_long_retry_limit() {
    // §9.2.4: a frame longer than dot11RTSThreshold whose ACK is missing
    // increments the long retry count; dot11LongRetryLimit = 4 DATA attempts.
    let mut st = station_with_packet(1, 0);
    for attempt in 0..4 {
        let d = attempt_data_unacked(&mut st);
        assert_eq!(d.retry, attempt > 0, "attempt {attempt}");
        if attempt < 3 {
            st.expect_no_events();
        }
    }
    assert_eq!(st.expect_tx_failed(), (PEER, make_data_packet(1, 1500)));
    assert!(st.dcf.is_ready());
}

#[test]
fn cts_resets_the_short_retry_count() {
    // §9.2.4: the SSRC is reset to 0 when a CTS is received in response
    // to an RTS. 6 RTS failures, one CTS (whose DATA is then not acked),
    // then 7 more RTS failures before the drop: 14 RTS in all.
    let mut st = station_with_packet(1, 0);
    for _ in 0..6 {
        attempt_unanswered(&mut st, FrameKind::Rts);
    }
    attempt_data_unacked(&mut st);
    for _ in 0..6 {
        attempt_unanswered(&mut st, FrameKind::Rts);
        st.expect_no_events();
    }
    attempt_unanswered(&mut st, FrameKind::Rts);
    assert_eq!(st.expect_tx_failed().0, PEER);
}

#[test]
fn contention_window_doubles_after_each_failure() {
    // §9.2.4: CW takes the values 2^n - 1 from aCWmin = 31 up to
    // aCWmax = 1023: after n failures the backoff is at most CW_AFTER[n]
    // slots, and over many seeds it exceeds the previous window.
    let mut max = [0u32; 7];
    for seed in 0..100 {
        let mut st = station_with_packet(seed, 0);
        let (_, mut timeout, _) = attempt_unanswered(&mut st, FrameKind::Rts);
        for n in 1..7 {
            let (start, t, _) = attempt_unanswered(&mut st, FrameKind::Rts);
            // The deferral for a retry starts when the timeout fires
            // (ARCHITECTURE.md, "DCF").
            let k = backoff_slots(start - timeout, DIFS);
            assert!(k <= CW_AFTER[n], "seed {seed}: backoff {k} after {n} failures > CW {}", CW_AFTER[n]);
            max[n] = max[n].max(k);
            timeout = t;
        }
        st.expect_tx_failed();
    }
    for n in 1..7 {
        let floor = CW_AFTER[n - 1].min(511);
        assert!(max[n] > floor, "after {n} failures the largest backoff is {} <= {floor}", max[n]);
    }
}

#[test]
fn contention_window_resets_after_a_drop() {
    // §9.2.4: CW is reset to aCWmin when the SSRC reaches
    // dot11ShortRetryLimit; the next packet backs off within 31 slots.
    let mut seen = BTreeSet::new();
    for seed in 0..64 {
        let mut st = station_with_packet(seed, NO_RTS);
        let mut dropped_at = SimTime::ZERO;
        for _ in 0..7 {
            dropped_at = attempt_unanswered(&mut st, FrameKind::Data).1;
        }
        st.expect_tx_failed();
        st.enqueue(make_data_packet(2, 1500), PEER);
        let t = st.fire(MacTimer::Access);
        let f = st.expect_transmit(FrameKind::Data);
        assert!(!f.retry);
        let k = backoff_slots(t - dropped_at, DIFS);
        assert!(k <= CW_MIN, "seed {seed}: backoff {k} after a drop");
        seen.insert(k);
    }
    assert!(seen.len() >= 8, "backoffs: {seen:?}");
}

#[test]
fn contention_window_resets_after_a_success() {
    // §9.2.4: CW is reset to aCWmin after every successful attempt. Three
    // failures take CW to 255; the post-backoff after the ACK is <= 31.
    for seed in 0..64 {
        let mut st = station_with_packet(seed, NO_RTS);
        for _ in 0..3 {
            attempt_unanswered(&mut st, FrameKind::Data);
        }
        st.fire(MacTimer::Access);
        let f = st.expect_transmit(FrameKind::Data);
        assert!(f.retry);
        st.finish_tx();
        st.advance(SIFS);
        st.rx(&ack(ME));
        st.expect_tx_ok();
        let ack_end = st.now;
        st.enqueue(make_data_packet(2, 1500), PEER);
        let t = st.fire(MacTimer::Access);
        let f2 = st.expect_transmit(FrameKind::Data);
        assert_eq!((f2.retry, f2.seq), (false, f.seq.wrapping_add(1) & 0x0fff));
        let k = backoff_slots(t - ack_end, DIFS);
        assert!(k <= CW_MIN, "seed {seed}: backoff {k} after a success");
    }
}
