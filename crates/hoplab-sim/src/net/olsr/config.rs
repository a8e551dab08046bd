//! OLSR parameters (RFC 3626 §18) and the named presets.

use crate::net::check::Invalid;
use serde::{Deserialize, Serialize};

/// RFC 3626 §18.8 willingness values.
pub const WILL_NEVER: u8 = 0;
pub const WILL_DEFAULT: u8 = 3;
pub const WILL_ALWAYS: u8 = 7;

/// Every OLSR parameter a study may switch. Durations in seconds.
///
/// The hold times are independent fields, not derived from the intervals:
/// RFC 3626 §18.3 recommends NEIGHB_HOLD_TIME = 3 x REFRESH_INTERVAL and
/// TOP_HOLD_TIME = 3 x TC_INTERVAL, and both presets follow that, but OOLSR's
/// table (seed 003 Table 3) lists the neighbour hold time on its own, so a
/// TOML file that changes `tc_interval_s` must also change `top_hold_time_s`
/// if it wants the 3x relation kept. The same holds for `max_jitter_s`
/// (RFC: HELLO_INTERVAL / 4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OlsrConfig {
    /// HELLO_INTERVAL (§18.2).
    pub hello_interval_s: f64,
    /// REFRESH_INTERVAL (§18.2): every neighbour is listed in a HELLO at
    /// least this often. We list every link in every HELLO, so it only
    /// constrains `hello_interval_s <= refresh_interval_s`.
    pub refresh_interval_s: f64,
    /// TC_INTERVAL (§18.2).
    pub tc_interval_s: f64,
    /// NEIGHB_HOLD_TIME (§18.3): Vtime of our HELLOs.
    pub neighb_hold_time_s: f64,
    /// TOP_HOLD_TIME (§18.3): Vtime of our TCs, and how long we keep
    /// sending empty TCs after the MPR selector set empties (§9.3).
    pub top_hold_time_s: f64,
    /// DUP_HOLD_TIME (§18.3).
    pub dup_hold_time_s: f64,
    /// MAXJITTER (§18.9): periodic emissions come up to this much early;
    /// forwarded messages wait up to this much.
    pub max_jitter_s: f64,
    /// Our willingness to carry traffic for others (§18.8, 0..=7).
    pub willingness: u8,
    /// MPR_COVERAGE (§16.1): how many MPRs should cover each strict two-hop
    /// neighbour, where possible.
    pub mpr_coverage: u32,
    /// TC_REDUNDANCY (§15.1): 0 advertise MPR selectors, 1 also our MPRs,
    /// 2 every symmetric neighbour.
    pub tc_redundancy: u8,
    /// Link hysteresis (§14).
    pub hysteresis: bool,
    pub hyst_threshold_high: f64,
    pub hyst_threshold_low: f64,
    pub hyst_scaling: f64,
    /// Send a TC as soon as the advertised set or the symmetric
    /// neighbourhood changes (§9.3 "SHOULD ... shorter than TC_INTERVAL";
    /// seed 003 Table 4 "immediate"), besides the periodic ones.
    pub immediate_tc: bool,
    /// Link-layer notification (§13): a MAC failure marks the link lost.
    pub link_layer_feedback: bool,
}

impl Default for OlsrConfig {
    /// The `um-olsr` preset: RFC 3626 §18 values without link hysteresis.
    fn default() -> Self {
        OlsrConfig {
            hello_interval_s: 2.0,
            refresh_interval_s: 2.0,
            tc_interval_s: 5.0,
            neighb_hold_time_s: 6.0,
            top_hold_time_s: 15.0,
            dup_hold_time_s: 30.0,
            max_jitter_s: 0.5,
            willingness: WILL_DEFAULT,
            mpr_coverage: 1,
            tc_redundancy: 0,
            hysteresis: false,
            hyst_threshold_high: 0.8,
            hyst_threshold_low: 0.3,
            hyst_scaling: 0.5,
            immediate_tc: false,
            link_layer_feedback: false,
        }
    }
}

impl OlsrConfig {
    /// Which implementation each preset follows and which paper uses it:
    ///
    /// - `um-olsr` (the default): UM-OLSR, the OLSR agent of ns-2 (the
    ///   simulator of seed 000's Fig. 3 and of seed 003): RFC 3626 §18
    ///   intervals and hold times (HELLO 2 s, TC 5 s, hold 6 s / 15 s,
    ///   MAXJITTER = HELLO_INTERVAL / 4), no link hysteresis (UM-OLSR does
    ///   not implement §14), no link-layer feedback (its `use_mac_` is off
    ///   by default).
    /// - `olsrd`: olsrd ("OLSR_UniK") 0.4.10, seed 000's testbed (§3): all
    ///   defaults, which are the RFC's §18 values, with hysteresis switched
    ///   off as seed 000 did ("it was shown to degrade TCP throughput").
    ///   Same values as `um-olsr`; kept under its own name so a study says
    ///   which implementation it stands for.
    /// - `oolsr`: OOLSR (INRIA), seed 003 Table 3: HELLO 1 s, TC 5 s,
    ///   willingness default, max jitter 250 ms, hysteresis off, MPR
    ///   coverage 1, neighbour hold 6 s, refresh 2 s; TOP_HOLD_TIME is not
    ///   in the table, so 3 x TC; periodic TC (Table 4's baseline "bundle").
    /// - `rfc3626`: the RFC with its optional link hysteresis (§14, §18.7:
    ///   0.8 / 0.3 / 0.5) on, as olsrd ships it. On a loaded link it drops
    ///   the link after two consecutive lost OLSR packets (quality
    ///   1 -> 0.5 -> 0.25 < 0.3) until two more arrive (0.625 -> 0.81 > 0.8):
    ///   see docs/ARCHITECTURE.md, "OLSR link hysteresis under load".
    pub const PRESETS: &'static [&'static str] = &["um-olsr", "olsrd", "oolsr", "rfc3626"];

    pub fn preset(name: &str) -> Option<OlsrConfig> {
        match name {
            "um-olsr" | "olsrd" => Some(OlsrConfig::default()),
            "rfc3626" => Some(OlsrConfig { hysteresis: true, ..OlsrConfig::default() }),
            "oolsr" => Some(OlsrConfig {
                hello_interval_s: 1.0,
                refresh_interval_s: 2.0,
                tc_interval_s: 5.0,
                neighb_hold_time_s: 6.0,
                top_hold_time_s: 15.0,
                max_jitter_s: 0.25,
                willingness: WILL_DEFAULT,
                mpr_coverage: 1,
                hysteresis: false,
                immediate_tc: false,
                ..OlsrConfig::default()
            }),
            _ => None,
        }
    }

    /// Rules between fields; Err((field, message)). Each number's own range
    /// is in the scenario's field table (scenario/schema/fields.rs), which
    /// checks presets and the user's values alike.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.max_jitter_s >= self.hello_interval_s || self.max_jitter_s >= self.tc_interval_s {
            return Err(("max_jitter_s", "must be shorter than the HELLO and TC intervals".into()));
        }
        if self.hello_interval_s > self.refresh_interval_s {
            // §6.2: each neighbour must be advertised once per REFRESH_INTERVAL.
            return Err(("refresh_interval_s", "must be >= hello_interval_s".into()));
        }
        if self.hyst_threshold_low > self.hyst_threshold_high {
            return Err(("hyst_threshold_low", "must be in [0, hyst_threshold_high]".into()));
        }
        Ok(())
    }
}
