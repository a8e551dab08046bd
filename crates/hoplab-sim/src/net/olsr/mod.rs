//! OLSR (RFC 3626): proactive link-state routing with multipoint relays,
//! over UDP port 698, as a sans-IO state machine.
//!
//! One interface per node, so a node's main address is its only interface
//! address and MID messages are never needed; no HNA. Every entry point
//! ends in `refresh`, which expires tuples, reacts to neighbourhood changes
//! (§8.5), reselects MPRs, renumbers the advertised set and marks the
//! routing table for recomputation when its inputs changed; the table is
//! recomputed at the next lookup (§10 allows recomputing whenever needed).
//! Tuple sets are indexed by expiry time, so an entry point that expires
//! nothing does not scan them.
//!
//! Choices the RFC leaves open: one message per packet (no piggybacking);
//! IP TTL 1 on every OLSR packet (flooding uses the message TTL); forwarded
//! TCs wait U(0, MAXJITTER); periodic HELLO/TC intervals are shortened by
//! U(0, MAXJITTER); empty TCs for TOP_HOLD_TIME after the advertised set
//! empties (§9.3 MAY); MPR heuristic without the optional step-5 pruning;
//! a MAC failure never salvages or re-routes the failed packet (the node
//! already counted it as RET), and with link-layer feedback off it changes
//! nothing at all.

pub mod config;
mod link;
pub mod mpr;
pub use crate::wire::olsr as msg;
pub mod table;
mod timed;
#[cfg(test)]
mod tests;

pub use config::OlsrConfig;
pub use msg::OlsrPacket;

use crate::net::routing::{LinkCause, Protocol, RouteAction, RouteNote};
use crate::net::{DropReason, RoutingMsg};
use crate::rng::Stream;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, BROADCAST};
use config::WILL_NEVER;
use link::{Hyst, Link};
use msg::{decode_time, encode_time, seq_greater, Hello, LinkGroup, LinkType, Message, NeighType, Tc};
use std::cell::{Cell, Ref, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use table::Routes;
use timed::TimedMap;

/// §18.5: TTL of TC messages (flooded network-wide).
const TC_TTL: u8 = 255;

pub struct Olsr {
    me: NodeId,
    cfg: OlsrConfig,
    rng: Stream,
    hello_interval: Dur,
    tc_interval: Dur,
    neighb_hold: Dur,
    top_hold: Dur,
    dup_hold: Dur,
    max_jitter: Dur,
    hyst: Hyst,

    /// Link set (§4.2.1), by neighbour (= interface) address.
    links: BTreeMap<NodeId, Link>,
    /// Neighbour set (§4.3.1): N_willingness; N_status is derived from the
    /// link set (§8.1).
    willingness: BTreeMap<NodeId, u8>,
    /// The symmetric neighbours as of the last refresh.
    sym: BTreeSet<NodeId>,
    /// Two-hop neighbour set (§4.3.2): (N_neighbor_main_addr, N_2hop_addr) -> N_time.
    two_hop: TimedMap<(NodeId, NodeId), ()>,
    mprs: BTreeSet<NodeId>,
    /// MPR selector set (§4.3.4): MS_main_addr -> MS_time.
    selectors: TimedMap<NodeId, ()>,
    /// Topology set (§4.4): (T_last_addr, T_dest_addr) -> (T_seq, T_time).
    topology: TimedMap<(NodeId, NodeId), u16>,
    /// Duplicate set (§3.4): (D_addr, D_seq_num) -> (D_time, D_retransmitted).
    dup: HashMap<(NodeId, u16), (SimTime, bool)>,
    /// The duplicate tuples in the order they were recorded, which is the
    /// order of their D_time: the sweep pops them from the front.
    dup_order: VecDeque<(SimTime, (NodeId, u16))>,
    /// The routing table (§10), recomputed lazily: `routes_dirty` is set
    /// when its inputs (symmetric neighbours, their willingness, two-hop or
    /// topology set) change, and the next lookup recomputes it.
    routes: RefCell<Routes>,
    routes_dirty: Cell<bool>,

    /// The advertised neighbour set of our TCs and its ANSN (§9.3).
    advertised: BTreeSet<NodeId>,
    ansn: u16,
    /// §9.3: after the advertised set empties, empty TCs until then.
    empty_tc_until: SimTime,
    msn: u16,
    pkt_seq: u16,
    uid_counter: u64,
    next_hello: SimTime,
    next_tc: SimTime,
    /// Forwarded messages waiting out their jitter.
    outq: BTreeMap<(SimTime, u64), Message>,
    outq_seq: u64,
    two_hop_changed: bool,
    /// The MPR selector set gained or lost a tuple since the last refresh.
    selectors_changed: bool,
    topology_changed: bool,
    /// A message or MAC feedback changed a link tuple since the last scan
    /// of the link set.
    links_touched: bool,
    /// The earliest instant at which a link tuple changes by itself (a
    /// timer runs out); until then, and untouched, the link set needs no
    /// scan.
    links_due: SimTime,
    deadline: Option<SimTime>,
}

impl Olsr {
    pub fn new(me: NodeId, cfg: &OlsrConfig, rng: Stream) -> Olsr {
        let mut o = Olsr {
            me,
            cfg: cfg.clone(),
            rng,
            hello_interval: Dur::from_secs_f64(cfg.hello_interval_s),
            tc_interval: Dur::from_secs_f64(cfg.tc_interval_s),
            neighb_hold: Dur::from_secs_f64(cfg.neighb_hold_time_s),
            top_hold: Dur::from_secs_f64(cfg.top_hold_time_s),
            dup_hold: Dur::from_secs_f64(cfg.dup_hold_time_s),
            max_jitter: Dur::from_secs_f64(cfg.max_jitter_s),
            hyst: Hyst {
                on: cfg.hysteresis,
                high: cfg.hyst_threshold_high,
                low: cfg.hyst_threshold_low,
                scaling: cfg.hyst_scaling,
            },
            links: BTreeMap::new(),
            willingness: BTreeMap::new(),
            sym: BTreeSet::new(),
            two_hop: TimedMap::new(),
            mprs: BTreeSet::new(),
            selectors: TimedMap::new(),
            topology: TimedMap::new(),
            dup: HashMap::new(),
            dup_order: VecDeque::new(),
            routes: RefCell::new(Routes::default()),
            routes_dirty: Cell::new(false),
            advertised: BTreeSet::new(),
            ansn: 0,
            empty_tc_until: SimTime::ZERO,
            msn: 0,
            pkt_seq: 0,
            uid_counter: 0,
            next_hello: SimTime::ZERO,
            next_tc: SimTime::ZERO,
            outq: BTreeMap::new(),
            outq_seq: 0,
            two_hop_changed: false,
            selectors_changed: false,
            topology_changed: false,
            links_touched: false,
            links_due: SimTime::MAX,
            deadline: None,
        };
        // Start desynchronised: nodes switched on together would otherwise
        // send their first HELLOs at the same instant.
        o.next_hello = SimTime::ZERO + o.jitter();
        o.next_tc = SimTime::ZERO + (o.tc_interval - o.jitter());
        o.update_deadline();
        o
    }

    /// The route to `dst`: (next hop, hops).
    #[cfg(test)]
    pub fn route_to(&self, dst: NodeId) -> Option<(NodeId, u32)> {
        self.routes().get(dst).map(|r| (r.next_hop, r.hops))
    }

    /// The routing table, recomputed first if its inputs changed since the
    /// last computation (§10: "whenever needed"). The inputs only change in
    /// the entry points, which mark the table dirty, so the result is the
    /// table an eager recomputation at the last change would have produced.
    fn routes(&self) -> Ref<'_, Routes> {
        if self.routes_dirty.replace(false) {
            let usable_2hop = self
                .two_hop
                .keys()
                .filter(|(n, _)| self.willingness.get(n).copied().unwrap_or(WILL_NEVER) != WILL_NEVER);
            *self.routes.borrow_mut() =
                table::compute_routes(self.me, &self.sym, usable_2hop, self.topology.keys());
        }
        self.routes.borrow()
    }
    #[cfg(test)]
    pub fn mpr_set(&self) -> &BTreeSet<NodeId> {
        &self.mprs
    }
    #[cfg(test)]
    pub fn mpr_selectors(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.selectors.keys()
    }
    #[cfg(test)]
    pub fn symmetric_neighbors(&self) -> &BTreeSet<NodeId> {
        &self.sym
    }
    /// (T_last_addr, T_dest_addr) of the topology set.
    #[cfg(test)]
    pub fn topology_links(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.topology.keys()
    }

    /// Uniform in [0, MAXJITTER] (§18.9).
    fn jitter(&mut self) -> Dur {
        Dur((self.rng.unit() * self.max_jitter.0 as f64) as u64)
    }

    fn next_uid(&mut self) -> u64 {
        self.uid_counter += 1;
        ((self.me as u64) << 40) | (1 << 39) | (self.uid_counter & ((1 << 39) - 1))
    }

    /// Wrap one message in a packet and broadcast it. The IP TTL is 1: OLSR
    /// floods hop by hop itself, using the message TTL (§3.4.1).
    fn transmit(&mut self, now: SimTime, msg: Message, out: &mut Vec<RouteAction>) {
        self.pkt_seq = self.pkt_seq.wrapping_add(1);
        let uid = self.next_uid();
        let pkt = OlsrPacket { seq: self.pkt_seq, msg };
        let mut packet = Packet::new(uid, self.me, BROADCAST, Body::Routing(RoutingMsg::Olsr(pkt)), now);
        packet.ttl = 1;
        out.push(RouteAction::Send { next_hop: BROADCAST, packet });
    }

    fn originate(&mut self, now: SimTime, vtime: Dur, ttl: u8, body: msg::Body, out: &mut Vec<RouteAction>) {
        self.msn = self.msn.wrapping_add(1);
        let m = Message {
            vtime: encode_time(vtime.as_secs_f64()),
            originator: self.me,
            ttl,
            hop_count: 0,
            msn: self.msn,
            body,
        };
        self.transmit(now, m, out);
    }

    /// §6.2 HELLO generation: every link tuple with its link and neighbour type.
    pub fn build_hello(&self, now: SimTime) -> Hello {
        let mut groups: BTreeMap<(LinkType, NeighType), Vec<NodeId>> = BTreeMap::new();
        for (&n, l) in &self.links {
            let Some(lt) = l.advertised_type(now) else { continue };
            let nt = if self.mprs.contains(&n) {
                NeighType::Mpr
            } else if self.sym.contains(&n) {
                NeighType::Sym
            } else {
                NeighType::Not
            };
            groups.entry((lt, nt)).or_default().push(n);
        }
        Hello {
            htime: encode_time(self.cfg.hello_interval_s),
            willingness: self.cfg.willingness,
            links: groups.into_iter().map(|((link, neigh), addrs)| LinkGroup { link, neigh, addrs }).collect(),
        }
    }

    fn send_hello(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let h = self.build_hello(now);
        self.originate(now, self.neighb_hold, 1, msg::Body::Hello(h), out); // §6: HELLO TTL 1
    }

    fn tc_due(&self, now: SimTime) -> bool {
        // §9.3: nodes with an empty advertised set send nothing, except empty
        // TCs for TOP_HOLD_TIME to invalidate what they advertised before.
        // A WILL_NEVER node is never an MPR and advertises nothing (§15.1).
        self.cfg.willingness != WILL_NEVER && (!self.advertised.is_empty() || now < self.empty_tc_until)
    }

    fn send_tc(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let tc = Tc { ansn: self.ansn, advertised: self.advertised.iter().copied().collect() };
        self.originate(now, self.top_hold, TC_TTL, msg::Body::Tc(tc), out);
    }

    /// §14.3: account a packet from `from` for link quality.
    fn packet_heard(&mut self, now: SimTime, from: NodeId, seq: u16) {
        let (hyst, hold) = (self.hyst, self.neighb_hold);
        if let Some(l) = self.links.get_mut(&from) {
            l.check_seq(now, seq, &hyst, hold);
            l.packet_received(now, &hyst, hold);
            // Without hysteresis a packet only moves the silence deadline,
            // which nothing reads.
            self.links_touched |= hyst.on;
        }
    }

    /// HELLO processing: link sensing §7.1.1, neighbours §8.1.1, two-hop
    /// neighbours §8.2.1, MPR selectors §8.4.1.
    fn process_hello(&mut self, now: SimTime, from: NodeId, seq: u16, m: &Message, h: &Hello) {
        let vtime = decode_time(m.vtime);
        let htime = decode_time(h.htime);
        let (hyst, hold) = (self.hyst, self.neighb_hold);
        self.links_touched = true;
        let link = self.links.entry(from).or_insert_with(|| {
            let mut l = Link::new(now, vtime, &hyst, htime);
            l.last_seq = Some(seq);
            l.packet_received(now, &hyst, hold);
            l
        });
        link.htime = htime;
        link.asym_time = now + vtime;
        let mine = h.links.iter().find(|g| g.addrs.contains(&self.me));
        match mine.map(|g| g.link) {
            Some(LinkType::Lost) => link.sym_time = now,
            Some(LinkType::Sym) | Some(LinkType::Asym) => {
                link.sym_time = now + vtime;
                link.time = link.sym_time + hold;
            }
            _ => {}
        }
        link.time = link.time.max(link.asym_time);
        let sym = link.is_sym(now);
        if self.willingness.insert(from, h.willingness).is_some_and(|w| w != h.willingness) {
            self.routes_dirty.set(true);
        }
        if !sym {
            return;
        }
        for g in &h.links {
            for &a in &g.addrs {
                match g.neigh {
                    NeighType::Sym | NeighType::Mpr => {
                        if a != self.me && self.two_hop.insert((from, a), (), now + vtime).is_none() {
                            self.two_hop_changed = true;
                        }
                    }
                    NeighType::Not => {
                        if self.two_hop.remove(&(from, a)).is_some() {
                            self.two_hop_changed = true;
                        }
                    }
                }
            }
        }
        if mine.is_some_and(|g| g.neigh == NeighType::Mpr) && self.selectors.insert(from, (), now + vtime).is_none() {
            self.selectors_changed = true;
        }
    }

    /// TC processing (§9.5).
    fn process_tc(&mut self, now: SimTime, from: NodeId, m: &Message, tc: &Tc) {
        // Step 1: only from symmetric neighbours.
        if !self.is_sym(now, from) {
            return;
        }
        let o = m.originator;
        let range = (o, NodeId::MIN)..=(o, NodeId::MAX);
        // Step 2: older than what we hold: out of order, ignore.
        if self.topology.range(range.clone()).any(|(_, &seq, _)| seq_greater(seq, tc.ansn)) {
            return;
        }
        // Step 3: drop what an older ANSN said.
        let stale: Vec<_> =
            self.topology.range(range).filter(|(_, &seq, _)| seq_greater(tc.ansn, seq)).map(|(k, _, _)| k).collect();
        for k in stale {
            self.topology.remove(&k);
            self.topology_changed = true;
        }
        // Step 4.
        let t = now + decode_time(m.vtime);
        for &d in &tc.advertised {
            if self.topology.insert((o, d), tc.ansn, t).is_none() {
                self.topology_changed = true;
            }
        }
    }

    fn is_sym(&self, now: SimTime, n: NodeId) -> bool {
        self.links.get(&n).is_some_and(|l| l.is_sym(now))
    }

    /// The default forwarding algorithm (§3.4.1), for TCs. `seen`: whether
    /// the duplicate set already held the message when it arrived.
    fn forward(&mut self, now: SimTime, from: NodeId, mut m: Message, seen: bool) {
        // Step 1.
        if !self.is_sym(now, from) {
            return;
        }
        // Step 2: with one interface a recorded message always lists the
        // receiving interface, so it is never considered again.
        if seen {
            return;
        }
        // Step 4: relay for MPR selectors only.
        let retransmit = self.selectors.contains_key(&from) && m.ttl > 1;
        // Step 5.
        let until = now + self.dup_hold;
        self.dup.insert((m.originator, m.msn), (until, retransmit));
        self.dup_order.push_back((until, (m.originator, m.msn)));
        if retransmit {
            // Steps 6-8. The wait spreads the relays of several MPRs
            // (RFC 3626 leaves forwarding jitter to implementations).
            m.ttl -= 1;
            m.hop_count = m.hop_count.saturating_add(1);
            let at = now + self.jitter();
            self.outq_seq += 1;
            self.outq.insert((at, self.outq_seq), m);
        }
    }

    /// Forget duplicate tuples whose D_time has passed (§3.4).
    fn sweep_duplicates(&mut self, now: SimTime) {
        while let Some(&(t, k)) = self.dup_order.front() {
            if t > now {
                break;
            }
            self.dup_order.pop_front();
            if self.dup.get(&k).is_some_and(|(kt, _)| *kt == t) {
                self.dup.remove(&k);
            }
        }
    }

    /// What the TCs advertise (§9.3, §15.1 TC_REDUNDANCY).
    fn advertised_set(&self) -> BTreeSet<NodeId> {
        let mut s: BTreeSet<NodeId> = self.selectors.keys().collect();
        match self.cfg.tc_redundancy {
            1 => s.extend(self.mprs.iter().copied()),
            2 => s.extend(self.sym.iter().copied()),
            _ => {}
        }
        s
    }

    /// Expire tuples and bring the derived state up to date.
    fn refresh(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        let (hyst, hold) = (self.hyst, self.neighb_hold);
        // The link set changes only by a message, MAC feedback or a timer
        // running out; between those its derived state stands (most calls
        // come from relayed TCs, which touch no link).
        let scan_links = self.links_touched || self.links_due <= now;
        // §14.3 long silence: one lost packet per missed HELLO interval.
        if scan_links && hyst.on {
            for l in self.links.values_mut() {
                while l.silence_deadline <= now {
                    l.silence_lost(now, &hyst, hold);
                }
            }
        }
        if scan_links && self.links.values().any(|l| l.time <= now) {
            self.links.retain(|_, l| l.time > now);
            let links = &self.links;
            self.willingness.retain(|n, _| links.contains_key(n));
        }
        // O(1) unless something expires.
        self.two_hop_changed |= self.two_hop.expire(now) > 0;
        self.selectors_changed |= self.selectors.expire(now) > 0;
        self.topology_changed |= self.topology.expire(now) > 0;

        // §8.1: N_status from the link set; §8.5 on neighbour loss.
        let sym_changed = scan_links && {
            let sym_now = self.links.iter().filter(|(_, l)| l.is_sym(now)).map(|(n, _)| *n);
            !sym_now.eq(self.sym.iter().copied())
        };
        if sym_changed {
            let sym: BTreeSet<NodeId> = self.links.iter().filter(|(_, l)| l.is_sym(now)).map(|(n, _)| *n).collect();
            for &lost in self.sym.difference(&sym) {
                let by_mac = self.links.get(&lost).is_some_and(|l| l.mac_lost && l.lost_time > now);
                let cause = if by_mac { LinkCause::MacFeedback } else { LinkCause::HelloLoss };
                out.push(RouteAction::Note(RouteNote::LinkBroken { neighbor: lost, cause }));
                self.two_hop_changed |= self.two_hop.retain_keys(|(n, _)| *n != lost) > 0;
                self.selectors_changed |= self.selectors.remove(&lost).is_some();
            }
            for n in sym.difference(&self.sym) {
                if let Some(l) = self.links.get_mut(n) {
                    l.mac_lost = false;
                }
            }
            self.sym = sym;
        }
        if scan_links {
            self.links_due = self.next_link_change(now);
            self.links_touched = false;
        }
        // §8.3: reselect MPRs when the neighbourhood or two-hop set changed.
        let reselect = sym_changed || self.two_hop_changed;
        if reselect {
            let neighbors: BTreeMap<NodeId, u8> =
                self.sym.iter().map(|n| (*n, self.willingness.get(n).copied().unwrap_or(WILL_NEVER))).collect();
            self.mprs = mpr::select_mprs(self.me, &neighbors, self.two_hop.keys(), self.cfg.mpr_coverage);
        }
        // §9.3: a changed advertised set gets a new ANSN. It is a function
        // of the selector set, the MPR set and the symmetric neighbours, so
        // it can only have changed if one of them did.
        let adv = if reselect || self.selectors_changed { Some(self.advertised_set()) } else { None };
        let adv_changed = adv.as_ref().is_some_and(|a| *a != self.advertised);
        if let Some(adv) = adv.filter(|_| adv_changed) {
            self.ansn = self.ansn.wrapping_add(1);
            if adv.is_empty() {
                self.empty_tc_until = now + self.top_hold;
            }
            self.advertised = adv;
        }
        if self.cfg.immediate_tc && (adv_changed || sym_changed) && self.tc_due(now) {
            self.send_tc(now, out);
        }
        // §10: recompute on any change of links, two-hop or topology set,
        // lazily at the next lookup.
        if sym_changed || self.two_hop_changed || self.topology_changed {
            self.routes_dirty.set(true);
        }
        self.two_hop_changed = false;
        self.selectors_changed = false;
        self.topology_changed = false;
    }

    /// When a link tuple next changes by itself: a validity time or, with
    /// hysteresis, a silence deadline runs out.
    fn next_link_change(&self, now: SimTime) -> SimTime {
        let mut d = SimTime::MAX;
        for l in self.links.values() {
            for t in [l.sym_time, l.time, l.lost_time] {
                if t > now {
                    d = d.min(t);
                }
            }
            if self.hyst.on {
                d = d.min(l.silence_deadline);
            }
        }
        d
    }

    fn update_deadline(&mut self) {
        let mut d = self.next_hello.min(self.next_tc);
        if let Some((&(t, _), _)) = self.outq.iter().next() {
            d = d.min(t);
        }
        d = d.min(self.links_due);
        // The earliest tuple expiries, without scanning the sets.
        for t in [self.two_hop.earliest(), self.selectors.earliest(), self.topology.earliest()].into_iter().flatten() {
            d = d.min(t);
        }
        self.deadline = Some(d);
    }

    fn catch_up(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.handle_timeout(now, out);
        }
    }
}

impl Protocol for Olsr {
    fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        self.catch_up(now, out);
        // No route: OLSR has no buffer to wait in (seed 003 §5).
        let r = self.routes().get(packet.dst);
        match r {
            Some(r) => out.push(RouteAction::Send { next_hop: r.next_hop, packet }),
            None => out.push(RouteAction::Drop { packet, reason: DropReason::Nrte }),
        }
    }

    fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        let Body::Routing(RoutingMsg::Olsr(pkt)) = packet.body else { return };
        self.catch_up(now, out);
        self.packet_heard(now, from, pkt.seq);
        let m = pkt.msg;
        // §3.4 step 2: expired or our own message.
        if m.ttl == 0 || m.originator == self.me {
            self.refresh(now, out);
            self.update_deadline();
            return;
        }
        // §3.4 step 3: process once.
        let seen = self.dup.contains_key(&(m.originator, m.msn));
        match &m.body {
            msg::Body::Hello(h) => {
                // §6: HELLOs are never forwarded, so never recorded.
                if !seen {
                    self.process_hello(now, from, pkt.seq, &m, h);
                }
            }
            msg::Body::Tc(tc) => {
                if !seen {
                    self.process_tc(now, from, &m, tc);
                }
                // Forward from the pre-refresh neighbourhood: the message
                // arrived under it.
                self.forward(now, from, m, seen);
            }
        }
        self.refresh(now, out);
        self.update_deadline();
    }

    fn link_failed(&mut self, now: SimTime, next_hop: NodeId, _packet: Packet, out: &mut Vec<RouteAction>) {
        // The node has counted the packet as a RET drop; OLSR does not
        // salvage it. Without link-layer feedback nothing else happens: the
        // route stays until HELLOs stop (seed 003 §2).
        if !self.cfg.link_layer_feedback {
            return;
        }
        self.catch_up(now, out);
        // §13: mark the link lost for NEIGHB_HOLD_TIME.
        let hold = self.neighb_hold;
        self.links_touched = true;
        if let Some(l) = self.links.get_mut(&next_hop) {
            l.lost_time = now + hold;
            l.time = now + hold;
            l.mac_lost = true;
        }
        self.refresh(now, out);
        self.update_deadline();
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        while let Some((&(t, k), _)) = self.outq.iter().next() {
            if t > now {
                break;
            }
            let m = self.outq.remove(&(t, k)).unwrap();
            self.transmit(now, m, out);
        }
        self.refresh(now, out);
        if self.next_hello <= now {
            self.send_hello(now, out);
            // §18.9: the next emission comes up to MAXJITTER early.
            self.next_hello = now + (self.hello_interval - self.jitter());
            self.sweep_duplicates(now);
        }
        if self.next_tc <= now {
            if self.tc_due(now) {
                self.send_tc(now, out);
            }
            self.next_tc = now + (self.tc_interval - self.jitter());
        }
        self.update_deadline();
    }

    fn has_route(&self, _now: SimTime, dst: NodeId) -> bool {
        self.routes().contains(dst)
    }
}
