//! The SACK sender's scoreboard and RFC 6675's IsLost, SetPipe and
//! NextSeg, in segments: RFC 6675's octet ranges become segment numbers, one
//! segment being SMSS, so "more than (DupThresh - 1) * SMSS bytes SACKed
//! above" is "at least DupThresh segments SACKed above".
//!
//! Names follow RFC 6675 §2: HighACK + 1 is `base` (snd_una), HighData + 1
//! is the sender's snd_max, passed in where needed.

use std::collections::VecDeque;

use crate::wire::SackBlocks;

/// What NextSeg (RFC 6675 §4) says to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit this segment (rules 1 and 3).
    Retransmit(u64),
    /// Send the next new segment (rule 2).
    NewData,
}

/// SACKed bits of the segments from snd_una up, and the recovery marks.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// First segment not cumulatively acknowledged (HighACK + 1).
    base: u64,
    /// `sacked[i]`: segment `base + i` was SACKed; segments past the end are not.
    sacked: VecDeque<bool>,
    dupthresh: u64,
    /// HighRxt: the highest segment retransmitted in this recovery phase.
    high_rxt: Option<u64>,
}

impl Scoreboard {
    pub fn new(dupthresh: u32) -> Scoreboard {
        Scoreboard { base: 0, sacked: VecDeque::new(), dupthresh: dupthresh.max(1) as u64, high_rxt: None }
    }

    /// A connection whose first segment is `seq` (app/www.rs numbers each
    /// download's segments from its own base).
    pub fn starting_at(mut self, seq: u64) -> Scoreboard {
        self.base = seq;
        self
    }

    /// RFC 6675 §4 Update(): record a cumulative ACK of `ackno` and the
    /// blocks of the ACK, clipped to what was sent (below `snd_max`).
    /// Returns whether it SACKed a segment not SACKed before (RFC 6675 §2
    /// DupAck condition (b); ns-2 `CheckUpdate`).
    pub fn update(&mut self, ackno: u64, blocks: &SackBlocks, snd_max: u64) -> bool {
        while self.base < ackno {
            self.sacked.pop_front();
            self.base += 1;
        }
        let mut news = false;
        for &(start, end) in blocks.as_slice() {
            for s in start.max(self.base)..end.min(snd_max) {
                let i = (s - self.base) as usize;
                if i >= self.sacked.len() {
                    self.sacked.resize(i + 1, false);
                }
                if !self.sacked[i] {
                    self.sacked[i] = true;
                    news = true;
                }
            }
        }
        news
    }

    /// Forget every SACKed bit (after a retransmission timeout: RFC 2018
    /// §5.1, and ns-2 Sack1 `ClearScoreBoard`).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.high_rxt = None;
    }

    pub fn is_sacked(&self, s: u64) -> bool {
        s >= self.base && self.sacked.get((s - self.base) as usize).copied().unwrap_or(false)
    }

    /// Segments SACKed above `s`.
    fn sacked_above(&self, s: u64) -> u64 {
        let from = (s + 1).saturating_sub(self.base) as usize;
        self.sacked.iter().skip(from).filter(|&&b| b).count() as u64
    }

    /// RFC 6675 §4 IsLost(): at least DupThresh segments SACKed above `s`.
    pub fn is_lost(&self, s: u64) -> bool {
        self.sacked_above(s) >= self.dupthresh
    }

    /// The highest SACKed segment, if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.iter().rposition(|&b| b).map(|i| self.base + i as u64)
    }

    /// RFC 6675 §5 (4.3): loss recovery begins with the retransmission of
    /// `snd_una`, which becomes HighRxt.
    pub fn enter_recovery(&mut self, snd_una: u64) {
        self.high_rxt = Some(snd_una);
    }

    #[cfg(test)]
    pub fn high_rxt(&self) -> Option<u64> {
        self.high_rxt
    }

    /// RFC 6675 §4 SetPipe(): over the unSACKed segments in
    /// [HighACK + 1, HighData], one for each not deemed lost (a) and one
    /// more for each retransmitted in this recovery (b).
    pub fn pipe(&self, snd_max: u64) -> u64 {
        let mut above = 0; // SACKed segments above s, walking down
        let mut pipe = 0;
        for s in (self.base..snd_max).rev() {
            if self.is_sacked(s) {
                above += 1;
                continue;
            }
            if above < self.dupthresh {
                pipe += 1; // (a) !IsLost(s)
            }
            if self.high_rxt.is_some_and(|h| s <= h) {
                pipe += 1; // (b) s <= HighRxt
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg(), rules 1-3 (no rescue retransmission, rule 4,
    /// which is a MAY and which ns-2 Sack1 does not have either).
    /// `new_data`: an unsent segment exists and the receiver's window admits
    /// it. A retransmission it returns becomes HighRxt (RFC 6675 §5 (C.2)).
    pub fn next_seg(&mut self, new_data: bool) -> Option<NextSeg> {
        // Rules 1 and 3 both take the smallest unSACKed segment above HighRxt
        // and below the highest SACKed one: IsLost(s) implies IsLost of every
        // segment below s, so if that one is not lost, none is.
        let from = self.high_rxt.map_or(self.base, |h| (h + 1).max(self.base));
        let hole = self.high_sacked().and_then(|top| (from..top).find(|&s| !self.is_sacked(s)));
        let s = match hole {
            Some(s) if self.is_lost(s) => s, // rule 1
            _ if new_data => return Some(NextSeg::NewData), // rule 2
            Some(s) => s, // rule 3
            None => return None,
        };
        self.high_rxt = Some(s);
        Some(NextSeg::Retransmit(s))
    }
}
