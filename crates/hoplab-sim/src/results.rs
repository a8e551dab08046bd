//! What a run returns: plain rows, turned into DataFrames by the Python layer
//! and into CSV/Parquet files by the CLI.

/// One row per flow.
#[derive(Debug, Clone, Default)]
pub struct FlowRow {
    pub flow: u32,
    /// The flow's kind as the scenario names it: "ftp" (over TCP) or "cbr"
    /// (over UDP).
    pub kind: &'static str,
    pub src: u32,
    pub dst: u32,
    pub start_s: f64,
    /// When the flow stopped, finished its transfer, or the run ended.
    pub end_s: f64,
    /// Application bytes delivered complete and in order to the receiver.
    pub bytes_delivered: u64,
    /// Application-level throughput (seed 000 §3.2): delivered bytes over
    /// the flow's active time, kbit/s (1 kbit = 1000 bit).
    pub throughput_kbps: f64,
    /// Data segments (or datagrams) sent, retransmissions included.
    pub packets_sent: u64,
    pub retransmissions: u64,
    /// Non-duplicate data segments (datagrams) received by the destination.
    pub packets_received: u64,
    /// Seed 000 §3.2: retransmitted segments / non-duplicate segments
    /// received by the destination, in percent.
    pub retransmission_index: f64,
    /// Seed 002 §7.2: retransmitted / sent data segments (TCP); lost /
    /// sent datagrams (CBR).
    pub loss_rate: f64,
    /// Mean and standard deviation of the TCP sender's RTT samples (seed
    /// 004); NaN for CBR flows and for a TCP flow without samples.
    pub rtt_mean_ms: f64,
    pub rtt_std_ms: f64,
    pub rtt_samples: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// The receiver saw a gap or reordering in the byte stream it delivered.
    pub stream_errors: u64,
    /// The transfer of `bytes` completed at `end_s`.
    pub completed: bool,
    /// Times the data's path changed, seen at the destination (seed 001 Fig. 2).
    pub route_changes: u64,
    /// Seconds the TCP sender spent stalled in retransmission timeouts
    /// (seed 003 Table 4).
    pub rto_time_s: f64,
    /// Seconds the source's router had no route for the flow's data.
    pub no_route_s: f64,
    /// Longest gap between consecutive data arrivals at the destination.
    pub longest_gap_s: f64,
    /// TCP window reductions in response to ECN-Echo (RFC 3168).
    pub ecn_reductions: u64,
    /// ELFN notifications delivered to the TCP sender (`[tcp] elfn`).
    pub elfn_events: u64,
    /// Probes sent in ELFN standby or ADTCP disconnection.
    pub probes: u64,
    /// Seconds the sender spent in standby, window and timers frozen.
    pub standby_s: f64,
    /// ADTCP (`[tcp] adtcp`): loss indications the sender handled as
    /// congestion (window reduced), channel error, route change (both:
    /// retransmission only) and disconnection (freeze and probe).
    pub adtcp_congestion: u64,
    pub adtcp_channel_error: u64,
    pub adtcp_route_change: u64,
    pub adtcp_disconnection: u64,
    /// CBR: mean and standard deviation of the one-way delay of each
    /// datagram's first copy (arrival minus when its source handed it to
    /// IP), ms; NaN for FTP flows and when nothing arrived.
    pub delay_mean_ms: f64,
    pub delay_std_ms: f64,
    /// CBR: RFC 3550 §6.4.1 interarrival jitter at the end of the run, ms:
    /// the running estimate J += (|D(i-1,i)| - J)/16 over first copies in
    /// arrival order, D being the difference of consecutive transit times
    /// (what an RTP receiver report would carry; it weights the last ~16
    /// datagrams most; `delay_std_ms` describes the whole run). NaN for
    /// FTP flows and before two datagrams arrived.
    pub jitter_ms: f64,
    /// A finite transfer (ftp with `bytes`, or a www session whose every
    /// download finished): when its last byte was acknowledged at the
    /// sender; NaN otherwise (seed 002 §7.1).
    pub completion_s: f64,
    /// Seed 002 §7.1's throughput, "the time to acknowledge a given amount
    /// of payload": bytes / (completion_s - start_s), kbit/s; NaN when not
    /// completed.
    pub transfer_throughput_kbps: f64,
}

/// Rows are equal when every field is, NaN included (a flow without an RTT
/// equals its rerun): what determinism tests need. Floats compare by their
/// shortest round-trip text, which identifies a value exactly.
impl PartialEq for FlowRow {
    fn eq(&self, other: &Self) -> bool {
        format!("{self:?}") == format!("{other:?}")
    }
}

/// Control packets a node sent (originated or forwarded), by message type.
#[derive(Debug, Clone, PartialEq)]
pub struct OverheadRow {
    pub node: u32,
    pub kind: &'static str,
    pub packets: u64,
    pub bytes: u64,
}

/// A routing event (link failure, discovery, route error, salvage).
#[derive(Debug, Clone, PartialEq)]
pub struct RouteEventRow {
    pub time_s: f64,
    pub node: u32,
    pub event: &'static str,
    /// Neighbour or destination; for "path_change" (a flow's data arriving
    /// over a new path, at its destination) the new path's hop count; -1
    /// when the event names none.
    pub peer: i64,
    /// How a link failure was detected ("mac", "hello", "no_ack", "rerr").
    pub cause: &'static str,
    /// A link failure declared while the neighbour was still in range.
    pub false_failure: bool,
    /// The flow of a "path_change"; -1 for other events.
    pub flow: i64,
    /// Route discovery latency in seconds; for "path_change" the seconds
    /// since the last arrival over the old path (the delivery outage); NaN
    /// for other events.
    pub latency_s: f64,
}

/// Seconds a flow direction's path had a given length (seed 002 Eq. 1 t_i).
#[derive(Debug, Clone, PartialEq)]
pub struct PathRow {
    pub flow: u32,
    /// "data" (seen at the destination) or "ack" (seen at the source).
    pub direction: &'static str,
    pub hops: u32,
    pub time_s: f64,
}

/// A period a flow was cut off: "no_route" at the node that originates its
/// packets, or "gap" between data arrivals at the destination.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageRow {
    pub flow: u32,
    pub node: u32,
    pub kind: &'static str,
    pub start_s: f64,
    pub end_s: f64,
}

/// One download of a www flow (app/www.rs), as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadRow {
    pub flow: u32,
    /// 0, 1, ... in the session's order.
    pub download: u32,
    pub start_s: f64,
    /// When its last byte was acknowledged; the flow's stop or the run's
    /// end if it was not.
    pub end_s: f64,
    pub bytes: u64,
    pub completed: bool,
}

/// Seconds a flow's shortest path in the true topology had `hops` hops
/// while the flow was active; 0 hops: no path (oracle.rs; seed 002 Eq. 1's t_i).
#[derive(Debug, Clone, PartialEq)]
pub struct OraclePathRow {
    pub flow: u32,
    pub hops: u32,
    pub time_s: f64,
}

/// One row per node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeRow {
    pub node: u32,
    pub x: f64,
    pub y: f64,
    /// Time-weighted mean interface-queue length (seed 002 §7.3), packets.
    pub ifq_mean: f64,
    pub ifq_max: u32,
    /// Frames the MAC transmitted (RTS, CTS, DATA, ACK).
    pub mac_frames_sent: u64,
    /// Data frames handed to the MAC by the network layer and sent once or more.
    pub mac_data_sent: u64,
    /// Retransmission attempts of RTS and DATA frames.
    pub mac_retransmissions: u64,
    /// Frames this radio lost to a collision while receiving them.
    pub rx_collisions: u64,
    /// Packets this node forwarded for others.
    pub forwarded: u64,
    /// Packets LRED marked CE at this node.
    pub ecn_marks: u64,
}

/// Drop counters keyed the way ns-2 traces name them (seed 002 Appendix B).
#[derive(Debug, Clone, PartialEq)]
pub struct DropRow {
    pub node: u32,
    /// "MAC", "RTR", "IFQ" or "AGT".
    pub layer: &'static str,
    /// ns-2 drop code: IFQ, RET, COL, DUP, NRTE, TTL, CBK, LOOP, TOUT,
    /// QFULL, SAL, ARP, END
    pub reason: &'static str,
    pub packet_type: &'static str,
    pub count: u64,
}

/// TCP sender state over time, one row per change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSeries {
    pub flow: Vec<u32>,
    pub time_s: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt_ms: Vec<f64>,
    pub rto_ms: Vec<f64>,
}

/// Facts about the run itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub nodes: u32,
    pub events: u64,
    pub wall_s: f64,
    /// Hash of every processed event (time, node, kind): equal for equal runs.
    pub event_hash: u64,
}

#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    pub info: RunInfo,
    pub flows: Vec<FlowRow>,
    pub nodes: Vec<NodeRow>,
    pub drops: Vec<DropRow>,
    pub timeseries: TimeSeries,
    pub overhead: Vec<OverheadRow>,
    pub route_events: Vec<RouteEventRow>,
    pub paths: Vec<PathRow>,
    pub outages: Vec<OutageRow>,
    /// `[output] trace`: every frame sent and received, every drop.
    pub trace: Vec<crate::trace::TraceRow>,
    /// Every node's initial position, then every leg as it started.
    pub movement: Vec<MovementRow>,
    /// Per download of every www flow.
    pub downloads: Vec<DownloadRow>,
    /// The shortest-path oracle (oracle.rs).
    pub oracle_paths: Vec<OraclePathRow>,
}

/// One leg a node started (scripted or random waypoint): at `time_s`, from
/// (`x`, `y`) toward (`to_x`, `to_y`) at `speed_mps`, in a straight line; it
/// stops there (or where the next leg starts). Each node's initial position
/// is a row at time 0 with speed 0. Enough to write an ns-2 movement file
/// (`$node_(i) set X_`, `$ns_ at t "$node_(i) setdest x y v"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MovementRow {
    pub node: u32,
    pub time_s: f64,
    pub x: f64,
    pub y: f64,
    pub to_x: f64,
    pub to_y: f64,
    pub speed_mps: f64,
}
