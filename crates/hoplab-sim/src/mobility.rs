//! Scripted movement: each node follows its legs (move toward (x, y) at v
//! m/s from time t). Positions change in steps of `step_m` metres, and only
//! the moving node's neighbourhood in the channel is refreshed, so mobility
//! costs nothing for nodes that stand still.

use crate::scenario::Mobility;
use crate::time::SimTime;

#[derive(Clone, Debug)]
struct Leg {
    at: SimTime,
    to: (f64, f64),
    speed: f64,
}

/// The legs of one node and where it is along them.
#[derive(Clone, Debug, Default)]
pub struct Mover {
    legs: Vec<Leg>,
    /// Index of the next leg to start.
    next: usize,
    /// The leg under way: start time, start position, leg.
    cur: Option<(SimTime, (f64, f64), Leg)>,
    step_m: f64,
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

    /// When this node's position should next be updated.
    pub fn next_update(&self, now: SimTime) -> Option<SimTime> {
        let leg_start = self.legs.get(self.next).map(|l| l.at);
        let step = self.cur.as_ref().map(|(t0, from, leg)| {
            let total = dist(*from, leg.to) / leg.speed;
            let moved = now.since(*t0).as_secs_f64();
            let next = ((moved * leg.speed / self.step_m).floor() + 1.0) * self.step_m / leg.speed;
            // Rounding may land on `now` itself; never schedule the past.
            (*t0 + crate::time::Dur::from_secs_f64(next.min(total))).max(SimTime(now.0 + 1))
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
            if moved >= total {
                p = leg.to;
                self.cur = None;
            } else {
                let f = moved / total;
                p = (from.0 + (leg.to.0 - from.0) * f, from.1 + (leg.to.1 - from.1) * f);
            }
        }
        // A new leg starts from wherever the node is (it supersedes the old).
        while self.legs.get(self.next).is_some_and(|l| l.at <= now) {
            let leg = self.legs[self.next].clone();
            self.next += 1;
            self.cur = if dist(p, leg.to) > 0.0 { Some((now, p, leg)) } else { None };
        }
        p
    }
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
        let sc = Mobility { step_m: 1.0, legs: vec![L { node: 0, at: 2.0, to: [10.0, 0.0], speed: 5.0 }] };
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
        let mut m = Mover::from_scenario(&Mobility { step_m: 1.0, legs }, 1).remove(0);
        let v = run(&mut m, 100.0);
        let (t, p) = *v.last().unwrap();
        assert_eq!(p, (10.0, 10.0));
        assert!((t - 2.0).abs() < 1e-6, "{t}");
    }
}
