//! The shortest-path oracle of seed 002 §7.1.1 (Eq. 1's t_i, after
//! Holland & Vaidya 1999): for every flow, how long the *true* topology's
//! shortest path between its ends was i hops while the flow was active,
//! whatever path the routing protocol used (that is the `paths` table).
//!
//! The true topology: two nodes are linked while their distance is at most
//! the radio's decode range (`tx_range`, from the thresholds or given).
//! Positions are piecewise linear (the movement rows), so every link's up
//! and down times are solved exactly (a quadratic per pair and piece) and
//! the hop counts change exactly when geometry says, not at the channel's
//! `step_m` updates. The oracle runs after the simulation, from the
//! run's `movement` rows: it adds no event and changes no result.
//!
//! Hop count 0 stands for "no path" (Holland & Vaidya's i = infinity, whose
//! T is 0). Cost: pairs with a moving node are solved (moving x all nodes);
//! pairs of standing nodes come from the channel's spatial index; after each
//! link change, a flow's distance arrays are recomputed (BFS) only when the
//! change can alter them (a new link across two or more BFS levels, or a
//! lost link that was a node's only one to the level above). Networks with
//! more than `MAX_MOVING_NODES` moving nodes get no oracle rows.

use crate::phy::Channel;
use crate::wire::NodeId;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// Above this many moving nodes the pairwise solution is skipped.
pub const MAX_MOVING_NODES: usize = 20_000;

/// One leg a node started (the `movement` results table's row): from
/// (x, y) at `time_s` toward (to_x, to_y) at `speed_mps`, stopping there.
/// Initial positions are rows at time 0 with speed 0.
pub use crate::results::MovementRow as MoveRow;

/// A stretch of constant velocity: from `t0` to `t1`, at `p` at `t0`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    t0: f64,
    t1: f64,
    p: (f64, f64),
    v: (f64, f64),
}

/// Each node's pieces over [0, end].
fn pieces(rows: &[MoveRow], n: usize, end: f64) -> Vec<Vec<Piece>> {
    let mut by_node: Vec<Vec<MoveRow>> = vec![Vec::new(); n];
    for r in rows {
        if (r.node as usize) < n {
            by_node[r.node as usize].push(*r);
        }
    }
    by_node
        .iter_mut()
        .map(|rs| {
            rs.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
            let mut out = Vec::new();
            for (k, r) in rs.iter().enumerate() {
                let t_next = rs.get(k + 1).map_or(end, |n| n.time_s.min(end));
                if r.time_s >= t_next {
                    continue;
                }
                let d = ((r.to_x - r.x).powi(2) + (r.to_y - r.y).powi(2)).sqrt();
                if r.speed_mps > 0.0 && d > 0.0 {
                    let arrive = r.time_s + d / r.speed_mps;
                    let v = ((r.to_x - r.x) / d * r.speed_mps, (r.to_y - r.y) / d * r.speed_mps);
                    out.push(Piece { t0: r.time_s, t1: arrive.min(t_next), p: (r.x, r.y), v });
                    if arrive < t_next {
                        out.push(Piece { t0: arrive, t1: t_next, p: (r.to_x, r.to_y), v: (0.0, 0.0) });
                    }
                } else {
                    out.push(Piece { t0: r.time_s, t1: t_next, p: (r.x, r.y), v: (0.0, 0.0) });
                }
            }
            out
        })
        .collect()
}

/// Whether `a` and `b` are linked at their first common instant, and the
/// link changes after it: (time, up).
fn crossings(pa: &[Piece], pb: &[Piece], range: f64) -> (bool, Vec<(f64, bool)>) {
    let r2 = range * range;
    let (mut i, mut j) = (0, 0);
    let mut state = None;
    let mut first = None;
    let mut out = Vec::new();
    while i < pa.len() && j < pb.len() {
        let (a, b) = (pa[i], pb[j]);
        let t0 = a.t0.max(b.t0);
        let t1 = a.t1.min(b.t1);
        if t1 > t0 || state.is_none() {
            let at = |p: &Piece| (p.p.0 + p.v.0 * (t0 - p.t0), p.p.1 + p.v.1 * (t0 - p.t0));
            let (qa, qb) = (at(&a), at(&b));
            let r = (qa.0 - qb.0, qa.1 - qb.1);
            let w = (a.v.0 - b.v.0, a.v.1 - b.v.1);
            let c = r.0 * r.0 + r.1 * r.1 - r2;
            let inside_now = c <= r2 * 1e-12;
            let s = *state.get_or_insert(inside_now);
            first.get_or_insert(inside_now);
            let mut cur = s;
            if cur != inside_now {
                out.push((t0, inside_now)); // float drift at a piece boundary
                cur = inside_now;
            }
            let qa2 = w.0 * w.0 + w.1 * w.1;
            if qa2 > 0.0 && t1 > t0 {
                let qb2 = 2.0 * (r.0 * w.0 + r.1 * w.1);
                let disc = qb2 * qb2 - 4.0 * qa2 * c;
                if disc > 0.0 {
                    let sq = disc.sqrt();
                    let (x1, x2) = ((-qb2 - sq) / (2.0 * qa2), (-qb2 + sq) / (2.0 * qa2));
                    for (tau, up) in [(x1, true), (x2, false)] {
                        if tau > 0.0 && t0 + tau < t1 && cur != up {
                            out.push((t0 + tau, up));
                            cur = up;
                        }
                    }
                }
            }
            state = Some(cur);
        }
        if a.t1 <= b.t1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    (first.unwrap_or(false), out)
}

/// A flow's active window and ends.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub start_s: f64,
    pub end_s: f64,
}

/// Seconds a flow's shortest path had `hops` hops (0: no path) while active.
#[derive(Clone, Debug, PartialEq)]
pub struct OracleRow {
    pub flow: u32,
    pub hops: u32,
    pub time_s: f64,
}

const UNREACHED: u32 = u32::MAX;

/// Hop distances from `root` over `adj`, written into `d` (reused: the
/// oracle runs thousands of these).
fn bfs(adj: &[Vec<NodeId>], root: NodeId, d: &mut Vec<u32>, q: &mut VecDeque<NodeId>) {
    d.clear();
    d.resize(adj.len(), UNREACHED);
    q.clear();
    q.push_back(root);
    d[root as usize] = 0;
    while let Some(u) = q.pop_front() {
        let du = d[u as usize] + 1;
        for &v in &adj[u as usize] {
            if d[v as usize] == UNREACHED {
                d[v as usize] = du;
                q.push_back(v);
            }
        }
    }
}

fn bfs_new(adj: &[Vec<NodeId>], root: NodeId) -> Vec<u32> {
    let mut d = Vec::new();
    bfs(adj, root, &mut d, &mut VecDeque::new());
    d
}

fn hops(d: u32) -> u32 {
    if d == UNREACHED {
        0
    } else {
        d
    }
}

/// Scratch space for repairing a distance array after one link change.
#[derive(Default)]
struct Repair {
    queue: VecDeque<NodeId>,
    /// Nodes whose distance grows with a lost link, in order of level.
    affected: Vec<NodeId>,
    /// `mark[v]`: v is in `affected` (all false between repairs).
    mark: Vec<bool>,
    heap: BinaryHeap<Reverse<(u32, NodeId)>>,
}

/// `d`, the hop distances from a root before the link a-b came up (`adj`
/// has it now), made those after: only the nodes that come closer are
/// visited. A full BFS per change was most of the oracle's time at 1,000
/// nodes (each change moves few distances); the arrays are the BFS's, exactly.
fn link_up(adj: &[Vec<NodeId>], d: &mut [u32], a: usize, b: usize, r: &mut Repair) {
    let (near, far) = if d[a] <= d[b] { (a, b) } else { (b, a) };
    if d[near] == UNREACHED || d[far] <= d[near] + 1 {
        return; // nobody's distance changes
    }
    d[far] = d[near] + 1;
    r.queue.clear();
    r.queue.push_back(far as NodeId);
    while let Some(u) = r.queue.pop_front() {
        let du = d[u as usize] + 1;
        for &v in &adj[u as usize] {
            if d[v as usize] > du {
                d[v as usize] = du;
                r.queue.push_back(v);
            }
        }
    }
}

/// `d`, the hop distances from a root before the link a-b went down
/// (`adj` no longer has it), made those after. The farther end's distance
/// grows only if the link was its last one to the level above; then so do
/// those of the nodes all of whose links up lead into that set, and only
/// they are solved again (from their unaffected neighbours, nearest first).
fn link_down(adj: &[Vec<NodeId>], d: &mut [u32], a: usize, b: usize, r: &mut Repair) {
    let (da, db) = (d[a], d[b]);
    if da == UNREACHED || db == UNREACHED || da.abs_diff(db) != 1 {
        return;
    }
    let far = if da > db { a } else { b };
    let parent = |v: usize, mark: &[bool]| adj[v].iter().any(|&x| !mark[x as usize] && d[x as usize] != UNREACHED && d[x as usize] + 1 == d[v]);
    if parent(far, &r.mark) {
        return;
    }
    // Level by level: when a node is looked at, every node of the level
    // above it that loses its distance is already marked.
    r.affected.clear();
    r.affected.push(far as NodeId);
    r.mark[far] = true;
    let mut i = 0;
    while i < r.affected.len() {
        let u = r.affected[i] as usize;
        i += 1;
        for &v in &adj[u] {
            let v = v as usize;
            if !r.mark[v] && d[v] == d[u] + 1 && !parent(v, &r.mark) {
                r.mark[v] = true;
                r.affected.push(v as NodeId);
            }
        }
    }
    // Their new distances: through the unaffected nodes (whose distances
    // stand), Dijkstra over the affected ones.
    r.heap.clear();
    for &v in &r.affected {
        let v = v as usize;
        let best = adj[v].iter().filter(|&&x| !r.mark[x as usize] && d[x as usize] != UNREACHED).map(|&x| d[x as usize] + 1).min();
        d[v] = UNREACHED;
        if let Some(b) = best {
            r.heap.push(Reverse((b, v as NodeId)));
        }
    }
    while let Some(Reverse((dv, v))) = r.heap.pop() {
        if dv >= d[v as usize] {
            continue;
        }
        d[v as usize] = dv;
        for &x in &adj[v as usize] {
            if r.mark[x as usize] && d[x as usize] > dv + 1 {
                r.heap.push(Reverse((dv + 1, x)));
            }
        }
    }
    for &v in &r.affected {
        r.mark[v as usize] = false;
    }
}

/// The oracle's rows for `flows`, from the movement rows (`moves`: every
/// node's rows when anything moves; none when nothing does), the channel
/// (its range, and the standing nodes' positions) and the run's end.
pub fn paths(moves: &[MoveRow], channel: &Channel, flows: &[Window], end: f64) -> Vec<OracleRow> {
    paths_and_start(moves, channel, flows, end).0
}

/// `paths`, and each flow's shortest-path length when it started (0: no
/// path; None when the oracle was skipped, see `MAX_MOVING_NODES`).
pub fn paths_and_start(moves: &[MoveRow], channel: &Channel, flows: &[Window], end: f64) -> (Vec<OracleRow>, Vec<Option<u32>>) {
    let n = channel.len();
    if flows.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let range = channel.params.tx_range;
    let mut moving = vec![false; n];
    for r in moves {
        if r.speed_mps > 0.0 && (r.to_x != r.x || r.to_y != r.y) && (r.node as usize) < n {
            moving[r.node as usize] = true;
        }
    }
    let movers: Vec<usize> = (0..n).filter(|&i| moving[i]).collect();
    let mut totals: Vec<BTreeMap<u32, f64>> = vec![BTreeMap::new(); flows.len()];
    // Standing pairs: the channel's own rule (power against RXThresh).
    let standing = |a: NodeId| -> Vec<NodeId> {
        channel.nodes_within(a, range * 1.000001).into_iter().filter(|&b| b != a && !moving[b as usize] && channel.in_tx_range(a, b)).collect()
    };
    if movers.is_empty() {
        let adj: Vec<Vec<NodeId>> = (0..n as NodeId).map(standing).collect();
        let mut start = Vec::with_capacity(flows.len());
        for (k, f) in flows.iter().enumerate() {
            let d = bfs_new(&adj, f.src);
            let h = hops(d[f.dst as usize]);
            start.push(Some(h));
            let dt = f.end_s.min(end) - f.start_s;
            if dt > 0.0 {
                *totals[k].entry(h).or_insert(0.0) += dt;
            }
        }
        return (rows(flows, totals), start);
    }
    if movers.len() > MAX_MOVING_NODES {
        return (Vec::new(), vec![None; flows.len()]);
    }
    let ps = pieces(moves, n, end);
    let mut adj: Vec<Vec<NodeId>> = (0..n as NodeId).map(|a| if moving[a as usize] { Vec::new() } else { standing(a) }).collect();
    let mut events: Vec<(f64, NodeId, NodeId, bool)> = Vec::new();
    for &a in &movers {
        for b in 0..n {
            if b == a || (moving[b] && b < a) {
                continue; // each moving pair once
            }
            let (up0, ch) = crossings(&ps[a], &ps[b], range);
            if up0 {
                adj[a].push(b as NodeId);
                adj[b].push(a as NodeId);
            }
            events.extend(ch.into_iter().map(|(t, up)| (t, a as NodeId, b as NodeId, up)));
        }
    }
    events.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    // Hop distances from each flow's source (the destination's own were
    // kept once too, but the rows read only these).
    let mut dist: Vec<Vec<u32>> = flows.iter().map(|f| bfs_new(&adj, f.src)).collect();
    let mut repair = Repair { mark: vec![false; n], ..Repair::default() };
    let mut t_prev = 0.0;
    let mut start: Vec<Option<u32>> = vec![None; flows.len()];
    // Over [t0, t1) the topology is fixed: the hop counts of `dist` hold.
    let accumulate = |totals: &mut Vec<BTreeMap<u32, f64>>, start: &mut Vec<Option<u32>>, dist: &Vec<Vec<u32>>, t0: f64, t1: f64| {
        for (k, f) in flows.iter().enumerate() {
            if start[k].is_none() && f.start_s < t1 {
                start[k] = Some(hops(dist[k][f.dst as usize]));
            }
            let (lo, hi) = (t0.max(f.start_s), t1.min(f.end_s));
            if hi > lo {
                *totals[k].entry(hops(dist[k][f.dst as usize])).or_insert(0.0) += hi - lo;
            }
        }
    };
    for (t, a, b, up) in events {
        accumulate(&mut totals, &mut start, &dist, t_prev, t);
        t_prev = t;
        let (ua, ub) = (a as usize, b as usize);
        if up {
            adj[ua].push(b);
            adj[ub].push(a);
        } else {
            adj[ua].retain(|&x| x != b);
            adj[ub].retain(|&x| x != a);
        }
        for d in dist.iter_mut() {
            if up {
                link_up(&adj, d, ua, ub, &mut repair);
            } else {
                link_down(&adj, d, ua, ub, &mut repair);
            }
        }
    }
    accumulate(&mut totals, &mut start, &dist, t_prev, end);
    // A flow starting at or after the end: the topology as the run left it.
    for (k, f) in flows.iter().enumerate() {
        start[k].get_or_insert(hops(dist[k][f.dst as usize]));
    }
    (rows(flows, totals), start)
}

fn rows(flows: &[Window], totals: Vec<BTreeMap<u32, f64>>) -> Vec<OracleRow> {
    let mut out = Vec::new();
    for (f, t) in flows.iter().zip(totals) {
        for (hops, time_s) in t {
            out.push(OracleRow { flow: f.flow, hops, time_s });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(node: u32, t: f64, x: f64, to_x: f64, v: f64) -> MoveRow {
        MoveRow { node, time_s: t, x, y: 0.0, to_x, to_y: 0.0, speed_mps: v }
    }

    #[test]
    fn a_pair_links_and_unlinks_when_geometry_says() {
        // b passes a at 10 m/s along the x axis, from -1000 m: in range
        // (250 m) from t = 75 s to t = 125 s.
        let pa = pieces(&[row(0, 0.0, 0.0, 0.0, 0.0)], 1, 300.0).remove(0);
        let pb = pieces(&[row(0, 0.0, -1000.0, 1000.0, 10.0)], 1, 300.0).remove(0);
        let (up0, ch) = crossings(&pa, &pb, 250.0);
        assert!(!up0);
        assert_eq!(ch.len(), 2, "{ch:?}");
        assert!((ch[0].0 - 75.0).abs() < 1e-9 && ch[0].1);
        assert!((ch[1].0 - 125.0).abs() < 1e-9 && !ch[1].1);
    }
    #[test]
    fn repaired_distances_equal_a_fresh_bfs() {
        // Random links come and go in a sparse graph (several components,
        // long chains): after each change the repaired arrays must be the
        // BFS's, from every root.
        let mut s = crate::rng::Stream::new(9, 0, crate::rng::Purpose::Topology);
        let n = 60;
        let mut adj: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut linked = std::collections::BTreeSet::new();
        let roots = [0usize, 7, 33];
        let mut dist: Vec<Vec<u32>> = roots.iter().map(|&r| bfs_new(&adj, r as NodeId)).collect();
        let mut repair = Repair { mark: vec![false; n], ..Repair::default() };
        for step in 0..20_000 {
            let a = (s.unit() * n as f64) as usize;
            let b = (s.unit() * n as f64) as usize;
            if a == b {
                continue;
            }
            let key = (a.min(b), a.max(b));
            // Keep about 1.5 links a node: add more often while below.
            let up = !linked.contains(&key) && (linked.len() < 90 || s.unit() < 0.3);
            if up {
                linked.insert(key);
                adj[a].push(b as NodeId);
                adj[b].push(a as NodeId);
            } else if linked.remove(&key) {
                adj[a].retain(|&x| x != b as NodeId);
                adj[b].retain(|&x| x != a as NodeId);
            } else {
                continue;
            }
            for (d, &r) in dist.iter_mut().zip(&roots) {
                if up {
                    link_up(&adj, d, a, b, &mut repair);
                } else {
                    link_down(&adj, d, a, b, &mut repair);
                }
                assert_eq!(*d, bfs_new(&adj, r as NodeId), "root {r} step {step}");
            }
            assert!(repair.mark.iter().all(|&m| !m));
        }
    }
}

