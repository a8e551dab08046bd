//! What a scenario will cost before it runs: neighbours and cells of the
//! channel's spatial index, events per simulated second, total events and
//! memory. `check` refuses, naming the field that drives the cost, what
//! cannot finish (more than `MAX_EVENTS` events) or fit (more than
//! `MAX_MEMORY_BYTES`).
//!
//! The model is deliberately coarse (an upper-bound flavour, within a small
//! factor of measured runs); its constants are calibrated on release runs of
//! the bench scenarios and listed in docs/ARCHITECTURE.md ("Cost estimate").
//! It only has to separate "minutes" from "years" and "GB" from "TB": the
//! limits are two orders of magnitude above anything the examples, benches
//! and reproductions need (the largest, `bench` grid-7x7-olsr-120s, is
//! ~2e7 events).

use std::cmp::Ordering;
use crate::phy::{PhyTiming, RadioParams};
use super::error::{Notation, ScenarioError};
use super::model::Scenario;
use crate::net::routing::RoutingConfig;
use crate::app::config::FlowKind;
use crate::mobility::config::{MobilityModel, Topology};
use crate::tcp::TcpConfig;

/// Refuse runs above this many events (~3 hours at 1e6 events/s).
pub const MAX_EVENTS: f64 = 1e10;
/// Refuse runs above this estimated peak memory (bytes).
pub const MAX_MEMORY_BYTES: f64 = 4e9;

/// Handled events per frame a transmitter sends, per node that senses it
/// (signal start and end at the receiver, plus MAC timers): calibrated on
/// the benches and examples (docs/ARCHITECTURE.md lists estimate/measured).
const EVENTS_PER_FRAME_PER_NODE: f64 = 2.0;
/// A position update costs two spatial-index queries and drops cached links:
/// worth this many handled events per node in range (fuzzing found 1e-9 m
/// steps running at ~15 handled events per wall second).
const MOVE_WEIGHT: f64 = 10.0;
/// Cost of a routing timer firing faster than a frame can be sent, in
/// handled events (see `routing_timers`' use in `estimate`).
const SATURATED_TIMER_WEIGHT: f64 = 1000.0;
/// Bytes per node before traffic: node, MAC, queue, router, agents, event
/// slots (issue 10: a 10^6-node chain needed 5.8 GB).
const BYTES_PER_NODE: f64 = 6_000.0;
/// Bytes per cached link (`phy::Link`) of a transmitting node.
const BYTES_PER_LINK: f64 = 32.0;
/// Bytes per time-series sample kept (six columns of 8 bytes, Vec growth).
const BYTES_PER_SAMPLE: f64 = 96.0;
/// Bytes per trace row kept in memory when `output.trace` is on.
const BYTES_PER_TRACE_ROW: f64 = 120.0;
/// Trace rows of an unfiltered trace per handled event.
const TRACE_ROWS_PER_EVENT: f64 = 0.25;
/// Share of an unfiltered trace's rows per (layer, event) (trace/filter.rs
/// names), from the 7x7 grid and 4-hop chain examples: receptions too weak
/// to decode dominate wherever nodes are dense. Pairs not listed are never
/// traced. The estimate prices a filter by these shares, its nodes' share
/// of the network and its window's share of the run; packet types are not
/// priced (an upper bound).
const TRACE_SHARES: [(&str, &str, f64); 11] = [
    ("MAC", "send", 0.15), ("MAC", "recv", 0.17), ("MAC", "drop", 0.005),
    ("PHY", "col", 0.03), ("PHY", "weak", 0.55),
    ("RTR", "send", 0.02), ("RTR", "recv", 0.03), ("RTR", "fwd", 0.02), ("RTR", "drop", 0.005),
    ("AGT", "send", 0.01), ("AGT", "recv", 0.01),
];
/// Bytes per row of a streamed CSV file (trace.csv, anim.csv): ~95 measured.
const BYTES_PER_CSV_ROW: f64 = 100.0;
/// Refuse runs whose trace files would exceed this estimate (bytes).
pub const MAX_DISK_BYTES: f64 = 1e11;
/// Bytes per random-waypoint leg: the leg, its start record and its
/// `movement` row on the way to Python.
const BYTES_PER_LEG: f64 = 200.0;
/// Bytes of header MAC + IP + transport add to a payload.
const HEADER_BYTES: f64 = 60.0;

/// One term of the estimate, with the field that drives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub field: String,
    pub value: f64,
    /// What to change to make it smaller.
    pub hint: String,
}

/// The estimate for one scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cost {
    /// Occupied cells of the spatial index (at most one per node).
    pub cells: f64,
    /// Mean nodes within carrier-sense range of a node.
    pub neighbours: f64,
    /// Event-rate terms (events per simulated second).
    pub rates: Vec<Term>,
    /// Memory terms (bytes).
    pub memory: Vec<Term>,
    /// Disk terms: the streamed trace files (bytes).
    pub disk: Vec<Term>,
    pub duration_s: f64,
}

impl Cost {
    pub fn events_per_s(&self) -> f64 {
        self.rates.iter().map(|t| t.value).sum()
    }
    pub fn events(&self) -> f64 {
        self.events_per_s() * self.duration_s
    }
    pub fn memory_bytes(&self) -> f64 {
        self.memory.iter().map(|t| t.value).sum()
    }
    pub fn disk_bytes(&self) -> f64 {
        self.disk.iter().map(|t| t.value).sum()
    }
}

/// The share of an unfiltered trace's rows that `[trace]` keeps; `anim`:
/// the animator's own events (MAC sends and drops) within its nodes and window.
fn trace_fraction(sc: &Scenario, n: f64, anim: bool) -> f64 {
    let t = &sc.trace;
    let nodes = if t.nodes.is_empty() { 1.0 } else { (t.nodes.len() as f64 / n.max(1.0)).min(1.0) };
    let end = t.end_s.unwrap_or(sc.duration).min(sc.duration);
    let window = ((end - t.start_s) / sc.duration).clamp(0.0, 1.0);
    let kept = |names: &[String], x: &str| names.is_empty() || names.iter().any(|v| v == x);
    let share: f64 = TRACE_SHARES
        .iter()
        .filter(|(l, e, _)| if anim { (*l == "MAC" && *e == "send") || *e == "drop" } else { kept(&t.layers, l) && kept(&t.events, e) })
        .map(|(_, _, s)| s)
        .sum();
    nodes * window * share
}

/// Width and height of the box holding the initial positions.
fn extent(t: &Topology) -> (f64, f64) {
    match t {
        Topology::Chain { nodes, spacing } => ((*nodes as f64 - 1.0).max(0.0) * spacing, 0.0),
        Topology::Grid { rows, cols, spacing } => ((*cols as f64 - 1.0).max(0.0) * spacing, (*rows as f64 - 1.0).max(0.0) * spacing),
        Topology::Random { width, height, .. } => (*width, *height),
        Topology::Explicit { positions } => {
            let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
            for p in positions {
                (x0, x1, y0, y1) = (x0.min(p[0]), x1.max(p[0]), y0.min(p[1]), y1.max(p[1]));
            }
            (x1 - x0, y1 - y0)
        }
    }
}

/// Where node `i` starts, where that does not need the seed; a random
/// topology's nodes are taken to be half the diagonal apart.
fn spot(t: &Topology, i: u32) -> Option<(f64, f64)> {
    match t {
        Topology::Chain { spacing, .. } => Some((i as f64 * spacing, 0.0)),
        Topology::Grid { cols, spacing, .. } => Some(((i % cols.max(&1)) as f64 * spacing, (i / cols.max(&1)) as f64 * spacing)),
        Topology::Random { .. } => None,
        Topology::Explicit { positions } => positions.get(i as usize).map(|p| (p[0], p[1])),
    }
}

/// Distance between two nodes' starting points (see `spot`).
fn apart(t: &Topology, a: u32, b: u32) -> f64 {
    match (spot(t, a), spot(t, b)) {
        (Some(p), Some(q)) => (p.0 - q.0).hypot(p.1 - q.1),
        _ => {
            let (w, h) = extent(t);
            w.hypot(h) / 2.0
        }
    }
}

/// Mean number of other nodes within `r` of a node, nodes spread evenly
/// over a `w` x `h` box (a square of side 2r instead of the disc: at most
/// 4/pi too many).
fn within(n: f64, (w, h): (f64, f64), r: f64) -> f64 {
    let fx = if w > 0.0 { (2.0 * r / w).min(1.0) } else { 1.0 };
    let fy = if h > 0.0 { (2.0 * r / h).min(1.0) } else { 1.0 };
    // In two dimensions the disc covers pi/4 of its square.
    let disc = if fx < 1.0 && fy < 1.0 { std::f64::consts::FRAC_PI_4 } else { 1.0 };
    ((n - 1.0) * fx * fy * disc).max(0.0)
}

/// Per-node periodic emissions of a routing protocol, one term per timer:
/// every `*interval*_s` / `*period*_s` / `*update*_s` field (HELLO, TC,
/// DSDV periodic updates, DSR request period) and every `*timeout*_s` field
/// (a timer each node may re-arm). Jitters, hold times and minimum spacings
/// (`min_*`) bound nothing from below and are skipped, as are zeros
/// ("immediately"/"off").
fn routing_timers(cfg: &RoutingConfig) -> Vec<(String, String, f64)> {
    let Some((name, table)) = cfg.table() else { return Vec::new() };
    let mut out = Vec::new();
    for (k, v) in &table {
        let Some(s) = v.as_float() else { continue };
        if !k.ends_with("_s") || k.starts_with("min_") || k.contains("jitter") || k.contains("hold") || s <= 0.0 {
            continue;
        }
        let periodic = k.contains("interval") || k.contains("period") || k.contains("update");
        if periodic || k.contains("timeout") {
            out.push((format!("routing.{name}.{k}"), k.clone(), s));
        }
    }
    out
}

/// Estimate what `sc` costs. `sc` must have passed the field checks.
pub fn estimate(sc: &Scenario) -> Cost {
    let n = sc.node_count() as f64;
    let radio = RadioParams::from_config(&sc.radio);
    // A node may decode beyond where it senses (cs threshold above rx).
    let (tx, cs) = (radio.tx_range, radio.max_range().max(radio.tx_range));
    let ext = extent(&sc.topology);
    let nb_cs = within(n, ext, cs);
    let nb_tx = within(n, ext, tx);
    // The nodes a frame's events reach: those within cs, but with
    // shadowing only those that sense it, fewer than the candidates.
    let ev = radio.event_range().max(tx);
    let nb_ev = within(n, ext, ev);
    let cell = cs.max(1.0);
    let cells = ((ext.0 / cell).floor() + 1.0) * ((ext.1 / cell).floor() + 1.0);
    let mut c = Cost { cells: cells.min(n), neighbours: nb_cs, duration_s: sc.duration, ..Cost::default() };
    let routing = sc.routing.resolve().unwrap_or(RoutingConfig::Static);
    let dynamic = !matches!(routing, RoutingConfig::Static);

    // Channel: every interference domain a flow crosses kept busy with
    // DATA/ACK exchanges (RTS/CTS too below the threshold).
    let timing = PhyTiming::new(sc.mac.preamble, sc.mac.data_rate_mbps, sc.mac.basic_rate_mbps);
    let slot = sc.mac.slot_us as f64 * 1e-6;
    let sifs = sc.mac.sifs_us as f64 * 1e-6;
    let ctrl = |bytes: u32| timing.airtime(bytes, timing.basic_rate_bps).as_secs_f64();
    let mut hops_total = 0.0;
    let all_domains = ((ext.0 / (2.0 * ev)).floor() + 1.0) * ((ext.1 / (2.0 * ev)).floor() + 1.0);
    let per_flow_cap = (all_domains / sc.flows.len().max(1) as f64).max(1.0);
    for (i, f) in sc.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let tcp = matches!(f.kind, FlowKind::Ftp | FlowKind::Www).then(|| TcpConfig::from_params(&f.tcp.or(&sc.tcp)));
        let payload = match &tcp {
            Some(cfg) => cfg.mss as f64,
            None => f.packet_size.unwrap_or(512) as f64,
        };
        let frame = payload + HEADER_BYTES;
        let data = timing.airtime(frame as u32, timing.data_rate_bps).as_secs_f64();
        let rts = (sc.mac.rts_threshold as f64) < frame;
        let exchange = sifs + 2.0 * slot + sc.mac.cw_min as f64 / 2.0 * slot + data + sifs + ctrl(14)
            + if rts { ctrl(20) + ctrl(14) + 2.0 * sifs } else { 0.0 };
        let frames = if rts { 4.0 } else { 2.0 };
        let hops = (apart(&sc.topology, f.src, f.dst) / tx).ceil().min(n - 1.0).max(1.0);
        let domains = (hops * tx / (tx + ev)).ceil().max(1.0).min(per_flow_cap);
        hops_total += hops;
        let mut rate = domains * frames / exchange.max(1e-9) * EVENTS_PER_FRAME_PER_NODE * (1.0 + nb_ev);
        // An on-off CBR source sends at rate_kbps while on, so its full
        // rate bounds it; a www flow is priced as FTP (its think times only
        // pause it, and its own timer fires once per download).
        if f.kind == FlowKind::Cbr {
            let pps = f.rate_kbps.unwrap_or(0.0) * 1e3 / 8.0 / payload;
            // The source's own timer fires once per packet, queue or no queue.
            c.rates.push(Term { field: format!("{p}.rate_kbps"), value: pps, hint: "lower the CBR rate or raise packet_size_bytes".into() });
            rate = rate.min(pps * hops * frames * EVENTS_PER_FRAME_PER_NODE * (1.0 + nb_ev));
        } else if let Some(cfg) = &tcp {
            // A retransmission timer capped at max_rto fires every max_rto
            // while data is outstanding (RFC 6298 (5.5) backoff stops there).
            let rto = cfg.rto_max.as_secs_f64().max(1e-9);
            c.rates.push(Term { field: format!("{p}.tcp.max_rto_s"), value: 1.0 / rto, hint: "raise max_rto_s (RFC 6298 (2.5): at least 60 s)".into() });
        }
        let (field, hint) = if sc.mac.data_rate_mbps > 100.0 {
            ("mac.data_rate_mbps".to_string(), "lower the data rate or shorten duration_s".to_string())
        } else {
            ("topology".to_string(), "use fewer or sparser nodes, or shorten duration_s".to_string())
        };
        c.rates.push(Term { field, value: rate, hint });
    }

    // Routing: periodic broadcasts reach every neighbour in range.
    for (field, key, s) in routing_timers(&routing) {
        let fanout = if key.contains("timeout") { 1.0 } else { 1.0 + nb_ev };
        // A timer faster than one frame's airtime only fills a full queue:
        // each firing then costs far more than a handled event (fuzzing:
        // DSDV updates every 1e-9 s ran ~6,500 handled events per wall s).
        let weight = if s < ctrl(14) { SATURATED_TIMER_WEIGHT } else { 1.0 };
        c.rates.push(Term { field, value: n / s * fanout * EVENTS_PER_FRAME_PER_NODE * weight, hint: "use a longer interval".into() });
    }

    // Mobility: a position update every step_m of movement, as if every leg
    // moved at once.
    let mut moving: f64 = sc.mobility.legs.iter().map(|l| l.speed).sum();
    let mut legs_per_s = 0.0;
    let m = &sc.mobility;
    let v = (m.speed_min_mps + m.speed_max_mps) / 2.0;
    // Seconds per leg of a random model, and the field that drives it.
    let leg = match m.model {
        MobilityModel::Legs => None,
        MobilityModel::Waypoint => Some((crate::mobility::waypoint::mean_distance(ext.0, ext.1) / v.max(1e-9) + m.pause_s, "mobility.speed_max_mps")),
        MobilityModel::Walk => Some((crate::mobility::walk::mean_leg_s(ext.0, ext.1, v, m.walk_interval_s), "mobility.walk_interval_s")),
        MobilityModel::Direction => Some((crate::mobility::direction::mean_leg_s(ext.0, ext.1, v.max(1e-9), m.pause_s), "mobility.speed_max_mps")),
    };
    if let Some((leg_s, field)) = leg {
        // A random model: every node, always moving at the mean leg speed
        // (an upper bound: pauses and the slower stationary mean only lower it),
        // plus one update and one movement row per leg (waypoint: E[L] / v +
        // pause each; walk: walk_interval_s or a border hit; direction: a chord + pause).
        moving += n * v;
        legs_per_s = n / leg_s.max(1e-9);
        c.rates.push(Term { field: field.into(), value: legs_per_s * MOVE_WEIGHT * (1.0 + nb_cs), hint: "use a larger area, slower speeds, a longer pause_s or walk_interval_s".into() });
    }
    if moving > 0.0 {
        c.rates.push(Term { field: "mobility.step_m".into(), value: moving / sc.mobility.step_m * MOVE_WEIGHT * (1.0 + nb_cs), hint: "use a coarser step_m (1 m is the default)".into() });
    }

    // Memory.
    c.memory.push(Term { field: "topology".into(), value: n * BYTES_PER_NODE, hint: "use fewer nodes".into() });
    if legs_per_s > 0.0 {
        c.memory.push(Term { field: "mobility.speed_max_mps".into(), value: legs_per_s * sc.duration * BYTES_PER_LEG, hint: "use a larger area, slower speeds, a longer pause_s or walk_interval_s, or a shorter duration_s".into() });
    }
    let transmitters = if dynamic { n } else { (hops_total + sc.flows.len() as f64).min(n) };
    c.memory.push(Term { field: "topology".into(), value: transmitters * nb_cs * BYTES_PER_LINK, hint: "use fewer nodes, a larger area or shorter radio ranges".into() });
    if !dynamic && !sc.flows.is_empty() {
        c.memory.push(Term { field: "topology".into(), value: n * (nb_tx * 4.0 + 24.0), hint: "use fewer nodes, a larger area or a shorter radio.tx_range_m".into() });
    }
    let tcp_rate: f64 = c.rates.iter().filter(|t| t.field == "topology" || t.field == "mac.data_rate_mbps").map(|t| t.value).sum::<f64>()
        / (EVENTS_PER_FRAME_PER_NODE * (1.0 + nb_ev));
    let ftp_flows = sc.flows.iter().filter(|f| f.kind == FlowKind::Ftp).count() as f64;
    if sc.output.timeseries && ftp_flows > 0.0 {
        // At most one sample per ACK, and never more than the cap per flow
        // (series.rs merges buckets when a flow reaches it).
        let mut samples = tcp_rate * sc.duration;
        if sc.output.timeseries_interval_s > 0.0 {
            samples = samples.min(ftp_flows * sc.duration / sc.output.timeseries_interval_s);
        }
        samples = samples.min(ftp_flows * sc.output.timeseries_max_samples as f64);
        c.memory.push(Term { field: "output.timeseries".into(), value: samples * BYTES_PER_SAMPLE, hint: "lower output.timeseries_max_samples or set output.timeseries = false".into() });
    }
    let rows = c.events() * TRACE_ROWS_PER_EVENT;
    if sc.output.trace {
        let value = rows * trace_fraction(sc, n, false) * BYTES_PER_TRACE_ROW;
        c.memory.push(Term { field: "output.trace".into(), value, hint: "set output.trace = false and stream the trace to a file ([trace] formats), or filter it ([trace] nodes, layers, events, start_s, end_s)".into() });
    }
    for f in &sc.trace.formats {
        let value = rows * trace_fraction(sc, n, f == "anim") * BYTES_PER_CSV_ROW;
        c.disk.push(Term { field: "trace.formats".into(), value, hint: "filter the trace ([trace] nodes, layers, events, start_s, end_s) or shorten duration_s".into() });
    }
    c
}

/// `estimate` of a JSON scenario that is parsed but not validated (so that
/// a refused scenario can still be measured).
pub fn estimate_json(text: &str) -> Result<Cost, ScenarioError> {
    let mut tree: serde_json::Value = serde_json::from_str(text).map_err(|e| ScenarioError::json_syntax(&e))?;
    super::schema::rename::upgrade(&mut tree)?; // old key names, as Scenario::parse_json takes them
    let sc: Scenario = serde_path_to_error::deserialize(tree).map_err(|e| super::error::serde_error(e.path(), &e.inner().to_string(), Notation::Json))?;
    Ok(estimate(&sc))
}

fn largest(terms: &[Term]) -> Option<&Term> {
    terms.iter().max_by(|a, b| a.value.total_cmp(&b.value))
}

/// `Err` naming the largest of `terms` when `total` is above `limit` (or
/// NaN: `partial_cmp` is `None`, so NaN is refused too).
fn refuse_above(total: f64, limit: f64, terms: &[Term], fallback: Term, message: impl FnOnce(&Term) -> String) -> Result<(), ScenarioError> {
    if matches!(total.partial_cmp(&limit), Some(Ordering::Less | Ordering::Equal)) {
        return Ok(());
    }
    let t = largest(terms).unwrap_or(&fallback);
    Err(ScenarioError::new(t.field.clone(), format!("{}: {}", message(t), t.hint)))
}

/// Refuse what cannot finish or fit; see the module comment.
pub fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    let c = estimate(sc);
    let events = c.events();
    let fallback = Term { field: "duration_s".into(), value: events, hint: "shorten duration_s".into() };
    refuse_above(events, MAX_EVENTS, &c.rates, fallback, |t| {
        format!(
            "the run would take about {:.1e} events ({:.1e} per simulated second over {} s; this field alone {:.1e}/s), above the limit of {:.0e}",
            events,
            c.events_per_s(),
            sc.duration,
            t.value,
            MAX_EVENTS
        )
    })?;
    let mem = c.memory_bytes();
    let fallback = Term { field: "topology".into(), value: mem, hint: "use fewer nodes".into() };
    refuse_above(mem, MAX_MEMORY_BYTES, &c.memory, fallback, |t| {
        format!("the run would need about {:.1} GB of memory (this field {:.1} GB), above the limit of {:.0} GB", mem / 1e9, t.value / 1e9, MAX_MEMORY_BYTES / 1e9)
    })?;
    let disk = c.disk_bytes();
    let fallback = Term { field: "trace.formats".into(), value: disk, hint: "filter the trace".into() };
    refuse_above(disk, MAX_DISK_BYTES, &c.disk, fallback, |_| {
        format!("the trace files would take about {:.0} GB of disk, above the limit of {:.0} GB", disk / 1e9, MAX_DISK_BYTES / 1e9)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every term names a scenario field the user can set (by its current
    /// key name) or the whole `topology`, so a refusal points somewhere real.
    #[test]
    fn every_term_names_a_schema_field() {
        let text = r#"
            duration_s = 10.0
            [topology]
            kind = "chain"
            nodes = 4
            spacing_m = 200.0
            [routing]
            protocol = "aodv"
            [mobility]
            [[mobility.legs]]
            node = 1
            at_s = 1.0
            to = [300.0, 0.0]
            speed_mps = 5.0
            [[flows]]
            kind = "ftp"
            src = 0
            dst = 3
            [[flows]]
            kind = "cbr"
            src = 3
            dst = 0
            rate_kbps = 100.0
        "#;
        let sc = Scenario::from_toml_str(text).unwrap();
        let c = estimate(&sc);
        let pattern = |f: &str| f.replace("flows[0]", "flows[]").replace("flows[1]", "flows[]");
        let fields: Vec<&str> = c.rates.iter().chain(&c.memory).map(|t| t.field.as_str()).collect();
        for f in &fields {
            assert!(*f == "topology" || crate::scenario::schema::fields::find(&pattern(f)).is_some(), "{f} is not a scenario field");
        }
        for want in ["flows[0].tcp.max_rto_s", "flows[1].rate_kbps", "mobility.step_m", "routing.aodv.hello_interval_s"] {
            assert!(fields.contains(&want), "no term for {want}: {fields:?}");
        }
    }

    /// A 3,000 s 7x7 grid: its whole trace in memory is refused (issue 24:
    /// "about 12.4 GB"), the same trace filtered to two nodes and streamed
    /// to a file is not, and a filter's price scales with what it keeps.
    #[test]
    fn a_filtered_streamed_trace_is_priced_by_what_it_keeps() {
        let grid = |extra: &str| {
            let text = format!(
                "duration_s = 3000.0\n[topology]\nkind = \"grid\"\nrows = 7\ncols = 7\nspacing_m = 200.0\n[mac]\nrts_threshold_bytes = 100\n\
                 [[flows]]\nkind = \"ftp\"\nsrc = 21\ndst = 27\n[[flows]]\nkind = \"ftp\"\nsrc = 3\ndst = 45\n{extra}"
            );
            Scenario::from_toml_str(&text)
        };
        let e = grid("[output]\ntrace = true\n").unwrap_err();
        assert_eq!(e.field, "output.trace");
        assert!(e.message.contains("GB of memory"), "{}", e.message);
        let streamed = grid("[trace]\nformats = [\"csv\", \"anim\"]\nnodes = [0, 24]\n").unwrap();
        let c = estimate(&streamed);
        assert!(c.memory.iter().all(|t| !t.field.starts_with("output.trace") && !t.field.starts_with("trace")));
        let full = estimate(&grid("[trace]\nformats = [\"csv\"]\n").unwrap());
        let two = c.disk[0].value;
        assert!((two / full.disk[0].value - 2.0 / 49.0).abs() < 1e-9, "two of 49 nodes");
        assert!(c.disk[1].value < two, "anim keeps MAC sends and drops only");
        let mac_half = estimate(&grid("[trace]\nformats = [\"csv\"]\nlayers = [\"MAC\"]\nstart_s = 1500.0\n").unwrap()).disk[0].value;
        assert!((mac_half / full.disk[0].value - 0.325 / 2.0).abs() < 1e-9, "MAC rows over half the run");
    }
}
