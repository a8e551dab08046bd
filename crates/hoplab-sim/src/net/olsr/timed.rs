//! A map of tuples with expiry times, indexed by expiry as well, so that
//! expiring nothing and finding the earliest expiry cost O(1) and expiring
//! k tuples costs O(k log n) instead of a scan of the whole set.

use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeBounds;

#[derive(Clone, Debug)]
pub struct TimedMap<K: Ord + Copy, V> {
    map: BTreeMap<K, (V, SimTime)>,
    by_time: BTreeSet<(SimTime, K)>,
}

impl<K: Ord + Copy, V> Default for TimedMap<K, V> {
    fn default() -> Self {
        TimedMap { map: BTreeMap::new(), by_time: BTreeSet::new() }
    }
}

impl<K: Ord + Copy, V> TimedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Insert or replace; returns the old value and expiry time.
    pub fn insert(&mut self, k: K, v: V, t: SimTime) -> Option<(V, SimTime)> {
        let old = self.map.insert(k, (v, t));
        if let Some((_, ot)) = &old {
            self.by_time.remove(&(*ot, k));
        }
        self.by_time.insert((t, k));
        old
    }

    pub fn remove(&mut self, k: &K) -> Option<(V, SimTime)> {
        let old = self.map.remove(k);
        if let Some((_, t)) = &old {
            self.by_time.remove(&(*t, *k));
        }
        old
    }

    pub fn contains_key(&self, k: &K) -> bool {
        self.map.contains_key(k)
    }

    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.map.keys().copied()
    }

    pub fn range<R: RangeBounds<K>>(&self, r: R) -> impl Iterator<Item = (K, &V, SimTime)> + '_ {
        self.map.range(r).map(|(k, (v, t))| (*k, v, *t))
    }

    /// The earliest expiry time of any tuple.
    pub fn earliest(&self) -> Option<SimTime> {
        self.by_time.first().map(|(t, _)| *t)
    }

    /// Remove every tuple whose time is not later than `now` (the same as
    /// `retain(|t| t > now)`); returns how many were removed.
    pub fn expire(&mut self, now: SimTime) -> usize {
        let mut n = 0;
        while let Some(&(t, k)) = self.by_time.first() {
            if t > now {
                break;
            }
            self.by_time.pop_first();
            self.map.remove(&k);
            n += 1;
        }
        n
    }

    /// Remove every tuple whose key fails `keep`; returns how many were removed.
    pub fn retain_keys(&mut self, mut keep: impl FnMut(&K) -> bool) -> usize {
        let gone: Vec<(K, SimTime)> = self.map.iter().filter(|(k, _)| !keep(k)).map(|(k, (_, t))| (*k, *t)).collect();
        for (k, t) in &gone {
            self.map.remove(k);
            self.by_time.remove(&(*t, *k));
        }
        gone.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[test]
    fn expire_and_earliest() {
        let t = |s: u64| SimTime::ZERO + Dur(s);
        let mut m: TimedMap<u32, u8> = TimedMap::new();
        m.insert(1, 0, t(10));
        m.insert(2, 0, t(5));
        m.insert(3, 0, t(7));
        assert_eq!(m.earliest(), Some(t(5)));
        // Refreshing a tuple moves its expiry.
        m.insert(2, 1, t(20));
        assert_eq!(m.earliest(), Some(t(7)));
        assert_eq!(m.expire(t(6)), 0);
        assert_eq!(m.expire(t(10)), 2);
        assert_eq!(m.keys().collect::<Vec<_>>(), vec![2]);
        assert_eq!(m.retain_keys(|k| *k != 2), 1);
        assert_eq!(m.earliest(), None);
        assert_eq!(m.keys().count(), 0);
    }
}
