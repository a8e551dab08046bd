//! Route Discovery (RFC 4728 §3.1, §8.2): requests, replies from the target
//! and from caches, the request table, and snooping (§3.4, §8.1.4, §8.3.5).

use super::config::RequestBackoff;
use super::msg::{DsrMsg, RouteReply, RouteRequest};
use super::state::{dur, Discovery, Dsr};
use crate::net::routing::{RouteAction, RouteNote};
use crate::net::{DropReason, RoutingMsg};
use crate::time::{Dur, SimTime};
use std::collections::{BTreeSet, VecDeque};

/// ns-2 dsragent.cc `dsr_salvage_max_requests`: request cycles a node may
/// start for packets it salvages for others.
const SALVAGE_MAX_REQUESTS: u32 = 1;
use crate::wire::{Body, NodeId, Packet, SourceRoute, BROADCAST};

fn has_repeat(path: &[NodeId]) -> bool {
    path.iter().enumerate().any(|(i, n)| path[..i].contains(n))
}

impl Dsr {
    /// Start a discovery for `dst` unless one is running (§8.2.1).
    pub(super) fn start_discovery(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        if self.discoveries.contains_key(&dst) {
            return;
        }
        out.push(RouteAction::Note(RouteNote::DiscoveryStarted { dst }));
        let period = dur(self.cfg.request_period_s);
        if self.cfg.request_backoff == RequestBackoff::Ns2 {
            // `rexmt` 1: no request of this cycle is pending; try a new one.
            self.discoveries.insert(dst, Discovery { rexmt: 1, next: now, period });
            return self.ns2_request(now, dst, out);
        }
        if self.cfg.nonprop_requests {
            // §3.3.3: first ask the neighbours only (TTL 1).
            self.send_request(now, dst, 1, out);
            let next = now + dur(self.cfg.nonprop_request_timeout_s);
            self.discoveries.insert(dst, Discovery { rexmt: 0, next, period });
        } else {
            self.send_request(now, dst, self.cfg.discovery_hop_limit, out);
            self.discoveries.insert(dst, Discovery { rexmt: 1, next: now + period, period: period.mul(2) });
        }
    }

    fn send_request(&mut self, now: SimTime, target: NodeId, ttl: u8, out: &mut Vec<RouteAction>) {
        self.next_request_id = self.next_request_id.wrapping_add(1);
        // §8.2.1: a Route Error we received rides on the next request, so
        // neighbours drop the broken link before answering from their cache.
        let error = if !self.cfg.gratuitous_errors {
            None
        } else if self.cfg.error_hold_s > 0.0 {
            // ns-2 sendOutRtReq: every request within max_err_hold of the
            // error carries it; "make sure that the Route Error gets on a
            // propagating request": only a propagating one clears it.
            let e = self.last_error.filter(|_| now < self.last_error_at + dur(self.cfg.error_hold_s));
            if ttl > 1 {
                self.last_error = None;
            }
            e
        } else {
            self.last_error.take()
        };
        let r = RouteRequest { id: self.next_request_id, target, addrs: vec![], error };
        let mut p = self.control(now, BROADCAST, DsrMsg::Request(r));
        p.ttl = ttl;
        if self.cfg.jitter_originated {
            // ns-2 dsragent.cc sendOutPacketWithRoute: every route request
            // leaves after Random::uniform(RREQ_JITTER).
            let wait = dur(self.cfg.broadcast_jitter_s * self.rng.unit());
            self.jitter.push((now + wait, BROADCAST, p));
            return;
        }
        out.push(RouteAction::Send { next_hop: BROADCAST, packet: p });
    }

    /// ns-2's request cycle for `dst` (dsragent.cc getRouteForPacket), due
    /// now. `rexmt` 0: the cycle's non-propagating request went out and
    /// went unanswered for NonpropRequestTimeout (ns-2 `arp_timeout`), so a
    /// propagating one follows. `rexmt` 1: a new cycle may start if
    /// `BackOffTest` allows; otherwise wait until it does.
    fn ns2_request(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        let e = self.backoff.entry(dst).or_default();
        // ns-2 dsragent.cc BackOffTest: 4^n * rt_rq_period, at most rt_rq_max_period.
        let wait = |cycles: u32| dur((self.cfg.request_period_s * 4f64.powi(cycles as i32)).min(self.cfg.max_request_period_s));
        let d = self.discoveries.get_mut(&dst).unwrap();
        if d.rexmt == 0 {
            d.rexmt = 1;
            d.next = e.last.unwrap_or(now) + wait(e.cycles);
            return self.send_request(now, dst, self.cfg.discovery_hop_limit, out);
        }
        if let Some(t) = e.last.map(|last| last + wait(e.cycles)).filter(|&t| t > now) {
            // ns-2 re-runs the test at every send buffer check (30-60 ms);
            // here the cycle starts exactly when the test would pass.
            d.next = t;
            return;
        }
        // dsragent.cc: "don't let rt_reqs_outstanding overflow".
        e.cycles = (e.cycles + 1).min(15);
        e.last = Some(now);
        let cycles = e.cycles;
        if self.cfg.nonprop_requests {
            // dsragent_ring_zero_search: a non-propagating request first.
            d.rexmt = 0;
            d.next = now + dur(self.cfg.nonprop_request_timeout_s);
            self.send_request(now, dst, 1, out);
        } else {
            d.next = now + wait(cycles);
            self.send_request(now, dst, self.cfg.discovery_hop_limit, out);
        }
    }

    /// `send_buffer_check_s`: ns-2's getRouteForPacket for one buffered
    /// packet to `dst` (ours if `own`), run when it is buffered and at every
    /// scan. `BackOffTest` passing starts a request cycle (a non-propagating
    /// request first); a non-propagating request unanswered for more than
    /// NonpropRequestTimeout (`arp_timeout`) is followed by a propagating
    /// one, for our own packets only (`dsr_salvage_allow_propagating` 0).
    /// False: drop this salvaged packet (`dsr_salvage_max_requests` 1).
    pub(super) fn ns2_get_route(&mut self, now: SimTime, dst: NodeId, own: bool, out: &mut Vec<RouteAction>) -> bool {
        let (period, max) = (self.cfg.request_period_s, self.cfg.max_request_period_s);
        let e = self.backoff.entry(dst).or_default();
        let wait = dur((period * 4f64.powi(e.cycles as i32)).min(max));
        if e.last.is_none_or(|last| last + wait <= now) {
            // BackOffTest passed.
            e.cycles = (e.cycles + 1).min(15);
            e.last = Some(now);
            if !own && e.cycles > SALVAGE_MAX_REQUESTS {
                return false;
            }
            e.limit0 = self.cfg.nonprop_requests;
            e.last_arp = now;
            let ttl = if e.limit0 { 1 } else { self.cfg.discovery_hop_limit };
            self.send_request(now, dst, ttl, out);
        } else if e.limit0 && own && now > e.last_arp + dur(self.cfg.nonprop_request_timeout_s) {
            e.limit0 = false;
            self.send_request(now, dst, self.cfg.discovery_hop_limit, out);
        }
        true
    }

    /// `send_buffer_check_s`: ns-2 sendBufferCheck. Every buffered packet
    /// leaves if a route is cached now; else it is dropped after
    /// SendBufferTimeout, or asks for a route again (`ns2_get_route`).
    pub(super) fn scan_send_buffer(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let mut keep = VecDeque::new();
        let mut released = BTreeSet::new();
        for (t, p) in std::mem::take(&mut self.send_buf) {
            if t + dur(self.cfg.send_buffer_s) < now {
                out.push(RouteAction::Drop { packet: p, reason: DropReason::Tout });
                continue;
            }
            if let Some(path) = self.cache.find(now, p.dst) {
                released.insert(p.dst);
                self.release(now, p, path, out);
                continue;
            }
            let (dst, own) = (p.dst, p.src == self.me);
            if !self.ns2_get_route(now, dst, own, out) {
                out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
                continue;
            }
            keep.push_back((t, p));
        }
        self.send_buf = keep;
        self.end_discoveries(&released, out);
    }

    /// Discoveries with no packet left waiting end: with a route if one of
    /// their packets left on one, else failed.
    fn end_discoveries(&mut self, released: &BTreeSet<NodeId>, out: &mut Vec<RouteAction>) {
        let over: Vec<NodeId> = self.discoveries.keys().copied().filter(|d| !self.send_buf.iter().any(|(_, p)| p.dst == *d)).collect();
        for dst in over {
            self.discoveries.remove(&dst);
            let note = if released.contains(&dst) { RouteNote::DiscoveryDone { dst } } else { RouteNote::DiscoveryFailed { dst } };
            out.push(RouteAction::Note(note));
        }
    }

    /// Send a buffered packet on `path` (from us), keeping its salvage count.
    pub(super) fn release(&mut self, now: SimTime, mut p: Packet, path: Vec<NodeId>, out: &mut Vec<RouteAction>) {
        let salvage = p.sr.as_ref().map_or(0, |sr| sr.salvage);
        p.sr = Some(Box::new(SourceRoute { addrs: path, at: 0, salvage, ack_request: false, flow: None }));
        self.send_own(now, p, out);
    }

    /// `send_buffer_check_s`: ns-2 acceptRouteReply sends every buffered
    /// packet that now has a route, one per `arp_timeout` (our
    /// NonpropRequestTimeout) "to give ARP time to complete".
    fn release_on_reply(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let mut keep = VecDeque::new();
        let mut released = BTreeSet::new();
        let mut delay = Dur::ZERO;
        for (t, p) in std::mem::take(&mut self.send_buf) {
            let Some(path) = self.cache.find(now, p.dst) else {
                keep.push_back((t, p));
                continue;
            };
            released.insert(p.dst);
            if delay == Dur::ZERO {
                self.release(now, p, path, out);
            } else {
                // The route (and flow) are fixed now; the packet waits.
                let mut later = vec![];
                self.release(now, p, path, &mut later);
                for a in later {
                    match a {
                        RouteAction::Send { packet, .. } => self.spaced.push_back((now + delay, packet)),
                        a => out.push(a),
                    }
                }
            }
            delay = delay + dur(self.cfg.nonprop_request_timeout_s);
        }
        self.send_buf = keep;
        self.end_discoveries(&released, out);
    }

    /// Retransmit requests with exponential back-off, up to MaxRequestRexmt
    /// (§8.2.1); give up once no packet waits for the target.
    pub(super) fn discovery_timeouts(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let due: Vec<NodeId> = self.discoveries.iter().filter(|(_, d)| d.next <= now).map(|(&k, _)| k).collect();
        for dst in due {
            let waiting = self.send_buf.iter().any(|(_, p)| p.dst == dst);
            if waiting && self.cfg.request_backoff == RequestBackoff::Ns2 {
                // ns-2 never gives up: a packet waits until SendBufferTimeout.
                self.ns2_request(now, dst, out);
                continue;
            }
            let d = &self.discoveries[&dst];
            if !waiting || d.rexmt >= self.cfg.max_request_rexmt {
                self.discoveries.remove(&dst);
                out.push(RouteAction::Note(RouteNote::DiscoveryFailed { dst }));
                continue;
            }
            self.send_request(now, dst, self.cfg.discovery_hop_limit, out);
            let max = dur(self.cfg.max_request_period_s);
            let d = self.discoveries.get_mut(&dst).unwrap();
            d.rexmt += 1;
            d.next = now + d.period;
            d.period = d.period.mul(2).min(max);
        }
    }

    /// Request table duplicate check (§8.2.2); records the id when new.
    fn seen_before(&mut self, initiator: NodeId, id: u16) -> bool {
        self.seen_clock += 1;
        let clock = self.seen_clock;
        if let Some((used, ids)) = self.seen.get_mut(&initiator) {
            *used = clock;
            if ids.contains(&id) {
                return true;
            }
            ids.push_back(id);
            if ids.len() > self.cfg.request_table_ids {
                ids.pop_front();
            }
            return false;
        }
        if self.seen.len() >= self.cfg.request_table_size {
            // RequestTableSize: evict the least recently used initiator.
            let lru = self.seen.iter().min_by_key(|(_, (u, _))| *u).map(|(&k, _)| k).unwrap();
            self.seen.remove(&lru);
        }
        self.seen.insert(initiator, (clock, [id].into()));
        false
    }

    pub(super) fn on_request(&mut self, now: SimTime, from: NodeId, mut p: Packet, mut r: RouteRequest, out: &mut Vec<RouteAction>) {
        let initiator = p.src;
        if initiator == self.me || r.addrs.contains(&self.me) {
            return;
        }
        if let Some(e) = r.error {
            self.cache.remove_link(e.source, e.unreachable);
            self.flows_dead_link(now, e.source, e.unreachable);
        }
        // The route the request took, back to its initiator, via `from`.
        let mut taken = vec![initiator];
        taken.extend(&r.addrs);
        let mut back = vec![self.me];
        back.extend(taken.iter().rev());
        // ns-2 learns the way back only where it answers (returnSrcRouteToRequestor,
        // replyFromRouteCache); handleRouteRequest caches nothing.
        if taken.last() == Some(&from) && (self.cfg.reverse_learning || r.target == self.me) {
            self.cache.add(now, &back);
        }
        if r.target == self.me {
            // §8.2.2: the target answers every copy, so the initiator may
            // learn several routes.
            let mut route = r.addrs.clone();
            route.push(self.me);
            if self.cfg.jitter_originated {
                // ns-2 dsragent.cc returnSrcRouteToRequestor: the target's
                // reply leaves after Random::uniform(RREQ_JITTER).
                let mut later = vec![];
                self.send_reply(now, initiator, &r.addrs, route, &mut later);
                let wait = dur(self.cfg.broadcast_jitter_s * self.rng.unit());
                for a in later {
                    match a {
                        RouteAction::Send { next_hop, packet } => self.jitter.push((now + wait, next_hop, packet)),
                        a => out.push(a),
                    }
                }
                return;
            }
            return self.send_reply(now, initiator, &r.addrs, route, out);
        }
        if self.seen_before(initiator, r.id) {
            return;
        }
        if self.cfg.reply_from_cache {
            if let Some(cached) = self.cache.find(now, r.target) {
                // §8.2.3: the concatenated route must not repeat a node;
                // if it would, propagate the request as usual instead.
                let mut full = taken.clone();
                full.extend(&cached);
                if !has_repeat(&full) {
                    if !self.cfg.reverse_learning && taken.last() == Some(&from) {
                        self.cache.add(now, &back);
                    }
                    return self.send_reply(now, initiator, &r.addrs, full[1..].to_vec(), out);
                }
            }
        }
        if p.ttl <= 1 {
            return; // a non-propagating request, or its hop limit reached
        }
        p.ttl -= 1;
        r.addrs.push(self.me);
        p.body = Body::Routing(RoutingMsg::Dsr(DsrMsg::Request(r)));
        let wait = dur(self.cfg.broadcast_jitter_s * self.rng.unit());
        self.jitter.push((now + wait, BROADCAST, p));
    }

    /// Send a Route Reply carrying `route` (initiator excluded) back along
    /// the reverse of the recorded `addrs` (§8.2.4, bidirectional links).
    fn send_reply(&mut self, now: SimTime, initiator: NodeId, addrs: &[NodeId], route: Vec<NodeId>, out: &mut Vec<RouteAction>) {
        let mut back = vec![self.me];
        back.extend(addrs.iter().rev());
        back.push(initiator);
        let sr = SourceRoute { addrs: back, at: 0, salvage: 0, ack_request: false, flow: None };
        let next_hop = sr.next_hop().unwrap();
        let p = self.control(now, initiator, DsrMsg::Reply { reply: RouteReply { addrs: route }, route: sr });
        out.push(RouteAction::Send { next_hop, packet: p });
    }

    pub(super) fn on_reply(&mut self, now: SimTime, p: Packet, reply: RouteReply, route: SourceRoute, out: &mut Vec<RouteAction>) {
        let mut full = vec![p.dst];
        full.extend(&reply.addrs);
        if p.dst == self.me {
            self.cache.add(now, &full);
            let target = *full.last().unwrap();
            // ns-2 dsragent.cc acceptRouteReply: "back down the route
            // request counters" of the target.
            self.backoff.remove(&target);
            if self.scanning() {
                return self.release_on_reply(now, out);
            }
            if self.cache.find(now, target).is_some() && self.discoveries.remove(&target).is_some() {
                out.push(RouteAction::Note(RouteNote::DiscoveryDone { dst: target }));
            }
            return; // the buffered packets leave in `flush`
        }
        if self.cfg.reverse_learning {
            self.learn_path(now, &full);
        } else {
            // ns-2 handleForwarding: the reply's own source route, from us on.
            self.learn_path(now, &route.addrs);
        }
        self.relay_on_route(p, route, out, |route| DsrMsg::Reply { reply, route });
    }

    /// Promiscuous listening: passive acknowledgements, route snooping,
    /// errors heard, and automatic route shortening.
    pub(super) fn on_overhear(&mut self, now: SimTime, from: NodeId, to: NodeId, p: &Packet, out: &mut Vec<RouteAction>) {
        // §8.3.3: the next hop forwarding our packet acknowledges it.
        let before = self.maint.len();
        self.maint.retain(|m| !(m.next_hop == from && m.packet.uid == p.uid));
        if self.maint.len() < before {
            self.confirmed.insert(from, now);
            self.cache.confirm(now, self.me, from);
        }
        if !self.cfg.snoop_own_packets && p.src == self.me {
            return; // ns-2 dsragent.cc tap: "don't trouble me with my own packets"
        }
        if let Body::Routing(RoutingMsg::Dsr(m)) = &p.body {
            match m {
                // §8.4.5 (heard errors): the link is gone for us too.
                DsrMsg::Error { error, .. } => {
                    self.cache.remove_link(error.source, error.unreachable);
                    self.flows_dead_link(now, error.source, error.unreachable);
                }
                DsrMsg::Reply { reply, route } if self.cfg.snoop_routes => {
                    // The reply's own route, and the way it travels back.
                    let mut full = vec![p.dst];
                    full.extend(&reply.addrs);
                    let back = route.addrs.clone();
                    // ns-2 tap: the reply's route only if we are on it.
                    let on_it = self.cfg.reverse_learning || full.contains(&self.me);
                    if let Some(k) = full.iter().position(|&n| n == from).filter(|_| on_it) {
                        self.learn_via(now, &full, k);
                    }
                    if let Some(k) = back.iter().position(|&n| n == from) {
                        self.learn_via(now, &back, k);
                    }
                }
                _ => {}
            }
            return;
        }
        let Some(sr) = &p.sr else { return };
        // ns-2 tap: a packet without its route on the wire teaches nothing
        // (flow route shortening, processFlowARS, is not modelled).
        if sr.flow.is_some_and(|f| !f.establish) {
            return;
        }
        if sr.addrs.get(sr.at) != Some(&from) {
            return;
        }
        let addrs = sr.addrs.clone();
        let at = sr.at;
        if self.cfg.snoop_routes {
            // §3.4.1, §8.1.4: learn from the source route overheard.
            self.learn_via(now, &addrs, at);
        }
        if self.cfg.gratuitous_replies {
            self.shorten(now, from, to, &addrs, at, out);
        }
    }

    /// §3.4.3, §8.3.5: we overheard `from` send to `to` a packet whose route
    /// reaches us later: tell the route's source it can skip the hops between.
    fn shorten(&mut self, now: SimTime, from: NodeId, to: NodeId, addrs: &[NodeId], at: usize, out: &mut Vec<RouteAction>) {
        let Some(j) = addrs.iter().position(|&n| n == self.me) else { return };
        if j <= at + 1 || addrs.get(at + 1) != Some(&to) {
            return;
        }
        let source = addrs[0];
        if source == self.me || self.grat_sent.contains_key(&(source, from)) {
            return; // GratReplyHoldoff
        }
        self.grat_sent.insert((source, from), now);
        let mut short: Vec<NodeId> = addrs[..=at].to_vec();
        short.extend(&addrs[j..]);
        if has_repeat(&short) {
            return;
        }
        // The reply goes back along the first part of the route, from `from`.
        let recorded: Vec<NodeId> = addrs[1..=at].to_vec();
        self.send_reply(now, source, &recorded, short[1..].to_vec(), out);
    }
}
