//! Fixtures and a fake pipe connecting a sender and a sink.

use std::collections::VecDeque;

use crate::tcp::{TcpConfig, TcpSender, TcpSink, Variant};
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

pub fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

/// Default config with the given variant, ACK-every-segment sink and `iw` initial window.
pub fn cfg(variant: Variant, iw: u32) -> TcpConfig {
    TcpConfig { variant, initial_cwnd: iw, delayed_ack: false, ..TcpConfig::default() }
}

/// A pure ACK as the sink sends it.
pub fn ack(ackno: u64) -> TcpSegment {
    TcpSegment { flow: 0, seqno: 0, ackno, payload: 0, options: 0, sack: Default::default(), retransmit: false, window: None, ecn: Default::default(), adtcp: None, checksum: 0, syn: false, headers: 40 }
}

/// A full-sized data segment of flow 0, as the sender sends it.
pub fn data(seqno: u64) -> TcpSegment {
    data_len(seqno, 1460)
}

/// Segment `seqno` of flow 0 (MSS 1460) with `payload` bytes and the checksum
/// of that byte range (tcp/stream.rs).
pub fn data_len(seqno: u64, payload: u32) -> TcpSegment {
    let checksum = crate::tcp::stream::range_checksum(0, seqno * 1460, payload);
    TcpSegment { flow: 0, seqno, ackno: 0, payload, options: 0, sack: Default::default(), retransmit: false, window: None, ecn: Default::default(), adtcp: None, checksum, syn: false, headers: 40 }
}

/// Everything the sender will send at `now`.
#[track_caller]
pub fn drain(s: &mut TcpSender, now: SimTime) -> Vec<TcpSegment> {
    let mut out = Vec::new();
    while let Some(seg) = s.poll_transmit(now) {
        out.push(seg);
        assert!(out.len() < 100_000, "poll_transmit never returns None");
    }
    out
}

pub fn seqnos(segs: &[TcpSegment]) -> Vec<u64> {
    segs.iter().map(|s| s.seqno).collect()
}

/// Named fixture: a sender with an initial window of `n` that has sent
/// segments 0..n at t = 0 and heard nothing back.
pub fn sender_with_outstanding(variant: Variant, n: u32) -> TcpSender {
    let mut s = TcpSender::new(0, &cfg(variant, n), None, false);
    let sent = drain(&mut s, SimTime::ZERO);
    assert_eq!(seqnos(&sent), (0..n as u64).collect::<Vec<_>>());
    s
}

/// Tiny deterministic generator for loss patterns (xorshift64*).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn chance(&mut self, p: f64) -> bool {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((x >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

type DropFn = Box<dyn FnMut(&TcpSegment) -> bool>;

/// A sender and a sink joined by two one-way links with a fixed delay; the
/// data link also serialises segments at `data_tx` each. Drop predicates
/// decide the fate of each packet. Every poll checks the window invariant
/// against `clamp` if set.
pub struct Pair {
    pub now: SimTime,
    pub sender: TcpSender,
    pub sink: TcpSink,
    pub delay: Dur,
    pub data_tx: Dur,
    link_free: SimTime,
    to_sink: VecDeque<(SimTime, TcpSegment)>,
    to_sender: VecDeque<(SimTime, TcpSegment)>,
    pub drop_data: DropFn,
    pub drop_ack: DropFn,
    /// Every data segment the sender emitted, with its time.
    pub sent: Vec<(SimTime, TcpSegment)>,
    pub clamp: Option<u64>,
    pub max_flight: u64,
}

impl Pair {
    pub fn new(cfg: &TcpConfig, total_bytes: Option<u64>, delay: Dur) -> Pair {
        Pair {
            now: SimTime::ZERO,
            sender: TcpSender::new(0, cfg, total_bytes, true),
            sink: TcpSink::new(0, cfg),
            delay,
            data_tx: Dur::ZERO,
            link_free: SimTime::ZERO,
            to_sink: VecDeque::new(),
            to_sender: VecDeque::new(),
            drop_data: Box::new(|_| false),
            drop_ack: Box::new(|_| false),
            sent: Vec::new(),
            clamp: cfg.max_cwnd.map(u64::from),
            max_flight: 0,
        }
    }

    fn flush(&mut self) {
        while let Some(seg) = self.sender.poll_transmit(self.now) {
            let flight = self.sender.flight_size();
            self.max_flight = self.max_flight.max(flight);
            if let Some(c) = self.clamp {
                assert!(flight <= c, "{flight} segments outstanding > clamp {c} at {}", self.now);
                assert!(self.sender.cwnd() <= c as f64, "cwnd {} > clamp {c}", self.sender.cwnd());
            }
            self.sent.push((self.now, seg.clone()));
            let start = self.link_free.max(self.now);
            self.link_free = start + self.data_tx;
            if !(self.drop_data)(&seg) {
                self.to_sink.push_back((self.link_free + self.delay, seg));
            }
        }
        while let Some(a) = self.sink.poll_transmit(self.now) {
            if !(self.drop_ack)(&a) {
                self.to_sender.push_back((self.now + self.delay, a));
            }
        }
    }

    fn next_event(&self) -> Option<SimTime> {
        [
            self.to_sink.front().map(|e| e.0),
            self.to_sender.front().map(|e| e.0),
            self.sender.poll_timeout(),
            self.sink.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Process every event at the next event time; false if none is left.
    pub fn step(&mut self) -> bool {
        self.flush();
        let Some(t) = self.next_event() else { return false };
        assert!(t >= self.now, "time went backwards");
        self.now = t;
        while self.to_sink.front().is_some_and(|e| e.0 <= t) {
            let (_, seg) = self.to_sink.pop_front().unwrap();
            self.sink.handle_segment(t, &seg);
            self.flush();
        }
        while self.to_sender.front().is_some_and(|e| e.0 <= t) {
            let (_, a) = self.to_sender.pop_front().unwrap();
            self.sender.handle_ack(t, &a);
            self.flush();
        }
        if self.sink.poll_timeout().is_some_and(|d| d <= t) {
            self.sink.handle_timeout(t);
        }
        if self.sender.poll_timeout().is_some_and(|d| d <= t) {
            self.sender.handle_timeout(t);
        }
        self.flush();
        true
    }

    /// Run every event up to and including `t`.
    pub fn run_until(&mut self, t: SimTime) {
        self.flush();
        while self.next_event().is_some_and(|e| e <= t) {
            self.step();
        }
    }

    /// Run until the transfer completes; false if `limit` passes first.
    pub fn run_until_done(&mut self, limit: SimTime) -> bool {
        while !self.sender.is_done() {
            if self.now > limit || !self.step() {
                return false;
            }
        }
        true
    }
}
