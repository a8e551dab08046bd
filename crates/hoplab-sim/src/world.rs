//! The world: nodes, channel, event queue and frames on the air; building it
//! from a scenario, the run loop, and collecting the results.

use crate::app::{cbr, ftp, onoff, www, Agent};
use crate::control::{Cancelled, Checker, RunControl, CHECK_EVERY};
use crate::event::{Event, TxTable};
use crate::mac::{Dcf, Ifq, MacConfig};
use crate::mobility::Mover;
use crate::net::arp::{Arp, ArpMode};
use crate::net::routing::StaticTable;
use crate::net::Router;
use crate::node::{Ctx, Node};
use crate::phy::config::CaptureModel;
use crate::phy::{Channel, Radio, RadioParams, RxRules};
use crate::queue::EventQueue;
use crate::net::DropReason;
use crate::results::{DownloadRow, DropRow, FlowRow, OraclePathRow, NodeRow, OutageRow, OverheadRow, PathRow, RouteEventRow, RunInfo, RunOutput, TimeSeries};
use crate::rng::{Purpose, Stream};
use crate::queue::Phase;
use crate::scenario::{ArpKind, FlowKind, RoutingConfig, Scenario, Topology};
use crate::tcp::TcpConfig;
use crate::time::{Dur, SimTime};
use crate::trace::filter::Filter;
use crate::trace::tap::{Tap, TraceError};
use crate::wire::NodeId;
use std::collections::BTreeMap;
use std::sync::Arc;

pub struct World {
    pub nodes: Vec<Node>,
    pub channel: Channel,
    queue: EventQueue<Event>,
    txs: TxTable,
    now: SimTime,
    end: SimTime,
    events: u64,
    hash: u64,
    scenario: Scenario,
    seed: u64,
    movers: Vec<Mover>,
    /// The trace tap; None when nothing is traced.
    tap: Option<Tap>,
    /// Prefetch the next receiver's state: only where the nodes' state
    /// outgrows the caches (a small network's stays in L1, and there the
    /// prefetch was 1-2 % of the instructions).
    prefetch: bool,
}

/// Networks above this many nodes prefetch (`World::prefetch`).
const PREFETCH_FROM_NODES: usize = 64;

/// The event hash's code of an injection (event.rs codes are 1..=5).
const INJECT_CODE: u64 = 6;

/// Why a run ended before its end.
#[derive(Debug)]
pub enum RunError {
    /// Its control stopped it.
    Cancelled(Cancelled),
    /// A trace file could not be written.
    Trace(TraceError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Cancelled(c) => c.fmt(f),
            RunError::Trace(t) => t.fmt(f),
        }
    }
}
impl std::error::Error for RunError {}

/// Node positions for a topology; random ones come from the seed.
pub fn positions(t: &Topology, seed: u64) -> Vec<(f64, f64)> {
    match t {
        Topology::Chain { nodes, spacing } => (0..*nodes).map(|i| (i as f64 * spacing, 0.0)).collect(),
        Topology::Grid { rows, cols, spacing } => (0..rows * cols).map(|i| ((i % cols) as f64 * spacing, (i / cols) as f64 * spacing)).collect(),
        Topology::Random { nodes, width, height } => {
            let mut s = Stream::new(seed, u32::MAX, Purpose::Topology);
            (0..*nodes).map(|_| (s.unit() * width, s.unit() * height)).collect()
        }
        Topology::Explicit { positions } => positions.iter().map(|p| (p[0], p[1])).collect(),
    }
}

impl World {
    pub fn new(sc: &Scenario, seed: u64) -> World {
        World::with_endpoints(sc, seed, &[])
    }

    /// A world whose static routes also reach `extra` nodes (the real nodes
    /// of an emulation, which end no scenario flow).
    pub fn with_endpoints(sc: &Scenario, seed: u64, extra: &[NodeId]) -> World {
        let mut pos = positions(&sc.topology, seed);
        // Random waypoint's steady-state start moves the initial positions.
        let movers = Mover::for_world(&sc.mobility, &sc.topology, &mut pos, seed);
        let n = pos.len();
        let params = RadioParams::from_config(&sc.radio);
        let (rx_threshold, capture) = (params.rx_threshold, params.capture_ratio);
        let rx_rules = RxRules { ns2_capture: sc.radio.capture_model == CaptureModel::Ns2, lock_while_transmitting: sc.radio.lock_while_transmitting };
        let channel = Channel::new(params, pos, seed);
        // Static routing: shortest paths over the initial decode-range graph,
        // toward every node that ends a flow.
        let routing = sc.routing.resolve().expect("validated scenario");
        // Only static routing reads the table; the other protocols skip the
        // adjacency build (O(n x neighbours), gigabytes for dense large networks).
        let table = Arc::new(if matches!(routing, RoutingConfig::Static) {
            let tx_range = channel.params.tx_range;
            let adjacency: Vec<Vec<NodeId>> = (0..n as NodeId)
                .map(|a| channel.nodes_within(a, tx_range * 1.000001).into_iter().filter(|&b| channel.in_tx_range(a, b)).collect())
                .collect();
            let endpoints = sc.flows.iter().flat_map(|f| [f.src, f.dst]).chain(extra.iter().copied());
            StaticTable::build(&adjacency, endpoints)
        } else {
            StaticTable::build(&[], std::iter::empty())
        });
        let mac_cfg = MacConfig::from_scenario(&sc.mac);
        let end = SimTime::from_secs_f64(sc.duration);
        let mut agents: Vec<Vec<Agent>> = (0..n).map(|_| Vec::new()).collect();
        for (i, f) in sc.flows.iter().enumerate() {
            let flow = i as u32;
            let start = SimTime::from_secs_f64(f.start);
            let stop = f.stop.map(SimTime::from_secs_f64);
            match f.kind {
                FlowKind::Ftp => {
                    let cfg = TcpConfig::from_params(&f.tcp.or(&sc.tcp));
                    agents[f.src as usize].push(Agent::FtpSource(ftp::FtpSource::new(flow, f.dst, &cfg, f.bytes, start, stop, sc.output.series_limits())));
                    agents[f.dst as usize].push(Agent::TcpSink(ftp::TcpSinkAgent::new(flow, f.src, &cfg)));
                }
                FlowKind::Cbr => {
                    let size = f.packet_size.unwrap_or(512);
                    let rate = f.rate_kbps.expect("validated");
                    let mut src = cbr::CbrSource::new(flow, f.dst, size, rate, start, stop.unwrap_or(end).min(end));
                    if let (Some(on), Some(off)) = (f.on_s, f.off_s) {
                        let dist = f.distribution.unwrap_or(crate::scenario::OnOffDistribution::Exponential);
                        src = src.with_onoff(onoff::OnOff::new(on, off, dist, app_stream(seed, flow)));
                    }
                    if f.jitter == Some(true) {
                        src = src.with_jitter(Stream::new(seed, 0x8000_0000 | flow, Purpose::CbrJitter));
                    }
                    if let Some(n) = f.max_packets {
                        src = src.with_max_packets(n);
                    }
                    agents[f.src as usize].push(Agent::Cbr(src));
                    agents[f.dst as usize].push(Agent::UdpSink(cbr::UdpSink::new(flow, f.src)));
                }
                FlowKind::Www => {
                    let cfg = TcpConfig::from_params(&f.tcp.or(&sc.tcp));
                    let params = www::WwwParams::from_flow(f);
                    agents[f.src as usize].push(Agent::WwwServer(Box::new(www::WwwServer::new(flow, f.dst, &cfg, params, app_stream(seed, flow), start, stop))));
                    agents[f.dst as usize].push(Agent::WwwClient(www::WwwClient::new(flow, f.src, &cfg)));
                }
            }
        }
        let nodes = agents
            .into_iter()
            .enumerate()
            .map(|(i, ag)| {
                let id = i as NodeId;
                let mac = Dcf::new(id, mac_cfg.clone(), Stream::new(seed, id, Purpose::MacBackoff));
                let router = Router::new(&routing, id, seed, &table);
                let arp = match sc.link.arp {
                    ArpKind::Off => None,
                    ArpKind::Ns2 => Some(Arp::new(id, ArpMode::Ns2)),
                    ArpKind::Queue => Some(Arp::new(id, ArpMode::Queue(sc.link.arp_queue_limit))),
                };
                let mut node = Node::new(id, Radio::new(rx_threshold, capture).with_rules(rx_rules), mac, Ifq::new(sc.mac.queue_limit as usize).with_routing_first(sc.mac.queue_routing_first).with_classes(sc.mac.queue_classes).with_ns2_priqueue(sc.mac.queue_ns2_priqueue), router, arp, ag)
                    .with_link_delay(Dur((sc.link.delay_us * 1e3).round() as u64));
                node.refill_before_failure_sends = sc.link.refill_before_failure_sends;
                if sc.lred.enabled {
                    let l = &sc.lred;
                    let p = crate::net::lred::LredParams { min_th: l.min_th, max_th: l.max_th, max_p: l.max_p, weight: l.weight };
                    node.lred = Some((crate::net::lred::LinkRed::new(p), Stream::new(seed, id, Purpose::Lred)));
                }
                node
            })
            .collect();
        let mut w = World {
            nodes,
            channel,
            queue: EventQueue::new(n),
            txs: TxTable::default(),
            now: SimTime::ZERO,
            end,
            events: 0,
            hash: 0xcbf2_9ce4_8422_2325,
            scenario: sc.clone(),
            seed,
            movers,
            // The in-memory table now; files when `stream_trace` opens them.
            tap: sc.output.trace.then(|| Tap::new(Filter::new(&sc.trace, n, end), true, Vec::new())),
            prefetch: n > PREFETCH_FROM_NODES,
        };
        for (i, m) in w.movers.iter().enumerate() {
            if let Some(t) = m.next_update(SimTime::ZERO) {
                w.queue.push(t, Phase::Timer, i as NodeId, Event::Move);
            }
        }
        for node in &mut w.nodes {
            let mut ctx = Ctx { now: SimTime::ZERO, queue: &mut w.queue, channel: &mut w.channel, txs: &mut w.txs, tap: None };
            node.sync_timers(&mut ctx);
        }
        w
    }

    /// Stream the `[trace]` formats into files in `dir` (which must exist)
    /// as the run goes. Call before running.
    pub fn stream_trace(&mut self, dir: &std::path::Path) -> Result<(), TraceError> {
        let sc = &self.scenario;
        let mut pcap = crate::trace::pcap::PcapOptions::new(&sc.mac, &sc.flows, &sc.tcp);
        pcap.wire.ip_in_ip = matches!(sc.routing.resolve(), Ok(RoutingConfig::Dsdv(c)) if c.double_ip_header);
        let numbering = crate::trace::ns2::Ns2Numbering {
            ns2: sc.compat.name() == "ns2",
            aodv: sc.routing.protocol.name() == "aodv",
            cmu_ifq: sc.mac.queue_classes,
            dsr: sc.compat.name() == "ns2" && sc.routing.protocol.name() == "dsr",
        };
        let files = crate::trace::open::sinks(&sc.trace, dir, &pcap, numbering, self.nodes.len() as u32)?;
        if files.is_empty() {
            return Ok(());
        }
        let filter = Filter::new(&self.scenario.trace, self.nodes.len(), self.end);
        self.tap = Some(Tap::new(filter, self.scenario.output.trace, files));
        Ok(())
    }

    /// Process events up to the end of the run.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn run(&mut self) {
        let done = self.run_controlled(&mut RunControl::default(), std::time::Instant::now());
        debug_assert!(done.is_ok(), "a default control never cancels: {done:?}");
    }

    /// Process events up to the end of the run, looking at `ctl` every
    /// `control::CHECK_EVERY` popped events; `Err` if it stopped the run.
    // Not inlined into `run_traced`: the loop compiles as it did before
    // the tap (cachegrind: docs/BENCHMARKS.md, issue 24).
    #[inline(never)]
    pub fn run_controlled(&mut self, ctl: &mut RunControl, started: std::time::Instant) -> Result<(), RunError> {
        let mut check = Checker::new(ctl, started);
        let mut popped: u64 = 0;
        let (end, end_s) = (self.end, self.end.as_secs_f64());
        // The loop's borrows are taken once, not per event (about 1 % of
        // the static chain's instructions went to building them).
        let mut lp = self.engine();
        let stopped = loop {
            let Some((t, node, ev)) = lp.ctx.queue.pop() else { break None };
            if t > end {
                break None;
            }
            popped += 1;
            if popped.is_multiple_of(CHECK_EVERY) {
                // A trace file that failed ends the run at the next look.
                if lp.ctx.tap.as_ref().is_some_and(|t| t.failed()) {
                    break Some((t, None));
                }
                if check.should_stop(t.as_secs_f64(), end_s, *lp.events) {
                    break Some((t, Some(Cancelled { at_s: t.as_secs_f64() })));
                }
            }
            lp.dispatch(t, node, ev);
        };
        match stopped {
            None => self.end_trace(),
            Some((t, cancelled)) => {
                self.now = t;
                Err(match cancelled {
                    Some(c) => RunError::Cancelled(c),
                    None => self.finish_trace().expect_err("the tap failed"),
                })
            }
        }
    }

    /// The world's parts the event loop works on, borrowed together.
    fn engine(&mut self) -> Engine<'_> {
        let now = self.now;
        Engine {
            nodes: &mut self.nodes,
            movers: &mut self.movers,
            events: &mut self.events,
            hash: &mut self.hash,
            prefetch: self.prefetch,
            ctx: Ctx { now, queue: &mut self.queue, channel: &mut self.channel, txs: &mut self.txs, tap: self.tap.as_mut() },
        }
    }

    /// The run reached its end: the trace's END drops at the stop time, then
    /// the files flushed (the first write error of the run, if any).
    pub fn end_trace(&mut self) -> Result<(), RunError> {
        self.now = self.end;
        self.trace_end_drops();
        self.finish_trace()
    }

    /// The trace's END drops at the stop time, before its files close.
    fn trace_end_drops(&mut self) {
        if self.tap.is_none() {
            return;
        }
        let mut ctx = Ctx { now: self.end, queue: &mut self.queue, channel: &mut self.channel, txs: &mut self.txs, tap: self.tap.as_mut() };
        for n in &self.nodes {
            n.trace_end_drops(&mut ctx);
        }
    }

    // The emulation's step API (bridge.rs). `run_controlled` never calls
    // these: a run without emulation does exactly what it did before.

    /// The time of the next queued event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.queue.peek_time()
    }

    /// The end of the scenario.
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// Pop and handle the next event.
    #[inline(never)]
    pub fn step_one(&mut self) {
        if let Some((t, node, ev)) = self.queue.pop() {
            self.now = t; // the run loop sets it only where it stops
            self.engine().dispatch(t, node, ev);
        }
    }

    /// A real packet enters node `node`'s stack at `at` (not before any
    /// event already handled); it counts in the event hash, so a replay
    /// that injects differently hashes differently.
    pub fn inject(&mut self, at: SimTime, node: NodeId, dst: NodeId, raw: crate::wire::ipv4::RawIp, ttl: u8) {
        debug_assert!(at >= self.now, "injected in the past");
        self.now = at;
        let len = raw.bytes.len() as u64;
        let mut ctx = Ctx { now: at, queue: &mut self.queue, channel: &mut self.channel, txs: &mut self.txs, tap: self.tap.as_mut() };
        let n = &mut self.nodes[node as usize];
        n.inject(dst, raw, ttl, &mut ctx);
        n.sync_timers(&mut ctx);
        self.events += 1;
        self.hash = mix_hash(self.hash, at, node, INJECT_CODE | len << 8);
    }

    /// Take the real packets delivered so far: (node, time, bytes) in time
    /// order (ties by node, then in delivery order).
    pub fn drain_delivered(&mut self, out: &mut Vec<(NodeId, SimTime, Vec<u8>)>) {
        let start = out.len();
        for n in &mut self.nodes {
            let id = n.id;
            out.extend(n.ext_out.drain(..).map(|(t, b)| (id, t, b)));
        }
        out[start..].sort_by_key(|d| (d.1, d.0));
    }

    /// Flush the trace files; the first write error of the run, if any.
    pub fn finish_trace(&mut self) -> Result<(), RunError> {
        match self.tap.as_mut() {
            Some(tap) => tap.finish().map_err(RunError::Trace),
            None => Ok(()),
        }
    }

    /// Record, at every node and per data packet uid, the MAC DATA frames,
    /// routing's hand-offs and the copies held (`NodeStats::data_tx`): a
    /// diagnostic for tests. Call before `run`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn count_data_frames(&mut self) {
        for n in &mut self.nodes {
            n.stats.data_tx = Some(BTreeMap::new());
        }
    }

    #[allow(dead_code)]
    pub fn events(&self) -> u64 {
        self.events
    }

    #[allow(dead_code)]
    pub fn event_hash(&self) -> u64 {
        self.hash
    }

    /// Assemble the result tables.
    pub fn results(&mut self, wall_s: f64) -> RunOutput {
        let end_s = self.end.as_secs_f64();
        for node in &mut self.nodes {
            node.stats.net.finish(self.end);
            // ns-2 "END": what is still queued when the run stops.
            // So are packets ARP still holds (ns-2 ARPTable::Terminate).
            let mut left: Vec<_> = node.ifq.packets().map(|p| p.ptype()).collect();
            if let Some(arp) = node.arp.as_mut() {
                left.extend(arp.take_held().iter().map(|p| p.ptype()));
            }
            for t in left {
                *node.stats.drops.entry((DropReason::End, t)).or_insert(0) += 1;
            }
        }
        let mut flows = Vec::new();
        let mut downloads = Vec::new();
        let mut ts = TimeSeries::default();
        for (i, f) in self.scenario.flows.iter().enumerate() {
            let flow = i as u32;
            let find = |n: NodeId| self.nodes[n as usize].agent_index(flow).expect("flow endpoints have agents");
            let (si, di) = (find(f.src), find(f.dst));
            let mut row = FlowRow { flow, src: f.src, dst: f.dst, start_s: f.start, completion_s: f64::NAN, transfer_throughput_kbps: f64::NAN, ..FlowRow::default() };
            let stop_s = f.stop.unwrap_or(end_s).min(end_s);
            let (a, b) = (f.src.min(f.dst) as usize, f.src.max(f.dst) as usize);
            let (lo, hi) = self.nodes.split_at_mut(b);
            let (src_node, dst_node) = if f.src < f.dst { (&mut lo[a], &hi[0]) } else { (&mut hi[0], &lo[a]) };
            match (&mut src_node.agents[si], &dst_node.agents[di]) {
                (Agent::FtpSource(src), Agent::TcpSink(dst)) => {
                    let s = src.sender.stats().clone();
                    let k = dst.sink.stats();
                    row.kind = "ftp";
                    (row.delay_mean_ms, row.delay_std_ms, row.jitter_ms) = (f64::NAN, f64::NAN, f64::NAN);
                    row.end_s = s.done_at.map_or(stop_s, |t| t.as_secs_f64().min(stop_s));
                    row.completed = s.done_at.is_some();
                    if let (Some(t), Some(b)) = (s.done_at, f.bytes) {
                        row.completion_s = t.as_secs_f64();
                        row.transfer_throughput_kbps = kbps(b, row.completion_s - row.start_s);
                    }
                    row.bytes_delivered = k.bytes_delivered;
                    tcp_counters(&mut row, &s, k.segments_unique, k.stream_errors);
                    row.rto_time_s = src.sender.rto_time_until(self.end);
                    row.standby_s = src.sender.standby_time_until(self.end);
                    [row.adtcp_congestion, row.adtcp_channel_error, row.adtcp_route_change, row.adtcp_disconnection] = s.adtcp_reactions;
                    for t in src.sender.take_trace() {
                        ts.flow.push(flow);
                        ts.time_s.push(t.time.as_secs_f64());
                        ts.cwnd.push(t.cwnd);
                        ts.ssthresh.push(t.ssthresh);
                        ts.srtt_ms.push(t.srtt.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3));
                        ts.rto_ms.push(t.rto.as_secs_f64() * 1e3);
                    }
                }
                (Agent::Cbr(src), Agent::UdpSink(dst)) => {
                    row.kind = "cbr";
                    (row.rtt_mean_ms, row.rtt_std_ms) = (f64::NAN, f64::NAN); // UDP measures no RTT
                    (row.delay_mean_ms, row.delay_std_ms) = mean_std_ms(dst.received, dst.delay_sum_s, dst.delay_sum_sq_s);
                    row.jitter_ms = if dst.received >= 2 { dst.jitter_s * 1e3 } else { f64::NAN };
                    row.end_s = stop_s;
                    row.bytes_delivered = dst.bytes;
                    row.packets_sent = src.sent;
                    row.packets_received = dst.received;
                    row.retransmission_index = pct(0, dst.received); // UDP retransmits nothing
                    // NaN when nothing was sent (`f64::min` would turn NaN into 1).
                    row.loss_rate = if src.sent == 0 { f64::NAN } else { 1.0 - ratio(dst.received, src.sent).min(1.0) };
                }
                (Agent::WwwServer(src), Agent::WwwClient(dst)) => {
                    let s = src.totals();
                    let (bytes, segments, stream_errors) = dst.totals();
                    row.kind = "www";
                    (row.delay_mean_ms, row.delay_std_ms, row.jitter_ms) = (f64::NAN, f64::NAN, f64::NAN);
                    let max = www::WwwParams::from_flow(f).downloads as usize;
                    let last_end = src.downloads.last().and_then(|d| d.end);
                    row.completed = src.downloads.len() == max && last_end.is_some();
                    row.end_s = if row.completed { last_end.map_or(stop_s, |t| t.as_secs_f64()) } else { stop_s };
                    if row.completed {
                        row.completion_s = row.end_s;
                        let total: u64 = src.downloads.iter().map(|d| d.bytes).sum();
                        row.transfer_throughput_kbps = kbps(total, row.end_s - row.start_s);
                    }
                    row.bytes_delivered = bytes;
                    tcp_counters(&mut row, &s, segments, stream_errors);
                    for (k, d) in src.downloads.iter().enumerate() {
                        downloads.push(DownloadRow {
                            flow,
                            download: k as u32,
                            start_s: d.start.as_secs_f64(),
                            end_s: d.end.map_or(stop_s, |t| t.as_secs_f64()),
                            bytes: d.bytes,
                            completed: d.end.is_some(),
                        });
                    }
                }
                _ => unreachable!("flow endpoints are built in pairs"),
            }
            let net_src = &self.nodes[f.src as usize].stats.net;
            let net_dst = &self.nodes[f.dst as usize].stats.net;
            // A gap needs two arrivals: before them the longest gap is undefined.
            row.longest_gap_s = f64::NAN;
            if let Some(t) = net_dst.paths.get(&(flow, false)) {
                row.route_changes = t.changes;
                if t.arrivals >= 2 {
                    row.longest_gap_s = t.gaps.iter().map(|(a, b)| b.since(*a).as_secs_f64()).fold(0.0, f64::max);
                }
            }
            // A fold from +0.0, not `sum()`: std's f64 `Sum` starts from -0.0 (the
            // identity that keeps a sum of -0.0s negative), so a flow without an
            // outage would read -0.0 and print as "-0.0" in flows.csv.
            row.no_route_s = net_src.outages.iter().filter(|o| o.0 == flow).map(|(_, a, b)| b.since(*a).as_secs_f64()).fold(0.0, |s, x| s + x);
            row.throughput_kbps = kbps(row.bytes_delivered, row.end_s - row.start_s);
            flows.push(row);
        }
        let mut nodes = Vec::new();
        let mut drops = Vec::new();
        for node in &mut self.nodes {
            let (x, y) = self.channel.position(node.id);
            let m = node.mac.stats;
            nodes.push(NodeRow {
                node: node.id,
                x,
                y,
                ifq_mean: node.ifq.mean_len(SimTime::ZERO, self.end),
                ifq_max: node.ifq.max_len,
                mac_frames_sent: m.frames_sent,
                mac_data_sent: m.data_sent,
                mac_retransmissions: m.retransmissions,
                rx_collisions: node.stats.rx_collisions,
                forwarded: node.stats.forwarded,
                ecn_marks: node.stats.ecn_marks,
            });
            for (&(reason, ptype), &count) in &node.stats.drops {
                drops.push(DropRow { node: node.id, layer: reason.layer(), reason: reason.code(), packet_type: ptype.name(), count });
            }
        }
        let (overhead, route_events, paths, outages) = self.routing_tables();
        let windows: Vec<_> = flows.iter().map(|r| crate::oracle::Window { flow: r.flow, src: r.src, dst: r.dst, start_s: r.start_s, end_s: r.end_s }).collect();
        // The oracle replays the movement exactly as the nodes made it (scripted legs and random waypoint alike).
        let movement = crate::mobility::movement_rows(&self.movers);
        let (oracle_rows, start_hops) = crate::oracle::paths_and_start(&movement, &self.channel, &windows, end_s);
        for (row, h) in flows.iter_mut().zip(start_hops) {
            row.oracle_hops_at_start = h.map_or(-1, i64::from);
        }
        let oracle_paths = oracle_rows
            .into_iter()
            .map(|r| OraclePathRow { flow: r.flow, hops: r.hops, time_s: r.time_s })
            .collect();
        let trace = self.tap.as_mut().map_or_else(Vec::new, Tap::take_rows);
        let trace_files = self.tap.as_ref().map_or_else(Vec::new, |t| {
            t.files().iter().map(|(p, n)| (p.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()), *n)).collect()
        });
        RunOutput {
            movement,
            trace,
            trace_files,
            overhead,
            route_events,
            paths,
            outages,
            info: RunInfo {
                scenario: self.scenario.name.clone(),
                seed: self.seed,
                duration_s: end_s,
                nodes: self.nodes.len() as u32,
                events: self.events,
                wall_s,
                event_hash: self.hash,
            },
            flows,
            nodes,
            drops,
            timeseries: ts,
            downloads,
            oracle_paths,
        }
    }
}

impl World {
    fn routing_tables(&self) -> (Vec<OverheadRow>, Vec<RouteEventRow>, Vec<PathRow>, Vec<OutageRow>) {
        let (mut overhead, mut events, mut paths, mut outages) = (vec![], vec![], vec![], vec![]);
        for node in &self.nodes {
            let net = &node.stats.net;
            for (&kind, &(packets, bytes)) in &net.overhead {
                overhead.push(OverheadRow { node: node.id, kind, packets, bytes });
            }
            for e in &net.events {
                events.push(RouteEventRow {
                    time_s: e.time.as_secs_f64(),
                    node: node.id,
                    event: e.kind,
                    peer: e.peer.map_or(-1, |p| p as i64),
                    cause: e.cause.map_or("", |c| c.name()),
                    false_failure: e.false_failure,
                    flow: -1,
                    latency_s: e.latency_s.unwrap_or(f64::NAN),
                });
            }
            for (&(flow, is_ack), t) in &net.paths {
                let direction = if is_ack { "ack" } else { "data" };
                if !is_ack {
                    for &(time, hops, gap) in &t.change_times {
                        events.push(RouteEventRow {
                            time_s: time.as_secs_f64(),
                            node: node.id,
                            event: "path_change",
                            peer: hops as i64,
                            cause: "",
                            false_failure: false,
                            flow: flow as i64,
                            latency_s: gap,
                        });
                    }
                }
                for (&hops, &time_s) in &t.hops_time {
                    paths.push(PathRow { flow, direction, hops: hops as u32, time_s });
                }
                if !is_ack {
                    for (a, b) in &t.gaps {
                        outages.push(OutageRow { flow, node: node.id, kind: "gap", start_s: a.as_secs_f64(), end_s: b.as_secs_f64() });
                    }
                }
            }
            for (flow, a, b) in &net.outages {
                outages.push(OutageRow { flow: *flow, node: node.id, kind: "no_route", start_s: a.as_secs_f64(), end_s: b.as_secs_f64() });
            }
        }
        events.sort_by(|a, b| a.time_s.total_cmp(&b.time_s).then(a.node.cmp(&b.node)));
        outages.sort_by(|a, b| a.start_s.total_cmp(&b.start_s).then(a.flow.cmp(&b.flow)));
        (overhead, events, paths, outages)
    }
}

/// A TCP flow's sender counters `s` and its receiver's distinct segments
/// and stream errors on its row (ftp and www flows).
fn tcp_counters(row: &mut FlowRow, s: &crate::tcp::SenderStats, received: u64, stream_errors: u64) {
    row.packets_sent = s.segments_sent;
    row.retransmissions = s.retransmissions;
    row.packets_received = received;
    row.retransmission_index = pct(s.retransmissions, received);
    row.loss_rate = ratio(s.retransmissions, s.segments_sent);
    row.rtt_samples = s.rtt_samples;
    (row.rtt_mean_ms, row.rtt_std_ms) = mean_std_ms(s.rtt_samples, s.rtt_sum_s, s.rtt_sum_sq_s);
    row.timeouts = s.timeouts;
    row.fast_retransmits = s.fast_retransmits;
    row.ecn_reductions = s.ecn_reductions;
    row.stream_errors = stream_errors;
    row.elfn_events = s.elfn_events;
    row.probes = s.probes;
}

/// The random stream of flow `flow`'s application (on-off periods, www
/// draws): its own stream, apart from every node's (crate::rng).
fn app_stream(seed: u64, flow: u32) -> Stream {
    Stream::new(seed, 0x8000_0000 | flow, Purpose::App)
}

/// `a / b`; NaN when `b` is 0: a ratio over nothing is undefined, not 0
/// (a flow that delivered nothing has no retransmission index).
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// `bytes` over `secs` in kbit/s (1 kbit = 1000 bit); NaN over an empty
/// window (a flow that starts when the run ends).
fn kbps(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs / 1e3
    } else {
        f64::NAN
    }
}

/// Mean and standard deviation in ms of `n` samples given their sums in s
/// and s²; NaN without samples.
fn mean_std_ms(n: u64, sum_s: f64, sum_sq_s: f64) -> (f64, f64) {
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let m = sum_s / n as f64;
    let var = (sum_sq_s / n as f64 - m * m).max(0.0);
    (m * 1e3, var.sqrt() * 1e3)
}

fn pct(a: u64, b: u64) -> f64 {
    100.0 * ratio(a, b)
}

/// The radio's decode range in metres as the engine resolves it (the link
/// rule of the oracle; what `plot topology` draws).
pub fn tx_range_m(sc: &Scenario) -> f64 {
    RadioParams::from_config(&sc.radio).tx_range
}

/// (In the world, not the oracle: it places the nodes as a run does, and
/// the oracle stays below the world.)
/// The flows of a scenario whose ends have no path between them when they
/// start, in a static topology (no mobility: nothing can connect them
/// later); empty when nodes move. Also the radio's transmission range
/// (the link rule). What `validate` warns of, from the same oracle the
/// run's `oracle_paths` come from, without running.
pub fn unconnected_at_start(sc: &crate::scenario::Scenario, seed: u64) -> (f64, Vec<u32>) {
    use crate::mobility::config::MobilityModel;
    let params = RadioParams::from_config(&sc.radio);
    let range = params.tx_range;
    if sc.mobility.model != MobilityModel::Legs || !sc.mobility.legs.is_empty() {
        return (range, Vec::new());
    }
    let channel = Channel::new(params, positions(&sc.topology, seed), seed);
    let windows: Vec<crate::oracle::Window> = sc.flows.iter().enumerate()
        .map(|(i, f)| crate::oracle::Window { flow: i as u32, src: f.src, dst: f.dst, start_s: f.start, end_s: f.stop.unwrap_or(sc.duration).min(sc.duration) })
        .collect();
    let (_, start) = crate::oracle::paths_and_start(&[], &channel, &windows, sc.duration);
    (range, start.iter().zip(&windows).filter(|(h, _)| **h == Some(0)).map(|(_, w)| w.flow).collect())
}

/// The run loop's view of the world: the nodes, their movers, the
/// counters, and the context every node's handler gets.
struct Engine<'w> {
    nodes: &'w mut [Node],
    movers: &'w mut [Mover],
    events: &'w mut u64,
    hash: &'w mut u64,
    prefetch: bool,
    ctx: Ctx<'w>,
}

impl Engine<'_> {
    /// Handle one popped event: the body of the run loop, shared with the
    /// emulation's step (`step_one`); inlined so the loop compiles as before.
    #[inline(always)]
    fn dispatch(&mut self, t: SimTime, node: NodeId, ev: Event) {
        self.ctx.now = t;
        let code = match ev {
            Event::Move => {
                self.move_node(node);
                return;
            }
            Event::Wave { tx, end } => {
                let (node, ev, next) = self.ctx.txs.step(self.ctx.queue, tx, end);
                if let Some(n) = next.filter(|_| self.prefetch) {
                    // The wave's next receiver is nearly always the next
                    // event: start loading its state (large networks
                    // wait on memory more than they compute).
                    self.nodes[n as usize].prefetch();
                }
                // The node's handler for the kind, called straight from
                // the step (not through `Node::handle`'s match).
                let n = &mut self.nodes[node as usize];
                let code = match ev {
                    Event::RxStart { tx, power, sensed, interferes } => {
                        n.rx_start(tx, power, sensed, interferes, &mut self.ctx);
                        Event::rx_start_code(tx)
                    }
                    Event::RxEnd { tx } => {
                        n.rx_end(tx, &mut self.ctx);
                        Event::rx_end_code(tx)
                    }
                    _ => {
                        n.tx_end(&mut self.ctx);
                        Event::TX_END_CODE
                    }
                };
                *self.events += 1;
                *self.hash = mix_hash(*self.hash, t, node, code);
                return;
            }
            ev => {
                if !self.nodes[node as usize].handle(ev, &mut self.ctx) {
                    return; // a stale timer: not an event
                }
                ev.code()
            }
        };
        *self.events += 1;
        *self.hash = mix_hash(*self.hash, t, node, code);
    }

    fn move_node(&mut self, node: NodeId) {
        let now = self.ctx.now;
        let m = &mut self.movers[node as usize];
        let pos = m.advance(now, self.ctx.channel.position(node));
        self.ctx.channel.set_position(node, pos);
        if let Some(t) = m.next_update(now) {
            self.ctx.queue.push(t, Phase::Timer, node, Event::Move);
        }
    }
}

/// FNV-1a-style mix of (time, node, event): equal runs, equal hashes.
#[inline(always)]
fn mix_hash(mut hash: u64, t: SimTime, node: NodeId, code: u64) -> u64 {
    for w in [t.0, node as u64, code] {
        hash = (hash ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Run a validated scenario with `seed` and return its results.
pub fn run(sc: &Scenario, seed: u64) -> RunOutput {
    run_with(sc, seed, &mut RunControl::default()).expect("a default control never cancels")
}

/// `run`, stopped early (`Err`) when `ctl` says so; `ctl.tick` sees the
/// progress. Same events and hash as `run` when not stopped.
pub fn run_with(sc: &Scenario, seed: u64, ctl: &mut RunControl) -> Result<RunOutput, Cancelled> {
    run_traced(sc, seed, ctl, None).map_err(|e| match e {
        RunError::Cancelled(c) => c,
        RunError::Trace(t) => unreachable!("no trace file without a directory: {t}"),
    })
}

/// `run_with`, streaming the `[trace]` formats into files in `trace_dir`
/// (which must exist; None: no files, only `[output] trace`'s table).
/// `Err` also when a trace file cannot be written (the run ends there).
pub fn run_traced(sc: &Scenario, seed: u64, ctl: &mut RunControl, trace_dir: Option<&std::path::Path>) -> Result<RunOutput, RunError> {
    let t0 = std::time::Instant::now();
    let mut w = World::new(sc, seed);
    if let Some(dir) = trace_dir {
        w.stream_trace(dir).map_err(RunError::Trace)?;
    }
    w.run_controlled(ctl, t0)?;
    Ok(w.results(t0.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ratio or rate over an empty denominator is undefined, not 0
    /// (issue 23: a retransmission index of 0.00 over no delivered segment).
    #[test]
    fn empty_denominators_give_nan() {
        assert!(ratio(5, 0).is_nan() && pct(5, 0).is_nan() && kbps(1000, 0.0).is_nan());
        assert_eq!((ratio(5, 8), pct(1, 4), kbps(1000, 2.0)), (0.625, 25.0, 4.0));
    }
}
