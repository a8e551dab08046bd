//! Random waypoint as ns-2's `setdest` (indep-utils/cmu-scen-gen/setdest,
//! CMU 1999 version, and the 2003 U. Michigan version for a minimum speed):
//! a node pauses `pause` seconds, then moves in a straight line toward a
//! destination drawn uniformly in the `width x height` area, at a speed drawn
//! uniformly in [vmin, vmax]; on arrival it pauses again, and so on. As in
//! setdest, the first thing a node does is pause (`time_arrival = TIME +
//! PAUSE` at creation), unless the pause is 0.
//!
//! `stationary_start` draws the initial state from the model's stationary
//! distribution instead (W. Navidi and T. Camp, "Stationary distributions for
//! the random waypoint mobility model", IEEE Trans. Mobile Computing 3(1),
//! 2004), so that speeds and positions do not drift with time: a node is
//! paused with probability E[P] / (E[P] + E[L] E[1/V]) and then for a residual
//! pause uniform in [0, pause] at a uniform waypoint; otherwise its current
//! leg (start, end) has density proportional to its length, it is at a
//! uniform point along it, and its speed has density proportional to f(v)/v,
//! i.e. 1/v on [vmin, vmax] for uniform speeds. setdest's version 2 applies
//! the 1/v law only to the speed and starts the first leg at a uniform
//! position; Navidi & Camp also place the node where a stationary node is
//! (denser in the middle of the area).

use crate::rng::Stream;

/// What a node does first under `stationary_start`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// At `pos`, pausing for `for_s` more seconds before its first leg.
    Paused { pos: (f64, f64), for_s: f64 },
    /// At `pos`, moving toward `to` at `speed` m/s.
    Moving { pos: (f64, f64), to: (f64, f64), speed: f64 },
}

/// The random waypoint model of one node, with its own random stream.
pub struct Waypoint {
    pub width: f64,
    pub height: f64,
    pub vmin: f64,
    pub vmax: f64,
    pub pause_s: f64,
    rng: Stream,
}

impl std::fmt::Debug for Waypoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Waypoint({}x{} m, {}..{} m/s, pause {} s)", self.width, self.height, self.vmin, self.vmax, self.pause_s)
    }
}

impl Waypoint {
    pub fn new(width: f64, height: f64, vmin: f64, vmax: f64, pause_s: f64, rng: Stream) -> Waypoint {
        Waypoint { width, height, vmin, vmax, pause_s, rng }
    }

    fn point(&mut self) -> (f64, f64) {
        (self.rng.unit() * self.width, self.rng.unit() * self.height)
    }

    /// setdest `RandomSpeed`: uniform in [vmin, vmax], never 0 (setdest
    /// asserts `speed != 0.0`; a zero draw is drawn again).
    pub fn speed(&mut self) -> f64 {
        loop {
            let v = self.vmin + self.rng.unit() * (self.vmax - self.vmin);
            if v > 0.0 {
                return v;
            }
        }
    }

    /// setdest `RandomDestination`: uniform in the area, never the node's
    /// own position (setdest asserts it; a repeat is drawn again).
    pub fn destination(&mut self, from: (f64, f64)) -> (f64, f64) {
        loop {
            let p = self.point();
            if p != from {
                return p;
            }
        }
    }

    /// The next leg from `from`: destination and speed.
    pub fn next_leg(&mut self, from: (f64, f64)) -> ((f64, f64), f64) {
        let to = self.destination(from);
        (to, self.speed())
    }

    /// E[1/V] for V uniform on [vmin, vmax]: ln(vmax/vmin) / (vmax - vmin)
    /// (setdest `EXP_1_V`); 1/v when the range is a single speed.
    pub fn mean_inverse_speed(&self) -> f64 {
        if self.vmax - self.vmin <= 1e-12 * self.vmax {
            1.0 / self.vmax
        } else {
            (self.vmax / self.vmin).ln() / (self.vmax - self.vmin)
        }
    }

    /// Draw the initial state from the stationary distribution (Navidi &
    /// Camp 2004; see the module comment). Needs vmin > 0.
    pub fn stationary_start(&mut self) -> Start {
        let moving_time = mean_distance(self.width, self.height) * self.mean_inverse_speed();
        let p_pause = self.pause_s / (self.pause_s + moving_time);
        if self.rng.unit() < p_pause {
            let pos = self.point();
            // The residual of a constant pause seen at a random instant is uniform.
            return Start::Paused { pos, for_s: self.rng.unit() * self.pause_s };
        }
        // Leg endpoints with density proportional to their distance:
        // rejection against the diagonal, the longest possible leg.
        let diag = self.width.hypot(self.height);
        let (a, b) = loop {
            let (a, b) = (self.point(), self.point());
            let d = (a.0 - b.0).hypot(a.1 - b.1);
            if d > 0.0 && self.rng.unit() * diag < d {
                break (a, b);
            }
        };
        let r = self.rng.unit();
        let pos = (a.0 + r * (b.0 - a.0), a.1 + r * (b.1 - a.1));
        Start::Moving { pos, to: b, speed: self.stationary_speed() }
    }

    /// A speed with density proportional to 1/v on [vmin, vmax] (the uniform
    /// leg speed weighted by the time a leg at that speed lasts): the
    /// inverse of F(v) = ln(v/vmin) / ln(vmax/vmin).
    pub fn stationary_speed(&mut self) -> f64 {
        let u = self.rng.unit();
        if self.vmax - self.vmin <= 1e-12 * self.vmax {
            return self.vmax;
        }
        (self.vmin * (self.vmax / self.vmin).powf(u)).clamp(self.vmin, self.vmax)
    }
}

/// Mean distance between two points uniform in a `w` x `h` rectangle
/// (E[L] of a random-waypoint leg; the classical closed form, e.g. Ghosh
/// 1951; 0.5214 for the unit square; setdest's `compute_EXP_R` is the same).
pub fn mean_distance(w: f64, h: f64) -> f64 {
    if w <= 0.0 || h <= 0.0 {
        return w.max(h) / 3.0; // a segment
    }
    let d = w.hypot(h);
    (w.powi(3) / (h * h) + h.powi(3) / (w * w) + d * (3.0 - w * w / (h * h) - h * h / (w * w))) / 15.0
        + (h * h / w * ((w + d) / h).ln() + w * w / h * ((h + d) / w).ln()) / 6.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    #[test]
    fn mean_distance_matches_known_values_and_sampling() {
        assert!((mean_distance(1.0, 1.0) - 0.521_405).abs() < 1e-6);
        let mut s = Stream::new(9, 0, Purpose::Mobility);
        let (w, h) = (1500.0, 300.0);
        let n = 200_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let (a, b) = ((s.unit() * w, s.unit() * h), (s.unit() * w, s.unit() * h));
            sum += (a.0 - b.0).hypot(a.1 - b.1);
        }
        let sampled = sum / n as f64;
        assert!((sampled / mean_distance(w, h) - 1.0).abs() < 0.005, "{sampled} vs {}", mean_distance(w, h));
    }

    #[test]
    fn speeds_stay_in_range_and_destinations_in_the_area() {
        let mut m = Waypoint::new(1500.0, 300.0, 1.8, 2.2, 0.0, Stream::new(1, 3, Purpose::Mobility));
        for _ in 0..10_000 {
            let ((x, y), v) = m.next_leg((0.0, 0.0));
            assert!((0.0..1500.0).contains(&x) && (0.0..300.0).contains(&y));
            assert!((1.8..=2.2).contains(&v));
        }
    }
}
