//! What the event queue carries, and the table of frames on the air.

use crate::phy::Link;
use crate::queue::{EventQueue, Phase};
use crate::time::{Dur, SimTime};
use crate::wire::{Frame, NodeId};

/// An event delivered to one node (the node is part of the queue key).
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The first bit of transmission `tx` reaches this node.
    RxStart { tx: u32, power: f64, sensed: bool, interferes: bool },
    /// The last bit of transmission `tx` reaches this node.
    RxEnd { tx: u32 },
    /// This node's own transmission ends.
    TxEnd,
    /// Timer `slot` of this node fires, unless re-armed since (`gen`).
    Timer { slot: u16, gen: u32 },
    /// Scripted mobility: update this node's position.
    Move,
    /// The world's, never a node's: the next receiver of transmission `tx`
    /// sees its start (or its `end`); the world turns it into that node's
    /// `RxStart` (`RxEnd`) with `TxTable::step`.
    Wave { tx: u32, end: bool },
}

impl Event {
    // The codes of a wave's events, for the world's loop, which knows the
    // kind without an `Event` to match on.
    pub const TX_END_CODE: u64 = 3;
    #[inline(always)]
    pub fn rx_start_code(tx: u32) -> u64 {
        1 | (tx as u64) << 8
    }
    #[inline(always)]
    pub fn rx_end_code(tx: u32) -> u64 {
        2 | (tx as u64) << 8
    }

    /// A small code for the event hash of the determinism check.
    pub fn code(&self) -> u64 {
        match *self {
            Event::RxStart { tx, .. } => Self::rx_start_code(tx),
            Event::RxEnd { tx } => Self::rx_end_code(tx),
            Event::TxEnd => Self::TX_END_CODE,
            Event::Timer { slot, .. } => 4 | (slot as u64) << 8,
            Event::Move => 5,
            Event::Wave { .. } => unreachable!("a wave is delivered as RxStart or RxEnd"),
        }
    }
}

/// One receiver of a frame on the air, or its sender (whose transmission
/// ends with the end wave: `TxEnd` instead of `RxEnd`, no start).
#[derive(Clone, Copy, Debug)]
struct Receiver {
    node: NodeId,
    sender: bool,
    delay: Dur,
    power: f64,
    sensed: bool,
    interferes: bool,
    /// Queue sequence number of its RxStart; its RxEnd has the next one.
    seq: u64,
}

struct Slot {
    frame: Option<Frame>,
    /// The frame's airtime, computed once by its sender.
    airtime: Dur,
    sent: SimTime,
    /// Receivers in arrival order (delay, then node id).
    receivers: Vec<Receiver>,
    /// The next receiver of the start wave and of the end wave.
    next: [u32; 2],
    /// Entries of the end wave not yet done with the frame: every receiver
    /// (released after its `RxEnd` is handled) and the sender (released as
    /// its `TxEnd` is stepped), so the slot is not reused while an entry of
    /// the wave still points at it.
    pending: u32,
}

/// Frames on the air, each kept until every receiver has seen its end;
/// receivers borrow the frame instead of each getting a copy.
///
/// A frame reaches its k receivers as two waves, its start and its end,
/// each one queue entry that steps from receiver to receiver in arrival
/// order instead of k entries. The entry keeps the key the receiver's own
/// event would have had (time, phase, node, a sequence number reserved at
/// the transmission), so events pop in the same order as k separate
/// entries would.
#[derive(Default)]
pub struct TxTable {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl TxTable {
    /// `sender` puts `frame`, lasting `airtime`, on the air now towards
    /// `links` (in arrival order): queue its `TxEnd` and the two waves.
    /// The frame is taken from where its sender held it (one move).
    /// Returns its id (`u32::MAX` when nobody hears it).
    pub fn launch(&mut self, queue: &mut EventQueue<Event>, now: SimTime, sender: NodeId, frame: &mut Option<Frame>, airtime: Dur, links: &[Link]) -> u32 {
        debug_assert!(frame.is_some(), "nothing to launch");
        let tx_end_seq = queue.reserve(sender, 1);
        if links.is_empty() {
            *frame = None;
            queue.push_seq(now + airtime, Phase::SignalEnd, sender, tx_end_seq, Event::TxEnd);
            return u32::MAX;
        }
        let tx = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot { frame: None, airtime, sent: now, receivers: Vec::new(), next: [0; 2], pending: 0 });
                (self.slots.len() - 1) as u32
            }
        };
        let s = &mut self.slots[tx as usize];
        s.frame = frame.take();
        s.airtime = airtime;
        s.sent = now;
        s.pending = links.len() as u32 + 1;
        s.receivers.clear();
        // The sender's TxEnd (delay 0, its own key) heads the end wave.
        let at = links.partition_point(|l| (l.delay, l.node) < (Dur(0), sender));
        let mut receiver = |l: &Link| Receiver { node: l.node, sender: false, delay: l.delay, power: l.power, sensed: l.sensed, interferes: l.interferes, seq: queue.reserve(l.node, 2) };
        s.receivers.extend(links[..at].iter().map(&mut receiver));
        // Its `seq` is that of the end, as for a receiver's: one less here.
        s.receivers.push(Receiver { node: sender, sender: true, delay: Dur(0), power: 0.0, sensed: false, interferes: false, seq: tx_end_seq - 1 });
        s.receivers.extend(links[at..].iter().map(&mut receiver));
        // The start wave skips the sender, which can only head it (at == 0).
        let start = (at == 0) as usize;
        s.next = [start as u32, 0];
        let (first, head) = (s.receivers[start], s.receivers[0]);
        queue.push_held(now + first.delay, Phase::SignalStart, first.node, first.seq, Event::Wave { tx, end: false });
        queue.push_seq(now + head.delay + airtime, Phase::SignalEnd, head.node, head.seq + 1, Event::Wave { tx, end: true });
        tx
    }

    /// A wave of `tx` came up: the node it reached, that node's event, and
    /// the node it reaches next, if any (the wave is queued on to it).
    pub fn step(&mut self, queue: &mut EventQueue<Event>, tx: u32, end: bool) -> (NodeId, Event, Option<NodeId>) {
        let s = &mut self.slots[tx as usize];
        let i = s.next[end as usize] as usize;
        let r = s.receivers[i];
        // The start wave passes over the sender.
        let skip = (!end && s.receivers.get(i + 1).is_some_and(|n| n.sender)) as usize;
        s.next[end as usize] += 1 + skip as u32;
        let next = s.receivers.get(i + 1 + skip).map(|n| {
            let (phase, offset, seq) = if end { (Phase::SignalEnd, s.airtime, n.seq + 1) } else { (Phase::SignalStart, Dur(0), n.seq) };
            queue.push_held(s.sent + n.delay + offset, phase, n.node, seq, Event::Wave { tx, end });
            n.node
        });
        let ev = match (end, r.sender) {
            (true, true) => {
                self.release(tx);
                Event::TxEnd
            }
            (true, false) => Event::RxEnd { tx },
            (false, _) => Event::RxStart { tx, power: r.power, sensed: r.sensed, interferes: r.interferes },
        };
        (r.node, ev, next)
    }

    pub fn airtime(&self, tx: u32) -> Dur {
        self.slots[tx as usize].airtime
    }

    /// The power (W) at which `node` receives `tx` (the trace's antenna
    /// signal); None if it is not one of its receivers.
    pub fn power_at(&self, tx: u32, node: NodeId) -> Option<f64> {
        self.slots[tx as usize].receivers.iter().find(|r| r.node == node && !r.sender).map(|r| r.power)
    }

    pub fn get(&self, tx: u32) -> &Frame {
        self.slots[tx as usize].frame.as_ref().expect("frame already released")
    }

    /// One receiver is done with `tx` (its `RxEnd` handled).
    pub fn release(&mut self, tx: u32) {
        let s = &mut self.slots[tx as usize];
        s.pending -= 1;
        if s.pending == 0 {
            s.frame = None;
            self.free.push(tx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::FrameKind;

    fn frame() -> Frame {
        Frame { kind: FrameKind::Ack, src: 1, dst: 0, duration_us: 0, seq: 0, retry: false, packet: None }
    }

    fn link(node: NodeId, delay: u64) -> Link {
        Link { node, power: 1.0, delay: Dur(delay), sensed: true, interferes: true }
    }

    #[test]
    fn a_slot_outlives_the_senders_tx_end() {
        // Node 1 sends; node 0, its only receiver, stands at the same spot
        // (delay 0, lower id), so 0's RxEnd pops before 1's TxEnd. When 0 is
        // done with the frame, a new one must not take the slot while 1's
        // TxEnd still steps through it.
        let mut q = EventQueue::new(4);
        let mut txs = TxTable::default();
        let first = txs.launch(&mut q, SimTime(0), 1, &mut Some(frame()), Dur(100), &[link(0, 0)]);
        let mut other = None;
        let mut seen = vec![];
        while let Some((t, node, ev)) = q.pop() {
            let (n, ev, _) = match ev {
                Event::Wave { tx, end } => txs.step(&mut q, tx, end),
                ev => (node, ev, None),
            };
            assert_eq!(n, node, "the entry's key names the node it reaches");
            if let Event::RxEnd { tx } = ev {
                txs.release(tx);
                if tx == first {
                    other = Some(txs.launch(&mut q, t, 3, &mut Some(frame()), Dur(100), &[link(2, 5)]));
                }
            }
            seen.push((t.0, n, ev.code() & 0xff));
        }
        assert_ne!(other, Some(first), "the slot was still 1's TxEnd's");
        // 1 = RxStart, 2 = RxEnd, 3 = TxEnd: the first frame, then the other at node 2.
        assert_eq!(seen, vec![(0, 0, 1), (100, 0, 2), (100, 1, 3), (105, 2, 1), (200, 3, 3), (205, 2, 2)]);
    }

    #[test]
    fn waves_pop_in_the_order_of_one_entry_per_reception() {
        // Three receivers at different delays, one co-located with a lower
        // id: the events come in (time, phase, node) order, sender's TxEnd
        // inside the end wave.
        let mut q = EventQueue::new(4);
        let mut txs = TxTable::default();
        txs.launch(&mut q, SimTime(0), 2, &mut Some(frame()), Dur(100), &[link(1, 0), link(3, 0), link(0, 7)]);
        let mut seen = vec![];
        while let Some((t, _, ev)) = q.pop() {
            let (n, ev, _) = match ev {
                Event::Wave { tx, end } => txs.step(&mut q, tx, end),
                ev => panic!("{ev:?}"),
            };
            if let Event::RxEnd { tx } = ev {
                txs.release(tx);
            }
            seen.push((t.0, n, ev.code() & 0xff));
        }
        assert_eq!(seen, vec![(0, 1, 1), (0, 3, 1), (7, 0, 1), (100, 1, 2), (100, 2, 3), (100, 3, 2), (107, 0, 2)]);
    }
}
