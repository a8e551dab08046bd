//! The routing interface every protocol implements, and the `Router` enum
//! the node holds.
//!
//! A protocol is a sans-IO state machine (GUIDE.md). The node hands it data
//! packets to route, control packets it received, what the MAC saw (frames
//! heard, overheard, delivered or failed) and timer expiries; it answers
//! with `RouteAction`s. A protocol without a route may keep a packet and
//! release it later through `Send`, so on-demand protocols need no fake
//! loopback route. Protocols never read the clock or the channel: time comes
//! in `now`, randomness from the `Stream` they are built with.

use crate::net::{aodv, aodv::Aodv, dsdv, dsdv::Dsdv, dsr, dsr::Dsr, olsr, olsr::Olsr, DropReason};
use serde::Serialize;
use crate::rng::{Purpose, Stream};
use crate::time::SimTime;
use std::sync::Arc;
use crate::wire::{NodeId, Packet};

pub use crate::net::static_route::{StaticRouter, StaticTable};

#[derive(Debug)]
pub enum RouteAction {
    /// Hand the packet to the link layer for `next_hop` (`BROADCAST` for a
    /// broadcast). Control packets go ahead of data in the interface queue.
    Send { next_hop: NodeId, packet: Packet },
    Drop { packet: Packet, reason: DropReason },
    /// Take every packet the interface queue holds for `next_hop` out of it
    /// and give them back through `Protocol::reclaimed`, where the protocol
    /// drops, re-routes or salvages them as its specification says.
    Reclaim { next_hop: NodeId },
    /// This node no longer has a route to `dst` (an own link failure, or a
    /// route error, removed it): the node gives local TCP senders whose peer
    /// is `dst` an explicit link failure notification (ELFN, tcp/elfn.rs).
    /// AODV and DSR emit it; static routing, OLSR and DSDV do not.
    RouteLost { dst: NodeId },
    /// A measurement event; changes nothing in the simulation.
    Note(RouteNote),
}

/// What a protocol reports for the measurements (issue 3 §7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RouteNote {
    /// The protocol declared the link to `neighbor` broken. The node checks
    /// whether the neighbour was in range then (a false failure if so).
    LinkBroken { neighbor: NodeId, cause: LinkCause },
    /// An on-demand route discovery for `dst` started (first request only,
    /// not retries) ...
    DiscoveryStarted { dst: NodeId },
    /// ... and ended with a route to `dst`.
    DiscoveryDone { dst: NodeId },
    /// A discovery for `dst` gave up (retries exhausted).
    DiscoveryFailed { dst: NodeId },
    /// A route error was originated (not forwarded) by this node.
    RouteErrorSent,
    /// DSR salvaged a packet onto another route.
    Salvaged,
}

/// How a link failure was detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkCause {
    /// The MAC exhausted its retries (link-layer feedback).
    MacFeedback,
    /// HELLO messages stopped arriving (AODV HELLO, OLSR link sensing).
    HelloLoss,
    /// No passive or network-layer acknowledgement (DSR).
    NoAck,
    /// A route error from another node named the link.
    #[allow(dead_code)]
    RouteError,
}

impl LinkCause {
    pub fn name(self) -> &'static str {
        match self {
            LinkCause::MacFeedback => "mac",
            LinkCause::HelloLoss => "hello",
            LinkCause::NoAck => "no_ack",
            LinkCause::RouteError => "rerr",
        }
    }
}

/// The inputs every routing protocol accepts. Default methods ignore the
/// input, so a protocol implements only what its specification uses.
pub trait Protocol {
    /// A data packet this node originates (`packet.src == me`) or forwards
    /// (the node has already decremented the TTL).
    fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>);

    /// A routing control packet (`Body::Routing`) the MAC delivered to us,
    /// unicast or broadcast; `from` is the transmitting neighbour. The
    /// protocol handles its own forwarding and TTL for control packets.
    fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>);

    /// Any packet the MAC delivered to us from `from` (data or control),
    /// before it is processed: evidence that `from` is a live neighbour.
    fn heard(&mut self, _now: SimTime, _from: NodeId, _packet: &Packet, _out: &mut Vec<RouteAction>) {}

    /// A data packet arrived at its destination, this node (DSR may reply
    /// gratuitously or learn the route it carries).
    fn delivered(&mut self, _now: SimTime, _from: NodeId, _packet: &Packet, _out: &mut Vec<RouteAction>) {}

    /// Promiscuous mode: a unicast data frame from `from` to `to` that was
    /// not for us. Only called when `promiscuous()` is true.
    fn overhear(&mut self, _now: SimTime, _from: NodeId, _to: NodeId, _packet: &Packet, _out: &mut Vec<RouteAction>) {}

    /// Whether the MAC should pass up frames addressed to others.
    fn promiscuous(&self) -> bool {
        false
    }

    /// The MAC got an ACK from `next_hop` for the unicast frame carrying
    /// packet `uid`.
    fn tx_ok(&mut self, _now: SimTime, _next_hop: NodeId, _uid: u64, _out: &mut Vec<RouteAction>) {}

    /// The MAC gave up on `packet` to `next_hop` (link-layer feedback). The
    /// node has already counted a RET drop, as ns-2 does; the packet is
    /// handed over for salvaging.
    fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>);

    /// Packets taken out of the interface queue after `Reclaim { next_hop }`.
    /// By default they are dropped as CBK (ns-2's callback drop).
    fn reclaimed(&mut self, _now: SimTime, _next_hop: NodeId, packets: Vec<Packet>, out: &mut Vec<RouteAction>) {
        for packet in packets {
            out.push(RouteAction::Drop { packet, reason: DropReason::Cbk });
        }
    }

    /// The earliest time the protocol wants `handle_timeout` called.
    fn poll_timeout(&self) -> Option<SimTime>;

    /// Called at (or after) the time `poll_timeout` gave.
    fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>);

    /// Whether the protocol currently has a route to `dst` (measurements).
    fn has_route(&self, now: SimTime, dst: NodeId) -> bool;
}

/// A routing protocol with every parameter resolved (scenario/routing.rs
/// applies the preset and the user's table).
#[derive(Debug, Clone, PartialEq)]
pub enum RoutingConfig {
    Static,
    Aodv(aodv::AodvConfig),
    Dsr(dsr::DsrConfig),
    Olsr(olsr::OlsrConfig),
    Dsdv(dsdv::DsdvConfig),
}

impl RoutingConfig {
    /// The protocol's name and its parameters as a table (what
    /// `[routing.<name>]` would say); `None` for static routing.
    pub fn table(&self) -> Option<(&'static str, toml::Table)> {
        fn t<C: Serialize>(c: &C) -> toml::Table {
            toml::Table::try_from(c).expect("a config serialises to a table")
        }
        match self {
            RoutingConfig::Static => None,
            RoutingConfig::Aodv(c) => Some(("aodv", t(c))),
            RoutingConfig::Dsr(c) => Some(("dsr", t(c))),
            RoutingConfig::Olsr(c) => Some(("olsr", t(c))),
            RoutingConfig::Dsdv(c) => Some(("dsdv", t(c))),
        }
    }
}

/// Every routing protocol the node can run (enum dispatch: no vtable on
/// the per-packet path).
pub enum Router {
    Static(StaticRouter),
    Aodv(Box<Aodv>),
    Dsr(Box<Dsr>),
    Olsr(Box<Olsr>),
    Dsdv(Box<Dsdv>),
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Router::Static($r) => $e,
            Router::Aodv($r) => $e,
            Router::Dsr($r) => $e,
            Router::Olsr($r) => $e,
            Router::Dsdv($r) => $e,
        }
    };
}

impl Router {
    /// The router of node `id` for a resolved routing configuration; its
    /// randomness is the node's routing stream.
    pub fn new(cfg: &RoutingConfig, id: NodeId, seed: u64, table: &Arc<StaticTable>) -> Router {
        let rng = Stream::new(seed, id, Purpose::Routing);
        match cfg {
            RoutingConfig::Static => Router::Static(StaticRouter::new(id, table.clone())),
            RoutingConfig::Aodv(c) => Router::Aodv(Box::new(Aodv::new(id, c, rng))),
            RoutingConfig::Dsr(c) => Router::Dsr(Box::new(Dsr::new(id, c, rng))),
            RoutingConfig::Olsr(c) => Router::Olsr(Box::new(Olsr::new(id, c, rng))),
            RoutingConfig::Dsdv(c) => Router::Dsdv(Box::new(Dsdv::new(id, c, rng))),
        }
    }

    pub fn route(&mut self, now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.route(now, packet, out))
    }
    pub fn receive(&mut self, now: SimTime, from: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.receive(now, from, packet, out))
    }
    pub fn heard(&mut self, now: SimTime, from: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.heard(now, from, packet, out))
    }
    pub fn delivered(&mut self, now: SimTime, from: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.delivered(now, from, packet, out))
    }
    pub fn overhear(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: &Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.overhear(now, from, to, packet, out))
    }
    pub fn promiscuous(&self) -> bool {
        dispatch!(self, r => r.promiscuous())
    }
    pub fn tx_ok(&mut self, now: SimTime, next_hop: NodeId, uid: u64, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.tx_ok(now, next_hop, uid, out))
    }
    pub fn link_failed(&mut self, now: SimTime, next_hop: NodeId, packet: Packet, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.link_failed(now, next_hop, packet, out))
    }
    pub fn reclaimed(&mut self, now: SimTime, next_hop: NodeId, packets: Vec<Packet>, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.reclaimed(now, next_hop, packets, out))
    }
    /// Whether `poll_timeout` can ever give a time: static routes never do.
    pub fn has_timers(&self) -> bool {
        !matches!(self, Router::Static(_))
    }
    pub fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, r => r.poll_timeout())
    }
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<RouteAction>) {
        dispatch!(self, r => r.handle_timeout(now, out))
    }
    pub fn has_route(&self, now: SimTime, dst: NodeId) -> bool {
        dispatch!(self, r => r.has_route(now, dst))
    }
}
