//! The shared medium: node positions, a uniform-grid spatial index, and for
//! each transmitter the list of nodes its signal reaches (cached until a
//! node moves). Finding receivers never scans every node.

use super::propagation::{RadioParams, SPEED_OF_LIGHT};
use crate::fasthash::FastMap;
use crate::rng::{Purpose, Stream};
use crate::time::Dur;
use crate::wire::NodeId;

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
    /// Log-normal shadowing's draws (`params.shadow_std_db` set), else None.
    shadow: Option<Box<Shadow>>,
}

/// The state of log-normal shadowing: a stream per receiving node, made on
/// its first reception, and the receptions of the frame being launched.
struct Shadow {
    seed: u64,
    /// sigma in natural-log units of power: 10^(sigma z / 10) = exp(scale z).
    scale: f64,
    /// Boxed: a node that never receives costs a pointer, not a ChaCha state.
    streams: Vec<Option<Box<Stream>>>,
    drawn: Vec<Link>,
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

/// With shadowing, the link from a transmitter at `a` to `node` at `b`
/// (within `max_range`, the shadowing cutoff) as a candidate: its mean
/// power, and `interferes` when `interference_range` alone says so. Each
/// frame draws the power it arrives with (`Channel::receptions`).
#[inline]
fn candidate_between(p: &RadioParams, a: (f64, f64), node: NodeId, b: (f64, f64)) -> Link {
    let d = (a.0 - b.0).hypot(a.1 - b.1);
    let power = p.path_loss.rx_power(d);
    let interferes = p.interference_range.is_some_and(|r| d <= r);
    Link { node, power, delay: Dur::from_secs_f64(d / SPEED_OF_LIGHT), sensed: false, interferes }
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
    /// `seed` seeds the shadowing draws (unused by the deterministic models).
    pub fn new(params: RadioParams, positions: Vec<(f64, f64)>, seed: u64) -> Channel {
        // Cells as wide as the farthest reach: a query looks at 3x3 cells.
        let cell = params.max_range().max(1.0);
        let mut grid = Grid::default();
        for (i, &p) in positions.iter().enumerate() {
            grid.entry(Self::cell_of(cell, p)).or_default().push(i as NodeId);
        }
        let n = positions.len();
        let shadow = params.shadow_std_db.map(|sigma| {
            Box::new(Shadow { seed, scale: sigma * std::f64::consts::LN_10 / 10.0, streams: std::iter::repeat_with(|| None).take(n).collect(), drawn: Vec::new() })
        });
        Channel { params, positions, cell, grid, links: vec![Vec::new(); n], cache: vec![Cache::Stale; n], moved: vec![Vec::new(); n], shadow }
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

    /// The receptions of a frame `from` sends now: `links(from)` for the
    /// deterministic models. With shadowing each candidate link draws its
    /// power from its receiver's own stream (`Purpose::Shadowing`), in
    /// arrival order, and is kept if that power is sensed or the link
    /// interferes (ns-2 shadowing.cc Shadowing::Pr, drawn per reception;
    /// wireless-phy.cc WirelessPhy::sendUp drops what is below CSThresh).
    #[inline]
    pub fn receptions(&mut self, from: NodeId) -> &[Link] {
        if self.shadow.is_none() {
            return self.links(from);
        }
        self.links(from);
        let Channel { params, links, shadow, .. } = self;
        let Shadow { seed, scale, streams, drawn } = &mut **shadow.as_mut().expect("checked above");
        drawn.clear();
        for l in &links[from as usize] {
            let s = streams[l.node as usize].get_or_insert_with(|| Box::new(Stream::new(*seed, l.node, Purpose::Shadowing)));
            // ns-2 shadowing.cc Shadowing::Pr: Pr0 10^((avg_db + N(0, std_db_)) / 10).
            let power = l.power * (*scale * s.normal()).exp();
            let sensed = power >= params.cs_threshold;
            let interferes = if params.interference_range.is_some() { l.interferes } else { sensed };
            if sensed || interferes {
                drawn.push(Link { power, sensed, interferes, ..*l });
            }
        }
        drawn
    }

    /// Sorted by arrival (delay, then node id): the order in which the
    /// frame's start, and its end, reach the receivers (world.rs delivers
    /// them as one wave each).
    fn compute_links(&self, from: NodeId, out: &mut Vec<Link>) {
        out.clear();
        let p = &self.params;
        let a = self.positions[from as usize];
        if self.shadow.is_some() {
            self.visit_within(from, p.max_range(), |node| out.push(candidate_between(p, a, node, self.positions[node as usize])));
        } else {
            self.visit_within(from, p.max_range(), |node| out.extend(link_between(p, a, node, self.positions[node as usize])));
        }
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
        let Channel { params, positions, links, moved, shadow, .. } = self;
        let shadowing = shadow.is_some();
        let (list, moved) = (&mut links[i], &mut moved[i]);
        moved.sort_unstable();
        moved.dedup();
        let a = positions[i];
        for &m in moved.iter() {
            if let Some(k) = list.iter().position(|l| l.node == m) {
                list.remove(k);
            }
            let b = positions[m as usize];
            let link = match within_pts(a, b, range, r2) {
                false => None,
                true if shadowing => Some(candidate_between(params, a, m, b)),
                true => link_between(params, a, m, b),
            };
            if let Some(l) = link {
                let k = list.partition_point(|x| arrival(x) < arrival(&l));
                list.insert(k, l);
            }
        }
        moved.clear();
    }

    /// Whether `b` can decode `a`'s frames (the topology static routing uses;
    /// with shadowing, at the mean power).
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
        let mut ch = Channel::new(RadioParams::from_config(&Radio::default()), pos, 0);
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
        let mut ch = Channel::new(RadioParams::from_config(&Radio::default()), pos, 0);
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
        let ch = Channel::new(RadioParams::from_config(&Radio::default()), pos.clone(), 0);
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
        // With shadowing, the lists of candidates out to the cutoff (1300 m here).
        let shadowing = Radio { propagation: crate::phy::config::Propagation::Shadowing, shadowing_path_loss_exponent: 4.0, tx_range_m: Some(250.0), cs_range_m: Some(550.0), ..Radio::default() };
        let radios = [None, Some(300.0), Some(900.0)].map(|interference| Radio { interference_range_m: interference, ..Radio::default() });
        for radio in radios.into_iter().chain([shadowing.clone(), Radio { interference_range_m: Some(300.0), ..shadowing }]) {
            let n = 120u32;
            let pos: Vec<(f64, f64)> = (0..n).map(|_| (s.unit() * 2500.0, s.unit() * 2500.0)).collect();
            let mut ch = Channel::new(RadioParams::from_config(&radio), pos, 0);
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

    fn shadowing(sigma: f64) -> Radio {
        Radio { propagation: crate::phy::config::Propagation::Shadowing, shadowing_std_db: sigma, ..Radio::default() }
    }

    /// The share of `frames` receptions at `node` from node 0 that decode
    /// (drawn power >= RX threshold) and that are sensed.
    fn shares(ch: &mut Channel, node: NodeId, frames: u32) -> (f64, f64) {
        let (mut rx, mut cs) = (0, 0);
        let th = ch.params.rx_threshold;
        for _ in 0..frames {
            if let Some(l) = ch.receptions(0).iter().find(|l| l.node == node) {
                rx += (l.power >= th) as u32;
                cs += l.sensed as u32;
            }
        }
        (rx as f64 / frames as f64, cs as f64 / frames as f64)
    }

    #[test]
    fn without_deviation_shadowing_receptions_are_the_deterministic_links() {
        // sigma = 0 with beta 2 from 1 m is free space: the same receivers,
        // the same flags, the powers to rounding, and no draw.
        let pos: Vec<(f64, f64)> = (0..12).map(|i| (i as f64 * 400.0, 0.0)).collect();
        let free = Radio { propagation: crate::phy::config::Propagation::FreeSpace, ..Radio::default() };
        let mut fs = Channel::new(RadioParams::from_config(&free), pos.clone(), 0);
        let mut sh = Channel::new(RadioParams::from_config(&shadowing(0.0)), pos, 0);
        assert!(sh.shadow.is_none());
        let a: Vec<Link> = fs.receptions(0).to_vec();
        let b: Vec<Link> = sh.receptions(0).to_vec();
        assert_eq!(a.len(), 8, "free space senses 1.56e-11 W out to 3507 m");
        assert_eq!(a.iter().map(|l| (l.node, l.delay, l.sensed, l.interferes)).collect::<Vec<_>>(), b.iter().map(|l| (l.node, l.delay, l.sensed, l.interferes)).collect::<Vec<_>>());
        for (x, y) in a.iter().zip(&b) {
            assert!(((x.power - y.power) / x.power).abs() < 1e-12);
        }
    }

    #[test]
    fn shadowed_delivery_follows_the_gaussian_tail() {
        // ns-2's defaults (beta 2, sigma 4 dB, d0 1 m) with the thresholds
        // of ns-2's 250 m / 550 m examples (mean ranges 725 m and 3507 m in
        // free space). At the mean range half the frames decode; a decade of
        // sigma / (10 beta) farther, Q(1); beyond the mean CS range a
        // reception is sensed with the Gaussian tail probability too.
        let params = RadioParams::from_config(&shadowing(4.0));
        let (r, c) = (params.tx_range, params.cs_range);
        let k = 10f64.powf(4.0 / 20.0); // one sigma in distance
        let pos = vec![(0.0, 0.0), (r, 0.0), (r * k, 0.0), (r / k, 0.0), (c * k * k, 0.0)];
        let mut ch = Channel::new(params, pos, 42);
        let n = 40_000;
        // Binomial standard error at most 0.0025: 0.01 is 4 of them.
        for (node, want) in [(1, 0.5), (2, super::super::propagation::gaussian_tail(1.0)), (3, 1.0 - super::super::propagation::gaussian_tail(1.0))] {
            let (rx, _) = shares(&mut ch, node, n);
            assert!((rx - want).abs() < 0.01, "node {node}: {rx} decoded, want {want}");
        }
        let (rx, cs) = shares(&mut ch, 4, n);
        let want = super::super::propagation::gaussian_tail(2.0);
        assert!((cs - want).abs() < 0.005 && rx == 0.0, "sensed {cs}, want {want}");
    }

    #[test]
    fn shadowing_draws_are_per_seed_and_per_receiver() {
        let pos = vec![(0.0, 0.0), (300.0, 0.0), (300.0, 10.0)];
        let draws = |seed: u64| {
            let mut ch = Channel::new(RadioParams::from_config(&shadowing(4.0)), pos.clone(), seed);
            (0..50).flat_map(|_| ch.receptions(0).iter().map(|l| (l.node, l.power.to_bits())).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7), "same seed, same powers");
        assert_ne!(draws(7), draws(8));
        // A receiver's stream is its own: node 1's powers do not depend on
        // whether node 2 is there to draw.
        let mut two = Channel::new(RadioParams::from_config(&shadowing(4.0)), pos[..2].to_vec(), 7);
        let alone: Vec<u64> = (0..50).map(|_| two.receptions(0)[0].power.to_bits()).collect();
        let with: Vec<u64> = draws(7).into_iter().filter(|l| l.0 == 1).map(|l| l.1).collect();
        assert_eq!(alone, with);
    }
}
