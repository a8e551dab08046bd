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
    /// `[emulation]`: which nodes are real Linux stacks when `hoplab emu`
    /// runs the scenario, and how it keeps time. The simulation never reads
    /// it; absent, nothing is written (a scenario without it resolves, keys
    /// and hashes as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<EmulationConfig>,
}

/// `[emulation]` (issue 25): read by the real-time driver (crates/hoplab-emu,
/// through python/hoplab/emu), checked here with the rest of the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmulationConfig {
    /// The real nodes: each gets a network namespace and a TUN device.
    pub nodes: Vec<u32>,
    /// One per real node: "" for a fresh namespace, else the name of an
    /// existing `ip netns` namespace. Empty: every one fresh.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// The engine's head start over the clock, added to the first hop.
    #[serde(default = "default_lookahead_ms")]
    pub lookahead_ms: f64,
    #[serde(default)]
    pub on_lag: OnLag,
    /// A write (or a wake-up of the loop) this late is an episode of lag.
    #[serde(default = "default_lag_threshold_ms")]
    pub lag_threshold_ms: f64,
    /// Spin this long before each deadline instead of sleeping.
    #[serde(default = "default_spin_us")]
    pub spin_us: f64,
    /// Ask for SCHED_FIFO.
    #[serde(default)]
    pub realtime: bool,
    /// Programs to run in the real nodes' namespaces.
    #[serde(default)]
    pub commands: Vec<EmulationCommand>,
}

impl Default for EmulationConfig {
    fn default() -> EmulationConfig {
        EmulationConfig {
            nodes: Vec::new(),
            namespaces: Vec::new(),
            lookahead_ms: default_lookahead_ms(),
            on_lag: OnLag::default(),
            lag_threshold_ms: default_lag_threshold_ms(),
            spin_us: default_spin_us(),
            realtime: false,
            commands: Vec::new(),
        }
    }
}

impl EmulationConfig {
    /// The table as JSON (what the Python side reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an emulation table serialises to JSON")
    }
}

/// What the driver does when it falls behind real time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnLag {
    /// One line per episode, and go on.
    #[default]
    Warn,
    /// End the run at the first write later than the threshold.
    Abort,
}

/// `[[emulation.commands]]`: a command line run in a real node's namespace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmulationCommand {
    pub node: u32,
    pub run: String,
    /// When to start it, in seconds of the run.
    #[serde(default)]
    pub start_s: f64,
    /// The run ends when every command that waits has exited.
    #[serde(default = "default_true")]
    pub wait: bool,
}

fn default_lookahead_ms() -> f64 {
    2.0
}
fn default_lag_threshold_ms() -> f64 {
    5.0
}
fn default_spin_us() -> f64 {
    200.0
}
fn default_true() -> bool {
    true
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
