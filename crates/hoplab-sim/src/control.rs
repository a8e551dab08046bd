//! Cancelling and watching a run from outside the event loop.
//!
//! The loop in `World::run_controlled` looks at the control every
//! `CHECK_EVERY` events: one counter compare per event, and every
//! `CHECK_EVERY` events an atomic load and, when a tick callback is set, a
//! clock read. Events are ~100 ns to a few µs each, so a check happens well
//! under a millisecond apart and costs nothing measurable. Nothing here
//! influences the simulation: a run that is not cancelled gives the same
//! events and event hash as `run`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How many events pass between two looks at the control.
pub const CHECK_EVERY: u64 = 4096;

/// Where a run is, as handed to a tick callback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
    /// The scenario's duration, seconds.
    pub duration_s: f64,
    /// Events handled so far.
    pub events: u64,
    /// Wall-clock seconds since the run started (setup included).
    pub wall_s: f64,
}

impl Progress {
    /// Mean events per wall-clock second so far.
    pub fn events_per_s(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.events as f64 / self.wall_s
        } else {
            0.0
        }
    }
}

/// A tick callback: returns `false` to stop the run (e.g. a pending Ctrl-C).
pub type Tick<'a> = dyn FnMut(&Progress) -> bool + 'a;

/// What may stop or watch a run. `RunControl::default()` does neither.
#[derive(Default)]
pub struct RunControl<'a> {
    /// Set from any thread to stop the run at the next check.
    pub cancel: Option<&'a AtomicBool>,
    /// Called about every `interval` of wall time, on the running thread.
    pub tick: Option<Box<Tick<'a>>>,
    /// Wall time between ticks (default 100 ms when zero).
    pub interval: Duration,
}

/// A run stopped by its control before the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Cancelled {
    /// Simulated time reached when it stopped, seconds.
    pub at_s: f64,
}

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "run cancelled at simulated time {:.3} s", self.at_s)
    }
}
impl std::error::Error for Cancelled {}

/// The state the event loop keeps for its control.
pub(crate) struct Checker<'c, 'a> {
    ctl: &'c mut RunControl<'a>,
    started: Instant,
    next_tick: Instant,
    interval: Duration,
}

impl<'c, 'a> Checker<'c, 'a> {
    pub(crate) fn new(ctl: &'c mut RunControl<'a>, started: Instant) -> Self {
        let interval = if ctl.interval.is_zero() { Duration::from_millis(100) } else { ctl.interval };
        Checker { ctl, started, next_tick: started + interval, interval }
    }

    /// Whether the run should stop; calls the tick callback when it is due.
    pub(crate) fn should_stop(&mut self, sim_time_s: f64, duration_s: f64, events: u64) -> bool {
        if self.ctl.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return true;
        }
        if let Some(tick) = self.ctl.tick.as_mut() {
            let now = Instant::now();
            if now >= self.next_tick {
                self.next_tick = now + self.interval;
                let p = Progress { sim_time_s, duration_s, events, wall_s: (now - self.started).as_secs_f64() };
                return !tick(&p);
            }
        }
        false
    }
}
