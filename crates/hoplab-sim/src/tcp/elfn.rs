//! ELFN standby (Holland & Vaidya, "Analysis of TCP Performance over Mobile
//! Ad Hoc Networks", MobiCom 1999, §5): the routing layer tells the source
//! that the route to its peer is gone; the sender freezes its window, its
//! ssthresh and its retransmission timer, and sends a probe (the first
//! unacknowledged segment) every probe interval until an ACK arrives. It then
//! resumes with the frozen state and a freshly armed timer.
//!
//! ADTCP's disconnection state (tcp/adtcp.rs) uses the same standby.
//!
//! This is only the timing state; `TcpSender` decides what to freeze and
//! what a probe is (sender.rs, `enter_standby` / `leave_standby`).

use crate::time::{Dur, SimTime};

/// Holland & Vaidya's probe interval. The brief reads their paper as probing
/// every 2 s; we could not read the paper's text through `search`, so 2 s is
/// our choice (`[tcp] probe_interval`).
pub const DEFAULT_PROBE_INTERVAL: Dur = Dur(2_000_000_000);

/// Why the sender is in standby.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// An ELFN from the routing layer.
    Elfn,
    /// ADTCP: a retransmission timeout while the receiver reported no congestion.
    Disconnection,
}

/// A standby episode: timers frozen, one probe per interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Standby {
    pub cause: Cause,
    /// When the episode began (for the standby time).
    pub since: SimTime,
    /// When the next probe is due.
    pub next_probe: SimTime,
    /// A probe is due and not yet sent.
    probe_due: bool,
}

impl Standby {
    /// Enter standby at `now`. With `probe_now` the first probe goes at once
    /// (ADTCP: the timeout's own retransmission); otherwise one interval
    /// later (ELFN: the route was just lost and is being rediscovered).
    pub fn new(cause: Cause, now: SimTime, interval: Dur, probe_now: bool) -> Standby {
        Standby { cause, since: now, next_probe: now + interval, probe_due: probe_now }
    }

    /// The probe timer fired: a probe is due, the next one an interval later.
    /// Does nothing before the deadline.
    pub fn on_timer(&mut self, now: SimTime, interval: Dur) {
        if now >= self.next_probe {
            self.probe_due = true;
            self.next_probe = now + interval;
        }
    }

    /// Take the due probe, if any.
    pub fn take_probe(&mut self) -> bool {
        std::mem::take(&mut self.probe_due)
    }
}
