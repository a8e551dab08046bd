//! RFC 6298 retransmission-timeout estimator, in integer nanoseconds.
//!
//! Divisions truncate to the nanosecond, so results are exact and
//! deterministic (no floating point).

use crate::time::{Dur, SimTime};

/// SRTT / RTTVAR / RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    /// Current RTO, including any backoff.
    rto: Dur,
    min: Dur,
    max: Dur,
    granularity: Dur,
}

impl RttEstimator {
    pub fn new(initial: Dur, min: Dur, max: Dur, granularity: Dur) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            // RFC 6298 (2.1); (2.5) upper bound. Never below 1 ns: a
            // timeout of 0 would fire at the same instant forever (livelock
            // with `initial_rto`/`max_rto` = 1e-12, issue 10).
            rto: initial.min(max).max(Dur(1)),
            min,
            max: max.max(Dur(1)),
            granularity,
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }
    #[cfg(test)]
    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }
    pub fn rto(&self) -> Dur {
        self.rto
    }

    /// Take a new RTT measurement `r` (the caller applies Karn's rule).
    /// A valid sample also ends any backoff (RFC 6298 §5, note after (5.7)).
    pub fn sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3), beta = 1/4, alpha = 1/8; RTTVAR uses the old SRTT.
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        self.rto = self.computed();
    }

    /// RTO = SRTT + max(G, K*RTTVAR), K = 4 (RFC 6298 (2.2)/(2.3)),
    /// clamped to [min, max] (RFC 6298 (2.4), (2.5)).
    fn computed(&self) -> Dur {
        let srtt = self.srtt.unwrap_or(Dur::ZERO);
        let rto = srtt + self.granularity.max(self.rttvar.mul(4));
        rto.max(self.min).min(self.max)
    }

    /// The retransmission timer expired: RTO <- 2 * RTO, capped (RFC 6298 (5.5), (2.5)).
    /// The backed-off value stays until the next valid sample.
    pub fn backoff(&mut self) {
        self.rto = Dur(self.rto.0.saturating_mul(2)).min(self.max);
    }
}

/// ns-2.35's retransmission timer (`TcpAgent`, tcp/tcp.cc), as a state
/// machine of its own: RTT in whole ticks of `tcpTick_`, `t_srtt_` scaled by
/// 8 and `t_rttvar_` by 4 (T_SRTT_BITS 3, T_RTTVAR_BITS 2), `t_rtxcur_`
/// recomputed only by a sample, a backoff multiplier `t_backoff_`, and one
/// timed segment at a time (`rtt_active_`, `rtt_seq_`, `rtt_ts_`) instead of
/// a sample per ACK (ns-2's `timestamps_` is off by default).
///
/// Sequence numbers are the sender's; an ACK is given as ns-2 sees it: the
/// highest segment received in order (hoplab's `ackno - 1`).
///
/// One simplification: ns-2 draws a per-agent `boot_time_` uniform in
/// [0, tcpTick_) to place the tick boundaries; here they are at multiples of
/// the tick from time 0 (send times fall anywhere between ticks either way).
#[derive(Clone, Debug)]
pub struct Ns2Rtt {
    /// `tcpTick_` in nanoseconds (at least 1).
    tick: u64,
    /// `t_srtt_`: 8 × srtt in ticks; 0 = no estimate (ns-2 `srtt_init_ 0`).
    srtt8: i64,
    /// `t_rttvar_`: 4 × rttvar in ticks.
    rttvar4: i64,
    /// `t_rtxcur_`: the RTO before backoff, in ticks of the last sample
    /// (`rtxcur_init_` until then).
    rtxcur: Dur,
    /// `t_backoff_`: 1, 2, 4, ...
    backoff: u64,
    min: Dur,
    max: Dur,
    /// `rfc2988_`: minrto_ clamps before the backoff, and the backoff
    /// doubles while the timeout is under maxrto_ (true, ns-2's default).
    rfc2988: bool,
    /// `rtt_active_`, `rtt_seq_` (`None` = -1), `rtt_ts_`.
    active: bool,
    seq: Option<u64>,
    ts: SimTime,
}

impl Ns2Rtt {
    /// `initial` = `rtxcur_init_`, `min` = `minrto_`, `max` = `maxrto_`.
    pub fn new(initial: Dur, min: Dur, max: Dur, tick: Dur) -> Self {
        Ns2Rtt { tick: tick.0.max(1), srtt8: 0, rttvar4: 0, rtxcur: initial, backoff: 1, min, max, rfc2988: true, active: false, seq: None, ts: SimTime::ZERO }
    }

    /// ns-2 `rfc2988_` (true unless given false).
    pub fn with_rfc2988(mut self, on: bool) -> Self {
        self.rfc2988 = on;
        self
    }

    /// ns-2 tcp.cc `rtt_timeout`: with `rfc2988_` (the default) minrto_
    /// clamps t_rtxcur_ before the backoff multiplies it; without, the
    /// product is clamped ("backwards compatibility"). Then maxrto_, then a
    /// floor of two ticks.
    pub fn rto(&self) -> Dur {
        let t = if self.rfc2988 {
            let base = if self.rtxcur < self.min { self.min } else { self.rtxcur };
            Dur(base.0.saturating_mul(self.backoff))
        } else {
            Dur(self.rtxcur.0.saturating_mul(self.backoff)).max(self.min)
        };
        t.min(self.max).max(Dur(2 * self.tick))
    }

    /// The smoothed RTT (`t_srtt_ / 8` ticks); `None` before the first
    /// sample and after a backoff beyond 8 cleared it.
    pub fn srtt(&self) -> Option<Dur> {
        (self.srtt8 > 0).then(|| Dur(self.srtt8 as u64 * self.tick / 8))
    }

    #[cfg(test)]
    pub fn backoff_factor(&self) -> u64 {
        self.backoff
    }

    /// tcp.cc `output`: a segment above everything sent before (`seqno >
    /// maxseq_`) starts the timing if none runs.
    pub fn on_send(&mut self, now: SimTime, seq: u64, new: bool) {
        if new && !self.active {
            self.active = true;
            if self.seq.is_none_or(|s| seq > s) {
                self.seq = Some(seq);
                self.ts = now;
            }
        }
    }

    /// tcp.cc `newack` (an ACK of new data outside NewReno's recovery):
    /// if it covers the timed segment, end the backoff and take the sample.
    /// Returns the measured RTT (for the statistics).
    pub fn on_new_ack(&mut self, now: SimTime, highest: u64) -> Option<Dur> {
        if !(self.active && self.seq.is_some_and(|s| highest >= s)) {
            return None;
        }
        self.backoff = 1;
        self.active = false;
        let r = now.since(self.ts);
        self.update(now, self.ts);
        Some(r)
    }

    /// tcp-newreno.cc `partialnewack`: a partial ACK covering the timed
    /// segment ends the timing and the backoff, without a sample.
    pub fn on_partial_ack(&mut self, highest: u64) {
        if self.active && self.seq.is_some_and(|s| highest >= s) {
            self.active = false;
            self.backoff = 1;
        }
    }

    /// tcp.cc `reset_rtx_timer` (a timeout or a fast retransmit): whatever
    /// was being timed is no longer (Karn).
    pub fn cancel_timing(&mut self) {
        self.active = false;
    }

    /// tcp.cc `rtt_update` without timestamps: the sample is the number of
    /// tick boundaries between the send and now (`int((tao + tickoff) /
    /// tcp_tick_)`, at least 1), then 4.4BSD's scaled-integer filter.
    fn update(&mut self, now: SimTime, sent: SimTime) {
        let t_rtt = ((now.0 / self.tick) as i64 - (sent.0 / self.tick) as i64).max(1);
        if self.srtt8 != 0 {
            let mut delta = t_rtt - (self.srtt8 >> 3); // d = m - a0
            self.srtt8 += delta; // a1 = 7/8 a0 + 1/8 m
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta; // var1 = 3/4 var0 + 1/4 |d|
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = t_rtt << 3; // srtt = rtt
            self.rttvar4 = t_rtt << 1; // rttvar = rtt / 2
        }
        // t_rtxcur_ = srtt + 2^rttvar_exp_ (4) x rttvar, truncated to a tick.
        let ticks = ((self.rttvar4 << 3) + self.srtt8) >> 3;
        self.rtxcur = Dur(ticks as u64 * self.tick);
    }

    /// tcp.cc `rtt_backoff`: double t_backoff_ while below 64 or, with
    /// rfc2988_, while the timeout is under maxrto_; beyond 8, the srtt is
    /// folded into rttvar and cleared, so the next sample starts afresh.
    /// t_rtxcur_ itself is kept.
    pub fn backoff(&mut self) {
        if self.backoff < 64 || (self.rfc2988 && self.rto() < self.max) {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }
}

/// The retransmission timer of one sender (`tcp.rto_estimator`).
#[derive(Clone, Debug)]
pub enum Rto {
    /// RFC 6298, a sample per ACK of new data under Karn's rule (the sender times).
    Rfc6298(RttEstimator),
    /// ns-2.35's tick-based timer with one timed segment per RTT.
    Ns2(Ns2Rtt),
}

impl Rto {
    pub fn srtt(&self) -> Option<Dur> {
        match self {
            Rto::Rfc6298(e) => e.srtt(),
            Rto::Ns2(e) => e.srtt(),
        }
    }
    /// The current timeout, backoff included.
    pub fn rto(&self) -> Dur {
        match self {
            Rto::Rfc6298(e) => e.rto(),
            Rto::Ns2(e) => e.rto(),
        }
    }
    pub fn backoff(&mut self) {
        match self {
            Rto::Rfc6298(e) => e.backoff(),
            Rto::Ns2(e) => e.backoff(),
        }
    }
    /// The ns-2 timer, if that is the one.
    pub fn ns2(&mut self) -> Option<&mut Ns2Rtt> {
        match self {
            Rto::Ns2(e) => Some(e),
            Rto::Rfc6298(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }
    fn at(v: u64) -> SimTime {
        SimTime(ms(v).0)
    }
    fn ns2() -> Ns2Rtt {
        // ns-default.tcl: rtxcur_init_ 3.0, minrto_ 0.2, maxrto_ 60, tcpTick_ 0.01
        Ns2Rtt::new(ms(3000), ms(200), ms(60_000), ms(10))
    }

    #[test]
    fn ns2_first_sample_counts_tick_boundaries_and_sets_rtxcur() {
        let mut e = ns2();
        assert_eq!(e.rto(), ms(3000), "rtxcur_init_ before any sample");
        // Sent at 1.005 s, ACKed at 1.042 s: 37 ms crosses ticks 1.01..1.04 = 4 ticks.
        e.on_send(SimTime(1_005_000_000), 0, true);
        assert_eq!(e.on_new_ack(SimTime(1_042_000_000), 0), Some(ms(37)));
        // srtt8 = 32, rttvar4 = 8: rtxcur = (8 << 3 + 32) >> 3 = 12 ticks = 120 ms, below minrto_.
        assert_eq!(e.srtt(), Some(ms(40)));
        assert_eq!(e.rtxcur, ms(120));
        assert_eq!(e.rto(), ms(200), "minrto_ clamps t_rtxcur_");
    }

    #[test]
    fn ns2_filter_is_the_scaled_integer_one() {
        let mut e = ns2();
        e.on_send(at(1000), 0, true);
        e.on_new_ack(at(1100), 0); // 10 ticks: srtt8 80, rttvar4 20 -> rtxcur 30 ticks
        assert_eq!(e.rto(), ms(300));
        e.on_send(at(1100), 1, true);
        e.on_new_ack(at(1300), 1); // 20 ticks: delta 10 -> srtt8 90; |10| - 5 -> rttvar4 25
        assert_eq!((e.srtt8, e.rttvar4), (90, 25));
        // rtxcur = (25 << 3 + 90) >> 3 = 290 >> 3 = 36 ticks
        assert_eq!(e.rto(), ms(360));
    }

    #[test]
    fn ns2_times_one_segment_at_a_time() {
        let mut e = ns2();
        e.on_send(at(1000), 0, true);
        e.on_send(at(1001), 1, true); // not timed: segment 0 still is
        assert_eq!(e.on_new_ack(at(1050), 0), Some(ms(50)));
        assert_eq!(e.on_new_ack(at(1060), 1), None, "segment 1 was never timed");
        e.on_send(at(1061), 1, false); // a retransmission starts no timing
        assert_eq!(e.on_new_ack(at(1100), 1), None);
        e.on_send(at(1101), 2, true);
        e.cancel_timing(); // a timeout or fast retransmit
        assert_eq!(e.on_new_ack(at(1200), 2), None, "Karn: the timing was cancelled");
    }

    #[test]
    fn ns2_backoff_multiplies_the_clamped_rto_and_clears_srtt_beyond_8() {
        let mut e = ns2();
        e.on_send(at(1000), 0, true);
        e.on_new_ack(at(1100), 0); // rto 300 ms
        e.backoff();
        assert_eq!(e.rto(), ms(600));
        e.backoff();
        e.backoff();
        assert_eq!(e.rto(), ms(2400));
        assert!(e.srtt().is_some(), "t_backoff_ 8 keeps srtt");
        e.backoff(); // 16: srtt folded into rttvar and cleared
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), ms(4800), "t_rtxcur_ is kept");
        for _ in 0..10 {
            e.backoff();
        }
        assert_eq!(e.rto(), ms(60_000), "maxrto_");
        assert_eq!(e.backoff_factor(), 256, "doubling stops once the timeout reaches maxrto_");
        // The next timed ACK ends the backoff; the sample starts the filter afresh.
        e.on_send(at(9000), 5, true);
        assert_eq!(e.on_new_ack(at(9050), 5), Some(ms(50)));
        assert_eq!((e.backoff_factor(), e.srtt()), (1, Some(ms(50))));
    }

    #[test]
    fn ns2_partial_ack_ends_backoff_without_a_sample() {
        let mut e = ns2();
        e.on_send(at(1000), 0, true);
        e.backoff();
        e.on_partial_ack(0);
        assert_eq!(e.backoff_factor(), 1);
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), ms(3000));
    }

    #[test]
    fn ns2_rfc2988_false_clamps_after_the_backoff_and_stops_doubling_at_64() {
        // A sample of 4 ticks: rtxcur = 120 ms, under minrto_ 200 ms.
        let sampled = |rfc2988: bool, max: Dur| {
            let mut e = Ns2Rtt::new(ms(3000), ms(200), max, ms(10)).with_rfc2988(rfc2988);
            e.on_send(SimTime(1_005_000_000), 0, true);
            e.on_new_ack(SimTime(1_042_000_000), 0);
            e
        };
        let (mut on, mut off) = (sampled(true, ms(60_000)), sampled(false, ms(60_000)));
        assert_eq!((on.rto(), off.rto()), (ms(200), ms(200)), "no backoff: minrto_ either way");
        on.backoff();
        off.backoff();
        // rtt_timeout: minrto_ * 2 against max(120 ms * 2, minrto_).
        assert_eq!((on.rto(), off.rto()), (ms(400), ms(240)));
        off.backoff();
        assert_eq!(off.rto(), ms(480));
        // rtt_backoff: past 64 only rfc2988_ keeps doubling, while under maxrto_.
        let (mut on, mut off) = (sampled(true, ms(600_000)), sampled(false, ms(600_000)));
        for _ in 0..10 {
            on.backoff();
            off.backoff();
        }
        assert_eq!(off.backoff_factor(), 64);
        assert_eq!(off.rto(), ms(120 * 64));
        assert_eq!(on.backoff_factor(), 1024, "200 ms x 1024 = 204.8 s, under maxrto_");
    }

    #[test]
    fn ns2_min_rto_zero_leaves_the_two_tick_floor() {
        // minrto_ 0: a 1-tick sample gives rtxcur = (1 << 1 << 3 + 8) >> 3 = 3 ticks.
        for rfc2988 in [true, false] {
            let mut e = Ns2Rtt::new(ms(3000), Dur::ZERO, ms(60_000), ms(10)).with_rfc2988(rfc2988);
            e.on_send(at(1000), 0, true);
            e.on_new_ack(at(1001), 0);
            assert_eq!(e.rto(), ms(30));
            let floor = Ns2Rtt::new(Dur::ZERO, Dur::ZERO, ms(60_000), ms(10)).with_rfc2988(rfc2988);
            assert_eq!(floor.rto(), ms(20), "two ticks");
        }
    }

    #[test]
    fn ns2_floor_is_two_ticks() {
        let e = Ns2Rtt::new(ms(1), ms(1), ms(60_000), ms(10));
        assert_eq!(e.rto(), ms(20));
    }
}
