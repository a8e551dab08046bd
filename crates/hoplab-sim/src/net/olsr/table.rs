//! Routing table calculation (RFC 3626 §10): shortest paths in hops over
//! the symmetric neighbours, the two-hop set and the topology set.

use crate::wire::NodeId;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub next_hop: NodeId,
    pub hops: u32,
}

/// `neighbors`: symmetric neighbours. `two_hop`: (neighbour, two-hop
/// address) pairs through neighbours whose willingness is not WILL_NEVER.
/// `topology`: (T_last_addr, T_dest_addr) pairs. Ties between equally long
/// paths go to the first candidate in ascending address order.
pub fn compute_routes(
    me: NodeId,
    neighbors: &BTreeSet<NodeId>,
    two_hop: impl IntoIterator<Item = (NodeId, NodeId)>,
    topology: &[(NodeId, NodeId)],
) -> BTreeMap<NodeId, Route> {
    let mut routes = BTreeMap::new();
    // §10 step 2: one-hop routes to every symmetric neighbour.
    for &n in neighbors {
        routes.insert(n, Route { next_hop: n, hops: 1 });
    }
    // §10 step 3: two-hop neighbours not already routed.
    for (n, z) in two_hop {
        if z == me || routes.contains_key(&z) || !neighbors.contains(&n) {
            continue;
        }
        routes.insert(z, Route { next_hop: n, hops: 2 });
    }
    // §10 step 3 (topology): grow the table one hop at a time.
    let mut h = 2;
    loop {
        let mut added = false;
        for &(last, dest) in topology {
            if dest == me || routes.contains_key(&dest) {
                continue;
            }
            if let Some(r) = routes.get(&last).copied().filter(|r| r.hops == h) {
                routes.insert(dest, Route { next_hop: r.next_hop, hops: h + 1 });
                added = true;
            }
        }
        if !added {
            break;
        }
        h += 1;
    }
    routes
}
