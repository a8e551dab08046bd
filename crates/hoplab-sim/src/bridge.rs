//! The emulation bridge, sans-IO: real IPv4 packets enter a node's simulated
//! stack at a given simulated time and come out at their destination node as
//! "deliver these bytes at time t". It knows neither real time nor devices;
//! the real-time driver (crates/hoplab-emu) feeds it and writes its outputs.
//!
//! Ordering: `run_until(h)` handles every event before `h`; a packet may be
//! injected at any time not before the last horizon (and not before the
//! previous injection). At equal times an injection goes before queued
//! events. The order thus depends only on the injections and their times,
//! never on how the run was cut into steps, so replaying an ingress log in
//! one go reproduces a live run's event hash.

use crate::results::RunOutput;
use crate::scenario::Scenario;
use crate::time::SimTime;
use crate::wire::ipv4::{self, FiveTuple, RawIp, Reject};
use crate::wire::NodeId;
use crate::world::World;
use std::collections::{BTreeMap, VecDeque};

/// Real flows get engine flow ids from here up, apart from the scenario's.
pub const EXT_FLOW_BASE: u32 = 0x4000_0000;

/// Why a packet was not injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InjectError {
    /// Its headers (wire/ipv4.rs).
    Packet(Reject),
    /// Stamped before the engine's clock or before the previous injection.
    Late,
    /// The ingress node is not in the scenario.
    NoSuchNode,
}

impl std::fmt::Display for InjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InjectError::Packet(Reject::NotIpv4) => "not an IPv4 packet",
            InjectError::Packet(Reject::Malformed) => "malformed IPv4 packet",
            InjectError::Packet(Reject::UnknownDestination) => "destination is not a node's address (10.0.0.0/16 + node + 1)",
            InjectError::Late => "stamped before the engine's clock or the previous injection",
            InjectError::NoSuchNode => "no such node",
        })
    }
}
impl std::error::Error for InjectError {}

/// A real packet delivered by the simulated network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub node: NodeId,
    /// Simulated delivery time, in nanoseconds.
    pub time_ns: u64,
    pub bytes: Vec<u8>,
}

struct Pending {
    at: SimTime,
    node: NodeId,
    dst: NodeId,
    ttl: u8,
    raw: RawIp,
}

/// A world driven step by step, with real packets going in and out.
pub struct Emulation {
    world: World,
    pending: VecDeque<Pending>,
    /// Every event before this time has been handled.
    horizon: SimTime,
    last_inject: SimTime,
    flows: BTreeMap<FiveTuple, u32>,
    delivered: Vec<(NodeId, SimTime, Vec<u8>)>,
}

impl Emulation {
    /// A world for a validated scenario and seed, at time zero, with real
    /// endpoints at nodes `real` (static routing builds routes to them).
    pub fn new(sc: &Scenario, seed: u64, real: &[NodeId]) -> Emulation {
        Emulation { world: World::with_endpoints(sc, seed, real), pending: VecDeque::new(), horizon: SimTime::ZERO, last_inject: SimTime::ZERO, flows: BTreeMap::new(), delivered: Vec::new() }
    }

    /// Queue `bytes` to enter node `node`'s stack at `at_ns`.
    pub fn inject(&mut self, node: NodeId, bytes: Vec<u8>, at_ns: u64) -> Result<(), InjectError> {
        let at = SimTime(at_ns);
        if node as usize >= self.world.nodes.len() {
            return Err(InjectError::NoSuchNode);
        }
        if at < self.horizon || at < self.last_inject {
            return Err(InjectError::Late);
        }
        let p = ipv4::parse(&bytes).map_err(InjectError::Packet)?;
        if p.dst_node as usize >= self.world.nodes.len() {
            return Err(InjectError::Packet(Reject::UnknownDestination));
        }
        // Both directions of a connection are one flow, as a simulated
        // flow's data and ACKs are.
        let t = p.tuple;
        let key = if (t.src, t.sport) <= (t.dst, t.dport) { t } else { FiveTuple { src: t.dst, dst: t.src, sport: t.dport, dport: t.sport, proto: t.proto } };
        let next = EXT_FLOW_BASE + self.flows.len() as u32;
        let flow = *self.flows.entry(key).or_insert(next);
        self.last_inject = at;
        self.pending.push_back(Pending { at, node, dst: p.dst_node, ttl: p.ttl, raw: RawIp { bytes, class: p.class, flow } });
        Ok(())
    }

    /// Handle every injection and event before `horizon_ns` (and not past
    /// the scenario's end).
    pub fn run_until(&mut self, horizon_ns: u64) {
        let end = self.world.end();
        let horizon = SimTime(horizon_ns);
        loop {
            let next_ev = self.world.next_event_time().filter(|&t| t <= end);
            let next_in = self.pending.front().map(|p| p.at).filter(|&t| t <= end);
            match (next_in, next_ev) {
                (Some(i), e) if i < horizon && e.is_none_or(|e| i <= e) => {
                    let p = self.pending.pop_front().expect("front exists");
                    self.world.inject(p.at, p.node, p.dst, p.raw, p.ttl);
                }
                (_, Some(e)) if e < horizon => self.world.step_one(),
                _ => break,
            }
        }
        self.horizon = self.horizon.max(horizon);
        self.world.drain_delivered(&mut self.delivered);
    }

    /// Stream the scenario's `[trace] formats` into files in `dir` (which
    /// must exist), as `World::stream_trace`; call before running. The
    /// trace only observes: the event hash is the same (a replay traced).
    pub fn stream_trace(&mut self, dir: &std::path::Path) -> Result<(), crate::trace::tap::TraceError> {
        self.world.stream_trace(dir)
    }

    /// Flush the trace files: the first write error, if any. A session that
    /// ran to the scenario's end gets the END drops of a simulated run
    /// (`World::end_trace`); one stopped earlier ends its trace where it
    /// stopped, as a cancelled run does.
    pub fn finish_trace(&mut self) -> Result<(), crate::world::RunError> {
        if self.horizon > self.world.end() {
            self.world.end_trace()
        } else {
            self.world.finish_trace()
        }
    }

    /// The packets delivered so far, in time order.
    pub fn drain(&mut self) -> Vec<Delivery> {
        self.delivered.drain(..).map(|(node, t, bytes)| Delivery { node, time_ns: t.0, bytes }).collect()
    }

    /// The scenario's end, in nanoseconds.
    pub fn end_ns(&self) -> u64 {
        self.world.end().0
    }

    pub fn event_hash(&self) -> u64 {
        self.world.event_hash()
    }

    pub fn events(&self) -> u64 {
        self.world.events()
    }

    /// Real flows seen so far (distinct connections).
    pub fn real_flows(&self) -> usize {
        self.flows.len()
    }

    /// The result tables (the simulated flows, every node's counters and
    /// drops, real packets included).
    pub fn results(&mut self, wall_s: f64) -> RunOutput {
        self.world.results(wall_s)
    }
}
