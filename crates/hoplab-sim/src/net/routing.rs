//! The routing interface every protocol implements, and static shortest-path
//! routing (seed 002's "ZERO": routes computed from the initial topology).
//!
//! A protocol is a sans-IO state machine. The node hands it packets to route
//! (`route`), link-layer failures (`link_failed`) and timer expiries; it
//! answers with `RouteAction`s. A protocol without a route may keep the
//! packet and release it later through a `Send` action, so on-demand
//! protocols need no fake loopback route (GUIDE.md).

use crate::net::DropReason;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

#[derive(Debug)]
pub enum RouteAction {
    /// Queue the packet for this next hop.
    Send { next_hop: NodeId, packet: Packet },
    Drop { packet: Packet, reason: DropReason },
    /// Drop what the interface queue holds for a next hop (a broken link),
    /// handing each packet back through `link_failed`-like handling.
    PurgeNextHop { next_hop: NodeId },
}

/// Every routing protocol the node can run.
pub enum Router {
    Static(StaticRouter),
}

impl Router {
    /// Route a packet this node originates or forwards.
    pub fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        match self {
            Router::Static(r) => r.route(now, packet, out),
        }
    }

    /// The MAC gave up on `packet` to `next_hop` (link-layer feedback).
    pub fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        match self {
            Router::Static(r) => r.link_failed(now, next_hop, packet, out),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            Router::Static(_) => None,
        }
    }

    pub fn handle_timeout(&mut self, _now: SimTime, _out: &mut Vec<RouteAction>) {}
}

/// Next hops toward each destination, from breadth-first search over the
/// initial transmission-range graph: shortest paths in hops, ties broken by
/// the lowest node id.
#[derive(Debug, Default)]
pub struct StaticTable {
    next_hop: HashMap<NodeId, Vec<Option<NodeId>>>,
}

impl StaticTable {
    /// `adjacency[n]`: the nodes `n` can reach in one hop, ascending.
    pub fn build(adjacency: &[Vec<NodeId>], destinations: impl IntoIterator<Item = NodeId>) -> StaticTable {
        let n = adjacency.len();
        let mut next_hop = HashMap::new();
        for dst in destinations {
            if next_hop.contains_key(&dst) {
                continue;
            }
            // BFS outward from the destination: a node's parent is its next hop.
            let mut nh: Vec<Option<NodeId>> = vec![None; n];
            let mut seen = vec![false; n];
            seen[dst as usize] = true;
            nh[dst as usize] = Some(dst);
            let mut q = VecDeque::from([dst]);
            while let Some(u) = q.pop_front() {
                for &v in &adjacency[u as usize] {
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        nh[v as usize] = Some(u);
                        q.push_back(v);
                    }
                }
            }
            next_hop.insert(dst, nh);
        }
        StaticTable { next_hop }
    }

    pub fn next_hop(&self, from: NodeId, dst: NodeId) -> Option<NodeId> {
        self.next_hop.get(&dst).and_then(|v| v[from as usize])
    }

    /// Hops from `from` to `dst`, if connected.
    pub fn hops(&self, from: NodeId, dst: NodeId) -> Option<u32> {
        let mut at = from;
        let mut hops = 0;
        while at != dst {
            at = self.next_hop(at, dst)?;
            hops += 1;
        }
        Some(hops)
    }
}

pub struct StaticRouter {
    me: NodeId,
    table: Arc<StaticTable>,
}

impl StaticRouter {
    pub fn new(me: NodeId, table: Arc<StaticTable>) -> Self {
        StaticRouter { me, table }
    }

    fn route(&mut self, _now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        match self.table.next_hop(self.me, packet.dst) {
            Some(next_hop) if next_hop != self.me => out.push(RouteAction::Send { next_hop, packet }),
            _ => out.push(RouteAction::Drop { packet, reason: DropReason::Nrte }),
        }
    }

    fn link_failed(&mut self, _now: SimTime, _next_hop: NodeId, _packet: Packet, _out: &mut Vec<RouteAction>) {
        // Static routes never change: the MAC has already counted the
        // packet as a RET drop, and there is no other path to try.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfs_gives_shortest_paths_on_a_grid() {
        // 3x3 grid, 4-neighbourhood, ids row-major.
        let adj: Vec<Vec<NodeId>> = (0..9u32)
            .map(|i| {
                let (r, c) = (i / 3, i % 3);
                let mut v = vec![];
                if r > 0 { v.push(i - 3) }
                if c > 0 { v.push(i - 1) }
                if c < 2 { v.push(i + 1) }
                if r < 2 { v.push(i + 3) }
                v
            })
            .collect();
        let t = StaticTable::build(&adj, [8]);
        assert_eq!(t.hops(0, 8), Some(4));
        assert_eq!(t.hops(4, 8), Some(2));
        assert_eq!(t.next_hop(8, 8), Some(8));
        assert_eq!(t.next_hop(0, 5), None); // not a computed destination
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let adj = vec![vec![1], vec![0], vec![]];
        let t = StaticTable::build(&adj, [2]);
        assert_eq!(t.hops(0, 2), None);
    }
}
