//! Routing table calculation (RFC 3626 §10): shortest paths in hops over
//! the symmetric neighbours, the two-hop set and the topology set.

use crate::wire::NodeId;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub next_hop: NodeId,
    pub hops: u32,
}

/// The routing table, indexed by destination address: node addresses are
/// small dense integers, and a lookup per routed packet is the hot path.
#[derive(Clone, Debug, Default)]
pub struct Routes(Vec<Option<Route>>);

impl Routes {
    pub fn get(&self, dst: NodeId) -> Option<Route> {
        self.0.get(dst as usize).copied().flatten()
    }
    pub fn contains(&self, dst: NodeId) -> bool {
        self.get(dst).is_some()
    }
    fn set(&mut self, dst: NodeId, r: Route) {
        let i = dst as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(r);
    }
}

/// `neighbors`: symmetric neighbours. `two_hop`: (neighbour, two-hop
/// address) pairs through neighbours whose willingness is not WILL_NEVER.
/// `topology`: (T_last_addr, T_dest_addr) pairs in ascending order. Ties
/// between equally long paths go to the lowest neighbour address for
/// two-hop routes and to the lowest T_last_addr for longer ones (with both
/// inputs in ascending order: the first candidate in that order).
///
/// One breadth-first pass; a node's topology tuples are found by binary
/// search in the sorted pairs: O((V + E) log E).
pub fn compute_routes(
    me: NodeId,
    neighbors: &BTreeSet<NodeId>,
    two_hop: impl IntoIterator<Item = (NodeId, NodeId)>,
    topology: impl IntoIterator<Item = (NodeId, NodeId)>,
) -> Routes {
    let mut routes = Routes::default();
    // §10 step 2: one-hop routes to every symmetric neighbour.
    for &n in neighbors {
        routes.set(n, Route { next_hop: n, hops: 1 });
    }
    let mut frontier: Vec<NodeId> = Vec::new();
    // §10 step 3: two-hop routes through a neighbour that offers them.
    for (n, z) in two_hop {
        if z == me || routes.contains(z) || !neighbors.contains(&n) {
            continue;
        }
        routes.set(z, Route { next_hop: n, hops: 2 });
        frontier.push(z);
    }
    let topo: Vec<(NodeId, NodeId)> = topology.into_iter().collect();
    debug_assert!(topo.windows(2).all(|w| w[0] <= w[1]), "topology pairs not sorted");
    // §10 step 4: extend by one hop at a time through the topology set.
    let mut h = 2;
    while !frontier.is_empty() {
        frontier.sort_unstable();
        let mut next = Vec::new();
        for &u in &frontier {
            let via = routes.get(u).expect("frontier node has a route").next_hop;
            let from = topo.partition_point(|&(last, _)| last < u);
            for &(_, d) in topo[from..].iter().take_while(|&&(last, _)| last == u) {
                if d == me || routes.contains(d) {
                    continue;
                }
                routes.set(d, Route { next_hop: via, hops: h + 1 });
                next.push(d);
            }
        }
        frontier = next;
        h += 1;
    }
    routes
}
