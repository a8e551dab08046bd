//! A node's protocol stack, and the one place that knows the order of its
//! layers: PHY (radio) <-> MAC (DCF) <-> interface queue <-> IP/routing <->
//! agents. Each event is handed to the layer it is for; the node then
//! shuttles the layers' outputs until nothing moves, and re-arms timers.
//!
//! With `[link] arp` on, ARP sits between routing and the interface queue,
//! where ns-2's LL does (seed 002 §2: routing -> LL/ARP -> IFQ -> MAC).
//! With `[link] delay_us` > 0, the LL's delay sits there too, both ways
//! (`LinkDelay` below).

use crate::app::{Agent, AGENT_TIMERS};
use crate::event::{Event, TxTable};
use crate::mac::{Dcf, Ifq, MacEvent, MacTimer, MAC_TIMERS};
use crate::measure::NetStats;
use crate::net::arp::{Arp, ArpOut};
use crate::net::lred::LinkRed;
use crate::rng::Stream;
use crate::net::{DropReason, RouteAction, Router};
use crate::phy::{Channel, Radio, RxOutcome};
use crate::queue::{EventQueue, Phase};
use crate::time::{Dur, SimTime};
use crate::trace::event::{Layer, TraceEvent, What};
use crate::trace::tap::Tap;
use crate::wire::{Body, Frame, FrameKind, NodeId, Packet, PacketType, BROADCAST};
use crate::fasthash::FastMap;
use std::collections::{BTreeMap, VecDeque};

/// The world's shared pieces a node may touch while handling an event.
pub struct Ctx<'a> {
    pub now: SimTime,
    pub queue: &'a mut EventQueue<Event>,
    pub channel: &'a mut Channel,
    pub txs: &'a mut TxTable,
    /// The world's trace tap; None when nothing is traced (every hook is
    /// then one branch).
    pub tap: Option<&'a mut Tap>,
}

/// A frame event for the tap.
fn frame_event<'f>(now: SimTime, node: NodeId, pos: (f64, f64), layer: Layer, what: What, f: &'f Frame, airtime: Option<Dur>) -> TraceEvent<'f> {
    let ptype = f.packet.as_ref().map_or(PacketType::Mac, Packet::ptype);
    TraceEvent { time: now, node, layer, what, frame: Some(f), packet: f.packet.as_ref(), ptype, reason: None, airtime, power_w: None, next_hop: None, pos }
}

/// A packet event for the tap (AGT, RTR).
fn packet_event(now: SimTime, node: NodeId, pos: (f64, f64), layer: Layer, what: What, p: &Packet) -> TraceEvent<'_> {
    TraceEvent { time: now, node, layer, what, frame: None, packet: Some(p), ptype: p.ptype(), reason: None, airtime: None, power_w: None, next_hop: None, pos }
}

/// The tap's layer of a drop: ns-2 logs interface-queue drops at the IFQ
/// level, which sits with the MAC here (cmu-trace.cc; seed 002 Appendix B).
fn drop_layer(r: DropReason) -> Layer {
    match r.layer() {
        "RTR" => Layer::Rtr,
        _ => Layer::Mac,
    }
}

const ROUTER_TIMER: usize = MAC_TIMERS;
/// ARP's retransmission timer, when ARP is on. Agents' slots follow it; the
/// slot exists only with ARP so that runs without it keep their timer slot
/// numbers (and so their event hashes).
const ARP_TIMER: usize = MAC_TIMERS + 1;

/// `Node::touched` bits: the router was fed an input, the node has ARP,
/// agents were fed (`touched_agents`) since their deadlines were read.
const TOUCHED_ROUTER: u8 = 1;
const TOUCHED_ARP: u8 = 2;
const TOUCHED_AGENTS: u8 = 4;
/// The link delay line changed (its deadline must be re-read).
const TOUCHED_LL: u8 = 8;

/// ns-2's LL delay_ (mac/ll.cc): LL::sendDown hands a packet routing sent
/// (once ARP resolved its next hop) to the interface queue `delay` later,
/// and LL::sendUp a packet the MAC received to routing `delay` later; ARP
/// packets go up to ARP at once (LL::recv calls arpinput). One FIFO for both
/// directions: with one delay, the order of entry is the order of exit.
/// Its timer slot exists only with a delay, as ARP's does.
pub struct LinkDelay {
    delay: Dur,
    line: VecDeque<(SimTime, LlItem)>,
}

enum LlItem {
    /// To the interface queue, for `next_hop`.
    Down { packet: Packet, next_hop: NodeId },
    /// To IP/routing, from the MAC, sent by `from`.
    Up { from: NodeId, packet: Packet },
}

/// One timer. Its deadline `at` has the queue key (`key`: time, sequence
/// number) an entry pushed when it was armed would have; the entry actually
/// queued (`queued`, matched by `gen`) may be earlier: a timer moved later
/// is not pushed again, its entry re-queues itself at `key` when it pops.
#[derive(Clone, Copy, Default)]
struct TimerSlot {
    at: Option<SimTime>,
    key: (SimTime, u64),
    queued: Option<(SimTime, u64)>,
    gen: u32,
}

#[derive(Default)]
pub struct NodeStats {
    pub forwarded: u64,
    pub rx_collisions: u64,
    pub drops: BTreeMap<(DropReason, PacketType), u64>,
    pub net: NetStats,
    /// Diagnostics per data packet uid (routing packets excluded), off
    /// unless `World::count_data_frames` turned them on.
    pub data_tx: Option<BTreeMap<u64, DataTx>>,
    /// Packets LRED marked CE here (net/lred.rs).
    pub ecn_marks: u64,
}

/// How one node handled one data packet (diagnostics for tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataTx {
    /// MAC DATA frames that carried it: first attempts and MAC retries.
    pub frames: u32,
    /// Times routing handed it to the interface queue (originated,
    /// forwarded, salvaged, or retransmitted by route maintenance).
    pub handoffs: u32,
    /// The most copies of it held at once by the interface queue and the MAC.
    pub max_copies: u32,
}

pub struct Node {
    pub id: NodeId,
    /// `link.refill_before_failure_sends`.
    pub refill_before_failure_sends: bool,
    pub radio: Radio,
    pub mac: Dcf,
    pub ifq: Ifq,
    pub router: Router,
    /// None when `link.arp` is off: next hops resolve instantly.
    pub arp: Option<Arp>,
    pub agents: Vec<Agent>,
    pub stats: NodeStats,
    /// `[lred] enabled`: link-layer ECN marking and its random stream.
    pub lred: Option<(LinkRed, Stream)>,
    /// Tests only (fault.rs): a fault applied to a data segment this node forwards.
    pub fault: Option<crate::fault::FaultHook>,
    /// `[link] delay_us` > 0: the LL's delay line and its timer slot.
    ll: Option<LinkDelay>,
    ll_slot: usize,
    /// MAC retransmissions counted when the current packet went to the MAC.
    lred_retx_base: u64,
    timers: Vec<TimerSlot>,
    first_agent_timer: usize,
    next_uid: u64,
    /// Agents fed an input since their deadlines were last read (agents
    /// change only then), each once, with `agent_touched` as the mark: with
    /// thousands of flows at a node, re-reading every agent after every
    /// event made the run quadratic in the flows.
    touched_agents: Vec<u32>,
    agent_touched: Vec<bool>,
    /// Agents' deadlines read since the start (a test's measure of the
    /// per-event cost in flows: issue 22 item 6).
    #[cfg(test)]
    pub agent_reads: u64,
    /// The agent of each flow ending or starting here (the first, as a scan).
    agent_of_flow: FastMap<u32, usize>,
    /// What `sync_timers` must read besides the MAC (`TOUCHED_*` bits),
    /// tested as one byte after every event.
    touched: u8,
    /// `TOUCHED_ROUTER` if the router keeps timers, else 0: static routing
    /// has none, so its many inputs never make `sync_timers` read a deadline.
    router_bit: u8,
    mac_events: Vec<MacEvent>,
    route_actions: Vec<RouteAction>,
    arp_out: Vec<ArpOut>,
    bodies: Vec<Body>,
    /// Real packets delivered here (emulation), with their delivery times,
    /// until the world drains them.
    pub ext_out: Vec<(SimTime, Vec<u8>)>,
}

impl Node {
    pub fn new(id: NodeId, radio: Radio, mut mac: Dcf, ifq: Ifq, router: Router, arp: Option<Arp>, agents: Vec<Agent>) -> Node {
        mac.promiscuous = router.promiscuous();
        let router_bit = if router.has_timers() { TOUCHED_ROUTER } else { 0 };
        // ARP's deadline is read after every event (its bit stays set).
        let arp_bit = if arp.is_some() { TOUCHED_ARP } else { 0 };
        let first_agent_timer = ARP_TIMER + arp.is_some() as usize;
        let timers = vec![TimerSlot::default(); first_agent_timer + AGENT_TIMERS * agents.len()];
        // Reversed, so that the first agent of a flow is the one kept.
        let agent_of_flow = agents.iter().enumerate().rev().map(|(k, a)| (a.flow(), k)).collect();
        let n_agents = agents.len();
        Node {
            id,
            refill_before_failure_sends: false,
            radio,
            mac,
            ifq,
            router,
            arp,
            agents,
            stats: NodeStats::default(),
            lred: None,
            fault: None,
            ll: None,
            ll_slot: usize::MAX,
            lred_retx_base: 0,
            timers,
            first_agent_timer,
            next_uid: 0,
            touched_agents: (0..n_agents as u32).collect(),
            agent_touched: vec![true; n_agents],
            #[cfg(test)]
            agent_reads: 0,
            agent_of_flow,
            touched: router_bit | arp_bit | if n_agents > 0 { TOUCHED_AGENTS } else { 0 },
            router_bit,
            mac_events: Vec::new(),
            route_actions: Vec::new(),
            arp_out: Vec::new(),
            bodies: Vec::new(),
            ext_out: Vec::new(),
        }
    }

    fn count_drop(&mut self, ctx: &mut Ctx, reason: DropReason, ptype: PacketType, p: Option<&Packet>) {
        *self.stats.drops.entry((reason, ptype)).or_insert(0) += 1;
        if ctx.tap.is_some() {
            self.trace_drop(ctx, reason, ptype, p);
        }
    }

    // The hooks' work lives out of line and cold: with tracing off, each hook
    // is one test of `ctx.tap`.

    #[cold]
    #[inline(never)]
    fn trace_drop(&self, ctx: &mut Ctx, reason: DropReason, ptype: PacketType, p: Option<&Packet>) {
        if let Some(tap) = ctx.tap.as_deref_mut() {
            let pos = ctx.channel.position(self.id);
            let layer = drop_layer(reason);
            tap.report(&TraceEvent { time: ctx.now, node: self.id, layer, what: What::Drop, frame: None, packet: p, ptype, reason: Some(reason), airtime: None, power_w: None, next_hop: None, pos });
        }
    }

    #[cold]
    #[inline(never)]
    fn trace_frame(&self, ctx: &mut Ctx, layer: Layer, what: What, f: &Frame, airtime: Option<Dur>) {
        if let Some(tap) = ctx.tap.as_deref_mut() {
            tap.report(&frame_event(ctx.now, self.id, ctx.channel.position(self.id), layer, what, f, airtime));
        }
    }

    /// A reception ended (`tx` still in the table).
    #[cold]
    #[inline(never)]
    fn trace_rx_end(&self, ctx: &mut Ctx, tx: u32, outcome: RxOutcome) {
        let what = match outcome {
            RxOutcome::Ok => (Layer::Mac, What::Recv),
            RxOutcome::Collision => (Layer::Phy, What::Collision),
            RxOutcome::TooWeak => (Layer::Phy, What::Weak),
            RxOutcome::NotLocked => return,
        };
        if let Some(tap) = ctx.tap.as_deref_mut() {
            let ev = frame_event(ctx.now, self.id, ctx.channel.position(self.id), what.0, what.1, ctx.txs.get(tx), None);
            tap.report(&TraceEvent { power_w: ctx.txs.power_at(tx, self.id), ..ev });
        }
    }

    /// ns-2 "END" drops for the trace: what is still queued, or held by ARP,
    /// when the run stops (ns-2 logs them as `IFQ END` at the stop time; the
    /// drops table counts them in `World::results`).
    pub fn trace_end_drops(&self, ctx: &mut Ctx) {
        for p in self.ifq.packets().chain(self.arp.iter().flat_map(|a| a.held_packets())) {
            self.trace_drop(ctx, DropReason::End, p.ptype(), Some(p));
        }
    }

    fn drop_packet(&mut self, ctx: &mut Ctx, reason: DropReason, p: &Packet) {
        self.count_drop(ctx, reason, p.ptype(), Some(p));
    }

    /// A packet event at the agent or routing layer, for the tap.
    #[inline]
    fn trace_packet(&self, ctx: &mut Ctx, layer: Layer, what: What, p: &Packet) {
        if ctx.tap.is_some() {
            self.trace_packet_cold(ctx, layer, what, p);
        }
    }

    #[cold]
    #[inline(never)]
    fn trace_packet_cold(&self, ctx: &mut Ctx, layer: Layer, what: What, p: &Packet) {
        if let Some(tap) = ctx.tap.as_deref_mut() {
            tap.report(&packet_event(ctx.now, self.id, ctx.channel.position(self.id), layer, what, p));
        }
    }

    #[cold]
    #[inline(never)]
    fn trace_routed(&self, ctx: &mut Ctx, what: What, p: &Packet, next_hop: NodeId) {
        if let Some(tap) = ctx.tap.as_deref_mut() {
            let ev = packet_event(ctx.now, self.id, ctx.channel.position(self.id), Layer::Rtr, what, p);
            tap.report(&TraceEvent { next_hop: Some(next_hop), ..ev });
        }
    }

    /// Hint the CPU to load what a reception reads first (radio, MAC
    /// timers, the node's own fields); no effect on results.
    #[inline]
    pub fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let lines = [&self.radio as *const _ as *const i8, self.mac.deadlines() as *const _ as *const i8, &self.timers as *const _ as *const i8];
            for p in lines {
                // SAFETY: a prefetch of a valid address never faults or writes.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
            }
        }
    }

    /// ns-2 LL delay_: packets wait `delay` between routing and the
    /// interface queue, both ways. Call before the first `sync_timers`.
    pub fn with_link_delay(mut self, delay: Dur) -> Node {
        if delay > Dur(0) {
            self.ll = Some(LinkDelay { delay, line: VecDeque::new() });
            // Its slot before the agents'; nothing is armed yet.
            self.ll_slot = self.first_agent_timer;
            self.timers.insert(self.ll_slot, TimerSlot::default());
            self.first_agent_timer += 1;
        }
        self
    }

    /// Handle one event. Returns false if it was a stale timer.
    pub fn handle(&mut self, ev: Event, ctx: &mut Ctx) -> bool {
        match ev {
            Event::RxStart { tx, power, sensed, interferes } => self.rx_start(tx, power, sensed, interferes, ctx),
            Event::RxEnd { tx } => self.rx_end(tx, ctx),
            Event::TxEnd => self.tx_end(ctx),
            Event::Move | Event::Wave { .. } => unreachable!("the world handles mobility and waves"),
            Event::Timer { slot, gen } => return self.timer(slot, gen, ctx),
        }
        true
    }

    // One function per kind of event, each ending with `pump`: the world's
    // loop calls them straight from a wave's step, not through `handle`'s
    // second match on the event.

    /// The first bit of transmission `tx` arrives.
    #[inline(always)]
    pub fn rx_start(&mut self, tx: u32, power: f64, sensed: bool, interferes: bool, ctx: &mut Ctx) {
        let now = ctx.now;
        let was = self.radio.busy();
        let airtime = ctx.txs.airtime(tx);
        let captured = self.radio.signal_start(tx, power, sensed, interferes, now + airtime);
        if self.radio.busy() != was {
            self.mac.handle_medium(now, true);
        }
        if captured {
            self.mac.handle_captured(now, airtime);
        }
        self.pump(ctx);
    }

    /// The last bit of transmission `tx` arrives.
    #[inline(always)]
    pub fn rx_end(&mut self, tx: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let outcome = self.radio.signal_end(tx);
        if ctx.tap.is_some() {
            self.trace_rx_end(ctx, tx, outcome);
        }
        let frame = ctx.txs.get(tx);
        let busy = self.radio.busy();
        if outcome != RxOutcome::NotLocked {
            self.mac.phy_after_end(busy);
        }
        match outcome {
            RxOutcome::Ok => self.mac.handle_rx(now, frame),
            RxOutcome::Collision => {
                if frame.dst == self.id || frame.dst == BROADCAST {
                    self.stats.rx_collisions += 1;
                    let ptype = frame.packet.as_ref().map_or(PacketType::Mac, Packet::ptype);
                    // Counted, not traced again: the tap had it as PHY "col" above.
                    *self.stats.drops.entry((DropReason::Col, ptype)).or_insert(0) += 1;
                }
                self.mac.handle_rx_error(now);
            }
            RxOutcome::TooWeak => self.mac.handle_rx_error(now),
            // The MAC already knows the medium is busy; tell it only when
            // this was the last signal.
            RxOutcome::NotLocked if !busy => self.mac.handle_medium(now, false),
            RxOutcome::NotLocked => {}
        }
        ctx.txs.release(tx);
        self.pump(ctx);
    }

    /// Our own transmission ends.
    #[inline(always)]
    pub fn tx_end(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.radio.end_tx();
        self.mac.phy_after_end(self.radio.busy());
        self.mac.handle_tx_end(now);
        self.pump(ctx);
    }

    /// Timer `slot` fires, unless re-armed since (`gen`); false if stale.
    #[inline(always)]
    fn timer(&mut self, slot: u16, gen: u32, ctx: &mut Ctx) -> bool {
        let now = ctx.now;
        let slot = slot as usize;
        let s = &mut self.timers[slot];
        if s.gen != gen {
            return false; // an earlier entry replaced this one
        }
        let queued = s.queued.take();
        if s.at.is_none() {
            return false; // cancelled
        }
        if queued != Some(s.key) {
            // Moved later since this entry was queued: on to its key.
            s.queued = Some(s.key);
            ctx.queue.push_seq(s.key.0, Phase::Timer, self.id, s.key.1, Event::Timer { slot: slot as u16, gen });
            return false;
        }
        s.at = None;
        if slot < MAC_TIMERS {
            self.mac.handle_timer(now, MacTimer::from_index(slot));
        } else if slot == ROUTER_TIMER {
            let mut acts = std::mem::take(&mut self.route_actions);
            self.touched |= self.router_bit;
            self.router.handle_timeout(now, &mut acts);
            self.apply_route_actions(&mut acts, ctx);
            self.route_actions = acts;
        } else if slot == self.ll_slot {
            self.ll_timer(ctx);
        } else if slot < self.first_agent_timer {
            let mut out = std::mem::take(&mut self.arp_out);
            self.arp.as_mut().expect("ARP timer without ARP").handle_timeout(now, &mut out);
            self.apply_arp_out(&mut out, ctx);
            self.arp_out = out;
        } else {
            let first = self.first_agent_timer;
            let k = (slot - first) / AGENT_TIMERS;
            self.agents[k].handle_timer(now, (slot - first) % AGENT_TIMERS);
            self.touch_agent(k);
            self.agent_output(k, ctx);
        }
        self.pump(ctx);
        true
    }

    /// Move outputs between layers until nothing moves, then re-arm timers.
    fn pump(&mut self, ctx: &mut Ctx) {
        // Most events (a reception's start or end at a bystander) leave
        // nothing to move: skip the shuttle's large frame.
        if self.mac.has_events() || (self.mac.is_ready() && !self.ifq.is_empty()) {
            self.shuttle(ctx);
        }
        self.sync_timers(ctx);
    }

    #[inline(never)]
    fn shuttle(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        loop {
            if self.mac.has_events() {
                let mut evs = std::mem::take(&mut self.mac_events);
                self.mac.swap_events(&mut evs);
                for ev in evs.drain(..) {
                    self.on_mac_event(ev, ctx);
                }
                self.mac_events = evs;
                continue;
            }
            if self.feed_mac(now) {
                continue;
            }
            break;
        }
    }

    /// The MAC takes the interface queue's head if it is ready for a frame;
    /// true if it did.
    #[inline(always)]
    fn feed_mac(&mut self, now: SimTime) -> bool {
        if !self.mac.is_ready() {
            return false;
        }
        let Some((mut p, nh)) = self.ifq.dequeue(now) else { return false };
        self.lred_mark(&mut p);
        self.mac.enqueue(now, p, nh);
        true
    }

    // The transmit path inlined into `shuttle` (cachegrind: docs/BENCHMARKS.md,
    // issue 24); what goes up the stack out of line, which keeps the
    // shuttle's stack frame, set up on every call, small.
    #[inline(always)]
    fn on_mac_event(&mut self, ev: MacEvent, ctx: &mut Ctx) {
        match ev {
            MacEvent::Transmit => {
                if let Some(d) = self.stats.data_tx.as_mut() {
                    let frame = self.mac.tx_frame().expect("a Transmit without its frame");
                    if let (FrameKind::Data, Some(p)) = (frame.kind, frame.packet.as_ref()) {
                        if matches!(p.body, Body::Tcp(_) | Body::Udp(_)) {
                            d.entry(p.uid).or_default().frames += 1;
                        }
                    }
                }
                self.transmit(ctx);
                self.mac.handle_medium(ctx.now, true);
            }
            ev => self.on_mac_upcall(ev, ctx),
        }
    }

    #[inline(never)]
    fn on_mac_upcall(&mut self, ev: MacEvent, ctx: &mut Ctx) {
        let now = ctx.now;
        match ev {
            MacEvent::Transmit => unreachable!("handled by on_mac_event"),
            // ns-2 LL::sendUp: routing gets it delay_ later (ARP at once).
            MacEvent::Deliver { from, packet } => match self.ll.as_mut() {
                Some(ll) if !matches!(packet.body, Body::Arp(_)) => {
                    ll.line.push_back((now + ll.delay, LlItem::Up { from, packet }));
                    self.touched |= TOUCHED_LL;
                }
                _ => self.ip_receive(from, packet, ctx),
            },
            MacEvent::TxOk { next_hop, uid } => {
                // (ARP replies included: a unicast ACKed proves the link.)
                if next_hop != BROADCAST {
                    self.lred_done(false);
                    let mut acts = std::mem::take(&mut self.route_actions);
                    self.touched |= self.router_bit;
                    self.router.tx_ok(now, next_hop, uid, &mut acts);
                    self.apply_route_actions(&mut acts, ctx);
                    self.route_actions = acts;
                }
            }
            MacEvent::TxFailed { next_hop, packet } => {
                self.lred_done(true);
                self.drop_packet(ctx, DropReason::Ret, &packet);
                // ns-2 sets no transmit-failure callback on ARP replies
                // (arp.cc arpinput): the MAC just drops them.
                if matches!(packet.body, Body::Arp(_)) {
                    return;
                }
                let mut acts = std::mem::take(&mut self.route_actions);
                self.touched |= self.router_bit;
                self.router.link_failed(now, next_hop, packet, &mut acts);
                if self.refill_before_failure_sends {
                    // ns-2 mac-802_11.cc RetransmitRTS/RetransmitDATA: the
                    // callback's drops and queue filter happen at once, its
                    // packets are events at delay 0, and tx_resume() hands
                    // the MAC the queue's next packet before them.
                    let sends: Vec<RouteAction> = acts.extract_if(.., |a| matches!(a, RouteAction::Send { .. })).collect();
                    self.apply_route_actions(&mut acts, ctx);
                    self.feed_mac(now);
                    acts.extend(sends);
                }
                self.apply_route_actions(&mut acts, ctx);
                self.route_actions = acts;
            }
            MacEvent::Duplicate { ptype } => self.count_drop(ctx, DropReason::Dup, ptype, None),
            MacEvent::Withheld => self.count_drop(ctx, DropReason::Bsy, PacketType::Mac, None),
            // ARP is not IP: routing's promiscuous tap never sees it.
            MacEvent::Overheard { packet, .. } if matches!(packet.body, Body::Arp(_)) => {}
            MacEvent::Overheard { from, to, packet } => {
                let mut acts = std::mem::take(&mut self.route_actions);
                self.touched |= self.router_bit;
                self.router.overhear(now, from, to, &packet, &mut acts);
                self.apply_route_actions(&mut acts, ctx);
                self.route_actions = acts;
            }
        }
    }

    /// LRED: the head of the interface queue goes to the MAC; mark CE on it
    /// with the current probability if it is ECN-capable (net/lred.rs).
    fn lred_mark(&mut self, p: &mut Packet) {
        let Some((lred, rng)) = self.lred.as_mut() else { return };
        self.lred_retx_base = self.mac.stats.retransmissions;
        if let Body::Tcp(s) = &mut p.body {
            if s.ecn.ect && !s.ecn.ce && lred.should_mark(rng.unit()) {
                s.ecn.ce = true;
                self.stats.ecn_marks += 1;
            }
        }
    }

    /// LRED: a unicast MAC exchange ended; average its retransmissions
    /// (a failed one also counts its last, unanswered attempt).
    fn lred_done(&mut self, failed: bool) {
        if let Some((lred, _)) = self.lred.as_mut() {
            let retries = self.mac.stats.retransmissions - self.lred_retx_base + failed as u64;
            lred.on_tx_done(retries as u32);
        }
    }

    /// Put a frame on the air: our radio transmits; every node the channel
    /// says we reach gets the start and end of the signal.
    /// Put the MAC's pending frame on the air; it moves from the MAC
    /// straight into the table of frames on the air.
    fn transmit(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let frame = self.mac.tx_frame().expect("a Transmit without its frame");
        let airtime = self.mac.airtime(frame);
        if ctx.tap.is_some() {
            self.trace_frame(ctx, Layer::Mac, What::Send, frame, Some(airtime));
        }
        self.radio.start_tx();
        // With shadowing, each reception's power is drawn here.
        let links = ctx.channel.receptions(self.id);
        ctx.txs.launch(ctx.queue, now, self.id, self.mac.tx_frame_slot(), airtime, links);
    }

    /// A packet from the MAC: routing control, ours, or one to forward.
    fn ip_receive(&mut self, from: NodeId, mut p: Packet, ctx: &mut Ctx) {
        let now = ctx.now;
        if let Body::Arp(m) = &p.body {
            // ns-2's LL hands ARP packets to ARP (arp.cc arpinput); they
            // never reach routing. Without ARP nobody sends any.
            if let Some(arp) = self.arp.as_mut() {
                let mut out = std::mem::take(&mut self.arp_out);
                arp.receive(now, from, m, &mut out);
                self.apply_arp_out(&mut out, ctx);
                self.arp_out = out;
            }
            return;
        }
        self.trace_packet(ctx, Layer::Rtr, What::Recv, &p);
        let mut acts = std::mem::take(&mut self.route_actions);
        self.touched |= self.router_bit;
        self.router.heard(now, from, &p, &mut acts);
        match &p.body {
            Body::Routing(_) => self.router.receive(now, from, p, &mut acts),
            Body::Arp(_) => unreachable!("handled above"),
            Body::Tcp(_) | Body::Udp(_) if p.dst == self.id => {
                let flow = p.flow().expect("data packet");
                self.stats.net.arrived(now, &p, flow, p.ptype() == PacketType::Ack);
                self.router.delivered(now, from, &p, &mut acts);
                if let Some(&k) = self.agent_of_flow.get(&flow) {
                    self.trace_packet(ctx, Layer::Agt, What::Recv, &p);
                    self.agents[k].handle_packet(now, &p);
                    self.touch_agent(k);
                    self.agent_output(k, ctx);
                }
            }
            Body::Ip(_) if p.dst == self.id => self.deliver_ext(now, p),
            _ if p.dst == BROADCAST => {} // no broadcast data users
            _ => {
                // RFC 791: a forwarded datagram whose TTL reaches zero is discarded.
                p.ttl = p.ttl.saturating_sub(1);
                if p.ttl == 0 {
                    self.drop_packet(ctx, DropReason::Ttl, &p);
                } else {
                    self.stats.forwarded += 1;
                    if let Some(f) = self.fault.as_mut() {
                        f.apply(&mut p);
                    }
                    self.touched |= self.router_bit;
                    self.router.route(now, p, &mut acts);
                }
            }
        }
        self.apply_route_actions(&mut acts, ctx);
        self.route_actions = acts;
    }

    /// A real packet reached its destination node: out of the simulation,
    /// with the TTL the simulated hops left it (RFC 791 §3.2).
    #[cold]
    #[inline(never)]
    fn deliver_ext(&mut self, now: SimTime, p: Packet) {
        let Body::Ip(r) = p.body else { unreachable!("called for Body::Ip") };
        let mut bytes = r.bytes;
        crate::wire::ipv4::set_ttl(&mut bytes, p.ttl);
        self.ext_out.push((now, bytes));
    }

    /// A real packet enters this node's stack as one it originates
    /// (emulation): routing, then the interface queue, as an agent's would.
    pub fn inject(&mut self, dst: NodeId, raw: crate::wire::ipv4::RawIp, ttl: u8, ctx: &mut Ctx) {
        let now = ctx.now;
        self.next_uid += 1;
        let uid = (self.id as u64) << 40 | self.next_uid;
        let mut packet = Packet::new(uid, self.id, dst, Body::Ip(Box::new(raw)), now);
        packet.ttl = ttl;
        self.trace_packet(ctx, Layer::Agt, What::Send, &packet);
        let mut acts = std::mem::take(&mut self.route_actions);
        self.touched |= self.router_bit;
        if dst == self.id {
            // Addressed to its own node: delivered at once, as a loopback.
            self.deliver_ext(now, packet);
        } else {
            self.router.route(now, packet, &mut acts);
        }
        self.apply_route_actions(&mut acts, ctx);
        self.route_actions = acts;
        self.pump(ctx);
    }

    /// Send what agent `k` has ready, as packets this node originates.
    fn agent_output(&mut self, k: usize, ctx: &mut Ctx) {
        let now = ctx.now;
        let mut bodies = std::mem::take(&mut self.bodies);
        self.agents[k].poll_transmit(now, &mut bodies);
        if !bodies.is_empty() {
            let dst = self.agents[k].peer();
            let flow = self.agents[k].flow();
            let mut acts = std::mem::take(&mut self.route_actions);
            for body in bodies.drain(..) {
                self.next_uid += 1;
                let uid = (self.id as u64) << 40 | self.next_uid;
                let mark = acts.len();
                let packet = Packet::new(uid, self.id, dst, body, now);
                self.trace_packet(ctx, Layer::Agt, What::Send, &packet);
                self.touched |= self.router_bit;
                self.router.route(now, packet, &mut acts);
                let sent = acts[mark..].iter().any(|a| matches!(a, RouteAction::Send { packet, .. } if packet.uid == uid));
                if !sent {
                    self.stats.net.no_route(now, flow, dst);
                }
            }
            self.apply_route_actions(&mut acts, ctx);
            self.route_actions = acts;
        }
        self.bodies = bodies;
    }

    fn apply_route_actions(&mut self, acts: &mut Vec<RouteAction>, ctx: &mut Ctx) {
        let now = ctx.now;
        for a in acts.drain(..) {
            match a {
                RouteAction::Send { next_hop, mut packet } => {
                    if let Body::Routing(m) = &packet.body {
                        self.stats.net.count_sent(m.kind(), packet.size());
                    } else if let Some(flow) = packet.flow() {
                        packet.mark_hop(self.id);
                        if packet.src == self.id {
                            self.stats.net.routed(now, flow);
                        }
                    }
                    // ns-2 cmu-trace.cc: "s RTR" for what this node
                    // originates, "f RTR" for what it relays.
                    let what = if packet.src == self.id { What::Send } else { What::Forward };
                    if ctx.tap.is_some() {
                        self.trace_routed(ctx, what, &packet, next_hop);
                    }
                    // Measurement is done above, once, as routing hands the
                    // packet down; ARP may hold it and release it later.
                    match self.arp.as_mut() {
                        Some(arp) => {
                            let mut out = std::mem::take(&mut self.arp_out);
                            arp.resolve(now, next_hop, packet, &mut out);
                            self.apply_arp_out(&mut out, ctx);
                            self.arp_out = out;
                        }
                        None => self.ll_down(ctx, packet, next_hop),
                    }
                }
                RouteAction::Drop { packet, reason } => self.drop_packet(ctx, reason, &packet),
                RouteAction::Reclaim { next_hop } => {
                    let packets = self.ifq.purge(now, next_hop);
                    // A queued ARP reply is not routing's to salvage; ns-2
                    // AODV drops what it filters from the queue (CBK).
                    let (arp, packets): (Vec<Packet>, Vec<Packet>) = packets.into_iter().partition(|p| matches!(p.body, Body::Arp(_)));
                    for p in &arp {
                        self.drop_packet(ctx, DropReason::Cbk, p);
                    }
                    let mut more = Vec::new();
                    self.touched |= self.router_bit;
                    self.router.reclaimed(now, next_hop, packets, &mut more);
                    self.apply_route_actions(&mut more, ctx);
                }
                RouteAction::RouteLost { dst } => {
                    // ELFN (tcp/elfn.rs): tell the local senders to `dst`.
                    for k in 0..self.agents.len() {
                        if self.agents[k].peer() == dst && self.agents[k].route_lost(now) {
                            self.touch_agent(k);
                        }
                    }
                }
                RouteAction::Note(n) => {
                    let me = self.id;
                    let ch = &*ctx.channel;
                    self.stats.net.note(now, n, |nb| ch.in_tx_range(me, nb));
                }
            }
        }
        let router = &self.router;
        self.stats.net.recheck(now, |d| router.has_route(now, d));
    }

    /// A packet routing sent, its next hop resolved: to the interface queue,
    /// after the LL's delay if there is one (ns-2 LL::sendDown). ARP's own
    /// requests and replies skip it (ns-2 sends them with ARPTable's delay_,
    /// 5 us, which is not modelled; a packet ARP held and releases takes
    /// the LL's delay here where ns-2 gives it ARPTable's).
    fn ll_down(&mut self, ctx: &mut Ctx, packet: Packet, next_hop: NodeId) {
        match self.ll.as_mut() {
            Some(ll) => {
                ll.line.push_back((ctx.now + ll.delay, LlItem::Down { packet, next_hop }));
                self.touched |= TOUCHED_LL;
            }
            None => self.ifq_enqueue(ctx, packet, next_hop),
        }
    }

    /// The LL's timer: everything due leaves the line, in order of entry.
    #[cold]
    #[inline(never)]
    fn ll_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.touched |= TOUCHED_LL;
        // What this hands on may queue more, always `delay` > 0 later.
        while let Some(ll) = self.ll.as_mut() {
            if ll.line.front().is_none_or(|(at, _)| *at > now) {
                break;
            }
            match ll.line.pop_front().expect("checked").1 {
                LlItem::Down { packet, next_hop } => self.ifq_enqueue(ctx, packet, next_hop),
                LlItem::Up { from, packet } => self.ip_receive(from, packet, ctx),
            }
        }
    }

    fn ifq_enqueue(&mut self, ctx: &mut Ctx, packet: Packet, next_hop: NodeId) {
        let now = ctx.now;
        let uid = packet.uid;
        let data = matches!(packet.body, Body::Tcp(_) | Body::Udp(_));
        let dropped = self.ifq.enqueue(now, packet, next_hop);
        if let Some(d) = self.stats.data_tx.as_mut().filter(|_| data) {
            let copies = self.ifq.packets().filter(|p| p.uid == uid).count() + (self.mac.current_uid() == Some(uid)) as usize;
            let e = d.entry(uid).or_default();
            e.handoffs += 1;
            e.max_copies = e.max_copies.max(copies as u32);
        }
        if let Some(dropped) = dropped {
            self.drop_packet(ctx, DropReason::Ifq, &dropped);
        }
    }

    /// Carry out what ARP decided. ARP packets go to the interface queue at
    /// normal priority: ns-2's PriQueue favours only routing packets.
    fn apply_arp_out(&mut self, out: &mut Vec<ArpOut>, ctx: &mut Ctx) {
        let now = ctx.now;
        for o in out.drain(..) {
            match o {
                ArpOut::Send { next_hop, packet } => self.ll_down(ctx, packet, next_hop),
                ArpOut::Request(p) | ArpOut::Reply(p) => {
                    let kind = if matches!(p.body, Body::Arp(ref m) if m.reply) { "arp.reply" } else { "arp.request" };
                    self.stats.net.count_sent(kind, p.size());
                    let dst = p.dst;
                    self.ifq_enqueue(ctx, p, dst);
                }
                ArpOut::Drop { packet, reason } => self.drop_packet(ctx, reason, &packet),
                ArpOut::Failed { next_hop, packet } => {
                    if let Router::Static(_) = self.router {
                        // A static route has nowhere else to go.
                        self.drop_packet(ctx, DropReason::Arp, &packet);
                    } else {
                        // ns-2 arp.cc: the held packet goes to the transmit-
                        // failure callback, routing's link-failure handler.
                        let mut acts = std::mem::take(&mut self.route_actions);
                        self.touched |= self.router_bit;
                        self.router.link_failed(now, next_hop, packet, &mut acts);
                        self.apply_route_actions(&mut acts, ctx);
                        self.route_actions = acts;
                    }
                }
            }
        }
    }

    fn arm(&mut self, slot: usize, at: Option<SimTime>, ctx: &mut Ctx) {
        let s = &mut self.timers[slot];
        if s.at == at {
            return;
        }
        s.at = at;
        let Some(t) = at else { return }; // a queued entry finds it cancelled
        s.key = (t.max(ctx.now), ctx.queue.reserve(self.id, 1));
        if s.queued.is_some_and(|q| q <= s.key) {
            return; // the queued entry comes up first and moves on to `key`
        }
        s.gen = s.gen.wrapping_add(1);
        s.queued = Some(s.key);
        ctx.queue.push_seq(s.key.0, Phase::Timer, self.id, s.key.1, Event::Timer { slot: slot as u16, gen: s.gen });
    }

    /// Make the queued timer events match every layer's deadlines.
    #[inline]
    pub fn sync_timers(&mut self, ctx: &mut Ctx) {
        // Called after every event; most change no deadline, so the checks
        // stay here and the work lives in the out-of-line functions below.
        if self.mac.timers_changed() {
            self.sync_mac_timers(ctx);
        }
        if self.touched != 0 {
            self.sync_other_timers(ctx);
        }
    }

    #[inline(never)]
    fn sync_mac_timers(&mut self, ctx: &mut Ctx) {
        // In timer order, as a compare of all four did: an unchanged
        // deadline arms nothing, so the same sequence numbers are taken.
        let mut changed = self.mac.take_changed_timers();
        let mac = *self.mac.deadlines();
        while changed != 0 {
            let i = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            self.arm(i, (mac[i] != SimTime::MAX).then_some(mac[i]), ctx);
        }
    }

    #[inline(never)]
    fn sync_other_timers(&mut self, ctx: &mut Ctx) {
        if self.touched & TOUCHED_ROUTER != 0 {
            self.touched &= !TOUCHED_ROUTER;
            let r = self.router.poll_timeout();
            self.arm(ROUTER_TIMER, r, ctx);
        }
        if let Some(arp) = &self.arp {
            let t = arp.poll_timeout();
            self.arm(ARP_TIMER, t, ctx);
        }
        if self.touched & TOUCHED_LL != 0 {
            self.touched &= !TOUCHED_LL;
            let t = self.ll.as_ref().and_then(|ll| ll.line.front()).map(|(at, _)| *at);
            self.arm(self.ll_slot, t, ctx);
        }
        if self.touched & TOUCHED_AGENTS == 0 {
            return;
        }
        self.touched &= !TOUCHED_AGENTS;
        // In agent order, as when every agent was re-read: an unchanged
        // deadline arms nothing, so the same sequence numbers are taken.
        let mut touched = std::mem::take(&mut self.touched_agents);
        touched.sort_unstable();
        for &k in &touched {
            let k = k as usize;
            self.agent_touched[k] = false;
            #[cfg(test)]
            {
                self.agent_reads += 1;
            }
            let t = self.agents[k].timeouts();
            for (j, at) in t.into_iter().enumerate() {
                self.arm(self.first_agent_timer + AGENT_TIMERS * k + j, at, ctx);
            }
        }
        touched.clear();
        self.touched_agents = touched;
    }

    /// The index of flow `flow`'s agent at this node.
    pub fn agent_index(&self, flow: u32) -> Option<usize> {
        self.agent_of_flow.get(&flow).copied()
    }

    fn touch_agent(&mut self, k: usize) {
        if !self.agent_touched[k] {
            self.agent_touched[k] = true;
            self.touched |= TOUCHED_AGENTS;
            self.touched_agents.push(k as u32);
        }
    }
}
