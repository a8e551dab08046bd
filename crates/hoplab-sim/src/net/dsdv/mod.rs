//! DSDV: Destination-Sequenced Distance Vector routing (Perkins & Bhagwat,
//! SIGCOMM 1994), following ns-2.35's CMU Monarch implementation
//! (`dsdv/dsdv.cc`) wherever the paper leaves a choice open.
//!
//! Every node advertises its whole table periodically (full dump) and the
//! changed part when a metric changes (triggered incremental update). Route
//! freshness comes from destination-originated even sequence numbers; a
//! node that loses a route advertises it with metric infinity and the
//! sequence number plus one. Data without a route waits in a small
//! per-destination queue until an update brings one, as ns-2 does.

mod config;
use crate::wire::dsdv as msg;
mod table;
#[cfg(test)]
mod tests;

#[cfg_attr(not(test), allow(unused_imports))]
pub use config::{DsdvConfig, PacketFormat};
#[cfg_attr(not(test), allow(unused_imports))]
pub use msg::{DsdvEntry, DsdvMsg, DsdvUpdate};
#[cfg_attr(not(test), allow(unused_imports))]
pub use table::{better, RouteEntry, INFINITY};

use crate::wire::RoutingMsg;
use crate::net::routing::{LinkCause, Protocol, RouteAction, RouteNote};
use crate::net::DropReason;
use crate::rng::Stream;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, BROADCAST};
use std::collections::{BTreeMap, VecDeque};

/// ns-2 parks entries it must not advertise (a destination we only want to
/// reach, a neighbour first heard through a partial update) with
/// `advertise_ok_at = now + 604800`, "check back next week".
const NOT_BEFORE_NEXT_WEEK: Dur = Dur(604_800 * 1_000_000_000);

pub struct Dsdv {
    me: NodeId,
    cfg: DsdvConfig,
    rng: Stream,
    /// Ordered by destination, as ns-2's sorted `RoutingTable`: updates list
    /// entries in this order.
    table: BTreeMap<NodeId, RouteEntry>,
    /// Data waiting for a route, per destination (ns-2 `rtable_ent::q`).
    queues: BTreeMap<NodeId, VecDeque<Packet>>,
    /// Our own sequence number to advertise next (ns-2 `seqno_`), even.
    seqno: u32,
    periodic_at: SimTime,
    /// Per neighbour: when its routes break unless it sends an update.
    neighbor_timeout: BTreeMap<NodeId, SimTime>,
    /// Last update sent by a trigger or a full dump (ns-2 `lasttup_`).
    last_update: Option<SimTime>,
    /// Updates waiting out their broadcast jitter, by due time.
    outbox: Vec<(SimTime, Packet)>,
    next_uid: u64,
}

impl Dsdv {
    pub fn new(me: NodeId, cfg: &DsdvConfig, rng: Stream) -> Dsdv {
        let mut d = Dsdv {
            me,
            cfg: cfg.clone(),
            rng,
            table: BTreeMap::new(),
            queues: BTreeMap::new(),
            seqno: 0,
            periodic_at: SimTime::ZERO,
            neighbor_timeout: BTreeMap::new(),
            last_update: None,
            outbox: vec![],
            next_uid: 0,
        };
        // ns-2 `startUp`: our own route, sequence number 0, to be advertised.
        let mut own = RouteEntry::blank(me);
        own.seqno = d.seqno;
        own.advert_seqno = true;
        own.advert_metric = true;
        d.table.insert(me, own);
        d.seqno += 2;
        d.periodic_at = SimTime::ZERO + d.jitter(d.cfg.startup_jitter_s);
        d
    }

    /// The route entry for `dst` (including broken and placeholder ones).
    #[cfg(test)]
    pub fn route_entry(&self, dst: NodeId) -> Option<&RouteEntry> {
        self.table.get(&dst)
    }

    /// Every entry, by destination (our own included).
    #[allow(dead_code)]
    pub fn routes(&self) -> impl Iterator<Item = &RouteEntry> {
        self.table.values()
    }

    /// Data packets waiting for a route to `dst`.
    #[cfg(test)]
    pub fn queued(&self, dst: NodeId) -> usize {
        self.queues.get(&dst).map_or(0, |q| q.len())
    }

    /// Take every data packet still waiting for a route, by destination (for
    /// END accounting when the run stops; ns-2's queues never time out).
    #[allow(dead_code)]
    pub fn take_queued(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.queues).into_values().flatten().collect()
    }

    /// ns-2 `jitter(max, be_random_)`: uniform [0, max), or 0 when off.
    fn jitter(&mut self, max_s: f64) -> Dur {
        if self.cfg.jitter {
            Dur::from_secs_f64(self.rng.unit() * max_s)
        } else {
            Dur::ZERO
        }
    }

    /// ns-2 `perup_ * (0.75 + jitter(0.25))`.
    fn periodic_interval(&mut self) -> Dur {
        let j = if self.cfg.jitter { self.rng.unit() * 0.25 } else { 0.0 };
        Dur::from_secs_f64(self.cfg.periodic_update_s * (0.75 + j))
    }

    fn need_trigger(cfg: &DsdvConfig, e: &mut RouteEntry, at: SimTime) {
        // ns-2 `needTriggeredUpdate`: one pending trigger per entry, and a
        // new request moves it (even later).
        if cfg.triggered_updates {
            e.trigger_at = Some(at);
        }
    }

    /// ns-2 `makeUpdate`: the entries to advertise now, or None.
    fn make_update(&mut self, now: SimTime, mut full: bool) -> Option<DsdvUpdate> {
        let (mut size, mut changes, mut held) = (0usize, 0usize, 0usize);
        for e in self.table.values() {
            size += 1;
            if (e.advert_seqno || e.advert_metric) && e.advertise_ok_at <= now {
                changes += 1;
            }
            if e.advertise_ok_at > now {
                held += 1;
            }
        }
        // Much of the table changed: a full dump costs little more.
        if changes * 3 > size && changes > 3 {
            full = true;
        }
        if full {
            changes = size - held;
            // Each full dump carries a fresh even sequence number for us
            // (paper §III-B: the destination originates even numbers).
            self.seqno += 2;
            let mut own = RouteEntry::blank(self.me);
            own.seqno = self.seqno;
            own.advert_seqno = true;
            own.changed_at = now;
            own.new_seqno_at = now;
            self.table.insert(self.me, own);
        }
        if changes == 0 {
            return None;
        }
        let mut entries = Vec::with_capacity(changes);
        for e in self.table.values_mut() {
            if full && e.advertise_ok_at > now {
                continue; // still settling: not even in a full dump
            }
            if full || ((e.advert_seqno || e.advert_metric) && e.advertise_ok_at <= now) {
                entries.push(DsdvEntry { dst: e.dst, metric: e.metric, seqno: e.seqno });
                e.last_advertised_metric = e.metric;
                // A sequence number is advertised once; a changed metric
                // goes in every incremental update until the next full dump
                // (paper §III-B).
                e.advert_seqno = false;
                if full {
                    e.advert_metric = false;
                }
            }
        }
        Some(DsdvUpdate { full, entries, format: self.cfg.packet_format })
    }

    fn send_update(&mut self, now: SimTime, upd: DsdvUpdate, out: &mut Vec<RouteAction>) {
        self.next_uid += 1;
        let uid = (self.me as u64) << 40 | 1 << 39 | self.next_uid;
        let mut p = Packet::new(uid, self.me, BROADCAST, Body::Routing(RoutingMsg::Dsdv(DsdvMsg::Update(upd))), now);
        p.ttl = 1; // neighbours only: each node re-advertises from its own table
        let delay = self.jitter(self.cfg.broadcast_jitter_s);
        if delay == Dur::ZERO {
            out.push(RouteAction::Send { next_hop: BROADCAST, packet: p });
        } else {
            self.outbox.push((now + delay, p));
        }
    }

    fn periodic(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        if let Some(upd) = self.make_update(now, true) {
            self.send_update(now, upd, out);
        }
        self.periodic_at = now + self.periodic_interval();
        // A full dump takes the place of any planned triggered update.
        self.last_update = Some(now);
    }

    /// ns-2 `DSDVTriggerHandler::handle`.
    fn trigger(&mut self, now: SimTime, dst: NodeId, out: &mut Vec<RouteAction>) {
        if let Some(last) = self.last_update {
            let next_possible = last + Dur::from_secs_f64(self.cfg.min_triggered_interval_s);
            if now < next_possible {
                // Too soon after the last update: postpone this one and let
                // it stand for every other trigger due before it.
                for e in self.table.values_mut() {
                    if e.dst == dst {
                        e.trigger_at = Some(next_possible);
                    } else if e.trigger_at.is_some_and(|t| t < next_possible) {
                        e.trigger_at = None;
                    }
                }
                return;
            }
        }
        if let Some(e) = self.table.get_mut(&dst) {
            e.trigger_at = None;
        }
        if let Some(upd) = self.make_update(now, false) {
            if upd.full {
                self.periodic_at = now + self.periodic_interval();
            }
            self.send_update(now, upd, out);
            self.last_update = Some(now);
        }
    }

    /// Mark every route via `neighbor` broken (metric infinity, sequence
    /// number + 1, paper §III-C) and advertise them at once (ns-2
    /// `helper_callback` on a neighbour timeout, also run by `lost_link`).
    fn break_routes_via(&mut self, now: SimTime, neighbor: NodeId, cause: LinkCause, out: &mut Vec<RouteAction>) {
        self.neighbor_timeout.remove(&neighbor);
        let mut any = false;
        for e in self.table.values_mut() {
            if e.next_hop == neighbor && e.is_valid() && e.dst != self.me {
                e.metric = INFINITY;
                e.seqno = e.seqno.wrapping_add(1);
                e.advertise_ok_at = now;
                e.advert_metric = true;
                e.advert_seqno = true;
                // changed_at is left alone so the settling time does not
                // take the infinite metric as this sequence number's best.
                Self::need_trigger(&self.cfg, e, now);
                any = true;
            }
        }
        if any {
            out.push(RouteAction::Note(RouteNote::LinkBroken { neighbor, cause }));
        }
    }

    /// ns-2 `processUpdate`.
    fn process_update(&mut self, now: SimTime, from: NodeId, upd: &DsdvUpdate, out: &mut Vec<RouteAction>) {
        let alpha = self.cfg.settling_alpha;
        for adv in &upd.entries {
            let prev = self.table.get(&adv.dst).cloned();
            let mut rte = prev.clone().unwrap_or_else(|| RouteEntry::blank(adv.dst));
            rte.next_hop = from;
            rte.metric = if adv.metric >= INFINITY { INFINITY } else { (adv.metric + 1).min(INFINITY) };
            rte.seqno = adv.seqno;
            rte.changed_at = now;

            if adv.dst == self.me {
                // We have the last word on ourselves: answer a claim that we
                // are unreachable with a full dump now (CMU Monarch).
                if rte.metric == INFINITY {
                    self.periodic_at = now;
                }
                continue;
            }

            // Weighted settling time (paper §III-E): a new sequence number
            // closes the measurement of the old one, from its first arrival
            // to the arrival of its best metric.
            match &prev {
                Some(p) if p.seqno == rte.seqno => {}
                Some(p) => {
                    let settled = p.changed_at.since(p.new_seqno_at).as_secs_f64();
                    rte.settling_s = alpha * p.settling_s + (1.0 - alpha) * settled;
                    rte.new_seqno_at = now;
                }
                None => {
                    rte.settling_s = self.cfg.settling_initial_s;
                    rte.new_seqno_at = now;
                }
            }
            // Advertise a finite route replacing a finite one only after
            // twice the settling time; news of a break or a repair at once.
            rte.advertise_ok_at = if self.cfg.use_settling && rte.is_valid() && prev.as_ref().is_none_or(|p| p.is_valid()) {
                now + Dur::from_secs_f64(2.0 * rte.settling_s)
            } else {
                now
            };

            let mut trigger = false;
            match &prev {
                None => {
                    if rte.is_valid() {
                        rte.advert_metric = true;
                        trigger = true;
                    }
                    self.table.insert(adv.dst, rte.clone());
                }
                Some(p) if p.seqno == rte.seqno => {
                    // Same sequence number: only a shorter route replaces.
                    if rte.metric < p.metric {
                        let changed = rte.metric != p.last_advertised_metric;
                        rte.advert_metric = changed;
                        trigger = changed;
                        self.table.insert(adv.dst, rte.clone());
                    }
                }
                Some(p) if p.seqno < rte.seqno => {
                    // A fresher sequence number must be believed, whatever
                    // its metric (paper §III-B).
                    rte.advert_seqno = true;
                    rte.advert_metric = rte.metric != p.last_advertised_metric;
                    self.table.insert(adv.dst, rte.clone());
                    trigger = self.cfg.trigger_on_new_seqno;
                }
                Some(p) => {
                    // Older information. If it says the route is broken while
                    // ours is good, tell the sender about ours right away.
                    if !rte.is_valid() && p.is_valid() {
                        let e = self.table.get_mut(&adv.dst).expect("prev exists");
                        e.advertise_ok_at = now;
                        e.advert_metric = true;
                        Self::need_trigger(&self.cfg, e, now);
                    }
                }
            }
            if trigger {
                let e = self.table.get_mut(&adv.dst).expect("just installed");
                let at = e.advertise_ok_at;
                Self::need_trigger(&self.cfg, e, at);
            }
            self.release(adv.dst, out);
        }

        // Hearing any update from `from` keeps its routes alive.
        let hold = Dur::from_secs_f64(self.cfg.min_update_periods as f64 * self.cfg.periodic_update_s);
        if !self.table.contains_key(&from) {
            // First heard through an update that did not list the sender
            // itself: keep a harmless one-hop entry to hang the timeout on.
            let mut e = RouteEntry::blank(from);
            e.metric = 1;
            e.advertise_ok_at = now + NOT_BEFORE_NEXT_WEEK;
            e.changed_at = now;
            e.new_seqno_at = now;
            e.settling_s = self.cfg.settling_initial_s;
            self.table.insert(from, e);
        }
        self.neighbor_timeout.insert(from, now + hold);
    }

    /// Send the packets waiting for `dst` if there is now a route.
    fn release(&mut self, dst: NodeId, out: &mut Vec<RouteAction>) {
        let Some(e) = self.table.get(&dst) else { return };
        if !e.is_valid() {
            return;
        }
        let next_hop = e.next_hop;
        if let Some(q) = self.queues.remove(&dst) {
            for packet in q {
                out.push(RouteAction::Send { next_hop, packet });
            }
        }
    }

    fn enqueue(&mut self, packet: Packet, out: &mut Vec<RouteAction>) {
        let q = self.queues.entry(packet.dst).or_default();
        q.push_back(packet);
        // ns-2 forwardPacket: keep at most MAX_QUEUE_LENGTH, dropping the oldest.
        while q.len() > self.cfg.max_queue_len as usize {
            let old = q.pop_front().expect("non-empty");
            out.push(RouteAction::Drop { packet: old, reason: DropReason::Qfull });
        }
    }

    fn earliest_trigger(&self) -> Option<(SimTime, NodeId)> {
        self.table.values().filter_map(|e| e.trigger_at.map(|t| (t, e.dst))).min()
    }
}

impl Protocol for Dsdv {
    fn route(&mut self, now: SimTime, mut packet: Packet, out: &mut Vec<RouteAction>) {
        if self.cfg.double_ip_header && packet.src == self.me && packet.extra_header == 0 && !packet.is_routing() {
            // ns-2 dsdv.cc recv: "Add the IP Header" to what this node originates.
            packet.extra_header = crate::wire::IP_HEADER;
        }
        if packet.dst == BROADCAST {
            out.push(RouteAction::Send { next_hop: BROADCAST, packet });
            return;
        }
        match self.table.get(&packet.dst) {
            Some(e) if e.is_valid() => {
                let next_hop = e.next_hop;
                out.push(RouteAction::Send { next_hop, packet });
            }
            Some(_) => self.enqueue(packet, out),
            None => {
                // A brand-new destination: a placeholder entry with no route
                // that is never advertised, holding the queue (ns-2).
                let mut e = RouteEntry::blank(packet.dst);
                e.metric = INFINITY;
                e.advertise_ok_at = now + NOT_BEFORE_NEXT_WEEK;
                e.changed_at = now;
                e.new_seqno_at = now;
                e.settling_s = self.cfg.settling_initial_s;
                self.table.insert(packet.dst, e);
                self.enqueue(packet, out);
            }
        }
    }

    fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        if packet.src == self.me {
            return;
        }
        if let Body::Routing(RoutingMsg::Dsdv(DsdvMsg::Update(upd))) = &packet.body {
            self.process_update(now, from, upd, out);
        }
    }

    fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        // ns-2 `lost_link`: without use_mac_ the feedback is ignored and the
        // packet dropped as CBK; routes break only by neighbour timeout.
        if !self.cfg.use_mac || next_hop == BROADCAST {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
            return;
        }
        let Some(e) = self.table.get(&next_hop) else {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
            return;
        };
        if self.neighbor_timeout.contains_key(&next_hop) || e.is_valid() {
            self.break_routes_via(now, next_hop, LinkCause::MacFeedback, out);
        }
        // Only the failed packet is re-routed (queued until a new route);
        // ns-2 leaves the interface queue alone (its filter code is #if 0).
        self.route(now, packet, out);
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let mut t = self.periodic_at;
        if let Some(&n) = self.neighbor_timeout.values().min() {
            t = t.min(n);
        }
        if let Some((tr, _)) = self.earliest_trigger() {
            t = t.min(tr);
        }
        if let Some(o) = self.outbox.iter().map(|o| o.0).min() {
            t = t.min(o);
        }
        Some(t)
    }

    fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        loop {
            // Jittered sends first, then timeouts, triggers, the full dump.
            if let Some(i) = (0..self.outbox.len()).filter(|&i| self.outbox[i].0 <= now).min_by_key(|&i| self.outbox[i].0) {
                let (_, packet) = self.outbox.remove(i);
                out.push(RouteAction::Send { next_hop: BROADCAST, packet });
                continue;
            }
            let timeout = self.neighbor_timeout.iter().map(|(&n, &t)| (t, 0u8, n)).min();
            let trigger = self.earliest_trigger().map(|(t, d)| (t, 1u8, d));
            let periodic = Some((self.periodic_at, 2u8, self.me));
            let (t, kind, node) = [timeout, trigger, periodic].into_iter().flatten().min().expect("periodic always pending");
            if t > now {
                break;
            }
            match kind {
                0 => self.break_routes_via(now, node, LinkCause::HelloLoss, out),
                1 => self.trigger(now, node, out),
                _ => self.periodic(now, out),
            }
        }
    }

    fn has_route(&self, _now: SimTime, dst: NodeId) -> bool {
        self.table.get(&dst).is_some_and(|e| e.is_valid())
    }
}
