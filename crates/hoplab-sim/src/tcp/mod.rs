//! TCP: a one-way bulk sender and a sink, as in ns-2's `Agent/TCP` family.
//!
//! Both ends are sans-IO state machines: no clock, no queue, no I/O, no
//! randomness. Time is always an argument. The caller drives them like this:
//!
//! 1. feed inputs with `handle_ack` / `handle_segment`, and `handle_timeout`
//!    when `now >= poll_timeout()`;
//! 2. then call `poll_transmit(now)` until it returns `None`;
//! 3. then ask `poll_timeout()` for the next wake-up.
//!
//! Sequence numbers count segments (ns-2 one-way TCP): segment `n` carries
//! bytes `n * mss ..`, and an ACK's `ackno` is the next segment expected.
//!
//! Files: [`rtt`] (RFC 6298 estimator), [`congestion`] (Reno / NewReno window
//! rules), [`sender`], [`sink`], [`ack_policy`] (receiver models: when the
//! sink ACKs, what window it advertises), [`sack`] and [`scoreboard`] (SACK),
//! [`vegas`] (TCP Vegas), [`few`] (FeW), [`ecn`] (RFC 3168), [`elfn`] (ELFN
//! standby), [`adtcp`] (ADTCP state detection and reactions), [`stream`] (the payload
//! checksum that makes `stream_errors` a real end-to-end check); tests live in `tests/`.

pub mod ack_policy;
pub mod adtcp;
pub mod congestion;
pub mod ecn;
pub mod elfn;
pub mod few;
pub mod rtt;
pub mod sack;
pub mod scoreboard;
pub mod sender;
pub mod sink;
pub mod stream;
pub mod vegas;

#[cfg(test)]
mod tests;

pub use few::FewParams;
pub use congestion::{AckInfo, Congestion, CongestionControl, NewReno, RecoveryStep, Reno, Window};
pub use rtt::RttEstimator;
pub use sender::{SenderStats, TcpSender, TraceSample};
pub use sink::{SinkStats, TcpSink};
pub use vegas::{Vegas, VegasParams};

use crate::scenario::{TcpParams, TcpReceiver, TcpVariant, WindowClamp};
use crate::time::Dur;

/// Congestion-control / loss-recovery variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// TCP Vegas (Brakmo & Peterson 1995) as ns-2's `Agent/TCP/Vegas`.
    Vegas(VegasParams),
}

impl From<TcpVariant> for Variant {
    fn from(v: TcpVariant) -> Variant {
        match v {
            TcpVariant::Tahoe => Variant::Tahoe,
            TcpVariant::Reno => Variant::Reno,
            TcpVariant::NewReno => Variant::NewReno,
            TcpVariant::Sack => Variant::Sack,
            TcpVariant::Vegas => Variant::Vegas(VegasParams::default()),
        }
    }
}

/// Parameters of one TCP connection (both ends read the same config).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window in segments.
    pub initial_cwnd: u32,
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
            mss,
            initial_cwnd: initial_window_segments(mss), // 3 for 1460 B
            max_cwnd: None,
            // A stack without window scaling advertises at most 65535 bytes
            // (RFC 793; RFC 7323 §2): 44 segments of 1460 B. ns-3's default.
            receive_window: DEFAULT_RECEIVE_WINDOW,
            rto_min: Dur::from_millis(200),    // ns-2 minrto_ (defaults.md)
            rto_initial: Dur::from_millis(1000), // RFC 6298 (2.1)
            rto_max: Dur::from_millis(60_000), // RFC 6298 (2.5) "at least 60 seconds"
            clock_granularity: Dur::from_millis(1),
            dupack_threshold: 3, // RFC 5681 §3.2
            delayed_ack: true,
            delack_timeout: Dur::from_millis(100), // ns-2 DelAck interval_
            receiver: TcpReceiver::Ns2,
            clamp: WindowClamp::Sender,
            few: None,
            ecn: false,
            elfn: false,
            adtcp: false,
            probe_interval: elfn::DEFAULT_PROBE_INTERVAL,
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
        TcpConfig {
            variant: match p.variant.map(Variant::from).unwrap_or(d.variant) {
                Variant::Vegas(_) => Variant::Vegas(VegasParams::from_params(p)),
                v => v,
            },
            mss,
            initial_cwnd: p.initial_cwnd.unwrap_or_else(|| initial_window_segments(mss)),
            max_cwnd: p.max_cwnd.filter(|&m| m > 0),
            receive_window: p.receive_window.unwrap_or(d.receive_window),
            rto_min: p.min_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_min),
            rto_initial: p.initial_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_initial),
            rto_max: p.max_rto.map(Dur::from_secs_f64).unwrap_or(d.rto_max),
            clock_granularity: d.clock_granularity,
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
        w_min: p.few_w_min.unwrap_or(few::DEFAULT_W_MIN),
        ssthresh_min: p.few_ssthresh_min.unwrap_or(few::DEFAULT_SSTHRESH_MIN),
    })
}
