//! One node's half-duplex radio: which signals are on the air here, which
//! one the receiver is locked on, and whether interference has ruined it.
//!
//! Reception rule (documented in docs/ARCHITECTURE.md, "Capture"): the
//! receiver locks on the first sensed signal that arrives while it is idle
//! (neither transmitting nor receiving), as ns-2's `Mac802_11` does. The
//! frame is decoded if its power is at least the RX threshold and, for its
//! whole duration, at least `capture_ratio` times the *sum* of the other
//! interfering signals (an SINR rule). With one interferer this is ns-2's
//! CPThresh rule; with several it also counts their sum, which ns-2 ignores.
//! A sensed frame that cannot be decoded ends in a reception error (the MAC
//! then defers with EIFS, as ns-2 does for frames below RXThresh).
//!
//! Two ns-2 rules are options (`[radio]`, off by default):
//! - `capture_model = "ns2"`: ns-2's `Mac802_11::recv` one-interferer test.
//!   A frame arriving while the receiver holds another is dropped
//!   ("captured") if the held one is at least CPThresh times stronger;
//!   otherwise both are lost (`collision()`) and the receiver stays busy
//!   with whichever ends later. Interferers are compared one at a time,
//!   never summed, and a frame the receiver did not take never corrupts.
//! - `lock_while_transmitting`: ns-2 `Mac802_11::recv` marks a frame that
//!   starts while the node transmits as an error but lets it occupy the
//!   receiver until its end, so the next frame collides with it; if it ends
//!   while the node still transmits it is discarded silently (`recv_timer`).

#[derive(Clone, Copy, Debug, Default)]
struct Signal {
    tx: u32,
    power: f64,
    sensed: bool,
    interferes: bool,
}

#[derive(Clone, Copy, Debug)]
struct Lock {
    tx: u32,
    power: f64,
    /// When the held signal ends (used by the ns-2 capture model).
    end: SimTime,
    /// Decodable power when it started and not yet ruined by interference.
    ok: bool,
    /// Above the RX threshold (a collision, not a weak signal, if it fails).
    decodable: bool,
}

/// What the receiver made of a signal that just ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxOutcome {
    /// Not the signal the receiver was locked on.
    NotLocked,
    /// Decoded without error.
    Ok,
    /// Above the RX threshold but ruined by interference or by our own
    /// transmission: a collision.
    Collision,
    /// Sensed but too weak to decode.
    TooWeak,
}

use super::signals::InlineList;
use crate::time::SimTime;

/// The reception rules that differ between hoplab and ns-2 (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxRules {
    /// ns-2's one-interferer capture test instead of the SINR rule.
    pub ns2_capture: bool,
    /// A frame that starts while we transmit still occupies the receiver.
    pub lock_while_transmitting: bool,
}

pub struct Radio {
    rules: RxRules,
    capture_ratio: f64,
    rx_threshold: f64,
    transmitting: bool,
    /// Inline up to 8: more than that at once at one radio is rare.
    signals: InlineList<Signal, 8>,
    sensed: u32,
    lock: Option<Lock>,
}

impl Radio {
    pub fn new(rx_threshold: f64, capture_ratio: f64) -> Radio {
        Radio { rules: RxRules::default(), capture_ratio, rx_threshold, transmitting: false, signals: InlineList::default(), sensed: 0, lock: None }
    }

    pub fn with_rules(mut self, rules: RxRules) -> Radio {
        self.rules = rules;
        self
    }

    /// Physical carrier sense: busy while transmitting or sensing a signal.
    pub fn busy(&self) -> bool {
        self.transmitting || self.sensed > 0
    }

    #[allow(dead_code)]
    pub fn transmitting(&self) -> bool {
        self.transmitting
    }

    /// Sum of interfering power at this radio, excluding signal `except`.
    fn interference_except(&self, except: u32) -> f64 {
        self.signals.as_slice().iter().filter(|s| s.interferes && s.tx != except).map(|s| s.power).sum()
    }

    /// A signal starts; it ends at `end`. Returns true if a frame the
    /// receiver holds "captured" it: the new signal is sensed, the receiver
    /// is locked on another one at least `capture_ratio` times stronger, and
    /// the new one is dropped (ns-2 `Mac802_11::capture`).
    pub fn signal_start(&mut self, tx: u32, power: f64, sensed: bool, interferes: bool, end: SimTime) -> bool {
        self.signals.push(Signal { tx, power, sensed, interferes });
        self.sensed += sensed as u32;
        // ns-2 Mac802_11::recv: `if(tx_active_ && hdr->error() == 0) hdr->error() = 1;`
        // and the frame still goes through the receiver.
        let marked = self.transmitting;
        if self.transmitting && !self.rules.lock_while_transmitting {
            return false; // half-duplex: nothing is received while sending
        }
        if self.rules.ns2_capture {
            return self.ns2_start(tx, power, sensed, interferes, end, marked);
        }
        match self.lock {
            Some(lock) => {
                let captured = sensed && lock.power >= self.capture_ratio * power;
                if interferes && lock.ok && lock.power < self.capture_ratio * self.interference_except(lock.tx) {
                    self.lock = Some(Lock { ok: false, ..lock });
                }
                return captured;
            }
            // A signal from beyond the interference range that we cannot
            // decode only makes the medium busy: it must not occupy the
            // receiver (seed 000 §4.2, IF_Range < CS_Range).
            None if sensed && (interferes || power >= self.rx_threshold) => {
                let decodable = power >= self.rx_threshold;
                let ok = !marked && decodable && power >= self.capture_ratio * self.interference_except(tx);
                self.lock = Some(Lock { tx, power, end, ok, decodable });
            }
            None => {}
        }
        false
    }

    /// ns-2 `Mac802_11::recv`: an idle receiver takes the frame; a busy one
    /// compares it with the held frame alone: `pktRx_->txinfo_.RxPr /
    /// p->txinfo_.RxPr >= CPThresh` drops the newcomer (`capture`), anything
    /// else ruins both and keeps the one that lasts longer (`collision`).
    fn ns2_start(&mut self, tx: u32, power: f64, sensed: bool, interferes: bool, end: SimTime, marked: bool) -> bool {
        // wireless-phy.cc sendUp: below CSThresh nothing reaches the MAC;
        // hoplab's interference-only signals (interference_range_m beyond the
        // sense range) are the only unsensed ones and are ignored likewise.
        if !sensed {
            return false;
        }
        let decodable = power >= self.rx_threshold;
        match self.lock {
            None => {
                if interferes || decodable {
                    self.lock = Some(Lock { tx, power, end, ok: decodable && !marked, decodable });
                }
                false
            }
            Some(lock) if lock.power >= self.capture_ratio * power => true,
            Some(_) if !interferes => false,
            Some(lock) => {
                self.lock = Some(if end > lock.end {
                    Lock { tx, power, end, ok: false, decodable }
                } else {
                    Lock { ok: false, ..lock }
                });
                false
            }
        }
    }

    pub fn signal_end(&mut self, tx: u32) -> RxOutcome {
        if let Some(i) = self.signals.as_slice().iter().position(|s| s.tx == tx) {
            let s = self.signals.swap_remove(i);
            self.sensed -= s.sensed as u32;
        }
        match self.lock {
            Some(lock) if lock.tx == tx => {
                self.lock = None;
                if self.transmitting && self.rules.lock_while_transmitting {
                    // ns-2 recv_timer: a frame ending while we transmit is
                    // discarded silently, without EIFS.
                    return RxOutcome::NotLocked;
                }
                if lock.ok {
                    RxOutcome::Ok
                } else if lock.decodable {
                    RxOutcome::Collision
                } else {
                    RxOutcome::TooWeak
                }
            }
            _ => RxOutcome::NotLocked,
        }
    }

    /// Start transmitting; a reception in progress is lost (half-duplex).
    /// Returns true if one was.
    pub fn start_tx(&mut self) -> bool {
        self.transmitting = true;
        match self.lock.as_mut() {
            Some(lock) if lock.ok => {
                lock.ok = false;
                true
            }
            _ => false,
        }
    }

    pub fn end_tx(&mut self) {
        self.transmitting = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RX: f64 = 1.0;
    /// End time of signals in tests that do not depend on it.
    const END: SimTime = SimTime(1_000_000);

    #[test]
    fn a_lone_frame_is_received() {
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, 5.0, true, true, END);
        assert!(r.busy());
        assert_eq!(r.signal_end(1), RxOutcome::Ok);
        assert!(!r.busy());
    }

    #[test]
    fn capture_needs_ten_times_the_sum_of_interferers() {
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, 100.0, true, true, END);
        r.signal_start(2, 6.0, true, true, END); // 100 >= 60: survives
        r.signal_start(3, 5.0, true, true, END); // 100 < 110: ruined by the sum
        assert_eq!(r.signal_end(2), RxOutcome::NotLocked);
        assert_eq!(r.signal_end(1), RxOutcome::Collision);
    }

    #[test]
    fn weak_frames_are_sensed_but_not_decoded() {
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, 0.5, true, true, END);
        assert!(r.busy());
        assert_eq!(r.signal_end(1), RxOutcome::TooWeak);
    }

    #[test]
    fn transmitting_destroys_a_reception_and_blocks_new_ones() {
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, 5.0, true, true, END);
        assert!(r.start_tx());
        r.signal_start(2, 5.0, true, true, END);
        assert_eq!(r.signal_end(1), RxOutcome::Collision);
        r.end_tx();
        assert_eq!(r.signal_end(2), RxOutcome::NotLocked);
    }

    #[test]
    fn a_receiver_locked_on_a_weak_frame_loses_a_later_strong_one() {
        // ns-2 Mac802_11::recv: while receiving (even a frame below RXThresh,
        // marked in error by WirelessPhy) a later frame is captured away only
        // if 10 dB weaker, otherwise collision() discards it. On the grid a
        // relay 200 m from the crossing row locks on a row frame from 447 m
        // (power 1/25 of a 200 m frame, sensed, not decodable) and misses its
        // upstream's RTS from 200 m, which the upstream (566 m from that row
        // node) could not sense: the crossing flow's MAC drops.
        let p200 = 2.0 * RX; // two-ray ground: (447/200)^4 = 25
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, p200 / 25.0, true, true, END); // the hidden row frame
        r.signal_start(2, p200, true, true, END); // the upstream's RTS, 14 dB stronger
        assert_eq!(r.signal_end(2), RxOutcome::NotLocked, "the RTS is lost");
        assert_eq!(r.signal_end(1), RxOutcome::TooWeak, "then EIFS");
        // Once idle again, the same RTS is received.
        r.signal_start(3, p200, true, true, END);
        assert_eq!(r.signal_end(3), RxOutcome::Ok);
    }

    #[test]
    fn non_interfering_signals_do_not_corrupt() {
        let mut r = Radio::new(RX, 10.0);
        r.signal_start(1, 5.0, true, true, END);
        r.signal_start(2, 4.0, true, false, END); // sensed, but outside interference range
        assert_eq!(r.signal_end(1), RxOutcome::Ok);
    }

    // ----- ns-2 rules (`[radio] capture_model = "ns2"`, `lock_while_transmitting`) -----

    const NS2: RxRules = RxRules { ns2_capture: true, lock_while_transmitting: false };

    fn at(us: u64) -> SimTime {
        SimTime(us * 1000)
    }

    #[test]
    fn ns2_capture_compares_each_newcomer_with_the_held_frame_alone() {
        // Mac802_11::recv: `pktRx_->txinfo_.RxPr / p->txinfo_.RxPr >= CPThresh`
        // captures p. Three interferers each 11 dB below do not add up, where
        // the SINR rule loses the frame to their sum.
        for (rules, want) in [(NS2, RxOutcome::Ok), (RxRules::default(), RxOutcome::Collision)] {
            let mut r = Radio::new(RX, 10.0).with_rules(rules);
            r.signal_start(1, 100.0, true, true, at(1000));
            for tx in 2..5 {
                assert!(r.signal_start(tx, 7.9, true, true, at(500)), "each one alone is captured");
            }
            for tx in 2..5 {
                assert_eq!(r.signal_end(tx), RxOutcome::NotLocked);
            }
            assert_eq!(r.signal_end(1), want);
        }
    }

    #[test]
    fn ns2_collision_keeps_the_frame_that_lasts_longer() {
        // Mac802_11::collision: below CPThresh both frames are lost and the
        // receiver stays in MAC_COLL until the later of the two ends.
        let mut r = Radio::new(RX, 10.0).with_rules(NS2);
        assert!(!r.signal_start(1, 5.0, true, true, at(300)));
        assert!(!r.signal_start(2, 2.0, true, true, at(900)), "5/2 < 10: a collision");
        assert_eq!(r.signal_end(1), RxOutcome::NotLocked, "the receiver moved to the longer frame");
        // A third frame arriving now collides with the held one (not captured: 2/1 < 10).
        assert!(!r.signal_start(3, 1.0, true, true, at(800)));
        assert_eq!(r.signal_end(3), RxOutcome::NotLocked);
        assert_eq!(r.signal_end(2), RxOutcome::Collision);
        // The shorter newcomer is the one discarded.
        let mut r = Radio::new(RX, 10.0).with_rules(NS2);
        r.signal_start(1, 5.0, true, true, at(900));
        r.signal_start(2, 2.0, true, true, at(300));
        assert_eq!(r.signal_end(2), RxOutcome::NotLocked);
        assert_eq!(r.signal_end(1), RxOutcome::Collision);
        // An idle receiver afterwards decodes the next frame.
        r.signal_start(3, 2.0, true, true, at(1300));
        assert_eq!(r.signal_end(3), RxOutcome::Ok);
    }

    #[test]
    fn a_frame_starting_during_our_transmission_occupies_the_receiver_with_lock_while_transmitting() {
        // Mac802_11::recv: `if(tx_active_ && hdr->error() == 0) hdr->error() = 1;`
        // then the frame becomes pktRx_. Our RTS ends, the CTS for it arrives
        // while that frame is still held, 2x stronger: both are lost (ns-2
        // capture) and the CTS is never seen.
        let rules = RxRules { ns2_capture: true, lock_while_transmitting: true };
        let mut r = Radio::new(RX, 10.0).with_rules(rules);
        r.start_tx();
        r.signal_start(1, 2.5, true, true, at(2000)); // a DATA frame from a neighbour
        r.end_tx();
        assert!(r.busy());
        r.signal_start(2, 5.0, true, true, at(700)); // the CTS
        assert_eq!(r.signal_end(2), RxOutcome::NotLocked);
        assert_eq!(r.signal_end(1), RxOutcome::Collision, "then EIFS");
        // Without the rule the radio ignores the first frame and takes the CTS.
        let mut r = Radio::new(RX, 10.0).with_rules(NS2);
        r.start_tx();
        r.signal_start(1, 2.5, true, true, at(2000));
        r.end_tx();
        r.signal_start(2, 5.0, true, true, at(700));
        assert_eq!(r.signal_end(2), RxOutcome::Ok);
        assert_eq!(r.signal_end(1), RxOutcome::NotLocked);
    }

    #[test]
    fn a_frame_ending_while_we_still_transmit_is_discarded_silently() {
        // recv_timer: `if(tx_active_) { Packet::free(pktRx_); goto done; }`,
        // no EIFS. The default reports the ruined frame as a collision.
        for (lock, want) in [(true, RxOutcome::NotLocked), (false, RxOutcome::Collision)] {
            let mut r = Radio::new(RX, 10.0).with_rules(RxRules { ns2_capture: false, lock_while_transmitting: lock });
            r.signal_start(1, 5.0, true, true, at(300));
            r.start_tx();
            assert_eq!(r.signal_end(1), want);
            r.end_tx();
        }
    }
}
