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
    /// The mean (deterministic part) of log-normal shadowing, ns-2
    /// shadowing.cc Shadowing::Pr: `pr0`, the Friis power at the reference
    /// distance `dist0`, then `beta` dB per decade x 10 beyond it, flat
    /// within it. Each reception adds its own Gaussian in dB on top of
    /// this (`RadioParams::shadow_std_db`, drawn in phy/channel.rs).
    Shadowing { pr0: f64, beta: f64, dist0: f64 },
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
            Propagation::Shadowing => {
                // ns-2 shadowing.cc Shadowing::Pr: Pr0 = Friis(Pt, Gt, Gr, lambda, L, dist0_).
                let dist0 = r.shadowing_reference_m;
                PathLoss::Shadowing { pr0: Self::friis(r.tx_power_w, lambda, r.system_loss, dist0), beta: r.shadowing_path_loss_exponent, dist0 }
            }
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
            PathLoss::Shadowing { pr0, beta, dist0 } => {
                // ns-2 shadowing.cc Shadowing::Pr: avg_db = -10 pathlossExp_
                // log10(dist / dist0_) beyond dist0_, 0 within; Pr0 10^(avg_db / 10).
                let avg_db = if d > dist0 { -10.0 * beta * (d / dist0).log10() } else { 0.0 };
                pr0 * 10f64.powf(avg_db / 10.0)
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
            // The mean power is pr0 out to dist0 and falls beyond it: no
            // distance reaches more than pr0.
            PathLoss::Shadowing { pr0, beta, dist0 } => {
                if p <= pr0 {
                    dist0 * (pr0 / p).powf(1.0 / beta)
                } else {
                    0.0
                }
            }
        }
    }
}

/// How many standard deviations above its mean a shadowed reception may be
/// for the channel still to deliver it: the channel's link lists hold every
/// node where the mean power plus `SHADOWING_CUTOFF_SIGMAS` x sigma reaches
/// the carrier-sense threshold. A node beyond would sense a frame with
/// probability Q(6) = 9.9e-10 per reception, and it is left out. (ns-2
/// delivers every frame to every node on the channel and lets each draw:
/// shadowing.cc Shadowing::getDist returns DBL_MAX, so WirelessChannel's
/// distCST_ is unbounded.)
pub const SHADOWING_CUTOFF_SIGMAS: f64 = 6.0;

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
    /// Log-normal shadowing with a positive deviation: sigma in dB, drawn
    /// for every reception. `None` for every deterministic model (and for
    /// shadowing with `shadowing_std_db = 0`, which is its mean alone).
    pub shadow_std_db: Option<f64>,
    /// The farthest a sensed signal can come from: `cs_range`, or with
    /// shadowing the distance where the mean power is
    /// `SHADOWING_CUTOFF_SIGMAS` deviations below the CS threshold.
    pub sense_cutoff: f64,
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
        // With shadowing the thresholds a range gives are the mean's: tx_range_m
        // and cs_range_m are where the mean power crosses them.
        let shadow_std_db = (r.propagation == Propagation::Shadowing && r.shadowing_std_db > 0.0).then_some(r.shadowing_std_db);
        let cs_range = path_loss.range_for_power(cs_threshold);
        let sense_cutoff = match shadow_std_db {
            Some(sigma) => path_loss.range_for_power(cs_threshold * 10f64.powf(-SHADOWING_CUTOFF_SIGMAS * sigma / 10.0)),
            None => cs_range,
        };
        RadioParams {
            tx_range: path_loss.range_for_power(rx_threshold),
            cs_range,
            shadow_std_db,
            sense_cutoff,
            path_loss,
            rx_threshold,
            cs_threshold,
            interference_range: r.interference_range_m,
            capture_ratio: 10f64.powf(r.capture_threshold_db / 10.0),
        }
    }

    /// The radius of the disc that holds, on average, as many nodes as a
    /// frame's events reach (for the cost estimate): `max_range()` for the
    /// deterministic models. With shadowing, the sensing probability at d
    /// is Q(ln(d / cs_range) / a), a = sigma ln 10 / (10 beta), and its
    /// integral over the plane is pi cs_range^2 exp(2 a^2) (the flat part
    /// within the reference distance neglected): a radius of cs_range
    /// exp(a^2).
    pub fn event_range(&self) -> f64 {
        let sense = match (self.shadow_std_db, &self.path_loss) {
            (Some(sigma), PathLoss::Shadowing { beta, .. }) => {
                let a = sigma * std::f64::consts::LN_10 / (10.0 * beta);
                self.cs_range * (a * a).exp()
            }
            _ => self.sense_cutoff,
        };
        sense.max(self.interference_range.unwrap_or(0.0))
    }

    /// Farthest distance at which a transmission has any effect on a node.
    pub fn max_range(&self) -> f64 {
        self.sense_cutoff.max(self.interference_range.unwrap_or(0.0))
    }
}

/// The Gaussian tail Q(x) = P(X > x), X standard normal, for tests: half
/// the complementary error function (Numerical Recipes' erfcc, relative
/// error below 1.2e-7).
#[cfg(test)]
pub fn gaussian_tail(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.26551223
        + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let erfc = t * poly.exp();
    0.5 * if x >= 0.0 { erfc } else { 2.0 - erfc }
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

    fn shadowing(beta: f64, sigma: f64, dist0: f64) -> RadioCfg {
        RadioCfg { propagation: Propagation::Shadowing, shadowing_path_loss_exponent: beta, shadowing_std_db: sigma, shadowing_reference_m: dist0, ..RadioCfg::default() }
    }

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn shadowing_mean_is_friis_at_the_reference_then_falls_with_beta() {
        // ns-2 shadowing.cc Shadowing::Pr: Pr0 = Friis at dist0_, then
        // -10 pathlossExp_ log10(d / dist0_) dB beyond, nothing within.
        let pl = PathLoss::from_config(&shadowing(2.7, 4.0, 10.0));
        let fs = PathLoss::from_config(&RadioCfg { propagation: Propagation::FreeSpace, ..RadioCfg::default() });
        assert!(rel(pl.rx_power(10.0), fs.rx_power(10.0)) < 1e-12);
        assert_eq!(pl.rx_power(3.0), pl.rx_power(10.0), "flat within dist0");
        let db = |p: f64| 10.0 * p.log10();
        let per_decade = db(pl.rx_power(100.0)) - db(pl.rx_power(1000.0));
        assert!((per_decade - 27.0).abs() < 1e-9, "{per_decade} dB per decade");
        assert!((db(pl.rx_power(20.0)) - db(pl.rx_power(10.0)) + 27.0 * 2f64.log10()).abs() < 1e-9);
        // Thresholds and ranges invert each other beyond dist0; a power above Pr0 has no range.
        for d in [12.0, 250.0, 5000.0] {
            assert!(rel(pl.range_for_power(pl.rx_power(d)), d) < 1e-12, "{d}");
        }
        assert_eq!(pl.range_for_power(2.0 * pl.rx_power(10.0)), 0.0);
    }

    #[test]
    fn shadowing_with_beta_2_from_1_m_and_no_deviation_is_free_space() {
        // The mean alone, with ns-2's defaults but sigma = 0: Friis at 1 m
        // and 20 dB per decade beyond is Friis everywhere beyond 1 m.
        let sh = RadioParams::from_config(&shadowing(2.0, 0.0, 1.0));
        let fs = RadioParams::from_config(&RadioCfg { propagation: Propagation::FreeSpace, ..RadioCfg::default() });
        assert!(sh.shadow_std_db.is_none(), "sigma = 0 draws nothing");
        for d in [1.5, 37.0, 250.0, 3507.0, 40_000.0] {
            assert!(rel(sh.path_loss.rx_power(d), fs.path_loss.rx_power(d)) < 1e-12, "{d} m");
        }
        assert!(rel(sh.tx_range, fs.tx_range) < 1e-12 && rel(sh.cs_range, fs.cs_range) < 1e-12);
        assert_eq!(sh.max_range(), sh.cs_range, "no cutoff beyond the mean range");
    }

    #[test]
    fn shadowing_ranges_are_the_mean_powers_and_the_cutoff_is_six_deviations_out() {
        let cfg = RadioCfg { tx_range_m: Some(100.0), cs_range_m: Some(220.0), ..shadowing(3.0, 4.0, 1.0) };
        let p = RadioParams::from_config(&cfg);
        assert!(rel(p.tx_range, 100.0) < 1e-12 && rel(p.cs_range, 220.0) < 1e-12);
        assert_eq!(p.rx_threshold, p.path_loss.rx_power(100.0));
        assert_eq!(p.shadow_std_db, Some(4.0));
        // At the cutoff the mean is 6 x 4 = 24 dB below the CS threshold: 220 m x 10^(24 / 30).
        let below = 10.0 * (p.cs_threshold / p.path_loss.rx_power(p.sense_cutoff)).log10();
        assert!((below - 24.0).abs() < 1e-9, "{below} dB");
        assert!(rel(p.max_range(), 220.0 * 10f64.powf(0.8)) < 1e-12);
        // The cost estimate's range: cs_range exp(a^2), a = 4 ln 10 / 30.
        let a = 4.0 * std::f64::consts::LN_10 / 30.0;
        assert!(rel(p.event_range(), 220.0 * (a * a).exp()) < 1e-12);
    }
}
