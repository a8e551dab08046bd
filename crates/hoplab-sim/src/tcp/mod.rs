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
pub mod config;
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

#[cfg_attr(not(test), allow(unused_imports))]
pub use few::FewParams;
#[cfg_attr(not(test), allow(unused_imports))]
pub use rtt::RttEstimator;
#[cfg_attr(not(test), allow(unused_imports))]
pub use sender::{SenderStats, TcpSender};
#[cfg_attr(not(test), allow(unused_imports))]
pub use sink::TcpSink;
#[cfg_attr(not(test), allow(unused_imports))]
pub use vegas::{Vegas, VegasParams};
#[cfg_attr(not(test), allow(unused_imports))]
pub use config::{initial_window_segments, RtoEstimator, TcpConfig, Variant, DEFAULT_RECEIVE_WINDOW, MAX_WINDOW_BYTES};
