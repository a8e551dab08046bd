//! The route cache as a path cache (RFC 4728 §4.1): whole paths starting at
//! this node, each link stamped with when it was last learned or confirmed.
//! A lookup takes the shortest fresh prefix ending at the destination; a
//! broken link truncates every path that uses it.

use crate::time::{Dur, SimTime};
use crate::wire::NodeId;
use crate::fasthash::{FastMap, FastSet};

pub struct RouteCache {
    me: NodeId,
    /// Paths, oldest first; each starts with `me` and has no repeated node.
    paths: Vec<Vec<NodeId>>,
    /// Links by unordered pair: 802.11 needs bidirectional links, so DSR
    /// over it may use a learned link both ways (§4, §8.1.4).
    links: FastMap<(NodeId, NodeId), SimTime>,
    /// How many paths use each link (a pruning aid: at a full cache every
    /// learned path prunes, and scanning the paths per link was 80 % of a
    /// 1,000-node DSR run).
    uses: FastMap<(NodeId, NodeId), u32>,
    /// Links whose use count fell to 0: what the next prune looks at.
    unused: FastSet<(NodeId, NodeId)>,
    cap: usize,
    timeout: Dur,
}

fn key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    (a.min(b), a.max(b))
}

fn has_repeat(path: &[NodeId]) -> bool {
    path.iter().enumerate().any(|(i, n)| path[..i].contains(n))
}

impl RouteCache {
    pub fn new(me: NodeId, cap: usize, timeout: Dur) -> RouteCache {
        RouteCache { me, paths: vec![], links: FastMap::default(), uses: FastMap::default(), unused: FastSet::default(), cap, timeout }
    }

    /// Count `path`'s links as used (`up`) or no longer used by one path.
    fn count(&mut self, path: &[NodeId], up: bool) {
        for w in path.windows(2) {
            let k = key(w[0], w[1]);
            let u = self.uses.entry(k).or_insert(0);
            if up {
                *u += 1;
            } else {
                *u -= 1;
                if *u == 0 {
                    self.uses.remove(&k);
                    self.unused.insert(k);
                }
            }
        }
    }

    /// `self.paths.retain(keep)`, counting the dropped paths' links.
    fn retain_paths(&mut self, mut keep: impl FnMut(&[NodeId]) -> bool) {
        let mut dropped = vec![];
        self.paths.retain(|p| keep(p) || {
            dropped.push(p.clone());
            false
        });
        for p in dropped {
            self.count(&p, false);
        }
    }

    fn fresh(&self, now: SimTime, a: NodeId, b: NodeId) -> bool {
        self.links.get(&key(a, b)).is_some_and(|&t| t + self.timeout > now)
    }

    /// Add a path that starts at this node. Paths that repeat a node are
    /// refused (a source route must be loop-free, §8.2.3).
    pub fn add(&mut self, now: SimTime, path: &[NodeId]) {
        if path.len() < 2 || path[0] != self.me || has_repeat(path) {
            return;
        }
        for w in path.windows(2) {
            self.links.insert(key(w[0], w[1]), now);
        }
        if self.paths.iter().any(|p| p.starts_with(path)) {
            return;
        }
        self.retain_paths(|p| !path.starts_with(p));
        self.count(path, true);
        self.paths.push(path.to_vec());
        if self.paths.len() > self.cap {
            let old = self.paths.remove(0);
            self.count(&old, false);
            self.prune_links();
        }
    }

    /// Refresh a link we have just seen work (ACK, tx_ok, overheard).
    pub fn confirm(&mut self, now: SimTime, a: NodeId, b: NodeId) {
        if let Some(t) = self.links.get_mut(&key(a, b)) {
            *t = now;
        }
    }

    /// The shortest cached route from this node to `dst` whose links are
    /// all fresh (RouteCacheTimeout), `me` first and `dst` last.
    pub fn find(&self, now: SimTime, dst: NodeId) -> Option<Vec<NodeId>> {
        let mut best: Option<&[NodeId]> = None;
        for p in &self.paths {
            let Some(i) = p.iter().position(|&n| n == dst) else { continue };
            if i == 0 || best.is_some_and(|b| b.len() <= i + 1) {
                continue;
            }
            if p[..=i].windows(2).all(|w| self.fresh(now, w[0], w[1])) {
                best = Some(&p[..=i]);
            }
        }
        best.map(|b| b.to_vec())
    }

    /// Forget the link a–b (either direction): every path using it keeps
    /// only the part before it (§4.1, §8.4.5).
    pub fn remove_link(&mut self, a: NodeId, b: NodeId) {
        self.links.remove(&key(a, b));
        self.unused.remove(&key(a, b));
        let mut paths = std::mem::take(&mut self.paths);
        for p in &mut paths {
            if let Some(i) = p.windows(2).position(|w| key(w[0], w[1]) == key(a, b)) {
                self.count(&p[i..], false);
                p.truncate(i + 1);
            }
        }
        paths.retain(|p| p.len() >= 2);
        // Truncation may leave a path equal to, or a prefix of, another.
        let mut kept: Vec<Vec<NodeId>> = vec![];
        for p in paths {
            if !kept.iter().any(|k| k.starts_with(&p)) {
                let mut dropped = vec![];
                kept.retain(|k| !p.starts_with(k) || {
                    dropped.push(k.clone());
                    false
                });
                for k in dropped {
                    self.count(&k, false);
                }
                kept.push(p);
            } else {
                self.count(&p, false);
            }
        }
        self.paths = kept;
        // The link a–b itself is counted nowhere now and stamped nowhere.
        self.unused.remove(&key(a, b));
    }

    /// [`RouteCache::remove_link`], returning the destinations to which no
    /// cached path is left (fresh or not) that had one through a–b (ELFN).
    pub fn remove_link_lost(&mut self, a: NodeId, b: NodeId) -> Vec<NodeId> {
        let mut cut = std::collections::BTreeSet::new();
        for p in &self.paths {
            if let Some(i) = p.windows(2).position(|w| key(w[0], w[1]) == key(a, b)) {
                cut.extend(p[i + 1..].iter().copied());
            }
        }
        self.remove_link(a, b);
        cut.into_iter().filter(|d| !self.paths.iter().any(|p| p[1..].contains(d))).collect()
    }

    #[cfg(test)]
    pub fn has_link(&self, a: NodeId, b: NodeId) -> bool {
        self.links.contains_key(&key(a, b))
    }

    /// Drop link stamps no path uses any more.
    fn prune_links(&mut self) {
        // Only links whose count fell to 0 can be unused (every stamp is
        // set by `add` for a path that is, or is covered by, a cached path).
        for k in self.unused.drain() {
            if !self.uses.contains_key(&k) {
                self.links.remove(&k);
            }
        }
    }

    #[allow(dead_code)]
    pub fn paths(&self) -> &[Vec<NodeId>] {
        &self.paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_fresh_prefix_and_truncation() {
        let mut c = RouteCache::new(0, 8, Dur::from_millis(1000));
        let t0 = SimTime::ZERO;
        c.add(t0, &[0, 1, 2, 3, 4]);
        c.add(t0, &[0, 5, 4]);
        assert_eq!(c.find(t0, 4), Some(vec![0, 5, 4]));
        assert_eq!(c.find(t0, 3), Some(vec![0, 1, 2, 3]));
        c.remove_link(4, 5);
        assert_eq!(c.find(t0, 4), Some(vec![0, 1, 2, 3, 4]));
        c.remove_link(2, 3);
        assert_eq!(c.find(t0, 4), None);
        assert_eq!(c.find(t0, 2), Some(vec![0, 1, 2]));
        // Links expire after RouteCacheTimeout.
        assert_eq!(c.find(SimTime(2_000_000_000), 2), None);
        // A path repeating a node is refused.
        c.add(t0, &[0, 7, 8, 7, 9]);
        assert_eq!(c.find(t0, 9), None);
    }

    #[test]
    fn use_counts_prune_exactly_the_unused_links() {
        // Random adds and link removals on a small cache: the counts match
        // the paths, and a prune (an add past the cap) leaves exactly the
        // paths' links, as the scan of every path per link did.
        let mut c = RouteCache::new(0, 4, Dur::from_millis(1000));
        let mut s = crate::rng::Stream::new(9, 0, crate::rng::Purpose::Topology);
        let mut pick = |k: u32| (s.unit() * k as f64) as NodeId;
        for _ in 0..3000 {
            if pick(4) == 0 {
                let (a, b) = (pick(8), pick(8));
                c.remove_link(a, b);
            } else {
                let len = 2 + pick(5) as usize;
                let mut path = vec![0];
                path.extend((1..len).map(|_| 1 + pick(7)));
                let before = c.paths.clone();
                let removed = before.iter().filter(|p| path.starts_with(p)).count();
                let covered = before.iter().any(|p| p.starts_with(&path));
                let pruned = !has_repeat(&path) && !covered && before.len() - removed + 1 > c.cap;
                c.add(SimTime::ZERO, &path);
                let mut used: Vec<_> = c.paths.iter().flat_map(|p| p.windows(2).map(|w| key(w[0], w[1]))).collect();
                used.sort_unstable();
                let mut counts: Vec<_> = c.uses.iter().flat_map(|(&k, &n)| std::iter::repeat_n(k, n as usize)).collect();
                counts.sort_unstable();
                assert_eq!(counts, used);
                used.dedup();
                let mut links: Vec<_> = c.links.keys().copied().collect();
                links.sort_unstable();
                if pruned {
                    assert_eq!(links, used);
                } else {
                    assert!(used.iter().all(|k| c.links.contains_key(k)));
                }
            }
        }
    }
}
