//! Routing table calculation (RFC 3626 §10): shortest paths in hops over
//! the symmetric neighbours, the two-hop set and the topology set.

use crate::wire::NodeId;
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub next_hop: NodeId,
    pub hops: u32,
}

/// `neighbors`: symmetric neighbours. `two_hop`: (neighbour, two-hop
/// address) pairs through neighbours whose willingness is not WILL_NEVER.
/// `topology`: (T_last_addr, T_dest_addr) pairs. Ties between equally long
/// paths go to the lowest neighbour address for two-hop routes and to the
/// lowest T_last_addr for longer ones (with both inputs in ascending order:
/// the first candidate in that order).
///
/// One breadth-first pass over an adjacency built once: O(V log V + E).
/// The result is only looked up, never iterated, so a HashMap is fine.
pub fn compute_routes(
    me: NodeId,
    neighbors: &BTreeSet<NodeId>,
    two_hop: impl IntoIterator<Item = (NodeId, NodeId)>,
    topology: impl IntoIterator<Item = (NodeId, NodeId)>,
) -> HashMap<NodeId, Route> {
    let mut routes = HashMap::with_capacity(64);
    // §10 step 2: one-hop routes to every symmetric neighbour.
    for &n in neighbors {
        routes.insert(n, Route { next_hop: n, hops: 1 });
    }
    // §10 step 3: two-hop neighbours not already routed.
    let mut frontier: Vec<NodeId> = Vec::new();
    for (n, z) in two_hop {
        if z == me || routes.contains_key(&z) || !neighbors.contains(&n) {
            continue;
        }
        routes.insert(z, Route { next_hop: n, hops: 2 });
        frontier.push(z);
    }
    // §10 step 3 (topology): grow the table one hop at a time from the
    // nodes h hops away, in ascending address order, so the first T_last_addr
    // to reach a destination (the lowest one) gives its route.
    let mut adj: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for (last, dest) in topology {
        adj.entry(last).or_default().push(dest);
    }
    let mut h = 2;
    while !frontier.is_empty() {
        frontier.sort_unstable();
        let mut next = Vec::new();
        for &u in &frontier {
            let Some(dests) = adj.get(&u) else { continue };
            let via = routes[&u].next_hop;
            for &d in dests {
                if d == me || routes.contains_key(&d) {
                    continue;
                }
                routes.insert(d, Route { next_hop: via, hops: h + 1 });
                next.push(d);
            }
        }
        frontier = next;
        h += 1;
    }
    routes
}
