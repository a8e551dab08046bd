//! The network layer: routing protocols behind one interface, ARP below
//! them, and drop accounting codes.

pub mod aodv;
pub mod arp;
pub mod check;
pub mod config;
pub mod drop;
pub mod dsdv;
pub mod dsr;
pub mod lred;
pub mod olsr;
pub mod routing;
pub mod static_route;
#[cfg(test)]
pub mod testnet;

pub use drop::DropReason;
pub use crate::wire::RoutingMsg;
#[cfg_attr(not(test), allow(unused_imports))]
pub use routing::{LinkCause, RouteAction, RouteNote, Router};
