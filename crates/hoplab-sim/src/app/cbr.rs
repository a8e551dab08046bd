//! Constant bit rate over UDP (ns-2 `Application/Traffic/CBR`, no jitter):
//! one datagram of `size` payload bytes every size·8/rate seconds.

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
}

impl CbrSource {
    pub fn new(flow: u32, dst: NodeId, size: u32, rate_kbps: f64, start: SimTime, stop: SimTime) -> CbrSource {
        let interval = Dur::from_secs_f64(size as f64 * 8.0 / (rate_kbps * 1000.0)).max(Dur(1));
        CbrSource { flow, dst, size, interval, stop, next_at: Some(start), due: 0, sent: 0 }
    }

    pub fn handle_timer(&mut self, now: SimTime) {
        self.due += 1;
        let next = now + self.interval;
        self.next_at = (next < self.stop).then_some(next);
    }

    pub fn poll_transmit(&mut self, out: &mut Vec<Body>) {
        for _ in 0..std::mem::take(&mut self.due) {
            out.push(Body::Udp(UdpDatagram { flow: self.flow, seqno: self.sent, payload: self.size }));
            self.sent += 1;
        }
    }
}

/// Counts what a CBR flow delivered, without double-counting duplicates.
pub struct UdpSink {
    pub flow: u32,
    pub src: NodeId,
    seen: Vec<u64>,
    pub received: u64,
    pub bytes: u64,
    pub duplicates: u64,
}

impl UdpSink {
    pub fn new(flow: u32, src: NodeId) -> UdpSink {
        UdpSink { flow, src, seen: Vec::new(), received: 0, bytes: 0, duplicates: 0 }
    }

    pub fn receive(&mut self, _now: SimTime, d: &UdpDatagram) {
        let (word, bit) = ((d.seqno / 64) as usize, d.seqno % 64);
        if self.seen.len() <= word {
            self.seen.resize(word + 1, 0);
        }
        if self.seen[word] & (1 << bit) != 0 {
            self.duplicates += 1;
            return;
        }
        self.seen[word] |= 1 << bit;
        self.received += 1;
        self.bytes += d.payload as u64;
    }
}
