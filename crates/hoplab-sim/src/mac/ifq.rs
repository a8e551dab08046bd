//! The interface queue between IP and the MAC: drop-tail, with routing
//! packets ahead of data (ns-2 `Queue/DropTail/PriQueue` with
//! `Prefer_Routing_Protocols 1`, defaults.md).

use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use std::collections::VecDeque;

pub struct Ifq {
    q: VecDeque<(Packet, NodeId)>,
    limit: usize,
    /// Integral of the queue length over time (packet·ns), for the
    /// time-weighted mean of seed 002 §7.3.
    area: u128,
    last_change: SimTime,
    pub max_len: u32,
}

impl Ifq {
    pub fn new(limit: usize) -> Ifq {
        Ifq { q: VecDeque::with_capacity(limit.min(64)), limit, area: 0, last_change: SimTime::ZERO, max_len: 0 }
    }

    fn account(&mut self, now: SimTime) {
        self.area += self.q.len() as u128 * now.since(self.last_change).0 as u128;
        self.last_change = now;
    }

    /// Queue a packet for `next_hop`. Returns the packet dropped to make room
    /// (the arriving one when data meets a full queue; the last queued one
    /// when a routing packet must get in), if any.
    pub fn enqueue(&mut self, now: SimTime, p: Packet, next_hop: NodeId) -> Option<Packet> {
        self.account(now);
        if p.is_routing() {
            let at = self.q.iter().position(|(q, _)| !q.is_routing()).unwrap_or(self.q.len());
            self.q.insert(at, (p, next_hop));
            if self.q.len() > self.limit {
                return self.q.pop_back().map(|(p, _)| p);
            }
        } else if self.q.len() >= self.limit {
            return Some(p);
        } else {
            self.q.push_back((p, next_hop));
        }
        self.max_len = self.max_len.max(self.q.len() as u32);
        None
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<(Packet, NodeId)> {
        if self.q.is_empty() {
            return None;
        }
        self.account(now);
        self.q.pop_front()
    }

    /// Remove every packet queued for `next_hop` (a broken link), in order.
    pub fn purge(&mut self, now: SimTime, next_hop: NodeId) -> Vec<Packet> {
        self.account(now);
        let (gone, kept): (VecDeque<_>, VecDeque<_>) = self.q.drain(..).partition(|(_, nh)| *nh == next_hop);
        self.q = kept;
        gone.into_iter().map(|(p, _)| p).collect()
    }

    /// The queued packets, head first.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.q.iter().map(|(p, _)| p)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Time-weighted mean length over [start, now].
    pub fn mean_len(&mut self, start: SimTime, now: SimTime) -> f64 {
        self.account(now);
        let span = now.since(start).0;
        if span == 0 {
            f64::NAN // a mean over no time is undefined
        } else {
            self.area as f64 / span as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Body, UdpDatagram};

    fn pkt(uid: u64) -> Packet {
        Packet::new(uid, 0, 1, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload: 10 }), SimTime::ZERO)
    }

    #[test]
    fn drop_tail_at_limit() {
        let mut q = Ifq::new(2);
        assert!(q.enqueue(SimTime(0), pkt(1), 1).is_none());
        assert!(q.enqueue(SimTime(0), pkt(2), 1).is_none());
        assert_eq!(q.enqueue(SimTime(0), pkt(3), 1).map(|p| p.uid), Some(3));
        assert_eq!(q.dequeue(SimTime(0)).map(|(p, _)| p.uid), Some(1));
    }

    #[test]
    fn time_weighted_mean() {
        let mut q = Ifq::new(10);
        q.enqueue(SimTime(0), pkt(1), 1);
        q.enqueue(SimTime(100), pkt(2), 1); // 1 packet for 100 ns
        q.dequeue(SimTime(200)); // 2 packets for 100 ns
        q.dequeue(SimTime(300)); // 1 packet for 100 ns
        assert!((q.mean_len(SimTime(0), SimTime(400)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn purge_removes_one_next_hop() {
        let mut q = Ifq::new(10);
        q.enqueue(SimTime(0), pkt(1), 1);
        q.enqueue(SimTime(0), pkt(2), 2);
        q.enqueue(SimTime(0), pkt(3), 1);
        let gone: Vec<u64> = q.purge(SimTime(0), 1).iter().map(|p| p.uid).collect();
        assert_eq!(gone, [1, 3]);
        assert_eq!(q.len(), 1);
    }
}
