//! The AODV route table (RFC 3561 §2, §6.1, §6.2): destination sequence
//! numbers, the rules that decide when new information replaces old, and
//! precursor lists.

use super::msg::fresher;
use crate::time::SimTime;
use crate::wire::NodeId;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// An active route: may forward data until `lifetime`.
    Valid,
    /// Kept until `lifetime` (DELETE_PERIOD) for its sequence number and
    /// hop count (§6.11, §6.4).
    Invalid,
    /// A local repair is under way (§6.12): data is buffered, not dropped.
    Repairing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub dst: NodeId,
    pub seqno: u32,
    /// The "valid destination sequence number" flag.
    pub valid_seqno: bool,
    pub state: State,
    pub hops: u8,
    pub next_hop: NodeId,
    /// Neighbours that may forward through us toward `dst` (§6.2).
    pub precursors: BTreeSet<NodeId>,
    /// Expiry when valid, deletion time when invalid.
    pub lifetime: SimTime,
    /// Carried data since it last became valid: the node is "part of an
    /// active route" (§6.9).
    pub used: bool,
    /// The hop count when the route last went from usable to invalid;
    /// `NEVER_DOWN` until then (ns-2 aodv_rtable.cc `rt_last_hop_count`,
    /// initialised to INFINITY2 and set by `rt_down`). Read only by the
    /// ns2 discovery rule.
    pub last_hops: u8,
}

/// ns-2's INFINITY2 (aodv_rtable.h): the last hop count of a route that
/// never went down.
pub const NEVER_DOWN: u8 = 0xff;

#[derive(Debug, Default)]
pub struct Table {
    pub routes: BTreeMap<NodeId, Route>,
    /// A route under local repair keeps its hop count for `offer`: news
    /// with an equal sequence number must be shorter (ns-2 aodv.cc
    /// recvReply; only `rt_down` sets `rt_hops` to INFINITY2). Otherwise
    /// it counts as not valid (RFC 3561 §6.7).
    pub repair_keeps_hops: bool,
}

impl Table {
    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst)
    }
    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.routes.get_mut(&dst)
    }

    /// A valid, unexpired route.
    pub fn valid(&self, dst: NodeId, now: SimTime) -> Option<&Route> {
        self.routes.get(&dst).filter(|r| r.state == State::Valid && r.lifetime > now)
    }

    /// Offer a route with a known sequence number. It replaces the entry
    /// when the entry has no valid sequence number, when `seqno` is fresher,
    /// or when it is equal and the entry is not valid or `hops` is smaller
    /// (§6.2, §6.7 (i)-(iv)); stale information is discarded (§6.1).
    /// `lifetime` is the new expiry; with `extend_only` an entry keeps a
    /// later expiry it already had (§6.5 reverse routes). Returns whether
    /// the table changed.
    pub fn offer(
        &mut self,
        dst: NodeId,
        seqno: u32,
        hops: u8,
        next_hop: NodeId,
        lifetime: SimTime,
        extend_only: bool,
    ) -> bool {
        match self.routes.get_mut(&dst) {
            None => {
                self.routes.insert(
                    dst,
                    Route {
                        dst,
                        seqno,
                        valid_seqno: true,
                        state: State::Valid,
                        hops,
                        next_hop,
                        precursors: BTreeSet::new(),
                        lifetime,
                        used: false,
                        last_hops: NEVER_DOWN,
                    },
                );
                true
            }
            Some(r) => {
                let usable = match r.state {
                    State::Valid => true,
                    State::Repairing => self.repair_keeps_hops,
                    State::Invalid => false,
                };
                let better =
                    !r.valid_seqno || fresher(seqno, r.seqno) || (seqno == r.seqno && (!usable || hops < r.hops));
                if !better {
                    return false;
                }
                let keep = extend_only && r.state == State::Valid && r.lifetime > lifetime;
                if r.state != State::Valid {
                    r.used = false;
                }
                r.seqno = seqno;
                r.valid_seqno = true;
                r.state = State::Valid;
                r.hops = hops;
                r.next_hop = next_hop;
                if !keep {
                    r.lifetime = lifetime;
                }
                true
            }
        }
    }

    /// The route to a neighbour we just heard from, learned without a
    /// sequence number (§6.5, §6.7: "without a valid sequence number").
    /// The entry keeps its sequence number; its expiry only grows.
    pub fn neighbor(&mut self, nb: NodeId, lifetime: SimTime) {
        let r = self.routes.entry(nb).or_insert_with(|| Route {
            dst: nb,
            seqno: 0,
            valid_seqno: false,
            state: State::Invalid,
            hops: 1,
            next_hop: nb,
            precursors: BTreeSet::new(),
            lifetime,
            used: false,
            last_hops: NEVER_DOWN,
        });
        if r.state != State::Valid {
            r.used = false;
            r.lifetime = lifetime;
        } else {
            r.lifetime = r.lifetime.max(lifetime);
        }
        r.state = State::Valid;
        r.hops = 1;
        r.next_hop = nb;
    }

    /// Mark a route invalid until `delete_at`. On a broken link the
    /// sequence number is incremented (§6.1, §6.11 cases (i) and (ii)).
    pub fn invalidate(&mut self, dst: NodeId, delete_at: SimTime, bump_seqno: bool) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if bump_seqno && r.valid_seqno {
                r.seqno = r.seqno.wrapping_add(1);
            }
            if r.state != State::Invalid {
                r.last_hops = r.hops;
            }
            r.state = State::Invalid;
            r.lifetime = delete_at;
        }
    }

    /// Valid or repairing destinations whose next hop is `nb`, ascending.
    pub fn via(&self, nb: NodeId) -> Vec<NodeId> {
        self.routes
            .values()
            .filter(|r| r.state != State::Invalid && r.next_hop == nb)
            .map(|r| r.dst)
            .collect()
    }

    /// Extend a valid route's expiry to at least `until`; `used` marks it
    /// as carrying data (§6.2: routes in use).
    pub fn extend(&mut self, dst: NodeId, now: SimTime, until: SimTime, used: bool) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if r.state == State::Valid && r.lifetime > now {
                r.lifetime = r.lifetime.max(until);
                r.used |= used;
            }
        }
    }

    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId) {
        if let Some(r) = self.routes.get_mut(&dst) {
            r.precursors.insert(p);
        }
    }
}
