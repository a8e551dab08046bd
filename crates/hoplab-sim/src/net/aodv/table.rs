//! The AODV route table (RFC 3561 §2, §6.1, §6.2): destination sequence
//! numbers, the rules that decide when new information replaces old, and
//! precursor lists.

use super::msg::fresher;
use crate::time::SimTime;
use crate::wire::NodeId;
use std::cell::Cell;
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
    routes: BTreeMap<NodeId, Route>,
    /// The earliest `lifetime` of a route not under repair (`SimTime::MAX`
    /// for none), or None when unknown. AODV's timer asks for it after every
    /// packet and the table holds a route to every node whose request
    /// flooded past, so it is kept, not scanned: a change to one route
    /// updates it (`moved`), any other mutable access forgets it.
    expiry: Cell<Option<SimTime>>,
    /// A route under local repair keeps its hop count for `offer`: news
    /// with an equal sequence number must be shorter (ns-2 aodv.cc
    /// recvReply; only `rt_down` sets `rt_hops` to INFINITY2). Otherwise
    /// it counts as not valid (RFC 3561 §6.7).
    pub repair_keeps_hops: bool,
}

/// What a route contributes to `Table::next_expiry`.
fn expiry_of(r: Option<&Route>) -> SimTime {
    match r {
        Some(r) if r.state != State::Repairing => r.lifetime,
        _ => SimTime::MAX,
    }
}

impl Table {
    pub fn new(repair_keeps_hops: bool) -> Table {
        Table { repair_keeps_hops, ..Table::default() }
    }

    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst)
    }
    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.expiry.set(None);
        self.routes.get_mut(&dst)
    }

    pub fn routes(&self) -> impl Iterator<Item = &Route> {
        self.routes.values()
    }

    pub fn routes_mut(&mut self) -> impl Iterator<Item = &mut Route> {
        self.expiry.set(None);
        self.routes.values_mut()
    }

    pub fn remove(&mut self, dst: NodeId) -> Option<Route> {
        self.expiry.set(None);
        self.routes.remove(&dst)
    }

    /// The earliest expiry or deletion time of a route not under repair.
    pub fn next_expiry(&self) -> Option<SimTime> {
        let t = self.expiry.get().unwrap_or_else(|| {
            let t = self.routes.values().map(|r| expiry_of(Some(r))).min().unwrap_or(SimTime::MAX);
            self.expiry.set(Some(t));
            t
        });
        (t != SimTime::MAX).then_some(t)
    }

    /// One route's contribution went from `old` to `new`: the cached
    /// minimum stays exact unless the route held it and grew.
    fn moved(&self, old: SimTime, new: SimTime) {
        if let Some(c) = self.expiry.get() {
            self.expiry.set(if old == c && new > c { None } else { Some(c.min(new)) });
        }
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
        let old = expiry_of(self.routes.get(&dst));
        let changed = self.offer_inner(dst, seqno, hops, next_hop, lifetime, extend_only);
        self.moved(old, expiry_of(self.routes.get(&dst)));
        changed
    }

    fn offer_inner(&mut self, dst: NodeId, seqno: u32, hops: u8, next_hop: NodeId, lifetime: SimTime, extend_only: bool) -> bool {
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
        let old = expiry_of(self.routes.get(&nb));
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
        let new = r.lifetime;
        self.moved(old, new);
    }

    /// Mark a route invalid until `delete_at`. On a broken link the
    /// sequence number is incremented (§6.1, §6.11 cases (i) and (ii)).
    pub fn invalidate(&mut self, dst: NodeId, delete_at: SimTime, bump_seqno: bool) {
        let old = expiry_of(self.routes.get(&dst));
        if let Some(r) = self.routes.get_mut(&dst) {
            if bump_seqno && r.valid_seqno {
                r.seqno = r.seqno.wrapping_add(1);
            }
            if r.state != State::Invalid {
                r.last_hops = r.hops;
            }
            r.state = State::Invalid;
            r.lifetime = delete_at;
            self.moved(old, delete_at);
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
                let old = r.lifetime;
                r.lifetime = r.lifetime.max(until);
                r.used |= used;
                let new = r.lifetime;
                self.moved(old, new);
            }
        }
    }

    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId) {
        if let Some(r) = self.routes.get_mut(&dst) {
            r.precursors.insert(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_expiry_is_the_scanned_minimum() {
        let mut s = crate::rng::Stream::new(11, 0, crate::rng::Purpose::Topology);
        let mut t = Table::new(false);
        let at = |u: f64| SimTime::from_secs_f64(u * 100.0);
        for _ in 0..20_000 {
            let dst = (s.unit() * 12.0) as NodeId;
            match (s.unit() * 7.0) as u32 {
                0 => {
                    t.offer(dst, (s.unit() * 5.0) as u32, 1 + (s.unit() * 4.0) as u8, 0, at(s.unit()), s.unit() < 0.5);
                }
                1 => t.neighbor(dst, at(s.unit())),
                2 => t.invalidate(dst, at(s.unit()), true),
                3 => t.extend(dst, at(s.unit() * 0.5), at(s.unit()), true),
                4 => {
                    if let Some(r) = t.get_mut(dst) {
                        r.state = State::Repairing;
                    }
                }
                5 => {
                    t.remove(dst);
                }
                _ => {
                    let _ = t.next_expiry();
                }
            }
            let scan = t.routes().filter(|r| r.state != State::Repairing).map(|r| r.lifetime).min();
            assert_eq!(t.next_expiry(), scan);
        }
    }
}
