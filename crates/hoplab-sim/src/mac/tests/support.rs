//! A one-station driver for the DCF and the IEEE 802.11-1999 numbers the
//! tests assert against.
//!
//! `Station` owns a `Dcf`, the current time and the state of the physical
//! carrier sense, and it calls the DCF in the node's order (`node.rs`):
//! - after a `MacEvent::Transmit` the node calls `handle_medium(now, true)`;
//! - at the end of our transmission, `phy_after_end(busy)` then
//!   `handle_tx_end(now)`;
//! - at the start of a sensed signal `handle_medium(now, true)`; at the end
//!   of a signal the receiver held, `phy_after_end(busy)` then `handle_rx`
//!   (or `handle_rx_error`); at the end of one it did not hold, when it was
//!   the last, `handle_medium(now, false)`.
//!
//! The driver is strict: `advance_to` refuses to jump over a pending timer
//! or over the end of our own transmission, and a signal cannot start while
//! a timer is due at that instant (timers come first, ARCHITECTURE.md "Event
//! ordering contract"). So every test spells out each step it expects.

use std::collections::VecDeque;

use crate::mac::{Dcf, MacConfig, MacEvent, MacTimer, MAC_TIMERS};
use crate::rng::{Purpose, Stream};
use crate::scenario;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, Frame, FrameKind, NodeId, Packet, UdpDatagram, BROADCAST, IP_HEADER, UDP_HEADER};

/// The station under test.
pub const ME: NodeId = 1;
/// Its usual correspondent.
pub const PEER: NodeId = 2;
/// Stations whose exchanges we overhear.
pub const OTHER: NodeId = 3;
pub const THIRD: NodeId = 4;

// IEEE 802.11-1999 DSSS PHY (§15.3.3, Table 60) with the long PLCP preamble,
// 1 Mbit/s basic rate and 2 Mbit/s data rate.
pub const SLOT: Dur = Dur::from_micros(20);
pub const SIFS: Dur = Dur::from_micros(10);
/// §9.2.10: DIFS = aSIFSTime + 2 × aSlotTime.
pub const DIFS: Dur = Dur::from_micros(50);
/// §15.2.3: 144-bit PLCP preamble + 48-bit PLCP header at 1 Mbit/s.
pub const PLCP: Dur = Dur::from_micros(192);
/// RTS: 20 bytes (§7.2.1.1) at 1 Mbit/s after the PLCP: 192 + 160 µs.
pub const RTS_TIME: Dur = Dur::from_micros(352);
/// CTS: 14 bytes (§7.2.1.2) at 1 Mbit/s: 192 + 112 µs.
pub const CTS_TIME: Dur = Dur::from_micros(304);
/// ACK: 14 bytes (§7.2.1.3) at 1 Mbit/s: 192 + 112 µs.
pub const ACK_TIME: Dur = Dur::from_micros(304);
/// §9.2.10: EIFS = aSIFSTime + (8 × ACKSize) + aPreambleLength +
/// aPLCPHeaderLength + DIFS = 10 + 112 + 144 + 48 + 50 µs.
pub const EIFS: Dur = Dur::from_micros(364);
/// aCWmin for the DSSS PHY.
pub const CW_MIN: u32 = 31;
/// The CW after n failures: 31, 63, 127, ..., capped at aCWmax = 1023 (§9.2.4).
pub const CW_AFTER: [u32; 7] = [31, 63, 127, 255, 511, 1023, 1023];

/// Airtime of a data frame carrying an IP datagram of `ip_bytes` at
/// 2 Mbit/s: PLCP + (24-byte header + body + 4-byte FCS) × 8 bits / 2 Mbit/s.
pub fn data_time(ip_bytes: u32) -> Dur {
    PLCP + Dur(u64::from(28 + ip_bytes) * 4_000)
}

pub fn us(v: u64) -> Dur {
    Dur::from_micros(v)
}

pub fn at_us(v: u64) -> SimTime {
    SimTime(v * 1_000)
}

/// `t - d` (the time types only add durations to instants).
pub fn before(t: SimTime, d: Dur) -> SimTime {
    SimTime(t.0 - d.0)
}

/// A CBR datagram of `ip_bytes` bytes on the wire (IP + UDP + payload).
pub fn make_data_packet(uid: u64, ip_bytes: u32) -> Packet {
    let payload = ip_bytes - IP_HEADER - UDP_HEADER;
    Packet::new(uid, ME, PEER, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload }), SimTime::ZERO)
}

pub fn rts(src: NodeId, dst: NodeId, duration_us: u32) -> Frame {
    Frame { kind: FrameKind::Rts, src, dst, duration_us, seq: 0, retry: false, packet: None }
}

/// CTS and ACK carry no transmitter address; `src` is only the driver's bookkeeping.
pub fn cts(dst: NodeId, duration_us: u32) -> Frame {
    Frame { kind: FrameKind::Cts, src: 0, dst, duration_us, seq: 0, retry: false, packet: None }
}

pub fn ack(dst: NodeId) -> Frame {
    Frame { kind: FrameKind::Ack, src: 0, dst, duration_us: 0, seq: 0, retry: false, packet: None }
}

pub fn data(src: NodeId, dst: NodeId, seq: u16, retry: bool, packet: Packet) -> Frame {
    // §7.2.2: SIFS + ACK for a unicast frame, 0 for a broadcast.
    let duration_us = if dst == BROADCAST { 0 } else { 314 };
    Frame { kind: FrameKind::Data, src, dst, duration_us, seq, retry, packet: Some(packet) }
}

/// The default MAC of a scenario (2 Mbit/s, 1 Mbit/s basic, slot 20 µs,
/// SIFS 10 µs, CW 31..1023, retry limits 7/4) with this RTS threshold.
pub fn mac_config(rts_threshold: u32) -> scenario::Mac {
    scenario::Mac { rts_threshold, ..scenario::Mac::default() }
}

/// RTS threshold above any frame in these tests: DATA goes without RTS.
pub const NO_RTS: u32 = 3000;

pub struct Station {
    pub dcf: Dcf,
    pub now: SimTime,
    /// Foreign signals being sensed.
    signals: u32,
    /// Our transmission and its end.
    on_air: Option<(Frame, SimTime)>,
    out: VecDeque<MacEvent>,
    /// The frames of the `Transmit`s in `out`, in order.
    sent: VecDeque<Frame>,
}

impl Station {
    /// Named fixture: station `ME` at t = 0, medium idle, with the default
    /// MAC and this RTS threshold; backoffs drawn from `seed`.
    pub fn new(seed: u64, rts_threshold: u32) -> Station {
        Station::with_mac(seed, &mac_config(rts_threshold))
    }

    pub fn with_mac(seed: u64, m: &scenario::Mac) -> Station {
        let rng = Stream::new(seed, ME, Purpose::MacBackoff);
        Station { dcf: Dcf::new(ME, MacConfig::from_scenario(m), rng), now: SimTime::ZERO, signals: 0, on_air: None, out: VecDeque::new(), sent: VecDeque::new() }
    }

    pub fn deadline(&self, t: MacTimer) -> Option<SimTime> {
        self.dcf.timers()[t as usize]
    }

    /// The earliest deadline; ties go to the lowest timer index.
    pub fn next_deadline(&self) -> Option<(SimTime, MacTimer)> {
        let mut best: Option<(SimTime, MacTimer)> = None;
        for i in 0..MAC_TIMERS {
            if let Some(at) = self.dcf.timers()[i] {
                if best.is_none_or(|(b, _)| at < b) {
                    best = Some((at, MacTimer::from_index(i)));
                }
            }
        }
        best
    }

    /// Move the clock to `t`. Panics if a timer or our transmission's end
    /// would be skipped.
    #[track_caller]
    pub fn advance_to(&mut self, t: SimTime) {
        assert!(t >= self.now, "time going backwards: {t} < {}", self.now);
        if let Some((at, timer)) = self.next_deadline() {
            assert!(at >= t, "advancing to {t} would skip {timer:?} due at {at}");
        }
        if let Some((f, end)) = &self.on_air {
            assert!(*end >= t, "advancing to {t} would skip the end of our {:?} at {end}", f.kind);
        }
        self.now = t;
    }

    #[track_caller]
    pub fn advance(&mut self, d: Dur) {
        self.advance_to(self.now + d);
    }

    /// Advance to the earliest deadline and fire it.
    #[track_caller]
    pub fn fire_next_timer(&mut self) -> MacTimer {
        let (at, timer) = self.next_deadline().expect("no timer armed");
        self.advance_to(at);
        self.dcf.handle_timer(at, timer);
        self.pump();
        timer
    }

    /// Fire the earliest deadline, which must be `timer`; return its time.
    #[track_caller]
    pub fn fire(&mut self, timer: MacTimer) -> SimTime {
        let next = self.next_deadline();
        assert_eq!(next.map(|n| n.1), Some(timer), "next timer (all: {:?})", self.dcf.timers());
        self.fire_next_timer();
        self.now
    }

    /// Collect the DCF's outputs as the node does; a Transmit puts our radio on the air.
    fn pump(&mut self) {
        while self.dcf.has_events() {
            let evs: Vec<MacEvent> = self.dcf.take_events().collect();
            for ev in evs {
                if let MacEvent::Transmit = &ev {
                    // The node takes the frame from the MAC (node.rs transmit).
                    let f = self.dcf.tx_frame_slot().take().expect("a Transmit without its frame");
                    assert!(self.on_air.is_none(), "transmit while already on the air: {f:?}");
                    assert_eq!(f.src, ME, "we transmit with our own address");
                    self.on_air = Some((f.clone(), self.now + self.dcf.airtime(&f)));
                    self.dcf.handle_medium(self.now, true);
                    self.sent.push_back(f);
                }
                self.out.push_back(ev);
            }
        }
    }

    pub fn enqueue(&mut self, packet: Packet, next_hop: NodeId) {
        assert!(self.dcf.is_ready(), "enqueue while the DCF holds a packet");
        self.dcf.enqueue(self.now, packet, next_hop);
        self.pump();
    }

    /// The next output, oldest first.
    pub fn next_event(&mut self) -> Option<MacEvent> {
        let ev = self.out.pop_front();
        if let Some(MacEvent::Transmit) = ev {
            self.sent.pop_front();
        }
        ev
    }

    #[track_caller]
    pub fn expect_no_events(&mut self) {
        assert!(self.out.is_empty(), "unexpected events: {:?}", self.out);
    }

    /// The next output must be a transmission of a `kind` frame, starting now.
    #[track_caller]
    pub fn expect_transmit(&mut self, kind: FrameKind) -> Frame {
        match self.out.pop_front() {
            Some(MacEvent::Transmit) => {
                let f = self.sent.pop_front().expect("each Transmit keeps its frame");
                assert_eq!(f.kind, kind, "transmitted {f:?}");
                f
            }
            other => panic!("expected Transmit({kind:?}) at {}, got {other:?}", self.now),
        }
    }

    #[track_caller]
    pub fn expect_deliver(&mut self) -> (NodeId, Packet) {
        match self.out.pop_front() {
            Some(MacEvent::Deliver { from, packet }) => (from, packet),
            other => panic!("expected Deliver at {}, got {other:?}", self.now),
        }
    }

    #[track_caller]
    pub fn expect_tx_ok(&mut self) -> NodeId {
        match self.out.pop_front() {
            Some(MacEvent::TxOk { next_hop, .. }) => next_hop,
            other => panic!("expected TxOk at {}, got {other:?}", self.now),
        }
    }

    #[track_caller]
    pub fn expect_tx_failed(&mut self) -> (NodeId, Packet) {
        match self.out.pop_front() {
            Some(MacEvent::TxFailed { next_hop, packet }) => (next_hop, packet),
            other => panic!("expected TxFailed at {}, got {other:?}", self.now),
        }
    }

    /// Let our transmission run to its end; returns the frame. The clock
    /// ends at the end of the frame.
    #[track_caller]
    pub fn finish_tx(&mut self) -> Frame {
        let (f, end) = self.on_air.clone().expect("nothing on the air");
        self.advance_to(end);
        self.on_air = None;
        self.dcf.phy_after_end(self.signals > 0);
        self.dcf.handle_tx_end(end);
        self.pump();
        f
    }

    /// A foreign signal starts being sensed now.
    #[track_caller]
    pub fn signal_start(&mut self) {
        assert!(self.on_air.is_none(), "half-duplex: receiving while transmitting");
        if let Some((at, timer)) = self.next_deadline() {
            assert!(at > self.now, "{timer:?} is due at {at}: fire it before a signal starts");
        }
        self.signals += 1;
        if self.signals == 1 {
            self.dcf.handle_medium(self.now, true);
        }
        self.pump();
    }

    fn signal_end(&mut self, outcome: Option<Result<&Frame, ()>>) {
        assert!(self.signals > 0, "no signal to end");
        self.signals -= 1;
        let busy = self.signals > 0;
        match outcome {
            Some(Ok(f)) => {
                self.dcf.phy_after_end(busy);
                self.dcf.handle_rx(self.now, f);
            }
            Some(Err(())) => {
                self.dcf.phy_after_end(busy);
                self.dcf.handle_rx_error(self.now);
            }
            None if !busy => self.dcf.handle_medium(self.now, false),
            None => {}
        }
        self.pump();
    }

    /// The sensed signal ends now with `frame` decoded.
    pub fn signal_end_rx(&mut self, frame: &Frame) {
        self.signal_end(Some(Ok(frame)));
    }

    /// The sensed signal ends now without a correct frame.
    pub fn signal_end_error(&mut self) {
        self.signal_end(Some(Err(())));
    }

    /// Receive `frame` correctly: it starts now and ends after its airtime,
    /// where the clock is left.
    #[track_caller]
    pub fn rx(&mut self, frame: &Frame) {
        self.signal_start();
        self.advance(self.dcf.airtime(frame));
        self.signal_end_rx(frame);
    }

    /// A signal of `len` that is sensed but not decoded (FCS error).
    #[track_caller]
    pub fn rx_error(&mut self, len: Dur) {
        self.signal_start();
        self.advance(len);
        self.signal_end_error();
    }

    /// Overhear an ACK addressed to `OTHER`: 304 µs of busy medium, a
    /// correct reception, and no NAV (its duration is 0).
    #[track_caller]
    pub fn overhear_ack(&mut self) {
        self.rx(&ack(OTHER));
    }
}

/// `(wait - ifs) / SLOT`, asserting that the wait is `ifs` plus whole slots.
#[track_caller]
pub fn backoff_slots(wait: Dur, ifs: Dur) -> u32 {
    assert!(wait >= ifs, "waited {wait:?}, less than the IFS {ifs:?}");
    let extra = wait - ifs;
    assert_eq!(extra.0 % SLOT.0, 0, "waited {wait:?}: not IFS {ifs:?} plus whole slots");
    (extra.0 / SLOT.0) as u32
}
