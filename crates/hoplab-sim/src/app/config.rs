//! A `[[flows]]` entry: the application and its transport parameters.

use crate::tcp::config::TcpParams;
use serde::{Deserialize, Serialize};

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
    /// CBR: ns-2 `random_ 1`, each gap interval · (1 + U(-0.5, 0.5))
    /// (default false; app/cbr.rs).
    pub jitter: Option<bool>,
    /// CBR: ns-2 `maxpkts_`, the source stops after this many packets
    /// (default: no limit; app/cbr.rs).
    pub max_packets: Option<u64>,
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
