//! TCP's configuration: the `[tcp]` table as a scenario gives it (every
//! field optional, so a flow can override the scenario's field by field)
//! and the resolved parameters of one connection.

use super::few::FewParams;
use super::vegas::VegasParams;
use crate::time::Dur;
use serde::{Deserialize, Serialize};

/// Congestion-control / loss-recovery variant (`tcp.variant`). Serialised
/// under its old name so that serde's messages stay as they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "TcpVariant", rename_all = "snake_case")]
pub enum Variant {
    /// ns-2's `Agent/TCP`: fast retransmit, then slow start from one segment
    /// (go-back-N); no fast recovery.
    Tahoe,
    /// RFC 5681 fast retransmit / fast recovery; the first new ACK ends recovery.
    Reno,
    /// RFC 6582: partial ACKs keep the sender in fast recovery.
    NewReno,
    /// RFC 2018 SACK blocks from the sink; RFC 6675 scoreboard and pipe
    /// recovery at the sender (ns-2 `Agent/TCP/Sack1`'s role).
    Sack,
    /// TCP Vegas (Brakmo & Peterson 1995) as ns-2's `Agent/TCP/Vegas`
    /// (`vegas_alpha`, `vegas_beta`, `vegas_gamma`).
    Vegas,
}

/// When the receiver ACKs (`tcp::ack_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpReceiver {
    /// ns-2 `DelAck`: every second segment, or a 100 ms timer.
    Ns2,
    /// Linux 2.6 (seed 000's testbed): quick ACKs, window-update ACKs, adaptive timer.
    Linux,
    /// Every segment (ns-2 `TCPSink`; `delayed_ack = false`).
    Every,
}

/// The retransmission timer (`tcp.rto_estimator`, `tcp::rtt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 in nanoseconds, a sample per ACK of new data (Karn's rule).
    Rfc6298,
    /// ns-2.35 `TcpAgent`: RTT in ticks of `tick_s`, one timed segment per
    /// RTT, ns-2's backoff, and the timer restarted at a fast retransmit.
    Ns2,
}

/// How `max_cwnd` is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowClamp {
    /// A cap on the sender's cwnd (ns-2 `maxcwnd_`/`window_`; seed 004, seed 000's ns-2 runs).
    Sender,
    /// The receiver's advertised window (Linux `TCP_WINDOW_CLAMP`; seed 000's testbed, §3).
    Receiver,
}

/// TCP parameters; every field optional so that flows can override the
/// scenario-wide `[tcp]` table field by field.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TcpParams {
    pub variant: Option<Variant>,
    /// Segment payload in bytes.
    #[serde(rename = "mss_bytes")]
    pub mss: Option<u32>,
    /// Window clamp in segments (seeds 000, 004: "max cwnd"); 0 = unclamped.
    pub max_cwnd: Option<u32>,
    /// The window the receiver advertises, in bytes (default 65535: a stack
    /// without window scaling, RFC 793 / RFC 7323 §2). The sender never has
    /// more than floor(receive_window / mss) segments outstanding (44 of
    /// 1460 B), clamped or not.
    #[serde(rename = "receive_window_bytes")]
    pub receive_window: Option<u32>,
    pub initial_cwnd: Option<u32>,
    /// Initial ssthresh in segments; 0 = the largest window (RFC 5681 §3.1).
    pub initial_ssthresh: Option<u32>,
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer in seconds (ns-2 DelAck: 0.1).
    #[serde(rename = "delack_timeout_s")]
    pub delack_timeout: Option<f64>,
    #[serde(rename = "min_rto_s")]
    pub min_rto: Option<f64>,
    #[serde(rename = "initial_rto_s")]
    pub initial_rto: Option<f64>,
    #[serde(rename = "max_rto_s")]
    pub max_rto: Option<f64>,
    /// ns-2's one-way SYN (`syn_`): a 40-byte first segment with cwnd 1,
    /// `initial_cwnd` once it is ACKed (default false).
    pub syn: Option<bool>,
    /// Retransmission timer: "rfc6298" (default) or "ns2".
    pub rto_estimator: Option<RtoEstimator>,
    /// ns-2 `rfc2988_` (default true), read only by the "ns2" timer: false
    /// clamps minrto_ after the backoff and doubles the backoff only below
    /// 64 (tcp.cc rtt_timeout, rtt_backoff).
    pub ns2_rfc2988: Option<bool>,
    /// ns-2 `singledup_` (RFC 3042 limited transmit) for tahoe and new_reno:
    /// a new segment beyond the window at each of the first two dupacks
    /// (default false).
    pub limited_transmit: Option<bool>,
    /// ns-2's fast-retransmit gate: the highest segment ACKed must be
    /// beyond `recover`, one more than RFC 6582 asks (default false).
    pub ns2_recover_gate: Option<bool>,
    /// IP + TCP header bytes of each data segment (default 40; ns-2
    /// `useHeaders_ false`: 0).
    pub header_bytes: Option<u32>,
    /// ns-2 `delay_growth_` (default true), read only with `syn`: the
    /// window is 1 until the SYN is ACKed; false: initial_cwnd from the
    /// start, the SYN one of its segments (tcp.cc set_initial_window).
    pub delay_growth: Option<bool>,
    /// ns-2 `tcpTick_` in seconds (0.01), read only by the "ns2" timer.
    #[serde(rename = "tick_s")]
    pub tick: Option<f64>,
    /// Vegas α, β, γ in segments (ns-2 `v_alpha_`, `v_beta_`, `v_gamma_`:
    /// 1, 3, 1): below α extra segments queued the window grows, above β it
    /// shrinks; above γ Vegas leaves slow start. Used when variant = "vegas".
    pub vegas_alpha: Option<u32>,
    pub vegas_beta: Option<u32>,
    pub vegas_gamma: Option<u32>,
    /// Receiver model: "ns2" (default), "linux" or "every".
    pub receiver: Option<TcpReceiver>,
    /// How max_cwnd applies: "sender" (default) or "receiver".
    pub clamp: Option<WindowClamp>,
    /// FeW window growth per RTT, 0 < α ≤ 1 (seed 001 Eq. 9; 1 = standard TCP).
    pub few_alpha: Option<f64>,
    /// FeW lower bound of cwnd in segments (seed 001 §4), 0 < w_min ≤ 1.
    pub few_w_min: Option<f64>,
    /// FeW lower bound of ssthresh in segments (seed 001 §4), 0 < v < 1.
    pub few_ssthresh_min: Option<f64>,
    /// ECN-capable transport (RFC 3168).
    pub ecn: Option<bool>,
    /// ELFN (Holland & Vaidya 1999, tcp/elfn.rs): a route-loss notification
    /// from AODV or DSR puts the sender in standby (default false).
    pub elfn: Option<bool>,
    /// ADTCP (Fu et al. 2002, tcp/adtcp.rs): the receiver classifies the
    /// network state, the sender reduces its window only for congestion
    /// (default false).
    pub adtcp: Option<bool>,
    /// Seconds between probes in ELFN standby and ADTCP disconnection (default 2).
    #[serde(rename = "probe_interval_s")]
    pub probe_interval: Option<f64>,
}

impl TcpParams {
    /// `self` with unset fields taken from `base`.
    pub fn or(&self, base: &TcpParams) -> TcpParams {
        TcpParams {
            variant: self.variant.or(base.variant),
            mss: self.mss.or(base.mss),
            max_cwnd: self.max_cwnd.or(base.max_cwnd),
            receive_window: self.receive_window.or(base.receive_window),
            initial_cwnd: self.initial_cwnd.or(base.initial_cwnd),
            initial_ssthresh: self.initial_ssthresh.or(base.initial_ssthresh),
            delayed_ack: self.delayed_ack.or(base.delayed_ack),
            delack_timeout: self.delack_timeout.or(base.delack_timeout),
            min_rto: self.min_rto.or(base.min_rto),
            initial_rto: self.initial_rto.or(base.initial_rto),
            max_rto: self.max_rto.or(base.max_rto),
            syn: self.syn.or(base.syn),
            rto_estimator: self.rto_estimator.or(base.rto_estimator),
            ns2_rfc2988: self.ns2_rfc2988.or(base.ns2_rfc2988),
            limited_transmit: self.limited_transmit.or(base.limited_transmit),
            ns2_recover_gate: self.ns2_recover_gate.or(base.ns2_recover_gate),
            header_bytes: self.header_bytes.or(base.header_bytes),
            delay_growth: self.delay_growth.or(base.delay_growth),
            tick: self.tick.or(base.tick),
            vegas_alpha: self.vegas_alpha.or(base.vegas_alpha),
            vegas_beta: self.vegas_beta.or(base.vegas_beta),
            vegas_gamma: self.vegas_gamma.or(base.vegas_gamma),
            receiver: self.receiver.or(base.receiver),
            clamp: self.clamp.or(base.clamp),
            few_alpha: self.few_alpha.or(base.few_alpha),
            few_w_min: self.few_w_min.or(base.few_w_min),
            few_ssthresh_min: self.few_ssthresh_min.or(base.few_ssthresh_min),
            ecn: self.ecn.or(base.ecn),
            elfn: self.elfn.or(base.elfn),
            adtcp: self.adtcp.or(base.adtcp),
            probe_interval: self.probe_interval.or(base.probe_interval),
        }
    }
}

/// Parameters of one TCP connection (both ends read the same config).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Vegas's α, β, γ; read only when `variant` is `Vegas`.
    pub vegas: VegasParams,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window in segments.
    pub initial_cwnd: u32,
    /// Initial ssthresh in segments; None: the largest window (RFC 5681
    /// §3.1: "arbitrarily high").
    pub initial_ssthresh: Option<u32>,
    /// Window clamp in segments (seeds 000/004 "max cwnd"); `None` = unclamped.
    pub max_cwnd: Option<u32>,
    /// The receiver's advertised window in bytes; the sender keeps at most
    /// floor(receive_window / mss) segments outstanding.
    pub receive_window: u32,
    pub rto_min: Dur,
    pub rto_initial: Dur,
    pub rto_max: Dur,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: Dur,
    /// ns-2 one-way TCP's SYN (tcp.cc `output`, `set_initial_window`): the
    /// first segment carries no payload, sent with a window of one; the
    /// window becomes `initial_cwnd` when it is ACKed.
    pub syn: bool,
    /// Which retransmission timer runs.
    pub rto_estimator: RtoEstimator,
    /// ns-2 `rfc2988_` for the "ns2" timer (tcp/rtt.rs `Ns2Rtt`).
    pub ns2_rfc2988: bool,
    /// ns-2 `singledup_`: limited transmit, tahoe and new_reno only.
    pub limited_transmit: bool,
    /// ns-2 `highest_ack_ > recover_` (tcp.cc dupack_action and each
    /// variant's): a fast retransmit needs one segment ACKed beyond recover.
    pub ns2_recover_gate: bool,
    /// IP + TCP header bytes of a data segment (ns-2 headersize()).
    pub header_bytes: u32,
    /// ns-2 `delay_growth_`: with `syn`, cwnd 1 until the SYN is ACKed.
    pub delay_growth: bool,
    /// ns-2 `tcpTick_`: the "ns2" timer's clock.
    pub tick: Dur,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Sink: ACK every second segment with a timer (ns-2 `DelAck`) instead of every segment.
    pub delayed_ack: bool,
    pub delack_timeout: Dur,
    /// Receiver model (`ack_policy`); `delayed_ack = false` overrides it with `every`.
    pub receiver: TcpReceiver,
    /// How `max_cwnd` applies: a cap on cwnd, or the receiver's advertised window.
    pub clamp: WindowClamp,
    /// FeW (seed 001 §4); `None` = standard window growth.
    pub few: Option<FewParams>,
    /// ECN-capable transport (RFC 3168).
    pub ecn: bool,
    /// ELFN (tcp/elfn.rs): route-loss notifications put the sender in standby.
    pub elfn: bool,
    /// ADTCP (tcp/adtcp.rs): receiver state detection, sender reacts by state.
    pub adtcp: bool,
    /// Probe interval in ELFN standby and ADTCP disconnection.
    pub probe_interval: Dur,
}

/// The default advertised window: 65535 bytes, the largest without window
/// scaling (RFC 7323 §2).
pub const DEFAULT_RECEIVE_WINDOW: u32 = 65_535;

/// RFC 7323 §2.3: the largest advertisable window is 65535 << 14 bytes.
pub const MAX_WINDOW_BYTES: u64 = 65_535 << 14;

impl TcpConfig {
    /// Segments the receiver's window admits (at least one).
    #[cfg(test)]
    pub fn receive_window_segments(&self) -> u64 {
        (self.receive_window as u64 / self.mss.max(1) as u64).max(1)
    }
}

/// RFC 5681 §3.1 initial window, in whole segments:
/// IW = min(4*SMSS, max(2*SMSS, 4380 bytes)).
pub fn initial_window_segments(mss: u32) -> u32 {
    let mss = mss.max(1) as u64;
    let iw_bytes = (4 * mss).min((2 * mss).max(4380));
    (iw_bytes / mss).max(1) as u32
}

impl Default for TcpConfig {
    fn default() -> Self {
        let mss = 1460;
        TcpConfig {
            variant: Variant::NewReno,
            vegas: VegasParams::default(),
            mss,
            initial_cwnd: initial_window_segments(mss), // 3 for 1460 B
            initial_ssthresh: None,
            max_cwnd: None,
            // A stack without window scaling advertises at most 65535 bytes
            // (RFC 793; RFC 7323 §2): 44 segments of 1460 B. ns-3's default.
            receive_window: DEFAULT_RECEIVE_WINDOW,
            rto_min: Dur::from_millis(200),    // ns-2 minrto_ (defaults.md)
            rto_initial: Dur::from_millis(1000), // RFC 6298 (2.1)
            rto_max: Dur::from_millis(60_000), // RFC 6298 (2.5) "at least 60 seconds"
            clock_granularity: Dur::from_millis(1),
            syn: false,
            rto_estimator: RtoEstimator::Rfc6298,
            ns2_rfc2988: true,     // ns-default.tcl: Agent/TCP set rfc2988_ true
            limited_transmit: false, // RFC 5681 without RFC 3042 (ns-2: singledup_ 1)
            ns2_recover_gate: false, // RFC 6582 §3.2 step 2 as read in tcp/sender.rs
            header_bytes: 40,      // IP + TCP (ns-2 tcpip_base_hdr_size_ 40, useHeaders_ true)
            delay_growth: true,    // ns-default.tcl: Agent/TCP set delay_growth_ true
            tick: Dur::from_millis(10), // ns-default.tcl: Agent/TCP set tcpTick_ 0.01
            dupack_threshold: 3, // RFC 5681 §3.2
            delayed_ack: true,
            delack_timeout: Dur::from_millis(100), // ns-2 DelAck interval_
            receiver: TcpReceiver::Ns2,
            clamp: WindowClamp::Sender,
            few: None,
            ecn: false,
            elfn: false,
            adtcp: false,
            probe_interval: super::elfn::DEFAULT_PROBE_INTERVAL,
        }
    }
}

impl TcpConfig {
    /// Build a config from scenario parameters; unset fields take the
    /// defaults above (the initial window follows the given MSS),
    /// `max_cwnd = 0` means unclamped, seconds become [`Dur`].
    pub fn from_params(p: &TcpParams) -> TcpConfig {
        let d = TcpConfig::default();
        let mss = p.mss.unwrap_or(d.mss);
        // `delayed_ack = false` alone means the `every` receiver.
        let receiver = p.receiver.unwrap_or(if p.delayed_ack == Some(false) { TcpReceiver::Every } else { d.receiver });
        let variant = p.variant.unwrap_or(d.variant);
        TcpConfig {
            variant,
            // Only Vegas reads them; another variant keeps the defaults, so
            // its config equals one written without the vegas_* fields.
            vegas: if variant == Variant::Vegas { VegasParams::from_params(p) } else { d.vegas },
            mss,
            initial_cwnd: p.initial_cwnd.unwrap_or_else(|| initial_window_segments(mss)),
            initial_ssthresh: p.initial_ssthresh.filter(|&s| s > 0),
            max_cwnd: p.max_cwnd.filter(|&m| m > 0),
            receive_window: p.receive_window.unwrap_or(d.receive_window),
            rto_min: p.min_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_min),
            rto_initial: p.initial_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_initial),
            rto_max: p.max_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_max),
            clock_granularity: d.clock_granularity,
            syn: p.syn.unwrap_or(d.syn),
            rto_estimator: p.rto_estimator.unwrap_or(d.rto_estimator),
            ns2_rfc2988: p.ns2_rfc2988.unwrap_or(d.ns2_rfc2988),
            limited_transmit: p.limited_transmit.unwrap_or(d.limited_transmit),
            ns2_recover_gate: p.ns2_recover_gate.unwrap_or(d.ns2_recover_gate),
            header_bytes: p.header_bytes.unwrap_or(d.header_bytes),
            delay_growth: p.delay_growth.unwrap_or(d.delay_growth),
            tick: p.tick.map(Dur::from_secs_f64).unwrap_or(d.tick),
            dupack_threshold: d.dupack_threshold,
            delayed_ack: p.delayed_ack.unwrap_or(receiver != TcpReceiver::Every),
            delack_timeout: p.delack_timeout.map(Dur::from_secs_f64).unwrap_or(d.delack_timeout),
            receiver,
            clamp: p.clamp.unwrap_or(d.clamp),
            few: few_params(p),
            ecn: p.ecn.unwrap_or(d.ecn),
            elfn: p.elfn.unwrap_or(d.elfn),
            adtcp: p.adtcp.unwrap_or(d.adtcp),
            probe_interval: p.probe_interval.map(Dur::from_secs_f64).unwrap_or(d.probe_interval),
        }
    }
}

/// FeW is on when α < 1 or a bound is given; α = 1 alone is standard TCP
/// (Eq. 9 with α = 1 is the standard rule), so default runs are unchanged.
fn few_params(p: &TcpParams) -> Option<FewParams> {
    let alpha = p.few_alpha.unwrap_or(1.0);
    if alpha >= 1.0 && p.few_w_min.is_none() && p.few_ssthresh_min.is_none() {
        return None;
    }
    Some(FewParams {
        alpha,
        w_min: p.few_w_min.unwrap_or(super::few::DEFAULT_W_MIN),
        ssthresh_min: p.few_ssthresh_min.unwrap_or(super::few::DEFAULT_SSTHRESH_MIN),
    })
}
