//! A bounded time series of a step function (issue 10 item 5): the TCP
//! sender's cwnd / ssthresh / srtt / rto, recorded on change.
//!
//! Every sample holds until the next one. Time is cut into buckets of
//! `stride` nanoseconds (bucket = t / stride) and each bucket keeps only the
//! **last** change in it, so the recorded step function is exact at every
//! bucket's end and wrong only inside a bucket where the value changed
//! more than once (a dip and recovery within one bucket is not seen). With
//! stride 0 (`[output] timeseries_interval_s = 0`, the default) every change
//! is kept, as before issue 10.
//!
//! The memory bound: a series never holds more than `max_samples`. When a
//! new bucket would exceed it, the stride doubles (starting from the
//! configured interval, or 1 µs when that is 0) until the samples already
//! held merge, last per bucket, into fewer than half the cap; recording goes
//! on at the coarser stride. Buckets of width 2s contain whole buckets of
//! width s, so the result is exactly what recording at the final stride from
//! the start would have kept: a long run ends with at most `max_samples`
//! samples (at least a quarter of that when the value changes more often
//! than once per bucket) spread evenly over the whole run, not a cut-off
//! tail. A loaded 1-hop flow of 36,000 s keeps about 17,000 samples, one
//! per ~2 s (docs/BENCHMARKS.md). Sampling is data only: it schedules no event, so event hashes do
//! not depend on it.

use crate::time::{Dur, SimTime};

/// Default cap on samples per series (`[output] timeseries_max_samples`).
/// A loaded 1-hop flow changes state about 62 times per simulated second
/// (ns-2 receiver, ACK every second segment), so every change of a run of
/// up to about 800 s is kept (the seeds' runs are 100-200 s), and one flow's
/// series costs at most about 2.4 MB in the engine (48 bytes a sample).
pub const DEFAULT_MAX_SAMPLES: u32 = 50_000;

/// Smallest cap accepted (`output.timeseries_max_samples`'s range): enough for a readable series.
pub const MIN_MAX_SAMPLES: u32 = 16;
/// Largest cap accepted (48 MB per flow in the engine).
pub const MAX_MAX_SAMPLES: u32 = 1_000_000;

/// The stride a series coarsens from when no interval is configured.
const BASE_STRIDE: Dur = Dur::from_micros(1);

/// How a series is sampled (from `[output]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesLimits {
    /// Bucket width; zero keeps every change until the cap is reached.
    pub interval: Dur,
    /// Most samples held at once (at least 2).
    pub max_samples: u32,
}

impl Default for SeriesLimits {
    fn default() -> Self {
        SeriesLimits { interval: Dur::ZERO, max_samples: DEFAULT_MAX_SAMPLES }
    }
}

/// A step function sampled on change, last change per bucket, capped.
#[derive(Clone, Debug)]
pub struct Series<T> {
    limits: SeriesLimits,
    /// Current bucket width in ns (0: every change is its own bucket).
    stride: u64,
    samples: Vec<(SimTime, T)>,
}

impl<T> Series<T> {
    pub fn new(limits: SeriesLimits) -> Self {
        let limits = SeriesLimits { max_samples: limits.max_samples.max(2), ..limits };
        Series { limits, stride: limits.interval.0, samples: Vec::new() }
    }

    fn same_bucket(stride: u64, a: SimTime, b: SimTime) -> bool {
        stride > 0 && a.0 / stride == b.0 / stride
    }

    /// Record the value `v` from time `t` on (`t` not before the last sample).
    pub fn push(&mut self, t: SimTime, v: T) {
        if let Some(last) = self.samples.last_mut().filter(|l| Self::same_bucket(self.stride, l.0, t)) {
            *last = (t, v); // the last change of a bucket wins
            return;
        }
        if self.samples.len() >= self.limits.max_samples as usize {
            self.coarsen(t);
            if let Some(last) = self.samples.last_mut().filter(|l| Self::same_bucket(self.stride, l.0, t)) {
                *last = (t, v);
                return;
            }
        }
        self.samples.push((t, v));
    }

    /// Double the stride until the samples held (and `now`'s bucket) fit in
    /// half the cap.
    fn coarsen(&mut self, now: SimTime) {
        let target = (self.limits.max_samples as u64 / 2).max(1);
        let span = now.0.saturating_sub(self.samples.first().map_or(now.0, |s| s.0 .0));
        let mut stride = if self.stride > 0 { self.stride.saturating_mul(2) } else { self.limits.interval.0.max(BASE_STRIDE.0) };
        // Fewer than `target` buckets over the span: a first guess, then exact.
        while stride < u64::MAX / 2 && span / stride >= target {
            stride *= 2;
        }
        loop {
            self.samples.dedup_by(|later, kept| {
                let same = Self::same_bucket(stride, kept.0, later.0);
                if same {
                    std::mem::swap(later, kept); // keep the later value
                }
                same
            });
            if (self.samples.len() as u64) < target || stride >= u64::MAX / 2 {
                break;
            }
            stride *= 2;
        }
        self.stride = stride;
    }

    /// The current bucket width (grows as the series is coarsened).
    #[cfg(test)]
    pub fn stride(&self) -> Dur {
        Dur(self.stride)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    #[allow(dead_code)]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    #[cfg(test)]
    pub fn samples(&self) -> &[(SimTime, T)] {
        &self.samples
    }

    /// Drain the samples (the series keeps its stride).
    pub fn take(&mut self) -> Vec<(SimTime, T)> {
        std::mem::take(&mut self.samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    /// The value of a step function at `t` (the last sample at or before it).
    fn at(s: &[(SimTime, u64)], t: SimTime) -> Option<u64> {
        s.iter().take_while(|x| x.0 <= t).last().map(|x| x.1)
    }

    #[test]
    fn every_change_is_kept_below_the_cap() {
        let mut s = Series::new(SeriesLimits { interval: Dur::ZERO, max_samples: 100 });
        for i in 0..100 {
            s.push(ms(i), i);
        }
        assert_eq!(s.len(), 100);
        assert_eq!(s.stride(), Dur::ZERO);
    }

    #[test]
    fn an_interval_keeps_the_last_change_of_each_bucket() {
        let mut s = Series::new(SeriesLimits { interval: Dur::from_millis(10), max_samples: 1000 });
        for i in 0..100 {
            s.push(ms(i), i); // 10 changes per 10 ms bucket
        }
        let got: Vec<u64> = s.samples().iter().map(|x| x.1).collect();
        assert_eq!(got, (0..10).map(|b| b * 10 + 9).collect::<Vec<_>>());
        assert_eq!(s.samples()[0].0, ms(9));
    }

    #[test]
    fn the_cap_holds_and_the_coarse_series_is_exact_at_bucket_boundaries() {
        let full: Vec<(SimTime, u64)> = (0..100_000u64).map(|i| (SimTime(i * 7_919_113 + (i * i) % 5_000_000), i % 977)).collect();
        for interval in [Dur::ZERO, Dur::from_millis(3)] {
            let mut s = Series::new(SeriesLimits { interval, max_samples: 1000 });
            for &(t, v) in &full {
                s.push(t, v);
                assert!(s.len() <= 1000);
            }
            assert!(s.len() >= 250, "{} samples: coarsened too far", s.len());
            let stride = s.stride().0;
            assert!(stride > 0);
            if interval.0 > 0 {
                assert_eq!(stride % interval.0, 0, "strides are the interval times a power of two");
            }
            // Covers the whole run, and agrees with the full series at every
            // bucket boundary.
            let end = full.last().unwrap().0;
            assert!(s.samples().last().unwrap().0 > SimTime(end.0 - stride));
            for k in 1..end.0 / stride {
                let b = SimTime(k * stride - 1); // the last instant of bucket k - 1
                assert_eq!(at(s.samples(), b), at(&full, b), "at {b:?}");
            }
        }
    }
}
