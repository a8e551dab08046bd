//! DSR parameters. Defaults are RFC 4728 §9 constants plus the protocol
//! options ns-2's CMU DSR runs with (seeds 001/002); the `dsr-uu` preset is
//! seed 003 Table 2.

use crate::net::check::Invalid;
use serde::{Deserialize, Serialize};

/// How a node learns that a packet it sent reached the next hop (RFC 4728 §8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Maintenance {
    /// The MAC reports failed unicasts (`link_failed`), as ns-2's DSR does
    /// (seed 002). Nothing waits for an acknowledgement.
    LinkLayer,
    /// Passive acknowledgement (§8.3.3): overhearing the next hop forward the
    /// packet; after TryPassiveAcks silent tries the packet is retransmitted
    /// with a network-layer Acknowledgement Request.
    Passive,
    /// Network-layer acknowledgements only (§8.3.3, §6.5, §6.6).
    Network,
}

/// How repeated Route Requests for one target are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestBackoff {
    /// RFC 4728 §8.2.1: per discovery, a non-propagating request, then
    /// propagating ones RequestPeriod apart, the wait doubling up to
    /// MaxRequestPeriod; a new discovery starts afresh.
    Rfc4728,
    /// ns-2 dsragent.cc `BackOffTest`: the request table remembers, per
    /// target, the requests sent and the last one; a new request cycle (a
    /// non-propagating request, then one propagating request after
    /// NonpropRequestTimeout) may start only RequestPeriod * 4^n after the
    /// last (n cycles so far, capped at MaxRequestPeriod). Only a Route
    /// Reply for that target resets the count (`acceptRouteReply`), not a
    /// route found any other way.
    Ns2,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DsrConfig {
    /// Pass frames addressed to others up to DSR (RFC 4728 §3.4, §8.1.4).
    pub promiscuous: bool,
    /// Add routes from overheard source routes and replies to the cache
    /// (§3.4.1). Needs `promiscuous`.
    pub snoop_routes: bool,
    /// Salvage packets onto another cached route on a link break (§8.4.1).
    pub salvage: bool,
    /// MAX_SALVAGE_COUNT (§9: 15): the Salvage field is 4 bits.
    pub max_salvage_count: u8,
    /// Intermediate nodes answer Route Requests from their cache (§3.3.2, §8.2.3).
    pub reply_from_cache: bool,
    /// Gratuitous Route Replies for automatic route shortening (§3.4.3, §8.3.5).
    pub gratuitous_replies: bool,
    /// GratReplyHoldoff (§9: 1 s): one shortening reply per (source, hop) per holdoff.
    pub grat_reply_holdoff_s: f64,
    /// Piggyback the last Route Error received on the next Route Request (§3.4.2, §8.2.1).
    pub gratuitous_errors: bool,
    /// Route maintenance: "link_layer", "passive" or "network".
    pub maintenance: Maintenance,
    /// SendBufferTimeout (§9: 30 s): a packet waiting for a route is dropped (TOUT) after this.
    pub send_buffer_s: f64,
    /// Send buffer capacity in packets; a full buffer drops its oldest (QFULL), as ns-2's does. ns-2: 64.
    pub send_buffer_packets: usize,
    /// Send a non-propagating (TTL 1) Route Request first (§3.3.3, §8.2.1).
    pub nonprop_requests: bool,
    /// Spacing of repeated requests: "rfc4728" or "ns2" (see `RequestBackoff`).
    pub request_backoff: RequestBackoff,
    /// Cache the route carried by a data packet addressed to us (§8.1.4
    /// allows it). ns-2 does not: `handlePacketReceipt` only strips the
    /// header, so a source learns routes from replies and overheard
    /// packets only.
    pub cache_delivered_routes: bool,
    /// NonpropRequestTimeout (§9: 30 ms).
    pub nonprop_request_timeout_s: f64,
    /// RequestPeriod (§9: 500 ms): first wait for a reply to a propagating request.
    pub request_period_s: f64,
    /// MaxRequestPeriod (§9: 10 s): cap of the exponential back-off.
    pub max_request_period_s: f64,
    /// MaxRequestRexmt (§9: 16): propagating requests before the discovery gives up.
    pub max_request_rexmt: u32,
    /// DiscoveryHopLimit (§9: 255): TTL of a propagating request.
    pub discovery_hop_limit: u8,
    /// RequestTableSize (§9: 64): initiators remembered for duplicate detection.
    pub request_table_size: usize,
    /// RequestTableIds (§9: 16): request ids remembered per initiator.
    pub request_table_ids: usize,
    /// BroadcastJitter (§9: 10 ms): uniform delay before rebroadcasting a request.
    pub broadcast_jitter_s: f64,
    /// RouteCacheTimeout (§9: 300 s): a cached link unused and unconfirmed this
    /// long is removed.
    pub route_cache_timeout_s: f64,
    /// Paths kept in the route cache (ns-2 CMU DSR: 30 primary + 34 secondary).
    pub route_cache_paths: usize,
    /// MaintHoldoffTime (§9: 250 ms): a link confirmed this recently needs no
    /// acknowledgement for the next packet.
    pub maint_holdoff_s: f64,
    /// MaxMaintRexmt (§9: 2): retransmissions with an Acknowledgement Request
    /// before the link is declared broken.
    pub max_maint_rexmt: u32,
    /// TryPassiveAcks (§9: 1): transmissions waiting for a passive ACK before
    /// falling back to a network-layer Acknowledgement Request.
    pub try_passive_acks: u32,
    /// PassiveAckTimeout (§9: 100 ms).
    pub passive_ack_timeout_s: f64,
    /// Wait for a network-layer Acknowledgement. The RFC leaves this to an
    /// adaptive estimate (§8.3.3); a fixed value here, like PassiveAckTimeout.
    pub ack_timeout_s: f64,
    /// ns-2 CMU DSR flow state (dsragent.cc `dsragent_enable_flowstate`,
    /// on in ns-2.35): a source's first packets on a route (and one every
    /// 5 s) carry the route and set up a flow at each forwarder; later ones
    /// carry no route (0 bytes on the source's default flow), are forwarded
    /// from the flow tables, and teach overhearers and forwarders nothing.
    pub flow_state: bool,
    /// ns-2 `NEW_SALVAGE_LOGIC` (`dsr_salvage_max_requests` 1): a forwarder
    /// with no cached route for a packet it must salvage buffers it and
    /// sends one non-propagating Route Request cycle for it, instead of
    /// dropping it. Needs `send_buffer_check_s`.
    pub salvage_discovery: bool,
    /// ns-2 `BUFFER_CHECK` (0.03 s): the send buffer is scanned every
    /// U[1, 2] x this; buffered packets leave only at a scan or when a
    /// Route Reply arrives (then one per NonpropRequestTimeout, ns-2's
    /// `arp_timeout` spacing), and request cycles start only then. 0: a
    /// packet leaves as soon as a route is known (RFC 4728 §8.2.1).
    pub send_buffer_check_s: f64,
    /// Learn both directions of a route heard or forwarded, and the way
    /// back to the initiator of every Route Request received (links are
    /// bidirectional, RFC 4728 §8.1.4). false: ns-2's `noticeRouteUsed`
    /// (routecache.cc pre_noticeRouteUsed) caches only the part of a route
    /// from this node on (overheard: this node, the transmitter and on), and
    /// only a node answering a Route Request caches the way back.
    pub reverse_learning: bool,
    /// With `gratuitous_errors`: 0, the next Route Request takes the last
    /// Route Error, whatever its age. > 0 (ns-2 dsragent.cc `max_err_hold`,
    /// 1 s): every request sent this long after the error carries it, and
    /// only a propagating one uses it up.
    pub error_hold_s: f64,
    /// Data packets carry a second 20-byte IP header on the air, as ns-2's
    /// DSR agent counts one (dsragent.cc recv, `cmh->size() += IP_HDR_LEN`).
    pub double_ip_header: bool,
    /// Learn from (snoop, shorten, take errors from) overheard packets this
    /// node originated, forwarded by a neighbour. false: ns-2's dsragent.cc
    /// `tap` ("don't trouble me with my own packets", `p.src == net_id`),
    /// so a source whose packet a forwarder salvages onto a new route does
    /// not learn that route by overhearing it.
    pub snoop_own_packets: bool,
    /// Delay the Route Requests this node originates, and the Route Replies
    /// it sends as a request's target, by U(0, broadcast_jitter_s), as
    /// ns-2 does (dsragent.cc sendOutPacketWithRoute: "route requests need
    /// to be jittered a bit", every request; returnSrcRouteToRequestor:
    /// "we now want to jitter when we first originate route replies").
    /// false: only rebroadcasts wait (RFC 4728 §8.2.2 BroadcastJitter).
    pub jitter_originated: bool,
}

impl Default for DsrConfig {
    /// ns-2's CMU DSR (seeds 001/002): link-layer feedback, promiscuous
    /// snooping, replies from cache, salvaging, with RFC 4728 §9 timers.
    fn default() -> Self {
        DsrConfig {
            promiscuous: true,
            snoop_routes: true,
            salvage: true,
            max_salvage_count: 15,
            reply_from_cache: true,
            gratuitous_replies: true,
            grat_reply_holdoff_s: 1.0,
            gratuitous_errors: true,
            maintenance: Maintenance::LinkLayer,
            send_buffer_s: 30.0,
            send_buffer_packets: 64,
            nonprop_requests: true,
            request_backoff: RequestBackoff::Ns2,
            cache_delivered_routes: false,
            nonprop_request_timeout_s: 0.030,
            request_period_s: 0.5,
            max_request_period_s: 10.0,
            max_request_rexmt: 16,
            discovery_hop_limit: 255,
            request_table_size: 64,
            request_table_ids: 16,
            broadcast_jitter_s: 0.010,
            route_cache_timeout_s: 300.0,
            route_cache_paths: 64,
            maint_holdoff_s: 0.25,
            max_maint_rexmt: 2,
            try_passive_acks: 1,
            passive_ack_timeout_s: 0.1,
            ack_timeout_s: 0.1,
            flow_state: false,
            salvage_discovery: false,
            send_buffer_check_s: 0.0,
            reverse_learning: true,
            error_hold_s: 0.0,
            double_ip_header: false,
            snoop_own_packets: true,
            jitter_originated: false,
        }
    }
}

impl DsrConfig {
    pub const PRESETS: &'static [&'static str] = &["ns2", "dsr-uu", "cmu"];

    pub fn preset(name: &str) -> Option<DsrConfig> {
        match name {
            "ns2" => Some(DsrConfig::default()),
            // Seed 003 Table 2: passive ACKs on, promiscuous on, salvage on,
            // snoop routes on, alternate routes on (the path cache), send
            // buffer lifetime 30 s, flow state off (not implemented), LL
            // feedback off: passive ACKs with network-layer ACK fallback.
            // DSR-UU spaces requests per RFC 4728 (dsr-rreq.c) and caches
            // the routes of packets it receives.
            "dsr-uu" => Some(DsrConfig {
                maintenance: Maintenance::Passive,
                request_backoff: RequestBackoff::Rfc4728,
                cache_delivered_routes: true,
                ..DsrConfig::default()
            }),
            // `ns2` plus the rest of ns-2.35's dsragent.cc: flow state,
            // salvage by route discovery at forwarders, the send-buffer scan,
            // its route cache's forward-only learning, its tap, which
            // ignores the node's own packets, and its jitter on every
            // request and on the target's replies.
            "cmu" => Some(DsrConfig {
                flow_state: true,
                salvage_discovery: true,
                send_buffer_check_s: 0.03,
                reverse_learning: false,
                error_hold_s: 1.0,
                double_ip_header: true,
                snoop_own_packets: false,
                jitter_originated: true,
                ..DsrConfig::default()
            }),
            _ => None,
        }
    }

    /// Rules between fields; Err((field, message)). Each number's own range
    /// is in the scenario's field table (scenario/schema/fields.rs), which
    /// checks presets and the user's values alike.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.max_request_period_s < self.request_period_s {
            return Err(("max_request_period_s", "must not be below request_period_s".into()));
        }
        if self.snoop_routes && !self.promiscuous {
            return Err(("snoop_routes", "needs promiscuous = true".into()));
        }
        if self.maintenance == Maintenance::Passive && !self.promiscuous {
            return Err(("maintenance", "\"passive\" needs promiscuous = true to overhear the next hop".into()));
        }
        if self.salvage_discovery && self.send_buffer_check_s <= 0.0 {
            return Err(("salvage_discovery", "needs send_buffer_check_s > 0 (ns-2's scan retries the salvaged packets)".into()));
        }
        if self.send_buffer_check_s > 0.0 && self.request_backoff != RequestBackoff::Ns2 {
            return Err(("send_buffer_check_s", "needs request_backoff = \"ns2\" (the scan starts ns-2's request cycles)".into()));
        }
        if self.flow_state && self.maintenance != Maintenance::LinkLayer {
            return Err(("flow_state", "needs maintenance = \"link_layer\", as in ns-2".into()));
        }
        Ok(())
    }
}
