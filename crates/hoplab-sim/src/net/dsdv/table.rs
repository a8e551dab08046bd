//! The DSDV route table entry (ns-2 `rtable_ent`, dsdv/rtable.h).

use crate::time::SimTime;
use crate::wire::NodeId;

/// The infinite metric of a broken route (ns-2 rtable.h `BIG`).
pub const INFINITY: u32 = 250;

#[derive(Clone, Debug, PartialEq)]
pub struct RouteEntry {
    pub dst: NodeId,
    pub next_hop: NodeId,
    /// Hops; `INFINITY` when broken or not yet known.
    pub metric: u32,
    /// Even: originated by the destination. Odd: a node that lost the
    /// route added 1 (paper §III-C).
    pub seqno: u32,
    /// Not advertised before this time (settling, paper §III-E).
    pub advertise_ok_at: SimTime,
    /// A new sequence number still to be advertised (once).
    pub advert_seqno: bool,
    /// A changed metric still to be advertised (until the next full dump).
    pub advert_metric: bool,
    /// When this entry's triggered update is due.
    pub trigger_at: Option<SimTime>,
    /// The metric we advertised last for this destination.
    pub last_advertised_metric: u32,
    /// When the route was last installed (ns-2 `changed_at`).
    pub changed_at: SimTime,
    /// When the current sequence number was first heard.
    pub new_seqno_at: SimTime,
    /// Weighted settling time in seconds (ns-2 `wst`).
    pub settling_s: f64,
}

impl RouteEntry {
    pub fn is_valid(&self) -> bool {
        self.metric < INFINITY
    }

    /// An entry with every field zero, like ns-2's `bzero(&rte, ...)`.
    pub(super) fn blank(dst: NodeId) -> RouteEntry {
        RouteEntry {
            dst,
            next_hop: dst,
            metric: 0,
            seqno: 0,
            advertise_ok_at: SimTime::ZERO,
            advert_seqno: false,
            advert_metric: false,
            trigger_at: None,
            last_advertised_metric: 0,
            changed_at: SimTime::ZERO,
            new_seqno_at: SimTime::ZERO,
            settling_s: 0.0,
        }
    }
}

/// Whether an advertised (seqno, metric) replaces the installed one, as the
/// paper's rule (§III-B) and ns-2 `processUpdate` apply it: a newer sequence
/// number always wins, whatever its metric; at equal sequence numbers only
/// a strictly lower metric wins; an older one never does.
#[cfg_attr(not(test), allow(dead_code))]
pub fn better(new_seqno: u32, new_metric: u32, old_seqno: u32, old_metric: u32) -> bool {
    new_seqno > old_seqno || (new_seqno == old_seqno && new_metric < old_metric)
}
