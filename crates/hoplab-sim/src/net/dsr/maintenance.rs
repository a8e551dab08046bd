//! Route Maintenance (RFC 4728 §3.3, §8.3): acknowledgements and their
//! retransmission, declaring a link broken, Route Errors (§8.4.5) and
//! packet salvaging (§8.4.1).

use super::msg::{self, Ack, DsrMsg, RouteError};
use super::state::{dur, Dsr};
use crate::net::routing::{LinkCause, RouteAction, RouteNote};
use crate::net::DropReason;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet, SourceRoute};

impl Dsr {
    /// The link to `next_hop` is broken: forget it, tell the sources of the
    /// packets that used it, reclaim what the interface queue holds for it,
    /// and salvage the packets (§8.3.4: they are not simply dropped).
    pub(super) fn link_broken(&mut self, now: SimTime, next_hop: NodeId, cause: LinkCause, pkts: Vec<Packet>, out: &mut Vec<RouteAction>) {
        out.push(RouteAction::Note(RouteNote::LinkBroken { neighbor: next_hop, cause }));
        for dst in self.cache.remove_link_lost(self.me, next_hop) {
            out.push(RouteAction::RouteLost { dst }); // ELFN for local senders
        }
        self.flows_dead_link(now, self.me, next_hop);
        self.confirmed.remove(&next_hop);
        self.notified.insert(next_hop, Default::default());
        // The maintenance buffer's packets for this hop, oldest first. One
        // packet, one copy: an entry the MAC is done with holds the only
        // copy, and is salvaged here. An entry not yet sent has its copy in
        // the interface queue, which `Reclaim` gives back to be salvaged in
        // `reclaimed`, or in the MAC, which finishes with it (without
        // link-layer feedback a copy it gives up on is dropped, as in
        // DSR-UU); salvaging such an entry too would put a second copy of
        // the packet on the air.
        let mut salvage: Vec<Packet> = vec![];
        let mut i = 0;
        while i < self.maint.len() {
            if self.maint[i].next_hop == next_hop {
                let m = self.maint.remove(i);
                if m.sent {
                    salvage.push(m.packet);
                }
            } else {
                i += 1;
            }
        }
        for p in pkts {
            if !salvage.iter().any(|q| q.uid == p.uid) {
                salvage.push(p);
            }
        }
        self.errors_for(now, next_hop, &salvage, out);
        for p in salvage {
            self.salvage(now, p, out);
        }
        out.push(RouteAction::Reclaim { next_hop });
    }

    /// Send one Route Error per source of `pkts` not told yet about this
    /// break (§8.3.4, §8.4.5).
    pub(super) fn errors_for(&mut self, now: SimTime, next_hop: NodeId, pkts: &[Packet], out: &mut Vec<RouteAction>) {
        for p in pkts {
            if p.src == self.me || !self.notified.entry(next_hop).or_default().insert(p.src) {
                continue;
            }
            // Back to the source: a cached route, else the route the packet
            // took so far, reversed.
            let back = self.cache.find(now, p.src).or_else(|| {
                let sr = p.sr.as_ref()?;
                (sr.addrs[0] == p.src && sr.addrs.get(sr.at) == Some(&self.me))
                    .then(|| sr.addrs[..=sr.at].iter().rev().copied().collect())
            });
            let Some(back) = back.filter(|b| b.len() >= 2) else { continue };
            let salvage = p.sr.as_ref().map_or(0, |sr| sr.salvage);
            let error = RouteError { source: self.me, dest: p.src, unreachable: next_hop, salvage };
            let route = SourceRoute { addrs: back, at: 0, salvage: 0, ack_request: false, flow: None };
            let hop = route.next_hop().unwrap();
            let pkt = self.control(now, p.src, DsrMsg::Error { error, route });
            out.push(RouteAction::Note(RouteNote::RouteErrorSent));
            out.push(RouteAction::Send { next_hop: hop, packet: pkt });
        }
    }

    /// §8.4.1: send a packet whose next hop failed along another cached
    /// route, counting the salvage; our own packets go back to discovery.
    pub(super) fn salvage(&mut self, now: SimTime, mut p: Packet, out: &mut Vec<RouteAction>) {
        let count = p.sr.as_ref().map_or(0, |sr| sr.salvage);
        if p.src == self.me && count == 0 {
            return self.originate(now, p, out);
        }
        if !self.cfg.salvage {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
        }
        if count >= self.cfg.max_salvage_count {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Sal });
        }
        let Some(route) = self.cache.find(now, p.dst) else {
            if self.cfg.salvage_discovery {
                // ns-2 undeliverablePkt, NEW_SALVAGE_LOGIC: "allow the node
                // to perform route discovery for an intermediate hop".
                return self.buffer(now, p, out);
            }
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
        };
        p.sr = Some(Box::new(SourceRoute { addrs: route, at: 0, salvage: count + 1, ack_request: false, flow: None }));
        out.push(RouteAction::Note(RouteNote::Salvaged));
        self.transmit(now, p, out);
    }

    pub(super) fn on_error(&mut self, now: SimTime, p: Packet, error: RouteError, route: SourceRoute, out: &mut Vec<RouteAction>) {
        for dst in self.cache.remove_link_lost(error.source, error.unreachable) {
            out.push(RouteAction::RouteLost { dst }); // ELFN for local senders
        }
        self.flows_dead_link(now, error.source, error.unreachable);
        if p.dst == self.me {
            self.last_error = Some(error);
            self.last_error_at = now;
            return;
        }
        if !self.cfg.reverse_learning {
            // ns-2 handleForwarding snoops every source route it forwards.
            self.learn_path(now, &route.addrs);
        }
        self.relay_on_route(p, route, out, |route| DsrMsg::Error { error, route });
    }

    pub(super) fn on_ack(&mut self, now: SimTime, from: NodeId, a: Ack) {
        if a.ack_dest != self.me {
            return;
        }
        self.maint.retain(|m| !(m.next_hop == a.ack_source && m.packet.uid == a.id));
        self.confirmed.insert(from, now);
        self.cache.confirm(now, self.me, from);
    }

    /// The MAC is done with the frame carrying packet `uid` to `next_hop`:
    /// the entry's acknowledgement wait starts now. Only that packet's
    /// entry: a frame without one (a control packet, or data sent within
    /// MaintHoldoffTime) must not start another packet's wait while that
    /// packet still queues, or its retransmission would join it there.
    pub(super) fn mark_sent(&mut self, now: SimTime, next_hop: NodeId, uid: u64) {
        let m = self.maint.iter_mut().find(|m| !m.sent && m.next_hop == next_hop && m.packet.uid == uid);
        if let Some(m) = m {
            let wait = if m.passive { self.cfg.passive_ack_timeout_s } else { self.cfg.ack_timeout_s };
            m.sent = true;
            m.deadline = now + dur(wait);
        }
    }

    /// Unacknowledged packets: fall back from passive to network ACKs,
    /// retransmit up to MaxMaintRexmt, then declare the link broken (§8.3.3).
    pub(super) fn maint_timeouts(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        loop {
            let Some(i) = self.maint.iter().position(|m| m.deadline <= now) else { return };
            let m = &mut self.maint[i];
            if !m.sent {
                // Never reported sent: no evidence about the link.
                self.maint.remove(i);
                continue;
            }
            if m.rexmt >= self.cfg.max_maint_rexmt {
                let hop = m.next_hop;
                self.link_broken(now, hop, LinkCause::NoAck, vec![], out);
                continue;
            }
            m.rexmt += 1;
            // TryPassiveAcks transmissions wait for a passive ACK; then ask.
            m.passive = m.passive && m.rexmt < self.cfg.try_passive_acks;
            // The new copy queues again; its wait starts when it leaves.
            m.sent = false;
            m.deadline = now + dur(super::state::UNSENT_LIMIT_S);
            let ask = !m.passive;
            let mut p = m.packet.clone();
            let next_hop = m.next_hop;
            msg::set_header(&mut p, ask);
            out.push(RouteAction::Send { next_hop, packet: p });
        }
    }
}
