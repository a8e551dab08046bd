//! Constant bit rate over UDP (ns-2 `Application/Traffic/CBR`, no jitter):
//! one datagram of `size` payload bytes every size·8/rate seconds; with
//! `on_s`/`off_s`, only during on periods (app/onoff.rs).

use std::collections::VecDeque;

use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, UdpDatagram};

pub struct CbrSource {
    pub flow: u32,
    pub dst: NodeId,
    pub size: u32,
    interval: Dur,
    stop: SimTime,
    pub next_at: Option<SimTime>,
    due: u32,
    pub sent: u64,
    /// On-off periods, when the flow has them.
    onoff: Option<super::onoff::OnOff>,
}

impl CbrSource {
    pub fn new(flow: u32, dst: NodeId, size: u32, rate_kbps: f64, start: SimTime, stop: SimTime) -> CbrSource {
        let interval = Dur::from_secs_f64(size as f64 * 8.0 / (rate_kbps * 1000.0)).max(Dur(1));
        CbrSource { flow, dst, size, interval, stop, next_at: Some(start), due: 0, sent: 0, onoff: None }
    }

    /// Send only during on periods (app/onoff.rs); the first starts at `start`.
    pub fn with_onoff(mut self, mut o: super::onoff::OnOff) -> CbrSource {
        o.start(self.interval);
        self.onoff = Some(o);
        self
    }

    pub fn handle_timer(&mut self, now: SimTime) {
        self.due += 1;
        let gap = match self.onoff.as_mut() {
            Some(o) => o.after_packet(self.interval),
            None => self.interval,
        };
        let next = now + gap;
        self.next_at = (next < self.stop).then_some(next);
    }

    pub fn poll_transmit(&mut self, out: &mut Vec<Body>) {
        for _ in 0..std::mem::take(&mut self.due) {
            out.push(Body::Udp(UdpDatagram { flow: self.flow, seqno: self.sent, payload: self.size }));
            self.sent += 1;
        }
    }
}

/// Datagrams the duplicate filter remembers behind the newest one seen (a
/// bit each, 128 KB): memory stays bounded in a run of any length. A copy
/// arriving more than this many datagrams late (at 2 Mbit/s, minutes late,
/// which TTL and 50-packet queues rule out) counts as a duplicate.
const SEEN_WINDOW_WORDS: u64 = 1 << 14;

/// Counts what a CBR flow delivered, without double-counting duplicates,
/// and its one-way delay and jitter.
pub struct UdpSink {
    pub flow: u32,
    pub src: NodeId,
    /// Bit per datagram seqno from `seen_base * 64` on.
    seen: VecDeque<u64>,
    seen_base: u64,
    pub received: u64,
    pub bytes: u64,
    pub duplicates: u64,
    /// Sums of the one-way delay (arrival - handed to IP at the source) of
    /// each first copy, in s and s².
    pub delay_sum_s: f64,
    pub delay_sum_sq_s: f64,
    /// RFC 3550 §6.4.1 interarrival jitter J in seconds, updated at every
    /// first copy in arrival order: J += (|D(i-1, i)| - J) / 16.
    pub jitter_s: f64,
    /// Transit time (R - S) of the previous first copy, ns.
    last_transit: Option<i128>,
}

impl UdpSink {
    pub fn new(flow: u32, src: NodeId) -> UdpSink {
        UdpSink {
            flow,
            src,
            seen: VecDeque::new(),
            seen_base: 0,
            received: 0,
            bytes: 0,
            duplicates: 0,
            delay_sum_s: 0.0,
            delay_sum_sq_s: 0.0,
            jitter_s: 0.0,
            last_transit: None,
        }
    }

    /// A datagram arrived at `now`; its source handed it to IP at `sent`.
    pub fn receive(&mut self, now: SimTime, d: &UdpDatagram, sent: SimTime) {
        let word = d.seqno / 64;
        if word < self.seen_base {
            self.duplicates += 1; // older than the window: see SEEN_WINDOW_WORDS
            return;
        }
        let i = (word - self.seen_base) as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, 0);
        }
        let bit = 1u64 << (d.seqno % 64);
        if self.seen[i] & bit != 0 {
            self.duplicates += 1;
            return;
        }
        self.seen[i] |= bit;
        while self.seen.len() as u64 > SEEN_WINDOW_WORDS {
            self.seen.pop_front();
            self.seen_base += 1;
        }
        self.received += 1;
        self.bytes += d.payload as u64;
        let transit = now.0 as i128 - sent.0 as i128;
        let s = transit as f64 * 1e-9;
        self.delay_sum_s += s;
        self.delay_sum_sq_s += s * s;
        if let Some(prev) = self.last_transit {
            let dd = (transit - prev).unsigned_abs() as f64 * 1e-9;
            self.jitter_s += (dd - self.jitter_s) / 16.0; // RFC 3550 §6.4.1
        }
        self.last_transit = Some(transit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dgram(seqno: u64) -> UdpDatagram {
        UdpDatagram { flow: 0, seqno, payload: 100 }
    }

    #[test]
    fn delay_and_rfc3550_jitter() {
        let ms = |v: u64| SimTime(v * 1_000_000);
        let mut s = UdpSink::new(0, 1);
        // Sent every 10 ms; transit 5, 7, 5, 5 ms.
        for (k, transit) in [5, 7, 5, 5].into_iter().enumerate() {
            let sent = ms(10 * k as u64);
            s.receive(sent + Dur::from_millis(transit), &dgram(k as u64), sent);
        }
        s.receive(ms(100), &dgram(1), ms(10)); // a duplicate counts nowhere
        assert_eq!((s.received, s.duplicates), (4, 1));
        assert!((s.delay_sum_s - 0.022).abs() < 1e-12);
        // J: 0 -> 2/16 -> (2/16 + (2 - 2/16)/16) -> then |D| = 0 shrinks it.
        let mut j = 0.0;
        for d in [2.0, 2.0, 0.0] {
            j += (d - j) / 16.0;
        }
        assert!((s.jitter_s * 1e3 - j).abs() < 1e-9, "{} vs {j}", s.jitter_s * 1e3);
    }

    #[test]
    fn the_duplicate_filter_is_bounded() {
        let mut s = UdpSink::new(0, 1);
        let n = (SEEN_WINDOW_WORDS + 100) * 64;
        for q in 0..n {
            s.receive(SimTime(q), &dgram(q), SimTime(0));
        }
        assert!(s.seen.len() as u64 <= SEEN_WINDOW_WORDS);
        assert_eq!(s.received, n);
        s.receive(SimTime(n), &dgram(n - 1), SimTime(0));
        assert_eq!(s.duplicates, 1, "a recent duplicate is still caught");
    }
}
