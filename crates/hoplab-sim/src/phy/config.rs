//! The `[radio]` table (propagation model, power thresholds or ranges) and
//! the PLCP preamble the `[mac]` table chooses.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    FreeSpace,
    TwoRayGround,
    /// Seed 003: full power within the transmission range, nothing beyond.
    Flat,
    /// Log-normal shadowing (ns-2 `Propagation/Shadowing`, mobile/shadowing.cc):
    /// Friis at the reference distance, then a path-loss exponent, plus a
    /// zero-mean Gaussian in dB drawn for every reception.
    Shadowing,
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
    /// How a frame survives interference: `sinr` (its power over the sum
    /// of the interferers) or `ns2` (ns-2 Mac802_11::recv: each newcomer
    /// against the held frame alone; a collision keeps the longer frame).
    pub capture_model: CaptureModel,
    /// A frame that starts while the node transmits still occupies the
    /// receiver, in error, until its end (ns-2 Mac802_11::recv). Off: it is
    /// only sensed.
    pub lock_while_transmitting: bool,
    /// Shadowing: path-loss exponent beta beyond the reference distance
    /// (ns-2 Propagation/Shadowing pathlossExp_).
    pub shadowing_path_loss_exponent: f64,
    /// Shadowing: standard deviation in dB of the Gaussian drawn for every
    /// reception (ns-2 std_db_); 0 makes the model deterministic.
    pub shadowing_std_db: f64,
    /// Shadowing: reference distance d0 in metres, where the mean power is
    /// Friis's and within which it stays flat (ns-2 dist0_).
    pub shadowing_reference_m: f64,
}

/// The reception rule under interference (`[radio] capture_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureModel {
    /// Signal to the sum of interferers, for the frame's whole duration.
    #[default]
    Sinr,
    /// ns-2.35's one-interferer CPThresh test (mac-802_11.cc recv, capture, collision).
    Ns2,
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
            capture_model: CaptureModel::Sinr,
            lock_while_transmitting: false,
            // ns-2.35 tcl/lib/ns-default.tcl: Propagation/Shadowing
            // pathlossExp_ 2.0, std_db_ 4.0, dist0_ 1.0.
            shadowing_path_loss_exponent: 2.0,
            shadowing_std_db: 4.0,
            shadowing_reference_m: 1.0,
        }
    }
}

/// The DSSS PLCP preamble and header (IEEE 802.11-1999 §15.2.2; short:
/// 802.11b §18.2.2.2), chosen in `[mac]` but timed by the PHY.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    Long,
    Short,
}
