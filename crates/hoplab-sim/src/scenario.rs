//! The scenario schema (TOML, or the same structure as JSON from Python) and
//! its validation. Every error names the field and the problem.

use crate::net::{aodv, dsdv, dsr, olsr};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A scenario error: the dotted path of the offending field and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}
impl std::error::Error for ScenarioError {}

fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { field: field.into(), message: message.into() })
}

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
    /// Link-layer ECN marking (LRED), off by default.
    #[serde(default)]
    pub lred: Lred,
}

/// LRED (Fu et al., INFOCOM 2003), as seed 001 §5.5 ran it: each node keeps
/// an EWMA of MAC retransmissions per packet and marks CE on ECN-capable
/// packets with a probability that rises from 0 at `min_th` to `max_p` at
/// `max_th` (net/lred.rs documents the defaults).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Lred {
    pub enabled: bool,
    /// Average retransmissions per packet where marking starts.
    pub min_th: f64,
    /// Average retransmissions per packet where the probability reaches `max_p`.
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight of each new packet's retransmission count.
    pub weight: f64,
}

impl Default for Lred {
    fn default() -> Self {
        let d = crate::net::lred::LredParams::default();
        Lred { enabled: false, min_th: d.min_th, max_th: d.max_th, max_p: d.max_p, weight: d.weight }
    }
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// `nodes` nodes on a line, `spacing` metres apart, node 0 at the origin.
    Chain {
        nodes: u32,
        #[serde(rename = "spacing_m")]
        spacing: f64,
    },
    /// `rows` x `cols` nodes, `spacing` metres apart, row-major ids.
    Grid {
        rows: u32,
        cols: u32,
        #[serde(rename = "spacing_m")]
        spacing: f64,
    },
    /// Uniformly random positions in a `width` x `height` rectangle, drawn
    /// from the run's seed (topology stream).
    Random {
        nodes: u32,
        #[serde(rename = "width_m")]
        width: f64,
        #[serde(rename = "height_m")]
        height: f64,
    },
    /// Explicit `[x, y]` positions in metres.
    Explicit { positions: Vec<[f64; 2]> },
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    FreeSpace,
    TwoRayGround,
    /// Seed 003: full power within the transmission range, nothing beyond.
    Flat,
}

/// Radio and channel. Ranges may be given as power thresholds (ns-2 style) or
/// directly as distances; a distance overrides the matching threshold.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Radio {
    pub propagation: Propagation,
    /// Transmit power Pt in watts (ns-2 `Phy/WirelessPhy set Pt_ 0.28183815`).
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub antenna_height_m: f64,
    pub system_loss: f64,
    /// Minimum power to decode a frame (ns-2 RXThresh).
    pub rx_threshold_w: f64,
    /// Minimum power to sense the medium busy (ns-2 CSThresh).
    pub cs_threshold_w: f64,
    pub tx_range_m: Option<f64>,
    pub cs_range_m: Option<f64>,
    /// Transmitters farther than this from a receiver never corrupt its
    /// reception (they may still make the medium busy). Unset: no cutoff.
    pub interference_range_m: Option<f64>,
    /// A frame survives while its power is at least this many dB above the
    /// sum of interfering powers (ns-2 CPThresh = 10 linear = 10 dB).
    pub capture_threshold_db: f64,
}

impl Default for Radio {
    fn default() -> Self {
        // ns-2.35 Phy/WirelessPhy defaults (tcl/lib/ns-default.tcl, with the
        // 250 m / 550 m thresholds of ns-2's wireless examples): Pt_, freq_,
        // Antenna/OmniAntenna Z_, L_, RXThresh_, CSThresh_, CPThresh_.
        Radio {
            propagation: Propagation::TwoRayGround,
            tx_power_w: 0.28183815,
            frequency_hz: 914e6,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            rx_threshold_w: 3.652e-10,
            cs_threshold_w: 1.559e-11,
            tx_range_m: None,
            cs_range_m: None,
            interference_range_m: None,
            capture_threshold_db: 10.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    Long,
    Short,
}

/// IEEE 802.11 DCF parameters (IEEE 802.11-1999 §15.3.3 DSSS PHY defaults,
/// as ns-2's Mac/802_11 uses them).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mac {
    pub data_rate_mbps: f64,
    pub basic_rate_mbps: f64,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS; 0 means
    /// always, a value above any frame size means never (dot11RTSThreshold).
    #[serde(rename = "rts_threshold_bytes")]
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot_us: u32,
    pub sifs_us: u32,
    pub preamble: Preamble,
    /// Interface queue capacity in packets (ns-2 PriQueue, 50).
    pub queue_limit: u32,
    /// Reset a NAV set by an overheard RTS when no frame starts within
    /// 2 SIFS + CTS + 2 slots of the RTS's end (IEEE 802.11-1999 §9.2.5.4,
    /// "permitted"). Off by default: ns-2's Mac802_11, which the seeds ran,
    /// does not do it (ns-3 does).
    pub nav_reset: bool,
    /// A frame that finds the medium idle also waits DIFS plus a random
    /// backoff, counted from its arrival, as ns-2's Mac802_11::send does.
    /// Off by default: IEEE 802.11-1999 §9.2.5.1 lets it go after DIFS.
    pub idle_backoff: bool,
}

impl Default for Mac {
    fn default() -> Self {
        Mac {
            data_rate_mbps: 2.0,
            basic_rate_mbps: 1.0,
            rts_threshold: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: 31,
            cw_max: 1023,
            slot_us: 20,
            sifs_us: 10,
            preamble: Preamble::Long,
            queue_limit: 50,
            nav_reset: false,
            idle_backoff: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest paths from the initial topology (seed 002's "ZERO").
    #[default]
    Static,
    Aodv,
    Dsr,
    Olsr,
    Dsdv,
}

impl RoutingProtocol {
    pub fn name(self) -> &'static str {
        match self {
            RoutingProtocol::Static => "static",
            RoutingProtocol::Aodv => "aodv",
            RoutingProtocol::Dsr => "dsr",
            RoutingProtocol::Olsr => "olsr",
            RoutingProtocol::Dsdv => "dsdv",
        }
    }
}

/// `[routing]`: the protocol, an optional preset of its parameters, and the
/// protocol's own table (`[routing.aodv]` ...) whose fields override the
/// preset's.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Routing {
    pub protocol: RoutingProtocol,
    pub preset: Option<String>,
    pub aodv: Option<toml::Table>,
    pub dsr: Option<toml::Table>,
    pub olsr: Option<toml::Table>,
    pub dsdv: Option<toml::Table>,
}

/// A routing protocol with every parameter resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum RoutingConfig {
    Static,
    Aodv(aodv::AodvConfig),
    Dsr(dsr::DsrConfig),
    Olsr(olsr::OlsrConfig),
    Dsdv(dsdv::DsdvConfig),
}

impl Routing {
    /// Apply the preset, then the user's fields, and check the result.
    pub fn resolve(&self) -> Result<RoutingConfig, ScenarioError> {
        use RoutingProtocol as P;
        let name = self.protocol.name();
        for (other, table) in [("aodv", &self.aodv), ("dsr", &self.dsr), ("olsr", &self.olsr), ("dsdv", &self.dsdv)] {
            if table.is_some() && other != name {
                return err(format!("routing.{other}"), format!("is given but routing.protocol is \"{name}\""));
            }
        }
        Ok(match self.protocol {
            P::Static => {
                if let Some(p) = &self.preset {
                    return err("routing.preset", format!("static routing has no presets (got \"{p}\")"));
                }
                RoutingConfig::Static
            }
            P::Aodv => RoutingConfig::Aodv(self.build(name, aodv::AodvConfig::PRESETS, aodv::AodvConfig::preset, &self.aodv, |c: &aodv::AodvConfig| c.validate())?),
            P::Dsr => RoutingConfig::Dsr(self.build(name, dsr::DsrConfig::PRESETS, dsr::DsrConfig::preset, &self.dsr, |c: &dsr::DsrConfig| c.validate())?),
            P::Olsr => RoutingConfig::Olsr(self.build(name, olsr::OlsrConfig::PRESETS, olsr::OlsrConfig::preset, &self.olsr, |c: &olsr::OlsrConfig| c.validate())?),
            P::Dsdv => RoutingConfig::Dsdv(self.build(name, dsdv::DsdvConfig::PRESETS, dsdv::DsdvConfig::preset, &self.dsdv, |c: &dsdv::DsdvConfig| c.validate())?),
        })
    }

    fn build<C: Default + Serialize + DeserializeOwned>(
        &self,
        name: &str,
        presets: &[&str],
        preset: fn(&str) -> Option<C>,
        overrides: &Option<toml::Table>,
        validate: impl Fn(&C) -> Result<(), (&'static str, String)>,
    ) -> Result<C, ScenarioError> {
        let base = match &self.preset {
            None => C::default(),
            Some(p) => match preset(p) {
                Some(c) => c,
                None => return err("routing.preset", format!("\"{p}\" is not a {name} preset (known: {})", presets.join(", "))),
            },
        };
        let Some(over) = overrides else {
            validate(&base).or_else(|(f, m)| err(format!("routing.{name}.{f}"), m))?;
            return Ok(base);
        };
        let mut table = toml::Table::try_from(&base).expect("a config serialises to a table");
        for (k, v) in over {
            table.insert(k.clone(), v.clone());
        }
        let cfg: C = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let field = e.path().to_string();
            ScenarioError { field: format!("routing.{name}{}", if field == "." { String::new() } else { format!(".{field}") }), message: e.inner().message().to_string() }
        })?;
        validate(&cfg).or_else(|(f, m)| err(format!("routing.{name}.{f}"), m))?;
        Ok(cfg)
    }
}

/// `[link]`: the layer between routing and the interface queue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Link {
    /// ARP behaviour: "ns2" keeps one packet per unresolved address and drops
    /// the older (seed 002 §8.1.2); "queue" holds up to `arp_queue_limit`;
    /// "off" resolves instantly.
    pub arp: ArpKind,
    pub arp_queue_limit: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArpKind {
    Ns2,
    Queue,
    Off,
}

impl Default for Link {
    fn default() -> Self {
        Link { arp: ArpKind::Off, arp_queue_limit: 16 }
    }
}

/// One leg of scripted movement: from time `at`, `node` moves in a straight
/// line toward `to` at `speed` m/s and stops there.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leg {
    pub node: u32,
    #[serde(rename = "at_s")]
    pub at: f64,
    pub to: [f64; 2],
    #[serde(rename = "speed_mps")]
    pub speed: f64,
}

/// `[mobility]`: scripted legs and how finely positions are updated.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mobility {
    /// A moving node's position is updated every time it has moved this far.
    pub step_m: f64,
    pub legs: Vec<Leg>,
    /// How nodes move: scripted `legs` (default), random waypoint, random walk or random direction.
    pub model: MobilityModel,
    /// Random models: leg speeds uniform in [speed_min_mps, speed_max_mps]
    /// (ns-2 setdest; seed 002 uses [0.9 v, 1.1 v]).
    pub speed_min_mps: f64,
    pub speed_max_mps: f64,
    /// Random waypoint: pause at each waypoint (and, as in setdest, at the
    /// start); random direction: at each arrival on the border.
    pub pause_s: f64,
    /// Random waypoint: start in the stationary distribution (Navidi & Camp 2004).
    pub steady_state: bool,
    /// Random walk: a new direction and speed every this many seconds.
    pub walk_interval_s: f64,
}

/// `mobility.model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    /// Scripted `[[mobility.legs]]`.
    #[default]
    Legs,
    /// Random waypoint in the `topology.width_m` x `height_m` area (mobility/waypoint.rs).
    Waypoint,
    /// Random walk, reflected at the area's border (mobility/walk.rs).
    Walk,
    /// Random direction: border to border, pausing there (mobility/direction.rs).
    Direction,
}

impl Default for Mobility {
    fn default() -> Self {
        Mobility { step_m: 1.0, legs: Vec::new(), model: MobilityModel::Legs, speed_min_mps: 0.0, speed_max_mps: 10.0, pause_s: 0.0, steady_state: false, walk_interval_s: 1.0 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// ns-2's `Agent/TCP`: fast retransmit, then slow start; no fast recovery.
    Tahoe,
    Reno,
    NewReno,
    /// RFC 2018 SACK blocks and RFC 6675 loss recovery (ns-2 `Agent/TCP/Sack1`).
    Sack,
    /// TCP Vegas as ns-2's `Agent/TCP/Vegas` (`vegas_alpha`, `vegas_beta`, `vegas_gamma`).
    Vegas,
}

/// When the receiver ACKs (`tcp::ack_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpReceiver {
    /// ns-2 `DelAck`: every second segment, or a 100 ms timer.
    Ns2,
    /// Linux 2.6 (seed 000's testbed): quick ACKs, window-update ACKs, adaptive timer.
    Linux,
    /// Every segment (ns-2 `TCPSink`; `delayed_ack = false`).
    Every,
}

/// How `max_cwnd` is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowClamp {
    /// A cap on the sender's cwnd (ns-2 `maxcwnd_`/`window_`; seed 004, seed 000's ns-2 runs).
    Sender,
    /// The receiver's advertised window (Linux `TCP_WINDOW_CLAMP`; seed 000's testbed, §3).
    Receiver,
}

/// TCP parameters; every field optional so that flows can override the
/// scenario-wide `[tcp]` table field by field.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TcpParams {
    pub variant: Option<TcpVariant>,
    /// Segment payload in bytes.
    #[serde(rename = "mss_bytes")]
    pub mss: Option<u32>,
    /// Window clamp in segments (seeds 000, 004: "max cwnd"); 0 = unclamped.
    pub max_cwnd: Option<u32>,
    /// The window the receiver advertises, in bytes (default 65535: a stack
    /// without window scaling, RFC 793 / RFC 7323 §2). The sender never has
    /// more than floor(receive_window / mss) segments outstanding (44 of
    /// 1460 B), clamped or not.
    #[serde(rename = "receive_window_bytes")]
    pub receive_window: Option<u32>,
    pub initial_cwnd: Option<u32>,
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer in seconds (ns-2 DelAck: 0.1).
    #[serde(rename = "delack_timeout_s")]
    pub delack_timeout: Option<f64>,
    #[serde(rename = "min_rto_s")]
    pub min_rto: Option<f64>,
    #[serde(rename = "initial_rto_s")]
    pub initial_rto: Option<f64>,
    #[serde(rename = "max_rto_s")]
    pub max_rto: Option<f64>,
    /// Vegas α, β, γ in segments (ns-2 `v_alpha_`, `v_beta_`, `v_gamma_`:
    /// 1, 3, 1): below α extra segments queued the window grows, above β it
    /// shrinks; above γ Vegas leaves slow start. Used when variant = "vegas".
    pub vegas_alpha: Option<u32>,
    pub vegas_beta: Option<u32>,
    pub vegas_gamma: Option<u32>,
    /// Receiver model: "ns2" (default), "linux" or "every".
    pub receiver: Option<TcpReceiver>,
    /// How max_cwnd applies: "sender" (default) or "receiver".
    pub clamp: Option<WindowClamp>,
    /// FeW window growth per RTT, 0 < α ≤ 1 (seed 001 Eq. 9; 1 = standard TCP).
    pub few_alpha: Option<f64>,
    /// FeW lower bound of cwnd in segments (seed 001 §4), 0 < w_min ≤ 1.
    pub few_w_min: Option<f64>,
    /// FeW lower bound of ssthresh in segments (seed 001 §4), 0 < v < 1.
    pub few_ssthresh_min: Option<f64>,
    /// ECN-capable transport (RFC 3168).
    pub ecn: Option<bool>,
    /// ELFN (Holland & Vaidya 1999, tcp/elfn.rs): a route-loss notification
    /// from AODV or DSR puts the sender in standby (default false).
    pub elfn: Option<bool>,
    /// ADTCP (Fu et al. 2002, tcp/adtcp.rs): the receiver classifies the
    /// network state, the sender reduces its window only for congestion
    /// (default false).
    pub adtcp: Option<bool>,
    /// Seconds between probes in ELFN standby and ADTCP disconnection (default 2).
    #[serde(rename = "probe_interval_s")]
    pub probe_interval: Option<f64>,
}

impl TcpParams {
    /// `self` with unset fields taken from `base`.
    pub fn or(&self, base: &TcpParams) -> TcpParams {
        TcpParams {
            variant: self.variant.or(base.variant),
            mss: self.mss.or(base.mss),
            max_cwnd: self.max_cwnd.or(base.max_cwnd),
            receive_window: self.receive_window.or(base.receive_window),
            initial_cwnd: self.initial_cwnd.or(base.initial_cwnd),
            delayed_ack: self.delayed_ack.or(base.delayed_ack),
            delack_timeout: self.delack_timeout.or(base.delack_timeout),
            min_rto: self.min_rto.or(base.min_rto),
            initial_rto: self.initial_rto.or(base.initial_rto),
            max_rto: self.max_rto.or(base.max_rto),
            vegas_alpha: self.vegas_alpha.or(base.vegas_alpha),
            vegas_beta: self.vegas_beta.or(base.vegas_beta),
            vegas_gamma: self.vegas_gamma.or(base.vegas_gamma),
            receiver: self.receiver.or(base.receiver),
            clamp: self.clamp.or(base.clamp),
            few_alpha: self.few_alpha.or(base.few_alpha),
            few_w_min: self.few_w_min.or(base.few_w_min),
            few_ssthresh_min: self.few_ssthresh_min.or(base.few_ssthresh_min),
            ecn: self.ecn.or(base.ecn),
            elfn: self.elfn.or(base.elfn),
            adtcp: self.adtcp.or(base.adtcp),
            probe_interval: self.probe_interval.or(base.probe_interval),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// FTP over TCP: infinite, or `bytes` long.
    Ftp,
    /// Constant bit rate over UDP; on-off with `on_s`/`off_s` (app/onoff.rs).
    Cbr,
    /// Seed 002 §8.6's WWW client (Abrahamsson & Ahlgren): `src` serves,
    /// `dst` browses; a new TCP transfer per download (app/www.rs).
    Www,
}

/// How on-off periods are drawn (ns-2 `Application/Traffic/Exponential`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnOffDistribution {
    /// Exponential on and off periods with means `on_s`, `off_s` (ns-2 Exponential).
    Exponential,
    /// Every on period `on_s`, every off period `off_s`.
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub kind: FlowKind,
    pub src: u32,
    pub dst: u32,
    /// Start time in seconds (default 0).
    #[serde(default, rename = "start_s")]
    pub start: f64,
    /// Stop time in seconds (default: end of the run).
    #[serde(rename = "stop_s")]
    pub stop: Option<f64>,
    /// FTP: bytes to transfer (default: infinite).
    pub bytes: Option<u64>,
    /// CBR: rate in kbit/s of UDP payload.
    pub rate_kbps: Option<f64>,
    /// CBR: UDP payload bytes per packet (default 512).
    #[serde(rename = "packet_size_bytes")]
    pub packet_size: Option<u32>,
    /// FTP: TCP parameters overriding the scenario's `[tcp]`.
    #[serde(default)]
    pub tcp: TcpParams,
    /// CBR on-off source: mean (or fixed) on period, s; with `off_s`.
    pub on_s: Option<f64>,
    /// CBR on-off source: mean (or fixed) off period, s; with `on_s`.
    pub off_s: Option<f64>,
    /// CBR on-off source: how periods are drawn (default exponential).
    pub distribution: Option<OnOffDistribution>,
    /// WWW: most downloads in the session (seed 002 §8.6: 15).
    pub downloads: Option<u32>,
    /// WWW: Pareto shape of the think time (app/www.rs documents the choice).
    pub think_shape: Option<f64>,
    /// WWW: Pareto scale (smallest think time), s.
    pub think_scale_s: Option<f64>,
    /// WWW: median download size, bytes (seed 002 §8.7: 7145).
    pub size_median_bytes: Option<f64>,
    /// WWW: lognormal sigma of the download size (of ln bytes).
    pub size_sigma: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Record cwnd/ssthresh/srtt/rto time series.
    pub timeseries: bool,
    /// Seconds per time-series bucket: each TCP flow's series keeps the last
    /// change of cwnd/ssthresh/srtt/rto in every bucket (the step function
    /// is exact at each bucket's end). Range 0 to 1e7 s; 0 (default) keeps
    /// every change. Our choice, issue 10 item 5; see crate::series.
    pub timeseries_interval_s: f64,
    /// Most samples one flow's time series holds (a count). When it is
    /// reached the bucket width doubles (from `timeseries_interval_s`, or
    /// 1 µs) and the samples held merge, so memory stays bounded and the
    /// series still spans the whole run at an even resolution. Range 16 to
    /// 1,000,000; default 50,000 (every change of a loaded 1-hop flow for
    /// about 800 s; at most ~2.4 MB per flow in the engine).
    pub timeseries_max_samples: u32,
    /// Record the event trace (every frame sent and received, every drop):
    /// the `trace` table. Off by default; it grows with traffic.
    pub trace: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            timeseries: true,
            trace: false,
            timeseries_interval_s: 0.0,
            timeseries_max_samples: crate::series::DEFAULT_MAX_SAMPLES,
        }
    }
}

impl Output {
    /// How the TCP time series are recorded; `None` when they are not.
    pub fn series_limits(&self) -> Option<crate::series::SeriesLimits> {
        self.timeseries.then(|| crate::series::SeriesLimits {
            interval: crate::time::Dur::from_secs_f64(self.timeseries_interval_s),
            max_samples: self.timeseries_max_samples,
        })
    }
}

impl Scenario {
    pub fn from_toml_str(s: &str) -> Result<Scenario, ScenarioError> {
        Self::parse_toml(s).map(|(sc, _)| sc)
    }

    /// The same structure as JSON (what the Python layer sends for a dict).
    pub fn from_json_str(s: &str) -> Result<Scenario, ScenarioError> {
        Self::parse_json(s).map(|(sc, _)| sc)
    }

    /// Parse and validate TOML; also return one deprecation warning per old
    /// key name used (`duration is deprecated, use duration_s`).
    pub fn parse_toml(s: &str) -> Result<(Scenario, Vec<String>), ScenarioError> {
        let syntax = |e: toml::de::Error| ScenarioError { field: String::new(), message: format!("invalid TOML: {}", e.to_string().trim_end()) };
        let de = toml::de::Deserializer::parse(s).map_err(syntax)?;
        let mut tree = toml::Value::Table(s.parse::<toml::Table>().map_err(syntax)?);
        let warnings = crate::schema::rename::upgrade(&mut tree)?;
        let sc = if warnings.is_empty() {
            // Deserialise the text itself so that errors can give a line.
            serde_path_to_error::deserialize(de).map_err(|e| {
                let msg = e.inner().message().to_string();
                let span = e.inner().span().map(|r| line_of(s, r.start)).map_or(String::new(), |l| format!(" (line {l})"));
                path_error(e.path(), format!("{msg}{span}"))
            })?
        } else {
            serde_path_to_error::deserialize(tree).map_err(|e| path_error(e.path(), e.inner().message().to_string()))?
        };
        Ok((Self::checked(sc)?, warnings))
    }

    /// Parse and validate JSON; warnings as for `parse_toml`.
    pub fn parse_json(s: &str) -> Result<(Scenario, Vec<String>), ScenarioError> {
        let mut tree: serde_json::Value =
            serde_json::from_str(s).map_err(|e| ScenarioError { field: String::new(), message: e.to_string() })?;
        if !tree.is_object() {
            return err("", "a scenario is a JSON object ({\"duration_s\": ..., \"topology\": {...}})");
        }
        let warnings = crate::schema::rename::upgrade(&mut tree)?;
        let sc = serde_path_to_error::deserialize(tree).map_err(|e| path_error(e.path(), e.inner().to_string()))?;
        Ok((Self::checked(sc)?, warnings))
    }

    fn checked(sc: Scenario) -> Result<Scenario, ScenarioError> {
        sc.validate()?;
        Ok(sc)
    }

    pub fn node_count(&self) -> usize {
        match &self.topology {
            Topology::Chain { nodes, .. } | Topology::Random { nodes, .. } => *nodes as usize,
            Topology::Grid { rows, cols, .. } => (*rows as usize) * (*cols as usize),
            Topology::Explicit { positions } => positions.len(),
        }
    }

    /// Check every value that parsing alone cannot; the first problem found
    /// is returned. Every number is first checked against its documented
    /// range (crate::schema::fields), then the rules between fields.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_ranges()?;
        if let Topology::Explicit { positions } = &self.topology {
            if positions.is_empty() {
                return err("topology.positions", "needs at least one [x, y] position");
            }
        }
        let n = self.node_count();
        if n > 1_000_000 {
            return err("topology", format!("{n} nodes is more than the supported 1,000,000"));
        }
        self.validate_radio()?;
        self.validate_mac()?;
        self.routing.resolve()?;
        self.validate_mobility(n)?;
        validate_tcp("tcp", &self.tcp)?;
        self.validate_lred()?;
        for (i, f) in self.flows.iter().enumerate() {
            self.validate_flow(&format!("flows[{i}]"), f, n)?;
        }
        // Once, after every part is known valid; also for a run without flows
        // (mobility and routing alone can make a run that never ends).
        crate::cost::check(self)
    }

    /// The table-driven range walk over the serialised scenario.
    fn validate_ranges(&self) -> Result<(), ScenarioError> {
        // TOML integers are i64: the seed has no range, and a byte count
        // this large is out of range anyway.
        let mut sc = self.clone();
        sc.seed = 0;
        for f in &mut sc.flows {
            f.bytes = f.bytes.map(|b| b.min(i64::MAX as u64));
        }
        let tree = toml::Value::try_from(&sc).map_err(|e| ScenarioError { field: String::new(), message: e.to_string() })?;
        crate::schema::ranges::check("", &tree)
    }

    fn validate_flow(&self, p: &str, f: &Flow, n: usize) -> Result<(), ScenarioError> {
        for (name, node) in [("src", f.src), ("dst", f.dst)] {
            if node as usize >= n {
                return err(format!("{p}.{name}"), format!("node {node} does not exist (the topology has {n} nodes, 0..{})", n - 1));
            }
        }
        if f.src == f.dst {
            return err(format!("{p}.dst"), "must differ from src");
        }
        if f.start >= self.duration {
            return err(format!("{p}.start_s"), format!("{} s is not before the end of the run ({} s)", f.start, self.duration));
        }
        if let Some(stop) = f.stop {
            if stop <= f.start {
                return err(format!("{p}.stop_s"), format!("{stop} s must be after start_s ({} s)", f.start));
            }
        }
        let onoff = f.on_s.is_some() || f.off_s.is_some() || f.distribution.is_some();
        let www = f.downloads.is_some() || f.think_shape.is_some() || f.think_scale_s.is_some() || f.size_median_bytes.is_some() || f.size_sigma.is_some();
        if onoff && f.kind != FlowKind::Cbr {
            return err(p, "on_s, off_s and distribution apply to cbr flows only");
        }
        if onoff && (f.on_s.is_none() || f.off_s.is_none()) {
            return err(format!("{p}.{}", if f.on_s.is_none() { "on_s" } else { "off_s" }), "an on-off source needs both on_s and off_s");
        }
        if www && f.kind != FlowKind::Www {
            return err(p, "downloads, think_shape, think_scale_s, size_median_bytes and size_sigma apply to www flows only");
        }
        match f.kind {
            FlowKind::Www => {
                if f.rate_kbps.is_some() || f.packet_size.is_some() || f.bytes.is_some() {
                    return err(p, "rate_kbps, packet_size_bytes and bytes do not apply to www flows (sizes are drawn per download)");
                }
                validate_tcp(&format!("{p}.tcp"), &f.tcp)?;
                validate_vegas(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_receiver(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_windows(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
            }
            FlowKind::Ftp => {
                if f.rate_kbps.is_some() || f.packet_size.is_some() {
                    return err(p, "rate_kbps and packet_size_bytes apply to cbr flows, not ftp");
                }
                validate_tcp(&format!("{p}.tcp"), &f.tcp)?;
                validate_vegas(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_receiver(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_windows(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
            }
            FlowKind::Cbr => {
                if f.rate_kbps.is_none() {
                    return err(format!("{p}.rate_kbps"), "a cbr flow needs a rate in kbit/s");
                }
                if f.bytes.is_some() {
                    return err(format!("{p}.bytes"), "applies to ftp flows, not cbr");
                }
            }
        }
        Ok(())
    }

    fn validate_mobility(&self, n: usize) -> Result<(), ScenarioError> {
        let mut last_at: Vec<f64> = vec![f64::NEG_INFINITY; n];
        for (i, l) in self.mobility.legs.iter().enumerate() {
            let p = format!("mobility.legs[{i}]");
            if l.node as usize >= n {
                return err(format!("{p}.node"), format!("node {} does not exist (the topology has {n} nodes)", l.node));
            }
            if l.at < last_at[l.node as usize] {
                return err(format!("{p}.at_s"), format!("legs of node {} must be listed in time order", l.node));
            }
            last_at[l.node as usize] = l.at;
        }
        self.validate_waypoint()
    }

    /// The random models need an area and a speed range (mobility/waypoint.rs,
    /// walk.rs, direction.rs).
    fn validate_waypoint(&self) -> Result<(), ScenarioError> {
        let m = &self.mobility;
        let name = match m.model {
            MobilityModel::Legs => return Ok(()),
            MobilityModel::Waypoint => "waypoint",
            MobilityModel::Walk => "walk",
            MobilityModel::Direction => "direction",
        };
        if !matches!(self.topology, Topology::Random { .. }) {
            return err("mobility.model", format!("\"{name}\" needs topology.kind = \"random\": its area is topology.width_m x height_m"));
        }
        if !m.legs.is_empty() {
            return err("mobility.legs", format!("scripted legs need mobility.model = \"legs\", not \"{name}\""));
        }
        if m.model != MobilityModel::Waypoint && m.steady_state {
            return err("mobility.steady_state", format!("applies to model = \"waypoint\" only (Navidi & Camp's stationary start); \"{name}\" starts from the topology's positions"));
        }
        if m.model == MobilityModel::Walk && m.pause_s > 0.0 {
            return err("mobility.pause_s", "random walk never pauses (Camp et al. 2002, §2.1): pause_s applies to \"waypoint\" and \"direction\"");
        }
        if m.speed_max_mps < m.speed_min_mps || m.speed_max_mps <= 0.0 {
            return err("mobility.speed_max_mps", format!("{} m/s must be positive and at least speed_min_mps ({} m/s)", m.speed_max_mps, m.speed_min_mps));
        }
        if m.steady_state && m.speed_min_mps <= 0.0 {
            // Navidi & Camp 2004; Yoon, Liu & Noble 2003: E[1/V] is infinite.
            return err("mobility.speed_min_mps", "steady_state needs a positive minimum speed: with 0 the stationary speed density (proportional to 1/v) does not exist and the mean speed decays to 0");
        }
        Ok(())
    }

    fn validate_lred(&self) -> Result<(), ScenarioError> {
        let l = &self.lred;
        if l.max_th <= l.min_th {
            return err("lred.max_th", format!("{} must be above min_th ({})", l.max_th, l.min_th));
        }
        Ok(())
    }

    fn validate_radio(&self) -> Result<(), ScenarioError> {
        let r = &self.radio;
        if let (Some(t), Some(c)) = (r.tx_range_m, r.cs_range_m) {
            if c < t {
                return err("radio.cs_range_m", format!("{c} m is less than tx_range_m ({t} m): a node must sense what it can decode"));
            }
        }
        if r.propagation == Propagation::Flat && r.cs_range_m.is_some() {
            return err("radio.cs_range_m", "the flat model has one range (seed 003): set tx_range_m only");
        }
        if r.tx_range_m.is_none() && r.cs_range_m.is_none() && r.cs_threshold_w > r.rx_threshold_w {
            return err("radio.cs_threshold_w", "is above rx_threshold_w: a node must sense what it can decode");
        }
        Ok(())
    }

    fn validate_mac(&self) -> Result<(), ScenarioError> {
        let m = &self.mac;
        if !(m.cw_min + 1).is_power_of_two() {
            return err("mac.cw_min", format!("{} is not 2^k - 1 (802.11 §9.2.4)", m.cw_min));
        }
        if !(m.cw_max + 1).is_power_of_two() || m.cw_max < m.cw_min {
            return err("mac.cw_max", format!("{} must be 2^k - 1 and at least cw_min ({})", m.cw_max, m.cw_min));
        }
        Ok(())
    }
}

/// Rules between the fields of one `[tcp]` table (ranges are checked by
/// the table walk).
fn validate_tcp(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    validate_windows(p, t)?;
    validate_receiver(p, t)?;
    if let (Some(lo), Some(hi)) = (t.min_rto, t.max_rto) {
        if hi < lo {
            return err(format!("{p}.max_rto_s"), format!("{hi} s is below min_rto_s ({lo} s)"));
        }
    }
    validate_vegas(p, t)
}

/// Windows in bytes: the receive window holds a segment, and no window in
/// segments exceeds the largest advertisable window (RFC 7323 §2.3) at this
/// MSS. Unset fields take their defaults.
fn validate_windows(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    let mss = t.mss.unwrap_or(crate::tcp::TcpConfig::default().mss);
    if let Some(w) = t.receive_window {
        if w < mss {
            return err(format!("{p}.receive_window_bytes"), format!("{w} bytes is less than one segment (mss_bytes = {mss})"));
        }
    }
    let max_segments = crate::tcp::MAX_WINDOW_BYTES / mss as u64;
    for (name, v) in [("initial_cwnd", t.initial_cwnd), ("max_cwnd", t.max_cwnd)] {
        if let Some(v) = v {
            if v as u64 > max_segments {
                return err(
                    format!("{p}.{name}"),
                    format!("{v} segments of {mss} bytes is above the largest window, 65535 << 14 bytes = {max_segments} segments (RFC 7323 §2.3)"),
                );
            }
        }
    }
    Ok(())
}

/// Vegas thresholds: α <= β (unset ones take ns-2's 1, 3, 1).
fn validate_vegas(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    let v = crate::tcp::VegasParams::from_params(t);
    if v.alpha > v.beta {
        let field = if t.vegas_alpha.is_some() { "vegas_alpha" } else { "vegas_beta" };
        return err(format!("{p}.{field}"), format!("vegas_alpha ({}) is above vegas_beta ({})", v.alpha, v.beta));
    }
    Ok(())
}

/// `delayed_ack` and `receiver` must agree: false means "every".
fn validate_receiver(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    match (t.receiver, t.delayed_ack) {
        (Some(TcpReceiver::Every), Some(true)) => {
            err(format!("{p}.receiver"), "\"every\" ACKs every segment, but delayed_ack = true asks for delayed ACKs; drop one of them")
        }
        (Some(r @ (TcpReceiver::Ns2 | TcpReceiver::Linux)), Some(false)) => {
            let name = if r == TcpReceiver::Ns2 { "ns2" } else { "linux" };
            err(format!("{p}.receiver"), format!("\"{name}\" delays ACKs, but delayed_ack = false asks for an ACK per segment (receiver = \"every\"); drop one of them"))
        }
        _ => Ok(()),
    }
}

/// Name the field by its dotted path (`flows[0].dst`).
fn path_error(path: &serde_path_to_error::Path, message: String) -> ScenarioError {
    let field = path.to_string();
    ScenarioError { field: if field == "." { String::new() } else { field }, message }
}

fn line_of(s: &str, offset: usize) -> usize {
    s[..offset.min(s.len())].matches('\n').count() + 1
}
