//! MPR selection: the heuristic of RFC 3626 §8.3.1, generalised to
//! MPR_COVERAGE as §16.2 does.

use super::config::{WILL_ALWAYS, WILL_NEVER};
use crate::wire::NodeId;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// `neighbors`: symmetric one-hop neighbours with their willingness.
/// `two_hop`: (neighbour, address it lists as its symmetric neighbour) pairs
/// from the two-hop set (only for symmetric neighbours).
/// Ties (equal willingness, reachability and degree) go to the lowest id so
/// the result never depends on anything but the inputs.
pub fn select_mprs(
    me: NodeId,
    neighbors: &BTreeMap<NodeId, u8>,
    two_hop: impl IntoIterator<Item = (NodeId, NodeId)>,
    coverage: u32,
) -> BTreeSet<NodeId> {
    // reach[y]: strict two-hop neighbours (not us, not a one-hop neighbour)
    // that y reaches. §8.3.1 also gives D(y) as the size of this set.
    let mut reach: BTreeMap<NodeId, BTreeSet<NodeId>> = BTreeMap::new();
    for (y, z) in two_hop {
        if z == me || neighbors.contains_key(&z) || !neighbors.contains_key(&y) {
            continue;
        }
        reach.entry(y).or_default().insert(z);
    }
    let willing = |y: &NodeId| neighbors.get(y).copied().unwrap_or(WILL_NEVER);
    // §8.3.1 N2 leaves out nodes reachable only through WILL_NEVER neighbours,
    // which can never be MPRs (§8.3).
    let mut providers: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for (y, zs) in &reach {
        if willing(y) == WILL_NEVER {
            continue;
        }
        for &z in zs {
            providers.entry(z).or_default().push(*y);
        }
    }
    let degree = |y: &NodeId| reach.get(y).map_or(0, |s| s.len());
    // The coverage each two-hop node can get: MPR_COVERAGE "if possible".
    let need: BTreeMap<NodeId, usize> =
        providers.iter().map(|(z, p)| (*z, p.len().min(coverage as usize))).collect();

    // Step 1: every WILL_ALWAYS neighbour.
    let mut mprs: BTreeSet<NodeId> = neighbors.iter().filter(|(_, &w)| w == WILL_ALWAYS).map(|(y, _)| *y).collect();
    // Step 3: a two-hop node with no more providers than it needs takes all
    // of them ("the only nodes to provide reachability").
    for (z, p) in &providers {
        if p.len() <= need[z] {
            mprs.extend(p.iter().copied());
        }
    }
    let covered = |mprs: &BTreeSet<NodeId>, z: &NodeId| providers[z].iter().filter(|y| mprs.contains(y)).count();
    // Step 4: add the best neighbour while some two-hop node is short.
    loop {
        let short: BTreeSet<NodeId> = need.iter().filter(|(z, n)| covered(&mprs, z) < **n).map(|(z, _)| *z).collect();
        if short.is_empty() {
            break;
        }
        let best = reach
            .iter()
            .filter(|(y, _)| !mprs.contains(y) && willing(y) != WILL_NEVER)
            .map(|(y, zs)| (*y, zs.iter().filter(|z| short.contains(z)).count()))
            .filter(|&(_, r)| r > 0)
            // §8.3.1 4.2: highest willingness, then reachability, then D(y).
            .max_by_key(|&(y, r)| (willing(&y), r, degree(&y), Reverse(y)));
        match best {
            Some((y, _)) => {
                mprs.insert(y);
            }
            None => break, // cannot happen: every short node has a free provider
        }
    }
    mprs
}
