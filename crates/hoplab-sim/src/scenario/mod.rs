//! The scenario: what a run simulates, read from TOML (or the same
//! structure as JSON from Python) and validated. Every error names the
//! field and the problem.
//!
//! Each layer owns its configuration types (phy/config.rs, mac/config.rs,
//! net/config.rs and the routing protocols' config.rs, tcp/config.rs,
//! app/config.rs, mobility/config.rs); this module only gathers them
//! (`model`), reads them (`parse`), checks them (`validate`, with the
//! field table of `schema` and the cost limit of `cost`). Within it the
//! imports go one way: parse -> validate -> {schema, cost} -> model ->
//! the layers; nothing below imports `parse` or `validate`.

pub mod cost;
mod error;
mod model;
mod output;
mod parse;
mod routing;
pub mod schema;
mod validate;

pub use error::ScenarioError;
pub use model::Scenario;
pub use output::Output;
pub use routing::{Routing, RoutingConfig, RoutingProtocol};
#[cfg(test)]
pub(crate) use validate::protocol_error;

// The layers' configuration types, under the names a scenario gives them.
pub use crate::app::config::{Flow, FlowKind, OnOffDistribution};
pub use crate::mac::config::{Mac, Preamble};
pub use crate::mobility::config::{Leg, Mobility, MobilityModel, Topology};
pub use crate::net::config::{ArpKind, Link, Lred};
pub use crate::phy::config::{Propagation, Radio};
pub use crate::tcp::config::{TcpParams, TcpReceiver, Variant, WindowClamp};
