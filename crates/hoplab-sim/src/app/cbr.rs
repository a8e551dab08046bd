//! Constant bit rate over UDP (ns-2 `Application/Traffic/CBR`): one datagram
//! of `size` payload bytes every size·8/rate seconds; with `on_s`/`off_s`,
//! only during on periods (app/onoff.rs). With `jitter` (ns-2 `random_ 1`)
//! each gap after a packet is interval · (1 + U(-0.5, 0.5)), the first packet
//! still going at the start (ns-2 cbr_traffic.cc CBR_Traffic::next_interval,
//! called after each send by trafgen.cc TrafficGenerator::timeout). With
//! `max_packets` N (ns-2 `maxpkts_`) the source stops after its N-th packet:
//! next_interval counts `++seqno_ < maxpkts_` after each send and stops the
//! timer otherwise, so exactly N go out (ns-2 sends one even for maxpkts_ 0,
//! which the scenario's range refuses).

use std::collections::VecDeque;

use crate::rng::Stream;
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
    /// ns-2 `random_`: the stream the gaps' U(-0.5, 0.5) come from.
    jitter: Option<Stream>,
    /// ns-2 `maxpkts_`: packets this source sends at most (u64::MAX: no limit).
    max_packets: u64,
}

impl CbrSource {
    pub fn new(flow: u32, dst: NodeId, size: u32, rate_kbps: f64, start: SimTime, stop: SimTime) -> CbrSource {
        let interval = Dur::from_secs_f64(size as f64 * 8.0 / (rate_kbps * 1000.0)).max(Dur(1));
        CbrSource { flow, dst, size, interval, stop, next_at: Some(start), due: 0, sent: 0, onoff: None, jitter: None, max_packets: u64::MAX }
    }

    /// ns-2 `random_ 1`: each gap is interval · (1 + U(-0.5, 0.5)), drawn
    /// from `rng` (ns-2 cbr_traffic.cc CBR_Traffic::next_interval).
    pub fn with_jitter(mut self, rng: Stream) -> CbrSource {
        self.jitter = Some(rng);
        self
    }

    /// ns-2 `maxpkts_`: stop after the `n`-th packet.
    pub fn with_max_packets(mut self, n: u64) -> CbrSource {
        self.max_packets = n;
        self
    }

    /// Send only during on periods (app/onoff.rs); the first starts at `start`.
    pub fn with_onoff(mut self, mut o: super::onoff::OnOff) -> CbrSource {
        o.start(self.interval);
        self.onoff = Some(o);
        self
    }

    pub fn handle_timer(&mut self, now: SimTime) {
        self.due += 1;
        // ns-2 cbr_traffic.cc next_interval: `++seqno_ < maxpkts_` or stop.
        if self.sent + self.due as u64 >= self.max_packets {
            self.next_at = None;
            return;
        }
        let gap = match (self.onoff.as_mut(), self.jitter.as_mut()) {
            (Some(o), _) => o.after_packet(self.interval),
            // ns-2: t = interval_ + interval_ * Random::uniform(-0.5, 0.5).
            (None, Some(rng)) => Dur(((self.interval.0 as f64) * (0.5 + rng.unit())).round() as u64).max(Dur(1)),
            (None, None) => self.interval,
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
    use crate::rng::Purpose;

    /// Run a source's timer alone: the instants of its packets, in ns.
    fn instants(mut src: CbrSource) -> Vec<u64> {
        let (mut out, mut at) = (Vec::new(), Vec::new());
        while let Some(t) = src.next_at {
            src.handle_timer(t);
            src.poll_transmit(&mut out);
            at.push(t.0);
        }
        assert_eq!(out.len() as u64, src.sent);
        at
    }

    // 512 B at 40.96 kbit/s: one packet every 100 ms.
    fn cbr(secs: f64) -> CbrSource {
        CbrSource::new(0, 1, 512, 40.96, SimTime::ZERO, SimTime::from_secs_f64(secs))
    }

    #[test]
    fn jitter_draws_each_gap_from_half_to_one_and_a_half_intervals() {
        let at = instants(cbr(1000.0).with_jitter(Stream::new(3, 0x8000_0000, Purpose::CbrJitter)));
        assert_eq!(at[0], 0, "the first packet goes at the start, undrawn");
        let gaps: Vec<f64> = at.windows(2).map(|w| (w[1] - w[0]) as f64 / 1e8).collect();
        assert!(gaps.iter().all(|g| (0.5..=1.5).contains(g)), "a gap outside [0.5, 1.5] intervals");
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        // ~10,000 gaps of U(0.5, 1.5): the mean's standard error is 0.003.
        assert!((mean - 1.0).abs() < 0.015, "mean gap {mean} intervals");
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((var / (1.0 / 12.0) - 1.0).abs() < 0.05, "variance {var}, uniform: 1/12");
        assert!(gaps.iter().filter(|g| **g < 0.6).count() > 500 && gaps.iter().filter(|g| **g > 1.4).count() > 500, "both tails reached");
        // Same stream, same instants; without jitter, exactly the interval.
        assert_eq!(at, instants(cbr(1000.0).with_jitter(Stream::new(3, 0x8000_0000, Purpose::CbrJitter))));
        assert!(instants(cbr(1.0)).windows(2).all(|w| w[1] - w[0] == 100_000_000));
    }

    #[test]
    fn max_packets_sends_exactly_that_many() {
        for n in [1u64, 2, 7] {
            let at = instants(cbr(100.0).with_max_packets(n));
            assert_eq!(at.len() as u64, n, "max_packets {n}");
            assert_eq!(*at.last().unwrap(), (n - 1) * 100_000_000);
        }
        // The stop time still ends it first: 1 s holds 10 packets (0 .. 0.9 s).
        assert_eq!(instants(cbr(1.0).with_max_packets(50)).len(), 10);
        assert_eq!(instants(cbr(1.0)).len(), 10);
        // With jitter too, the count is exact.
        assert_eq!(instants(cbr(1e6).with_max_packets(33).with_jitter(Stream::new(1, 5, Purpose::CbrJitter))).len(), 33);
    }

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
