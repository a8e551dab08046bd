//! The shared medium: node positions, a uniform-grid spatial index, and for
//! each transmitter the list of nodes its signal reaches (cached until a
//! node moves). Finding receivers never scans every node.

use super::propagation::{RadioParams, SPEED_OF_LIGHT};
use crate::time::Dur;
use crate::wire::NodeId;
use crate::fasthash::FastMap;

type Grid = FastMap<(i64, i64), Vec<NodeId>>;

/// How a transmitter's signal arrives at one other node.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub node: NodeId,
    pub power: f64,
    pub delay: Dur,
    /// Strong enough to make the medium busy (>= CS threshold).
    pub sensed: bool,
    /// Counts as interference against another reception.
    pub interferes: bool,
}

pub struct Channel {
    pub params: RadioParams,
    positions: Vec<(f64, f64)>,
    cell: f64,
    grid: Grid,
    links: Vec<Option<Box<[Link]>>>,
}

impl Channel {
    pub fn new(params: RadioParams, positions: Vec<(f64, f64)>) -> Channel {
        // Cells as wide as the farthest reach: a query looks at 3x3 cells.
        let cell = params.max_range().max(1.0);
        let mut grid = Grid::default();
        for (i, &p) in positions.iter().enumerate() {
            grid.entry(Self::cell_of(cell, p)).or_default().push(i as NodeId);
        }
        let n = positions.len();
        Channel { params, positions, cell, grid, links: vec![None; n] }
    }

    fn cell_of(cell: f64, (x, y): (f64, f64)) -> (i64, i64) {
        ((x / cell).floor() as i64, (y / cell).floor() as i64)
    }

    pub fn position(&self, n: NodeId) -> (f64, f64) {
        self.positions[n as usize]
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    pub fn distance(&self, a: NodeId, b: NodeId) -> f64 {
        let (ax, ay) = self.positions[a as usize];
        let (bx, by) = self.positions[b as usize];
        (ax - bx).hypot(ay - by)
    }

    /// Whether `a` and `b` are at most `range` apart, decided exactly as
    /// `distance(a, b) <= range` (glibc `hypot`) decides: the squared
    /// distance (rounding error < 3e-16 relative) settles every pair outside
    /// a shell of 1e-9 relative width around the boundary, and `hypot`
    /// decides inside it. `r2` is `range * range`.
    #[inline]
    fn within(&self, a: NodeId, b: NodeId, range: f64, r2: f64) -> bool {
        let (ax, ay) = self.positions[a as usize];
        let (bx, by) = self.positions[b as usize];
        let (dx, dy) = (ax - bx, ay - by);
        let d2 = dx * dx + dy * dy;
        if d2 < r2 * (1.0 - 1e-9) {
            true
        } else if d2 > r2 * (1.0 + 1e-9) {
            false
        } else {
            dx.hypot(dy) <= range
        }
    }

    /// Call `f` for every node within `range` of `from` (excluding it), in
    /// no particular order.
    fn visit_within(&self, from: NodeId, range: f64, mut f: impl FnMut(NodeId)) {
        let p = self.positions[from as usize];
        let (cx, cy) = Self::cell_of(self.cell, p);
        let reach = (range / self.cell).ceil().min(1e9) as i64;
        let r2 = range * range;
        let mut visit = |v: &Vec<NodeId>| {
            for &o in v {
                if o != from && self.within(from, o, range, r2) {
                    f(o);
                }
            }
        };
        // A range far beyond the cell size (tx_range_m = 1e9 with the
        // default carrier-sense threshold) would visit ~1e13 empty cells:
        // then scan the occupied cells instead (never more than the nodes).
        let span = (2 * reach + 1) as f64;
        if span * span > self.grid.len() as f64 {
            self.grid.values().for_each(visit);
        } else {
            for gx in cx - reach..=cx + reach {
                for gy in cy - reach..=cy + reach {
                    if let Some(v) = self.grid.get(&(gx, gy)) {
                        visit(v);
                    }
                }
            }
        }
    }

    /// Nodes within `range` of `from` (excluding it), in id order.
    pub fn nodes_within(&self, from: NodeId, range: f64) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.visit_within(from, range, |o| out.push(o));
        out.sort_unstable();
        out
    }

    /// Every node a transmission from `from` affects.
    pub fn links(&mut self, from: NodeId) -> &[Link] {
        if self.links[from as usize].is_none() {
            let computed = self.compute_links(from);
            self.links[from as usize] = Some(computed);
        }
        self.links[from as usize].as_deref().unwrap()
    }

    /// Sorted by arrival (delay, then node id): the order in which the
    /// frame's start, and its end, reach the receivers (world.rs delivers
    /// them as one wave each).
    fn compute_links(&self, from: NodeId) -> Box<[Link]> {
        let p = &self.params;
        let mut links: Vec<Link> = self
            .nodes_within(from, p.max_range())
            .into_iter()
            .filter_map(|node| {
                let d = self.distance(from, node);
                let power = p.path_loss.rx_power(d);
                let sensed = power >= p.cs_threshold;
                let interferes = match p.interference_range {
                    Some(r) => d <= r,
                    None => sensed,
                };
                (sensed || interferes).then(|| Link {
                    node,
                    power,
                    delay: Dur::from_secs_f64(d / SPEED_OF_LIGHT),
                    sensed,
                    interferes,
                })
            })
            .collect();
        links.sort_unstable_by_key(|l| (l.delay, l.node));
        links.into_boxed_slice()
    }

    /// Whether `b` can decode `a`'s frames (the topology static routing uses).
    pub fn in_tx_range(&self, a: NodeId, b: NodeId) -> bool {
        self.params.path_loss.rx_power(self.distance(a, b)) >= self.params.rx_threshold
    }

    /// Move a node: the spatial index and the cached links that involve it are updated.
    pub fn set_position(&mut self, n: NodeId, pos: (f64, f64)) {
        let old = Self::cell_of(self.cell, self.positions[n as usize]);
        let new = Self::cell_of(self.cell, pos);
        // Links of nodes near the old or the new position are stale.
        let range = self.params.max_range();
        let mut links = std::mem::take(&mut self.links);
        self.visit_within(n, range, |o| links[o as usize] = None);
        self.positions[n as usize] = pos;
        self.visit_within(n, range, |o| links[o as usize] = None);
        self.links = links;
        if old != new {
            if let Some(v) = self.grid.get_mut(&old) {
                v.retain(|&o| o != n);
            }
            self.grid.entry(new).or_default().push(n);
        }
        self.links[n as usize] = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Radio;

    #[test]
    fn links_reach_cs_range_only() {
        let pos: Vec<(f64, f64)> = (0..6).map(|i| (i as f64 * 200.0, 0.0)).collect();
        let mut ch = Channel::new(RadioParams::from_config(&Radio::default()), pos);
        let l: Vec<(NodeId, bool)> = ch.links(0).iter().map(|l| (l.node, l.sensed)).collect();
        // 200 and 400 m are within 550 m; 600 m is not.
        assert_eq!(l, vec![(1, true), (2, true)]); // nearest first
        assert!(ch.in_tx_range(0, 1));
        assert!(!ch.in_tx_range(0, 2));
        let d = ch.links(0)[0].delay;
        assert_eq!(d, Dur(667)); // 200 m / c
    }

    #[test]
    fn moving_a_node_updates_index_and_cached_links() {
        let pos = vec![(0.0, 0.0), (200.0, 0.0), (5000.0, 0.0)];
        let mut ch = Channel::new(RadioParams::from_config(&Radio::default()), pos);
        assert_eq!(ch.links(0).len(), 1);
        assert!(ch.links(2).is_empty());
        // Node 2 moves next to node 0 (several grid cells away from where it was).
        ch.set_position(2, (0.0, 300.0));
        let near: Vec<NodeId> = ch.links(0).iter().map(|l| l.node).collect();
        assert_eq!(near, vec![1, 2]);
        assert_eq!(ch.nodes_within(1, 550.0), vec![0, 2]);
        // And away again: every cache that held it forgets it.
        ch.set_position(2, (9000.0, 0.0));
        assert_eq!(ch.links(0).iter().map(|l| l.node).collect::<Vec<_>>(), vec![1]);
        assert!(ch.links(2).is_empty());
    }

    #[test]
    fn spatial_index_agrees_with_brute_force() {
        let mut s = crate::rng::Stream::new(3, 0, crate::rng::Purpose::Topology);
        let pos: Vec<(f64, f64)> = (0..300).map(|_| (s.unit() * 3000.0, s.unit() * 3000.0)).collect();
        let ch = Channel::new(RadioParams::from_config(&Radio::default()), pos.clone());
        for a in [0u32, 17, 150, 299] {
            let brute: Vec<NodeId> = (0..300u32).filter(|&b| b != a && ch.distance(a, b) <= 550.0).collect();
            assert_eq!(ch.nodes_within(a, 550.0), brute);
        }
    }
}
