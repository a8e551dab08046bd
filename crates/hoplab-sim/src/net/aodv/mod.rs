//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561), as a sans-IO
//! state machine: route discovery with an expanding ring (§6.3-6.7), route
//! maintenance by HELLOs or link-layer feedback (§6.9-6.11), optional local
//! repair (§6.12). AODV-UU (seed 003) is the implementation the `aodv-uu`
//! preset follows.

mod config;
use crate::wire::aodv as msg;
mod table;
#[cfg(test)]
mod tests;

#[cfg_attr(not(test), allow(unused_imports))]
pub use config::{AodvConfig, DiscoveryRule, Lifetimes, LinkDetection, LinkFailureRule};
use config::NS2_REV_ROUTE_LIFE;
pub use msg::{fresher, AodvMsg, Rerr, Rrep, Rreq};
#[cfg_attr(not(test), allow(unused_imports))]
pub use table::{State, Table, NEVER_DOWN};

use crate::net::routing::{LinkCause, Protocol, RouteAction, RouteNote};
use crate::net::{DropReason, RoutingMsg};
use crate::rng::Stream;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, BROADCAST, DEFAULT_TTL};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A route discovery under way (§6.3, §6.4) or a local repair (§6.12).
#[derive(Clone, Debug)]
struct Discovery {
    /// TTL of the last RREQ sent.
    ttl: u8,
    /// RREQs sent with TTL = NET_DIAMETER so far.
    at_max: u32,
    deadline: SimTime,
    /// A local repair: the hop count of the broken route.
    repair: Option<u8>,
}

/// ns-2's per-destination request state, the "soft state" its route entry
/// keeps for route requests (aodv_rtable.h: `rt_req_timeout`,
/// `rt_req_cnt`, `rt_req_last_ttl`, `rt_disc_latency[MAX_HISTORY]`,
/// `hist_indx`). Used by the ns2 discovery rule only; kept for the life of
/// the node, as ns-2 never deletes a route entry.
#[derive(Clone, Debug, PartialEq)]
struct ReqState {
    /// No RREQ before this time; ZERO when none is pending.
    timeout: SimTime,
    /// Network-wide RREQs since the last reply.
    cnt: u32,
    /// TTL of the last RREQ (or the hop count of the last reply); 0 = none.
    last_ttl: u8,
    /// The route's last hop count, kept here once its table entry is gone.
    last_hops: u8,
    /// Seconds per hop of the last MAX_HISTORY (3) discoveries; 0 = none.
    latency: [f64; 3],
    hist: usize,
}

impl ReqState {
    fn new() -> ReqState {
        ReqState { timeout: SimTime::ZERO, cnt: 0, last_ttl: 0, last_hops: NEVER_DOWN, latency: [0.0; 3], hist: 0 }
    }

    /// ns-2 aodv.cc `PerHopTime`: the mean of the recorded per-hop
    /// latencies, NODE_TRAVERSAL_TIME when there are none.
    fn per_hop_time(&self, node_traversal_s: f64) -> f64 {
        let got: Vec<f64> = self.latency.iter().copied().filter(|&l| l > 0.0).collect();
        if got.is_empty() {
            node_traversal_s
        } else {
            got.iter().sum::<f64>() / got.len() as f64
        }
    }
}

/// A neighbour whose HELLOs we monitor (§6.9).
#[derive(Clone, Copy, Debug)]
struct Neighbor {
    last_heard: SimTime,
    last_hello: SimTime,
}

pub struct Aodv {
    me: NodeId,
    cfg: AodvConfig,
    rng: Stream,
    /// Our own sequence number (§6.1).
    seqno: u32,
    /// The one RREQ ID a node keeps (§6.3).
    rreq_id: u32,
    pub(crate) table: Table,
    /// (originator, RREQ ID) seen within PATH_DISCOVERY_TIME (§6.5), and
    /// the same in expiry order.
    seen: BTreeSet<(NodeId, u32)>,
    seen_expiry: VecDeque<(SimTime, (NodeId, u32))>,
    discoveries: BTreeMap<NodeId, Discovery>,
    /// Data waiting for a route, FIFO (§6.3), with its enqueue time.
    buffer: VecDeque<(SimTime, Packet)>,
    neighbors: BTreeMap<NodeId, Neighbor>,
    /// When to consider sending a HELLO; None when HELLOs are off.
    next_hello: Option<SimTime>,
    /// Broadcasts held back by jitter, by release time.
    jittered: BTreeMap<(SimTime, u64), Packet>,
    /// Times of the RERRs originated in the last second (RERR_RATELIMIT).
    rerr_times: VecDeque<SimTime>,
    /// Neighbours whose RREQs are ignored until the given time (§6.8).
    blacklist: BTreeMap<NodeId, SimTime>,
    counter: u64,
    /// ns2 discovery: request state per destination.
    req: BTreeMap<NodeId, ReqState>,
    /// ns2 discovery: the next route sweep (ns-2 `rt_purge`).
    next_sweep: Option<SimTime>,
    /// ns2 link failure: local-repair checks (ns-2 `LocalRepairTimer`),
    /// by time and order of arming, with their destination.
    repair_checks: BTreeMap<(SimTime, u64), NodeId>,
    /// Released packets held back by `release_spacing_s`: (next hop, packet).
    held: BTreeMap<(SimTime, u64), (NodeId, Packet)>,
}

/// The IP header of a received control packet: what an ns-2 relay keeps
/// when it forwards a RREP (aodv.cc recvReply).
struct Carrier {
    uid: u64,
    src: NodeId,
    dst: NodeId,
    ttl: u8,
    created: SimTime,
}

impl Aodv {
    pub fn new(me: NodeId, cfg: &AodvConfig, mut rng: Stream) -> Aodv {
        // Nodes start their HELLO cycles at independent offsets so that
        // they do not all broadcast at once.
        let next_hello = cfg
            .link_detection
            .hello()
            .then(|| SimTime::ZERO + Dur::from_secs_f64(rng.unit() * cfg.hello_interval_s));
        Aodv {
            me,
            cfg: cfg.clone(),
            rng,
            seqno: 0,
            rreq_id: 0,
            table: Table::new(cfg.link_failure == LinkFailureRule::Ns2),
            seen: BTreeSet::new(),
            seen_expiry: VecDeque::new(),
            discoveries: BTreeMap::new(),
            buffer: VecDeque::new(),
            neighbors: BTreeMap::new(),
            next_hello,
            jittered: BTreeMap::new(),
            rerr_times: VecDeque::new(),
            blacklist: BTreeMap::new(),
            counter: 0,
            req: BTreeMap::new(),
            // ns-2 starts the RouteCacheTimer with the agent at time 0.
            next_sweep: (cfg.discovery == DiscoveryRule::Ns2).then_some(SimTime::ZERO),
            repair_checks: BTreeMap::new(),
            held: BTreeMap::new(),
        }
    }

    /// Our own destination sequence number.
    #[allow(dead_code)]
    pub fn own_seqno(&self) -> u32 {
        self.seqno
    }

    /// Packets waiting for a route.
    #[cfg(test)]
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    fn packet(&mut self, now: SimTime, dst: NodeId, ttl: u8, msg: AodvMsg) -> Packet {
        self.counter += 1;
        let uid = (self.me as u64) << 40 | 1 << 39 | self.counter;
        let mut p = Packet::new(uid, self.me, dst, Body::Routing(RoutingMsg::Aodv(msg)), now);
        p.ttl = ttl;
        p
    }

    /// Hop-by-hop control messages (RREP, unicast RERR, RREP-ACK) are
    /// processed at every hop, so one hop of IP TTL is enough.
    fn unicast(&mut self, now: SimTime, next_hop: NodeId, msg: AodvMsg, out: &mut Vec<RouteAction>) {
        let packet = self.packet(now, next_hop, 1, msg);
        out.push(RouteAction::Send { next_hop, packet });
    }

    /// A RREP toward `orig` by way of `next_hop`. ns-2 aodv.cc sendReply
    /// addresses it to the originator with TTL NETWORK_DIAMETER, and each
    /// relay forwards that one packet (recvReply: `forward(rt0, p)`); the
    /// RFC's relays each send their own (§6.7), one hop of TTL.
    fn reply(&mut self, now: SimTime, next_hop: NodeId, orig: NodeId, m: Rrep, out: &mut Vec<RouteAction>) {
        if self.cfg.discovery != DiscoveryRule::Ns2 {
            return self.unicast(now, next_hop, AodvMsg::Rrep(m), out);
        }
        let packet = self.packet(now, orig, self.cfg.net_diameter, AodvMsg::Rrep(m));
        out.push(RouteAction::Send { next_hop, packet });
    }

    fn broadcast(&mut self, now: SimTime, ttl: u8, msg: AodvMsg, out: &mut Vec<RouteAction>) {
        let packet = self.packet(now, BROADCAST, ttl, msg);
        let delay = Dur::from_secs_f64(self.rng.unit() * self.cfg.broadcast_jitter_s);
        self.release_broadcast(now, delay, packet, out);
    }

    /// A broadcast this node originates: jittered only with
    /// `jitter_originated` (no draw otherwise).
    fn broadcast_own(&mut self, now: SimTime, ttl: u8, msg: AodvMsg, out: &mut Vec<RouteAction>) {
        if self.cfg.jitter_originated {
            self.broadcast(now, ttl, msg, out);
        } else {
            let packet = self.packet(now, BROADCAST, ttl, msg);
            self.emit_broadcast(now, packet, out);
        }
    }

    fn release_broadcast(&mut self, now: SimTime, delay: Dur, packet: Packet, out: &mut Vec<RouteAction>) {
        if delay == Dur::ZERO {
            self.emit_broadcast(now, packet, out);
        } else {
            self.jittered.insert((now + delay, packet.uid), packet);
        }
    }

    fn emit_broadcast(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        // §6.9: a HELLO is needed only after HELLO_INTERVAL without any broadcast.
        if let Some(t) = self.next_hello.as_mut() {
            *t = (*t).max(now + self.cfg.hello_interval());
        }
        out.push(RouteAction::Send { next_hop: BROADCAST, packet });
    }

    // ----- Data -----

    /// Send a data packet along a valid route, refreshing the lifetimes of
    /// the routes it uses (§6.2).
    fn forward(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        let next_hop = self.table.valid(packet.dst, now).map(|r| r.next_hop).expect("forward without a valid route");
        let until = now + self.cfg.active_route_timeout();
        self.table.extend(packet.dst, now, until, true);
        self.table.extend(next_hop, now, until, true);
        if packet.src != self.me {
            if let Some(prev) = self.table.valid(packet.src, now).map(|r| r.next_hop) {
                self.table.extend(packet.src, now, until, true);
                self.table.extend(prev, now, until, true);
            }
        }
        out.push(RouteAction::Send { next_hop, packet });
    }

    fn buffer_push(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        if self.buffer.len() >= self.cfg.buffer_packets {
            // ns-2 aodv_rqueue drops the oldest packet when full.
            if let Some((_, old)) = self.buffer.pop_front() {
                out.push(RouteAction::Drop { packet: old, reason: DropReason::Qfull });
            }
        }
        self.buffer.push_back((now, packet));
    }

    /// Release, in FIFO order, buffered packets that now have a route; with
    /// `spacing`, the k-th packet for a destination k * spacing later.
    fn release(&mut self, now: SimTime, spacing: Dur, out: &mut Vec<RouteAction>) {
        let mut keep = VecDeque::with_capacity(self.buffer.len());
        let mut nth: BTreeMap<NodeId, u64> = BTreeMap::new();
        for (t, p) in std::mem::take(&mut self.buffer) {
            if self.table.valid(p.dst, now).is_some() {
                let k = nth.entry(p.dst).or_insert(0);
                let delay = spacing.mul(*k);
                *k += 1;
                if delay == Dur::ZERO {
                    self.forward(now, p, out);
                } else {
                    let mut sent = vec![];
                    self.forward(now, p, &mut sent);
                    for a in sent {
                        match a {
                            RouteAction::Send { next_hop, packet } => {
                                self.counter += 1;
                                self.held.insert((now + delay, self.counter), (next_hop, packet));
                            }
                            other => out.push(other),
                        }
                    }
                }
            } else {
                keep.push_back((t, p));
            }
        }
        self.buffer = keep;
    }

    fn drop_buffered(&mut self, dst: NodeId, reason: DropReason, out: &mut Vec<RouteAction>) {
        let mut keep = VecDeque::with_capacity(self.buffer.len());
        for (t, p) in std::mem::take(&mut self.buffer) {
            if p.dst == dst {
                out.push(RouteAction::Drop { packet: p, reason });
            } else {
                keep.push_back((t, p));
            }
        }
        self.buffer = keep;
    }

    /// A packet that could not go over a broken link: buffered when a local
    /// repair of its destination is under way, else dropped as ns-2 does (CBK).
    fn handle_failed(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        let repairing = !packet.is_routing()
            && self.table.get(packet.dst).is_some_and(|r| r.state == State::Repairing);
        if !packet.is_routing() && packet.src == self.me {
            // The source keeps its own packets and routes them again, which
            // starts a discovery if no route is left (§6.3; seed 002 §8.1.2:
            // ns-2's AODV re-routes only packets found at their origin).
            self.route(now, packet, out);
        } else if repairing {
            self.buffer_push(now, packet, out);
        } else {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
        }
    }

    // ----- Route discovery (§6.3, §6.4) -----

    /// The first TTL of a discovery (§6.4): TTL_START, or, for a destination
    /// whose route was lost, "the Hop Count plus TTL_INCREMENT", even beyond
    /// TTL_THRESHOLD: TTL_THRESHOLD only bounds the later increments
    /// (`discovery_timeout`). AODV-UU does the same (aodv_rreq.c,
    /// rreq_route_discovery), so a lost 8-hop route is first sought with
    /// TTL 10 for RING_TRAVERSAL_TIME(10) = 0.96 s, not NET_TRAVERSAL_TIME.
    fn first_ttl(&self, dst: NodeId) -> u8 {
        let c = &self.cfg;
        if !c.expanding_ring {
            return c.net_diameter;
        }
        match self.table.get(dst) {
            Some(r) => r.hops.saturating_add(c.ttl_increment).min(c.net_diameter),
            None => c.ttl_start,
        }
    }

    fn start_discovery(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        out.push(RouteAction::Note(RouteNote::DiscoveryStarted { dst }));
        let ttl = self.first_ttl(dst);
        let mut d = Discovery { ttl, at_max: 0, deadline: now, repair: None };
        self.send_rreq(now, dst, &mut d, out);
        self.discoveries.insert(dst, d);
    }

    /// Originate a RREQ with `d.ttl` and set the time to wait for a RREP:
    /// RING_TRAVERSAL_TIME below NET_DIAMETER, else NET_TRAVERSAL_TIME
    /// doubled for each retry (§6.3 binary exponential backoff).
    fn send_rreq(&mut self, now: SimTime, dst: NodeId, d: &mut Discovery, out: &mut Vec<RouteAction>) {
        let wait = if d.repair.is_some() || d.ttl < self.cfg.net_diameter {
            self.cfg.ring_traversal_time(d.ttl)
        } else {
            d.at_max += 1;
            self.cfg.net_traversal_time().mul(1 << (d.at_max - 1).min(20))
        };
        d.deadline = now + wait;
        self.emit_rreq(now, dst, d.ttl, out);
    }

    /// Originate one RREQ for `dst` with IP TTL `ttl`.
    fn emit_rreq(&mut self, now: SimTime, dst: NodeId, ttl: u8, out: &mut Vec<RouteAction>) {
        // §6.1: increment our own sequence number before a discovery.
        self.seqno = self.seqno.wrapping_add(1);
        self.rreq_id = self.rreq_id.wrapping_add(1);
        self.remember_rreq(now, self.me, self.rreq_id);
        let (dst_seqno, unknown) = match self.table.get(dst) {
            Some(r) if r.valid_seqno => (r.seqno, false),
            _ => (0, true),
        };
        let rreq = Rreq {
            gratuitous: self.cfg.gratuitous_rrep,
            dest_only: self.cfg.destination_only,
            unknown_seqno: unknown,
            hop_count: 0,
            rreq_id: self.rreq_id,
            dst,
            dst_seqno,
            orig: self.me,
            orig_seqno: self.seqno,
            timestamp: now,
        };
        self.broadcast_own(now, ttl, AodvMsg::Rreq(rreq), out);
    }

    // ----- ns-2's discovery pacing (DiscoveryRule::Ns2) -----

    /// ns-2 aodv.cc `sendRequest`: called for every packet the node
    /// originates without a route, by the route sweep and by a local
    /// repair; sends a RREQ only when the last one's wait is over.
    fn ns2_request(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        if self.table.valid(dst, now).is_some() {
            return;
        }
        let last_hops = match self.table.get(dst) {
            Some(r) => r.last_hops,
            None => self.req.get(&dst).map_or(NEVER_DOWN, |s| s.last_hops),
        };
        let c = &self.cfg;
        let (max_wait, nt) = (c.max_rreq_timeout(), c.node_traversal_time_s);
        let (start, inc, threshold, diameter, retries) =
            (c.ttl_start, c.ttl_increment, c.ttl_threshold, c.net_diameter, c.rreq_retries);
        let st = self.req.entry(dst).or_insert_with(ReqState::new);
        if st.timeout > now {
            return;
        }
        if st.cnt > retries {
            // RREQ_RETRIES network-wide requests went unanswered: drop the
            // waiting packets and hold off for MAX_RREQ_TIMEOUT.
            st.timeout = now + max_wait;
            st.cnt = 0;
            if self.discoveries.remove(&dst).is_some() {
                out.push(RouteAction::Note(RouteNote::DiscoveryFailed { dst }));
            }
            self.drop_buffered(dst, DropReason::Nrte, out);
            return;
        }
        // Expanding ring from the larger of the last TTL and the last hop
        // count; TTL_START only when both are 0.
        st.last_ttl = st.last_ttl.max(last_hops);
        let ttl = if st.last_ttl == 0 {
            start
        } else if st.last_ttl < threshold {
            st.last_ttl.saturating_add(inc)
        } else {
            st.cnt += 1;
            diameter
        };
        st.last_ttl = ttl;
        // 2 * TTL * PerHopTime, times the network-wide count, capped.
        let wait = 2.0 * ttl as f64 * st.per_hop_time(nt) * st.cnt.max(1) as f64;
        st.timeout = now + Dur::from_secs_f64(wait).min(max_wait);
        if !self.discoveries.contains_key(&dst) {
            out.push(RouteAction::Note(RouteNote::DiscoveryStarted { dst }));
            let d = Discovery { ttl, at_max: 0, deadline: SimTime::MAX, repair: None };
            self.discoveries.insert(dst, d);
        }
        self.emit_rreq(now, dst, ttl, out);
    }

    /// ns-2 `rt_purge`'s request part: destinations with packets waiting
    /// and no usable route are asked for again (ascending; ns-2 walks its
    /// table newest entry first).
    fn ns2_sweep(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let waiting: BTreeSet<NodeId> = self.buffer.iter().map(|(_, p)| p.dst).collect();
        for dst in waiting {
            if self.table.valid(dst, now).is_none() {
                self.ns2_request(now, dst, out);
            }
        }
    }

    /// A reply (or a RREQ from the destination) gave a route: reset the
    /// request state (ns-2 `recvReply`, `recvRequest`).
    fn ns2_answered(&mut self, dst: NodeId, hops: u8) {
        let st = self.req.entry(dst).or_insert_with(ReqState::new);
        st.cnt = 0;
        st.timeout = SimTime::ZERO;
        st.last_ttl = hops;
    }

    // ----- ns-2's link-failure handling (LinkFailureRule::Ns2) -----

    /// ns-2 aodv.cc `rt_ll_failed`.
    fn ns2_ll_failed(&mut self, now: SimTime, nb: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        // Control and broadcast packets are simply dropped.
        if packet.is_routing() || nb == BROADCAST || packet.dst == BROADCAST {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
            return;
        }
        let Some(r) = self.table.get(packet.dst) else {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
            return;
        };
        // `num_forwards` (hops the packet has come, counted by the MAC at
        // each reception) against `rt_hops` (INFINITY2 on a route that is down).
        let came = DEFAULT_TTL.saturating_sub(packet.ttl);
        if self.cfg.local_repair && r.state != State::Invalid && came > r.hops {
            self.ns2_local_repair(now, packet, out);
            return;
        }
        out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
        // ifqueue->filter(broken_nbr): every queued packet for it is dropped
        // (`reclaimed`), then nb_delete -> handle_link_failure.
        out.push(RouteAction::Reclaim { next_hop: nb });
        out.push(RouteAction::Note(RouteNote::LinkBroken { neighbor: nb, cause: LinkCause::MacFeedback }));
        let dp = now + self.cfg.delete_period();
        let mut dests = vec![];
        for dst in self.table.via(nb) {
            self.table.invalidate(dst, dp, true);
            out.push(RouteAction::RouteLost { dst }); // ELFN for local senders
            let r = self.table.get(dst).unwrap();
            dests.push((dst, r.seqno));
        }
        for r in self.table.routes_mut() {
            r.precursors.remove(&nb);
        }
        // One RERR, broadcast whether or not anyone uses the routes.
        self.send_rerr(now, dests, BTreeSet::from([BROADCAST]), false, true, out);
    }

    /// ns-2 aodv.cc `local_rt_repair`: buffer the packet, mark the route
    /// in repair, request it, and arm the check. ns-2 schedules the check
    /// `rt_req_timeout` after now, and that is an absolute time, so the
    /// check comes at now + (the request's deadline).
    fn ns2_local_repair(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        let dst = packet.dst;
        self.buffer_push(now, packet, out);
        self.table.get_mut(dst).unwrap().state = State::Repairing;
        self.ns2_request(now, dst, out);
        let deadline = self.req.get(&dst).map_or(SimTime::ZERO, |s| s.timeout);
        self.counter += 1;
        self.repair_checks.insert((now + Dur(deadline.0), self.counter), dst);
    }

    fn discovery_timeout(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        let Some(mut d) = self.discoveries.remove(&dst) else { return };
        if d.repair.is_some() {
            self.repair_failed(now, dst, out);
            return;
        }
        let c = &self.cfg;
        if d.ttl < c.net_diameter {
            // §6.4: grow the ring by TTL_INCREMENT up to TTL_THRESHOLD.
            let next = d.ttl.saturating_add(c.ttl_increment);
            d.ttl = if next > c.ttl_threshold { c.net_diameter } else { next };
        } else if d.at_max > c.rreq_retries {
            // §6.3: RREQ_RETRIES retries at NET_DIAMETER went unanswered.
            out.push(RouteAction::Note(RouteNote::DiscoveryFailed { dst }));
            self.drop_buffered(dst, DropReason::Nrte, out);
            return;
        }
        self.send_rreq(now, dst, &mut d, out);
        self.discoveries.insert(dst, d);
    }

    /// End discoveries whose destination now has a valid route, and release
    /// the packets waiting for them.
    fn flush(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        self.flush_spaced(now, Dur::ZERO, out);
    }

    fn flush_spaced(&mut self, now: SimTime, spacing: Dur, out: &mut Vec<RouteAction>) {
        let done: Vec<NodeId> =
            self.discoveries.keys().copied().filter(|&d| self.table.valid(d, now).is_some()).collect();
        if done.is_empty() {
            if self.cfg.discovery == DiscoveryRule::Ns2 && !self.buffer.is_empty() {
                // ns-2 sends waiting packets whenever their route is up
                // (recvReply, recvRequest, rt_purge), discovery or not.
                self.release(now, spacing, out);
            }
            return;
        }
        for dst in done {
            let d = self.discoveries.remove(&dst).unwrap();
            out.push(RouteAction::Note(RouteNote::DiscoveryDone { dst }));
            if let Some(old_hops) = d.repair {
                let r = self.table.get(dst).unwrap();
                // §6.12: a longer repaired route is announced with the 'N' flag.
                if r.hops > old_hops && !r.precursors.is_empty() {
                    let recipients = r.precursors.clone();
                    let dests = vec![(dst, r.seqno)];
                    self.send_rerr(now, dests, recipients, true, true, out);
                }
            }
        }
        self.release(now, spacing, out);
    }

    // ----- Local repair (§6.12) -----

    fn start_repair(&mut self, now: SimTime, dst: NodeId, src_hops: u8, out: &mut Vec<RouteAction>) {
        let c = &self.cfg;
        let r = self.table.get_mut(dst).unwrap();
        let old_hops = r.hops;
        // §6.12: increment the destination's sequence number, then ask.
        if r.valid_seqno {
            r.seqno = r.seqno.wrapping_add(1);
        }
        r.state = State::Repairing;
        // TTL = max(MIN_REPAIR_TTL, 0.5 * #hops) + LOCAL_ADD_TTL, with
        // MIN_REPAIR_TTL the last known hop count to the destination and
        // #hops the hop count to the source of the undeliverable packet.
        let ttl = old_hops.max(src_hops / 2).saturating_add(c.local_add_ttl).min(c.net_diameter);
        let mut d = Discovery { ttl, at_max: 0, deadline: now, repair: Some(old_hops) };
        out.push(RouteAction::Note(RouteNote::DiscoveryStarted { dst }));
        self.send_rreq(now, dst, &mut d, out);
        // Keep the entry until the repair ends.
        self.table.get_mut(dst).unwrap().lifetime = d.deadline;
        self.discoveries.insert(dst, d);
    }

    /// §6.12: no RREP within the discovery period: proceed as §6.11 says.
    fn repair_failed(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        out.push(RouteAction::Note(RouteNote::DiscoveryFailed { dst }));
        let dp = now + self.cfg.delete_period();
        // The sequence number was already incremented when the repair began.
        self.table.invalidate(dst, dp, false);
        let r = self.table.get_mut(dst).unwrap();
        let recipients = std::mem::take(&mut r.precursors);
        let dests = vec![(dst, r.seqno)];
        self.send_rerr(now, dests, recipients, false, true, out);
        self.drop_buffered(dst, DropReason::Nrte, out);
    }

    // ----- Route errors (§6.11) -----

    /// Send a RERR to `recipients`: unicast when there is one, broadcast
    /// (TTL 1) otherwise (§6.11). `BROADCAST` among them forces a broadcast.
    fn send_rerr(
        &mut self,
        now: SimTime,
        dests: Vec<(NodeId, u32)>,
        recipients: BTreeSet<NodeId>,
        no_delete: bool,
        originate: bool,
        out: &mut Vec<RouteAction>,
    ) {
        if dests.is_empty() || recipients.is_empty() {
            return;
        }
        if originate {
            // RERR_RATELIMIT (§6.11).
            let window = Dur::from_secs_f64(1.0);
            while self.rerr_times.front().is_some_and(|&t| t + window <= now) {
                self.rerr_times.pop_front();
            }
            if self.rerr_times.len() >= self.cfg.rerr_ratelimit as usize {
                return;
            }
            self.rerr_times.push_back(now);
            out.push(RouteAction::Note(RouteNote::RouteErrorSent));
        }
        let msg = AodvMsg::Rerr(Rerr { no_delete, dests });
        if recipients.len() == 1 && !recipients.contains(&BROADCAST) && !self.cfg.rerr_broadcast {
            let to = *recipients.iter().next().unwrap();
            self.unicast(now, to, msg, out);
        } else {
            if originate {
                self.broadcast_own(now, 1, msg, out);
            } else {
                self.broadcast(now, 1, msg, out);
            }
        }
    }

    /// The link to `nb` is gone (§6.11 case (i)): invalidate the routes
    /// through it, or repair them locally (§6.12), tell the precursors, and
    /// take back what the interface queue holds for `nb`.
    fn link_break(
        &mut self,
        now: SimTime,
        nb: NodeId,
        cause: LinkCause,
        failed: Option<&Packet>,
        out: &mut Vec<RouteAction>,
    ) {
        out.push(RouteAction::Note(RouteNote::LinkBroken { neighbor: nb, cause }));
        self.neighbors.remove(&nb);
        let dp = now + self.cfg.delete_period();
        let mut dests = vec![];
        let mut recipients = BTreeSet::new();
        for dst in self.table.via(nb) {
            let r = self.table.get(dst).unwrap();
            if r.state != State::Valid {
                continue;
            }
            // §6.12: only routes others use (precursors) are worth a repair;
            // a source simply rediscovers when it next has data.
            if self.cfg.local_repair && !r.precursors.is_empty() && r.hops <= self.cfg.max_repair_ttl {
                let src_hops = failed
                    .filter(|p| p.dst == dst)
                    .and_then(|p| self.table.get(p.src))
                    .map_or(0, |s| s.hops);
                self.start_repair(now, dst, src_hops, out);
                continue;
            }
            self.table.invalidate(dst, dp, true);
            out.push(RouteAction::RouteLost { dst }); // ELFN for local senders
            let r = self.table.get_mut(dst).unwrap();
            if !r.precursors.is_empty() {
                dests.push((dst, r.seqno));
                recipients.append(&mut r.precursors);
            }
        }
        self.send_rerr(now, dests, recipients, false, true, out);
        out.push(RouteAction::Reclaim { next_hop: nb });
    }

    // ----- Control messages -----

    fn remember_rreq(&mut self, now: SimTime, orig: NodeId, id: u32) {
        if self.seen.insert((orig, id)) {
            self.seen_expiry.push_back((now + self.cfg.rreq_id_hold(), (orig, id)));
        }
    }

    fn on_rreq(&mut self, now: SimTime, from: NodeId, ip_ttl: u8, m: Rreq, out: &mut Vec<RouteAction>) {
        // §6.8: RREQs from a blacklisted neighbour are ignored.
        if self.blacklist.get(&from).is_some_and(|&until| now < until) {
            return;
        }
        let art = now + self.cfg.active_route_timeout();
        if self.cfg.learn_previous_hop {
            self.table.neighbor(from, art);
        }
        if m.orig == self.me {
            return;
        }
        // §6.5: a RREQ already seen within PATH_DISCOVERY_TIME is discarded.
        while self.seen_expiry.front().is_some_and(|&(t, _)| t <= now) {
            let (_, k) = self.seen_expiry.pop_front().unwrap();
            self.seen.remove(&k);
        }
        if self.seen.contains(&(m.orig, m.rreq_id)) {
            return;
        }
        self.remember_rreq(now, m.orig, m.rreq_id);
        let hops = m.hop_count.saturating_add(1);
        // §6.5 reverse route, lifetime at least
        // 2*NET_TRAVERSAL_TIME - 2*HopCount*NODE_TRAVERSAL_TIME.
        let ntt = self.cfg.net_traversal_time().mul(2);
        let back = self.cfg.node_traversal_time().mul(2 * hops as u64);
        let minimal = match self.cfg.lifetimes {
            Lifetimes::Rfc3561 => now + Dur(ntt.0.saturating_sub(back.0)),
            // ns-2 recvRequest: REV_ROUTE_LIFE, given whether or not the
            // RREQ changes the route.
            Lifetimes::Ns2 => now + NS2_REV_ROUTE_LIFE,
        };
        let changed = self.table.offer(m.orig, m.orig_seqno, hops, from, minimal, true);
        if !changed && self.cfg.lifetimes == Lifetimes::Ns2 {
            self.table.extend(m.orig, now, minimal, false);
        }
        if changed && self.cfg.discovery == DiscoveryRule::Ns2 && self.req.get(&m.orig).is_some_and(|s| s.timeout > SimTime::ZERO) {
            // ns-2 recvRequest: a RREQ from a destination we were asking
            // for answers us too; reset the request state and keep the
            // route ACTIVE_ROUTE_TIMEOUT.
            self.ns2_answered(m.orig, hops);
            self.table.extend(m.orig, now, art, false);
        }
        let rev_next = self.table.valid(m.orig, now).map_or(from, |r| r.next_hop);

        if m.dst == self.me {
            // §6.6.1 (with §6.1: our number becomes at least the one asked for).
            if !m.unknown_seqno && fresher(m.dst_seqno, self.seqno) {
                self.seqno = m.dst_seqno;
            }
            if self.cfg.dest_increments_seqno {
                // ns-2 aodv.cc recvRequest: max(seqno, rq_dst_seqno) + 1 on every answer.
                self.seqno = self.seqno.wrapping_add(1);
            }
            let rrep = Rrep {
                ack_required: false,
                hop_count: 0,
                dst: self.me,
                dst_seqno: self.seqno,
                orig: m.orig,
                lifetime_ms: ms(self.cfg.my_route_timeout()),
                timestamp: m.timestamp,
            };
            self.reply(now, rev_next, m.orig, rrep, out);
            return;
        }

        if !m.dest_only {
            if let Some(f) = self.table.valid(m.dst, now) {
                // §6.6.2: a fresh enough route (valid sequence number at
                // least the one requested) lets an intermediate node answer.
                if f.valid_seqno && (m.unknown_seqno || !fresher(m.dst_seqno, f.seqno)) {
                    let (fhops, fseq, fnext, flife) = (f.hops, f.seqno, f.next_hop, f.lifetime);
                    self.table.add_precursor(m.dst, from);
                    self.table.add_precursor(m.orig, fnext);
                    let rrep = Rrep {
                        ack_required: false,
                        hop_count: fhops,
                        dst: m.dst,
                        dst_seqno: fseq,
                        orig: m.orig,
                        lifetime_ms: ms(flife.since(now)),
                        timestamp: m.timestamp,
                    };
                    self.reply(now, rev_next, m.orig, rrep, out);
                    if m.gratuitous {
                        // §6.6.3: tell the destination the way back to the originator.
                        if let Some(rev) = self.table.valid(m.orig, now) {
                            let g = Rrep {
                                ack_required: false,
                                hop_count: rev.hops,
                                dst: m.orig,
                                dst_seqno: m.orig_seqno,
                                orig: m.dst,
                                lifetime_ms: ms(rev.lifetime.since(now)),
                                timestamp: m.timestamp,
                            };
                            self.reply(now, fnext, m.dst, g, out);
                        }
                    }
                    return;
                }
            }
        }

        if ip_ttl > 1 {
            // §6.5: rebroadcast with the hop count incremented and the
            // larger of the requested and our known destination sequence number.
            let mut f = m;
            f.hop_count = hops;
            if let Some(r) = self.table.get(f.dst).filter(|r| r.valid_seqno) {
                if f.unknown_seqno || fresher(r.seqno, f.dst_seqno) {
                    f.dst_seqno = r.seqno;
                    f.unknown_seqno = false;
                }
            }
            self.broadcast(now, ip_ttl - 1, AodvMsg::Rreq(f), out);
        } else if self.cfg.discovery == DiscoveryRule::Ns2 {
            // ns-2 aodv.cc recv takes one off the TTL and forward() drops
            // a request left at 0 as DROP_RTR_TTL, a line in its trace.
            let f = Rreq { hop_count: hops, ..m };
            let packet = self.packet(now, BROADCAST, 0, AodvMsg::Rreq(f));
            out.push(RouteAction::Drop { packet, reason: DropReason::Ttl });
        }
    }

    /// `ip`: the packet that carried it (ns-2 relays forward that packet).
    fn on_rrep(&mut self, now: SimTime, from: NodeId, ip: &Carrier, m: Rrep, out: &mut Vec<RouteAction>) {
        let art = self.cfg.active_route_timeout();
        if self.cfg.learn_previous_hop {
            self.table.neighbor(from, now + art);
        }
        if m.ack_required {
            self.unicast(now, from, AodvMsg::RrepAck, out);
        }
        if m.dst == self.me {
            return;
        }
        // §6.7: the forward route, if the RREP brings better information.
        let hops = m.hop_count.saturating_add(1);
        let life = now + Dur::from_millis(m.lifetime_ms as u64);
        let changed = self.table.offer(m.dst, m.dst_seqno, hops, from, life, false);
        if changed && self.cfg.discovery == DiscoveryRule::Ns2 {
            self.ns2_answered(m.dst, hops);
            if m.orig == self.me {
                // ns-2 recvReply: the discovery latency per hop, from the
                // answered RREQ's timestamp, into the 3-entry history.
                let st = self.req.get_mut(&m.dst).unwrap();
                st.latency[st.hist] = now.since(m.timestamp).as_secs_f64() / hops as f64;
                st.hist = (st.hist + 1) % st.latency.len();
            }
        }
        if m.orig == self.me || !changed {
            return;
        }
        let Some(nh) = self.table.valid(m.orig, now).map(|r| r.next_hop) else { return };
        // §6.7 precursors: the node we forward to may use us toward the
        // destination and toward our next hop; the reverse route also gets
        // `from` (ns-2, AODV-UU) so a break toward the originator reaches it.
        self.table.add_precursor(m.dst, nh);
        self.table.add_precursor(from, nh);
        self.table.add_precursor(m.orig, from);
        self.table.extend(m.orig, now, now + art, false);
        let f = Rrep { hop_count: hops, ..m };
        if self.cfg.discovery == DiscoveryRule::Ns2 && ip.dst == m.orig {
            let mut packet = Packet::new(ip.uid, ip.src, ip.dst, Body::Routing(RoutingMsg::Aodv(AodvMsg::Rrep(f))), ip.created);
            packet.ttl = ip.ttl.saturating_sub(1);
            out.push(RouteAction::Send { next_hop: nh, packet });
            return;
        }
        self.unicast(now, nh, AodvMsg::Rrep(f), out);
    }

    fn on_hello(&mut self, now: SimTime, from: NodeId, m: Rrep) {
        if self.cfg.link_detection.hello() {
            self.neighbors.insert(from, Neighbor { last_heard: now, last_hello: now });
        }
        // §6.9: an active route to the neighbour for at least
        // ALLOWED_HELLO_LOSS * HELLO_INTERVAL, with its latest sequence number.
        self.table.neighbor(from, now + self.cfg.neighbor_timeout());
        let r = self.table.get_mut(from).unwrap();
        if !r.valid_seqno || fresher(m.dst_seqno, r.seqno) {
            r.seqno = m.dst_seqno;
            r.valid_seqno = true;
        }
    }

    fn on_rerr(&mut self, now: SimTime, from: NodeId, m: Rerr, out: &mut Vec<RouteAction>) {
        let dp = now + self.cfg.delete_period();
        let mut dests = vec![];
        let mut recipients = BTreeSet::new();
        let mut flush_sender = false;
        for &(dst, seqno) in &m.dests {
            let Some(r) = self.table.get_mut(dst) else { continue };
            if r.state != State::Valid || r.next_hop != from {
                continue;
            }
            if m.no_delete {
                // §6.12: keep the route, only pass the news on.
                if !r.precursors.is_empty() {
                    dests.push((dst, r.seqno));
                    recipients.extend(r.precursors.iter().copied());
                }
                continue;
            }
            // §6.11 case (iii): the sequence number comes from the RERR.
            if !r.valid_seqno || fresher(seqno, r.seqno) {
                r.seqno = seqno;
                r.valid_seqno = true;
            }
            if !r.precursors.is_empty() {
                dests.push((dst, r.seqno));
                recipients.append(&mut r.precursors);
            }
            self.table.invalidate(dst, dp, false);
            out.push(RouteAction::RouteLost { dst }); // ELFN for local senders
            if self.cfg.link_failure == LinkFailureRule::Ns2 {
                // ns-2 recvError: the queued packets for the sender go too.
                flush_sender = true;
            }
        }
        if flush_sender {
            out.push(RouteAction::Reclaim { next_hop: from });
        }
        self.send_rerr(now, dests, recipients, m.no_delete, false, out);
    }

    fn send_hello(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        // §6.9: a RREP with TTL 1 about ourselves.
        let hello = Rrep {
            ack_required: false,
            hop_count: 0,
            dst: self.me,
            dst_seqno: self.seqno,
            orig: self.me,
            lifetime_ms: ms(self.cfg.hello_loss_time()),
            timestamp: now,
        };
        self.broadcast(now, 1, AodvMsg::Hello(hello), out);
    }

    /// §6.9: "part of an active route": a valid route carried data.
    fn on_active_route(&self, now: SimTime) -> bool {
        self.table.routes().any(|r| r.state == State::Valid && r.lifetime > now && r.used)
    }

    fn expire_routes(&mut self, now: SimTime) {
        // Only routes not under repair act below, and none is due yet.
        if self.table.next_expiry().is_none_or(|t| t > now) {
            return;
        }
        let dp = self.cfg.delete_period();
        let hold = self.cfg.net_traversal_time().mul(2);
        let mut gone = vec![];
        for r in self.table.routes_mut() {
            if r.lifetime > now {
                continue;
            }
            match r.state {
                State::Valid => {
                    // §6.11: expired routes stay invalid for DELETE_PERIOD.
                    if self.cfg.expiry_increments_seqno && r.valid_seqno {
                        r.seqno = r.seqno.wrapping_add(1); // ns-2 aodv.cc rt_purge
                    }
                    r.last_hops = r.hops;
                    r.state = State::Invalid;
                    r.lifetime = now + dp;
                    r.precursors.clear();
                }
                State::Invalid if self.discoveries.contains_key(&r.dst) => {
                    // §6.4: not expunged while waiting for a RREP.
                    r.lifetime = now + hold;
                }
                State::Invalid => gone.push(r.dst),
                State::Repairing => {} // the repair's deadline ends it
            }
        }
        for d in gone {
            let r = self.table.remove(d).unwrap();
            if self.cfg.discovery == DiscoveryRule::Ns2 {
                // ns-2 never deletes an entry: keep what its discovery reads.
                self.req.entry(d).or_insert_with(ReqState::new).last_hops = r.last_hops;
            }
        }
    }
}

fn ms(d: Dur) -> u32 {
    (d.0 / 1_000_000).min(u32::MAX as u64) as u32
}

impl Protocol for Aodv {
    fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        let dst = packet.dst;
        if dst == BROADCAST {
            out.push(RouteAction::Send { next_hop: BROADCAST, packet });
            return;
        }
        if self.table.valid(dst, now).is_some() {
            self.forward(now, packet, out);
            return;
        }
        let repairing = self.table.get(dst).is_some_and(|r| r.state == State::Repairing);
        if packet.src == self.me || repairing {
            // §6.3: buffer while the route is discovered (or repaired, §6.12).
            let own = packet.src == self.me;
            self.buffer_push(now, packet, out);
            if self.cfg.discovery == DiscoveryRule::Ns2 {
                // ns-2 rt_resolve: every own packet asks (rate-limited by
                // sendRequest); one for a route in repair only waits.
                if own {
                    self.ns2_request(now, dst, out);
                }
            } else if !self.discoveries.contains_key(&dst) {
                self.start_discovery(now, dst, out);
            }
            return;
        }
        // §6.11 case (ii): a packet to forward and no route.
        let src = packet.src;
        out.push(RouteAction::Drop { packet, reason: DropReason::Nrte });
        let dp = now + self.cfg.delete_period();
        let (seqno, mut recipients) = match self.table.get_mut(dst) {
            Some(r) => {
                let was_valid = r.state == State::Valid;
                let p = std::mem::take(&mut r.precursors);
                if was_valid {
                    // An expired route not yet swept: broken as in case (i).
                    self.table.invalidate(dst, dp, true);
                }
                let r = self.table.get(dst).unwrap();
                (if r.valid_seqno { r.seqno } else { 0 }, p)
            }
            None => (0, BTreeSet::new()),
        };
        if recipients.is_empty() {
            // AODV-UU: toward the source of the packet if we know the way,
            // else to every neighbour.
            recipients.insert(self.table.valid(src, now).map_or(BROADCAST, |r| r.next_hop));
        }
        self.send_rerr(now, vec![(dst, seqno)], recipients, false, true, out);
    }

    fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        let carrier = Carrier { uid: packet.uid, src: packet.src, dst: packet.dst, ttl: packet.ttl, created: packet.created };
        let Body::Routing(RoutingMsg::Aodv(msg)) = packet.body else { return };
        if let Some(n) = self.neighbors.get_mut(&from) {
            n.last_heard = now;
        }
        let is_rrep = matches!(msg, AodvMsg::Rrep(_));
        match msg {
            AodvMsg::Rreq(m) => self.on_rreq(now, from, carrier.ttl, m, out),
            AodvMsg::Rrep(m) => self.on_rrep(now, from, &carrier, m, out),
            AodvMsg::Rerr(m) => self.on_rerr(now, from, m, out),
            AodvMsg::Hello(m) => self.on_hello(now, from, m),
            AodvMsg::RrepAck => {} // we detect failed RREPs by MAC feedback (§6.8), never set the A flag
        }
        // ns-2 recvReply spaces what it releases (ARP_DELAY); recvRequest does not.
        let spacing = if is_rrep { self.cfg.release_spacing() } else { Dur::ZERO };
        self.flush_spaced(now, spacing, out);
    }

    fn heard(&mut self, now: SimTime, from: NodeId, packet: &Packet, _out: &mut Vec<RouteAction>) {
        // §6.9: any packet shows the link is up; AODV-UU counts only its own
        // control messages.
        if packet.is_routing() || self.cfg.data_counts_as_hello {
            if let Some(n) = self.neighbors.get_mut(&from) {
                n.last_heard = now;
            }
        }
    }

    fn delivered(&mut self, now: SimTime, from: NodeId, packet: &Packet, _out: &mut Vec<RouteAction>) {
        // §6.2: the reverse path of a route in use stays alive too.
        let until = now + self.cfg.active_route_timeout();
        self.table.extend(packet.src, now, until, true);
        self.table.extend(from, now, until, true);
    }

    fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        if self.cfg.link_failure == LinkFailureRule::Ns2 && self.cfg.link_detection.link_layer() {
            self.ns2_ll_failed(now, next_hop, packet, out);
            self.flush(now, out);
            return;
        }
        // §6.8: a RREP we could not deliver points at a unidirectional link.
        if self.cfg.blacklist && matches!(&packet.body, Body::Routing(RoutingMsg::Aodv(AodvMsg::Rrep(_)))) {
            self.blacklist.retain(|_, until| *until > now);
            self.blacklist.insert(next_hop, now + self.cfg.blacklist_timeout());
        }
        if self.cfg.link_detection.link_layer()
            && next_hop != BROADCAST
            && self.table.routes().any(|r| r.state == State::Valid && r.next_hop == next_hop)
        {
            self.link_break(now, next_hop, LinkCause::MacFeedback, Some(&packet), out);
        }
        self.handle_failed(now, packet, out);
        self.flush(now, out);
    }

    fn reclaimed(&mut self, now: SimTime, _next_hop: NodeId, packets: Vec<Packet>, out: &mut Vec<RouteAction>) {
        if self.cfg.link_failure == LinkFailureRule::Ns2 {
            // ns-2 rt_ll_failed / recvError: what the queue held for the
            // neighbour is dropped, the node's own packets too.
            for packet in packets {
                out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
            }
            return;
        }
        for p in packets {
            self.handle_failed(now, p, out);
        }
        self.flush(now, out);
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let mut t = SimTime::MAX;
        if let Some((&(j, _), _)) = self.jittered.iter().next() {
            t = t.min(j);
        }
        for d in self.discoveries.values() {
            t = t.min(d.deadline);
        }
        if let Some(e) = self.table.next_expiry() {
            t = t.min(e);
        }
        if let Some((e, _)) = self.buffer.front() {
            t = t.min(*e + self.cfg.buffer_timeout());
        }
        if let Some(h) = self.next_hello {
            t = t.min(h);
        }
        if let Some(s) = self.next_sweep {
            t = t.min(s);
        }
        if let Some((&(c, _), _)) = self.repair_checks.iter().next() {
            t = t.min(c);
        }
        if let Some((&(h, _), _)) = self.held.iter().next() {
            t = t.min(h);
        }
        let loss = self.cfg.neighbor_timeout();
        for n in self.neighbors.values() {
            t = t.min(n.last_heard + loss);
        }
        (t != SimTime::MAX).then_some(t)
    }

    fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        while let Some((&(j, uid), _)) = self.jittered.iter().next() {
            if j > now {
                break;
            }
            let p = self.jittered.remove(&(j, uid)).unwrap();
            self.emit_broadcast(now, p, out);
        }
        while let Some((&(h, k), _)) = self.held.iter().next() {
            if h > now {
                break;
            }
            let (next_hop, packet) = self.held.remove(&(h, k)).unwrap();
            out.push(RouteAction::Send { next_hop, packet });
        }
        // §6.9: a neighbour that sent a HELLO within DELETE_PERIOD and then
        // nothing for ALLOWED_HELLO_LOSS * HELLO_INTERVAL is lost.
        let loss = self.cfg.neighbor_timeout();
        let dp = self.cfg.delete_period();
        let lost: Vec<(NodeId, Neighbor)> =
            self.neighbors.iter().filter(|(_, n)| n.last_heard + loss <= now).map(|(&k, &n)| (k, n)).collect();
        for (nb, n) in lost {
            self.neighbors.remove(&nb);
            if now.since(n.last_hello) <= dp {
                self.link_break(now, nb, LinkCause::HelloLoss, None, out);
            }
        }
        let due: Vec<NodeId> =
            self.discoveries.iter().filter(|(_, d)| d.deadline <= now).map(|(&k, _)| k).collect();
        for dst in due {
            self.discovery_timeout(now, dst, out);
        }
        self.expire_routes(now);
        while let Some((&(c, k), &dst)) = self.repair_checks.iter().next() {
            if c > now {
                break;
            }
            self.repair_checks.remove(&(c, k));
            // ns-2 LocalRepairTimer: a route still not up is brought down,
            // silently (no RERR, the sequence number kept).
            if self.table.get(dst).is_some_and(|r| r.state != State::Valid) {
                self.table.invalidate(dst, now + self.cfg.delete_period(), false);
            }
        }
        if let Some(s) = self.next_sweep {
            if s <= now {
                self.next_sweep = Some(s + self.cfg.route_sweep());
                self.ns2_sweep(now, out);
            }
        }
        let timeout = self.cfg.buffer_timeout();
        while self.buffer.front().is_some_and(|(e, _)| *e + timeout <= now) {
            let (_, packet) = self.buffer.pop_front().unwrap();
            out.push(RouteAction::Drop { packet, reason: DropReason::Tout });
        }
        if let Some(h) = self.next_hello {
            if h <= now {
                // AODV-UU hello_send(): the next period is jittered. No draw
                // when off, so presets without jitter keep their streams.
                let jitter = if self.cfg.hello_jitter_s > 0.0 {
                    (self.rng.unit() - 0.5) * self.cfg.hello_jitter_s
                } else {
                    0.0
                };
                self.next_hello = Some(now + Dur::from_secs_f64(self.cfg.hello_interval_s + jitter));
                if self.cfg.hello_always || self.on_active_route(now) {
                    self.send_hello(now, out);
                }
            }
        }
        // ns-2 rt_purge spaces what it sends too (ARP_DELAY).
        let spacing = if self.cfg.discovery == DiscoveryRule::Ns2 { self.cfg.release_spacing() } else { Dur::ZERO };
        self.flush_spaced(now, spacing, out);
    }

    fn has_route(&self, now: SimTime, dst: NodeId) -> bool {
        self.table.valid(dst, now).is_some()
    }
}
