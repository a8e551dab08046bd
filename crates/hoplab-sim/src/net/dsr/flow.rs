//! ns-2 CMU DSR flow state (`dsragent_enable_flowstate`, on in ns-2.35;
//! dsragent.cc `sendOutPacketWithRoute`, `handleFlowForwarding`,
//! `handleDefaultForwarding`, flowstruct.cc). A source names each route it
//! uses to a destination a flow. The flow's first END_TO_END_COUNT + 1
//! packets, and one every MIN_ADV_INTERVAL, carry the route with a Flow
//! Timeout option; each forwarder records the flow (its route and this
//! node's place on it). The other packets carry no route: on the source's
//! default flow (the newest, odd ids) nothing at all, else a 4-byte Flow
//! Id; forwarders take the next hop from their table. A forwarder that
//! does not know a packet's flow salvages it and tells the source, which
//! sends the route again (`sendUnknownFlow`, `processUnknownFlowError`).
//! Not modelled: flow route shortening (`processFlowARS`).

use super::msg::DsrMsg;
use super::state::{dur, Dsr};
use crate::net::routing::RouteAction;
use crate::time::SimTime;
use crate::wire::dsr::{FlowError, FlowTag};
use crate::wire::{NodeId, Packet, SourceRoute};

/// flowstruct.h END_TO_END_COUNT ("count - 1, actually"): the source sends
/// the route on a flow's packets while its count is at most this.
const END_TO_END_COUNT: u32 = 2;
/// dsragent.cc `min_adv_interval`: re-advertise the route this often.
const MIN_ADV_INTERVAL_S: f64 = 5.0;
/// dsragent.cc `default_flow_timeout` (and the Flow Timeout option's value).
const FLOW_TIMEOUT_S: f64 = 60.0;

/// One flow table entry (flowstruct.h `TableEntry`).
#[derive(Clone, Debug)]
pub(super) struct FlowEntry {
    /// The flow's whole route, source first.
    pub route: Vec<NodeId>,
    /// This node's index on `route` (ns-2 `hopCount`; `expectedTTL` checks
    /// the same thing for packets without a Flow Id).
    pub at: usize,
    pub timeout: SimTime,
    /// Source only: packets sent with the route since the last reset.
    pub count: u32,
    /// Source only: when the route was last sent.
    pub last_adv: SimTime,
    /// Creation order: ns-2 searches its table newest first.
    pub seq: u64,
}

impl Dsr {
    /// The newest flow of `src` to `dst` with this route (`FlowTable::find`).
    fn flow_by_route(&self, src: NodeId, dst: NodeId, route: &[NodeId]) -> Option<u16> {
        self.flows
            .iter()
            .filter(|((s, d, _), e)| *s == src && *d == dst && e.route == route)
            .max_by_key(|(_, e)| e.seq)
            .map(|(k, _)| k.2)
    }

    fn create_flow(&mut self, src: NodeId, dst: NodeId, id: u16, route: Vec<NodeId>, at: usize, timeout: SimTime) {
        self.flow_seq += 1;
        let e = FlowEntry { route, at, timeout, count: 0, last_adv: SimTime::ZERO, seq: self.flow_seq };
        self.flows.insert((src, dst, id), e);
        // flowstruct.cc createEntry / DRTable::insert: odd ids are default
        // flows; the newest (in 16-bit serial order) is the default.
        if id & 1 == 1 {
            let d = self.default_flow.entry((src, dst)).or_insert(id);
            if (id.wrapping_sub(*d) as i16) > 0 {
                *d = id;
            }
        }
    }

    /// Our own data packet leaves with the route in `p.sr` (at 0): put it on
    /// a flow (dsragent.cc `sendOutPacketWithRoute`, flow state branch).
    pub(super) fn stamp_flow(&mut self, now: SimTime, p: &mut Packet) {
        let me = self.me;
        let dst = p.dst;
        let sr = p.sr.as_mut().expect("a source route");
        // dsragent_prefer_default_flow (and _prefer_shorter_over_default):
        // keep to the default flow's route unless the cache's is shorter.
        if let Some(&id) = self.default_flow.get(&(me, dst)) {
            if let Some(e) = self.flows.get(&(me, dst, id)) {
                if e.timeout >= now && e.route.len() <= sr.addrs.len() && e.route != sr.addrs {
                    sr.addrs = e.route.clone();
                }
            }
        }
        let timeout = now + dur(FLOW_TIMEOUT_S);
        let id = match self.flow_by_route(me, dst, &sr.addrs).filter(|id| self.flows[&(me, dst, *id)].timeout >= now) {
            Some(id) => id,
            None => {
                // FlowTable::generateNextFlowId(dst, true): the next odd id.
                if self.flow_counter & 1 == 0 {
                    self.flow_counter = self.flow_counter.wrapping_add(1);
                }
                let id = self.flow_counter;
                self.flow_counter = self.flow_counter.wrapping_add(1);
                self.create_flow(me, dst, id, sr.addrs.clone(), 0, timeout);
                id
            }
        };
        let e = self.flows.get_mut(&(me, dst, id)).unwrap();
        let establish = e.count <= END_TO_END_COUNT || e.last_adv + dur(MIN_ADV_INTERVAL_S) < now;
        if establish {
            e.count += 1;
            e.last_adv = now;
        }
        // dsragent_always_reestablish: every packet extends the flow.
        e.timeout = timeout;
        let header = establish || self.default_flow.get(&(me, dst)) != Some(&id);
        sr.flow = Some(FlowTag { id, establish, header });
    }

    /// A forwarder's part (dsragent.cc `handleFlowForwarding`): record a
    /// flow being established; for a packet without its route, find the
    /// flow and put the flow's route back on the packet (the simulator's
    /// stand-in for the table's next hop). False: the flow is unknown here
    /// (the caller salvages the packet, as `sendUnknownFlow` does).
    pub(super) fn forward_flow(&mut self, now: SimTime, p: &mut Packet, i: usize) -> bool {
        let me = self.me;
        let (src, dst) = (p.src, p.dst);
        let sr = p.sr.as_mut().unwrap();
        let Some(f) = sr.flow else { return true };
        if f.establish {
            if !self.flows.contains_key(&(src, dst, f.id)) {
                self.create_flow(src, dst, f.id, sr.addrs.clone(), i, now + dur(FLOW_TIMEOUT_S));
            }
            return true;
        }
        // handleDefaultForwarding: no Flow Id on the wire, so the default
        // flow of (src, dst) here, if the packet is where that flow expects
        // it (ns-2 compares the TTL).
        let id = if f.header { Some(f.id) } else { self.default_flow.get(&(src, dst)).copied() };
        let Some(e) = id.and_then(|id| self.flows.get_mut(&(src, dst, id))) else { return false };
        if !f.header && e.at != i {
            return false;
        }
        debug_assert_eq!(e.route[e.at], me);
        e.timeout = now + dur(FLOW_TIMEOUT_S);
        sr.addrs = e.route.clone();
        sr.at = e.at;
        true
    }

    /// dsragent.cc sendUnknownFlow: tell the source of `p` (which reached
    /// us, at index `i` of its route) that we do not know its flow. The
    /// error goes back on a cached route, else the way the packet came.
    pub(super) fn unknown_flow(&mut self, now: SimTime, p: &Packet, i: usize, out: &mut Vec<RouteAction>) {
        let sr = p.sr.as_ref().unwrap();
        let Some(f) = sr.flow else { return };
        if p.src == self.me {
            return;
        }
        let back = self.cache.find(now, p.src).or_else(|| (sr.addrs[0] == p.src).then(|| sr.addrs[..=i].iter().rev().copied().collect()));
        let Some(back) = back.filter(|b| b.len() >= 2) else { return };
        let error = FlowError { src: p.src, dst: p.dst, id: f.header.then_some(f.id) };
        let route = SourceRoute { addrs: back, at: 0, salvage: 0, ack_request: false, flow: None };
        let next_hop = route.next_hop().unwrap();
        let pkt = self.control(now, p.src, DsrMsg::FlowError { error, route });
        out.push(RouteAction::Send { next_hop, packet: pkt });
    }

    /// dsragent.cc processUnknownFlowError: at the flow's source, the flow
    /// sends its route again (its count starts over); elsewhere, relay.
    pub(super) fn on_flow_error(&mut self, p: Packet, error: FlowError, route: SourceRoute, out: &mut Vec<RouteAction>) {
        if p.dst != self.me {
            return self.relay_on_route(p, route, out, |route| DsrMsg::FlowError { error, route });
        }
        if error.src != self.me {
            return;
        }
        let id = error.id.or_else(|| self.default_flow.get(&(error.src, error.dst)).copied());
        if let Some(e) = id.and_then(|id| self.flows.get_mut(&(error.src, error.dst, id))) {
            e.count = 0;
        }
    }

    /// `FlowTable::noticeDeadLink`: our own flows over the link a -> b
    /// (that direction) expire, so the next packet starts a new flow.
    pub(super) fn flows_dead_link(&mut self, now: SimTime, a: NodeId, b: NodeId) {
        if !self.cfg.flow_state {
            return;
        }
        let me = self.me;
        for ((s, _, _), e) in self.flows.iter_mut() {
            if *s == me && e.timeout >= now && e.route.windows(2).any(|w| w[0] == a && w[1] == b) {
                e.timeout = SimTime(now.0.saturating_sub(1));
            }
        }
    }
}
