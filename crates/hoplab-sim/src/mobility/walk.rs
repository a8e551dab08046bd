//! Random walk (T. Camp, J. Boleng and V. Davies, "A survey of mobility
//! models for ad hoc network research", WCMC 2(5), 2002, §2.1; as ns-3's
//! RandomWalk2dMobilityModel in its time mode): a node draws a direction
//! uniform in [0, 2 pi) and a speed uniform in [vmin, vmax] and moves so for
//! `interval_s` seconds, then draws again; it never pauses. A node that
//! reaches the border is reflected (the angle of incidence equals the angle
//! of reflection, Camp et al. §2.1): its leg ends on the wall and the rest
//! of the interval is a new leg in the mirrored direction at the same speed,
//! so every leg is a straight line at a constant speed.
//!
//! Intervals are fixed in time, not distance (the survey allows either):
//! every speed is then kept for the same time, so the speed seen at a random
//! instant has the drawn distribution at any time of the run (no drift
//! toward slow legs as in random waypoint, where a leg lasts distance / v),
//! and a slow draw cannot hold a node for an unbounded time.

use super::area::{uniform_speed, Area};
use crate::rng::Stream;
use std::f64::consts::TAU;

/// Less left of an interval than this (a nanosecond, the clock's
/// resolution) ends it: no leg shorter than the clock can time.
const TICK_S: f64 = 1e-9;

/// The random walk of one node, with its own random stream.
pub struct Walk {
    pub area: Area,
    pub vmin: f64,
    pub vmax: f64,
    pub interval_s: f64,
    rng: Stream,
    /// Unit direction and speed of the interval under way.
    dir: (f64, f64),
    speed: f64,
    /// Seconds left of the interval under way (0: draw a new one).
    left_s: f64,
}

impl std::fmt::Debug for Walk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Walk({}x{} m, {}..{} m/s, every {} s)", self.area.width, self.area.height, self.vmin, self.vmax, self.interval_s)
    }
}

impl Walk {
    pub fn new(area: Area, vmin: f64, vmax: f64, interval_s: f64, rng: Stream) -> Walk {
        Walk { area, vmin, vmax, interval_s, rng, dir: (0.0, 0.0), speed: 0.0, left_s: 0.0 }
    }

    /// The next leg from `from` (where the last one ended): destination and
    /// speed. It starts at once; it ends when the interval does or on the
    /// border, whichever comes first.
    pub fn next_leg(&mut self, from: (f64, f64)) -> ((f64, f64), f64) {
        if self.left_s <= 0.0 {
            let a = self.rng.unit() * TAU;
            self.dir = (a.cos(), a.sin());
            self.speed = uniform_speed(&mut self.rng, self.vmin, self.vmax);
            self.left_s = self.interval_s;
        }
        loop {
            let v = (self.dir.0 * self.speed, self.dir.1 * self.speed);
            let e = self.area.exit(from, v);
            if e.t + TICK_S >= self.left_s {
                // The interval ends first (or within a tick of the wall).
                let to = if e.t <= self.left_s { e.at } else { self.area.clamp((from.0 + v.0 * self.left_s, from.1 + v.1 * self.left_s)) };
                self.left_s = 0.0;
                return (to, self.speed);
            }
            // Reflection: the next leg goes the mirrored way.
            if e.x_wall {
                self.dir.0 = -self.dir.0;
            }
            if e.y_wall {
                self.dir.1 = -self.dir.1;
            }
            if e.t > 0.0 {
                self.left_s -= e.t;
                return (e.at, self.speed);
            }
            // On the border heading out (a fresh draw there): turned back, go on.
        }
    }
}

impl super::Model for Walk {
    fn leg_after(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64) {
        let (to, v) = self.next_leg(from);
        (0.0, to, v)
    }
}

/// Mean seconds per leg: a new leg every `interval_s` and at every border
/// hit, which an isotropic mover at `v` m/s makes every mean chord / v
/// seconds (`area::mean_chord`); for pricing (`cost.rs`).
pub fn mean_leg_s(width: f64, height: f64, v: f64, interval_s: f64) -> f64 {
    1.0 / (1.0 / interval_s + v / super::area::mean_chord(width, height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    #[test]
    fn legs_stay_in_the_area_and_reflections_mirror() {
        let area = Area { width: 200.0, height: 100.0 };
        let mut w = Walk::new(area, 5.0, 20.0, 10.0, Stream::new(4, 0, Purpose::Mobility));
        let (mut p, mut t_in, mut reflections) = ((100.0, 50.0), 0.0, 0);
        let mut last: Option<((f64, f64), f64)> = None;
        for _ in 0..5000 {
            let (to, v) = w.next_leg(p);
            assert!((5.0..=20.0).contains(&v));
            assert!((0.0..=200.0).contains(&to.0) && (0.0..=100.0).contains(&to.1), "{to:?}");
            let d = ((to.0 - p.0) / (to.0 - p.0).hypot(to.1 - p.1), (to.1 - p.1) / (to.0 - p.0).hypot(to.1 - p.1));
            if let Some((d0, v0)) = last {
                // A leg starting on a wall within an interval mirrors the last one.
                if t_in > 0.0 {
                    reflections += 1;
                    assert_eq!(v, v0);
                    let flip = (if p.0 == 0.0 || p.0 == 200.0 { -1.0 } else { 1.0 }, if p.1 == 0.0 || p.1 == 100.0 { -1.0 } else { 1.0 });
                    assert!((d.0 - flip.0 * d0.0).abs() < 1e-9 && (d.1 - flip.1 * d0.1).abs() < 1e-9, "{d0:?} -> {d:?} at {p:?}");
                }
            }
            t_in += (to.0 - p.0).hypot(to.1 - p.1) / v;
            assert!(t_in <= 10.0 + 1e-9);
            if (t_in - 10.0).abs() < 1e-9 {
                t_in = 0.0;
            } else {
                assert!(area.on_border(to), "a leg ended early inside the area at {to:?}");
            }
            last = Some((d, v));
            p = to;
        }
        assert!(reflections > 500, "{reflections} reflections");
    }
}
