//! Path-loss models with ns-2's constants, and the resolution of a scenario's
//! `[radio]` table into thresholds and ranges.

use super::config::{Propagation, Radio as RadioCfg};
use std::f64::consts::PI;

/// Speed of light in m/s, for wavelength and propagation delay.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// A deterministic path-loss model: received power as a function of distance.
#[derive(Clone, Debug)]
pub enum PathLoss {
    /// Friis free space: Pr = Pt Gt Gr λ² / ((4π)² d² L).
    FreeSpace { pt: f64, lambda: f64, loss: f64 },
    /// Two-ray ground reflection beyond the crossover distance
    /// dc = 4π ht hr / λ, Friis below it (ns-2 `TwoRayGround`).
    TwoRayGround { pt: f64, lambda: f64, loss: f64, h: f64, crossover: f64 },
    /// Seed 003's "flat" model: full power within `range`, nothing beyond.
    Flat { pt: f64, range: f64 },
}

impl PathLoss {
    pub fn from_config(r: &RadioCfg) -> PathLoss {
        let lambda = SPEED_OF_LIGHT / r.frequency_hz;
        match r.propagation {
            Propagation::FreeSpace => PathLoss::FreeSpace { pt: r.tx_power_w, lambda, loss: r.system_loss },
            Propagation::TwoRayGround => {
                let h = r.antenna_height_m;
                PathLoss::TwoRayGround { pt: r.tx_power_w, lambda, loss: r.system_loss, h, crossover: 4.0 * PI * h * h / lambda }
            }
            Propagation::Flat => PathLoss::Flat { pt: r.tx_power_w, range: r.tx_range_m.unwrap_or(250.0) },
        }
    }

    fn friis(pt: f64, lambda: f64, loss: f64, d: f64) -> f64 {
        // Gt = Gr = 1 (ns-2 OmniAntenna).
        pt * lambda * lambda / ((4.0 * PI).powi(2) * d * d * loss)
    }

    /// Received power in watts at distance `d` metres.
    pub fn rx_power(&self, d: f64) -> f64 {
        let d = d.max(1e-3);
        match *self {
            PathLoss::FreeSpace { pt, lambda, loss } => Self::friis(pt, lambda, loss, d),
            PathLoss::TwoRayGround { pt, lambda, loss, h, crossover } => {
                if d < crossover {
                    Self::friis(pt, lambda, loss, d)
                } else {
                    pt * h * h * h * h / (d.powi(4) * loss)
                }
            }
            PathLoss::Flat { pt, range } => {
                if d <= range {
                    pt
                } else {
                    0.0
                }
            }
        }
    }

    /// The largest distance at which the received power is at least `p`.
    pub fn range_for_power(&self, p: f64) -> f64 {
        match *self {
            PathLoss::FreeSpace { pt, lambda, loss } => (pt * lambda * lambda / ((4.0 * PI).powi(2) * p * loss)).sqrt(),
            PathLoss::TwoRayGround { pt, lambda, loss, h, crossover } => {
                let d = (pt * h.powi(4) / (p * loss)).powf(0.25);
                if d >= crossover {
                    d
                } else {
                    (pt * lambda * lambda / ((4.0 * PI).powi(2) * p * loss)).sqrt()
                }
            }
            PathLoss::Flat { pt, range } => {
                if p <= pt {
                    range
                } else {
                    0.0
                }
            }
        }
    }
}

/// The radio's resolved parameters: thresholds and the ranges they imply.
#[derive(Clone, Debug)]
pub struct RadioParams {
    pub path_loss: PathLoss,
    pub rx_threshold: f64,
    pub cs_threshold: f64,
    pub tx_range: f64,
    pub cs_range: f64,
    /// Transmitters within this distance of a receiver interfere with its
    /// receptions; `None`: every sensed transmitter does.
    pub interference_range: Option<f64>,
    /// Linear capture ratio (10 dB -> 10).
    pub capture_ratio: f64,
}

impl RadioParams {
    /// Thresholds from the scenario; a range given as a distance overrides
    /// its threshold (the threshold becomes the power received at that distance).
    pub fn from_config(r: &RadioCfg) -> RadioParams {
        let path_loss = PathLoss::from_config(r);
        let (rx_threshold, cs_threshold) = match path_loss {
            // One range: anything in range is decoded and sensed.
            PathLoss::Flat { pt, .. } => (pt, pt),
            _ => (
                r.tx_range_m.map_or(r.rx_threshold_w, |d| path_loss.rx_power(d)),
                r.cs_range_m.map_or(r.cs_threshold_w, |d| path_loss.rx_power(d)),
            ),
        };
        RadioParams {
            tx_range: path_loss.range_for_power(rx_threshold),
            cs_range: path_loss.range_for_power(cs_threshold),
            path_loss,
            rx_threshold,
            cs_threshold,
            interference_range: r.interference_range_m,
            capture_ratio: 10f64.powf(r.capture_threshold_db / 10.0),
        }
    }

    /// Farthest distance at which a transmission has any effect on a node.
    pub fn max_range(&self) -> f64 {
        self.cs_range.max(self.interference_range.unwrap_or(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_defaults_give_250_and_550_metres() {
        let p = RadioParams::from_config(&RadioCfg::default());
        assert!((p.tx_range - 250.0).abs() < 0.1, "tx range {}", p.tx_range);
        assert!((p.cs_range - 550.0).abs() < 0.1, "cs range {}", p.cs_range);
    }

    #[test]
    fn two_ray_matches_friis_below_crossover() {
        let pl = PathLoss::from_config(&RadioCfg::default());
        let PathLoss::TwoRayGround { crossover, .. } = pl else { panic!() };
        // dc = 4π·1.5·1.5/(c/914 MHz) ≈ 86.1 m
        assert!((crossover - 86.14).abs() < 0.1, "crossover {crossover}");
        let cfg = RadioCfg { propagation: Propagation::FreeSpace, ..RadioCfg::default() };
        let fs = PathLoss::from_config(&cfg);
        assert_eq!(pl.rx_power(50.0), fs.rx_power(50.0));
        assert!(pl.rx_power(100.0) < fs.rx_power(100.0));
    }

    #[test]
    fn ranges_as_distances_override_thresholds() {
        let cfg = RadioCfg { tx_range_m: Some(100.0), cs_range_m: Some(300.0), ..RadioCfg::default() };
        let p = RadioParams::from_config(&cfg);
        assert!((p.tx_range - 100.0).abs() < 1e-6);
        assert!((p.cs_range - 300.0).abs() < 1e-6);
    }

    #[test]
    fn flat_model_has_one_range() {
        let cfg = RadioCfg { propagation: Propagation::Flat, tx_range_m: Some(250.0), ..RadioCfg::default() };
        let p = RadioParams::from_config(&cfg);
        assert_eq!(p.tx_range, 250.0);
        assert_eq!(p.cs_range, 250.0);
        assert_eq!(p.path_loss.rx_power(250.1), 0.0);
    }
}
