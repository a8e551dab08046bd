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
pub use model::{EmulationCommand, EmulationConfig, OnLag, Scenario};
pub use crate::net::routing::RoutingConfig;
#[cfg(test)]
pub(crate) use validate::protocol_error;

// The layers' configuration types the builder (world.rs) reads, under the
// names a scenario gives them...
pub use crate::app::config::{FlowKind, OnOffDistribution};
pub use crate::mobility::config::Topology;
pub use crate::net::config::ArpKind;
// ... and those the layers' tests build scenarios from.
#[cfg(test)]
pub use crate::{
    mac::config::Mac,
    mobility::config::Leg,
    phy::config::Radio,
    tcp::config::{TcpParams, TcpReceiver, WindowClamp},
};
