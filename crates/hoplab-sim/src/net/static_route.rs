//! Static shortest-path routing (seed 002's "ZERO": routes computed once
//! from the initial topology).

use crate::net::routing::{Protocol, RouteAction};
use crate::net::DropReason;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use crate::fasthash::FastMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// Next hops toward each destination, from breadth-first search over the
/// initial transmission-range graph: shortest paths in hops, ties broken by
/// the lowest node id.
#[derive(Debug, Default)]
pub struct StaticTable {
    // Looked up for every packet routed; never iterated.
    next_hop: FastMap<NodeId, Vec<Option<NodeId>>>,
}

impl StaticTable {
    /// `adjacency[n]`: the nodes `n` can reach in one hop, ascending.
    pub fn build(adjacency: &[Vec<NodeId>], destinations: impl IntoIterator<Item = NodeId>) -> StaticTable {
        let n = adjacency.len();
        let mut next_hop = FastMap::default();
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
    #[cfg(test)]
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

}

impl Protocol for StaticRouter {
    fn route(&mut self, _now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        match self.table.next_hop(self.me, packet.dst) {
            Some(next_hop) if next_hop != self.me => out.push(RouteAction::Send { next_hop, packet }),
            _ => out.push(RouteAction::Drop { packet, reason: DropReason::Nrte }),
        }
    }

    fn receive(&mut self, _now: SimTime, _from: NodeId, _packet: Packet, _out: &mut Vec<RouteAction>) {}

    fn link_failed(&mut self, _now: SimTime, _next_hop: NodeId, _packet: Packet, _out: &mut Vec<RouteAction>) {
        // Static routes never change: the MAC has already counted the
        // packet as a RET drop, and there is no other path to try.
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    fn handle_timeout(&mut self, _now: SimTime, _out: &mut Vec<RouteAction>) {}

    fn has_route(&self, _now: SimTime, dst: NodeId) -> bool {
        self.table.next_hop(self.me, dst).is_some()
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
