//! The network layer: drop accounting codes and the routing interface.

pub mod drop;
pub mod routing;

pub use drop::DropReason;
pub use routing::{RouteAction, Router};
