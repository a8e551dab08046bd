//! The link layer: the IEEE 802.11 DCF and the interface queue beneath IP.

pub mod config;
pub mod dcf;
pub mod ifq;

#[cfg_attr(not(test), allow(unused_imports))]
pub use dcf::{Dcf, MacConfig, MacEvent, MacTimer, MAC_TIMERS};
pub use ifq::Ifq;
#[cfg(test)] mod tests;
