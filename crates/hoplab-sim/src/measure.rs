//! A node's routing measurements (issue 3 §7): control overhead by message
//! type, routing events (link failures and whether they were false,
//! discoveries and their latency), the paths data took (route changes, time
//! at each path length), no-route periods at sources and delivery gaps at
//! sinks. Everything is observed at the node, so it is protocol-agnostic.

use crate::net::{LinkCause, RouteNote};
use crate::time::SimTime;
use crate::wire::{NodeId, Packet, DEFAULT_TTL};
use std::collections::BTreeMap;

/// Delivery gaps at least this long are recorded as outages.
pub const GAP_THRESHOLD_S: f64 = 0.5;

#[derive(Clone, Debug, PartialEq)]
pub struct RouteEvent {
    pub time: SimTime,
    /// "link_broken", "discovery_started", "discovery_done",
    /// "discovery_failed", "rerr_sent", "salvaged".
    pub kind: &'static str,
    /// The neighbour (link events) or destination (discoveries); None else.
    pub peer: Option<NodeId>,
    pub cause: Option<LinkCause>,
    /// Link events: the neighbour was still within decoding range.
    pub false_failure: bool,
    /// Discovery done: seconds since it started.
    pub latency_s: Option<f64>,
}

/// The path of one flow direction as seen where its packets arrive.
#[derive(Clone, Debug, Default)]
pub struct PathTrack {
    last_path: u64,
    last_hops: u8,
    since: Option<SimTime>,
    last_arrival: Option<SimTime>,
    pub changes: u64,
    /// Data (or ACK) packets that arrived.
    pub arrivals: u64,
    /// Seconds each path length (hops) was the one in use.
    pub hops_time: BTreeMap<u8, f64>,
    /// Gaps between consecutive arrivals of at least GAP_THRESHOLD_S.
    pub gaps: Vec<(SimTime, SimTime)>,
    /// Each path change: (first arrival on the new path, its hops, seconds
    /// since the last arrival on the old path).
    pub change_times: Vec<(SimTime, u8, f64)>,
}

impl PathTrack {
    fn arrive(&mut self, now: SimTime, path: u64, hops: u8) {
        let since_last = self.last_arrival.map_or(0.0, |l| now.since(l).as_secs_f64());
        if let Some(last) = self.last_arrival {
            if now.since(last).as_secs_f64() >= GAP_THRESHOLD_S {
                self.gaps.push((last, now));
            }
        }
        self.last_arrival = Some(now);
        self.arrivals += 1;
        match self.since {
            None => {
                self.since = Some(now);
            }
            Some(s) if path != self.last_path => {
                *self.hops_time.entry(self.last_hops).or_default() += now.since(s).as_secs_f64();
                self.since = Some(now);
                self.changes += 1;
                self.change_times.push((now, hops, since_last));
            }
            _ => {}
        }
        self.last_path = path;
        self.last_hops = hops;
    }

    /// Close the open path-length interval at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        if let Some(s) = self.since.take() {
            *self.hops_time.entry(self.last_hops).or_default() += end.since(s).as_secs_f64();
        }
    }
}

#[derive(Default)]
pub struct NetStats {
    /// Control packets and bytes sent (originated or forwarded), by type.
    pub overhead: BTreeMap<&'static str, (u64, u64)>,
    pub events: Vec<RouteEvent>,
    discovering: BTreeMap<NodeId, SimTime>,
    /// Keyed by (flow, is_ack): data arrives at the sink, ACKs at the source.
    pub paths: BTreeMap<(u32, bool), PathTrack>,
    /// Flows whose packets this node originates and currently cannot route.
    no_route: BTreeMap<u32, (SimTime, NodeId)>,
    /// Closed no-route periods: (flow, start, end).
    pub outages: Vec<(u32, SimTime, SimTime)>,
}

impl NetStats {
    pub fn count_sent(&mut self, kind: &'static str, bytes: u32) {
        let e = self.overhead.entry(kind).or_default();
        e.0 += 1;
        e.1 += bytes as u64;
    }

    /// A routing note; `in_range` says whether a named neighbour could still
    /// hear us (only asked for link failures).
    pub fn note(&mut self, now: SimTime, n: RouteNote, in_range: impl FnOnce(NodeId) -> bool) {
        let ev = |kind, peer, cause, false_failure, latency_s| RouteEvent { time: now, kind, peer, cause, false_failure, latency_s };
        let e = match n {
            RouteNote::LinkBroken { neighbor, cause } => ev("link_broken", Some(neighbor), Some(cause), in_range(neighbor), None),
            RouteNote::DiscoveryStarted { dst } => {
                self.discovering.entry(dst).or_insert(now);
                ev("discovery_started", Some(dst), None, false, None)
            }
            RouteNote::DiscoveryDone { dst } => {
                let lat = self.discovering.remove(&dst).map(|t| now.since(t).as_secs_f64());
                ev("discovery_done", Some(dst), None, false, lat)
            }
            RouteNote::DiscoveryFailed { dst } => {
                self.discovering.remove(&dst);
                ev("discovery_failed", Some(dst), None, false, None)
            }
            RouteNote::RouteErrorSent => ev("rerr_sent", None, None, false, None),
            RouteNote::Salvaged => ev("salvaged", None, None, false, None),
        };
        self.events.push(e);
    }

    /// A data packet or ACK reached its destination, this node.
    pub fn arrived(&mut self, now: SimTime, p: &Packet, flow: u32, is_ack: bool) {
        let hops = DEFAULT_TTL.saturating_sub(p.ttl).saturating_add(1);
        self.paths.entry((flow, is_ack)).or_default().arrive(now, p.path, hops);
    }

    /// The source's router found no route for a packet of `flow` to `dst`.
    pub fn no_route(&mut self, now: SimTime, flow: u32, dst: NodeId) {
        self.no_route.entry(flow).or_insert((now, dst));
    }

    /// A packet of `flow` left the source: a route exists.
    pub fn routed(&mut self, now: SimTime, flow: u32) {
        if let Some((s, _)) = self.no_route.remove(&flow) {
            self.outages.push((flow, s, now));
        }
    }

    /// Close no-route periods whose destination the router can reach again.
    pub fn recheck(&mut self, now: SimTime, has_route: impl Fn(NodeId) -> bool) {
        if self.no_route.is_empty() {
            return;
        }
        let done: Vec<u32> = self.no_route.iter().filter(|(_, (_, d))| has_route(*d)).map(|(&f, _)| f).collect();
        for f in done {
            self.routed(now, f);
        }
    }

    pub fn finish(&mut self, end: SimTime) {
        for (f, (s, _)) in std::mem::take(&mut self.no_route) {
            self.outages.push((f, s, end));
        }
        for t in self.paths.values_mut() {
            t.finish(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Body, UdpDatagram};

    fn at(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    /// A packet that left the nodes `via` in order, arriving with 64 - hops + 1 TTL.
    fn arrival(via: &[NodeId]) -> Packet {
        let mut p = Packet::new(1, via[0], 9, Body::Udp(UdpDatagram { flow: 0, seqno: 0, payload: 1 }), SimTime::ZERO);
        for &n in via {
            p.mark_hop(n);
        }
        p.ttl = DEFAULT_TTL - (via.len() as u8 - 1);
        p
    }

    #[test]
    fn path_changes_hop_times_and_gaps() {
        let mut s = NetStats::default();
        let short = arrival(&[0, 1]);
        let long = arrival(&[0, 2, 3]);
        s.arrived(at(1.0), &short, 0, false);
        s.arrived(at(1.2), &short, 0, false);
        s.arrived(at(4.0), &long, 0, false); // change after a 2.8 s gap
        s.arrived(at(4.1), &long, 0, false);
        s.arrived(at(5.0), &short, 0, false); // change back
        s.finish(at(10.0));
        let t = &s.paths[&(0, false)];
        assert_eq!(t.changes, 2);
        assert_eq!(t.hops_time[&2], 3.0 + 5.0); // 1-4 s and 5-10 s
        assert!((t.hops_time[&3] - 1.0).abs() < 1e-9);
        assert_eq!(t.gaps, vec![(at(1.2), at(4.0)), (at(4.1), at(5.0))]);
        assert_eq!(t.change_times[0].1, 3);
        assert!((t.change_times[0].2 - 2.8).abs() < 1e-9, "outage before the first change");
    }

    #[test]
    fn a_node_resending_its_own_packet_is_not_a_new_path() {
        let mut again = Packet::new(1, 0, 9, Body::Udp(UdpDatagram { flow: 0, seqno: 0, payload: 1 }), SimTime::ZERO);
        for n in [0, 0, 1, 1] {
            again.mark_hop(n);
        }
        assert_eq!(again.path, arrival(&[0, 1]).path);
    }

    #[test]
    fn no_route_periods_close_when_the_route_returns() {
        let mut s = NetStats::default();
        s.no_route(at(1.0), 0, 9);
        s.no_route(at(1.5), 0, 9); // already open: start stays at 1 s
        s.recheck(at(2.0), |_| false);
        s.recheck(at(3.0), |d| d == 9);
        s.no_route(at(6.0), 0, 9);
        s.routed(at(6.5), 0);
        s.finish(at(10.0));
        assert_eq!(s.outages, vec![(0, at(1.0), at(3.0)), (0, at(6.0), at(6.5))]);
    }
}
