//! ARP (RFC 826, with RFC 1122 §2.3.2's rate limit and flooding rules) as a
//! sans-IO state machine: IP hands it packets with their next hop, it
//! answers with packets ready for the interface queue, ARP requests and
//! replies to send, and drops.
//!
//! IP and MAC addresses are both the node id, so what ARP "learns" is only
//! that the mapping is known; what matters for the simulation is the delay
//! and the packets held or dropped while it is not.

use crate::net::DropReason;
use crate::time::{Dur, SimTime};
use crate::wire::{ArpMsg, Body, NodeId, Packet, BROADCAST};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What to do with packets for an address still being resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArpMode {
    /// ns-2 (`mac/arp.cc` `arpresolve`): hold one packet per address; a
    /// newer one displaces it (DROP_IFQ_ARP_FULL). No timer: every packet
    /// for the address sends a request, and the one after the third fails
    /// with the held one. Learns from every ARP packet heard, as `arpinput`
    /// does.
    Ns2,
    /// A modern stack (RFC 1122 §2.3.2.2 "SHOULD save at least one"; Linux
    /// `unres_qlen`): hold up to this many, dropping the oldest beyond.
    /// Learns by RFC 826's merge rule.
    Queue(u32),
}

#[derive(Debug)]
pub enum ArpOut {
    /// Resolved: hand the packet to the interface queue for `next_hop`.
    Send { next_hop: NodeId, packet: Packet },
    /// An ARP request to broadcast.
    Request(Packet),
    /// An ARP reply, unicast to the requester.
    Reply(Packet),
    Drop { packet: Packet, reason: DropReason },
    /// `next_hop` never answered: ns-2 (`mac/arp.cc` `arpresolve`) hands
    /// the held packet to the sender's transmit-failure callback, i.e.
    /// routing's link-failure handler, rather than dropping it.
    Failed { next_hop: NodeId, packet: Packet },
}

/// RFC 1122 §2.3.2.1: at most one request per second per address.
pub const REQUEST_INTERVAL: Dur = Dur(1_000_000_000);
/// Requests sent before giving up (ns-2 `ARP_MAX_REQUEST_COUNT` 3).
pub const MAX_REQUESTS: u32 = 3;

#[derive(Debug)]
struct Pending {
    held: VecDeque<Packet>,
    requests: u32,
    /// When to retransmit, or give up after the last request (none in
    /// ns-2's mode, which has no timer).
    next_at: Option<SimTime>,
}

pub struct Arp {
    me: NodeId,
    mode: ArpMode,
    /// Known mappings. Entries never expire, as in ns-2.
    known: BTreeSet<NodeId>,
    pending: BTreeMap<NodeId, Pending>,
    next_uid: u64,
}

impl Arp {
    pub fn new(me: NodeId, mode: ArpMode) -> Arp {
        Arp { me, mode, known: BTreeSet::new(), pending: BTreeMap::new(), next_uid: 0 }
    }

    pub fn is_resolved(&self, addr: NodeId) -> bool {
        addr == BROADCAST || self.known.contains(&addr)
    }

    /// Packets held for `addr`.
    #[cfg(test)]
    pub fn held(&self, addr: NodeId) -> usize {
        self.pending.get(&addr).map_or(0, |p| p.held.len())
    }

    /// Every held packet, by address, left in place (the trace's END drops).
    pub fn held_packets(&self) -> impl Iterator<Item = &Packet> {
        self.pending.values().flat_map(|p| p.held.iter())
    }

    /// Every held packet, by address (END accounting when the run stops:
    /// ns-2 `ARPTable::Terminate` drops them as END).
    pub fn take_held(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.pending).into_values().flat_map(|p| p.held).collect()
    }

    fn uid(&mut self) -> u64 {
        self.next_uid += 1;
        // Distinct from routing-protocol uids (bit 39) and data uids.
        (self.me as u64) << 40 | 1 << 38 | self.next_uid
    }

    fn request(&mut self, now: SimTime, target: NodeId) -> ArpOut {
        let uid = self.uid();
        ArpOut::Request(Packet::new(uid, self.me, BROADCAST, Body::Arp(ArpMsg { reply: false, sender: self.me, target }), now))
    }

    /// IP has `packet` for `next_hop`.
    pub fn resolve(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<ArpOut>) {
        if self.is_resolved(next_hop) {
            out.push(ArpOut::Send { next_hop, packet });
            return;
        }
        let limit = match self.mode {
            ArpMode::Ns2 => return self.resolve_ns2(now, next_hop, packet, out),
            ArpMode::Queue(n) => n as usize,
        };
        if let Some(p) = self.pending.get_mut(&next_hop) {
            // Already asking; at most one request per second (RFC 1122
            // §2.3.2.1), so only hold the packet.
            p.held.push_back(packet);
            while p.held.len() > limit {
                let old = p.held.pop_front().expect("non-empty");
                out.push(ArpOut::Drop { packet: old, reason: DropReason::Arp });
            }
            return;
        }
        let mut held = VecDeque::new();
        if limit == 0 {
            out.push(ArpOut::Drop { packet, reason: DropReason::Arp });
        } else {
            held.push_back(packet);
        }
        self.pending.insert(next_hop, Pending { held, requests: 1, next_at: Some(now + REQUEST_INTERVAL) });
        out.push(self.request(now, next_hop));
    }

    /// ns-2 mac/arp.cc `arpresolve`: each packet for an unresolved address
    /// counts a request and sends it, displacing the packet held before it;
    /// the packet that finds three requests already sent fails, with the
    /// held one, to the transmit-failure callback, and the count starts
    /// again. The entry never expires.
    fn resolve_ns2(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<ArpOut>) {
        let p = self.pending.entry(next_hop).or_insert_with(|| Pending { held: VecDeque::new(), requests: 0, next_at: None });
        if p.requests >= MAX_REQUESTS {
            p.requests = 0;
            if let Some(held) = p.held.pop_front() {
                out.push(ArpOut::Failed { next_hop, packet: held });
            }
            out.push(ArpOut::Failed { next_hop, packet });
            return;
        }
        p.requests += 1;
        if let Some(old) = p.held.pop_front() {
            out.push(ArpOut::Drop { packet: old, reason: DropReason::Arp });
        }
        p.held.push_back(packet);
        out.push(self.request(now, next_hop));
    }

    /// An ARP packet from neighbour `from`.
    pub fn receive(&mut self, now: SimTime, _from: NodeId, msg: &ArpMsg, out: &mut Vec<ArpOut>) {
        let sender = msg.sender;
        if sender == self.me || sender == BROADCAST {
            return;
        }
        let for_me = msg.target == self.me;
        // RFC 826 "Packet Reception": update the sender's entry if we have
        // one (a pending resolution counts), add it only if we are the
        // target. ns-2's arpinput adds it from any ARP packet.
        let learn = match self.mode {
            ArpMode::Ns2 => true,
            ArpMode::Queue(_) => for_me || self.known.contains(&sender) || self.pending.contains_key(&sender),
        };
        if learn {
            self.known.insert(sender);
            if let Some(p) = self.pending.remove(&sender) {
                for packet in p.held {
                    out.push(ArpOut::Send { next_hop: sender, packet });
                }
            }
        }
        if !msg.reply && for_me {
            let uid = self.uid();
            let reply = ArpMsg { reply: true, sender: self.me, target: sender };
            out.push(ArpOut::Reply(Packet::new(uid, self.me, sender, Body::Arp(reply), now)));
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.pending.values().filter_map(|p| p.next_at).min()
    }

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<ArpOut>) {
        let due: Vec<NodeId> = self.pending.iter().filter(|(_, p)| p.next_at.is_some_and(|t| t <= now)).map(|(&a, _)| a).collect();
        for addr in due {
            let p = self.pending.get_mut(&addr).expect("due entry");
            if p.requests >= MAX_REQUESTS {
                // No answer a second after the last request: the address
                // does not resolve; what waited for it failed like a link.
                let p = self.pending.remove(&addr).expect("due entry");
                for packet in p.held {
                    out.push(ArpOut::Failed { next_hop: addr, packet });
                }
            } else {
                p.requests += 1;
                p.next_at = Some(now + REQUEST_INTERVAL);
                out.push(self.request(now, addr));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::UdpDatagram;

    fn data(uid: u64, dst: NodeId) -> Packet {
        Packet::new(uid, 0, dst, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload: 512 }), SimTime::ZERO)
    }

    fn secs(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn sent(out: &[ArpOut]) -> Vec<(NodeId, u64)> {
        out.iter()
            .filter_map(|o| match o {
                ArpOut::Send { next_hop, packet } => Some((*next_hop, packet.uid)),
                _ => None,
            })
            .collect()
    }

    fn failed(out: &[ArpOut]) -> Vec<(NodeId, u64)> {
        out.iter()
            .filter_map(|o| match o {
                ArpOut::Failed { next_hop, packet } => Some((*next_hop, packet.uid)),
                _ => None,
            })
            .collect()
    }

    fn dropped(out: &[ArpOut]) -> Vec<u64> {
        out.iter()
            .filter_map(|o| match o {
                ArpOut::Drop { packet, reason: DropReason::Arp } => Some(packet.uid),
                _ => None,
            })
            .collect()
    }

    fn requests(out: &[ArpOut]) -> Vec<NodeId> {
        out.iter()
            .filter_map(|o| match o {
                ArpOut::Request(p) => {
                    assert_eq!(p.dst, BROADCAST);
                    assert_eq!(p.size(), 28);
                    match &p.body {
                        Body::Arp(m) if !m.reply => Some(m.target),
                        _ => panic!("not a request"),
                    }
                }
                _ => None,
            })
            .collect()
    }

    fn reply_from(n: NodeId, to: NodeId) -> ArpMsg {
        ArpMsg { reply: true, sender: n, target: to }
    }

    #[test]
    fn resolution_releases_held_packets_in_order() {
        let mut a = Arp::new(0, ArpMode::Queue(3));
        let mut out = vec![];
        a.resolve(secs(0.0), 1, data(1, 5), &mut out);
        a.resolve(secs(0.1), 1, data(2, 5), &mut out);
        a.resolve(secs(0.2), 1, data(3, 6), &mut out);
        assert_eq!(requests(&out), vec![1], "one request, not one per packet");
        assert!(sent(&out).is_empty());
        let mut out = vec![];
        a.receive(secs(0.3), 1, &reply_from(1, 0), &mut out);
        assert_eq!(sent(&out), vec![(1, 1), (1, 2), (1, 3)]);
        assert!(a.is_resolved(1));
        assert_eq!(a.poll_timeout(), None);
        // Resolved addresses and broadcast go straight through.
        let mut out = vec![];
        a.resolve(secs(100.0), 1, data(4, 5), &mut out);
        a.resolve(secs(100.0), BROADCAST, data(5, BROADCAST), &mut out);
        assert_eq!(sent(&out), vec![(1, 4), (BROADCAST, 5)]);
    }

    #[test]
    fn ns2_mode_keeps_only_the_newest_packet() {
        let mut a = Arp::new(0, ArpMode::Ns2);
        let mut out = vec![];
        a.resolve(secs(0.0), 1, data(1, 5), &mut out);
        a.resolve(secs(0.1), 1, data(2, 5), &mut out);
        a.resolve(secs(0.2), 1, data(3, 5), &mut out);
        assert_eq!(dropped(&out), vec![1, 2]);
        assert_eq!(a.held(1), 1);
        let mut out = vec![];
        a.receive(secs(0.3), 1, &reply_from(1, 0), &mut out);
        assert_eq!(sent(&out), vec![(1, 3)]);
    }

    #[test]
    fn ns2_mode_asks_per_packet_and_fails_the_fourth() {
        // ns-2 arp.cc arpresolve: no timer, a request per packet; the packet
        // that finds three requests sent fails with the held one.
        let mut a = Arp::new(0, ArpMode::Ns2);
        let mut out = vec![];
        for uid in 1..=3 {
            a.resolve(secs(uid as f64 * 0.01), 1, data(uid, 5), &mut out);
        }
        assert_eq!(requests(&out), vec![1, 1, 1]);
        assert_eq!(a.poll_timeout(), None, "no retransmission timer");
        let mut out = vec![];
        a.resolve(secs(0.04), 1, data(4, 5), &mut out);
        assert_eq!(failed(&out), vec![(1, 3), (1, 4)]);
        assert!(requests(&out).is_empty() && dropped(&out).is_empty());
        assert_eq!(a.held(1), 0);
        // The count starts again: the next packet asks and is held.
        let mut out = vec![];
        a.resolve(secs(50.0), 1, data(5, 5), &mut out);
        assert_eq!(requests(&out), vec![1]);
        assert_eq!(a.held(1), 1);
    }

    #[test]
    fn queue_mode_holds_up_to_the_limit() {
        let mut a = Arp::new(0, ArpMode::Queue(2));
        let mut out = vec![];
        for uid in 1..=4 {
            a.resolve(secs(0.0), 1, data(uid, 5), &mut out);
        }
        assert_eq!(dropped(&out), vec![1, 2]);
        assert_eq!(a.held(1), 2);
        // Separate addresses have separate queues.
        a.resolve(secs(0.0), 2, data(9, 5), &mut out);
        assert_eq!(a.held(2), 1);
        assert_eq!(requests(&out), vec![1, 2]);
    }

    #[test]
    fn retransmits_once_a_second_then_gives_up_after_three_requests() {
        let mut a = Arp::new(0, ArpMode::Queue(5));
        let mut out = vec![];
        a.resolve(secs(0.0), 1, data(1, 5), &mut out);
        a.resolve(secs(0.5), 1, data(2, 5), &mut out);
        assert_eq!(requests(&out), vec![1]);
        assert_eq!(a.poll_timeout(), Some(secs(1.0)));
        let mut out = vec![];
        a.handle_timeout(secs(0.999), &mut out);
        assert!(out.is_empty());
        a.handle_timeout(secs(1.0), &mut out);
        assert_eq!(requests(&out), vec![1]);
        assert_eq!(a.poll_timeout(), Some(secs(2.0)));
        let mut out = vec![];
        a.handle_timeout(secs(2.0), &mut out);
        assert_eq!(requests(&out), vec![1]);
        // A second after the third request: give up, fail what was held.
        let mut out = vec![];
        a.handle_timeout(secs(3.0), &mut out);
        assert!(requests(&out).is_empty());
        assert_eq!(failed(&out), vec![(1, 1), (1, 2)]);
        assert_eq!(a.poll_timeout(), None);
        assert!(!a.is_resolved(1));
        // A later packet starts a fresh resolution.
        let mut out = vec![];
        a.resolve(secs(10.0), 1, data(3, 5), &mut out);
        assert_eq!(requests(&out), vec![1]);
    }

    #[test]
    fn answers_requests_for_itself_only() {
        let mut a = Arp::new(0, ArpMode::Queue(5));
        let mut out = vec![];
        a.receive(secs(1.0), 7, &ArpMsg { reply: false, sender: 7, target: 0 }, &mut out);
        assert_eq!(out.len(), 1);
        match &out[0] {
            ArpOut::Reply(p) => {
                assert_eq!((p.src, p.dst), (0, 7));
                assert_eq!(p.body, Body::Arp(ArpMsg { reply: true, sender: 0, target: 7 }));
            }
            o => panic!("{o:?}"),
        }
        // The requester's mapping was learnt (RFC 826: we are the target).
        assert!(a.is_resolved(7));
    }

    #[test]
    fn request_for_another_node_is_ignored_except_to_learn() {
        // RFC 826 merge: a request for someone else updates an entry we
        // have (here, one being resolved, whose packets go out) ...
        let mut a = Arp::new(0, ArpMode::Queue(5));
        let mut out = vec![];
        a.resolve(secs(0.0), 3, data(1, 3), &mut out);
        let mut out = vec![];
        a.receive(secs(0.2), 3, &ArpMsg { reply: false, sender: 3, target: 4 }, &mut out);
        assert_eq!(sent(&out), vec![(3, 1)]);
        assert!(!out.iter().any(|o| matches!(o, ArpOut::Reply(_))));
        // ... but adds no new one.
        let mut out = vec![];
        a.receive(secs(0.3), 5, &ArpMsg { reply: false, sender: 5, target: 4 }, &mut out);
        assert!(out.is_empty());
        assert!(!a.is_resolved(5));

        // ns-2's arpinput learns the sender from any ARP packet, and still
        // only answers for itself.
        let mut n = Arp::new(0, ArpMode::Ns2);
        let mut out = vec![];
        n.receive(secs(0.3), 5, &ArpMsg { reply: false, sender: 5, target: 4 }, &mut out);
        assert!(out.is_empty());
        assert!(n.is_resolved(5));
    }

    #[test]
    fn two_nodes_resolve_each_other() {
        let (mut a, mut b) = (Arp::new(0, ArpMode::Ns2), Arp::new(1, ArpMode::Ns2));
        let mut out = vec![];
        a.resolve(secs(0.0), 1, data(1, 1), &mut out);
        let ArpOut::Request(req) = out.pop().unwrap() else { panic!() };
        let Body::Arp(m) = &req.body else { panic!() };
        let mut out_b = vec![];
        b.receive(secs(0.001), 0, m, &mut out_b);
        assert!(b.is_resolved(0));
        let ArpOut::Reply(rep) = out_b.pop().unwrap() else { panic!() };
        let Body::Arp(m) = &rep.body else { panic!() };
        let mut out = vec![];
        a.receive(secs(0.002), 1, m, &mut out);
        assert_eq!(sent(&out), vec![(1, 1)]);
        assert_ne!(req.uid, rep.uid);
    }
}
