//! Simulated time: integer nanoseconds, so that event order never depends on
//! floating-point rounding.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// Saturating: negative or NaN gives 0, beyond ~584 years gives `MAX`
    /// (Rust's float-to-int `as` saturates; no input panics).
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime((s * 1e9).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us.saturating_mul(1_000))
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms.saturating_mul(1_000_000))
    }
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur((s * 1e9).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time to send `bits` at `rate_bps`, rounded up to the next nanosecond.
    /// Saturates instead of panicking: a rate that rounds to 0 bit/s (e.g.
    /// `data_rate_mbps = 1e-7`) takes forever, i.e. `Dur(u64::MAX)`.
    pub fn for_bits(bits: u64, rate_bps: u64) -> Dur {
        if rate_bps == 0 {
            return Dur(u64::MAX);
        }
        let ns = (bits as u128 * 1_000_000_000).div_ceil(rate_bps as u128);
        Dur(u64::try_from(ns).unwrap_or(u64::MAX))
    }
    pub fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Add<Dur> for SimTime {
    type Output = SimTime;
    fn add(self, d: Dur) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for SimTime {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = Dur;
    fn sub(self, o: SimTime) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, o: Dur) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
