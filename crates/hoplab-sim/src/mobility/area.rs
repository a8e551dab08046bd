//! The rectangle [0, width] x [0, height] that random walk and random
//! direction move in: where a straight line from a point in it reaches its
//! border, which walls that is, and the directions that point into it from
//! a point on the border.

use crate::rng::Stream;
use std::f64::consts::{FRAC_PI_2, PI};

/// The area of a `random` topology (`topology.width_m` x `height_m`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub width: f64,
    pub height: f64,
}

/// Where a point moving at a constant velocity reaches the border.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exit {
    /// Seconds until it gets there (infinite at velocity 0).
    pub t: f64,
    /// The point on the border: the coordinate of each wall hit is exactly 0
    /// or the side's length, so the next leg knows it starts on that wall.
    pub at: (f64, f64),
    /// It hits a wall x = 0 or x = width; a wall y = 0 or y = height (both: a corner).
    pub x_wall: bool,
    pub y_wall: bool,
}

/// Seconds until `x`, moving at `v`, leaves [0, len]; infinite when `v` is 0.
fn axis(x: f64, v: f64, len: f64) -> f64 {
    if v > 0.0 {
        ((len - x) / v).max(0.0)
    } else if v < 0.0 {
        (-x / v).max(0.0)
    } else {
        f64::INFINITY
    }
}

impl Area {
    /// Where `p` moving at velocity `v` (m/s) reaches the border.
    pub fn exit(&self, p: (f64, f64), v: (f64, f64)) -> Exit {
        let (tx, ty) = (axis(p.0, v.0, self.width), axis(p.1, v.1, self.height));
        let t = tx.min(ty);
        let (x_wall, y_wall) = (t.is_finite() && tx == t, t.is_finite() && ty == t);
        let mut at = self.clamp((p.0 + v.0 * t, p.1 + v.1 * t));
        if x_wall {
            at.0 = if v.0 > 0.0 { self.width } else { 0.0 };
        }
        if y_wall {
            at.1 = if v.1 > 0.0 { self.height } else { 0.0 };
        }
        Exit { t, at, x_wall, y_wall }
    }

    /// `p` moved into the area (rounding can put a computed point a hair outside).
    pub fn clamp(&self, p: (f64, f64)) -> (f64, f64) {
        (p.0.clamp(0.0, self.width), p.1.clamp(0.0, self.height))
    }

    /// Whether `p` lies on the border.
    pub fn on_border(&self, p: (f64, f64)) -> bool {
        p.0 <= 0.0 || p.0 >= self.width || p.1 <= 0.0 || p.1 >= self.height
    }

    /// A unit vector drawn uniformly among the directions that point into the
    /// area from `p` on its border: an angle uniform in [0, pi) from the wall
    /// (Royer, Melliar-Smith & Moser 2001; ns-3 RandomDirection2dMobilityModel),
    /// in [0, pi/2) at a corner. The component across each wall `p` is on is
    /// never negative (pointing out), so the leg it starts has a length.
    pub fn inward(&self, p: (f64, f64), rng: &mut Stream) -> (f64, f64) {
        let (left, right) = (p.0 <= 0.0, p.0 >= self.width);
        let (bottom, top) = (p.1 <= 0.0, p.1 >= self.height);
        let corner = (left || right) && (bottom || top);
        let a = rng.unit() * if corner { FRAC_PI_2 } else { PI };
        // Along the wall, and into the area.
        let (along, into) = (a.cos(), a.sin());
        let sx = if left { 1.0 } else { -1.0 };
        let sy = if bottom { 1.0 } else { -1.0 };
        if corner {
            (sx * along, sy * into)
        } else if left || right {
            (sx * into, along)
        } else {
            (along, sy * into)
        }
    }
}

/// A speed uniform in [vmin, vmax], never 0 (a zero draw is drawn again,
/// as the waypoint model does after ns-2 setdest).
pub fn uniform_speed(rng: &mut Stream, vmin: f64, vmax: f64) -> f64 {
    loop {
        let v = vmin + rng.unit() * (vmax - vmin);
        if v > 0.0 {
            return v;
        }
    }
}

/// Mean length of a chord of the area, pi A / P (Cauchy-Crofton; e.g.
/// Santalo, "Integral geometry and geometric probability", 1976): the mean
/// distance an isotropic mover at a uniform position goes between two border
/// hits. `cost.rs` uses it to price the random walk's reflections and the
/// random direction's legs.
pub fn mean_chord(width: f64, height: f64) -> f64 {
    PI * width * height / (2.0 * (width + height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    #[test]
    fn exits_land_exactly_on_the_wall_they_hit() {
        let a = Area { width: 100.0, height: 50.0 };
        let e = a.exit((10.0, 10.0), (-2.0, 1.0));
        assert_eq!((e.t, e.at, e.x_wall, e.y_wall), (5.0, (0.0, 15.0), true, false));
        let e = a.exit((90.0, 40.0), (1.0, 1.0));
        assert_eq!((e.t, e.at, e.x_wall, e.y_wall), (10.0, (100.0, 50.0), true, true));
        let e = a.exit((0.0, 20.0), (0.0, -4.0));
        assert_eq!((e.t, e.at, e.x_wall, e.y_wall), (5.0, (0.0, 0.0), false, true));
    }

    #[test]
    fn inward_directions_point_into_the_area_uniformly() {
        let a = Area { width: 100.0, height: 50.0 };
        let mut rng = Stream::new(1, 0, Purpose::Mobility);
        for p in [(0.0, 20.0), (100.0, 20.0), (30.0, 0.0), (30.0, 50.0), (0.0, 0.0), (100.0, 50.0), (0.0, 50.0)] {
            let mut sum = (0.0, 0.0);
            for _ in 0..20_000 {
                let d = a.inward(p, &mut rng);
                assert!((d.0.hypot(d.1) - 1.0).abs() < 1e-12);
                let e = a.exit(p, d);
                assert!(e.t > 0.0, "from {p:?} along {d:?}");
                sum = (sum.0 + d.0, sum.1 + d.1);
            }
            // The mean of a uniform angle over a half-plane points straight in,
            // 2/pi long; over a quarter-plane along the diagonal, 2 sqrt(2)/pi long.
            let n = 20_000.0;
            let (mx, my) = (sum.0 / n, sum.1 / n);
            let corner = (p.0 == 0.0 || p.0 == 100.0) && (p.1 == 0.0 || p.1 == 50.0);
            let want = if corner { 2.0 * 2f64.sqrt() / PI } else { 2.0 / PI };
            assert!((mx.hypot(my) - want).abs() < 0.01, "{p:?}: mean ({mx}, {my})");
            let cx = if p.0 == 0.0 { 1.0 } else if p.0 == 100.0 { -1.0 } else { 0.0 };
            let cy = if p.1 == 0.0 { 1.0 } else if p.1 == 50.0 { -1.0 } else { 0.0 };
            assert!((mx * cy - my * cx).abs() < 0.01 && mx * cx + my * cy > 0.0, "{p:?}: mean ({mx}, {my})");
        }
    }
}
