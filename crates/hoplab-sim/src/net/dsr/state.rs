//! The DSR node: its tables, the `Protocol` entry points, and forwarding
//! along source routes. Discovery lives in `discovery.rs`, maintenance and
//! salvaging in `maintenance.rs`.

use super::cache::RouteCache;
use super::config::{DsrConfig, Maintenance};
use super::msg::{self, DsrMsg};
use crate::net::routing::{Protocol, RouteAction, RouteNote};
use crate::net::{DropReason, RoutingMsg};
use crate::rng::Stream;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, SourceRoute, BROADCAST};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// An on-demand discovery in progress for one target (§8.2.1).
pub(super) struct Discovery {
    /// Propagating requests sent so far.
    pub rexmt: u32,
    /// When to send the next request (or give up).
    pub next: SimTime,
    /// Wait after the next propagating request (doubles up to MaxRequestPeriod).
    pub period: Dur,
}

/// ns-2's request table entry for one target (dsragent.cc `BackOffTest`,
/// requesttable.h `Entry`): request cycles started since the last Route
/// Reply for it, and when the last cycle started.
#[derive(Clone, Copy, Default)]
pub(super) struct RequestBackoffEntry {
    pub cycles: u32,
    pub last: Option<SimTime>,
    /// `send_buffer_check_s`: the last request was non-propagating
    /// (requesttable.h `last_type` LIMIT0), sent at `last_arp`.
    pub limit0: bool,
    pub last_arp: SimTime,
}

/// A packet sent and not yet acknowledged (§8.3: the maintenance buffer).
pub(super) struct MaintEntry {
    /// As sent, with `sr.at` at this node.
    pub packet: Packet,
    pub next_hop: NodeId,
    /// Sent: when the acknowledgement is due. Still in the interface queue
    /// (`!sent`): when to forget the entry (`UNSENT_LIMIT`).
    pub deadline: SimTime,
    /// The MAC has finished with this copy (ACKed or given up). The
    /// acknowledgement wait runs from then, not from the hand-off to the
    /// interface queue, where a packet may wait far longer than
    /// PassiveAckTimeout behind others (§8.3.3: the timeout covers the
    /// link, not our own queue).
    pub sent: bool,
    /// Still waiting for a passive acknowledgement (else a network one).
    pub passive: bool,
    /// Retransmissions so far (bounded by MaxMaintRexmt).
    pub rexmt: u32,
}

pub struct Dsr {
    pub(super) me: NodeId,
    pub(super) cfg: DsrConfig,
    pub(super) rng: Stream,
    pub(super) cache: RouteCache,
    /// Packets waiting for a route, in arrival order (§4.2).
    pub(super) send_buf: VecDeque<(SimTime, Packet)>,
    pub(super) discoveries: BTreeMap<NodeId, Discovery>,
    /// `RequestBackoff::Ns2`: per target, kept across discoveries.
    pub(super) backoff: BTreeMap<NodeId, RequestBackoffEntry>,
    pub(super) next_request_id: u16,
    /// Route Request table (§4.3): ids seen per initiator, with the last use
    /// for least-recently-used eviction.
    pub(super) seen: BTreeMap<NodeId, (u64, VecDeque<u16>)>,
    pub(super) seen_clock: u64,
    /// Requests waiting out their BroadcastJitter, in order of release.
    pub(super) jitter: Vec<(SimTime, NodeId, Packet)>,
    pub(super) maint: Vec<MaintEntry>,
    /// When each neighbour last acknowledged a packet (MaintHoldoffTime).
    pub(super) confirmed: BTreeMap<NodeId, SimTime>,
    /// Gratuitous replies sent: (route source, overheard transmitter) -> when (§8.3.5).
    pub(super) grat_sent: BTreeMap<(NodeId, NodeId), SimTime>,
    /// The last Route Error addressed to us, to piggyback on the next request.
    pub(super) last_error: Option<msg::RouteError>,
    /// When `last_error` arrived (`error_hold_s`).
    pub(super) last_error_at: SimTime,
    /// Sources already sent a Route Error for the current break of a link.
    pub(super) notified: BTreeMap<NodeId, BTreeSet<NodeId>>,
    /// Uids of data packets recently forwarded (FORWARDED_MEMORY).
    pub(super) forwarded: VecDeque<u64>,
    counter: u64,
    /// `flow_state`: flow table by (source, destination, flow id), the
    /// default flow per (source, destination), the next flow id, and a
    /// creation counter (flow.rs).
    pub(super) flows: BTreeMap<(NodeId, NodeId, u16), super::flow::FlowEntry>,
    pub(super) default_flow: BTreeMap<(NodeId, NodeId), u16>,
    pub(super) flow_counter: u16,
    pub(super) flow_seq: u64,
    /// `send_buffer_check_s`: the next scan of the send buffer, and packets
    /// released by a Route Reply waiting for their turn (ns-2 spaces them
    /// by `arp_timeout`).
    pub(super) next_scan: Option<SimTime>,
    pub(super) spaced: VecDeque<(SimTime, Packet)>,
}

/// An entry whose copy the MAC never reported sent (the interface queue
/// dropped it, or a MAC ACK was credited to another frame) is forgotten
/// after this long; it says nothing about the link.
pub(super) const UNSENT_LIMIT_S: f64 = 5.0;

/// Data packets remembered as forwarded, to recognise a maintenance
/// retransmission of one we already forwarded.
pub(super) const FORWARDED_MEMORY: usize = 256;

pub(super) fn dur(s: f64) -> Dur {
    Dur::from_secs_f64(s)
}

impl Dsr {
    pub fn new(me: NodeId, cfg: &DsrConfig, rng: Stream) -> Dsr {
        let mut d = Dsr::blank(me, cfg, rng);
        if d.scanning() {
            // ns-2 "startdsr": the first check BUFFER_CHECK * U[1, 2] in.
            let first = d.scan_period();
            d.next_scan = Some(SimTime::ZERO + first);
        }
        d
    }

    fn blank(me: NodeId, cfg: &DsrConfig, rng: Stream) -> Dsr {
        Dsr {
            me,
            cfg: cfg.clone(),
            rng,
            cache: RouteCache::new(me, cfg.route_cache_paths, dur(cfg.route_cache_timeout_s)),
            send_buf: VecDeque::new(),
            discoveries: BTreeMap::new(),
            backoff: BTreeMap::new(),
            next_request_id: 0,
            seen: BTreeMap::new(),
            seen_clock: 0,
            jitter: vec![],
            maint: vec![],
            confirmed: BTreeMap::new(),
            grat_sent: BTreeMap::new(),
            last_error: None,
            last_error_at: SimTime::ZERO,
            notified: BTreeMap::new(),
            forwarded: VecDeque::new(),
            counter: 0,
            flows: BTreeMap::new(),
            default_flow: BTreeMap::new(),
            flow_counter: 0,
            flow_seq: 0,
            next_scan: None,
            spaced: VecDeque::new(),
        }
    }

    /// ns-2 `send_buf_timer` (BUFFER_CHECK + BUFFER_CHECK * U[0, 1]).
    pub(super) fn scan_period(&mut self) -> Dur {
        dur(self.cfg.send_buffer_check_s * (1.0 + self.rng.unit()))
    }

    pub(super) fn scanning(&self) -> bool {
        self.cfg.send_buffer_check_s > 0.0
    }

    #[allow(dead_code)]
    pub fn cache(&self) -> &RouteCache {
        &self.cache
    }

    /// Packets waiting in the send buffer.
    #[cfg(test)]
    pub fn buffered(&self) -> usize {
        self.send_buf.len()
    }

    pub(super) fn control(&mut self, now: SimTime, dst: NodeId, m: DsrMsg) -> Packet {
        self.counter += 1;
        let uid = (self.me as u64) << 40 | 1 << 39 | self.counter;
        Packet::new(uid, self.me, dst, Body::Routing(RoutingMsg::Dsr(m)), now)
    }

    /// Learn from a path this node lies on: the part after us forwards, the
    /// part before us reversed (links are bidirectional).
    /// Relay a reply or error along the source route it carries (§8.1.4):
    /// we must be on it, not last, and the TTL must allow one more hop.
    pub(super) fn relay_on_route(&self, mut p: Packet, mut route: SourceRoute, out: &mut Vec<RouteAction>, msg: impl FnOnce(SourceRoute) -> DsrMsg) {
        let Some(i) = route.addrs.iter().position(|&n| n == self.me) else { return };
        if i + 1 >= route.addrs.len() || p.ttl <= 1 {
            return;
        }
        p.ttl -= 1;
        route.at = i;
        let next_hop = route.addrs[i + 1];
        p.body = Body::Routing(RoutingMsg::Dsr(msg(route)));
        out.push(RouteAction::Send { next_hop, packet: p });
    }

    pub(super) fn learn_path(&mut self, now: SimTime, path: &[NodeId]) {
        let Some(i) = path.iter().position(|&n| n == self.me) else { return };
        self.cache.add(now, &path[i..]);
        if !self.cfg.reverse_learning {
            return; // ns-2 pre_noticeRouteUsed: the subpath from us on
        }
        let back: Vec<NodeId> = path[..=i].iter().rev().copied().collect();
        self.cache.add(now, &back);
    }

    /// Learn from a path heard from its `k`-th node, a neighbour.
    pub(super) fn learn_via(&mut self, now: SimTime, path: &[NodeId], k: usize) {
        if path.contains(&self.me) {
            return self.learn_path(now, path);
        }
        let mut fwd = vec![self.me];
        fwd.extend_from_slice(&path[k..]);
        self.cache.add(now, &fwd);
        if !self.cfg.reverse_learning {
            return; // ns-2 pre_noticeRouteUsed: us, the transmitter, and on
        }
        let mut back = vec![self.me];
        back.extend(path[..=k].iter().rev());
        self.cache.add(now, &back);
    }

    /// A packet of ours: send it on a cached route, or buffer it and discover one.
    pub(super) fn originate(&mut self, now: SimTime, mut p: Packet, out: &mut Vec<RouteAction>) {
        p.sr = None;
        p.extra_header = 0;
        if let Some(path) = self.cache.find(now, p.dst) {
            // Older packets to the same destination go first (with the
            // send-buffer scan they wait for it, as in ns-2's
            // handlePktWithoutSR, and this one may overtake them).
            self.flush(now, out);
            p.sr = Some(Box::new(SourceRoute { addrs: path, at: 0, salvage: 0, ack_request: false, flow: None }));
            return self.send_own(now, p, out);
        }
        self.buffer(now, p, out);
    }

    /// Keep a packet until a route to its destination is known, and ask for one.
    pub(super) fn buffer(&mut self, now: SimTime, p: Packet, out: &mut Vec<RouteAction>) {
        if self.send_buf.len() >= self.cfg.send_buffer_packets {
            // ns-2 drops the oldest packet of a full send buffer.
            let (_, old) = self.send_buf.pop_front().unwrap();
            out.push(RouteAction::Drop { packet: old, reason: DropReason::Qfull });
        }
        let dst = p.dst;
        let own = p.src == self.me;
        self.send_buf.push_back((now, p));
        if self.scanning() {
            // ns-2 getRouteForPacket(p, retry = false), then the packet waits.
            if !self.discoveries.contains_key(&dst) {
                out.push(RouteAction::Note(RouteNote::DiscoveryStarted { dst }));
                self.discoveries.insert(dst, Discovery { rexmt: 0, next: SimTime::MAX, period: Dur::ZERO });
            }
            if !self.ns2_get_route(now, dst, own, out) {
                let p = self.send_buf.pop_back().unwrap().1;
                out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
            }
            return;
        }
        self.start_discovery(now, dst, out);
    }

    /// Our own packet with its route set leaves: on a flow if flow state is on.
    pub(super) fn send_own(&mut self, now: SimTime, mut p: Packet, out: &mut Vec<RouteAction>) {
        if self.cfg.flow_state && p.src == self.me {
            self.stamp_flow(now, &mut p);
        }
        self.transmit(now, p, out)
    }

    /// Send every buffered packet that now has a route, oldest first.
    pub(super) fn flush(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        if self.send_buf.is_empty() || self.scanning() {
            return;
        }
        let mut routes: BTreeMap<NodeId, Option<Vec<NodeId>>> = BTreeMap::new();
        let mut keep = VecDeque::new();
        for (t, mut p) in std::mem::take(&mut self.send_buf) {
            let route = routes.entry(p.dst).or_insert_with(|| self.cache.find(now, p.dst)).clone();
            match route {
                Some(path) => {
                    if self.discoveries.remove(&p.dst).is_some() {
                        out.push(RouteAction::Note(RouteNote::DiscoveryDone { dst: p.dst }));
                    }
                    p.sr = Some(Box::new(SourceRoute { addrs: path, at: 0, salvage: 0, ack_request: false, flow: None }));
                    self.send_own(now, p, out);
                }
                None => keep.push_back((t, p)),
            }
        }
        self.send_buf = keep;
    }

    /// Hand a packet whose `sr.at` is this node to the next hop, with the
    /// acknowledgement the maintenance mode asks for (§8.3).
    pub(super) fn transmit(&mut self, now: SimTime, mut p: Packet, out: &mut Vec<RouteAction>) {
        let next_hop = p.sr.as_ref().and_then(|sr| sr.next_hop()).expect("source route with a next hop");
        let recently = self.confirmed.get(&next_hop).is_some_and(|&t| t + dur(self.cfg.maint_holdoff_s) > now);
        let entry = match self.cfg.maintenance {
            Maintenance::LinkLayer => None,
            // §8.3.3: a link confirmed within MaintHoldoffTime needs no ACK.
            _ if recently => None,
            // §8.3.3: a passive ACK needs the next hop to forward the packet,
            // so not when it is the destination.
            Maintenance::Passive if next_hop != p.dst && self.cfg.try_passive_acks > 0 => Some(true),
            _ => Some(false),
        };
        msg::set_header(&mut p, entry == Some(false));
        if self.cfg.double_ip_header && !p.is_routing() {
            // ns-2 dsragent.cc recv: "add on IP header size" to every
            // packet DSR originates a source route for.
            p.extra_header += crate::wire::IP_HEADER;
        }
        if let Some(passive) = entry {
            // The wait starts when the MAC is done with the frame (`sent`).
            self.maint.push(MaintEntry {
                packet: p.clone(),
                next_hop,
                deadline: now + dur(UNSENT_LIMIT_S),
                sent: false,
                passive,
                rexmt: 0,
            });
        }
        out.push(RouteAction::Send { next_hop, packet: p });
    }

    /// A data packet addressed onward through us: advance the route and send.
    fn forward(&mut self, now: SimTime, mut p: Packet, out: &mut Vec<RouteAction>) {
        let sr = p.sr.as_mut().unwrap();
        // §8.1.5: the route must name us as the next node and never repeat one.
        let Some(i) = sr.addrs.iter().skip(sr.at + 1).position(|&n| n == self.me).map(|k| k + sr.at + 1) else {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
        };
        if sr.addrs.iter().enumerate().any(|(k, n)| sr.addrs[..k].contains(n)) {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Loop });
        }
        sr.at = i;
        if i + 1 >= sr.addrs.len() {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Nrte });
        }
        // ns-2 handleFlowForwarding: a packet without its route goes where
        // our flow table says; an unknown flow is salvaged (sendUnknownFlow).
        let flow_only = sr.flow.is_some_and(|f| !f.establish);
        if self.cfg.flow_state && !self.forward_flow(now, &mut p, i) {
            self.unknown_flow(now, &p, i, out);
            p.sr.as_mut().unwrap().flow = None;
            return self.salvage(now, p, out);
        }
        // §8.3.3: a copy retransmitted with an Acknowledgement Request
        // because the passive ACK went unheard is acknowledged (in `heard`)
        // but not forwarded a second time: our first copy is on its way, and
        // our own maintenance looks after it.
        if msg::ack_requested(&p) && self.forwarded.contains(&p.uid) {
            return out.push(RouteAction::Drop { packet: p, reason: DropReason::Dup });
        }
        self.forwarded.push_back(p.uid);
        if self.forwarded.len() > FORWARDED_MEMORY {
            self.forwarded.pop_front();
        }
        let sr = p.sr.as_ref().unwrap();
        let addrs = sr.addrs.clone();
        // §8.1.4: a forwarding node may cache the route it carries (one
        // that is on the wire: ns-2 handleForwarding).
        if !flow_only {
            self.learn_path(now, &addrs);
        }
        self.transmit(now, p, out);
        self.flush(now, out);
    }

    fn min_time(&self) -> Option<SimTime> {
        let jit = self.jitter.iter().map(|j| j.0).min();
        let maint = self.maint.iter().map(|m| m.deadline).min();
        if self.scanning() {
            // The scan does the send buffer's and the discoveries' work.
            let spaced = self.spaced.front().map(|s| s.0);
            return [self.next_scan, spaced, jit, maint].into_iter().flatten().min();
        }
        let buf = self.send_buf.front().map(|(t, _)| *t + dur(self.cfg.send_buffer_s));
        let disc = self.discoveries.values().map(|d| d.next).min();
        [buf, disc, jit, maint].into_iter().flatten().min()
    }
}

impl Protocol for Dsr {
    fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        if packet.sr.is_some() && packet.src != self.me {
            self.forward(now, packet, out);
        } else if packet.src == self.me {
            self.originate(now, packet, out);
        } else {
            out.push(RouteAction::Drop { packet, reason: DropReason::Nrte });
        }
    }

    fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        let Body::Routing(RoutingMsg::Dsr(m)) = &packet.body else { return };
        match m.clone() {
            DsrMsg::Request(r) => self.on_request(now, from, packet, r, out),
            DsrMsg::Reply { reply, route } => self.on_reply(now, packet, reply, route, out),
            DsrMsg::Error { error, route } => self.on_error(now, packet, error, route, out),
            DsrMsg::Ack(a) => self.on_ack(now, from, a),
            DsrMsg::FlowError { error, route } => self.on_flow_error(packet, error, route, out),
        }
        self.flush(now, out);
    }

    fn heard(&mut self, now: SimTime, from: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        // §8.3.3: answer an Acknowledgement Request addressed to our hop.
        if msg::ack_requested(packet) {
            let sr = packet.sr.as_ref().unwrap();
            if sr.next_hop() == Some(self.me) {
                let a = msg::Ack { id: packet.uid, ack_source: self.me, ack_dest: from };
                let mut p = self.control(now, from, DsrMsg::Ack(a));
                p.ttl = 1;
                out.push(RouteAction::Send { next_hop: from, packet: p });
            }
        }
    }

    fn delivered(&mut self, now: SimTime, _from: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        if !self.cfg.cache_delivered_routes {
            return; // ns-2 dsragent.cc handlePacketReceipt
        }
        if let Some(sr) = &packet.sr {
            let addrs = sr.addrs.clone();
            self.learn_path(now, &addrs);
            self.flush(now, out);
        }
    }

    fn overhear(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        self.on_overhear(now, from, to, packet, out);
        self.flush(now, out);
    }

    fn promiscuous(&self) -> bool {
        self.cfg.promiscuous
    }

    fn tx_ok(&mut self, now: SimTime, next_hop: NodeId, uid: u64, _out: &mut Vec<RouteAction>) {
        // Only link-layer maintenance takes the MAC's word for the link (§8.3.1).
        if self.cfg.maintenance == Maintenance::LinkLayer {
            self.cache.confirm(now, self.me, next_hop);
        } else {
            // That packet's copy left: its acknowledgement wait starts now.
            self.mark_sent(now, next_hop, uid);
        }
    }

    fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        if self.cfg.maintenance != Maintenance::LinkLayer {
            // Link-layer feedback is off: the MAC already counted the loss,
            // and the maintenance buffer still holds a copy if one is owed;
            // its ACK timer runs from now.
            return self.mark_sent(now, next_hop, packet.uid);
        }
        let pkts = if packet.is_routing() || packet.sr.is_none() || next_hop == BROADCAST { vec![] } else { vec![packet] };
        self.link_broken(now, next_hop, crate::net::LinkCause::MacFeedback, pkts, out);
    }

    fn reclaimed(&mut self, now: SimTime, next_hop: NodeId, packets: Vec<Packet>, out: &mut Vec<RouteAction>) {
        let mut data = vec![];
        for p in packets {
            if p.sr.is_some() && !p.is_routing() {
                data.push(p);
            } else {
                out.push(RouteAction::Drop { packet: p, reason: DropReason::Cbk });
            }
        }
        self.errors_for(now, next_hop, &data, out);
        for p in data {
            self.salvage(now, p, out);
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.min_time()
    }

    fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        // Rebroadcasts (and with `jitter_originated` our requests and
        // replies) whose jitter ran out, in release order.
        let mut i = 0;
        while i < self.jitter.len() {
            if self.jitter[i].0 <= now {
                let (_, next_hop, p) = self.jitter.remove(i);
                out.push(RouteAction::Send { next_hop, packet: p });
            } else {
                i += 1;
            }
        }
        if self.scanning() {
            while self.spaced.front().is_some_and(|s| s.0 <= now) {
                let (_, p) = self.spaced.pop_front().unwrap();
                self.transmit(now, p, out);
            }
            if self.next_scan.is_some_and(|t| t <= now) {
                self.scan_send_buffer(now, out);
                let next = now + self.scan_period();
                self.next_scan = Some(next);
            }
        }
        // §4.2: SendBufferTimeout.
        while !self.scanning() && self.send_buf.front().is_some_and(|(t, _)| *t + dur(self.cfg.send_buffer_s) <= now) {
            let (_, p) = self.send_buf.pop_front().unwrap();
            out.push(RouteAction::Drop { packet: p, reason: DropReason::Tout });
        }
        self.discovery_timeouts(now, out);
        self.maint_timeouts(now, out);
        let hold = dur(self.cfg.grat_reply_holdoff_s);
        self.grat_sent.retain(|_, t| *t + hold > now);
    }

    fn has_route(&self, now: SimTime, dst: NodeId) -> bool {
        self.cache.find(now, dst).is_some()
    }
}
