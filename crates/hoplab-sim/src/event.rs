//! What the event queue carries, and the table of frames on the air.

use crate::time::Dur;
use crate::wire::Frame;

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
}

impl Event {
    /// A small code for the event hash of the determinism check.
    pub fn code(&self) -> u64 {
        match *self {
            Event::RxStart { tx, .. } => 1 | (tx as u64) << 8,
            Event::RxEnd { tx } => 2 | (tx as u64) << 8,
            Event::TxEnd => 3,
            Event::Timer { slot, .. } => 4 | (slot as u64) << 8,
            Event::Move => 5,
        }
    }
}

/// Frames on the air, each kept until every receiver has seen its end;
/// receivers borrow the frame instead of each getting a copy.
#[derive(Default)]
pub struct TxTable {
    frames: Vec<Option<Frame>>,
    /// Each frame's airtime, computed once by its sender.
    airtimes: Vec<Dur>,
    pending: Vec<u32>,
    free: Vec<u32>,
}

impl TxTable {
    /// Store a frame lasting `airtime` that `receivers` nodes will hear the end of.
    pub fn insert(&mut self, frame: Frame, airtime: Dur, receivers: u32) -> u32 {
        if receivers == 0 {
            return u32::MAX;
        }
        match self.free.pop() {
            Some(i) => {
                self.frames[i as usize] = Some(frame);
                self.airtimes[i as usize] = airtime;
                self.pending[i as usize] = receivers;
                i
            }
            None => {
                self.frames.push(Some(frame));
                self.airtimes.push(airtime);
                self.pending.push(receivers);
                (self.frames.len() - 1) as u32
            }
        }
    }

    pub fn airtime(&self, tx: u32) -> Dur {
        self.airtimes[tx as usize]
    }

    pub fn get(&self, tx: u32) -> &Frame {
        self.frames[tx as usize].as_ref().expect("frame already released")
    }

    /// One receiver is done with `tx`.
    pub fn release(&mut self, tx: u32) {
        let p = &mut self.pending[tx as usize];
        *p -= 1;
        if *p == 0 {
            self.frames[tx as usize] = None;
            self.free.push(tx);
        }
    }
}
