//! FeW, the fractional window increment of seed 001 (§4, Eq. 9).
//!
//! Rules, each from seed 001 §4 unless marked as our decision:
//! - **Growth**: in congestion avoidance W grows by α/W per ACK
//!   (Eq. 9, 0 < α ≤ 1; α = 1 is the standard rule). We apply it by scaling
//!   whatever increase the variant's congestion-avoidance step made by α, so
//!   FeW composes with any variant (the paper applies it to TCP and ADTCP);
//!   for Reno-family variants that increase is 1/W, giving exactly α/W.
//!   Slow start is left alone (the paper changes only Eq. 9).
//! - **Fractional window**: W may fall below one segment. W < 1 sends one
//!   segment every RTT/W on a timer of its own, so ACK clocking cannot
//!   deadlock (RTT = srtt, or the current RTO before the first sample: our
//!   choice). At most one segment is outstanding while W < 1.
//! - **Bounds**: W never falls below `w_min`, and ssthresh never below
//!   `ssthresh_min` (0 < ssthresh_min < 1), which replaces RFC 5681's floor of
//!   two segments "so that TCP slow-start is not triggered when W is very
//!   small". The paper gives no values; see [`DEFAULT_W_MIN`].
//! - **Decrease (our decision)**: the paper does not say how a loss acts on
//!   a fractional window. Fast retransmit is the variant's own (it needs at
//!   least four segments in flight, so its ssthresh is at least two and the
//!   floors never bind). A timeout sets ssthresh = max(min(W, FlightSize)/2,
//!   ssthresh_min) and cwnd = min(1, W/2), floored at w_min (a repeated timeout
//!   of the same outage holds both, RFC 5681 §3.1): RFC 5681's loss
//!   window of one segment whenever W ≥ 2, and a halving below that, the only
//!   way (with ECN marks, tcp/ecn.rs) that W reaches the fractional range the
//!   paper's W < 1 timer and w_min exist for. Taking min(W, FlightSize)
//!   rather than RFC 5681's FlightSize keeps a halved W < 2 at or above
//!   ssthresh (congestion avoidance, not slow start) while go-back-N still
//!   counts old segments in flight. The retransmission after a timeout goes
//!   at once, not after a pacing gap.
//! - **Truncation**: "a fractional value of the TCP congestion window has to
//!   be truncated to an integer value" when W ≥ 1 (seed 001 §5.3): the sender
//!   keeps floor(W) segments outstanding, as it always does.

use super::congestion::Window;
use crate::time::{Dur, SimTime};

/// Lower bound of W when none is given: 0.1 segment, so a paced sender
/// waits at most ten RTTs between segments. Seed 001 gives no value.
pub const DEFAULT_W_MIN: f64 = 0.1;
/// Lower bound of ssthresh when none is given. Seed 001 asks only for
/// 0 < ssthresh_min < 1 and gives no value; we take w_min's default, since a
/// floor at or below w_min keeps a decreased window (≥ w_min) out of slow start.
pub const DEFAULT_SSTHRESH_MIN: f64 = 0.1;

/// FeW parameters of one connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FewParams {
    /// Window growth per RTT in congestion avoidance (Eq. 9), 0 < α ≤ 1.
    pub alpha: f64,
    /// Lower bound of cwnd, in segments.
    pub w_min: f64,
    /// Lower bound of ssthresh, in segments.
    pub ssthresh_min: f64,
}

/// FeW state of one sender: the parameters and the W < 1 send timer.
#[derive(Clone, Debug)]
pub struct Few {
    p: FewParams,
    /// When the last data segment left.
    last_sent: Option<SimTime>,
    /// The W < 1 timer: when the next segment may go, if one is waiting.
    wait_until: Option<SimTime>,
}

impl Few {
    pub fn new(p: FewParams) -> Few {
        Few { p, last_sent: None, wait_until: None }
    }

    pub fn params(&self) -> &FewParams {
        &self.p
    }

    /// After the variant's ACK hook: in congestion avoidance (cwnd was at or
    /// above ssthresh), keep α of the increase it made (Eq. 9).
    pub fn scale_increase(&self, w: &mut Window, cwnd_before: f64, ssthresh_before: f64) {
        if cwnd_before >= ssthresh_before && w.cwnd() > cwnd_before {
            w.set_cwnd(cwnd_before + self.p.alpha * (w.cwnd() - cwnd_before));
        }
    }

    /// After the variant's timeout hook: see the module documentation.
    /// `repeated`: the timer expired again before any new ACK (a backed-off
    /// retransmission was lost too); the window and ssthresh set by the
    /// episode's first timeout are held (RFC 5681 §3.1: "the value of
    /// ssthresh is held constant"), so one outage cannot halve W below one
    /// segment again and again.
    pub fn on_rto(&mut self, w: &mut Window, before: (f64, f64), flight: u64, repeated: bool) {
        let (cwnd_before, ssthresh_before) = before;
        if repeated {
            w.set_ssthresh(ssthresh_before);
            w.set_cwnd(cwnd_before);
        } else {
            w.set_ssthresh((cwnd_before.min(flight as f64) / 2.0).max(self.p.ssthresh_min));
            w.set_cwnd((cwnd_before / 2.0).min(1.0)); // Window floors it at w_min
        }
        self.last_sent = None;
        self.wait_until = None;
    }

    /// W < 1 with nothing in flight: may one segment go at `now`? If not,
    /// arm the timer for when it may (one segment every RTT/W).
    pub fn may_send(&mut self, now: SimTime, cwnd: f64, rtt: Dur) -> bool {
        let Some(last) = self.last_sent else { return true };
        let at = last + Dur::from_secs_f64(rtt.as_secs_f64() / cwnd.max(self.p.w_min));
        if now >= at {
            true
        } else {
            self.wait_until = Some(at);
            false
        }
    }

    /// A data segment left at `now`.
    pub fn on_sent(&mut self, now: SimTime) {
        self.last_sent = Some(now);
        self.wait_until = None;
    }

    /// The W < 1 timer's deadline, if a segment waits for it.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.wait_until
    }

    /// The timer expired: the waiting segment may go (the caller polls).
    pub fn handle_timeout(&mut self, now: SimTime) {
        if self.wait_until.is_some_and(|t| now >= t) {
            self.wait_until = None;
        }
    }
}
