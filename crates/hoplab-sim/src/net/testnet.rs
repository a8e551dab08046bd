//! A test bench for routing state machines: nodes joined by ideal links
//! (no MAC, no collisions, a fixed per-hop delay) that the test can cut and
//! restore. It drives `Router`s exactly as the node does, so protocol tests
//! can run route discovery, maintenance and repair over a topology without
//! the radio.

use crate::net::routing::{RouteAction, RouteNote, Router};
use crate::net::DropReason;
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, UdpDatagram, BROADCAST};
use std::collections::BTreeMap;

pub struct TestNet {
    pub routers: Vec<Router>,
    /// `up[a][b]`: a frame from a reaches b.
    pub up: Vec<Vec<bool>>,
    pub now: SimTime,
    pub hop_delay: Dur,
    /// (time, seq) -> what happens then.
    pending: BTreeMap<(SimTime, u64), Ev>,
    seq: u64,
    /// Data packets that reached their destination: (time, node, packet).
    pub delivered: Vec<(SimTime, NodeId, Packet)>,
    pub drops: Vec<(SimTime, NodeId, DropReason, Packet)>,
    pub notes: Vec<(SimTime, NodeId, RouteNote)>,
    /// Every transmission: (time, sender, next hop, packet).
    pub sent: Vec<(SimTime, NodeId, NodeId, Packet)>,
    timers: Vec<Option<SimTime>>,
    next_uid: u64,
}

enum Ev {
    /// `unicast`: the sender's MAC expects an ACK (and gets one here).
    Arrive { to: NodeId, from: NodeId, packet: Packet, unicast: bool },
    Failed { at: NodeId, next_hop: NodeId, packet: Packet },
    Timer { node: NodeId },
    /// A promiscuous listener in range hears a unicast meant for `to`.
    Overhear { at: NodeId, from: NodeId, to: NodeId, packet: Packet },
}

impl TestNet {
    pub fn new(routers: Vec<Router>, up: Vec<Vec<bool>>) -> TestNet {
        let n = routers.len();
        let mut t = TestNet {
            routers,
            up,
            now: SimTime::ZERO,
            hop_delay: Dur::from_millis(1),
            pending: BTreeMap::new(),
            seq: 0,
            delivered: vec![],
            drops: vec![],
            notes: vec![],
            sent: vec![],
            timers: vec![None; n],
            next_uid: 0,
        };
        for i in 0..n {
            t.rearm(i as NodeId);
        }
        t
    }

    /// Nodes 0..n in a line, each linked to its neighbours.
    pub fn chain_links(n: usize) -> Vec<Vec<bool>> {
        (0..n).map(|a| (0..n).map(|b| a.abs_diff(b) == 1).collect()).collect()
    }

    pub fn set_link(&mut self, a: NodeId, b: NodeId, up: bool) {
        self.up[a as usize][b as usize] = up;
        self.up[b as usize][a as usize] = up;
    }

    /// A 512-byte UDP packet from `src` to `dst`, handed to `src`'s router now.
    pub fn send_data(&mut self, src: NodeId, dst: NodeId) -> u64 {
        self.next_uid += 1;
        let uid = self.next_uid;
        let p = Packet::new(uid, src, dst, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload: 512 }), self.now);
        let mut out = vec![];
        self.routers[src as usize].route(self.now, p, &mut out);
        self.apply(src, out);
        uid
    }

    fn push(&mut self, at: SimTime, ev: Ev) {
        self.seq += 1;
        self.pending.insert((at, self.seq), ev);
    }

    fn rearm(&mut self, n: NodeId) {
        let want = self.routers[n as usize].poll_timeout();
        if self.timers[n as usize] != want {
            self.timers[n as usize] = want;
            if let Some(t) = want {
                self.push(t.max(self.now), Ev::Timer { node: n });
            }
        }
    }

    fn apply(&mut self, me: NodeId, out: Vec<RouteAction>) {
        for a in out {
            match a {
                RouteAction::Send { next_hop, mut packet } => {
                    packet.mark_hop(me);
                    self.sent.push((self.now, me, next_hop, packet.clone()));
                    let at = self.now + self.hop_delay;
                    if next_hop == BROADCAST {
                        for b in 0..self.up.len() {
                            if self.up[me as usize][b] && b != me as usize {
                                self.push(at, Ev::Arrive { to: b as NodeId, from: me, packet: packet.clone(), unicast: false });
                            }
                        }
                    } else {
                        // Promiscuous listeners in range of the sender hear every unicast.
                        for b in 0..self.up.len() {
                            let b_id = b as NodeId;
                            if self.up[me as usize][b] && b_id != me && b_id != next_hop && self.routers[b].promiscuous() {
                                self.push(at, Ev::Overhear { at: b_id, from: me, to: next_hop, packet: packet.clone() });
                            }
                        }
                        if self.up[me as usize][next_hop as usize] {
                            self.push(at, Ev::Arrive { to: next_hop, from: me, packet, unicast: true });
                        } else {
                            // The MAC would retry for a while before giving up.
                            self.push(self.now + Dur(self.hop_delay.0 * 7), Ev::Failed { at: me, next_hop, packet });
                        }
                    }
                }
                RouteAction::Drop { packet, reason } => self.drops.push((self.now, me, reason, packet)),
                RouteAction::Reclaim { .. } => {} // no interface queue here
                RouteAction::RouteLost { .. } => {} // no agents here
                RouteAction::Note(n) => self.notes.push((self.now, me, n)),
            }
        }
        self.rearm(me);
    }

    /// Run events until `until`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some((&(t, s), _)) = self.pending.iter().next() {
            if t > until {
                break;
            }
            let ev = self.pending.remove(&(t, s)).unwrap();
            self.now = t;
            let mut out = vec![];
            match ev {
                Ev::Timer { node } => {
                    if self.timers[node as usize] != Some(t) {
                        continue;
                    }
                    self.timers[node as usize] = None;
                    self.routers[node as usize].handle_timeout(t, &mut out);
                    self.apply(node, out);
                }
                Ev::Overhear { at, from, to, packet } => {
                    self.routers[at as usize].overhear(t, from, to, &packet, &mut out);
                    self.apply(at, out);
                }
                Ev::Failed { at, next_hop, packet } => {
                    self.routers[at as usize].link_failed(t, next_hop, packet, &mut out);
                    self.apply(at, out);
                }
                Ev::Arrive { to, from, mut packet, unicast } => {
                    let uid = packet.uid;
                    let r = &mut self.routers[to as usize];
                    r.heard(t, from, &packet, &mut out);
                    if matches!(packet.body, Body::Routing(_)) {
                        r.receive(t, from, packet, &mut out);
                    } else if packet.dst == to {
                        r.delivered(t, from, &packet, &mut out);
                        self.delivered.push((t, to, packet));
                    } else {
                        packet.ttl = packet.ttl.saturating_sub(1);
                        if packet.ttl == 0 {
                            self.drops.push((t, to, DropReason::Ttl, packet));
                        } else {
                            r.route(t, packet, &mut out);
                        }
                    }
                    if unicast {
                        // The sender's MAC got its ACK; broadcasts get none (802.11 §9.2.7).
                        let mut ok = vec![];
                        self.routers[from as usize].tx_ok(t, to, uid, &mut ok);
                        self.apply(from, ok);
                    }
                    self.apply(to, out);
                }
            }
        }
        self.now = until;
    }

    pub fn delivered_uids(&self, node: NodeId) -> Vec<u64> {
        self.delivered.iter().filter(|d| d.1 == node).map(|d| d.2.uid).collect()
    }
}
