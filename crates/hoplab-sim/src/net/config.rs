//! The network layer's own `[link]` (ARP) and `[lred]` tables; each routing
//! protocol's parameters are in its own `config.rs`, and the resolved choice
//! of one is `routing::RoutingConfig`.

use serde::{Deserialize, Serialize};

/// LRED (Fu et al., INFOCOM 2003), as seed 001 §5.5 ran it: each node keeps
/// an EWMA of MAC retransmissions per packet and marks CE on ECN-capable
/// packets with a probability that rises from 0 at `min_th` to `max_p` at
/// `max_th` (net/lred.rs documents the defaults).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Lred {
    pub enabled: bool,
    /// Average retransmissions per packet where marking starts.
    pub min_th: f64,
    /// Average retransmissions per packet where the probability reaches `max_p`.
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight of each new packet's retransmission count.
    pub weight: f64,
}

impl Default for Lred {
    fn default() -> Self {
        let d = super::lred::LredParams::default();
        Lred { enabled: false, min_th: d.min_th, max_th: d.max_th, max_p: d.max_p, weight: d.weight }
    }
}

/// `[link]`: the layer between routing and the interface queue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Link {
    /// ARP behaviour: "ns2" keeps one packet per unresolved address and drops
    /// the older (seed 002 §8.1.2), sends a request for every packet and
    /// fails the fourth to routing (ns-2 arp.cc); "queue" holds up to
    /// `arp_queue_limit` and asks once a second (RFC 1122); "off" resolves
    /// instantly.
    pub arp: ArpKind,
    pub arp_queue_limit: u32,
    /// ns-2 LL delay_ (mac/ll.cc LL::sendDown, LL::sendUp), µs: a packet
    /// routing sends reaches the interface queue this long later, and one
    /// the MAC receives reaches routing this long later (node.rs
    /// `LinkDelay`). 0: none.
    pub delay_us: f64,
    /// What routing sends while handling a failed transmission waits until
    /// the MAC has taken its next frame from the queue (ns-2's order).
    pub refill_before_failure_sends: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArpKind {
    Ns2,
    Queue,
    Off,
}

impl Default for Link {
    fn default() -> Self {
        Link { arp: ArpKind::Off, arp_queue_limit: 16, delay_us: 0.0, refill_before_failure_sends: false }
    }
}
