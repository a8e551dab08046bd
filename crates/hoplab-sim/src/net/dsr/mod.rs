//! Dynamic Source Routing (RFC 4728; seed 001 cites draft-ietf-manet-dsr-10,
//! which the RFC finalised) as a sans-IO state machine.
//!
//! - Route Discovery (§3.1, §8.2): a non-propagating request first, then
//!   propagating requests with exponential back-off; replies from the target
//!   and from intermediate caches; a send buffer holds the packets waiting.
//! - Route Maintenance (§3.3, §8.3): link-layer feedback, passive or
//!   network-layer acknowledgements with a maintenance buffer; Route Errors
//!   to the source; packet salvaging (§8.4.1).
//! - Promiscuous snooping and automatic route shortening (§3.4, §8.1.4, §8.3.5).
//!
//! Data packets carry the route in `packet.sr`; `extra_header` is the DSR
//! Options header's size (plus 4 bytes when an Acknowledgement Request
//! option rides along, `msg::ack_requested`).

pub mod cache;
pub mod config;
pub mod msg;
mod discovery;
mod flow;
mod maintenance;
mod state;
#[cfg(test)]
mod tests;

#[cfg_attr(not(test), allow(unused_imports))]
pub use config::{DsrConfig, Maintenance, RequestBackoff};
#[cfg_attr(not(test), allow(unused_imports))]
pub use msg::{Ack, DsrMsg, RouteError, RouteReply, RouteRequest};
pub use state::Dsr;
