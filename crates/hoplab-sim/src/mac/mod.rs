//! The link layer: the IEEE 802.11 DCF and the interface queue beneath IP.

pub mod config;
pub mod dcf;
pub mod ifq;

pub use dcf::{Dcf, MacConfig, MacEvent, MacStats, MacTimer, MAC_TIMERS};
pub use ifq::Ifq;
#[cfg(test)] mod tests;
