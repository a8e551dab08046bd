//! The link set (RFC 3626 §4.2.1) with the hysteresis fields of §14.1 and
//! the lost-link mark of link-layer notification (§13).
//!
//! A time field is "not expired" while it is later than now: setting it to
//! `now` expires it (the RFC's "current time - 1").

use super::msg::LinkType;
use crate::time::{Dur, SimTime};

#[derive(Clone, Debug)]
pub struct Link {
    pub sym_time: SimTime,
    pub asym_time: SimTime,
    /// L_time: when the tuple is removed.
    pub time: SimTime,
    /// L_LOST_LINK_time (§13, §14.1).
    pub lost_time: SimTime,
    /// L_link_pending (§14.1): not yet accepted by hysteresis.
    pub pending: bool,
    /// L_link_quality (§14.1).
    pub quality: f64,
    /// The neighbour's Htime from its last HELLO.
    pub htime: Dur,
    /// §14.3 "long silence": a packet is counted lost if none arrives by then.
    pub silence_deadline: SimTime,
    /// Last Packet Sequence Number heard, to count gaps as losses (§14.3).
    pub last_seq: Option<u16>,
    /// The link was marked lost by the MAC (§13), for the LinkBroken cause.
    pub mac_lost: bool,
}

/// Hysteresis parameters (§14.3, §18.7).
#[derive(Clone, Copy, Debug)]
pub struct Hyst {
    pub on: bool,
    pub high: f64,
    pub low: f64,
    pub scaling: f64,
}

impl Link {
    /// §7.1.1 step 1: a new tuple, not yet symmetric. §14.3: pending, with
    /// an expired L_LOST_LINK_time and quality 0 until the stability rule
    /// runs for the packet that created it.
    pub fn new(now: SimTime, vtime: Dur, hyst: &Hyst, htime: Dur) -> Link {
        Link {
            sym_time: now,
            asym_time: now,
            time: now + vtime,
            lost_time: now,
            pending: hyst.on,
            quality: 0.0,
            htime,
            silence_deadline: now + silence_after(htime),
            last_seq: None,
            mac_lost: false,
        }
    }

    /// §14.2 with §13: the link counts as symmetric (for N_status, MPR
    /// selection and routes) only when L_SYM_time is valid, the link is not
    /// marked lost and hysteresis has accepted it.
    pub fn is_sym(&self, now: SimTime) -> bool {
        self.sym_time > now && self.lost_time <= now && !self.pending
    }

    /// The link type a HELLO advertises (§6.2, §14.2), or None when a
    /// pending link must not be advertised at all.
    pub fn advertised_type(&self, now: SimTime) -> Option<LinkType> {
        if self.lost_time > now {
            Some(LinkType::Lost)
        } else if self.pending {
            None
        } else if self.sym_time > now {
            Some(LinkType::Sym)
        } else if self.asym_time > now {
            Some(LinkType::Asym)
        } else {
            Some(LinkType::Lost)
        }
    }

    /// §14.3 stability rule: a packet arrived from this neighbour.
    pub fn packet_received(&mut self, now: SimTime, hyst: &Hyst, neighb_hold: Dur) {
        self.silence_deadline = now + silence_after(self.htime);
        if hyst.on {
            self.quality = (1.0 - hyst.scaling) * self.quality + hyst.scaling;
            self.apply_thresholds(now, hyst, neighb_hold);
        }
    }

    /// §14.3 instability rule: a packet from this neighbour was lost.
    pub fn packet_lost(&mut self, now: SimTime, hyst: &Hyst, neighb_hold: Dur) {
        if hyst.on {
            self.quality *= 1.0 - hyst.scaling;
            self.apply_thresholds(now, hyst, neighb_hold);
        }
    }

    /// §14.3: accept above HYST_THRESHOLD_HIGH, drop below the low one,
    /// leave alone in between.
    fn apply_thresholds(&mut self, now: SimTime, hyst: &Hyst, neighb_hold: Dur) {
        if self.quality > hyst.high {
            self.pending = false;
            self.lost_time = now;
        } else if self.quality < hyst.low {
            self.pending = true;
            self.lost_time = self.time.min(now + neighb_hold);
        }
    }

    /// §14.3 long silence: nothing arrived by the silence deadline, so one
    /// packet is counted lost and the next is awaited one Htime later. The
    /// lost packet's sequence number is taken as accounted for, so that the
    /// gap the next packet reveals does not count the same packet a second
    /// time (§14.3 applies the instability rule once per lost packet; olsrd
    /// advances its expected sequence number on a HELLO timeout the same
    /// way). Counted twice, one missed HELLO from a neighbour that sends
    /// nothing else took the quality from 1 to 0.25 < HYST_THRESHOLD_LOW and
    /// dropped the link.
    pub fn silence_lost(&mut self, now: SimTime, hyst: &Hyst, neighb_hold: Dur) {
        self.silence_deadline += self.htime.max(Dur(1));
        if let Some(s) = self.last_seq.as_mut() {
            *s = s.wrapping_add(1);
        }
        self.packet_lost(now, hyst, neighb_hold);
    }

    /// Packet sequence gaps (§14.3): each skipped number is a lost packet.
    /// A jump of more than a few hundred is taken as a restart, not loss.
    pub fn check_seq(&mut self, now: SimTime, seq: u16, hyst: &Hyst, neighb_hold: Dur) {
        if let Some(last) = self.last_seq {
            let gap = seq.wrapping_sub(last).wrapping_sub(1);
            if gap > 0 && gap < 256 {
                for _ in 0..gap {
                    self.packet_lost(now, hyst, neighb_hold);
                }
            }
        }
        self.last_seq = Some(seq);
    }
}

/// §14.3 counts a packet lost when nothing arrives within the neighbour's
/// HELLO emission interval; the RFC leaves the tolerance open. Jitter only
/// shortens intervals, so we wait Htime and a quarter (the RFC's MAXJITTER
/// ratio) to absorb transmission delays.
pub fn silence_after(htime: Dur) -> Dur {
    Dur(htime.0 + htime.0 / 4)
}
