//! The interface queue between IP and the MAC: drop-tail, with routing
//! packets ahead of data (ns-2 `Queue/DropTail/PriQueue` with
//! `Prefer_Routing_Protocols 1`, defaults.md), or one FIFO
//! (`mac.queue_routing_first = false`, ns-2 `Prefer_Routing_Protocols 0`:
//! PriQueue::recv hands every packet to Queue::recv).
//!
//! Routing packets keep their arrival order among themselves here, and the
//! queue holds `limit` packets. `mac.queue_ns2_priqueue` is ns-2's queue to
//! the packet: PriQueue::recvHighPriority puts each routing packet at the
//! very head (enqueHead), so the newest goes first, and drops the tail once
//! the length reaches qlim_; DropTail::enque refuses a packet when
//! `length + 1 >= qlim_`, so at most qlim_ - 1 wait (priqueue.cc,
//! drop-tail.cc). ns-2 does this for DSR, AODV, AOMDV, TORA, MDART and
//! PT_MESSAGE (DSDV) packets (PriQueue::recv).
//!
//! `mac.queue_classes` is ns-2's CMUPriQueue, which its DSR agent requires
//! (queue/dsr-priqueue.cc): one queue per class, each of the full limit,
//! served in class order (routing, real-time, TCP ACKs, the rest), and a
//! packet meeting its class's queue full is dropped. hoplab has no real-time
//! traffic, so three classes are used.

use crate::time::SimTime;
use crate::wire::{NodeId, Packet, PacketType};
use std::collections::VecDeque;

pub struct Ifq {
    q: VecDeque<(Packet, NodeId)>,
    limit: usize,
    /// Integral of the queue length over time (packet·ns), for the
    /// time-weighted mean of seed 002 §7.3.
    area: u128,
    last_change: SimTime,
    pub max_len: u32,
    /// Routing packets ahead of data (false: plain FIFO).
    routing_first: bool,
    /// CMUPriQueue's classes, `q` kept in class order; packets per class.
    classes: Option<[usize; 3]>,
    /// ns-2's PriQueue and DropTail exactly (module doc).
    ns2_priqueue: bool,
}

/// A packet's CMUPriQueue class (dsr-priqueue.cc prq_assign_queue): routing
/// (IFQ_RTPROTO), TCP ACKs (PT_ACK, IFQ_LOWDELAY), the rest (IFQ_NORMAL).
fn class(p: &Packet) -> usize {
    match p.ptype() {
        PacketType::Routing => 0,
        PacketType::Ack => 1,
        _ => 2,
    }
}

impl Ifq {
    pub fn new(limit: usize) -> Ifq {
        Ifq { q: VecDeque::with_capacity(limit.min(64)), limit, area: 0, last_change: SimTime::ZERO, max_len: 0, routing_first: true, classes: None, ns2_priqueue: false }
    }

    /// `mac.queue_routing_first`: false makes the queue one FIFO.
    pub fn with_routing_first(mut self, on: bool) -> Ifq {
        self.routing_first = on;
        self
    }

    /// `mac.queue_ns2_priqueue`: ns-2's PriQueue to the packet.
    pub fn with_ns2_priqueue(mut self, on: bool) -> Ifq {
        self.ns2_priqueue = on;
        self
    }

    /// `mac.queue_classes`: ns-2's CMUPriQueue.
    pub fn with_classes(mut self, on: bool) -> Ifq {
        self.classes = on.then_some([0; 3]);
        self
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
        if let Some(counts) = self.classes.as_mut() {
            let c = class(&p);
            if counts[c] >= self.limit {
                return Some(p); // dsr-priqueue.cc prq_enqueue: DROP_IFQ_QFULL
            }
            counts[c] += 1;
            let at = self.q.partition_point(|(q, _)| class(q) <= c);
            self.q.insert(at, (p, next_hop));
        } else if self.routing_first && p.is_routing() && self.ns2_priqueue {
            // priqueue.cc recvHighPriority: enqueHead, then `length >= qlim_`
            // drops the last packet
            self.q.push_front((p, next_hop));
            if self.q.len() >= self.limit {
                return self.q.pop_back().map(|(p, _)| p);
            }
        } else if self.routing_first && p.is_routing() {
            let at = self.q.iter().position(|(q, _)| !q.is_routing()).unwrap_or(self.q.len());
            self.q.insert(at, (p, next_hop));
            if self.q.len() > self.limit {
                return self.q.pop_back().map(|(p, _)| p);
            }
        } else if self.q.len() + usize::from(self.ns2_priqueue) >= self.limit {
            // drop-tail.cc DropTail::enque: `length + 1 >= qlim_` with ns-2's queue
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
        let head = self.q.pop_front();
        if let (Some(counts), Some((p, _))) = (self.classes.as_mut(), head.as_ref()) {
            counts[class(p)] -= 1;
        }
        head
    }

    /// Remove every packet queued for `next_hop` (a broken link), in order.
    pub fn purge(&mut self, now: SimTime, next_hop: NodeId) -> Vec<Packet> {
        self.account(now);
        let (gone, kept): (VecDeque<_>, VecDeque<_>) = self.q.drain(..).partition(|(_, nh)| *nh == next_hop);
        self.q = kept;
        if let Some(counts) = self.classes.as_mut() {
            for (p, _) in &gone {
                counts[class(p)] -= 1;
            }
        }
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

    fn routing(uid: u64) -> Packet {
        use crate::wire::aodv::{AodvMsg, Rerr};
        use crate::wire::RoutingMsg;
        let m = RoutingMsg::Aodv(AodvMsg::Rerr(Rerr { no_delete: false, dests: vec![(2, 1)] }));
        Packet::new(uid, 0, crate::wire::BROADCAST, Body::Routing(m), SimTime::ZERO)
    }

    fn order(q: &Ifq) -> Vec<u64> {
        q.packets().map(|p| p.uid).collect()
    }

    #[test]
    fn routing_first_or_one_fifo() {
        // Today's default: routing packets ahead of data, in arrival order;
        // a routing packet that meets a full queue pushes the last data out.
        let mut q = Ifq::new(4);
        for p in [pkt(1), routing(2), pkt(3), routing(4)] {
            assert!(q.enqueue(SimTime(0), p, 1).is_none());
        }
        assert_eq!(order(&q), [2, 4, 1, 3]);
        assert_eq!(q.enqueue(SimTime(0), routing(5), 1).map(|p| p.uid), Some(3));
        assert_eq!(order(&q), [2, 4, 5, 1]);
        assert_eq!(q.enqueue(SimTime(0), pkt(6), 1).map(|p| p.uid), Some(6));
        // FIFO: arrival order, and a full queue drops whatever arrives.
        let mut q = Ifq::new(4).with_routing_first(false);
        for p in [pkt(1), routing(2), pkt(3), routing(4)] {
            assert!(q.enqueue(SimTime(0), p, 1).is_none());
        }
        assert_eq!(order(&q), [1, 2, 3, 4]);
        assert_eq!(q.enqueue(SimTime(0), routing(5), 1).map(|p| p.uid), Some(5));
        assert_eq!(q.dequeue(SimTime(0)).map(|(p, _)| p.uid), Some(1));
        assert_eq!(order(&q), [2, 3, 4]);
    }

    #[test]
    fn ns2_priqueue_holds_one_less_and_puts_routing_at_the_head() {
        // drop-tail.cc: `length + 1 >= qlim_` refuses, so 3 of a limit of 4 wait.
        let mut q = Ifq::new(4).with_ns2_priqueue(true);
        for p in [pkt(1), pkt(2), pkt(3)] {
            assert!(q.enqueue(SimTime(0), p, 1).is_none());
        }
        assert_eq!(q.enqueue(SimTime(0), pkt(4), 1).map(|p| p.uid), Some(4));
        // priqueue.cc recvHighPriority: enqueHead, the newest routing packet
        // first; at qlim_ the last packet goes.
        assert_eq!(q.enqueue(SimTime(0), routing(5), 1).map(|p| p.uid), Some(3));
        assert_eq!(order(&q), [5, 1, 2]);
        assert_eq!(q.enqueue(SimTime(0), routing(6), 1).map(|p| p.uid), Some(2));
        assert_eq!(order(&q), [6, 5, 1]);
        assert_eq!(q.dequeue(SimTime(0)).map(|(p, _)| p.uid), Some(6));
        assert!(q.enqueue(SimTime(0), routing(7), 1).is_none());
        assert_eq!(order(&q), [7, 5, 1]);
    }

    fn ack(uid: u64) -> Packet {
        use crate::wire::tcp::{Ecn, SackBlocks, TcpSegment};
        let seg = TcpSegment { flow: 0, seqno: 0, ackno: uid, payload: 0, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0, syn: false, headers: 40 };
        Packet::new(uid, 1, 0, Body::Tcp(seg), SimTime::ZERO)
    }

    #[test]
    fn cmu_priqueue_classes() {
        // ns-2 CMUPriQueue: routing, then TCP ACKs, then the rest, each in
        // arrival order and each with its own limit.
        let mut q = Ifq::new(2).with_classes(true);
        for p in [pkt(1), ack(2), routing(3), pkt(4), ack(5), routing(6)] {
            assert!(q.enqueue(SimTime(0), p, 1).is_none());
        }
        assert_eq!(order(&q), [3, 6, 2, 5, 1, 4]);
        // A full class drops what arrives for it, whatever the others hold.
        assert_eq!(q.enqueue(SimTime(0), pkt(7), 1).map(|p| p.uid), Some(7));
        assert_eq!(q.enqueue(SimTime(0), ack(8), 1).map(|p| p.uid), Some(8));
        assert_eq!(q.dequeue(SimTime(0)).map(|(p, _)| p.uid), Some(3));
        assert!(q.enqueue(SimTime(0), routing(9), 1).is_none());
        assert_eq!(order(&q), [6, 9, 2, 5, 1, 4]);
        // Purging a next hop frees its packets' places.
        assert!(q.enqueue(SimTime(0), ack(10), 2).is_some());
        assert_eq!(q.purge(SimTime(0), 1).len(), 6);
        assert!(q.enqueue(SimTime(0), ack(11), 2).is_none());
        assert_eq!(order(&q), [11]);
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
