//! A map of tuples with expiry times, indexed by expiry as well, so that
//! expiring nothing and finding the earliest expiry cost O(1) and expiring
//! k tuples costs O(k log n) instead of a scan of the whole set.
//!
//! The expiry index is a heap that keeps an entry for every time a tuple
//! was given: refreshing a tuple (OLSR does so on every HELLO and TC) pushes
//! one entry instead of moving one in an ordered set. Entries whose tuple
//! has since been refreshed or removed are stale and are dropped when they
//! reach the top, which is kept valid after every change.

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::ops::RangeBounds;

#[derive(Clone, Debug)]
pub struct TimedMap<K: Ord + Copy, V> {
    map: BTreeMap<K, (V, SimTime)>,
    by_time: BinaryHeap<Reverse<(SimTime, K)>>,
}

impl<K: Ord + Copy, V> Default for TimedMap<K, V> {
    fn default() -> Self {
        TimedMap { map: BTreeMap::new(), by_time: BinaryHeap::new() }
    }
}

impl<K: Ord + Copy, V> TimedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn is_live(&self, t: SimTime, k: &K) -> bool {
        self.map.get(k).is_some_and(|(_, kt)| *kt == t)
    }

    /// Drop stale entries from the top of the expiry heap.
    fn settle(&mut self) {
        while let Some(&Reverse((t, k))) = self.by_time.peek() {
            if self.is_live(t, &k) {
                break;
            }
            self.by_time.pop();
        }
    }

    /// Insert or replace; returns the old value and expiry time.
    pub fn insert(&mut self, k: K, v: V, t: SimTime) -> Option<(V, SimTime)> {
        let old = self.map.insert(k, (v, t));
        if old.as_ref().is_none_or(|(_, ot)| *ot != t) {
            self.by_time.push(Reverse((t, k)));
        }
        self.settle();
        old
    }

    pub fn remove(&mut self, k: &K) -> Option<(V, SimTime)> {
        let old = self.map.remove(k);
        self.settle();
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

    /// The earliest expiry time of any tuple (the heap top is always live).
    pub fn earliest(&self) -> Option<SimTime> {
        self.by_time.peek().map(|Reverse((t, _))| *t)
    }

    /// Remove every tuple whose time is at or before `now`; how many went.
    pub fn expire(&mut self, now: SimTime) -> usize {
        let mut n = 0;
        while let Some(&Reverse((t, k))) = self.by_time.peek() {
            if t > now {
                break;
            }
            self.by_time.pop();
            // A duplicate entry of a live tuple is live too; the first removes it.
            if self.is_live(t, &k) {
                self.map.remove(&k);
                n += 1;
            }
        }
        self.settle();
        n
    }

    /// Remove every tuple whose key fails `keep`; returns how many were removed.
    pub fn retain_keys(&mut self, mut keep: impl FnMut(&K) -> bool) -> usize {
        let before = self.map.len();
        self.map.retain(|k, _| keep(k));
        self.settle();
        before - self.map.len()
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
