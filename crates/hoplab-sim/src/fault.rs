//! Test-only fault injection at a forwarding node (issue 10 item 6): the
//! way a test shows that `flows.stream_errors` sees a fault anywhere in the
//! network, not only in the sink. No scenario field reaches it; a test sets
//! `World::nodes[i].fault` before `World::run`. Off (`None`) it costs one
//! branch per forwarded packet and changes nothing.

use crate::wire::{Body, Packet};

/// What happens to one TCP data segment a node forwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Its content is altered in flight (its checksum no longer matches
    /// the bytes of its range).
    #[cfg_attr(not(test), allow(dead_code))]
    Corrupt,
    /// Its header's sequence number is moved by `by` segments; the content
    /// stays that of the original range (a misplaced segment).
    #[cfg_attr(not(test), allow(dead_code))]
    Shift { by: i64 },
}

/// A fault applied once, to the first transmission of segment `seqno` of
/// `flow` that passes through the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultHook {
    pub flow: u32,
    pub seqno: u64,
    pub fault: Fault,
    /// The fault has been applied.
    pub fired: bool,
}

impl FaultHook {
    #[cfg(test)]
    pub fn new(flow: u32, seqno: u64, fault: Fault) -> Self {
        FaultHook { flow, seqno, fault, fired: false }
    }

    /// Apply the fault to `p` if it is the chosen segment.
    pub fn apply(&mut self, p: &mut Packet) {
        let Body::Tcp(s) = &mut p.body else { return };
        if self.fired || s.flow != self.flow || s.seqno != self.seqno || s.payload == 0 || s.retransmit {
            return;
        }
        self.fired = true;
        match self.fault {
            Fault::Corrupt => s.checksum ^= 0x5a5a_5a5a,
            Fault::Shift { by } => s.seqno = s.seqno.saturating_add_signed(by),
        }
    }
}
