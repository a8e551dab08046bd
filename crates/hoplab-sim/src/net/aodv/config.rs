//! AODV parameters (RFC 3561 §10), the switches for its options, and the
//! presets the seeds use.

use crate::time::Dur;
use crate::net::check::Invalid;
use serde::{Deserialize, Serialize};

/// How a broken link to a next hop is noticed (RFC 3561 §6.10; seed 000
/// §4.2 calls the two variants AODV-LL and AODV-HELLO).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkDetection {
    /// HELLO messages (§6.9): a neighbour is lost after
    /// ALLOWED_HELLO_LOSS * HELLO_INTERVAL without hearing from it.
    Hello,
    /// The MAC's report that a unicast exhausted its retries (§6.10).
    LinkLayer,
    /// Both.
    Both,
}

impl LinkDetection {
    pub fn hello(self) -> bool {
        matches!(self, LinkDetection::Hello | LinkDetection::Both)
    }
    pub fn link_layer(self) -> bool {
        matches!(self, LinkDetection::LinkLayer | LinkDetection::Both)
    }
}

/// How route discovery is paced: when a RREQ is (re)sent, with which TTL,
/// how long the node waits before the next, and when it gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscoveryRule {
    /// RFC 3561 §6.3-6.4: a timer per discovery; expanding ring from
    /// TTL_START (or the lost route's hop count + TTL_INCREMENT), waits of
    /// RING_TRAVERSAL_TIME, then NET_TRAVERSAL_TIME doubled per retry.
    Rfc3561,
    /// ns-2.35 `AODV::sendRequest` (aodv.cc): no retry timer. A RREQ goes
    /// out when the source has a new packet for the destination or the
    /// route sweep (`route_sweep_s`, `rt_purge`) finds packets waiting, once
    /// the previous RREQ's wait is over. The TTL follows the route entry's
    /// last TTL and last hop count (TTL_START only when both are 0, so a
    /// never-reached destination, whose last hop count is ns-2's INFINITY2,
    /// is sought network-wide at once); the wait is 2 * TTL * the mean
    /// measured per-hop discovery latency of the last 3 discoveries
    /// (`PerHopTime`; NODE_TRAVERSAL_TIME before any), times the number of
    /// network-wide RREQs, at most `max_rreq_timeout_s`. After
    /// `rreq_retries` + 1 network-wide RREQs the next attempt drops the
    /// waiting packets and holds off for `max_rreq_timeout_s`.
    Ns2,
}

/// What a node does when the MAC gives up on a unicast (link-layer
/// detection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkFailureRule {
    /// RFC 3561 §6.11-6.12 as hoplab reads it: any failed unicast on an
    /// active route breaks the link; routes with precursors are repaired
    /// locally (`local_repair`), the rest invalidated; RERR to the
    /// precursors; the queued packets for the neighbour are taken back, the
    /// node's own re-routed, the others dropped.
    Rfc3561,
    /// ns-2.35 `AODV::rt_ll_failed` (aodv.cc): only data packets count; a
    /// packet that has come more hops than remain to its destination
    /// (`num_forwards > rt_hops`) starts a local repair of that route alone
    /// (when `local_repair`), buffered, no RERR, nothing else touched;
    /// otherwise it is dropped with every queued packet for the neighbour
    /// (the node's own included), every route through the neighbour goes
    /// down and one RERR is broadcast at once. A received RERR also drops
    /// the queued packets for its sender (`recvError`). A route in repair
    /// keeps its hop count, so a reply with an equal sequence number
    /// replaces it only when shorter (`recvReply`): a neighbour whose own
    /// route runs through the repairing node cannot loop it back.
    Ns2,
}

/// The lifetimes of routes learned from a RREQ or granted by a
/// destination, and of the RREQ-ID cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifetimes {
    /// RFC 3561 §6.5, §6.6.1, §10: a reverse route lives at least
    /// 2 * NET_TRAVERSAL_TIME - 2 * hops * NODE_TRAVERSAL_TIME, a
    /// destination grants MY_ROUTE_TIMEOUT = 2 * ACTIVE_ROUTE_TIMEOUT, RREQ
    /// IDs are kept PATH_DISCOVERY_TIME.
    Rfc3561,
    /// ns-2 aodv.h: REV_ROUTE_LIFE 6 s (every RREQ from the originator
    /// extends it), MY_ROUTE_TIMEOUT 10 s, BCAST_ID_SAVE 6 s.
    Ns2,
}

/// ns-2 aodv.h REV_ROUTE_LIFE, MY_ROUTE_TIMEOUT and BCAST_ID_SAVE.
pub(crate) const NS2_REV_ROUTE_LIFE: Dur = Dur::from_millis(6000);
const NS2_MY_ROUTE_TIMEOUT: Dur = Dur::from_millis(10_000);
const NS2_BCAST_ID_SAVE: Dur = Dur::from_millis(6000);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AodvConfig {
    /// Link-failure detection: "hello", "link_layer" or "both".
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL (s).
    pub hello_interval_s: f64,
    /// ALLOWED_HELLO_LOSS.
    pub allowed_hello_loss: u32,
    /// Each HELLO period is HELLO_INTERVAL plus a uniform draw in
    /// [-this/2, this/2] (AODV-UU hello_jitter(): JITTER_INTERVAL 100 ms).
    pub hello_jitter_s: f64,
    /// Extra time a neighbour is given beyond ALLOWED_HELLO_LOSS *
    /// HELLO_INTERVAL before it is declared lost (AODV-UU HELLO_DELAY 50 ms,
    /// "the extra time we should allow a hello message to take"). Without
    /// it a single lost HELLO whose successor is a little late is taken for
    /// two.
    pub hello_loss_slack_s: f64,
    /// Send HELLOs even when the node is not part of an active route.
    /// RFC 3561 §6.9 says a node SHOULD only send them when it is;
    /// AODV-UU and ns-2 send them always.
    pub hello_always: bool,
    /// Any packet from a neighbour proves the link (RFC 3561 §6.9). When
    /// false, only AODV messages do (AODV-UU, seed 000 §4.2).
    pub data_counts_as_hello: bool,
    /// ACTIVE_ROUTE_TIMEOUT (s). MY_ROUTE_TIMEOUT is twice this.
    pub active_route_timeout_s: f64,
    /// K in DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
    pub delete_period_k: u32,
    /// NET_DIAMETER (hops).
    pub net_diameter: u8,
    /// NODE_TRAVERSAL_TIME (s). NET_TRAVERSAL_TIME = 2 * this * NET_DIAMETER,
    /// PATH_DISCOVERY_TIME = 2 * NET_TRAVERSAL_TIME.
    pub node_traversal_time_s: f64,
    /// TIMEOUT_BUFFER in RING_TRAVERSAL_TIME.
    pub timeout_buffer: u32,
    /// Use the expanding ring search of §6.4; otherwise every RREQ goes
    /// NET_DIAMETER hops.
    pub expanding_ring: bool,
    /// TTL_START.
    pub ttl_start: u8,
    /// TTL_INCREMENT.
    pub ttl_increment: u8,
    /// TTL_THRESHOLD.
    pub ttl_threshold: u8,
    /// RREQ_RETRIES: extra attempts at TTL = NET_DIAMETER after the first.
    pub rreq_retries: u32,
    /// RERR_RATELIMIT: RERRs originated per second at most.
    pub rerr_ratelimit: u32,
    /// Local repair of §6.12.
    pub local_repair: bool,
    /// MAX_REPAIR_TTL (0.3 * NET_DIAMETER).
    pub max_repair_ttl: u8,
    /// LOCAL_ADD_TTL.
    pub local_add_ttl: u8,
    /// Set the 'G' flag in our RREQs so intermediate repliers also send a
    /// gratuitous RREP to the destination (§6.6.3).
    pub gratuitous_rrep: bool,
    /// Set the 'D' flag in our RREQs: only the destination answers (§5.1).
    pub destination_only: bool,
    /// Blacklist a neighbour whose RREP transmission failed (the MAC gave
    /// up on it) and ignore its RREQs for BLACKLIST_TIMEOUT: a
    /// unidirectional link (§6.8).
    pub blacklist: bool,
    /// Packets buffered while routes are discovered (all destinations
    /// together; ns-2 AODV_RTQ_MAX_LEN = 64). The oldest goes when full.
    pub buffer_packets: usize,
    /// How long a packet may wait for a route (ns-2 AODV_RTQ_TIMEOUT 30 s).
    pub buffer_timeout_s: f64,
    /// Broadcast AODV messages are delayed by a uniform draw in
    /// [0, this] (ns-2 and AODV-UU jitter broadcasts by up to 10 ms).
    pub broadcast_jitter_s: f64,
    /// Jitter the RREQs and link-failure RERRs the node originates too.
    /// ns-2 jitters only rebroadcast RREQs and relayed RERRs (aodv.cc
    /// `sendRequest`, `handle_link_failure` send at once).
    pub jitter_originated: bool,
    /// Route discovery pacing: "rfc3561" or "ns2" (see `DiscoveryRule`).
    pub discovery: DiscoveryRule,
    /// ns2 discovery: the longest RREQ wait and the hold-off after the
    /// retries are spent (ns-2 MAX_RREQ_TIMEOUT 10 s).
    pub max_rreq_timeout_s: f64,
    /// ns2 discovery: period of the route sweep that re-sends RREQs for
    /// waiting packets (ns-2 `RouteCacheTimer`, 0.5 s from time 0).
    pub route_sweep_s: f64,
    /// Reaction to a failed unicast: "rfc3561" or "ns2" (see `LinkFailureRule`).
    pub link_failure: LinkFailureRule,
    /// Packets a reply releases from the buffer leave this far apart, the
    /// first at once (ns-2 aodv.cc recvReply and rt_purge: ARP_DELAY 10 ms,
    /// "to help ARP"); 0 sends them together.
    pub release_spacing_s: f64,
    /// Every RERR is broadcast (TTL 1), even for a single precursor (ns-2
    /// aodv.cc sendError); RFC 3561 §6.11 unicasts it then.
    pub rerr_broadcast: bool,
    /// Reverse-route, granted-route and RREQ-ID lifetimes: "rfc3561" or
    /// "ns2" (see `Lifetimes`).
    pub lifetimes: Lifetimes,
    /// The destination increments its own sequence number on every RREQ it
    /// answers, past the one asked for (ns-2 aodv.cc recvRequest: `seqno =
    /// max(seqno, rq_dst_seqno) + 1`); RFC 3561 §6.6.1 only raises it to the
    /// one asked for. Without it, a relay repairing a route (§6.12) hears
    /// replies no fresher than the route it lost, and refuses the longer ones.
    pub dest_increments_seqno: bool,
    /// A RREQ or RREP received makes or refreshes a one-hop route to the
    /// neighbour that sent it (RFC 3561 §6.5, §6.7: "a route to the
    /// previous hop"). ns-2's CMU AODV learns no such route (aodv.cc
    /// recvRequest, recvReply touch only the originator's and the
    /// destination's entries), so with movement a route stays as long as
    /// it was found.
    pub learn_previous_hop: bool,
    /// A route that expires has its destination sequence number incremented,
    /// as a broken one has (ns-2 aodv.cc rt_purge: `rt->rt_seqno++`); RFC
    /// 3561 §6.11 increments it on a break only. Without it, a node whose
    /// route merely expired asks for the number every neighbour still has,
    /// and each of them answers from its cache instead of passing the request on.
    pub expiry_increments_seqno: bool,
}

impl Default for AodvConfig {
    fn default() -> Self {
        AodvConfig::rfc3561()
    }
}

impl AodvConfig {
    pub const PRESETS: &'static [&'static str] = &["rfc3561", "aodv-uu", "cmu"];

    pub fn preset(name: &str) -> Option<AodvConfig> {
        match name {
            "rfc3561" => Some(AodvConfig::rfc3561()),
            "aodv-uu" => Some(AodvConfig::aodv_uu()),
            "cmu" => Some(AodvConfig::cmu()),
            _ => None,
        }
    }

    /// RFC 3561 §10 defaults. §6.10 prefers link-layer notification where
    /// the link layer gives it (802.11 does).
    fn rfc3561() -> AodvConfig {
        AodvConfig {
            link_detection: LinkDetection::LinkLayer,
            hello_interval_s: 1.0,
            allowed_hello_loss: 2,
            hello_jitter_s: 0.0,
            hello_loss_slack_s: 0.0,
            hello_always: false,
            data_counts_as_hello: true,
            active_route_timeout_s: 3.0,
            delete_period_k: 5,
            net_diameter: 35,
            node_traversal_time_s: 0.040,
            timeout_buffer: 2,
            expanding_ring: true,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            rreq_retries: 2,
            rerr_ratelimit: 10,
            local_repair: false,
            max_repair_ttl: 10,
            local_add_ttl: 2,
            gratuitous_rrep: false,
            destination_only: false,
            blacklist: false,
            buffer_packets: 64,
            buffer_timeout_s: 30.0,
            broadcast_jitter_s: 0.010,
            jitter_originated: true,
            discovery: DiscoveryRule::Rfc3561,
            max_rreq_timeout_s: 10.0,
            route_sweep_s: 0.5,
            link_failure: LinkFailureRule::Rfc3561,
            release_spacing_s: 0.0,
            lifetimes: Lifetimes::Rfc3561,
            rerr_broadcast: false,
            dest_increments_seqno: false,
            expiry_increments_seqno: false,
            learn_previous_hop: true,
        }
    }

    /// ns-2.35's CMU AODV (aodv.h, aodv.cc, aodv_rqueue.h): link-layer
    /// detection and no HELLO (AODV_LINK_LAYER_DETECTION), local repair on
    /// (AODV_LOCAL_REPAIR), TTL_START 5, TTL_INCREMENT 2, TTL_THRESHOLD 7,
    /// NETWORK_DIAMETER 30, NODE_TRAVERSAL_TIME 30 ms, ACTIVE_ROUTE_TIMEOUT
    /// 10 s, RREQ_RETRIES 3, MAX_RREQ_TIMEOUT 10 s, a 64-packet, 30-s
    /// request queue, 10 ms broadcast jitter, and ns-2's discovery pacing
    /// and link-failure handling.
    fn cmu() -> AodvConfig {
        AodvConfig {
            link_detection: LinkDetection::LinkLayer,
            active_route_timeout_s: 10.0,
            net_diameter: 30,
            node_traversal_time_s: 0.030,
            ttl_start: 5,
            ttl_increment: 2,
            ttl_threshold: 7,
            rreq_retries: 3,
            // sendError has no rate limit; 10,000 per second never binds.
            rerr_ratelimit: 10_000,
            local_repair: true,
            jitter_originated: false,
            discovery: DiscoveryRule::Ns2,
            max_rreq_timeout_s: 10.0,
            route_sweep_s: 0.5,
            link_failure: LinkFailureRule::Ns2,
            release_spacing_s: 0.010,
            lifetimes: Lifetimes::Ns2,
            rerr_broadcast: true,
            dest_increments_seqno: true,
            expiry_increments_seqno: true,
            learn_previous_hop: false,
            ..AodvConfig::rfc3561()
        }
    }

    /// AODV-UU as seed 003 Table 1 ran it: expanding ring on, TTL start 2,
    /// increment 2, no local repair, active route timeout 5 s, no
    /// link-layer feedback (HELLOs every 1 s, sent always, data not counted),
    /// with AODV-UU's HELLO timing (aodv_hello.c: jitter of +-50 ms per
    /// period, a neighbour lost 50 ms after 2 * HELLO_INTERVAL).
    fn aodv_uu() -> AodvConfig {
        AodvConfig {
            link_detection: LinkDetection::Hello,
            hello_jitter_s: 0.100,
            hello_loss_slack_s: 0.050,
            hello_always: true,
            data_counts_as_hello: false,
            active_route_timeout_s: 5.0,
            ttl_start: 2,
            ..AodvConfig::rfc3561()
        }
    }

    /// Rules between fields; Err((field, message)). Each number's own range
    /// is in the scenario's field table (scenario/schema/fields.rs), which
    /// checks presets and the user's values alike.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.hello_jitter_s >= self.hello_interval_s {
            return Err((
                "hello_jitter_s",
                format!("must be below hello_interval_s ({}), got {}", self.hello_interval_s, self.hello_jitter_s),
            ));
        }
        if self.ttl_threshold > self.net_diameter {
            return Err(("ttl_threshold", format!("must not exceed net_diameter ({})", self.net_diameter)));
        }
        // RFC 3561 §10: with HELLOs, ACTIVE_ROUTE_TIMEOUT MUST exceed
        // ALLOWED_HELLO_LOSS * HELLO_INTERVAL.
        if self.link_detection.hello()
            && self.active_route_timeout_s <= self.allowed_hello_loss as f64 * self.hello_interval_s
        {
            return Err((
                "active_route_timeout_s",
                format!(
                    "must exceed allowed_hello_loss * hello_interval_s ({}) when HELLOs are used (RFC 3561 §10)",
                    self.allowed_hello_loss as f64 * self.hello_interval_s
                ),
            ));
        }
        Ok(())
    }

    // Derived constants of RFC 3561 §10.

    pub(crate) fn active_route_timeout(&self) -> Dur {
        Dur::from_secs_f64(self.active_route_timeout_s)
    }
    pub(crate) fn my_route_timeout(&self) -> Dur {
        match self.lifetimes {
            Lifetimes::Rfc3561 => self.active_route_timeout().mul(2),
            Lifetimes::Ns2 => NS2_MY_ROUTE_TIMEOUT,
        }
    }
    /// How long a seen (originator, RREQ ID) is remembered.
    pub(crate) fn rreq_id_hold(&self) -> Dur {
        match self.lifetimes {
            Lifetimes::Rfc3561 => self.path_discovery_time(),
            Lifetimes::Ns2 => NS2_BCAST_ID_SAVE,
        }
    }
    pub(crate) fn hello_interval(&self) -> Dur {
        Dur::from_secs_f64(self.hello_interval_s)
    }
    /// ALLOWED_HELLO_LOSS * HELLO_INTERVAL.
    pub(crate) fn hello_loss_time(&self) -> Dur {
        self.hello_interval().mul(self.allowed_hello_loss as u64)
    }
    /// How long a neighbour may stay silent before it is lost: the HELLO
    /// loss time plus the slack.
    pub(crate) fn neighbor_timeout(&self) -> Dur {
        self.hello_loss_time() + Dur::from_secs_f64(self.hello_loss_slack_s)
    }
    pub(crate) fn node_traversal_time(&self) -> Dur {
        Dur::from_secs_f64(self.node_traversal_time_s)
    }
    pub(crate) fn net_traversal_time(&self) -> Dur {
        self.node_traversal_time().mul(2 * self.net_diameter as u64)
    }
    /// BLACKLIST_TIMEOUT = RREQ_RETRIES * NET_TRAVERSAL_TIME (§10).
    pub(crate) fn blacklist_timeout(&self) -> Dur {
        self.net_traversal_time().mul(self.rreq_retries.max(1) as u64)
    }
    pub(crate) fn path_discovery_time(&self) -> Dur {
        self.net_traversal_time().mul(2)
    }
    pub(crate) fn delete_period(&self) -> Dur {
        self.active_route_timeout().max(self.hello_interval()).mul(self.delete_period_k as u64)
    }
    /// RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * (TTL_VALUE + TIMEOUT_BUFFER).
    pub(crate) fn ring_traversal_time(&self, ttl: u8) -> Dur {
        self.node_traversal_time().mul(2 * (ttl as u64 + self.timeout_buffer as u64))
    }
    pub(crate) fn max_rreq_timeout(&self) -> Dur {
        Dur::from_secs_f64(self.max_rreq_timeout_s)
    }
    pub(crate) fn route_sweep(&self) -> Dur {
        Dur::from_secs_f64(self.route_sweep_s)
    }
    pub(crate) fn release_spacing(&self) -> Dur {
        Dur::from_secs_f64(self.release_spacing_s)
    }
    pub(crate) fn buffer_timeout(&self) -> Dur {
        Dur::from_secs_f64(self.buffer_timeout_s)
    }
}
