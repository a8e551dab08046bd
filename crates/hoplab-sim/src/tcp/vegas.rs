//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995) as ns-2's
//! `Agent/TCP/Vegas` (tcp/tcp-vegas.cc, ns-2.35), the code the seeds ran.
//!
//! Three mechanisms, all in segments and seconds as ns-2 keeps them:
//! - **Congestion avoidance (§3.2).** Once per RTT (when the first segment
//!   sent after the previous evaluation is acknowledged) Vegas compares the
//!   expected rate, window / BaseRTT, with the actual rate, segments sent in
//!   the last RTT / the mean RTT of that round, and scales the difference
//!   by BaseRTT into "segments queued in the network":
//!   diff = round((expected - actual) * BaseRTT). Below α the window grows
//!   by one segment over the next RTT, above β it shrinks by one, in between
//!   it holds. BaseRTT is the smallest RTT seen.
//! - **Modified slow start (§3.3).** The window doubles only every other
//!   RTT (it stays fixed in between so that the comparison is valid), and
//!   Vegas leaves slow start when diff exceeds γ.
//! - **Fine-grained retransmission (§3.1).** Vegas times every segment and
//!   keeps its own timeout. A duplicate ACK retransmits at once if the
//!   oldest segment is older than that timeout (not waiting for three), and
//!   so do the first and second new ACKs after a retransmission, for the
//!   segment they now ask for. The window is cut (to 3/4, or 1/2 for a
//!   segment already retransmitted) only if the segment was sent after the
//!   last cut: losses of one window reduce it once.
//!
//! Where ns-2 departs from the paper we follow ns-2 (docs/ARCHITECTURE.md):
//! the actual rate uses the mean of the round's RTT samples, not one
//! distinguished segment; the expected rate counts snd_nxt - snd_una + 1
//! segments; BaseRTT is also reset to the last round's RTT whenever at most
//! one segment was sent in that round; leaving slow start also cuts cwnd by
//! an eighth and sets ssthresh to 2; a timeout restarts from two segments.

use super::congestion::{halve, AckInfo, AckTiming, Congestion, CongestionControl, DupAckStep, DupAckTiming, SentSegment, Window};
use super::config::TcpParams;
use crate::time::{Dur, SimTime};

/// Vegas thresholds in segments (ns-2 `v_alpha_`, `v_beta_`, `v_gamma_`, integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VegasParams {
    pub alpha: u32,
    pub beta: u32,
    pub gamma: u32,
}

impl Default for VegasParams {
    /// ns-2 tcl/lib/ns-default.tcl: `Agent/TCP/Vegas set v_alpha_ 1`, `v_beta_ 3`, `v_gamma_ 1`.
    fn default() -> Self {
        VegasParams { alpha: 1, beta: 3, gamma: 1 }
    }
}

impl VegasParams {
    /// The scenario's `vegas_alpha`, `vegas_beta`, `vegas_gamma`, defaults for unset ones.
    pub fn from_params(p: &TcpParams) -> VegasParams {
        let d = VegasParams::default();
        VegasParams {
            alpha: p.vegas_alpha.unwrap_or(d.alpha),
            beta: p.vegas_beta.unwrap_or(d.beta),
            gamma: p.vegas_gamma.unwrap_or(d.gamma),
        }
    }
}

/// Vegas's own fine-grained timeout, in seconds (ns-2 `v_sa_`, `v_sd_`,
/// `v_timeout_`): Jacobson's estimator with sa = 8 x srtt and sd = 4 x mean
/// deviation, timeout = (srtt + 2 x mdev) x 17/16.
#[derive(Clone, Copy, Debug)]
struct FineTimer {
    sa: f64,
    sd: f64,
    timeout: f64,
}

impl FineTimer {
    /// ns-2 `recv`, first ACK: sa = 8r, sd = r, timeout = 1.5r.
    fn new(r: f64) -> FineTimer {
        let (sa, sd) = (8.0 * r, r);
        FineTimer { sa, sd, timeout: (sa / 4.0 + sd) / 2.0 }
    }

    fn sample(&mut self, r: f64) {
        let n = r - self.sa / 8.0;
        self.sa += n;
        self.sd += n.abs() - self.sd / 4.0;
        self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
        self.timeout += self.timeout / 16.0;
    }
}

/// What Vegas did, for tests and diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VegasStats {
    /// Once-per-RTT evaluations of diff.
    pub evaluations: u64,
    /// Retransmissions on a duplicate ACK before the dup-ACK threshold,
    /// because the fine-grained timeout had expired (§3.1).
    pub early_retransmits: u64,
    /// Retransmissions on the first or second new ACK after a retransmission (§3.1).
    pub ack_retransmits: u64,
    /// Slow-start exits because diff exceeded γ (§3.3).
    pub gamma_exits: u64,
}

/// The state of one Vegas sender. See the module documentation.
#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    /// When the first segment was sent (ns-2 `firstsent_`, the origin of `vegastime()`).
    first_sent: Option<SimTime>,
    /// `None` until the first ACK (ns-2 `firstrecv_ < 0`).
    fine: Option<FineTimer>,
    /// Smallest RTT seen, seconds (`v_baseRTT_`).
    base_rtt: f64,
    /// RTT samples of the current round (`v_sumRTT_`, `v_cntRTT_`).
    rtt_sum: f64,
    rtt_count: u32,
    /// The round ends when this segment is acknowledged (`v_begseq_`), begun at `beg_time`.
    beg_seq: u64,
    beg_time: Option<SimTime>,
    /// cwnd increment per ACK during this round (`v_incr_`).
    incr: f64,
    /// Slow start grows only in rounds where this is set (`v_inc_flag_`).
    inc_flag: bool,
    /// New ACKs still to check after a retransmission (`v_worried_`).
    worried: u64,
    /// Vegas's duplicate-ACK count (`dupacks_`; set to the threshold after a retransmission).
    dupacks: u32,
    /// The window before inflation by duplicate ACKs (`v_newcwnd_`; ns-2's 0 is `None`).
    newcwnd: Option<f64>,
    /// When cwnd was last cut (`t_cwnd_changed_`); `None` = the first send.
    cwnd_changed: Option<SimTime>,
    /// The last window action was a timeout (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
    after_timeout: bool,
    last_diff: Option<i64>,
    stats: VegasStats,
}

impl Vegas {
    pub fn new(p: VegasParams) -> Vegas {
        Vegas {
            p,
            first_sent: None,
            fine: None,
            base_rtt: f64::INFINITY,
            rtt_sum: 0.0,
            rtt_count: 0,
            beg_seq: 0,
            beg_time: None,
            incr: 0.0,
            inc_flag: true,
            worried: 0,
            dupacks: 0,
            newcwnd: None,
            cwnd_changed: None,
            after_timeout: false,
            last_diff: None,
            stats: VegasStats::default(),
        }
    }

    #[allow(dead_code)]
    pub fn params(&self) -> VegasParams {
        self.p
    }
    /// BaseRTT, once an ACK has arrived.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn base_rtt(&self) -> Option<Dur> {
        self.fine.map(|_| Dur::from_secs_f64(self.base_rtt))
    }
    /// The fine-grained retransmission timeout, once an ACK has arrived.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn fine_timeout(&self) -> Option<Dur> {
        self.fine.map(|f| Dur::from_secs_f64(f.timeout))
    }
    /// diff (segments queued) at the latest once-per-RTT evaluation.
    #[cfg(test)]
    pub fn last_diff(&self) -> Option<i64> {
        self.last_diff
    }
    #[cfg(test)]
    pub fn stats(&self) -> &VegasStats {
        &self.stats
    }

    /// ns-2 `recv`: the first ACK of any kind starts the fine-grained
    /// clock from the time since the first transmission.
    fn start(&mut self, now: SimTime) {
        if self.fine.is_none() {
            let r = now.since(self.first_sent.unwrap_or(now)).as_secs_f64();
            self.base_rtt = r;
            self.fine = Some(FineTimer::new(r));
        }
    }

    /// ns-2 `vegas_expire`: the segment at snd_una is older than the fine-grained timeout.
    fn expired(&self, now: SimTime, oldest: Option<SentSegment>) -> bool {
        match (oldest, self.fine) {
            (Some(seg), Some(f)) => now.since(seg.sent_at).as_secs_f64() >= f.timeout,
            _ => false,
        }
    }

    fn cwnd_changed(&self) -> SimTime {
        self.cwnd_changed.or(self.first_sent).unwrap_or(SimTime::ZERO)
    }

    /// The once-per-RTT decision (§3.2, §3.3; ns-2 `recv`, "once per-rtt actions").
    fn evaluate(&mut self, w: &mut Window, t: &AckTiming) {
        let since = self.beg_time.or(self.first_sent).unwrap_or(t.now);
        let rtt = if self.rtt_count > 0 { self.rtt_sum / self.rtt_count as f64 } else { t.now.since(since).as_secs_f64() };
        self.rtt_sum = 0.0;
        self.rtt_count = 0;
        // Segments sent during the round that just ended.
        let rtt_len = t.snd_nxt as i64 - self.beg_seq as i64;
        if rtt > 0.0 {
            self.stats.evaluations += 1;
            // ns-2: BaseRTT also follows the round's RTT when at most one segment was in it.
            if rtt < self.base_rtt || rtt_len <= 1 {
                self.base_rtt = rtt;
            }
            let actual = rtt_len as f64 / rtt;
            // ns-2 counts t_seqno_ - last_ack_: the segments in flight plus one.
            let expected = (t.snd_nxt - t.snd_una + 1) as f64 / self.base_rtt;
            // C's int(x + 0.5): rounds, truncating towards zero below -0.5.
            let diff = ((expected - actual) * self.base_rtt + 0.5) as i64;
            self.last_diff = Some(diff);
            if w.cwnd() < w.ssthresh() {
                // §3.3: grow only every other RTT.
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0.0;
                } else if diff > self.p.gamma as i64 {
                    // Leave slow start a little below the window that queued γ segments.
                    w.set_ssthresh(2.0);
                    w.set_cwnd((w.cwnd() - w.cwnd() / 8.0).max(2.0));
                    self.incr = 0.0;
                    self.stats.gamma_exits += 1;
                } else {
                    self.incr = 1.0;
                }
            } else if diff > self.p.beta as i64 {
                // §3.2: one segment less now, and no growth in the next RTT.
                w.set_cwnd((w.cwnd() - 1.0).max(2.0));
                self.incr = 0.0;
            } else if diff < self.p.alpha as i64 {
                self.incr = 1.0 / w.cwnd(); // one segment over the next RTT
            } else {
                self.incr = 0.0;
            }
        }
        self.beg_seq = t.snd_nxt;
        self.beg_time = Some(t.now);
    }
}

impl CongestionControl for Vegas {
    /// ns-2 Vegas never calls `opencwnd`: all growth is in `on_ack_timed`.
    fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}

    /// ns-2 `VegasTcpAgent::timeout`: ssthresh halves, cwnd restarts at
    /// `v_slowstart_` = 2 segments, and the inflation record is cleared.
    fn on_timeout(&mut self, w: &mut Window, flight: u64, now: SimTime) {
        w.set_ssthresh(halve(flight));
        w.set_cwnd(2.0);
        self.dupacks = 0;
        self.newcwnd = None;
        self.cwnd_changed = Some(now);
        self.after_timeout = true;
    }

    fn on_send(&mut self, now: SimTime, _seq: u64, _retransmit: bool) {
        self.first_sent.get_or_insert(now);
    }

    /// ns-2 `recv`, duplicate ACK: retransmit on the dup-ACK threshold or as
    /// soon as the fine-grained timeout has expired (§3.1); reduce the window
    /// only for a segment sent since the last cut, then inflate it by the
    /// duplicate ACKs (Reno-style) until the next new ACK.
    fn on_dupack_timed(&mut self, w: &mut Window, d: &DupAckTiming) -> DupAckStep {
        self.start(d.now);
        self.dupacks += 1;
        let Some(seg) = d.oldest else { return DupAckStep::Handled };
        let expired = self.expired(d.now, d.oldest);
        if expired || self.dupacks == d.dupthresh {
            // ns-2 bug_fix_: after a timeout, not for the window it went back over.
            if !d.gate_open && self.after_timeout {
                return DupAckStep::Handled;
            }
            self.after_timeout = false;
            if self.dupacks < d.dupthresh {
                self.stats.early_retransmits += 1;
            }
            // Check the first one or two new ACKs too.
            self.worried = (d.snd_nxt - d.snd_una + 1).min(2);
            if let Some(f) = self.fine.as_mut() {
                // Back the fine timer off: doubled for a repeated loss, else by an eighth.
                f.timeout += if seg.retransmitted { f.timeout } else { f.timeout / 8.0 };
            }
            // §3.1: only a loss at the current rate cuts the window.
            if self.cwnd_changed() < seg.sent_at {
                let win = d.window;
                let win = if win <= 3 {
                    2
                } else if seg.retransmitted {
                    win / 2
                } else {
                    win - win / 4
                };
                self.newcwnd = Some(win as f64);
                w.set_cwnd((win + self.dupacks as u64) as f64);
                self.cwnd_changed = Some(d.now);
            }
            if !seg.retransmitted {
                self.dupacks = d.dupthresh;
            }
            return DupAckStep::Retransmit;
        }
        if self.dupacks > d.dupthresh {
            w.set_cwnd(w.cwnd() + 1.0); // inflation, as Reno's fast recovery
        }
        DupAckStep::Handled
    }

    /// ns-2 `recv`, new ACK: deflate, evaluate once per RTT, grow by the
    /// round's increment, take the fine-grained RTT sample, and check the
    /// next segment's age after a retransmission.
    fn on_ack_timed(&mut self, w: &mut Window, t: &AckTiming) -> bool {
        self.start(t.now);
        if self.dupacks > t.dupthresh {
            // ns-2 sets cwnd to v_newcwnd_ even when it is 0 (after a
            // timeout), which stalls the sender until the next timeout; we skip that.
            if let Some(n) = self.newcwnd.filter(|&n| w.cwnd() > n) {
                w.set_cwnd(n);
                w.set_ssthresh(2.0); // ns-2: "vegas ssthresh is used only during slow-start"
            }
        }
        self.dupacks = 0;
        if t.snd_una > self.beg_seq {
            self.evaluate(w, t);
        }
        // A slow-start round may cross ssthresh before it ends.
        if self.incr == 1.0 && w.cwnd() >= w.ssthresh() {
            self.incr = 0.0;
        }
        // Grow only while the window is in use (ns-2: cwnd - (t_seqno_ - last_ack_) <= 2).
        if self.incr > 0.0 && w.cwnd() - (t.snd_nxt - t.snd_una + 1) as f64 <= 2.0 {
            w.set_cwnd(w.cwnd() + self.incr);
        }
        // The fine-grained sample, from a segment sent once. ns-2 skips a
        // send time of 0 on its clock, i.e. segments sent with the first one.
        if let Some(seg) = t.newest.filter(|s| !s.retransmitted && Some(s.sent_at) != self.first_sent) {
            let r = t.now.since(seg.sent_at).as_secs_f64();
            self.rtt_sum += r;
            self.rtt_count += 1;
            if r > 0.0 {
                self.base_rtt = self.base_rtt.min(r);
                if let Some(f) = self.fine.as_mut() {
                    f.sample(r);
                }
            }
        }
        // §3.1: the first or second new ACK after a retransmission. (ns-2
        // also "retransmits" when nothing is outstanding; we do not.)
        if self.worried > 0 {
            self.worried -= 1;
            if self.expired(t.now, t.oldest) {
                self.dupacks = t.dupthresh;
                self.stats.ack_retransmits += 1;
                return true;
            }
            self.worried = 0;
        }
        false
    }
}

impl Congestion {
    /// The Vegas state, if this connection runs Vegas.
    #[cfg(test)]
    pub fn vegas(&self) -> Option<&Vegas> {
        match self {
            Congestion::Vegas(v) => Some(v.as_ref()),
            _ => None,
        }
    }
}
