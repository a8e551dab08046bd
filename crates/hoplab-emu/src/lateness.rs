//! How late real time is kept: every write's lateness (real time of the
//! write minus its simulated delivery time) and the episodes of falling
//! behind (consecutive writes later than the threshold).

/// Lateness of the writes of a run.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    samples_ns: Vec<u64>,
    threshold_ns: u64,
    /// Episodes: (start of the first late write's delivery time, its
    /// length in ns from the first late write to the first on-time one,
    /// the worst lateness in it).
    pub episodes: Vec<(u64, u64, u64)>,
    open: Option<(u64, u64)>,
}

impl Lateness {
    pub fn new(threshold_ns: u64) -> Lateness {
        Lateness { threshold_ns, ..Lateness::default() }
    }

    /// A write of a packet due at `due_ns` done at `done_ns` (simulated
    /// clock); true if it opened a new episode.
    pub fn record(&mut self, due_ns: u64, done_ns: u64) -> bool {
        self.samples_ns.push(done_ns.saturating_sub(due_ns));
        self.observe(due_ns, done_ns)
    }

    /// The loop woke at `done_ns` for a deadline at `due_ns`: it fell behind
    /// even if no write was due then (a packet waiting in a TUN queue is
    /// stamped late). Counts in the episodes, not in the write lateness.
    pub fn observe(&mut self, due_ns: u64, done_ns: u64) -> bool {
        let late = done_ns.saturating_sub(due_ns);
        if late > self.threshold_ns {
            match &mut self.open {
                Some((_, worst)) => {
                    *worst = (*worst).max(late);
                    false
                }
                None => {
                    self.open = Some((due_ns, late));
                    true
                }
            }
        } else {
            self.close(done_ns);
            false
        }
    }

    /// Close an open episode at `now_ns` (also at the end of the run).
    pub fn close(&mut self, now_ns: u64) {
        if let Some((start, worst)) = self.open.take() {
            self.episodes.push((start, now_ns.saturating_sub(start), worst));
        }
    }

    pub fn count(&self) -> usize {
        self.samples_ns.len()
    }

    /// The `q`-quantile (0..=1) in ns, nearest rank; 0 without writes.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.samples_ns.is_empty() {
            return 0;
        }
        let mut v = self.samples_ns.clone();
        v.sort_unstable();
        let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        v[k]
    }

    pub fn max_ns(&self) -> u64 {
        self.samples_ns.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_episodes() {
        let mut l = Lateness::new(1_000_000);
        for k in 0..100u64 {
            assert!(!l.record(k * 10_000_000, k * 10_000_000 + k * 1_000)); // 0..99 us late
        }
        assert_eq!(l.quantile_ns(0.5), 49_000);
        assert_eq!(l.quantile_ns(0.99), 98_000);
        assert_eq!(l.max_ns(), 99_000);
        // A stall: three writes 5, 4, 3 ms late, then on time.
        assert!(l.record(2_000_000_000, 2_005_000_000));
        assert!(!l.record(2_001_000_000, 2_005_000_000));
        assert!(!l.record(2_002_000_000, 2_005_000_000));
        l.record(2_010_000_000, 2_010_000_000);
        assert_eq!(l.episodes, vec![(2_000_000_000, 10_000_000, 5_000_000)]);
        // A late wake-up with nothing to write is an episode too, not a write.
        assert!(l.observe(3_000_000_000, 3_080_000_000));
        assert!(!l.observe(3_081_000_000, 3_081_000_000));
        assert_eq!(l.episodes[1], (3_000_000_000, 81_000_000, 80_000_000));
        assert_eq!(l.count(), 104);
    }
}
