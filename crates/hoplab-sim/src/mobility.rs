//! Movement: each node follows its legs (move toward (x, y) at v m/s from
//! time t), scripted in the scenario or made one at a time by a random model
//! (`waypoint`, `walk`, `direction`) when the node arrives. Positions change in steps of `step_m`
//! metres, and only the moving node's neighbourhood in the channel is
//! refreshed, so mobility costs nothing for nodes that stand still. Every
//! leg is recorded as it starts (the `movement` table).

pub mod area;
pub mod config;
pub mod direction;
pub mod walk;
pub mod waypoint;

use crate::rng::{Purpose, Stream};
use config::{Mobility, MobilityModel, Topology};
use crate::time::{Dur, SimTime};
use waypoint::{Start, Waypoint};

/// A random model: makes a node's legs one at a time, each a straight line
/// at a constant speed.
pub trait Model: std::fmt::Debug + Send {
    /// The leg of a node that has just arrived at `from`: seconds it waits
    /// there first (a pause), destination, speed.
    fn leg_after(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64);
    /// The first leg, from the initial position (by default as after an arrival).
    fn first_leg(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64) {
        self.leg_after(from)
    }
}

impl Model for Waypoint {
    fn leg_after(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64) {
        let (to, v) = self.next_leg(from);
        (self.pause_s, to, v)
    }
}

#[derive(Clone, Debug)]
struct Leg {
    at: SimTime,
    to: (f64, f64),
    speed: f64,
}

/// The legs of one node and where it is along them.
#[derive(Debug, Default)]
pub struct Mover {
    legs: Vec<Leg>,
    /// Index of the next leg to start.
    next: usize,
    /// The leg under way: start time, start position, leg.
    cur: Option<(SimTime, (f64, f64), Leg)>,
    step_m: f64,
    /// A random model that makes the next leg when the node arrives.
    model: Option<Box<dyn Model>>,
    /// When a generated leg ends, exactly (ns): its destination is then the
    /// position, and the next leg starts a pause later.
    arrive: Option<SimTime>,
    /// Every leg as it started (the `movement` table).
    pub started: Vec<LegStart>,
    /// Where the node was at time 0.
    pub origin: (f64, f64),
}

/// A leg as it started: at `at`, from `from` toward `to` at `speed` m/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegStart {
    pub at: SimTime,
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub speed: f64,
}

/// `a + s` seconds, saturating instead of overflowing (a leg at 1e-300 m/s).
fn after(a: SimTime, s: f64) -> SimTime {
    SimTime(a.0.saturating_add(Dur::from_secs_f64(s).0))
}

impl Mover {
    /// One mover per node; nodes without legs get an idle mover.
    pub fn from_scenario(m: &Mobility, nodes: usize) -> Vec<Mover> {
        let mut v: Vec<Mover> = (0..nodes).map(|_| Mover { step_m: m.step_m, ..Mover::default() }).collect();
        for l in &m.legs {
            v[l.node as usize].legs.push(Leg { at: SimTime::from_secs_f64(l.at), to: (l.to[0], l.to[1]), speed: l.speed });
        }
        v
    }

    /// One mover per node for a world: scripted legs, or a random model
    /// with its stream from `seed`. A steady-state start rewrites `pos`
    /// (the nodes' initial positions) with stationary ones.
    pub fn for_world(m: &Mobility, topology: &Topology, pos: &mut [(f64, f64)], seed: u64) -> Vec<Mover> {
        let mut movers = match (m.model, topology) {
            (MobilityModel::Waypoint, Topology::Random { width, height, .. }) => Self::waypoints(m, (*width, *height), pos, seed),
            (MobilityModel::Walk | MobilityModel::Direction, Topology::Random { width, height, .. }) => {
                Self::walks(m, area::Area { width: *width, height: *height }, pos, seed)
            }
            _ => Mover::from_scenario(m, pos.len()),
        };
        for (mv, p) in movers.iter_mut().zip(pos.iter()) {
            mv.origin = *p;
        }
        movers
    }

    fn waypoints(m: &Mobility, (width, height): (f64, f64), pos: &mut [(f64, f64)], seed: u64) -> Vec<Mover> {
        (0..pos.len())
            .map(|i| {
                let rng = Stream::new(seed, i as u32, Purpose::Mobility);
                let mut w = Waypoint::new(width, height, m.speed_min_mps, m.speed_max_mps, m.pause_s, rng);
                // ns-2 setdest: a node first pauses where it stands (unless the
                // pause is 0), then heads for its first waypoint.
                let (at, to, speed) = if m.steady_state {
                    match w.stationary_start() {
                        Start::Paused { pos: p, for_s } => {
                            pos[i] = p;
                            let (to, v) = w.next_leg(p);
                            (for_s, to, v)
                        }
                        Start::Moving { pos: p, to, speed } => {
                            pos[i] = p;
                            (0.0, to, speed)
                        }
                    }
                } else {
                    let (to, v) = w.next_leg(pos[i]);
                    (m.pause_s, to, v)
                };
                let first = Leg { at: SimTime::from_secs_f64(at), to, speed };
                Mover { legs: vec![first], step_m: m.step_m, model: Some(Box::new(w)), ..Mover::default() }
            })
            .collect()
    }

    /// Random walk or random direction: every node starts its first leg
    /// from its initial (topology) position at once.
    fn walks(m: &Mobility, area: area::Area, pos: &[(f64, f64)], seed: u64) -> Vec<Mover> {
        pos.iter()
            .enumerate()
            .map(|(i, &p)| {
                let rng = Stream::new(seed, i as u32, Purpose::Mobility);
                let mut model: Box<dyn Model> = match m.model {
                    MobilityModel::Walk => Box::new(walk::Walk::new(area, m.speed_min_mps, m.speed_max_mps, m.walk_interval_s, rng)),
                    _ => Box::new(direction::Direction::new(area, m.speed_min_mps, m.speed_max_mps, m.pause_s, rng)),
                };
                let (at, to, speed) = model.first_leg(p);
                Mover { legs: vec![Leg { at: SimTime::from_secs_f64(at), to, speed }], step_m: m.step_m, model: Some(model), ..Mover::default() }
            })
            .collect()
    }

    /// When this node's position should next be updated.
    pub fn next_update(&self, now: SimTime) -> Option<SimTime> {
        let leg_start = self.legs.get(self.next).map(|l| l.at);
        let step = self.cur.as_ref().map(|(t0, from, leg)| {
            let total = dist(*from, leg.to) / leg.speed;
            let moved = now.since(*t0).as_secs_f64();
            let next = ((moved * leg.speed / self.step_m).floor() + 1.0) * self.step_m / leg.speed;
            // Rounding may land on `now` itself; never schedule the past.
            match self.arrive {
                Some(a) => after(*t0, next).min(a).max(SimTime(now.0 + 1)),
                None => (*t0 + crate::time::Dur::from_secs_f64(next.min(total))).max(SimTime(now.0 + 1)),
            }
        });
        match (leg_start, step) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The position at `now`, starting or finishing legs as due.
    pub fn advance(&mut self, now: SimTime, pos: (f64, f64)) -> (f64, f64) {
        let mut p = pos;
        if let Some((t0, from, leg)) = &self.cur {
            let total = dist(*from, leg.to) / leg.speed;
            let moved = now.since(*t0).as_secs_f64();
            let arrived = match self.arrive {
                Some(a) => now >= a,
                None => moved >= total,
            };
            if arrived {
                p = leg.to;
                self.cur = None;
                // A random model: pause, then the next leg (ns-2 setdest `Update`).
                if let (Some(a), Some(m)) = (self.arrive.take(), self.model.as_mut()) {
                    let (wait, to, speed) = m.leg_after(p);
                    self.legs.push(Leg { at: after(a, wait), to, speed });
                }
            } else {
                let f = (moved / total).min(1.0);
                p = (from.0 + (leg.to.0 - from.0) * f, from.1 + (leg.to.1 - from.1) * f);
            }
        }
        // A new leg starts from wherever the node is (it supersedes the old).
        while self.legs.get(self.next).is_some_and(|l| l.at <= now) {
            let leg = self.legs[self.next].clone();
            self.next += 1;
            self.started.push(LegStart { at: now, from: p, to: leg.to, speed: leg.speed });
            let len = dist(p, leg.to);
            if let Some(m) = self.model.as_mut() {
                if len > 0.0 {
                    self.arrive = Some(after(now, len / leg.speed));
                } else {
                    // Already there (a stationary start at its leg's end): pause, go on.
                    let (wait, to, speed) = m.leg_after(p);
                    self.legs.push(Leg { at: after(now, wait), to, speed });
                }
            }
            self.cur = if len > 0.0 { Some((now, p, leg)) } else { None };
        }
        p
    }

    /// Where the node is at `now` along its current leg, exactly (linear
    /// between the leg's start and end); `pos` if it stands still.
    #[allow(dead_code)]
    pub fn position_at(&self, now: SimTime, pos: (f64, f64)) -> (f64, f64) {
        let Some((t0, from, leg)) = &self.cur else { return pos };
        let total = dist(*from, leg.to) / leg.speed;
        let f = (now.since(*t0).as_secs_f64() / total).min(1.0);
        (from.0 + (leg.to.0 - from.0) * f, from.1 + (leg.to.1 - from.1) * f)
    }
}

/// The `movement` table: every node's initial position (time 0, speed 0),
/// then every leg in order of start time (node order within an instant).
pub fn movement_rows(movers: &[Mover]) -> Vec<crate::results::MovementRow> {
    use crate::results::MovementRow;
    let mut rows: Vec<MovementRow> = movers
        .iter()
        .enumerate()
        .map(|(i, m)| MovementRow { node: i as u32, time_s: 0.0, x: m.origin.0, y: m.origin.1, to_x: m.origin.0, to_y: m.origin.1, speed_mps: 0.0 })
        .collect();
    let mut legs: Vec<(SimTime, u32, &LegStart)> = movers.iter().enumerate().flat_map(|(i, m)| m.started.iter().map(move |l| (l.at, i as u32, l))).collect();
    legs.sort_by_key(|&(t, n, _)| (t, n)); // stable: a node's legs at one instant keep their order
    rows.extend(legs.into_iter().map(|(t, node, l)| MovementRow { node, time_s: t.as_secs_f64(), x: l.from.0, y: l.from.1, to_x: l.to.0, to_y: l.to.1, speed_mps: l.speed }));
    rows
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Leg as L;

    fn run(m: &mut Mover, until: f64) -> Vec<(f64, (f64, f64))> {
        let mut pos = (0.0, 0.0);
        let mut out = vec![];
        let mut now = SimTime::ZERO;
        while let Some(t) = m.next_update(now) {
            if t.as_secs_f64() > until {
                break;
            }
            now = t;
            pos = m.advance(now, pos);
            out.push((now.as_secs_f64(), pos));
        }
        out
    }

    #[test]
    fn moves_in_steps_and_stops_at_the_target() {
        let sc = Mobility { step_m: 1.0, legs: vec![L { node: 0, at: 2.0, to: [10.0, 0.0], speed: 5.0 }], ..Mobility::default() };
        let mut m = Mover::from_scenario(&sc, 1).remove(0);
        let v = run(&mut m, 100.0);
        assert_eq!(v.first().unwrap().0, 2.0);
        assert_eq!(v.len(), 11); // start + 10 one-metre steps
        let (t, p) = *v.last().unwrap();
        assert!((t - 4.0).abs() < 1e-6 && p == (10.0, 0.0), "{t} {p:?}");
        assert!((v[5].1 .0 - 5.0).abs() < 1e-6);
    }

    #[test]
    fn later_leg_supersedes_and_starts_from_current_position() {
        let legs = vec![L { node: 0, at: 0.0, to: [100.0, 0.0], speed: 10.0 }, L { node: 0, at: 1.0, to: [10.0, 10.0], speed: 10.0 }];
        let mut m = Mover::from_scenario(&Mobility { step_m: 1.0, legs, ..Mobility::default() }, 1).remove(0);
        let v = run(&mut m, 100.0);
        let (t, p) = *v.last().unwrap();
        assert_eq!(p, (10.0, 10.0));
        assert!((t - 2.0).abs() < 1e-6, "{t}");
    }
}
