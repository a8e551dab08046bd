//! ADTCP (Fu, Greenstein, Meng, Lu, "Design and Implementation of a
//! TCP-Friendly Transport Protocol for Ad Hoc Wireless Networks", ICNP 2002):
//! the receiver estimates the network state from four end-to-end metrics,
//! the ACKs carry it back, and the sender reacts to a loss according to it:
//! a window reduction only for congestion.
//!
//! What we read and what we chose. `search` returned only the paper's
//! abstract and introduction, so the rules below follow the design as seed 001
//! (§2, §5) and the brief summarise it, and every number is ours:
//!
//! - **Metrics**, one sample per data segment that arrives:
//!   - IDD, inter-packet delay difference: (r_i - r_{i-1}) - (s_i - s_{i-1})
//!     for consecutive arrivals, r the arrival and s the send time (the
//!     sender's timestamp: ADTCP data segments carry a 12-byte timestamp
//!     option, [`TIMESTAMP_OPTION`]). Queues building up make it grow.
//!   - STT, short-term throughput: payload bytes that arrived in the last
//!     [`Params::stt_window`] (0.5 s, our choice), per second.
//!   - POR, out-of-order ratio: an arrival is out of order if a segment sent
//!     after it arrived first (send timestamps, so a retransmission that
//!     fills a hole is not counted as reordering); the sample is 0 or 1.
//!   - PLR, loss ratio: for an arrival above the highest segment seen, the
//!     fraction of the newly covered sequence span that is missing; 0 for
//!     the others.
//! - **Relative sample density**: each metric is an EWMA of its samples
//!   (gain 1/4) compared with its own last [`Params::history`] values (64): it
//!   is *high* if at least 70 % of them lie below it (ties count half), *low*
//!   if at most 30 % do, else neither. The thresholds adapt to the path with
//!   no absolute numbers; a metric with fewer than 8 values in its history
//!   is neither.
//! - **States** (checked in this order): disconnection if nothing arrived for
//!   [`Params::silence`] (1 s), and on the first arrival after such a
//!   silence; congestion if IDD is high and STT is low; route change if POR
//!   is high; channel error if PLR is high; otherwise normal.
//! - **Sender** ([`AdtcpSender`]): on three duplicate ACKs, congestion (or
//!   normal, or no state yet) → the variant's usual fast retransmit; channel
//!   error, route change or disconnection → retransmit the segment, window
//!   and ssthresh unchanged. On a retransmission timeout, congestion (or no
//!   state yet) → the usual timeout; any other state → disconnection:
//!   freeze window, ssthresh and RTO and probe every `probe_interval` until
//!   an ACK arrives (tcp/elfn.rs), which is how ADTCP keeps a large window
//!   across route changes (seed 001 §5). The window reaction goes through
//!   the congestion hooks, so FeW's fractional growth (`few_alpha`) applies.
//! - The state rides in the ACK's reserved header bits (3 bits, no bytes).

use std::collections::VecDeque;

use crate::time::{Dur, SimTime};

/// Bytes a data segment carries for the sender's timestamp: the RFC 7323
/// timestamp option (10 bytes) padded to 12.
pub const TIMESTAMP_OPTION: u16 = 12;

/// The network state the receiver reports in its ACKs (a wire field).
pub use crate::wire::NetState;

/// Where a metric's current value lies among its recent values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Low,
    Mid,
    High,
}

/// The detector's parameters (all our choices; see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Values of each metric kept to rank the current one.
    pub history: usize,
    /// Fewer values than this: the metric is neither high nor low.
    pub min_history: usize,
    /// EWMA gain of each metric's samples.
    pub gain: f64,
    /// High: at least this fraction of the history lies below the value.
    pub high: f64,
    /// Low: at most this fraction of the history lies below the value.
    pub low: f64,
    /// The STT averaging window.
    pub stt_window: Dur,
    /// No arrival for this long means disconnection.
    pub silence: Dur,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            history: 64,
            min_history: 8,
            gain: 0.25,
            high: 0.7,
            low: 0.3,
            stt_window: Dur::from_millis(500),
            silence: Dur::from_millis(1000),
        }
    }
}

/// One metric: its EWMA, its recent values and its current level.
#[derive(Clone, Debug, Default)]
struct Metric {
    ewma: Option<f64>,
    hist: VecDeque<f64>,
    level: Option<Level>,
}

impl Metric {
    fn sample(&mut self, x: f64, p: &Params) {
        let v = match self.ewma {
            None => x,
            Some(e) => e + p.gain * (x - e),
        };
        self.ewma = Some(v);
        self.level = Some(rank(v, &self.hist, p));
        self.hist.push_back(v);
        if self.hist.len() > p.history {
            self.hist.pop_front();
        }
    }
    fn level(&self) -> Level {
        self.level.unwrap_or(Level::Mid)
    }
}

/// Relative sample density: the share of `hist` below `v` (ties half).
fn rank(v: f64, hist: &VecDeque<f64>, p: &Params) -> Level {
    if hist.len() < p.min_history {
        return Level::Mid;
    }
    let below = hist.iter().filter(|&&h| h < v).count() as f64;
    let equal = hist.iter().filter(|&&h| h == v).count() as f64;
    let r = (below + equal / 2.0) / hist.len() as f64;
    if r >= p.high {
        Level::High
    } else if r <= p.low {
        Level::Low
    } else {
        Level::Mid
    }
}

/// The receiver's state detector, fed every data segment that arrives.
#[derive(Clone, Debug)]
pub struct Detector {
    p: Params,
    idd: Metric,
    stt: Metric,
    por: Metric,
    plr: Metric,
    /// The previous arrival: (arrival time, send time).
    prev: Option<(SimTime, SimTime)>,
    /// Latest send time among the segments that arrived.
    newest_sent: Option<SimTime>,
    /// Highest segment number that arrived.
    highest: Option<u64>,
    /// Arrivals in the STT window: (time, payload bytes).
    recent: VecDeque<(SimTime, u32)>,
    recent_bytes: u64,
    /// The latest arrival came after a silence.
    reconnected: bool,
}

impl Detector {
    pub fn new(p: Params) -> Detector {
        Detector {
            p,
            idd: Metric::default(),
            stt: Metric::default(),
            por: Metric::default(),
            plr: Metric::default(),
            prev: None,
            newest_sent: None,
            highest: None,
            recent: VecDeque::new(),
            recent_bytes: 0,
            reconnected: false,
        }
    }

    /// A data segment `seqno` of `bytes` payload, sent at `sent`, arrived at `now`.
    pub fn on_arrival(&mut self, now: SimTime, sent: SimTime, seqno: u64, bytes: u32) {
        let p = &self.p;
        self.reconnected = self.prev.is_some_and(|(r, _)| now.since(r) > p.silence);
        // IDD: how much more the arrivals were spaced than the departures.
        // Not across a silence, where the gap is the outage, not a queue.
        if let Some((r0, s0)) = self.prev.filter(|_| !self.reconnected) {
            let idd_ns = (now.0 as i128 - r0.0 as i128) - (sent.0 as i128 - s0.0 as i128);
            self.idd.sample(idd_ns as f64 / 1e9, p);
        }
        self.prev = Some((now, sent));
        // STT over the last stt_window.
        self.recent.push_back((now, bytes));
        self.recent_bytes += bytes as u64;
        while let Some(&(t, b)) = self.recent.front() {
            if now.since(t) < p.stt_window {
                break;
            }
            self.recent.pop_front();
            self.recent_bytes -= b as u64;
        }
        self.stt.sample(self.recent_bytes as f64 / p.stt_window.as_secs_f64(), p);
        // POR: a segment sent after this one has already arrived.
        let late = self.newest_sent.is_some_and(|s| sent < s);
        self.por.sample(if late { 1.0 } else { 0.0 }, p);
        self.newest_sent = Some(self.newest_sent.map_or(sent, |s| s.max(sent)));
        // PLR: the share of the newly covered span that did not arrive.
        let loss = match self.highest {
            Some(h) if seqno > h => (seqno - h - 1) as f64 / (seqno - h) as f64,
            None if seqno > 0 => seqno as f64 / (seqno + 1) as f64,
            _ => 0.0,
        };
        self.plr.sample(loss, p);
        self.highest = Some(self.highest.map_or(seqno, |h| h.max(seqno)));
    }

    /// The state to report in an ACK sent at `now`.
    pub fn state(&self, now: SimTime) -> NetState {
        let silent = self.prev.is_some_and(|(r, _)| now.since(r) > self.p.silence);
        if silent || self.reconnected {
            NetState::Disconnection
        } else if self.idd.level() == Level::High && self.stt.level() == Level::Low {
            NetState::Congestion
        } else if self.por.level() == Level::High {
            NetState::RouteChange
        } else if self.plr.level() == Level::High {
            NetState::ChannelError
        } else {
            NetState::Normal
        }
    }

    /// The metrics' current levels: IDD, STT, POR, PLR (diagnostics, tests).
    #[cfg(test)]
    pub fn levels(&self) -> [Level; 4] {
        [self.idd.level(), self.stt.level(), self.por.level(), self.plr.level()]
    }
}

/// What the sender does at a loss indication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// The variant's usual window reduction.
    Reduce,
    /// Retransmit the segment; window and ssthresh unchanged.
    RetransmitOnly,
    /// Disconnection: freeze and probe (tcp/elfn.rs standby).
    Freeze,
}

/// The sender's side: the latest state the ACKs carried, and the reaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdtcpSender {
    pub last: Option<NetState>,
}

impl AdtcpSender {
    pub fn observe(&mut self, s: NetState) {
        self.last = Some(s);
    }

    /// Three duplicate ACKs: reduce only for congestion (or with no evidence
    /// against it: normal, or no state yet, which keeps ADTCP TCP-friendly).
    pub fn on_dupacks(&self) -> Reaction {
        match self.last {
            None | Some(NetState::Normal) | Some(NetState::Congestion) => Reaction::Reduce,
            Some(_) => Reaction::RetransmitOnly,
        }
    }

    /// A retransmission timeout: nothing came back for an RTO. Unless the
    /// receiver last saw congestion, the path is taken to be gone.
    pub fn on_timeout(&self) -> Reaction {
        match self.last {
            None | Some(NetState::Congestion) => Reaction::Reduce,
            Some(_) => Reaction::Freeze,
        }
    }
}
