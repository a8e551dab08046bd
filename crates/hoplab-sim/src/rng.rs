//! One seed, many independent random streams: each (node, purpose) pair draws
//! from its own ChaCha12 stream, so adding a draw in one protocol never shifts
//! the numbers another protocol sees (GUIDE: "each node and purpose draws from
//! its own seeded random stream").

use rand::rngs::ChaCha12Rng;
use rand::{Rng, SeedableRng};

/// What a stream is used for; part of the stream identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Purpose {
    MacBackoff = 1,
    Routing = 2,
    #[allow(dead_code)]
    Transport = 3,
    App = 4,
    Topology = 5,
    Mobility = 6,
    /// LRED marking draws (net/lred.rs), only when LRED is on.
    Lred = 7,
    /// A CBR source's interval jitter (ns-2 `random_`, app/cbr.rs), per flow.
    CbrJitter = 8,
    /// Log-normal shadowing draws, one stream per receiving node
    /// (phy/channel.rs), only with `radio.propagation = "shadowing"`.
    Shadowing = 9,
}

/// A deterministic random stream.
pub struct Stream(ChaCha12Rng);

impl Stream {
    pub fn new(seed: u64, node: u32, purpose: Purpose) -> Stream {
        let mut rng = ChaCha12Rng::seed_from_u64(seed);
        rng.set_stream(((node as u64) << 8) | purpose as u64);
        Stream(rng)
    }

    /// Uniform integer in `0..=max`.
    pub fn below_incl(&mut self, max: u32) -> u32 {
        if max == 0 {
            return 0;
        }
        // Rejection sampling keeps the draw unbiased and stable across versions.
        let n = max as u64 + 1;
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.0.next_u64();
            if x < zone {
                return (x % n) as u32;
            }
        }
    }

    /// Uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal draw (mean 0, standard deviation 1): Box-Muller
    /// from two uniforms, the cosine half only, so every draw takes exactly
    /// two words of the stream and nothing is carried between draws.
    pub fn normal(&mut self) -> f64 {
        // 1 - unit() is in (0, 1]: the logarithm is finite.
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u32> = (0..8).map({ let mut s = Stream::new(7, 3, Purpose::MacBackoff); move |_| s.below_incl(1023) }).collect();
        let b: Vec<u32> = (0..8).map({ let mut s = Stream::new(7, 3, Purpose::MacBackoff); move |_| s.below_incl(1023) }).collect();
        let c: Vec<u32> = (0..8).map({ let mut s = Stream::new(7, 4, Purpose::MacBackoff); move |_| s.below_incl(1023) }).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn normal_draws_have_mean_0_and_deviation_1() {
        let mut s = Stream::new(11, 2, Purpose::Shadowing);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| s.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Standard errors: 1/sqrt(n) = 0.0022 for the mean, sqrt(2/n) = 0.0032 for the variance.
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.015, "variance {var}");
        // The tail beyond one deviation: Q(1) = 0.158655.
        let tail = xs.iter().filter(|&&x| x > 1.0).count() as f64 / n as f64;
        assert!((tail - 0.158655).abs() < 0.004, "P(X > 1) = {tail}");
    }

    #[test]
    fn below_incl_covers_range_uniformly() {
        let mut s = Stream::new(1, 0, Purpose::MacBackoff);
        let mut hist = [0u32; 32];
        for _ in 0..32_000 {
            hist[s.below_incl(31) as usize] += 1;
        }
        for h in hist {
            assert!((800..1200).contains(&h), "bin count {h}");
        }
    }
}
