//! hoplab-sim: a discrete-event simulator of TCP over multihop IEEE 802.11
//! ad hoc networks. See docs/ARCHITECTURE.md for the layers and contracts.

pub mod app;
pub mod control;
pub mod event;
pub mod fasthash;
pub mod fault;
pub mod mac;
pub mod measure;
pub mod mobility;
pub mod net;
pub mod node;
pub mod oracle;
pub mod phy;
pub mod queue;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod series;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod wire;
pub mod world;

pub use scenario::{cost, schema};
pub use results::RunOutput;
pub use scenario::{Scenario, ScenarioError};
pub use control::{Cancelled, Progress, RunControl};
pub use world::{run, run_with};
