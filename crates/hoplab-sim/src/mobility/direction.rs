//! Random direction (E. M. Royer, P. M. Melliar-Smith and L. E. Moser, "An
//! analysis of the optimum node density for ad hoc mobile networks", ICC
//! 2001; Camp, Boleng & Davies 2002, §2.4; as ns-3's
//! RandomDirection2dMobilityModel): a node draws a direction and a speed
//! uniform in [vmin, vmax] and moves in a straight line until it reaches the
//! border of the area, pauses `pause_s` there, then draws a direction among
//! those pointing into the area (an angle uniform in [0, pi) from the wall,
//! `Area::inward`) and a speed, and so on. The first direction, from the
//! node's initial position inside the area, is uniform in [0, 2 pi); the
//! first leg starts at time 0 (no initial pause, unlike setdest's waypoint).
//! Every leg ends exactly on the border.

use super::area::{uniform_speed, Area};
use crate::rng::Stream;
use std::f64::consts::TAU;

/// The random direction model of one node, with its own random stream.
pub struct Direction {
    pub area: Area,
    pub vmin: f64,
    pub vmax: f64,
    pub pause_s: f64,
    rng: Stream,
}

impl std::fmt::Debug for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Direction({}x{} m, {}..{} m/s, pause {} s)", self.area.width, self.area.height, self.vmin, self.vmax, self.pause_s)
    }
}

impl Direction {
    pub fn new(area: Area, vmin: f64, vmax: f64, pause_s: f64, rng: Stream) -> Direction {
        Direction { area, vmin, vmax, pause_s, rng }
    }

    /// The next leg from `from`: the point of the border it heads for, and its speed.
    pub fn next_leg(&mut self, from: (f64, f64)) -> ((f64, f64), f64) {
        let d = if self.area.on_border(from) {
            self.area.inward(from, &mut self.rng)
        } else {
            let a = self.rng.unit() * TAU;
            (a.cos(), a.sin())
        };
        let v = uniform_speed(&mut self.rng, self.vmin, self.vmax);
        (self.area.exit(from, d).at, v)
    }
}

impl super::Model for Direction {
    /// The first leg starts at once; the next ones a pause after arriving.
    fn first_leg(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64) {
        let (to, v) = self.next_leg(from);
        (0.0, to, v)
    }

    fn leg_after(&mut self, from: (f64, f64)) -> (f64, (f64, f64), f64) {
        let (to, v) = self.next_leg(from);
        (self.pause_s, to, v)
    }
}

/// Mean seconds per leg, pause included: a mean chord (`area::mean_chord`)
/// at `v` m/s, then `pause_s`; for pricing (`cost.rs`).
pub fn mean_leg_s(width: f64, height: f64, v: f64, pause_s: f64) -> f64 {
    super::area::mean_chord(width, height) / v + pause_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    #[test]
    fn legs_run_from_border_to_border() {
        let area = Area { width: 300.0, height: 100.0 };
        let mut m = Direction::new(area, 1.0, 3.0, 2.0, Stream::new(8, 1, Purpose::Mobility));
        let mut p = (150.0, 50.0);
        let mut corners = 0;
        for _ in 0..10_000 {
            let (to, v) = m.next_leg(p);
            assert!((1.0..=3.0).contains(&v));
            assert!(area.on_border(to) && to == area.clamp(to), "{to:?}");
            assert!((to.0 - p.0).hypot(to.1 - p.1) > 0.0);
            corners += usize::from((to.0 == 0.0 || to.0 == 300.0) && (to.1 == 0.0 || to.1 == 100.0));
            p = to;
        }
        assert!(corners < 10, "{corners} corners");
    }
}
