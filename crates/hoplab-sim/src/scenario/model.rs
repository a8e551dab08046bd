//! The scenario: the run's name, length and seed, and each layer's own
//! configuration, gathered under the table names a scenario file uses.

use super::output::Output;
use super::routing::Routing;
use crate::app::config::Flow;
use crate::mac::config::Mac;
use crate::mobility::config::{Mobility, Topology};
use crate::net::config::{Link, Lred};
use crate::phy::config::Radio;
use crate::tcp::config::TcpParams;
use crate::trace::config::TraceConfig;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated seconds.
    #[serde(rename = "duration_s")]
    pub duration: f64,
    /// Default seed; a seed given to `run` overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Whose reading of the protocols: "standard" (IEEE 802.11, the RFCs) or
    /// "ns2" (ns-2.35's; schema/compat.rs lists what it sets).
    #[serde(default, skip_serializing_if = "Compat::is_standard")]
    pub compat: Compat,
    pub topology: Topology,
    #[serde(default)]
    pub radio: Radio,
    #[serde(default)]
    pub mac: Mac,
    #[serde(default)]
    pub routing: Routing,
    #[serde(default)]
    pub link: Link,
    #[serde(default)]
    pub mobility: Mobility,
    /// Defaults for every TCP flow; a flow may override any of them.
    #[serde(default)]
    pub tcp: TcpParams,
    #[serde(default)]
    pub flows: Vec<Flow>,
    #[serde(default)]
    pub output: Output,
    /// Trace files streamed while the run goes, and the trace's filter.
    #[serde(default)]
    pub trace: TraceConfig,
    /// Link-layer ECN marking (LRED), off by default.
    #[serde(default)]
    pub lred: Lred,
}

/// Whose reading of the protocols a scenario asks for (`compat`); the
/// profiles' field values are the table in schema/compat.rs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compat {
    /// IEEE 802.11-1999 and the RFCs.
    #[default]
    Standard,
    /// ns-2.35 with the CMU Monarch wireless extensions, as Debian installs it.
    Ns2,
}

impl Compat {
    pub fn is_standard(&self) -> bool {
        *self == Compat::Standard
    }
    pub fn name(self) -> &'static str {
        match self {
            Compat::Standard => "standard",
            Compat::Ns2 => "ns2",
        }
    }
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

impl Scenario {
    pub fn node_count(&self) -> usize {
        match &self.topology {
            Topology::Chain { nodes, .. } | Topology::Random { nodes, .. } => *nodes as usize,
            Topology::Grid { rows, cols, .. } => (*rows as usize) * (*cols as usize),
            Topology::Explicit { positions } => positions.len(),
        }
    }
}
