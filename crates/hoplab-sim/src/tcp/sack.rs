//! SACK (RFC 2018, RFC 6675): the receiver's block reporting and the
//! window rules of the sender's loss recovery. The sender's scoreboard and
//! NextSeg live in [`super::scoreboard`].
//!
//! The seeds ran ns-2's `Agent/TCP/Sack1` with its `Sacker` sink; where this
//! model departs from them is written in docs/ARCHITECTURE.md ("SACK").

use std::collections::{BTreeMap, VecDeque};

use super::congestion::{halve, AckInfo, CongestionControl, RecoveryStep, Window};
use crate::wire::SackBlocks;

/// Receiver side: the SACK blocks of each ACK the sink generates.
///
/// RFC 2018 §4: the first block holds the segment that triggered the ACK
/// (unless it advanced the cumulative ACK); the others repeat the most
/// recently reported blocks, newest first, skipping any already included.
/// A block is reported with its current extent (blocks grow as segments
/// arrive next to them) and dropped once the cumulative ACK passes it.
#[derive(Clone, Debug, Default)]
pub struct SackReporter {
    /// The segment just received, until the next ACK is generated.
    trigger: Option<u64>,
    /// One segment of each block reported in the last ACK, first block first.
    recent: VecDeque<u64>,
    /// Blocks of the ACKs generated and not yet sent, oldest first.
    queue: VecDeque<SackBlocks>,
}

impl SackReporter {
    /// A data segment arrived (call before the ACK it may cause is generated).
    pub fn note_arrival(&mut self, seqno: u64) {
        self.trigger = Some(seqno);
    }

    /// An ACK of `rcv_nxt` is generated now; `ooo` holds the segments
    /// received above `rcv_nxt`.
    pub fn on_ack<V>(&mut self, rcv_nxt: u64, ooo: &BTreeMap<u64, V>) {
        let mut out = SackBlocks::default();
        let candidates = self.trigger.take().into_iter().chain(self.recent.iter().copied());
        for s in candidates {
            if s < rcv_nxt || !ooo.contains_key(&s) {
                continue; // now cumulatively acknowledged, or never held
            }
            let (start, end) = block_around(s, ooo);
            if out.as_slice().contains(&(start, end)) {
                continue;
            }
            if !out.push(start, end) {
                break;
            }
        }
        self.recent = out.as_slice().iter().map(|b| b.0).collect();
        self.queue.push_back(out);
    }

    /// Blocks for the oldest ACK not yet sent.
    pub fn pop(&mut self) -> SackBlocks {
        self.queue.pop_front().unwrap_or_default()
    }
}

/// The contiguous run of received segments `[start, end)` holding `s`.
fn block_around<V>(s: u64, ooo: &BTreeMap<u64, V>) -> (u64, u64) {
    let mut start = s;
    while start > 0 && ooo.contains_key(&(start - 1)) {
        start -= 1;
    }
    let mut end = s + 1;
    while ooo.contains_key(&end) {
        end += 1;
    }
    (start, end)
}

/// Sender window rules of RFC 6675. Which segments go out during recovery
/// (the pipe and NextSeg) is the scoreboard's and the sender's job; these
/// hooks only set cwnd and ssthresh and say when recovery ends.
#[derive(Clone, Debug, Default)]
pub struct Sack;

impl CongestionControl for Sack {
    /// RFC 6675 §5 (4.2): ssthresh = cwnd = FlightSize / 2 (at least two
    /// segments, RFC 5681 Eq. 4); no inflation: the pipe replaces it.
    fn on_fast_retransmit(&mut self, w: &mut Window, flight: u64, _dupthresh: u32) {
        w.set_ssthresh(halve(flight));
        w.set_cwnd(w.ssthresh());
    }

    /// RFC 6675 §5 (B): a duplicate ACK only updates the scoreboard.
    fn on_dupack_in_recovery(&mut self, _w: &mut Window) {}

    /// RFC 6675 §5 (A): a cumulative ACK beyond RecoveryPoint ends recovery,
    /// with cwnd left at ssthresh. A partial ACK keeps it going; NextSeg picks
    /// the retransmissions, and the timer restarts as for any new ACK
    /// (RFC 6298 (5.3); ns-2 Sack1 `newtimer` on each partial ACK).
    fn on_recovery_ack(&mut self, _w: &mut Window, ack: &AckInfo) -> RecoveryStep {
        if ack.full {
            RecoveryStep::Exit
        } else {
            RecoveryStep::Stay { retransmit: false, restart_timer: true }
        }
    }
}
