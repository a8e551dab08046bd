//! hoplab-sim: a discrete-event simulator of TCP over multihop IEEE 802.11
//! ad hoc networks. See docs/ARCHITECTURE.md for the layers and contracts.
//!
//! The public API is what the Python binding needs: a [`Scenario`] (parsed
//! and validated, or a [`ScenarioError`]), [`run`] / [`run_with`] (with a
//! [`RunControl`]) and the [`RunOutput`] tables; the field reference
//! ([`schema::reference`]) and the cost estimate ([`cost`]). Every engine
//! module is private; scripts/check_layers.py keeps their imports acyclic.

// Layers, bottom up: wire formats, then PHY, MAC, network, transport,
// applications, mobility; `node` stacks them, `world` builds and runs.
mod wire;
mod phy;
mod mac;
mod net;
mod tcp;
mod app;
mod mobility;
mod node;
mod world;
// Real packets through the simulated network (emulation), sans-IO.
mod bridge;
// The scenario: the layers' configuration gathered, parsed, validated.
mod scenario;
// The simulator's machinery and measurements.
mod control;
mod event;
mod fasthash;
mod fault;
mod measure;
mod oracle;
mod queue;
pub mod results;
mod rng;
mod series;
mod time;
mod trace;

#[cfg(test)]
mod tests;

pub use bridge::{Delivery, Emulation, InjectError, EXT_FLOW_BASE};
pub use control::{Cancelled, Progress, RunControl};
pub use results::{
    DownloadRow, DropRow, FlowRow, MovementRow, NodeRow, OraclePathRow, OutageRow, OverheadRow, PathRow, RouteEventRow, RunInfo, RunOutput, TimeSeries,
};
pub use scenario::{EmulationCommand, EmulationConfig, OnLag, Scenario, ScenarioError};
pub use trace::TraceRow;
pub use world::{run, run_traced, run_with, RunError};
pub use trace::tap::TraceError;
pub use world::{tx_range_m, unconnected_at_start};

/// What a scenario will cost before it runs (events, memory) and the limits
/// above which it is refused.
pub mod cost {
    pub use crate::scenario::cost::{estimate, estimate_json, Cost, Term, MAX_DISK_BYTES, MAX_EVENTS, MAX_MEMORY_BYTES};
}

/// The address plan of emulated nodes and the header fields the bridge
/// reads (node N is 10.0.0.0/16 + N + 1).
pub mod ipv4 {
    pub use crate::wire::ipv4::{addr_node, header_checksum, node_addr, parse, IpClass, Parsed, Reject, MAX_NODES, PREFIX_LEN};
    /// The TCP/UDP port plan of hoplab's packets on the wire (pcap).
    pub use crate::wire::bytes::address::{port, port_flow};
}

/// The scenario field table's generated reference (`hoplab config`,
/// docs/SCENARIO.md) and the fully resolved scenario.
pub mod schema {
    pub mod reference {
        pub use crate::scenario::schema::reference::{entries, entries_json, resolved, resolved_toml, Entry};
    }
}

/// Internals for the profiling example (examples/runjson.rs): the channel
/// and the shortest-path oracle, timed alone. Not part of the API.
#[doc(hidden)]
pub mod testing {
    pub use crate::oracle::{paths, Window};
    pub use crate::phy::{Channel, RadioParams};
}
