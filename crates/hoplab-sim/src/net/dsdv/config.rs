//! DSDV parameters. Defaults are ns-2's (`tcl/lib/ns-default.tcl` and the
//! constants of `dsdv/dsdv.cc`, `dsdv/dsdv.h`, ns-2.35).

use crate::net::check::Invalid;
use serde::{Deserialize, Serialize};

pub use crate::wire::dsdv::PacketFormat;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DsdvConfig {
    /// Mean spacing of full dumps; each period is drawn from
    /// `periodic_update_s * [0.75, 1.0)` (ns-2 `perup_` 15).
    pub periodic_update_s: f64,
    /// Periods without an update from a neighbour before its routes are
    /// declared broken (ns-2 `min_update_periods_` 3).
    pub min_update_periods: u32,
    /// Hold back advertising a route with a new sequence number for twice
    /// its weighted settling time (paper §III-E; ns-2 always does this).
    pub use_settling: bool,
    /// Initial weighted settling time of a new destination (ns-2 `wst0_` 6).
    pub settling_initial_s: f64,
    /// Weight of the past in the settling-time average (ns-2 `alpha_` 0.875).
    pub settling_alpha: f64,
    /// Send incremental updates when a metric changes (off: full dumps only).
    pub triggered_updates: bool,
    /// Also trigger on a fresh sequence number with the same metric
    /// (ns-2 `TRIGGER_UPDATE_ON_FRESH_SEQNUM`, undefined by default).
    pub trigger_on_new_seqno: bool,
    /// Minimum spacing of triggered updates (ns-2 `DSDV_MIN_TUP_PERIOD` 1 s).
    pub min_triggered_interval_s: f64,
    /// Randomise timers (ns-2 `be_random_` 1). Off, every random draw is 0:
    /// no start-up or broadcast jitter and periods of exactly
    /// `0.75 * periodic_update_s`, as ns-2 does.
    pub jitter: bool,
    /// First full dump at uniform [0, this) after start (ns-2
    /// `DSDV_STARTUP_JITTER` 2 s).
    pub startup_jitter_s: f64,
    /// Every update leaves after uniform [0, this) (ns-2
    /// `DSDV_BROADCAST_JITTER` 0.01 s).
    pub broadcast_jitter_s: f64,
    /// Act on link-layer feedback: a failed unicast breaks every route via
    /// that neighbour (ns-2 `use_mac_`, 0 by default: "Performance suffers
    /// with this on"; the packet is then dropped as CBK).
    pub use_mac: bool,
    /// Data packets held per destination without a route; the oldest is
    /// dropped beyond this (ns-2 `MAX_QUEUE_LENGTH` 5, DROP_RTR_QFULL).
    pub max_queue_len: u32,
    pub packet_format: PacketFormat,
    /// Every packet this node originates (data, TCP ACKs) carries a second
    /// 20-byte IP header: ns-2 dsdv.cc `recv` adds IP_HDR_LEN to what its
    /// agents already sized with one (AODV skips TCP there; DSDV does not).
    pub double_ip_header: bool,
}

impl Default for DsdvConfig {
    fn default() -> Self {
        DsdvConfig {
            periodic_update_s: 15.0,
            min_update_periods: 3,
            use_settling: true,
            settling_initial_s: 6.0,
            settling_alpha: 0.875,
            triggered_updates: true,
            trigger_on_new_seqno: false,
            min_triggered_interval_s: 1.0,
            jitter: true,
            startup_jitter_s: 2.0,
            broadcast_jitter_s: 0.01,
            use_mac: false,
            max_queue_len: 5,
            packet_format: PacketFormat::Udp,
            double_ip_header: false,
        }
    }
}

impl DsdvConfig {
    /// `ns2`: ns-2.35 defaults. `ns2_mac`: the same with `use_mac_ 1`
    /// (link-layer feedback breaks routes at once).
    pub const PRESETS: &'static [&'static str] = &["ns2", "ns2_mac"];

    pub fn preset(name: &str) -> Option<DsdvConfig> {
        match name {
            "ns2" => Some(DsdvConfig::default()),
            "ns2_mac" => Some(DsdvConfig { use_mac: true, ..DsdvConfig::default() }),
            _ => None,
        }
    }

    /// Rules between fields; Err((field, message)). Each number's own range
    /// is in the scenario's field table (scenario/schema/fields.rs), which
    /// checks presets and the user's values alike.
    pub fn validate(&self) -> Result<(), Invalid> {
        Ok(())
    }
}
