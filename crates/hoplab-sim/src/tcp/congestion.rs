//! Congestion-window rules, in segments (ns-2 style, no byte counting).
//!
//! The sender owns the sequence space, the dup-ACK counter and the
//! recovery point; it calls the hooks of a [`CongestionControl`] at each
//! event and does what the returned value says. The trait's default hooks
//! are RFC 5681 Reno; a variant overrides only what it changes (NewReno:
//! ACKs during fast recovery). SACK's scoreboard, Vegas, FeW, ECN, ELFN and
//! ADTCP live in their own files (see `tcp/mod.rs`).
//! Variants that time segments themselves (Vegas, `tcp/vegas.rs`) also use
//! the timed hooks (`on_send`, `on_dupack_timed`, `on_ack_timed`,
//! `on_timeout`), whose defaults do nothing beyond the hooks above.

use super::vegas::Vegas;
use super::Variant;
use crate::time::SimTime;

/// cwnd and ssthresh in segments, with the window clamp applied to cwnd
/// itself (Linux `snd_cwnd_clamp`, ns-2 `maxcwnd_`), so a halving after a
/// loss starts from the clamped window.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    cwnd: f64,
    ssthresh: f64,
    clamp: Option<u32>,
    /// Lowest cwnd: one segment, or FeW's w_min (seed 001 §4).
    floor: f64,
}

impl Window {
    pub fn new(initial_cwnd: u32, initial_ssthresh: f64, clamp: Option<u32>) -> Window {
        let mut w = Window { cwnd: 0.0, ssthresh: initial_ssthresh, clamp, floor: 1.0 };
        w.set_cwnd(initial_cwnd as f64);
        w
    }
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    pub fn clamp(&self) -> Option<u32> {
        self.clamp
    }
    /// Set cwnd, never above the clamp nor below the floor (one segment).
    pub fn set_cwnd(&mut self, cwnd: f64) {
        let c = match self.clamp {
            Some(m) => cwnd.min(m as f64),
            None => cwnd,
        };
        self.cwnd = c.max(self.floor);
    }
    /// Lower the floor below one segment (FeW's w_min, seed 001 §4).
    pub fn set_floor(&mut self, floor: f64) {
        self.floor = floor;
    }
    pub fn set_ssthresh(&mut self, ssthresh: f64) {
        self.ssthresh = ssthresh;
    }
    /// Segments that may be outstanding: min(floor(cwnd), clamp).
    pub fn usable(&self) -> u64 {
        let w = self.cwnd.floor() as u64;
        match self.clamp {
            Some(m) => w.min(m as u64),
            None => w,
        }
    }
}

/// An acknowledgement of new data, as the sender saw it.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Segments newly acknowledged by this ACK.
    pub acked: u64,
    /// Segments still outstanding after it (snd_max - snd_una).
    pub flight: u64,
    /// During fast recovery: the ACK covers the recovery point (a "full" ACK).
    pub full: bool,
    /// During fast recovery: this is the first partial ACK of the episode.
    pub first_partial: bool,
}

/// When an outstanding segment was last sent, and whether it had been sent before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    pub sent_at: SimTime,
    pub retransmitted: bool,
}

/// An ACK of new data with its timing, for [`CongestionControl::on_ack_timed`].
#[derive(Clone, Copy, Debug)]
pub struct AckTiming {
    pub now: SimTime,
    /// Oldest unacknowledged segment after this ACK.
    pub snd_una: u64,
    /// Next segment to send (ns-2 `t_seqno_`), before anything this ACK releases.
    pub snd_nxt: u64,
    /// The newest segment this ACK acknowledges.
    pub newest: Option<SentSegment>,
    /// The segment at snd_una after this ACK, if it has been sent.
    pub oldest: Option<SentSegment>,
    pub dupthresh: u32,
}

/// A duplicate ACK with its timing, for [`CongestionControl::on_dupack_timed`].
#[derive(Clone, Copy, Debug)]
pub struct DupAckTiming {
    pub now: SimTime,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The segment at snd_una (the one the duplicate ACK asks for).
    pub oldest: Option<SentSegment>,
    /// Segments the sender may have outstanding: min(floor(cwnd), clamp, rwnd) (ns-2 `window()`).
    pub window: u64,
    /// The sender's RFC 6582 gate: the cumulative ACK covers `recover`.
    pub gate_open: bool,
    pub dupthresh: u32,
}

/// What the sender does with a duplicate ACK a variant has looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckStep {
    /// Apply the sender's own dup-ACK rules (RFC 5681 / 6582).
    Standard,
    /// The variant has dealt with it; send nothing extra.
    Handled,
    /// Retransmit snd_una now and restart the timer with backoff (ns-2
    /// `reset_rtx_timer(1)`), without entering fast recovery.
    Retransmit,
}

/// What the sender does after an ACK of new data during fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStep {
    /// Leave fast recovery (the hook has already set cwnd).
    Exit,
    /// Stay in fast recovery.
    Stay {
        /// Retransmit the first unacknowledged segment now.
        retransmit: bool,
        /// Restart the retransmission timer for this ACK.
        restart_timer: bool,
    },
}

/// ssthresh after a loss: max(FlightSize / 2, 2 segments) (RFC 5681 Eq. 4).
pub fn halve(flight: u64) -> f64 {
    ((flight / 2) as f64).max(2.0)
}

/// Hooks called by the sender. Defaults are RFC 5681 Reno.
pub trait CongestionControl {
    /// A new ACK outside fast recovery. ns-2 per-ACK counting (no ABC):
    /// slow start while cwnd < ssthresh, else congestion avoidance.
    fn on_ack(&mut self, w: &mut Window, _ack: &AckInfo) {
        if w.cwnd() < w.ssthresh() {
            w.set_cwnd(w.cwnd() + 1.0); // RFC 5681 §3.1 slow start
        } else {
            w.set_cwnd(w.cwnd() + 1.0 / w.cwnd()); // RFC 5681 §3.1 Eq. 3, in segments
        }
    }

    /// The dup-ACK threshold was reached: fast retransmit and enter fast recovery.
    fn on_fast_retransmit(&mut self, w: &mut Window, flight: u64, dupthresh: u32) {
        w.set_ssthresh(halve(flight)); // RFC 5681 §3.2 step 2
        w.set_cwnd(w.ssthresh() + dupthresh as f64); // RFC 5681 §3.2 step 3
    }

    /// Another duplicate ACK during fast recovery.
    fn on_dupack_in_recovery(&mut self, w: &mut Window) {
        w.set_cwnd(w.cwnd() + 1.0); // RFC 5681 §3.2 step 4
    }

    /// A new ACK during fast recovery.
    fn on_recovery_ack(&mut self, w: &mut Window, _ack: &AckInfo) -> RecoveryStep {
        w.set_cwnd(w.ssthresh()); // RFC 5681 §3.2 step 6: deflate and leave
        RecoveryStep::Exit
    }

    /// Whether reaching the dup-ACK threshold enters fast recovery (Reno and
    /// later) or restarts from one segment (Tahoe).
    fn fast_recovery(&self) -> bool {
        true
    }

    /// The retransmission timer expired.
    fn on_rto(&mut self, w: &mut Window, flight: u64) {
        w.set_ssthresh(halve(flight)); // RFC 5681 §3.1 Eq. 4
        w.set_cwnd(1.0); // RFC 5681 §3.1: LW = 1 segment
    }

    /// The retransmission timer expired at `now` (the sender calls this one).
    fn on_timeout(&mut self, w: &mut Window, flight: u64, _now: SimTime) {
        self.on_rto(w, flight);
    }

    /// A data segment leaves the sender.
    fn on_send(&mut self, _now: SimTime, _seq: u64, _retransmit: bool) {}

    /// Every duplicate ACK, before the sender's own dup-ACK rules.
    fn on_dupack_timed(&mut self, _w: &mut Window, _d: &DupAckTiming) -> DupAckStep {
        DupAckStep::Standard
    }

    /// Every ACK of new data, after `on_ack` / `on_recovery_ack`. Returns
    /// true to retransmit snd_una now.
    fn on_ack_timed(&mut self, _w: &mut Window, _t: &AckTiming) -> bool {
        false
    }
}

/// Tahoe as ns-2's `Agent/TCP` (tcp.cc `dupack_action`, the `tahoe_action`
/// branch): at the dup-ACK threshold, ssthresh = FlightSize / 2 and cwnd = 1
/// (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE)`), and the sender goes back to
/// snd_una (`reset_rtx_timer(0, 0)`); further dup ACKs change nothing.
#[derive(Clone, Debug, Default)]
pub struct Tahoe;
impl CongestionControl for Tahoe {
    fn on_fast_retransmit(&mut self, w: &mut Window, flight: u64, _dupthresh: u32) {
        w.set_ssthresh(halve(flight));
        w.set_cwnd(1.0);
    }
    fn fast_recovery(&self) -> bool {
        false
    }
}

/// RFC 5681 Reno: every default hook.
#[derive(Clone, Debug, Default)]
pub struct Reno;
impl CongestionControl for Reno {}

/// RFC 6582 NewReno. Partial ACKs use the "Impatient" timer variant
/// (RFC 6582 §3.2 step 5 and §4: restart the timer on the first partial ACK
/// only); a full ACK leaves with cwnd = min(ssthresh, FlightSize + 1)
/// (RFC 6582 §3.2 step 6 option 1, avoids a burst).
#[derive(Clone, Debug, Default)]
pub struct NewReno;
impl CongestionControl for NewReno {
    fn on_recovery_ack(&mut self, w: &mut Window, ack: &AckInfo) -> RecoveryStep {
        if ack.full {
            // RFC 6582 §3.2 step 6, option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS)
            let flight = ack.flight.max(1) as f64;
            w.set_cwnd(w.ssthresh().min(flight + 1.0));
            RecoveryStep::Exit
        } else {
            // RFC 6582 §3.2 step 5: deflate by the amount acked, add back one SMSS.
            w.set_cwnd(w.cwnd() - ack.acked as f64 + 1.0);
            RecoveryStep::Stay { retransmit: true, restart_timer: ack.first_partial }
        }
    }
}

/// The algorithm of one connection (enum dispatch, as smoltcp's `AnyController`).
#[derive(Clone, Debug)]
pub enum Congestion {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(super::sack::Sack),
    /// Boxed: its per-round state is much larger than the other variants'.
    Vegas(Box<Vegas>),
}

impl Congestion {
    /// `vegas` is read only for `Variant::Vegas`.
    pub fn new(v: Variant, vegas: super::VegasParams) -> Congestion {
        match v {
            Variant::Tahoe => Congestion::Tahoe(Tahoe),
            Variant::Reno => Congestion::Reno(Reno),
            Variant::NewReno => Congestion::NewReno(NewReno),
            Variant::Sack => Congestion::Sack(super::sack::Sack),
            Variant::Vegas => Congestion::Vegas(Box::new(Vegas::new(vegas))),
        }
    }
    #[allow(dead_code)]
    pub fn variant(&self) -> Variant {
        match self {
            Congestion::Tahoe(_) => Variant::Tahoe,
            Congestion::Reno(_) => Variant::Reno,
            Congestion::NewReno(_) => Variant::NewReno,
            Congestion::Sack(_) => Variant::Sack,
            Congestion::Vegas(_) => Variant::Vegas,
        }
    }
    pub fn hooks(&mut self) -> &mut dyn CongestionControl {
        match self {
            Congestion::Tahoe(c) => c,
            Congestion::Reno(c) => c,
            Congestion::NewReno(c) => c,
            Congestion::Sack(c) => c,
            Congestion::Vegas(c) => c.as_mut(),
        }
    }
}
