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
    /// Each node's links, as `cache[n]` says. A stale list keeps its
    /// allocation for the next rebuild.
    links: Vec<Vec<Link>>,
    cache: Vec<Cache>,
    /// For a `Cache::Moved` list: the nodes that moved near it since it was
    /// right (repeats allowed).
    moved: Vec<Vec<NodeId>>,
}

/// What a node's cached link list is worth.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cache {
    /// Right as it stands.
    Fresh,
    /// Right but for the entries of the nodes in `moved`: patched on read.
    Moved,
    /// To be rebuilt (the node itself moved, or too many others did).
    Stale,
}

/// A list is patched while fewer nodes than half its length moved near
/// it; beyond that, rebuilt. Patching one node (a search, a distance, an
/// insertion) costs a few times what one link of a rebuild does, but most
/// reads come after a few of ~35 neighbours moved and not the owner: in
/// rwp1000-aodv (40 s) 57 % of the rebuilds were of such lists, with 8 of
/// 35 nodes moved on average; at 150 nodes 74 %. Half beat a quarter and
/// the whole length in a replay of the channel calls.
fn patch_limit(len: usize) -> usize {
    len / 2
}

/// Whether `a` and `b` are at most `range` apart, decided exactly as
/// `a.hypot(b) <= range` (glibc `hypot`) decides: the squared distance
/// (rounding error < 3e-16 relative) settles every pair outside a shell of
/// 1e-9 relative width around the boundary, and `hypot` decides inside it.
/// `r2` is `range * range`.
#[inline]
fn within_pts(a: (f64, f64), b: (f64, f64), range: f64, r2: f64) -> bool {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    let d2 = dx * dx + dy * dy;
    if d2 < r2 * (1.0 - 1e-9) {
        true
    } else if d2 > r2 * (1.0 + 1e-9) {
        false
    } else {
        dx.hypot(dy) <= range
    }
}

/// The link from a transmitter at `a` to `node` at `b` (which must be
/// within `max_range`), or `None` if the signal neither is sensed nor
/// interferes there. Uses the exact (glibc `hypot`) distance.
#[inline]
fn link_between(p: &RadioParams, a: (f64, f64), node: NodeId, b: (f64, f64)) -> Option<Link> {
    let d = (a.0 - b.0).hypot(a.1 - b.1);
    let power = p.path_loss.rx_power(d);
    let sensed = power >= p.cs_threshold;
    let interferes = match p.interference_range {
        Some(r) => d <= r,
        None => sensed,
    };
    (sensed || interferes).then(|| Link { node, power, delay: Dur::from_secs_f64(d / SPEED_OF_LIGHT), sensed, interferes })
}

/// The order of a transmitter's links: arrival (delay, then node id).
#[inline]
fn arrival(l: &Link) -> (Dur, NodeId) {
    (l.delay, l.node)
}

/// The square of grid cells `reach` cells around cell `c`.
#[derive(Clone, Copy)]
struct Block {
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
}

impl Block {
    fn around((cx, cy): (i64, i64), reach: i64) -> Block {
        Block { x0: cx.saturating_sub(reach), x1: cx.saturating_add(reach), y0: cy.saturating_sub(reach), y1: cy.saturating_add(reach) }
    }
    fn contains(&self, (x, y): (i64, i64)) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
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
        Channel { params, positions, cell, grid, links: vec![Vec::new(); n], cache: vec![Cache::Stale; n], moved: vec![Vec::new(); n] }
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

    /// How many cells around a node's own a query out to `range` looks at.
    fn reach(&self, range: f64) -> i64 {
        (range / self.cell).ceil().min(1e9) as i64
    }

    /// Whether a block of cells is better scanned by the occupied cells:
    /// a range far beyond the cell size (tx_range_m = 1e9 with the default
    /// carrier-sense threshold) would visit ~1e13 empty cells, and the
    /// occupied ones are never more than the nodes.
    fn scan_occupied(grid: &Grid, reach: i64) -> bool {
        let span = (2 * reach + 1) as f64;
        span * span > grid.len() as f64
    }

    /// Call `f` with the nodes of every cell in `b` that `skip` does not hold.
    fn visit_block(grid: &Grid, b: Block, skip: Option<Block>, f: &mut impl FnMut(NodeId)) {
        for gx in b.x0..=b.x1 {
            for gy in b.y0..=b.y1 {
                if skip.is_some_and(|s| s.contains((gx, gy))) {
                    continue;
                }
                if let Some(v) = grid.get(&(gx, gy)) {
                    v.iter().for_each(|&o| f(o));
                }
            }
        }
    }

    /// Call `f` for every node within `range` of `from` (excluding it), in
    /// no particular order.
    fn visit_within(&self, from: NodeId, range: f64, mut f: impl FnMut(NodeId)) {
        let p = self.positions[from as usize];
        let reach = self.reach(range);
        let r2 = range * range;
        let mut visit = |o: NodeId| {
            if o != from && within_pts(p, self.positions[o as usize], range, r2) {
                f(o);
            }
        };
        if Self::scan_occupied(&self.grid, reach) {
            self.grid.values().flatten().for_each(|&o| visit(o));
        } else {
            Self::visit_block(&self.grid, Block::around(Self::cell_of(self.cell, p), reach), None, &mut visit);
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
        let i = from as usize;
        match self.cache[i] {
            Cache::Fresh => {}
            Cache::Stale => {
                let mut v = std::mem::take(&mut self.links[i]);
                self.compute_links(from, &mut v);
                self.links[i] = v;
            }
            Cache::Moved => self.patch_links(from),
        }
        self.cache[i] = Cache::Fresh;
        &self.links[i]
    }

    /// Sorted by arrival (delay, then node id): the order in which the
    /// frame's start, and its end, reach the receivers (world.rs delivers
    /// them as one wave each).
    fn compute_links(&self, from: NodeId, out: &mut Vec<Link>) {
        out.clear();
        let p = &self.params;
        let a = self.positions[from as usize];
        self.visit_within(from, p.max_range(), |node| out.extend(link_between(p, a, node, self.positions[node as usize])));
        // (delay, node) is unique per link: the order is total, as stable.
        out.sort_unstable_by_key(arrival);
    }

    /// Bring a `Cache::Moved` list up to date: each moved node's entry goes,
    /// and comes back at its place in arrival order if the node is in range
    /// now. Every node whose entry changed since the list was right is in
    /// `moved` (it was in range before or after one of its moves), so the
    /// list is the one a rebuild makes.
    fn patch_links(&mut self, from: NodeId) {
        let i = from as usize;
        let range = self.params.max_range();
        let r2 = range * range;
        let Channel { params, positions, links, moved, .. } = self;
        let (list, moved) = (&mut links[i], &mut moved[i]);
        moved.sort_unstable();
        moved.dedup();
        let a = positions[i];
        for &m in moved.iter() {
            if let Some(k) = list.iter().position(|l| l.node == m) {
                list.remove(k);
            }
            let b = positions[m as usize];
            if let Some(l) = within_pts(a, b, range, r2).then(|| link_between(params, a, m, b)).flatten() {
                let k = list.partition_point(|x| arrival(x) < arrival(&l));
                list.insert(k, l);
            }
        }
        moved.clear();
    }

    /// Whether `b` can decode `a`'s frames (the topology static routing uses).
    pub fn in_tx_range(&self, a: NodeId, b: NodeId) -> bool {
        self.params.path_loss.rx_power(self.distance(a, b)) >= self.params.rx_threshold
    }

    /// Move a node: the spatial index and the cached links that involve it are updated.
    pub fn set_position(&mut self, n: NodeId, pos: (f64, f64)) {
        let prev = self.positions[n as usize];
        let (old, new) = (Self::cell_of(self.cell, prev), Self::cell_of(self.cell, pos));
        self.positions[n as usize] = pos;
        let range = self.params.max_range();
        let (reach, r2) = (self.reach(range), range * range);
        let Channel { positions, grid, links, cache, moved, .. } = self;
        // Lists near the old or the new position must learn of the move.
        // One pass over the cells around both, and no distance for lists
        // already stale. (Editing the lists right here was no faster: many
        // are not read before their owner moves.)
        let mut stale = |o: NodeId| {
            let i = o as usize;
            if o == n || cache[i] == Cache::Stale || !(within_pts(positions[i], prev, range, r2) || within_pts(positions[i], pos, range, r2)) {
                return;
            }
            if moved[i].len() >= patch_limit(links[i].len()) {
                cache[i] = Cache::Stale;
                moved[i].clear();
            } else {
                cache[i] = Cache::Moved;
                moved[i].push(n);
            }
        };
        if Self::scan_occupied(grid, reach) {
            grid.values().flatten().for_each(|&o| stale(o));
        } else {
            let (bo, bn) = (Block::around(old, reach), Block::around(new, reach));
            Self::visit_block(grid, bo, None, &mut stale);
            if old != new {
                Self::visit_block(grid, bn, Some(bo), &mut stale);
            }
        }
        if old != new {
            if let Some(v) = grid.get_mut(&old) {
                v.retain(|&o| o != n);
            }
            grid.entry(new).or_default().push(n);
        }
        cache[n as usize] = Cache::Stale;
        moved[n as usize].clear();
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
    #[test]
    fn cached_links_equal_rebuilt_ones() {
        // Cached lists, across moves near them, must be the lists a rebuild
        // makes, for every radio shape (interference range or not).
        let mut s = crate::rng::Stream::new(5, 0, crate::rng::Purpose::Topology);
        for interference in [None, Some(300.0), Some(900.0)] {
            let radio = Radio { interference_range_m: interference, ..Radio::default() };
            let n = 120u32;
            let pos: Vec<(f64, f64)> = (0..n).map(|_| (s.unit() * 2500.0, s.unit() * 2500.0)).collect();
            let mut ch = Channel::new(RadioParams::from_config(&radio), pos);
            for step in 0..4000 {
                let a = (s.unit() * n as f64) as NodeId;
                let (x, y) = ch.position(a);
                // Mostly short steps, sometimes a jump across the area.
                let to = if step % 50 == 0 { (s.unit() * 2500.0, s.unit() * 2500.0) } else { (x + (s.unit() - 0.5) * 40.0, y + (s.unit() - 0.5) * 40.0) };
                ch.set_position(a, to);
                let b = (s.unit() * n as f64) as NodeId;
                ch.links(b);
                if step % 97 == 0 {
                    for c in 0..n {
                        let kept: Vec<Link> = ch.links(c).to_vec();
                        let mut fresh = Vec::new();
                        ch.compute_links(c, &mut fresh);
                        let key = |l: &Link| (l.node, l.delay, l.power.to_bits(), l.sensed, l.interferes);
                        assert_eq!(kept.iter().map(key).collect::<Vec<_>>(), fresh.iter().map(key).collect::<Vec<_>>(), "node {c} step {step}");
                    }
                }
            }
        }
    }
}

