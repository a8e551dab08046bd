//! What a run returns: plain rows, turned into DataFrames by the Python layer
//! and into CSV/Parquet files by the CLI. Each table and column is declared
//! here once (`result_table!`, columns.rs); `RunOutput::schema` lists them in
//! file order for the binding, the store and docs/RESULTS.md.

pub mod columns;

pub use crate::trace::TraceRow;
use crate::result_table;
use columns::{Columns, TableSchema};

result_table! {
    /// One row per flow.
    #[derive(Debug, Clone, Default)]
    pub struct FlowRow as "flows" {
        /// The flow's index in the scenario's `flows` list.
        pub flow: u32 [""],
        /// The flow's kind as the scenario names it: "ftp" (over TCP), "cbr"
        /// (over UDP) or "www" (web sessions over TCP).
        pub kind: &'static str [""],
        /// Source node.
        pub src: u32 [""],
        /// Destination node.
        pub dst: u32 [""],
        /// When the flow started.
        pub start_s: f64 ["s"],
        /// When the flow stopped, finished its transfer, or the run ended.
        pub end_s: f64 ["s"],
        /// Application bytes delivered complete and in order to the receiver.
        pub bytes_delivered: u64 ["B"],
        /// Application-level throughput (seed 000 §3.2): delivered bytes over
        /// the flow's active time `end_s - start_s` (1 kbit = 1000 bit); NaN
        /// when that time is zero (a flow starting when the run ends).
        pub throughput_kbps: f64 ["kbit/s"],
        /// Data segments (or datagrams) sent, retransmissions included.
        pub packets_sent: u64 [""],
        /// Data segments sent again (TCP).
        pub retransmissions: u64 [""],
        /// Non-duplicate data segments (datagrams) received by the destination.
        pub packets_received: u64 [""],
        /// Seed 000 §3.2: retransmitted segments / non-duplicate segments
        /// received by the destination, in percent (0 for CBR, which
        /// retransmits nothing); NaN when the destination received none.
        pub retransmission_index: f64 ["%"],
        /// Seed 002 §7.2: retransmitted / sent data segments (TCP); lost /
        /// sent datagrams (CBR); NaN when none was sent.
        pub loss_rate: f64 [""],
        /// Mean of the TCP sender's RTT samples (seed 004); NaN for CBR flows
        /// and for a TCP flow without samples.
        pub rtt_mean_ms: f64 ["ms"],
        /// Standard deviation of the TCP sender's RTT samples; NaN as for
        /// `rtt_mean_ms`.
        pub rtt_std_ms: f64 ["ms"],
        /// RTT samples the TCP sender took.
        pub rtt_samples: u64 [""],
        /// Retransmission timeouts of the TCP sender.
        pub timeouts: u64 [""],
        /// Fast retransmits of the TCP sender.
        pub fast_retransmits: u64 [""],
        /// The receiver saw a gap or reordering in the byte stream it delivered.
        pub stream_errors: u64 [""],
        /// The transfer of `bytes` completed at `end_s`.
        pub completed: bool [""],
        /// Times the data's path changed, seen at the destination (seed 001 Fig. 2).
        pub route_changes: u64 [""],
        /// Seconds the TCP sender spent stalled in retransmission timeouts
        /// (seed 003 Table 4).
        pub rto_time_s: f64 ["s"],
        /// Seconds the source's router had no route for the flow's data.
        pub no_route_s: f64 ["s"],
        /// Longest gap between consecutive data arrivals at the destination
        /// among those of at least 0.5 s (the `outages` table's "gap" rows),
        /// 0 when there was none; NaN before two arrivals.
        pub longest_gap_s: f64 ["s"],
        /// ELFN notifications delivered to the TCP sender (`[tcp] elfn`).
        pub elfn_events: u64 [""],
        /// Probes sent in ELFN standby or ADTCP disconnection.
        pub probes: u64 [""],
        /// Seconds the sender spent in standby, window and timers frozen.
        pub standby_s: f64 ["s"],
        /// ADTCP (`[tcp] adtcp`): loss indications handled as congestion
        /// (window reduced).
        pub adtcp_congestion: u64 [""],
        /// ADTCP: loss indications handled as channel error (retransmission only).
        pub adtcp_channel_error: u64 [""],
        /// ADTCP: loss indications handled as a route change (retransmission only).
        pub adtcp_route_change: u64 [""],
        /// ADTCP: loss indications handled as disconnection (freeze and probe).
        pub adtcp_disconnection: u64 [""],
        /// CBR: mean one-way delay of each datagram's first copy (arrival minus
        /// when its source handed it to IP); NaN for FTP flows and when
        /// nothing arrived.
        pub delay_mean_ms: f64 ["ms"],
        /// CBR: standard deviation of that one-way delay; NaN as for
        /// `delay_mean_ms`.
        pub delay_std_ms: f64 ["ms"],
        /// CBR: RFC 3550 §6.4.1 interarrival jitter at the end of the run: the
        /// running estimate J += (|D(i-1,i)| - J)/16 over first copies in
        /// arrival order, D being the difference of consecutive transit times
        /// (what an RTP receiver report would carry; it weights the last ~16
        /// datagrams most; `delay_std_ms` describes the whole run). NaN for
        /// FTP flows and before two datagrams arrived.
        pub jitter_ms: f64 ["ms"],
        /// A finite transfer (ftp with `bytes`, or a www session whose every
        /// download finished): when its last byte was acknowledged at the
        /// sender; NaN otherwise (seed 002 §7.1).
        pub completion_s: f64 ["s"],
        /// Seed 002 §7.1's throughput, "the time to acknowledge a given amount
        /// of payload": bytes / (completion_s - start_s); NaN when not
        /// completed.
        pub transfer_throughput_kbps: f64 ["kbit/s"],
        /// TCP window reductions in response to ECN-Echo (RFC 3168).
        pub ecn_reductions: u64 [""],
        /// Hops of the shortest path between `src` and `dst` in the true
        /// topology when the flow started (the oracle of `oracle_paths`):
        /// 0 when there was no path (nodes out of radio range), -1 when the
        /// oracle was skipped (over 20,000 moving nodes). Last, as is every
        /// column added after files were first written.
        pub oracle_hops_at_start: i64 [""],
    }
}

/// Rows are equal when every field is, NaN included (a flow without an RTT
/// equals its rerun): what determinism tests need. Floats compare by their
/// shortest round-trip text, which identifies a value exactly.
impl PartialEq for FlowRow {
    fn eq(&self, other: &Self) -> bool {
        format!("{self:?}") == format!("{other:?}")
    }
}

result_table! {
    /// Control packets a node sent (originated or forwarded), by message type.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OverheadRow as "overhead" {
        /// The node that sent them.
        pub node: u32 [""],
        /// The routing message type ("RREQ", "HELLO", "TC", ...).
        pub kind: &'static str [""],
        /// Packets sent.
        pub packets: u64 [""],
        /// Bytes sent (IP packets, headers included).
        pub bytes: u64 ["B"],
    }
}

result_table! {
    /// A routing event (link failure, discovery, route error, salvage).
    #[derive(Debug, Clone, PartialEq)]
    pub struct RouteEventRow as "route_events" {
        /// When it happened.
        pub time_s: f64 ["s"],
        /// Where it happened.
        pub node: u32 [""],
        /// "link_broken", "discovery_started", "discovery_done",
        /// "discovery_failed", "rerr_sent", "salvaged", "path_change", ...
        pub event: &'static str [""],
        /// Neighbour or destination; for "path_change" (a flow's data arriving
        /// over a new path, at its destination) the new path's hop count; -1
        /// when the event names none.
        pub peer: i64 [""],
        /// How a link failure was detected ("mac", "hello", "no_ack", "rerr").
        pub cause: &'static str [""],
        /// A link failure declared while the neighbour was still in range.
        pub false_failure: bool [""],
        /// The flow of a "path_change"; -1 for other events.
        pub flow: i64 [""],
        /// Route discovery latency; for "path_change" the seconds since the
        /// last arrival over the old path (the delivery outage); NaN for
        /// other events.
        pub latency_s: f64 ["s"],
    }
}

result_table! {
    /// Seconds a flow direction's path had a given length (seed 002 Eq. 1 t_i).
    #[derive(Debug, Clone, PartialEq)]
    pub struct PathRow as "paths" {
        /// The flow.
        pub flow: u32 [""],
        /// "data" (seen at the destination) or "ack" (seen at the source).
        pub direction: &'static str [""],
        /// The path's length.
        pub hops: u32 [""],
        /// Seconds spent at that length.
        pub time_s: f64 ["s"],
    }
}

result_table! {
    /// A period a flow was cut off: "no_route" at the node that originates its
    /// packets, or "gap" between data arrivals at the destination.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OutageRow as "outages" {
        /// The flow.
        pub flow: u32 [""],
        /// The node that saw it (source for "no_route", destination for "gap").
        pub node: u32 [""],
        /// "no_route" or "gap".
        pub kind: &'static str [""],
        /// When the outage began.
        pub start_s: f64 ["s"],
        /// When it ended (or the run did).
        pub end_s: f64 ["s"],
    }
}

result_table! {
    /// One download of a www flow (app/www.rs), as the server saw it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct DownloadRow as "downloads" {
        /// The www flow.
        pub flow: u32 [""],
        /// 0, 1, ... in the session's order.
        pub download: u32 [""],
        /// When the request reached the server.
        pub start_s: f64 ["s"],
        /// When its last byte was acknowledged; the flow's stop or the run's
        /// end if it was not.
        pub end_s: f64 ["s"],
        /// The download's size.
        pub bytes: u64 ["B"],
        /// Its last byte was acknowledged.
        pub completed: bool [""],
    }
}

result_table! {
    /// Seconds a flow's shortest path in the true topology had `hops` hops
    /// while the flow was active; 0 hops: no path (oracle.rs; seed 002 Eq. 1's t_i).
    #[derive(Debug, Clone, PartialEq)]
    pub struct OraclePathRow as "oracle_paths" {
        /// The flow.
        pub flow: u32 [""],
        /// Shortest-path length in the true topology (0: no path).
        pub hops: u32 [""],
        /// Seconds at that length.
        pub time_s: f64 ["s"],
    }
}

result_table! {
    /// One row per node.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct NodeRow as "nodes" {
        /// The node.
        pub node: u32 [""],
        /// Position at the end of the run.
        pub x: f64 ["m"],
        /// Position at the end of the run.
        pub y: f64 ["m"],
        /// Time-weighted mean interface-queue length (seed 002 §7.3) over the
        /// run; NaN for a run of zero duration.
        pub ifq_mean: f64 ["packets"],
        /// Longest interface queue seen.
        pub ifq_max: u32 ["packets"],
        /// Frames the MAC transmitted (RTS, CTS, DATA, ACK).
        pub mac_frames_sent: u64 [""],
        /// Data frames handed to the MAC by the network layer and sent once or more.
        pub mac_data_sent: u64 [""],
        /// Retransmission attempts of RTS and DATA frames.
        pub mac_retransmissions: u64 [""],
        /// Frames this radio lost to a collision while receiving them.
        pub rx_collisions: u64 [""],
        /// Packets this node forwarded for others.
        pub forwarded: u64 [""],
        /// Packets LRED marked CE at this node.
        pub ecn_marks: u64 [""],
    }
}

result_table! {
    /// Drop counters keyed the way ns-2 traces name them (seed 002 Appendix B).
    #[derive(Debug, Clone, PartialEq)]
    pub struct DropRow as "drops" {
        /// Where the packets were dropped.
        pub node: u32 [""],
        /// "MAC", "RTR", "IFQ" or "AGT".
        pub layer: &'static str [""],
        /// ns-2 drop code: IFQ, RET, COL, DUP, BSY, NRTE, TTL, CBK, LOOP, TOUT,
        /// QFULL, SAL, ARP, END.
        pub reason: &'static str [""],
        /// The dropped packets' type: "tcp", "ack", "cbr", "routing", "ARP" or "MAC".
        pub packet_type: &'static str [""],
        /// Packets dropped.
        pub count: u64 [""],
    }
}

result_table! {
    /// TCP sender state over time, one row per change (bounded by `[output]
    /// timeseries_interval_s` and `timeseries_max_samples`).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct TimeSeries as "timeseries" columnar {
        /// The flow.
        pub flow: u32 [""],
        /// When the state changed.
        pub time_s: f64 ["s"],
        /// Congestion window.
        pub cwnd: f64 ["segments"],
        /// Slow-start threshold.
        pub ssthresh: f64 ["segments"],
        /// Smoothed RTT (RFC 6298).
        pub srtt_ms: f64 ["ms"],
        /// Retransmission timeout.
        pub rto_ms: f64 ["ms"],
    }
}

result_table! {
    /// Facts about the run itself (info.json).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RunInfo as "info" {
        /// The scenario's `name`.
        pub scenario: String [""],
        /// The seed the run used.
        pub seed: u64 [""],
        /// Simulated time.
        pub duration_s: f64 ["s"],
        /// Nodes in the run.
        pub nodes: u32 [""],
        /// Events processed.
        pub events: u64 [""],
        /// Wall-clock time the engine took (not determined by the scenario).
        pub wall_s: f64 ["s"],
        /// Hash of every processed event (time, node, kind): equal for equal runs.
        pub event_hash: u64 [""],
    }
}

result_table! {
    /// One leg a node started (scripted or random waypoint): at `time_s`, from
    /// (`x`, `y`) toward (`to_x`, `to_y`) at `speed_mps`, in a straight line; it
    /// stops there (or where the next leg starts). Each node's initial position
    /// is a row at time 0 with speed 0. Enough to write an ns-2 movement file
    /// (`$node_(i) set X_`, `$ns_ at t "$node_(i) setdest x y v"`).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct MovementRow as "movement" {
        /// The node.
        pub node: u32 [""],
        /// When the leg started.
        pub time_s: f64 ["s"],
        /// Where it started.
        pub x: f64 ["m"],
        /// Where it started.
        pub y: f64 ["m"],
        /// Where it heads.
        pub to_x: f64 ["m"],
        /// Where it heads.
        pub to_y: f64 ["m"],
        /// Its speed (0 for an initial position).
        pub speed_mps: f64 ["m/s"],
    }
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
    pub trace: Vec<TraceRow>,
    /// Every node's initial position, then every leg as it started.
    pub movement: Vec<MovementRow>,
    /// Per download of every www flow.
    pub downloads: Vec<DownloadRow>,
    /// The shortest-path oracle (oracle.rs).
    pub oracle_paths: Vec<OraclePathRow>,
    /// `[trace] formats`: each file streamed (its name in the trace
    /// directory) and the events it holds (a CSV file's rows). Not a table.
    pub trace_files: Vec<(String, u64)>,
}

impl RunOutput {
    /// The run's facts and every table, in file order (info first): the one
    /// list of tables everything else derives from. Columns are built when
    /// asked for (`Columns::column`).
    pub fn tables(&self) -> Vec<Box<dyn Columns + '_>> {
        // Destructured, so that a field added to RunOutput without a place
        // here does not compile.
        let RunOutput { info, flows, nodes, drops, timeseries, overhead, route_events, paths, outages, trace, movement, downloads, oracle_paths, trace_files: _ } = self;
        vec![
            Box::new(std::slice::from_ref(info)),
            Box::new(flows.as_slice()),
            Box::new(nodes.as_slice()),
            Box::new(drops.as_slice()),
            Box::new(timeseries),
            Box::new(overhead.as_slice()),
            Box::new(route_events.as_slice()),
            Box::new(paths.as_slice()),
            Box::new(outages.as_slice()),
            Box::new(trace.as_slice()),
            Box::new(movement.as_slice()),
            Box::new(downloads.as_slice()),
            Box::new(oracle_paths.as_slice()),
        ]
    }

    /// The schema of every table (`info` first), in file order.
    pub fn schema() -> Vec<TableSchema> {
        RunOutput::default().tables().iter().map(|t| t.schema()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::columns::{ColumnData, Table};
    use super::*;

    /// Each column carries its own field's values: every FlowRow field gets
    /// a distinct value and the column of that name must return it (a getter
    /// wired to the wrong field, or a table missing from `tables()`, fails).
    #[test]
    fn each_column_returns_its_own_field() {
        // Each numeric field holds its own column index.
        let row = FlowRow {
            flow: 0, kind: "ftp", src: 2, dst: 3, start_s: 4.0, end_s: 5.0, bytes_delivered: 6, throughput_kbps: 7.0,
            packets_sent: 8, retransmissions: 9, packets_received: 10, retransmission_index: 11.0, loss_rate: 12.0,
            rtt_mean_ms: 13.0, rtt_std_ms: 14.0, rtt_samples: 15, timeouts: 16, fast_retransmits: 17, stream_errors: 18,
            completed: true, route_changes: 20, rto_time_s: 21.0, no_route_s: 22.0, longest_gap_s: 23.0, elfn_events: 24,
            probes: 25, standby_s: 26.0, adtcp_congestion: 27, adtcp_channel_error: 28, adtcp_route_change: 29,
            adtcp_disconnection: 30, delay_mean_ms: 31.0, delay_std_ms: 32.0, jitter_ms: 33.0, completion_s: 34.0,
            transfer_throughput_kbps: 35.0, ecn_reductions: 36, oracle_hops_at_start: 37,
        };
        let out = RunOutput { flows: vec![row.clone(), row], ..Default::default() };
        let tables = out.tables();
        let flows = tables.iter().find(|t| t.schema().name == "flows").unwrap();
        let columns = FlowRow::SCHEMA.columns;
        assert_eq!(columns.len(), 38);
        for (i, c) in columns.iter().enumerate() {
            let want = match c.name {
                "kind" => ColumnData::Str(vec!["ftp"; 2]),
                "completed" => ColumnData::Bool(vec![true; 2]),
                _ => {
                    let n = i as u64;
                    match flows.column(i) {
                        ColumnData::U32(_) => ColumnData::U32(vec![n as u32; 2]),
                        ColumnData::U64(_) => ColumnData::U64(vec![n; 2]),
                        ColumnData::I64(_) => ColumnData::I64(vec![n as i64; 2]),
                        ColumnData::F64(_) => ColumnData::F64(vec![n as f64; 2]),
                        other => panic!("{}: {other:?}", c.name),
                    }
                }
            };
            assert_eq!(flows.column(i), want, "{}", c.name);
        }
        for t in &tables {
            let schema = t.schema();
            for i in 0..schema.columns.len() {
                assert_eq!(t.column(i).len(), if schema.name == "flows" { 2 } else if schema.name == "info" { 1 } else { 0 });
            }
        }
    }

    #[test]
    fn table_names_are_unique_and_columns_documented() {
        let schema = RunOutput::schema();
        let mut names: Vec<&str> = schema.iter().map(|s| s.name).collect();
        assert_eq!(names[0], "info");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), schema.len());
        for t in &schema {
            for c in t.columns {
                assert!(!columns::one_line(c.meaning).is_empty(), "{}.{} has no meaning", t.name, c.name);
            }
        }
    }
}
