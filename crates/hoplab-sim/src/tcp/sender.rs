//! One-way bulk TCP sender (RFC 5681, RFC 6582, RFC 6298), counting segments.
//!
//! Design choices:
//! - **Initial ssthresh** is the largest window TCP can advertise
//!   (65535 << 14 bytes, RFC 7323 §2.3) in segments: "arbitrarily high" as
//!   RFC 5681 §3.1 asks, but finite so traces stay plottable.
//! - **RTT sampling (Karn's rule, RFC 6298 §3)**: an ACK of new data yields
//!   one sample, timed from the newest segment it acknowledges, if that
//!   segment was sent only once and not before our latest retransmission.
//!   A retransmission cancels the timing of everything already in flight,
//!   whose ACK it may be what releases; segments sent after it are timed
//!   even when their ACK also covers the retransmitted one. This is ns-2's
//!   rule (tcp.cc: `reset_rtx_timer` clears `rtt_active_`, and the next new
//!   segment is timed; `newack` samples and ends the backoff once the ACK
//!   reaches it) and 4.4BSD's (`t_rtt = 0` on a timeout or fast
//!   retransmit). We also cancel timing at a NewReno partial-ACK
//!   retransmission, which ns-2 does not. Refusing a sample whenever an ACK
//!   also covers a retransmission instead keeps a lossy flow's RTO backed off
//!   for much longer (docs/ARCHITECTURE.md, "Crossing flows").
//!   With `rto_estimator = "ns2"` none of this applies: ns-2's own timer
//!   (`tcp::rtt::Ns2Rtt`) times one segment per RTT as tcp.cc does.
//! - **Dup-ACK gate**: fast retransmit needs the cumulative ACK to cover
//!   `recover` (set on entering recovery and on a timeout) for both variants
//!   (RFC 6582 §3.2 step 2; ns-2's `bugfix_`, on by default, does the same
//!   for Reno). No limited transmit (RFC 3042) unless `limited_transmit`
//!   (ns-2's `singledup_`, 1 in ns-default.tcl, which Agent/TCP (tahoe),
//!   Agent/TCP/Reno and Agent/TCP/Newreno read; Sack1 and Vegas never do).
//! - **Timeout**: go-back-N from snd_una (snd_nxt = snd_una, as ns-2 does);
//!   segments below the highest ever sent are re-sent as retransmissions.
//! - **stop()**: no new data after it; retransmissions of data already sent
//!   (fast retransmit, partial ACKs, go-back-N after a timeout) continue, so
//!   the data in flight at the stop time can still be delivered.

use std::collections::VecDeque;

use super::congestion::{AckInfo, AckTiming, Congestion, DupAckStep, DupAckTiming, RecoveryStep, SentSegment, Window};
use super::ecn::{self, EcnSender};
use super::few::Few;
use super::adtcp::{AdtcpSender, Reaction, TIMESTAMP_OPTION};
use super::elfn::{Cause, Standby};
use super::rtt::{Ns2Rtt, Rto, RttEstimator};
use super::scoreboard::{NextSeg, Scoreboard};
use super::{RtoEstimator, TcpConfig, Variant, MAX_WINDOW_BYTES};
use crate::series::{Series, SeriesLimits};
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

/// Counters of one sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Data segments sent, including retransmissions.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_samples: u64,
    /// Sum of RTT samples in seconds (mean = sum / samples).
    pub rtt_sum_s: f64,
    /// Sum of squared RTT samples in s² (for the standard deviation).
    pub rtt_sum_sq_s: f64,
    /// When the last byte of a finite transfer was acknowledged.
    pub done_at: Option<SimTime>,
    /// Seconds spent stalled in retransmission timeouts (seed 003 Table 4):
    /// each episode runs from when the first expiring timer was armed to the
    /// next new ACK, consecutive backed-off timeouts included.
    pub rto_time_s: f64,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// ELFN notifications delivered to this sender (tcp/elfn.rs).
    pub elfn_events: u64,
    /// Probes sent in standby (ELFN or ADTCP disconnection).
    pub probes: u64,
    /// Seconds spent in standby, timers and window frozen.
    pub standby_s: f64,
    /// ADTCP: loss indications (3 dup ACKs or a timeout) handled as
    /// congestion (incl. normal), channel error, route change, disconnection.
    pub adtcp_reactions: [u64; 4],
}

impl SenderStats {
    fn note_rtt(&mut self, r: Dur) {
        let s = r.as_secs_f64();
        self.rtt_samples += 1;
        self.rtt_sum_s += s;
        self.rtt_sum_sq_s += s * s;
    }
}

/// One point of the cwnd / ssthresh / srtt / rto time series.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSample {
    pub time: SimTime,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: Option<Dur>,
    pub rto: Dur,
}

/// Per outstanding segment: for RTT sampling under Karn's rule.
#[derive(Clone, Copy, Debug)]
struct SentInfo {
    sent_at: SimTime,
    retransmitted: bool,
}

impl SentInfo {
    fn segment(self) -> SentSegment {
        SentSegment { sent_at: self.sent_at, retransmitted: self.retransmitted }
    }
}

/// A bulk-data TCP sender. See the module documentation for its choices.
#[derive(Clone, Debug)]
pub struct TcpSender {
    /// Start of the current RTO episode, if one is under way.
    backoff_since: Option<SimTime>,
    /// When we last sent a retransmission: segments first sent before it
    /// are not timed (Karn's rule as ns-2 and 4.4BSD apply it).
    timed_from: SimTime,
    flow: u32,
    mss: u32,
    dupthresh: u32,
    /// Segments in the transfer and bytes of the last one; `None` = infinite.
    total_segments: Option<u64>,
    last_payload: u32,
    /// Oldest unacknowledged segment.
    snd_una: u64,
    /// Next segment to send (below snd_max after a go-back-N timeout).
    snd_nxt: u64,
    /// One past the highest segment ever sent.
    snd_max: u64,
    /// Segments snd_una..snd_max, oldest first.
    outstanding: VecDeque<SentInfo>,
    dupacks: u32,
    in_recovery: bool,
    partial_acks: u32,
    /// RFC 6582 `recover`: highest segment sent when recovery or a timeout began.
    recover: Option<u64>,
    /// Fast retransmission (or partial-ACK retransmission) to send first.
    pending_retransmit: Option<u64>,
    window: Window,
    /// Segments the receiver's advertised window admits (RFC 5681 §2 rwnd):
    /// a bound on what is outstanding, in every state.
    rwnd: u64,
    cc: Congestion,
    /// SACK flows only: the RFC 6675 scoreboard that drives loss recovery.
    sack: Option<Scoreboard>,
    rtt: Rto,
    rto_deadline: Option<SimTime>,
    stopped: bool,
    stats: SenderStats,
    /// The time series, when recorded: bounded (crate::series).
    trace: Option<Series<TraceSample>>,
    last_traced: Option<(f64, f64, Option<Dur>, Dur)>,
    /// FeW (seed 001 §4), when configured.
    few: Option<Few>,
    /// ECN-capable transport (RFC 3168), when configured.
    ecn: Option<EcnSender>,
    /// ELFN on: route-loss notifications are acted on (tcp/elfn.rs).
    elfn: bool,
    /// ADTCP on: the receiver's latest state (tcp/adtcp.rs).
    adtcp: Option<AdtcpSender>,
    probe_interval: Dur,
    /// ELFN / ADTCP standby: window and timers frozen, probing.
    standby: Option<Standby>,
    /// ns-2's one-way SYN (`tcp.syn`): its sequence number (the first), and
    /// the window to open when it is ACKed.
    syn: Option<(u64, u32)>,
    /// ns-2 `delay_growth_` (with `syn`): cwnd 1 until the SYN is ACKed.
    delay_growth: bool,
    /// IP + TCP header bytes of a data segment (`tcp.header_bytes`).
    header_bytes: u8,
    /// ns-2 `singledup_` in effect (tahoe, new_reno): and a dupack's one
    /// segment beyond the window still to send (tcp.cc send_one).
    limited_transmit: bool,
    limited_send: bool,
    /// `tcp.ns2_recover_gate`: one segment more than RFC 6582's reading.
    ns2_recover_gate: bool,
}


impl TcpSender {
    /// A sender for `total_bytes` (`None` = an infinite FTP source).
    pub fn new(flow: u32, cfg: &TcpConfig, total_bytes: Option<u64>, record_trace: bool) -> Self {
        let mss = cfg.mss.max(1);
        let (total_segments, last_payload) = match total_bytes {
            None => (None, mss),
            Some(b) => {
                let n = b.div_ceil(mss as u64);
                let rem = (b % mss as u64) as u32;
                (Some(n), if rem == 0 { mss } else { rem })
            }
        };
        let ssthresh = cfg.initial_ssthresh.map_or((MAX_WINDOW_BYTES / mss as u64) as f64, f64::from);
        // ns-2 tcp.cc set_initial_window: syn_ and delay_growth_ -> cwnd_ 1,
        // else initial_window() (the SYN is then one of its segments).
        let syn = cfg.syn.then_some((0, cfg.initial_cwnd.max(1)));
        let cwnd1 = syn.is_some() && cfg.delay_growth;
        let total_segments = total_segments.map(|n| n + syn.is_some() as u64);
        TcpSender {
            flow,
            mss,
            dupthresh: cfg.dupack_threshold.max(1),
            total_segments,
            last_payload,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            outstanding: VecDeque::new(),
            dupacks: 0,
            in_recovery: false,
            partial_acks: 0,
            recover: None,
            pending_retransmit: None,
            window: Window::new(if cwnd1 { 1 } else { cfg.initial_cwnd.max(1) }, ssthresh, cfg.cwnd_clamp()),
            rwnd: (cfg.advertised_window() as u64 / mss as u64).max(1),
            cc: Congestion::new(cfg.variant, cfg.vegas),
            sack: (cfg.variant == Variant::Sack).then(|| Scoreboard::new(cfg.dupack_threshold)),
            rtt: match cfg.rto_estimator {
                RtoEstimator::Rfc6298 => Rto::Rfc6298(RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max, cfg.clock_granularity)),
                RtoEstimator::Ns2 => Rto::Ns2(Ns2Rtt::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max, cfg.tick).with_rfc2988(cfg.ns2_rfc2988)),
            },
            rto_deadline: None,
            backoff_since: None,
            timed_from: SimTime::ZERO,
            stopped: false,
            stats: SenderStats::default(),
            trace: record_trace.then(|| Series::new(SeriesLimits::default())),
            last_traced: None,
            few: None,
            ecn: cfg.ecn.then(EcnSender::default),
            elfn: cfg.elfn,
            adtcp: cfg.adtcp.then(AdtcpSender::default),
            probe_interval: cfg.probe_interval,
            standby: None,
            syn,
            delay_growth: cfg.delay_growth,
            header_bytes: cfg.header_bytes.min(u8::MAX as u32) as u8,
            limited_transmit: cfg.limited_transmit && matches!(cfg.variant, Variant::Tahoe | Variant::Reno | Variant::NewReno),
            limited_send: false,
            ns2_recover_gate: cfg.ns2_recover_gate,
        }
        .with_few(cfg)
    }

    /// Number this connection's segments from `seq` on (a fresh
    /// connection whose first segment is `seq`; app/www.rs gives each
    /// download its own range). Call before anything is sent.
    pub fn starting_at(mut self, seq: u64) -> Self {
        debug_assert_eq!(self.snd_max, 0, "starting_at before the first segment");
        (self.snd_una, self.snd_nxt, self.snd_max) = (seq, seq, seq);
        self.total_segments = self.total_segments.map(|n| n + seq);
        self.sack = self.sack.take().map(|sb| sb.starting_at(seq));
        if let Some(s) = self.syn.as_mut() {
            s.0 = seq;
        }
        self
    }

    /// Record the time series with these limits (`None`: not at all).
    pub fn with_trace_limits(mut self, limits: Option<SeriesLimits>) -> Self {
        self.trace = limits.map(Series::new);
        self
    }

    fn with_few(mut self, cfg: &TcpConfig) -> Self {
        if let Some(p) = cfg.few {
            self.window.set_floor(p.w_min);
            self.few = Some(Few::new(p));
        }
        self
    }

    #[allow(dead_code)]
    pub fn flow(&self) -> u32 {
        self.flow
    }

    /// Feed an ACK segment received from the sink.
    pub fn handle_ack(&mut self, now: SimTime, ack: &TcpSegment) {
        let a = ack.ackno;
        let flight_before = self.snd_max - self.snd_una;
        if let Some(w) = ack.window.filter(|_| a >= self.snd_una && a <= self.snd_max) {
            // RFC 9293 §3.10.7.4: take SND.WND from an ACK that is not older
            // than the last one (our ACKs carry no data, so SEG.SEQ is fixed).
            self.rwnd = (w as u64 / self.mss as u64).max(1);
        }
        // RFC 6675 §2: with SACK, an ACK is a duplicate only if it SACKs new data.
        let sack_news = match self.sack.as_mut() {
            Some(sb) if a <= self.snd_max => sb.update(a, &ack.sack, self.snd_max),
            _ => true,
        };
        if let (Some(ad), Some(st)) = (self.adtcp.as_mut(), ack.adtcp) {
            ad.observe(st); // ADTCP: the receiver's latest state
        }
        if self.standby.is_some() && a <= self.snd_max {
            self.leave_standby(now); // Holland & Vaidya §5: an ACK ends standby
        }
        if a > self.snd_max {
            // Acknowledges data never sent: ignore (RFC 9293 §3.10.7.4).
        } else if a > self.snd_una {
            self.on_new_ack(now, a);
        } else if a == self.snd_una && self.snd_max > self.snd_una && ack.payload == 0 && sack_news {
            self.on_dupack(now); // RFC 5681 §2 DUPLICATE ACKNOWLEDGMENT
        }
        if ack.ecn.ece && a <= self.snd_max {
            self.on_ece(flight_before);
        }
        self.record(now);
    }

    fn on_new_ack(&mut self, now: SimTime, a: u64) {
        let acked = a - self.snd_una;
        // RFC 6298 §3 (Karn): time only a segment sent once, and not before
        // our latest retransmission (ns-2 tcp.cc rtt_active_ / rtt_seq_).
        let newest = self.outstanding.drain(..acked as usize).next_back();
        if let Rto::Rfc6298(est) = &mut self.rtt {
            if let Some(SentInfo { sent_at, retransmitted: false }) = newest.filter(|i| i.sent_at >= self.timed_from) {
                let r = now.since(sent_at);
                est.sample(r); // RFC 6298 (2.2)/(2.3), ends backoff
                self.stats.note_rtt(r);
            }
        }
        // ns-2 newreno `partialnewack_helper`: the timer restarts (first
        // partial ACK) before `partialnewack` can end the backoff.
        let rto_before = self.rtt.rto();
        if let Some(since) = self.backoff_since.take() {
            self.stats.rto_time_s += now.since(since).as_secs_f64();
        }
        self.snd_una = a;
        self.snd_nxt = self.snd_nxt.max(a);
        self.dupacks = 0;
        if self.pending_retransmit.is_some_and(|s| s < a) {
            self.pending_retransmit = None;
        }
        let flight = self.snd_max - self.snd_una;
        let mut restart_timer = true;
        let mut partial = false;
        // FeW scales the growth of both ACK hooks (Vegas grows in the timed one).
        let grown_from = (!self.in_recovery).then(|| (self.window.cwnd(), self.window.ssthresh()));
        if self.in_recovery {
            let full = self.recover.is_none_or(|r| a > r);
            let info = AckInfo { acked, flight, full, first_partial: !full && self.partial_acks == 0 };
            match self.cc.hooks().on_recovery_ack(&mut self.window, &info) {
                RecoveryStep::Exit => self.in_recovery = false,
                RecoveryStep::Stay { retransmit, restart_timer: restart } => {
                    partial = true;
                    self.partial_acks += 1;
                    if retransmit {
                        self.pending_retransmit = Some(self.snd_una); // RFC 6582 §3.2 step 5
                    }
                    restart_timer = restart; // RFC 6582 §4 "Impatient" variant
                }
            }
        } else {
            let info = AckInfo { acked, flight, full: false, first_partial: false };
            self.cc.hooks().on_ack(&mut self.window, &info);
        }
        let timing = AckTiming {
            now,
            snd_una: a,
            snd_nxt: self.snd_nxt,
            newest: newest.map(SentInfo::segment),
            oldest: self.outstanding.front().map(|i| i.segment()),
            dupthresh: self.dupthresh,
        };
        if self.cc.hooks().on_ack_timed(&mut self.window, &timing) {
            self.pending_retransmit = Some(self.snd_una); // Vegas: fine-grained check after a retransmission
        }
        if let (Some(f), Some((cwnd, ssthresh))) = (&self.few, grown_from) {
            f.scale_increase(&mut self.window, cwnd, ssthresh); // seed 001 Eq. 9
        }
        if self.delay_growth && self.syn.is_some_and(|(s, _)| a == s + 1) {
            // ns-2 tcp.cc recv (`last_ack_ == 0 && delay_growth_`): the ACK
            // of the SYN alone opens the window to windowInit_.
            self.window.set_cwnd(self.syn.map_or(1, |(_, w)| w) as f64);
        }
        let mut rto = self.rtt.rto();
        if let Some(ns2) = self.rtt.ns2() {
            if partial {
                ns2.on_partial_ack(a - 1); // tcp-newreno.cc partialnewack: no sample
                rto = rto_before;
            } else if let Some(r) = ns2.on_new_ack(now, a - 1) {
                self.stats.note_rtt(r); // tcp.cc newack: the timed segment is covered
                rto = self.rtt.rto(); // timerfix_: newtimer after rtt_update
            }
        }
        if flight == 0 {
            self.rto_deadline = None; // RFC 6298 (5.2)
        } else if restart_timer {
            self.rto_deadline = Some(now + rto); // RFC 6298 (5.3)
        }
        if self.stats.done_at.is_none() && self.is_done() {
            self.stats.done_at = Some(now);
        }
    }

    fn on_dupack(&mut self, now: SimTime) {
        self.dupacks += 1;
        // RFC 6582 §3.2 step 2: only if the cumulative ACK covers `recover`
        // (snd_una - 1 >= recover), so one window is not halved twice. ns-2
        // asks `highest_ack_ > recover_` (tcp.cc dupack_action, tcp-reno.cc,
        // tcp-newreno.cc, tcp-sack1.cc): snd_una - 1 > recover.
        let gate_open = self.recover.is_none_or(|r| self.snd_una > r + u64::from(self.ns2_recover_gate));
        let timing = DupAckTiming {
            now,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            oldest: self.outstanding.front().map(|i| i.segment()),
            window: self.window.usable().min(self.rwnd),
            gate_open,
            dupthresh: self.dupthresh,
        };
        match self.cc.hooks().on_dupack_timed(&mut self.window, &timing) {
            DupAckStep::Standard => {}
            DupAckStep::Handled => return,
            DupAckStep::Retransmit => {
                // ns-2 tcp-vegas.cc: recover_ = maxseq_, reset_rtx_timer(1), output(last_ack_ + 1).
                self.recover = Some(self.snd_max - 1);
                self.stats.fast_retransmits += 1;
                self.pending_retransmit = Some(self.snd_una);
                self.rtt.backoff();
                if let Some(ns2) = self.rtt.ns2() {
                    ns2.cancel_timing(); // tcp.cc reset_rtx_timer
                }
                self.rto_deadline = Some(now + self.rtt.rto());
                return;
            }
        }
        if self.in_recovery {
            self.cc.hooks().on_dupack_in_recovery(&mut self.window); // RFC 5681 §3.2 step 4
            return;
        }
        // RFC 6675 §5 (2.b): with SACK, also when IsLost(HighACK + 1).
        let sack_lost = self.sack.as_ref().is_some_and(|sb| sb.is_lost(self.snd_una));
        if (self.dupacks == self.dupthresh || sack_lost) && gate_open {
            let flight = self.snd_max - self.snd_una;
            self.recover = Some(self.snd_max - 1); // RFC 6582 §3.2 step 2
            if self.adtcp_retransmit_only() {
                return;
            }
            self.cc.hooks().on_fast_retransmit(&mut self.window, flight, self.dupthresh);
            self.stats.fast_retransmits += 1;
            if let Some(ns2) = self.rtt.ns2() {
                // ns-2 tcp-newreno.cc / tcp.cc dupack_action: reset_rtx_timer
                // restarts the timer and ends the timing, for every variant.
                ns2.cancel_timing();
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            if self.cc.hooks().fast_recovery() {
                self.in_recovery = true;
                self.partial_acks = 0;
                self.pending_retransmit = Some(self.snd_una); // RFC 5681 §3.2 step 2
                if let Some(sb) = self.sack.as_mut() {
                    sb.enter_recovery(self.snd_una); // RFC 6675 §5 (4.3)
                }
            } else {
                // Tahoe (ns-2 tcp.cc `reset_rtx_timer(0, 0)`): go back to
                // snd_una with cwnd 1 and restart the timer, without backoff.
                self.snd_nxt = self.snd_una;
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        } else if self.limited_transmit && self.dupacks < self.dupthresh {
            // ns-2 tcp.cc recv / tcp-newreno.cc recv: `dupacks_ <
            // numdupacks_ && singledup_` -> send_one() (RFC 3042).
            self.limited_send = true;
        }
    }

    /// The retransmission timer expired. Does nothing if it has not (a
    /// caller may wake early or for another timer).
    pub fn handle_timeout(&mut self, now: SimTime) {
        if let Some(s) = self.standby.as_mut() {
            s.on_timer(now, self.probe_interval); // frozen: only the probe timer runs
            return;
        }
        if let Some(f) = self.few.as_mut() {
            f.handle_timeout(now); // the W < 1 send timer (seed 001 §4)
        }
        match self.rto_deadline {
            Some(t) if now >= t => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.limited_send = false;
        let repeated = self.backoff_since.is_some();
        if self.backoff_since.is_none() {
            // The timer that just expired was armed one RTO ago.
            self.backoff_since = Some(SimTime(now.0.saturating_sub(self.rtt.rto().0)));
        }
        let flight = self.snd_max - self.snd_una;
        let before = (self.window.cwnd(), self.window.ssthresh());
        if self.adtcp_freeze(now) {
            return;
        }
        self.cc.hooks().on_timeout(&mut self.window, flight, now); // RFC 5681 §3.1 Eq. 4
        if let Some(f) = self.few.as_mut() {
            f.on_rto(&mut self.window, before, flight, repeated); // seed 001 §4 bounds
        }
        self.rtt.backoff(); // RFC 6298 (5.5)
        if let Some(ns2) = self.rtt.ns2() {
            ns2.cancel_timing(); // tcp.cc timeout -> reset_rtx_timer(0, 1)
        }
        if self.snd_max > 0 {
            self.recover = Some(self.snd_max - 1); // RFC 6582 §3.2 step 2 / ns-2
        }
        self.in_recovery = false;
        self.dupacks = 0;
        self.pending_retransmit = None;
        if let Some(sb) = self.sack.as_mut() {
            sb.clear(); // ns-2 Sack1 `ClearScoreBoard`; RFC 2018 §5.1
        }
        self.snd_nxt = self.snd_una; // RFC 6298 (5.4), go-back-N as ns-2
        self.rto_deadline = Some(now + self.rtt.rto()); // RFC 6298 (5.6)
        self.record(now);
    }

    /// Next data segment to send at `now`: a pending fast/partial-ACK
    /// retransmission first (regardless of the window, RFC 5681 §3.2 step 2),
    /// then the segment at snd_nxt if fewer than min(floor(cwnd), clamp,
    /// receive window) segments would be outstanding. `None` when nothing may be sent.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        self.record(now);
        if self.standby.is_some() {
            return self.poll_probe(now);
        }
        if let Some(seq) = self.pending_retransmit.take() {
            if seq >= self.snd_una && seq < self.snd_max {
                return Some(self.emit(now, seq));
            }
        }
        if std::mem::take(&mut self.limited_send) {
            if let Some(seg) = self.send_one(now) {
                return Some(seg);
            }
        }
        if self.in_recovery && self.sack.is_some() {
            return self.sack_transmit(now);
        }
        let seq = self.snd_nxt;
        // RFC 5681 §2: what may be outstanding is min(cwnd, rwnd).
        let mut usable = self.window.usable().min(self.rwnd);
        if usable == 0 && seq == self.snd_una {
            usable = self.few_paced_slot(now);
        }
        if seq >= self.snd_una + usable {
            return None;
        }
        let resend = seq < self.snd_max;
        let new_allowed = !self.stopped && self.total_segments.is_none_or(|n| seq < n);
        if !resend && !new_allowed {
            return None;
        }
        self.snd_nxt += 1;
        Some(self.emit(now, seq))
    }

    /// ns-2 tcp.cc send_one: at a first or second dupack, the segment at
    /// snd_nxt if the window admits it (`t_seqno_ <= highest_ack_ + wnd_`:
    /// the receiver's and the clamp, ns-2's window_), there is data, and it
    /// leaves at most cwnd + dupacks outstanding (`t_seqno_ <= highest_ack_
    /// + cwnd_ + dupacks_`), beyond what cwnd alone allows.
    fn send_one(&mut self, now: SimTime) -> Option<TcpSegment> {
        let seq = self.snd_nxt;
        let outstanding = seq + 1 - self.snd_una;
        let data = seq < self.snd_max || (!self.stopped && self.total_segments.is_none_or(|n| seq < n));
        let wnd = self.rwnd.min(self.window.clamp().map_or(u64::MAX, u64::from));
        if !data || outstanding > wnd || outstanding as f64 > self.window.cwnd() + self.dupacks as f64 {
            return None;
        }
        self.snd_nxt += 1;
        Some(self.emit(now, seq))
    }

    /// RFC 6675 §5 (C): during SACK recovery, send while cwnd - pipe >= 1
    /// segment, what NextSeg picks. New data also stays within the receive
    /// window and the clamp from snd_una (ns-2 Sack1: `highest_ack_ + wnd_`).
    fn sack_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let sb = self.sack.as_mut()?;
        if sb.pipe(self.snd_max) >= self.window.usable() {
            return None;
        }
        let seq = self.snd_nxt;
        let limit = self.rwnd.min(self.window.clamp().map_or(u64::MAX, u64::from));
        let new_data = seq == self.snd_max
            && seq < self.snd_una + limit
            && !self.stopped
            && self.total_segments.is_none_or(|n| seq < n);
        match sb.next_seg(new_data)? {
            NextSeg::Retransmit(s) => Some(self.emit(now, s)),
            NextSeg::NewData => {
                self.snd_nxt += 1;
                Some(self.emit(now, seq))
            }
        }
    }

    fn emit(&mut self, now: SimTime, seq: u64) -> TcpSegment {
        let retransmit = seq < self.snd_max;
        let info = SentInfo { sent_at: now, retransmitted: retransmit };
        if retransmit {
            self.outstanding[(seq - self.snd_una) as usize] = info;
            self.stats.retransmissions += 1;
            // Karn: the segments in flight are no longer timed.
            self.timed_from = now;
        } else {
            debug_assert_eq!(seq, self.snd_max);
            self.outstanding.push_back(info);
            self.snd_max = seq + 1;
        }
        self.stats.segments_sent += 1;
        if let Some(ns2) = self.rtt.ns2() {
            ns2.on_send(now, seq, !retransmit); // tcp.cc output: rtt_active_ / rtt_seq_ / rtt_ts_
        }
        self.cc.hooks().on_send(now, seq, retransmit);
        if let Some(f) = self.few.as_mut() {
            f.on_sent(now);
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto()); // RFC 6298 (5.1)
        }
        let is_syn = self.syn.is_some_and(|(s, _)| seq == s);
        let payload = match self.total_segments {
            _ if is_syn => 0, // tcp.cc output: the SYN is tcpip_base_hdr_size_ bytes
            Some(n) if seq + 1 == n => self.last_payload,
            _ => self.mss,
        };
        // Data segments after a SYN start one number later in the stream.
        let index = if self.syn.is_some_and(|(s, _)| seq > s) { seq - 1 } else { seq };
        let ecn = self.ecn.as_mut().map(|e| e.outgoing(seq, retransmit)).unwrap_or_default();
        // tcp.cc output: a SYN is tcpip_base_hdr_size_ (40) bytes; data
        // adds headersize() if useHeaders_ (`tcp.header_bytes`, else 0).
        let headers = if is_syn { crate::wire::TCPIP_HEADERS } else { self.header_bytes };
        let mut seg = TcpSegment { flow: self.flow, seqno: seq, ackno: 0, payload, options: 0, sack: Default::default(), retransmit, window: None, ecn, adtcp: None, checksum: 0, syn: is_syn, headers };
        // What we believe segment `seq` holds (tcp/stream.rs): the sink checks it.
        seg.checksum = super::stream::range_checksum(self.flow, index * self.mss as u64, payload);
        if self.adtcp.is_some() {
            seg.options += TIMESTAMP_OPTION; // ADTCP's IDD needs the send time
        }
        seg
    }

    /// FeW with W < 1 and nothing in flight: one segment may go if RTT/W has
    /// passed since the last (seed 001 §4); else its timer is armed.
    fn few_paced_slot(&mut self, now: SimTime) -> u64 {
        let rtt = self.rtt.srtt().unwrap_or(self.rtt.rto());
        let cwnd = self.window.cwnd();
        match self.few.as_mut() {
            Some(f) if cwnd < 1.0 => f.may_send(now, cwnd, rtt) as u64,
            _ => 0,
        }
    }

    /// An ACK carried ECN-Echo (RFC 3168 §6.1.2).
    fn on_ece(&mut self, flight_before: u64) {
        let Some(e) = self.ecn.as_mut() else { return };
        if e.on_ece(self.snd_una, self.snd_max, self.in_recovery, self.recover) {
            let floor = self.few.as_ref().map_or(2.0, |f| f.params().ssthresh_min);
            ecn::reduce(&mut self.window, flight_before, floor);
            self.stats.ecn_reductions += 1;
        }
    }

    /// The earliest of the retransmission timer and FeW's W < 1 send timer;
    /// `None` if neither runs.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        if let Some(s) = &self.standby {
            return Some(s.next_probe);
        }
        let few = self.few.as_ref().and_then(Few::poll_timeout);
        match (self.rto_deadline, few) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Stop sending new data (the flow's stop time). Retransmissions of
    /// data already sent continue; see the module documentation.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    #[cfg(test)]
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// All of a finite transfer has been acknowledged (never for an infinite one).
    pub fn is_done(&self) -> bool {
        self.total_segments.is_some_and(|n| self.snd_una >= n)
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// Drain the recorded time series (empty unless recorded).
    pub fn take_trace(&mut self) -> Vec<TraceSample> {
        self.trace.as_mut().map_or_else(Vec::new, |t| t.take().into_iter().map(|(_, s)| s).collect())
    }

    #[cfg(test)]
    pub fn cwnd(&self) -> f64 {
        self.window.cwnd()
    }
    #[cfg(test)]
    pub fn ssthresh(&self) -> f64 {
        self.window.ssthresh()
    }
    #[cfg(test)]
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    /// Time in RTO episodes up to `end`, counting one still under way.
    pub fn rto_time_until(&self, end: SimTime) -> f64 {
        self.stats.rto_time_s + self.backoff_since.map_or(0.0, |s| end.since(s).as_secs_f64())
    }
    /// Time in standby up to `end`, counting an episode still under way.
    pub fn standby_time_until(&self, end: SimTime) -> f64 {
        self.stats.standby_s + self.standby.as_ref().map_or(0.0, |s| end.since(s.since).as_secs_f64())
    }
    /// In ELFN / ADTCP standby: window and timers frozen, probing.
    #[cfg(test)]
    pub fn in_standby(&self) -> bool {
        self.standby.is_some()
    }

    /// Current RTO, including backoff.
    #[cfg(test)]
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// Segments sent and not yet acknowledged (snd_max - snd_una).
    #[cfg(test)]
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Oldest unacknowledged segment.
    #[cfg(test)]
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next segment `poll_transmit` would send (ignoring pending retransmissions).
    #[allow(dead_code)]
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    #[cfg(test)]
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    #[cfg(test)]
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// The congestion-control state (for tests and traces).
    #[cfg(test)]
    pub fn congestion(&self) -> &Congestion {
        &self.cc
    }

    /// Record a trace sample if cwnd, ssthresh, srtt or rto changed; the
    /// series keeps it within its limits (crate::series).
    fn record(&mut self, now: SimTime) {
        let Some(trace) = self.trace.as_mut() else { return };
        let cur = (self.window.cwnd(), self.window.ssthresh(), self.rtt.srtt(), self.rtt.rto());
        if self.last_traced != Some(cur) {
            self.last_traced = Some(cur);
            trace.push(now, TraceSample { time: now, cwnd: cur.0, ssthresh: cur.1, srtt: cur.2, rto: cur.3 });
        }
    }
}

/// ELFN standby (tcp/elfn.rs) and ADTCP's reactions (tcp/adtcp.rs).
impl TcpSender {
    /// The routing layer lost the route to our peer (an ELFN). With ELFN on,
    /// freeze and probe (Holland & Vaidya §5) if data is outstanding: with
    /// nothing in flight there is no timer to freeze and nothing to probe
    /// with. Returns whether ELFN is on (the notification was counted).
    pub fn handle_elfn(&mut self, now: SimTime) -> bool {
        if !self.elfn {
            return false;
        }
        self.stats.elfn_events += 1;
        if self.standby.is_none() && self.snd_max > self.snd_una {
            self.enter_standby(Cause::Elfn, now, false);
        }
        self.record(now);
        true
    }

    /// Freeze: cwnd, ssthresh and the RTO (with any backoff) are kept as
    /// they are, the retransmission timer stops, and an RTO episode under
    /// way ends here (standby time is counted apart, `standby_s`).
    fn enter_standby(&mut self, cause: Cause, now: SimTime, probe_now: bool) {
        if let Some(since) = self.backoff_since.take() {
            self.stats.rto_time_s += now.since(since).as_secs_f64();
        }
        self.pending_retransmit = None;
        self.rto_deadline = None;
        self.standby = Some(Standby::new(cause, now, self.probe_interval, probe_now));
    }

    /// An ACK arrived in standby: resume with the frozen window and RTO,
    /// and restart the retransmission timer (Holland & Vaidya §5).
    fn leave_standby(&mut self, now: SimTime) {
        if let Some(s) = self.standby.take() {
            self.stats.standby_s += now.since(s.since).as_secs_f64();
            if self.snd_max > self.snd_una {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
    }

    /// In standby only a due probe goes: the first unacknowledged segment
    /// (Holland & Vaidya's probe). The timer stays frozen.
    fn poll_probe(&mut self, now: SimTime) -> Option<TcpSegment> {
        let due = self.standby.as_mut().is_some_and(|s| s.take_probe());
        if !due || self.snd_una >= self.snd_max {
            return None;
        }
        self.stats.probes += 1;
        if self.snd_nxt == self.snd_una {
            self.snd_nxt += 1; // after a go-back-N (ADTCP), the probe is that resend
        }
        let seg = self.emit(now, self.snd_una);
        self.rto_deadline = None;
        Some(seg)
    }

    /// ADTCP at the dup-ACK threshold (`recover` already set): unless the
    /// receiver reported congestion (or nothing against it), retransmit
    /// snd_una and leave cwnd and ssthresh alone. Returns whether it did.
    fn adtcp_retransmit_only(&mut self) -> bool {
        let Some(ad) = &self.adtcp else { return false };
        if ad.on_dupacks() == Reaction::Reduce {
            self.stats.adtcp_reactions[0] += 1;
            return false;
        }
        let k = match ad.last {
            Some(super::adtcp::NetState::ChannelError) => 1,
            Some(super::adtcp::NetState::RouteChange) => 2,
            _ => 3,
        };
        self.stats.adtcp_reactions[k] += 1;
        self.stats.fast_retransmits += 1;
        self.pending_retransmit = Some(self.snd_una);
        true
    }

    /// ADTCP at a retransmission timeout (already counted): unless the
    /// receiver last reported congestion, this is a disconnection. Go back
    /// to snd_una as a timeout does (RFC 6298 (5.4)), but keep cwnd,
    /// ssthresh and the RTO, and probe from now on. A fast recovery under way
    /// ends, its inflation removed (cwnd = ssthresh). Returns whether it froze.
    fn adtcp_freeze(&mut self, now: SimTime) -> bool {
        let Some(ad) = &self.adtcp else { return false };
        if ad.on_timeout() != Reaction::Freeze {
            self.stats.adtcp_reactions[0] += 1;
            return false;
        }
        self.stats.adtcp_reactions[3] += 1;
        if self.in_recovery {
            self.in_recovery = false;
            self.window.set_cwnd(self.window.ssthresh());
        }
        self.recover = Some(self.snd_max - 1);
        self.dupacks = 0;
        self.snd_nxt = self.snd_una;
        self.enter_standby(Cause::Disconnection, now, true);
        self.record(now);
        true
    }
}
