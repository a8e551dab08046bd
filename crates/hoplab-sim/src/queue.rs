//! The event queue and its ordering contract.
//!
//! Events are popped in increasing order of the key `(time, phase, node, seq)`:
//!
//! 1. `time`: integer nanoseconds.
//! 2. `phase`: at one instant, signal *ends* are handled before timers, and
//!    timers before signal *starts*. A signal occupies the half-open interval
//!    [start, end), so a frame that ends at t and one that starts at t do not
//!    overlap, and a deferral that completes at t completes before a signal
//!    arriving at t is sensed.
//! 3. `node`: the node the event is delivered to, lowest id first.
//! 4. `seq`: a per-node counter of events scheduled for that node, so ties at
//!    one node keep the order in which they were scheduled. No global counter
//!    decides an order, which keeps the contract valid if nodes are ever
//!    processed in parallel.
//!
//! Cancellation is lazy: timers carry a generation number that the owner
//! compares on delivery (see `node.rs`); stale entries are skipped. A timer
//! moved later keeps its queued entry, which re-queues itself at the new key
//! when it comes up (`push_seq` with the sequence number reserved when the
//! timer was moved), so the order is the one an entry pushed at the move
//! would have had.
//!
//! One entry can be *held* beside the heap (`push_held`): the next delivery
//! of a frame's wave of receptions, which is nearly always the very next
//! event, so most receptions never enter the heap.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Phase of an event within one instant (see the module contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Phase {
    SignalEnd = 0,
    Timer = 1,
    SignalStart = 2,
}

/// The key packed into one integer, so that a comparison is a single u128
/// compare: time (64 bits) | phase (2) | node (22) | seq (40).
struct Entry<E> {
    key: u128,
    ev: E,
}

const NODE_BITS: u32 = 22;
const SEQ_BITS: u32 = 40;
/// Node ids must fit the key (the scenario allows at most 1,000,000 nodes).
pub const MAX_NODES: usize = 1 << NODE_BITS;

fn pack(time: SimTime, phase: Phase, node: u32, seq: u64) -> u128 {
    debug_assert!((node as usize) < MAX_NODES && seq < 1 << SEQ_BITS);
    (time.0 as u128) << 64 | (phase as u128) << 62 | (node as u128) << SEQ_BITS | seq as u128
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the smallest key first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// A priority queue of events for `n` nodes.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    held: Option<Entry<E>>,
    seq: Vec<u64>,
}

impl<E> EventQueue<E> {
    pub fn new(nodes: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), held: None, seq: vec![0; nodes] }
    }

    pub fn push(&mut self, time: SimTime, phase: Phase, node: u32, ev: E) {
        let seq = self.reserve(node, 1);
        self.heap.push(Entry { key: pack(time, phase, node, seq), ev });
    }

    /// Take `n` consecutive sequence numbers of `node`'s counter, as `n`
    /// pushes would; returns the first. Their events go in with `push_seq`.
    pub fn reserve(&mut self, node: u32, n: u64) -> u64 {
        let s = &mut self.seq[node as usize];
        *s += n;
        *s - n + 1
    }

    /// Push with a sequence number taken earlier by `reserve`.
    pub fn push_seq(&mut self, time: SimTime, phase: Phase, node: u32, seq: u64, ev: E) {
        self.heap.push(Entry { key: pack(time, phase, node, seq), ev });
    }

    /// `push_seq` for an entry that is likely the next to pop: it waits
    /// beside the heap, if that place is free.
    pub fn push_held(&mut self, time: SimTime, phase: Phase, node: u32, seq: u64, ev: E) {
        let e = Entry { key: pack(time, phase, node, seq), ev };
        if self.held.is_none() {
            self.held = Some(e);
        } else {
            self.heap.push(e);
        }
    }

    /// The next event: its time, node and payload.
    pub fn pop(&mut self) -> Option<(SimTime, u32, E)> {
        let e = match self.held.take() {
            Some(h) => match self.heap.peek() {
                Some(top) if top.key < h.key => {
                    self.held = Some(h);
                    self.heap.pop()
                }
                _ => Some(h),
            },
            None => self.heap.pop(),
        };
        e.map(|e| (SimTime((e.key >> 64) as u64), ((e.key >> SEQ_BITS) as u32) & ((1 << NODE_BITS) - 1), e.ev))
    }

    /// The time of the next event, without taking it (the emulation's step).
    pub fn peek_time(&self) -> Option<SimTime> {
        let top = self.heap.peek().map(|e| e.key);
        let held = self.held.as_ref().map(|e| e.key);
        let k = match (top, held) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(SimTime((k >> 64) as u64))
    }

    #[allow(dead_code)]
    pub fn len(&self) -> usize {
        self.heap.len() + self.held.is_some() as usize
    }

    #[allow(dead_code)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_keeps_fields_apart() {
        let mut q = EventQueue::new(MAX_NODES);
        q.push(SimTime(u64::MAX - 1), Phase::SignalStart, (MAX_NODES - 1) as u32, ());
        q.push(SimTime(u64::MAX - 1), Phase::Timer, 0, ());
        assert_eq!(q.pop().map(|(t, n, _)| (t, n)), Some((SimTime(u64::MAX - 1), 0)));
        assert_eq!(q.pop().map(|(t, n, _)| (t, n)), Some((SimTime(u64::MAX - 1), (MAX_NODES - 1) as u32)));
    }

    #[test]
    fn orders_by_time_phase_node_then_insertion() {
        let mut q = EventQueue::new(3);
        q.push(SimTime(10), Phase::SignalStart, 0, "start");
        q.push(SimTime(10), Phase::Timer, 2, "timer2");
        q.push(SimTime(10), Phase::Timer, 1, "timer1a");
        q.push(SimTime(10), Phase::Timer, 1, "timer1b");
        q.push(SimTime(10), Phase::SignalEnd, 2, "end");
        q.push(SimTime(5), Phase::SignalStart, 2, "early");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, _, e)| e)).collect();
        assert_eq!(order, ["early", "end", "timer1a", "timer1b", "timer2", "start"]);
    }

    #[test]
    fn held_entries_and_reserved_sequence_numbers_keep_the_key_order() {
        // The same events pushed plainly, and with reserved numbers, some held:
        // the same pops.
        let mut s = crate::rng::Stream::new(9, 0, crate::rng::Purpose::Topology);
        let (mut plain, mut mixed) = (EventQueue::new(4), EventQueue::new(4));
        let mut popped = (Vec::new(), Vec::new());
        for k in 0..4000u32 {
            let (t, n) = (SimTime((s.unit() * 50.0) as u64), (s.unit() * 4.0) as u32);
            plain.push(t, Phase::Timer, n, k);
            let seq = mixed.reserve(n, 1);
            if k % 2 == 0 {
                mixed.push_held(t, Phase::Timer, n, seq, k);
            } else {
                mixed.push_seq(t, Phase::Timer, n, seq, k);
            }
            if k % 3 == 0 {
                popped.0.push(plain.pop().map(|(t, n, k)| (t.0, n, k)));
                popped.1.push(mixed.pop().map(|(t, n, k)| (t.0, n, k)));
            }
        }
        assert_eq!(plain.len(), mixed.len());
        while !plain.is_empty() {
            popped.0.push(plain.pop().map(|(t, n, k)| (t.0, n, k)));
            popped.1.push(mixed.pop().map(|(t, n, k)| (t.0, n, k)));
        }
        assert!(mixed.pop().is_none());
        assert_eq!(popped.0, popped.1);
    }

    #[test]
    fn pops_random_pushes_in_key_order() {
        // The heap against an ordered set, pops interleaved with
        // pushes. One phase, so the key order is (time, node, push order).
        let mut s = crate::rng::Stream::new(5, 0, crate::rng::Purpose::Topology);
        let mut q = EventQueue::new(7);
        let mut reference = std::collections::BTreeSet::new();
        for k in 0..5000u32 {
            let (t, n) = ((s.unit() * 300.0) as u64, (s.unit() * 7.0) as u32);
            q.push(SimTime(t), Phase::Timer, n, k);
            reference.insert((t, n, k));
            if k % 3 == 0 {
                assert_eq!(q.pop().map(|(t, n, k)| (t.0, n, k)), reference.pop_first());
            }
        }
        while let Some(want) = reference.pop_first() {
            assert_eq!(q.pop().map(|(t, n, k)| (t.0, n, k)), Some(want));
        }
        assert!(q.pop().is_none());
    }
}
