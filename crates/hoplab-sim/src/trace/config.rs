//! The `[trace]` table: which files a run streams its trace into, and the
//! filter every one of them (and `[output] trace`'s in-memory table) goes
//! through. Names are checked by scenario validation against the lists here.

use serde::{Deserialize, Serialize};

/// The file formats a run can stream (`formats`). Each has a sink in
/// `trace/` that `trace::open::sinks` builds.
pub const FORMATS: &[&str] = &["csv", "anim", "ns2", "pcap", "pcapng"];
/// ns-2 cmu-trace.cc: the "old" and "new" wireless trace formats.
pub const NS2_FORMATS: &[&str] = &["old", "new"];
/// One capture of the channel, or one per node.
pub const PCAP_MODES: &[&str] = &["channel", "nodes", "hosts"];
pub const LAYERS: &[&str] = &["AGT", "RTR", "MAC", "PHY"];
/// The ns-2 levels a drop is logged at (`DropReason::layer`, `D ... MAC COL`).
pub const DROP_LEVELS: &[&str] = &["RTR", "IFQ", "MAC"];
/// The `packet_type` names of the drops and trace tables (wire::PacketType).
pub const PACKET_TYPES: &[&str] = &["tcp", "ack", "cbr", "routing", "ARP", "MAC"];
pub const EVENTS: &[&str] = &["send", "recv", "fwd", "drop", "col", "weak"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// Files to stream into the run's directory: "csv" (trace.csv), "anim"
    /// (anim.csv, the animator's log), "ns2" (trace.tr). Empty: no file.
    pub formats: Vec<String>,
    /// ns-2 trace format ("old" | "new") of the "ns2" format.
    pub ns2_format: String,
    /// pcap: "channel" (channel.pcap, every frame on the air), "nodes"
    /// (node-N.pcap: what each node sent and decoded for itself) or "hosts"
    /// (host-N.pcap: raw IP as tcpdump on the node sees it), a file for each
    /// node of `nodes` (every node when it is empty); trace/pcap/.
    pub pcap: String,
    /// Keep only these nodes (empty: all).
    pub nodes: Vec<u32>,
    /// Keep only these layers (empty: all).
    pub layers: Vec<String>,
    /// Drops logged at these ns-2 levels are kept even when `layers` leaves
    /// their layer out (ns-2 always traces RTR and IFQ drops: ns-mobilenode.tcl).
    pub drop_levels: Vec<String>,
    /// Keep only these packet types (empty: all).
    pub packet_types: Vec<String>,
    /// Keep only these events (empty: all).
    pub events: Vec<String>,
    /// Keep events at or after this time (before the end of the run).
    pub start_s: f64,
    /// Keep events at or before this time; None: the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            formats: Vec::new(),
            ns2_format: "new".into(),
            pcap: "channel".into(),
            nodes: Vec::new(),
            layers: Vec::new(),
            drop_levels: Vec::new(),
            packet_types: Vec::new(),
            events: Vec::new(),
            start_s: 0.0,
            end_s: None,
        }
    }
}

impl TraceConfig {
    /// Whether the run writes trace files (and so needs a directory).
    pub fn writes_files(&self) -> bool {
        !self.formats.is_empty()
    }
}
