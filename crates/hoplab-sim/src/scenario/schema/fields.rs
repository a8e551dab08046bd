//! The field table. Paths are dotted TOML keys; `[]` stands for any list
//! index (`flows[].tcp.mss_bytes`), and `routing.aodv.*` are the fields of
//! the resolved protocol configuration (preset, then the user's table).
//! Defaults are not written here: `reference` reads them from the code.
//!
//! Unit suffixes: every scalar with a unit names it (`_s`, `_ms`, `_us`,
//! `_m`, `_mps`, `_hz`, `_w`, `_db`, `_mbps`, `_kbps`, `_bytes`). Counts
//! (segments, packets, frames, hops, retries, nodes) and ratios stay
//! unsuffixed, with the count's unit in the `unit` column; coordinate lists
//! (`topology.positions`, `mobility.legs[].to`) are in metres.

/// A closed or half-open interval with the reason for its bounds.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub lo: f64,
    pub lo_open: bool,
    pub hi: f64,
    pub hi_open: bool,
    pub why: &'static str,
}

impl Range {
    pub const fn closed(lo: f64, hi: f64, why: &'static str) -> Range {
        Range { lo, lo_open: false, hi, hi_open: false, why }
    }
    /// (lo, hi]
    pub const fn above(lo: f64, hi: f64, why: &'static str) -> Range {
        Range { lo, lo_open: true, hi, hi_open: false, why }
    }
    /// (lo, hi)
    pub const fn open(lo: f64, hi: f64, why: &'static str) -> Range {
        Range { lo, lo_open: true, hi, hi_open: true, why }
    }
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite()
            && (if self.lo_open { v > self.lo } else { v >= self.lo })
            && (if self.hi_open { v < self.hi } else { v <= self.hi })
    }
    /// `[1e-3, 3600]`, `(0, 1]`.
    pub fn text(&self) -> String {
        format!(
            "{}{}, {}{}",
            if self.lo_open { "(" } else { "[" },
            num(self.lo),
            num(self.hi),
            if self.hi_open { ")" } else { "]" }
        )
    }
}

/// Shortest form of a bound: 0.001, 3600, 1e-6, 1073725440.
pub fn num(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3 || (v.abs() >= 1e7 && v.fract() == 0.0 && v.abs() % 1e6 == 0.0)) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// One scenario field.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub path: &'static str,
    /// "float", "integer", "bool", "string", or `"a" | "b"` for a choice.
    pub ty: &'static str,
    /// Unit of a number ("s", "m", "segments", ...); "" when none.
    pub unit: &'static str,
    pub range: Option<Range>,
    /// Where the default and the range come from.
    pub source: &'static str,
    /// What the field does, in a line.
    pub doc: &'static str,
    /// The default, for fields whose default is not a value of the code's
    /// `Default`s (required fields, "end of the run"); None: read from code.
    pub default: Option<&'static str>,
}

const fn n(path: &'static str, ty: &'static str, unit: &'static str, range: Range, source: &'static str, doc: &'static str) -> Field {
    Field { path, ty, unit, range: Some(range), source, doc, default: None }
}
const fn o(path: &'static str, ty: &'static str, source: &'static str, doc: &'static str) -> Field {
    Field { path, ty, unit: "", range: None, source, doc, default: None }
}
const fn d(f: Field, default: &'static str) -> Field {
    Field { default: Some(default), ..f }
}

// Shared ranges, each with its reason.
const TIMER: Range = Range::closed(
    1e-3,
    3600.0,
    "1 ms: a shorter protocol timer fires more often than one 802.11 exchange (~1 ms) completes, and a run would not finish; 1 h: far beyond any protocol's default",
);
const JITTER: Range = Range::closed(0.0, 3600.0, "0 turns it off; 1 h: far beyond any protocol's default");
const TTL: Range = Range::closed(1.0, 255.0, "the IP TTL field has 8 bits (RFC 791)");
const SMALL_COUNT: Range = Range::closed(0.0, 1000.0, "0 turns it off; above 1000 attempts a discovery or repair never gives up in any run");
const POS_COUNT: Range = Range::closed(1.0, 1000.0, "at least one; 1000 is far beyond any protocol's default");
const BUFFER: Range = Range::closed(1.0, 100_000.0, "at least one packet; 100,000 packets is beyond any implementation's buffer and bounds memory");
const DISTANCE: Range = Range::closed(
    0.1,
    100_000.0,
    "0.1 m to 100 km: beyond IEEE 802.11's coverage classes (at most 93 us of air propagation, ~28 km) with room to spare",
);
const COORD: Range = Range::closed(-1e6, 1e6, "within 1000 km of the origin: wider than any single ad hoc network");
const AREA_SIDE: Range = Range::closed(0.1, 1e6, "0.1 m to 1000 km: wider than any single ad hoc network");
const NODE_ID: Range = Range::closed(0.0, 999_999.0, "a node of the topology (at most 1,000,000 nodes)");
const RUN_TIME: Range = Range::closed(0.0, 1e7, "within the longest supported run (1e7 s)");
// RFC 3626 §18.3: Htime/Vtime travel as an 8-bit mantissa/exponent, C*(1+a/16)*2^b with
// C = 1/16 s (§3.3.2), so the largest is a = 15, b = 15: 0.0625 * (1 + 15/16) * 32768 = 3968 s.
const OLSR_VTIME: Range = Range::closed(
    0.0625,
    0.0625 * (1.0 + 15.0 / 16.0) * 32768.0,
    "RFC 3626 §18.3: Htime/Vtime travel as an 8-bit mantissa/exponent, 1/16 s to ~3968 s",
);
const UNIT_FRACTION: Range = Range::closed(0.0, 1.0, "a fraction");
const EMU_NODE: Range = Range::closed(
    0.0,
    (crate::wire::ipv4::MAX_NODES - 1) as f64,
    "node N is 10.0.0.0/16 + N + 1 (wire/ipv4.rs): the /16 holds nodes 0 to 65533",
);
const MAX_SEGMENTS: f64 = (crate::tcp::MAX_WINDOW_BYTES / MIN_MSS as u64) as f64;
/// RFC 791: every host accepts a 68-byte datagram; 40 bytes are IP and TCP headers.
pub const MIN_MSS: u32 = 28;

const S: &str = "s";
const SEG: &str = "segments";

/// Every field of the schema, in reference order.
pub const FIELDS: &[Field] = &[
    // --- top level ---
    d(o("name", "string", "our choice", "label copied into results"), "\"scenario\""),
    o("seed", "integer", "our choice", "default seed (0..2^64-1); a seed given to run overrides it"),
    d(o("compat", "\"standard\" | \"ns2\"", "IEEE 802.11, the RFCs; ns2: ns-2.35 (scenario/schema/compat.rs)", "whose reading of the protocols; a profile fills in only fields left unset (see compat profiles below)"), "\"standard\""),
    d(n("duration_s", "float", S, Range::closed(1e-6, 1e7, "1 us (the clock resolves ns) to 1e7 s (116 days), the longest supported run"), "our choice", "simulated time"), "required"),
    // --- topology ---
    d(o("topology.kind", "\"chain\" | \"grid\" | \"random\" | \"explicit\"", "seeds", "node placement"), "required"),
    d(n("topology.nodes", "integer", "nodes", Range::closed(1.0, 1e6, "at least one node; 1,000,000 is the supported maximum (memory)"), "our choice", "chain, random: number of nodes"), "required"),
    d(n("topology.rows", "integer", "nodes", Range::closed(1.0, 1e6, "at least one row; rows x cols <= 1,000,000"), "our choice", "grid: rows"), "required"),
    d(n("topology.cols", "integer", "nodes", Range::closed(1.0, 1e6, "at least one column; rows x cols <= 1,000,000"), "our choice", "grid: columns"), "required"),
    d(n("topology.spacing_m", "float", "m", Range::closed(0.01, 1e5, "1 cm to 100 km between neighbours (see radio.tx_range_m)"), "seeds", "chain, grid: distance between neighbours"), "required"),
    d(n("topology.width_m", "float", "m", AREA_SIDE, "seeds", "random: area width"), "required"),
    d(n("topology.height_m", "float", "m", AREA_SIDE, "seeds", "random: area height"), "required"),
    d(n("topology.positions[][]", "[[x, y], ...] floats", "m", COORD, "our choice", "explicit: node positions"), "required"),
    // --- radio ---
    o("radio.propagation", "\"two_ray_ground\" | \"free_space\" | \"flat\" | \"shadowing\"", "ns-2 default (two_ray_ground); flat: seed 003; shadowing: ns-2 Propagation/Shadowing (mobile/shadowing.cc)", "propagation model; with shadowing, every reception draws its power (log-normal) and the ranges and thresholds are the mean power's"),
    n("radio.tx_power_w", "float", "W", Range::closed(1e-6, 100.0, "1 uW to 100 W: regulatory 802.11 limits are around 1 W (4 W EIRP)"), "ns-2 Phy/WirelessPhy Pt_", "transmit power"),
    n("radio.frequency_hz", "float", "Hz", Range::closed(5e7, 1e11, "50 MHz to 100 GHz: 802.11af TV white space (54 MHz) to 802.11ad/ay (~71 GHz)"), "ns-2 Phy/WirelessPhy freq_ (914 MHz)", "carrier frequency"),
    n("radio.antenna_height_m", "float", "m", Range::closed(0.01, 1000.0, "1 cm to 1 km above ground"), "ns-2 Antenna/OmniAntenna Z_", "antenna height (two-ray ground)"),
    n("radio.system_loss", "float", "ratio", Range::closed(1.0, 1e6, "ns-2 L_: 1 is no loss; below 1 would be a gain, 1e6 is 60 dB"), "ns-2 Phy/WirelessPhy L_", "system loss factor L (linear)"),
    n("radio.rx_threshold_w", "float", "W", Range::closed(1e-15, 1.0, "-120 dBm (below the thermal noise of a 1 MHz channel) to 30 dBm"), "ns-2 RXThresh_ (250 m)", "minimum power to decode a frame"),
    n("radio.cs_threshold_w", "float", "W", Range::closed(1e-15, 1.0, "-120 dBm (below the thermal noise of a 1 MHz channel) to 30 dBm"), "ns-2 CSThresh_ (550 m)", "minimum power to sense the medium busy"),
    d(n("radio.tx_range_m", "float", "m", DISTANCE, "our choice", "transmission range; overrides rx_threshold_w"), "from rx_threshold_w"),
    d(n("radio.cs_range_m", "float", "m", DISTANCE, "our choice", "carrier-sense range; overrides cs_threshold_w"), "from cs_threshold_w"),
    d(n("radio.interference_range_m", "float", "m", DISTANCE, "our choice", "farther transmitters never corrupt a reception"), "no cutoff"),
    n("radio.capture_threshold_db", "float", "dB", Range::closed(0.0, 100.0, "0 dB (any stronger frame survives) to 100 dB"), "ns-2 CPThresh_ (10)", "capture: signal-to-interference a frame needs"),
    o("radio.capture_model", "\"sinr\" | \"ns2\"", "our choice (sinr); ns2: ns-2 mac-802_11.cc Mac802_11::recv, capture, collision", "a frame against the sum of interferers, or against each newcomer alone (ns-2)"),
    o("radio.lock_while_transmitting", "bool", "ns-2 mac-802_11.cc Mac802_11::recv (our default: off)", "a frame starting while we transmit occupies the receiver, in error, until its end"),
    n("radio.shadowing_path_loss_exponent", "float", "ratio", Range::closed(1.0, 10.0, "the ns-2 manual's table of measured exponents (Radio propagation models, Shadowing) spans 1.6 (in building, line of sight) to 6 (obstructed in building); 2 is free space; 1 to 10 leaves room"), "ns-2 Propagation/Shadowing pathlossExp_ (2.0)", "shadowing: mean path loss beyond the reference distance, 10 beta dB per decade of distance"),
    n("radio.shadowing_std_db", "float", "dB", Range::closed(0.0, 20.0, "0: no draw, the mean alone (deterministic); the ns-2 manual's table of measured deviations spans 3 to 12 dB; 20 dB leaves room"), "ns-2 Propagation/Shadowing std_db_ (4.0)", "shadowing: standard deviation of the Gaussian in dB drawn for every reception"),
    n("radio.shadowing_reference_m", "float", "m", Range::closed(0.01, 10_000.0, "1 cm to 10 km: a reference distance in the far field, 1 m indoors to 1 km for outdoor macrocells"), "ns-2 Propagation/Shadowing dist0_ (1.0)", "shadowing: the reference distance d0, where the mean power is Friis's; within it the mean stays at that power"),
    // --- mac ---
    n("mac.data_rate_mbps", "float", "Mbit/s", Range::closed(0.1, 10_000.0, "802.11 PHY rates: 150 kbit/s (802.11ah) to ~9.6 Gbit/s (802.11ax)"), "IEEE 802.11-1999 DSSS (seed 000: 2 Mbit/s)", "rate of DATA frames"),
    n("mac.basic_rate_mbps", "float", "Mbit/s", Range::closed(0.1, 10_000.0, "802.11 PHY rates: 150 kbit/s (802.11ah) to ~9.6 Gbit/s (802.11ax)"), "IEEE 802.11-1999 DSSS basic rate", "rate of RTS, CTS, ACK and broadcasts"),
    n("mac.rts_threshold_bytes", "integer", "bytes", Range::closed(0.0, 65_536.0, "dot11RTSThreshold (IEEE 802.11-2012 Annex C: 0..65536); 0 = always RTS/CTS, above any frame = never"), "ns-2 RTSThreshold_ 0", "frames longer than this use RTS/CTS"),
    n("mac.short_retry_limit", "integer", "attempts", Range::closed(1.0, 255.0, "dot11ShortRetryLimit (IEEE 802.11 MIB: 1..255)"), "IEEE 802.11-1999 (7)", "attempts of frames up to the RTS threshold"),
    n("mac.long_retry_limit", "integer", "attempts", Range::closed(1.0, 255.0, "dot11LongRetryLimit (IEEE 802.11 MIB: 1..255)"), "IEEE 802.11-1999 (4)", "attempts of frames above the RTS threshold"),
    n("mac.cw_min", "integer", "slots", Range::closed(1.0, 1023.0, "2^k - 1 between EDCA's smallest CWmin and aCWmax (IEEE 802.11 §9.2.4)"), "IEEE 802.11-1999 DSSS aCWmin", "minimum contention window"),
    n("mac.cw_max", "integer", "slots", Range::closed(1.0, 65_535.0, "2^k - 1, at least cw_min; 65535 bounds the backoff"), "IEEE 802.11-1999 DSSS aCWmax", "maximum contention window"),
    n("mac.slot_us", "integer", "us", Range::closed(1.0, 100.0, "802.11 slots are 9 us (OFDM) to 52 us (802.11ah)"), "IEEE 802.11-1999 DSSS aSlotTime", "slot time"),
    n("mac.sifs_us", "integer", "us", Range::closed(1.0, 100.0, "802.11 SIFS is 3 us (802.11ad) to 28 us (FHSS)"), "IEEE 802.11-1999 DSSS aSIFSTime", "short interframe space"),
    o("mac.preamble", "\"long\" | \"short\"", "IEEE 802.11-1999 DSSS (long)", "PLCP preamble"),
    n("mac.queue_limit", "integer", "packets", BUFFER, "ns-2 PriQueue (50)", "interface queue capacity"),
    o("mac.queue_routing_first", "bool", "ns-2 Queue/DropTail/PriQueue Prefer_Routing_Protocols (priqueue.cc PriQueue::recv; ns-default.tcl: 1)", "routing packets go ahead of data in the interface queue (in their arrival order; ns-2 puts each at the head); false: one FIFO"),
    o("mac.queue_ns2_priqueue", "bool", "ns-2 queue/priqueue.cc PriQueue::recvHighPriority, queue/drop-tail.cc DropTail::enque", "ns-2's interface queue to the packet: a packet is refused when length + 1 reaches queue_limit (so queue_limit - 1 wait), and each routing packet goes to the very head, the newest first, dropping the last packet when the length reaches queue_limit"),
    o("mac.queue_classes", "bool", "ns-2 CMUPriQueue, the queue of its DSR (queue/dsr-priqueue.cc prq_assign_queue, prq_enqueue)", "four interface queues served in strict order: routing, real-time, TCP ACKs, the rest; each holds queue_limit and drops what meets it full"),
    o("mac.nav_reset", "bool", "IEEE 802.11-1999 §9.2.5.4 (ns-2: off)", "reset a NAV set by an unanswered RTS"),
    o("mac.idle_backoff", "bool", "ns-2 Mac802_11::send (IEEE 802.11-1999 §9.2.5.1: none)", "a frame that finds the medium idle still waits DIFS + a backoff"),
    o("mac.idle_defer", "bool", "ns-2 Mac/802_11 bugFix_timer_ false (mac-802_11.cc Mac802_11::send, deferHandler, check_pktRTS, check_pktTx, tx_resume)", "with idle_backoff: that wait is ns-2's defer timer, DIFS + k slots that do not pause while the medium is busy; busy at its end: CW doubles and a backoff follows"),
    o("mac.cts_needs_idle", "bool", "ns-2 Mac802_11::check_pktCTRL, check_pktTx (IEEE 802.11-1999 §9.2.5.4: NAV at the RTS)", "CTS and DATA after CTS only if the medium is idle when due; NAV not checked at the RTS"),
    o("mac.capture_nav", "bool", "ns-2 Mac802_11::capture (IEEE 802.11: none)", "a frame lost to capture sets the NAV to EIFS + its airtime"),
    o("mac.eifs_nav", "bool", "ns-2 Mac802_11::recv_timer (IEEE 802.11-1999 §9.2.3.4: EIFS instead of DIFS)", "a reception error sets the NAV to EIFS, then DIFS"),
    n("mac.data_header_bytes", "integer", "bytes", Range::closed(24.0, 36.0, "24 (three addresses) to 36 (four addresses, QoS and HT Control: IEEE 802.11n)"), "IEEE 802.11-1999 §7.2.2 (24); ns-2 hdr_mac802_11 (30)", "DATA frame MAC header before the FCS"),
    o("mac.rts_threshold_basis", "\"mpdu\" | \"ns2\"", "IEEE 802.11 dot11RTSThreshold (mpdu); ns-2 Mac802_11::sendRTS (ns2)", "what rts_threshold_bytes is compared with: the MPDU, or ns-2's size with PLCP and 34-byte header"),
    // --- routing ---
    o("routing.protocol", "\"static\" | \"aodv\" | \"dsr\" | \"olsr\" | \"dsdv\"", "seed 002 (static)", "routing protocol"),
    d(o("routing.preset", "string", "see routing.<protocol> below", "named parameter set of the protocol"), "none (the protocol's first preset)"),
    // aodv
    o("routing.aodv.link_detection", "\"hello\" | \"link_layer\" | \"both\"", "RFC 3561 §6.10; seed 000 §4.2", "how a broken link is noticed"),
    n("routing.aodv.hello_interval_s", "float", S, TIMER, "RFC 3561 §10 HELLO_INTERVAL", "HELLO period"),
    n("routing.aodv.allowed_hello_loss", "integer", "HELLOs", POS_COUNT, "RFC 3561 §10 ALLOWED_HELLO_LOSS", "HELLOs missed before a neighbour is lost"),
    n("routing.aodv.hello_jitter_s", "float", S, JITTER, "AODV-UU hello_jitter()", "uniform jitter of each HELLO period (below hello_interval_s)"),
    n("routing.aodv.hello_loss_slack_s", "float", S, JITTER, "AODV-UU HELLO_DELAY", "extra time before a silent neighbour is lost"),
    o("routing.aodv.hello_always", "bool", "RFC 3561 §6.9; AODV-UU, ns-2", "send HELLOs outside active routes too"),
    o("routing.aodv.data_counts_as_hello", "bool", "RFC 3561 §6.9; AODV-UU: no", "any packet proves the link"),
    n("routing.aodv.active_route_timeout_s", "float", S, TIMER, "RFC 3561 §10 ACTIVE_ROUTE_TIMEOUT", "route lifetime"),
    n("routing.aodv.delete_period_k", "integer", "", POS_COUNT, "RFC 3561 §10 K", "DELETE_PERIOD multiplier"),
    n("routing.aodv.net_diameter", "integer", "hops", TTL, "RFC 3561 §10 NET_DIAMETER", "network diameter"),
    n("routing.aodv.node_traversal_time_s", "float", S, TIMER, "RFC 3561 §10 NODE_TRAVERSAL_TIME", "per-hop traversal estimate"),
    n("routing.aodv.timeout_buffer", "integer", "", SMALL_COUNT, "RFC 3561 §10 TIMEOUT_BUFFER", "RING_TRAVERSAL_TIME buffer"),
    o("routing.aodv.expanding_ring", "bool", "RFC 3561 §6.4", "expanding ring search"),
    n("routing.aodv.ttl_start", "integer", "hops", TTL, "RFC 3561 §10 TTL_START", "first RREQ TTL"),
    n("routing.aodv.ttl_increment", "integer", "hops", TTL, "RFC 3561 §10 TTL_INCREMENT", "TTL step"),
    n("routing.aodv.ttl_threshold", "integer", "hops", Range::closed(0.0, 255.0, "8-bit TTL; at most net_diameter"), "RFC 3561 §10 TTL_THRESHOLD", "TTL above which RREQs go NET_DIAMETER"),
    n("routing.aodv.rreq_retries", "integer", "attempts", SMALL_COUNT, "RFC 3561 §10 RREQ_RETRIES", "extra RREQ attempts"),
    n("routing.aodv.rerr_ratelimit", "integer", "1/s", Range::closed(0.0, 10_000.0, "RERRs per second; 10,000 is beyond any channel"), "RFC 3561 §10 RERR_RATELIMIT", "RERRs originated per second"),
    o("routing.aodv.local_repair", "bool", "RFC 3561 §6.12", "local repair"),
    n("routing.aodv.max_repair_ttl", "integer", "hops", TTL, "RFC 3561 §10 MAX_REPAIR_TTL", "largest local-repair TTL"),
    n("routing.aodv.local_add_ttl", "integer", "hops", Range::closed(0.0, 255.0, "8-bit TTL"), "RFC 3561 §10 LOCAL_ADD_TTL", "local-repair TTL increment"),
    o("routing.aodv.gratuitous_rrep", "bool", "RFC 3561 §6.6.3", "set the G flag"),
    o("routing.aodv.destination_only", "bool", "RFC 3561 §5.1", "set the D flag"),
    o("routing.aodv.blacklist", "bool", "RFC 3561 §6.8", "blacklist unidirectional links"),
    n("routing.aodv.buffer_packets", "integer", "packets", BUFFER, "ns-2 AODV_RTQ_MAX_LEN", "packets waiting for routes"),
    n("routing.aodv.buffer_timeout_s", "float", S, TIMER, "ns-2 AODV_RTQ_TIMEOUT", "longest wait for a route"),
    n("routing.aodv.broadcast_jitter_s", "float", S, JITTER, "ns-2, AODV-UU (10 ms)", "broadcast jitter"),
    o("routing.aodv.jitter_originated", "bool", "ns-2 aodv.cc sendRequest, handle_link_failure: no", "jitter originated RREQs and link-failure RERRs too"),
    o("routing.aodv.discovery", "\"rfc3561\" | \"ns2\"", "RFC 3561 §6.3-6.4; ns-2 aodv.cc sendRequest", "route discovery pacing (TTLs, waits, retries)"),
    n("routing.aodv.max_rreq_timeout_s", "float", S, TIMER, "ns-2 aodv.h MAX_RREQ_TIMEOUT", "ns2 discovery: longest RREQ wait and hold-off after the retries"),
    n("routing.aodv.route_sweep_s", "float", S, TIMER, "ns-2 aodv.cc RouteCacheTimer (0.5 s)", "ns2 discovery: period of the sweep that re-sends RREQs"),
    n("routing.aodv.release_spacing_s", "float", S, JITTER, "ns-2 aodv.cc recvReply ARP_DELAY (10 ms)", "gap between packets a reply releases from the buffer"),
    o("routing.aodv.lifetimes", "\"rfc3561\" | \"ns2\"", "RFC 3561 §6.5, §10; ns-2 aodv.h REV_ROUTE_LIFE, MY_ROUTE_TIMEOUT, BCAST_ID_SAVE", "reverse-route, granted-route and RREQ-ID lifetimes"),
    o("routing.aodv.learn_previous_hop", "bool", "RFC 3561 §6.5, §6.7; ns-2 aodv.cc recvRequest, recvReply: none", "a RREQ or RREP received makes a one-hop route to the neighbour that sent it"),
    o("routing.aodv.dest_increments_seqno", "bool", "RFC 3561 §6.6.1: raised to the one asked for; ns-2 aodv.cc recvRequest: max(seqno, rq_dst_seqno) + 1", "the destination increments its sequence number on every RREQ it answers"),
    o("routing.aodv.expiry_increments_seqno", "bool", "RFC 3561 §6.11: on a break only; ns-2 aodv.cc rt_purge: rt_seqno++ on expiry too", "an expired route's destination sequence number is incremented"),
    o("routing.aodv.rerr_broadcast", "bool", "RFC 3561 §6.11: unicast to a single precursor; ns-2 aodv.cc sendError: always broadcast", "broadcast every RERR"),
    o("routing.aodv.link_failure", "\"rfc3561\" | \"ns2\"", "RFC 3561 §6.11-6.12; ns-2 aodv.cc rt_ll_failed", "reaction to a unicast the MAC gave up on"),
    // dsr
    o("routing.dsr.promiscuous", "bool", "RFC 4728 §3.4; ns-2 CMU DSR", "pass overheard frames to DSR"),
    o("routing.dsr.snoop_routes", "bool", "RFC 4728 §3.4.1", "cache overheard routes (needs promiscuous)"),
    o("routing.dsr.salvage", "bool", "RFC 4728 §8.4.1", "salvage packets on a link break"),
    n("routing.dsr.max_salvage_count", "integer", "", Range::closed(0.0, 15.0, "the Salvage field has 4 bits (RFC 4728 §6.7)"), "RFC 4728 §9 MAX_SALVAGE_COUNT", "salvages per packet"),
    o("routing.dsr.reply_from_cache", "bool", "RFC 4728 §3.3.2", "intermediate nodes reply from cache"),
    o("routing.dsr.gratuitous_replies", "bool", "RFC 4728 §3.4.3", "route shortening replies"),
    n("routing.dsr.grat_reply_holdoff_s", "float", S, TIMER, "RFC 4728 §9 GratReplyHoldoff", "holdoff of shortening replies"),
    o("routing.dsr.gratuitous_errors", "bool", "RFC 4728 §3.4.2", "piggyback the last Route Error"),
    o("routing.dsr.maintenance", "\"link_layer\" | \"passive\" | \"network\"", "RFC 4728 §8.3; seeds 002, 003", "route maintenance"),
    n("routing.dsr.send_buffer_s", "float", S, TIMER, "RFC 4728 §9 SendBufferTimeout", "longest wait for a route"),
    n("routing.dsr.send_buffer_packets", "integer", "packets", BUFFER, "ns-2 CMU DSR (64)", "send buffer capacity"),
    o("routing.dsr.nonprop_requests", "bool", "RFC 4728 §3.3.3", "non-propagating request first"),
    o("routing.dsr.request_backoff", "\"rfc4728\" | \"ns2\"", "RFC 4728 §8.2.1; ns-2 dsragent.cc", "spacing of repeated requests"),
    o("routing.dsr.cache_delivered_routes", "bool", "RFC 4728 §8.1.4; ns-2: no", "cache routes of delivered packets"),
    n("routing.dsr.nonprop_request_timeout_s", "float", S, TIMER, "RFC 4728 §9 NonpropRequestTimeout", "wait after a non-propagating request"),
    n("routing.dsr.request_period_s", "float", S, TIMER, "RFC 4728 §9 RequestPeriod", "first wait for a reply"),
    n("routing.dsr.max_request_period_s", "float", S, TIMER, "RFC 4728 §9 MaxRequestPeriod", "cap of the back-off (at least request_period_s)"),
    n("routing.dsr.max_request_rexmt", "integer", "attempts", SMALL_COUNT, "RFC 4728 §9 MaxRequestRexmt", "propagating requests per discovery"),
    n("routing.dsr.discovery_hop_limit", "integer", "hops", TTL, "RFC 4728 §9 DiscoveryHopLimit", "TTL of a propagating request"),
    n("routing.dsr.request_table_size", "integer", "initiators", BUFFER, "RFC 4728 §9 RequestTableSize", "initiators remembered"),
    n("routing.dsr.request_table_ids", "integer", "ids", BUFFER, "RFC 4728 §9 RequestTableIds", "request ids per initiator"),
    n("routing.dsr.broadcast_jitter_s", "float", S, JITTER, "RFC 4728 §9 BroadcastJitter", "rebroadcast jitter"),
    n("routing.dsr.route_cache_timeout_s", "float", S, TIMER, "RFC 4728 §9 RouteCacheTimeout", "lifetime of an unused cached link"),
    n("routing.dsr.route_cache_paths", "integer", "paths", BUFFER, "ns-2 CMU DSR (30 + 34)", "route cache capacity"),
    n("routing.dsr.maint_holdoff_s", "float", S, JITTER, "RFC 4728 §9 MaintHoldoffTime", "recently confirmed links need no ACK"),
    n("routing.dsr.max_maint_rexmt", "integer", "attempts", SMALL_COUNT, "RFC 4728 §9 MaxMaintRexmt", "retransmissions before a link is broken"),
    n("routing.dsr.try_passive_acks", "integer", "attempts", SMALL_COUNT, "RFC 4728 §9 TryPassiveAcks", "tries waiting for a passive ACK"),
    n("routing.dsr.passive_ack_timeout_s", "float", S, TIMER, "RFC 4728 §9 PassiveAckTimeout", "wait for a passive ACK"),
    n("routing.dsr.ack_timeout_s", "float", S, TIMER, "our choice (RFC 4728 §8.3.3 leaves it adaptive)", "wait for a network-layer ACK"),
    o("routing.dsr.flow_state", "bool", "ns-2 dsragent.cc dsragent_enable_flowstate", "CMU DSR flow state: routes only on a flow's first packets"),
    o("routing.dsr.salvage_discovery", "bool", "ns-2 dsragent.cc NEW_SALVAGE_LOGIC", "forwarders buffer unsalvageable packets and ask for a route (needs send_buffer_check_s)"),
    n("routing.dsr.error_hold_s", "float", S, JITTER, "ns-2 dsragent.cc max_err_hold (1 s)", "Route Error piggybacked on every request this long; 0: on the next request only"),
    o("routing.dsr.double_ip_header", "bool", "ns-2 dsragent.cc recv (IP_HDR_LEN)", "data packets carry a second 20-byte IP header"),
    o("routing.dsr.reverse_learning", "bool", "RFC 4728 §8.1.4; ns-2 routecache.cc pre_noticeRouteUsed: false", "also cache the reverse of routes heard, and the way back to every request's initiator"),
    o("routing.dsr.snoop_own_packets", "bool", "ns-2 dsragent.cc tap (p.src == net_id): false", "learn from overheard packets this node originated (forwarded by a neighbour)"),
    o("routing.dsr.jitter_originated", "bool", "ns-2 dsragent.cc sendOutPacketWithRoute, returnSrcRouteToRequestor (RREQ_JITTER): true", "own route requests and the target's replies also wait U(0, broadcast_jitter_s)"),
    n("routing.dsr.send_buffer_check_s", "float", S, JITTER, "ns-2 dsragent.h BUFFER_CHECK", "send-buffer scan period (0: packets leave at once)"),
    // olsr
    n("routing.olsr.hello_interval_s", "float", S, OLSR_VTIME, "RFC 3626 §18.2 HELLO_INTERVAL", "HELLO period"),
    n("routing.olsr.refresh_interval_s", "float", S, OLSR_VTIME, "RFC 3626 §18.2 REFRESH_INTERVAL", "neighbour refresh (>= hello_interval_s)"),
    n("routing.olsr.tc_interval_s", "float", S, OLSR_VTIME, "RFC 3626 §18.2 TC_INTERVAL", "TC period"),
    n("routing.olsr.neighb_hold_time_s", "float", S, OLSR_VTIME, "RFC 3626 §18.3 NEIGHB_HOLD_TIME", "Vtime of HELLOs"),
    n("routing.olsr.top_hold_time_s", "float", S, OLSR_VTIME, "RFC 3626 §18.3 TOP_HOLD_TIME", "Vtime of TCs"),
    n("routing.olsr.dup_hold_time_s", "float", S, TIMER, "RFC 3626 §18.3 DUP_HOLD_TIME", "duplicate set lifetime"),
    n("routing.olsr.max_jitter_s", "float", S, JITTER, "RFC 3626 §18.9 MAXJITTER", "emission jitter (below the intervals)"),
    n("routing.olsr.willingness", "integer", "", Range::closed(0.0, 7.0, "RFC 3626 §18.8: WILL_NEVER 0 to WILL_ALWAYS 7"), "RFC 3626 §18.8 WILL_DEFAULT", "willingness to forward"),
    n("routing.olsr.mpr_coverage", "integer", "MPRs", POS_COUNT, "RFC 3626 §16.1 MPR_COVERAGE", "MPRs per two-hop neighbour"),
    n("routing.olsr.tc_redundancy", "integer", "", Range::closed(0.0, 2.0, "RFC 3626 §15.1: 0, 1 or 2"), "RFC 3626 §15.1 TC_REDUNDANCY", "what TCs advertise"),
    o("routing.olsr.hysteresis", "bool", "RFC 3626 §14", "link hysteresis"),
    n("routing.olsr.hyst_threshold_high", "float", "", UNIT_FRACTION, "RFC 3626 §18.7 HYST_THRESHOLD_HIGH", "link quality to establish"),
    n("routing.olsr.hyst_threshold_low", "float", "", UNIT_FRACTION, "RFC 3626 §18.7 HYST_THRESHOLD_LOW", "link quality to drop (<= high)"),
    n("routing.olsr.hyst_scaling", "float", "", Range::above(0.0, 1.0, "RFC 3626 §14.3: a weight in (0, 1]"), "RFC 3626 §18.7 HYST_SCALING", "link quality EWMA weight"),
    o("routing.olsr.immediate_tc", "bool", "RFC 3626 §9.3; seed 003 Table 4", "send a TC on every change"),
    o("routing.olsr.link_layer_feedback", "bool", "RFC 3626 §13", "MAC failures mark the link lost"),
    // dsdv
    n("routing.dsdv.periodic_update_s", "float", S, TIMER, "ns-2 perup_", "mean spacing of full dumps"),
    n("routing.dsdv.min_update_periods", "integer", "periods", POS_COUNT, "ns-2 min_update_periods_", "silent periods before routes break"),
    o("routing.dsdv.use_settling", "bool", "Perkins & Bhagwat §III-E; ns-2", "weighted settling time"),
    n("routing.dsdv.settling_initial_s", "float", S, JITTER, "ns-2 wst0_", "initial settling time"),
    n("routing.dsdv.settling_alpha", "float", "", UNIT_FRACTION, "ns-2 alpha_", "weight of the past in the settling average"),
    o("routing.dsdv.triggered_updates", "bool", "ns-2", "incremental updates on metric changes"),
    o("routing.dsdv.trigger_on_new_seqno", "bool", "ns-2 TRIGGER_UPDATE_ON_FRESH_SEQNUM", "also trigger on a fresh sequence number"),
    n("routing.dsdv.min_triggered_interval_s", "float", S, JITTER, "ns-2 DSDV_MIN_TUP_PERIOD", "minimum spacing of triggered updates"),
    o("routing.dsdv.jitter", "bool", "ns-2 be_random_", "randomise timers"),
    n("routing.dsdv.startup_jitter_s", "float", S, JITTER, "ns-2 DSDV_STARTUP_JITTER", "first dump jitter"),
    n("routing.dsdv.broadcast_jitter_s", "float", S, JITTER, "ns-2 DSDV_BROADCAST_JITTER", "update jitter"),
    o("routing.dsdv.use_mac", "bool", "ns-2 use_mac_", "link-layer feedback breaks routes"),
    n("routing.dsdv.max_queue_len", "integer", "packets", Range::closed(0.0, 100_000.0, "0 holds nothing; 100,000 packets bounds memory"), "ns-2 MAX_QUEUE_LENGTH", "packets held per destination without a route"),
    o("routing.dsdv.packet_format", "\"udp\" | \"ns2\"", "ns-2 dsdv.cc makeUpdate", "bytes charged per update"),
    o("routing.dsdv.double_ip_header", "bool", "ns-2 dsdv.cc recv (IP_HDR_LEN)", "packets this node originates carry a second 20-byte IP header"),
    // --- link ---
    o("link.arp", "\"off\" | \"ns2\" | \"queue\"", "seed 002 §8.1.2 (ns2)", "ARP behaviour"),
    n("link.arp_queue_limit", "integer", "packets", BUFFER, "our choice", "packets held per unresolved address (arp = \"queue\")"),
    n("link.delay_us", "float", "us", Range::closed(0.0, 1e6, "no delay (a plain number: 0 us) to 1 s, far beyond any link layer's processing time"), "ns-2 LL delay_ (mac/ll.cc LL::sendDown, LL::sendUp; ns-default.tcl: 25us)", "a packet routing sends waits this long before the interface queue, one the MAC receives this long before routing (ARP's own packets do not)"),
    o("link.refill_before_failure_sends", "bool", "ns-2 mac-802_11.cc RetransmitRTS/RetransmitDATA: the transmit-failure callback runs, the routing agent schedules what it sends as events at delay 0 (aodv.cc sendError, forward), and tx_resume() pulls the queue's next packet first", "what routing sends while it handles a failed transmission enters the interface queue after the MAC has taken its next frame"),
    // --- mobility ---
    n("mobility.step_m", "float", "m", Range::closed(0.01, 1000.0, "1 cm to 1 km: finer than any radio range needs, coarser steps make movement jumps"), "our choice", "position update granularity"),
    d(n("mobility.legs[].node", "integer", "node", NODE_ID, "our choice", "moving node"), "required"),
    d(n("mobility.legs[].at_s", "float", S, RUN_TIME, "our choice", "start of the leg"), "required"),
    d(n("mobility.legs[].to[]", "[x, y] floats", "m", COORD, "our choice", "destination"), "required"),
    d(n("mobility.legs[].speed_mps", "float", "m/s", Range::closed(1e-6, 1000.0, "1 um/s to 1 km/s: ns-2's setdest -v 1 draws speeds from U(0, max], so its files hold legs far below a crawl; 1 km/s is beyond any aircraft at low altitude"), "our choice", "speed"), "required"),
    o("mobility.model", "\"legs\" | \"waypoint\" | \"walk\" | \"direction\"", "our choice; waypoint: ns-2 setdest; walk: Camp et al. 2002 §2.1; direction: Royer et al. 2001", "scripted legs, or random waypoint, random walk or random direction in the topology.width_m x height_m area (topology.kind = \"random\")"),
    n("mobility.speed_min_mps", "float", "m/s", Range::closed(0.0, 1000.0, "0 (setdest's original minimum) to 1 km/s"), "ns-2 setdest -m (seed 001: 0; seed 002: 0.9 v)", "waypoint, walk, direction: lowest leg speed"),
    n("mobility.speed_max_mps", "float", "m/s", Range::closed(1e-6, 1000.0, "1 um/s to 1 km/s: ns-2's setdest -v 1 draws speeds from U(0, max], so its files hold legs far below a crawl; 1 km/s is beyond any aircraft at low altitude"), "ns-2 setdest -M (seed 001: 10; seed 002: 1.1 v)", "waypoint, walk, direction: highest leg speed"),
    n("mobility.pause_s", "float", S, RUN_TIME, "ns-2 setdest -p (seeds 001, 002: 0)", "waypoint: pause at each waypoint and at the start; direction: at each arrival on the border; walk: must be 0"),
    o("mobility.steady_state", "bool", "Navidi & Camp 2004 (needs speed_min_mps > 0)", "waypoint: start in the stationary distribution of position, speed and pause"),
    n("mobility.walk_interval_s", "float", S, Range::closed(0.01, 1e7, "10 ms (a turn faster than any vehicle makes) to the longest supported run (1e7 s)"), "ns-3 RandomWalk2dMobilityModel Time (1 s)", "walk: a new direction and speed this often (time mode of Camp et al. 2002 §2.1)"),
    // --- tcp (flows[].tcp has the same fields) ---
    o("tcp.variant", "\"tahoe\" | \"reno\" | \"new_reno\" | \"sack\" | \"vegas\"", "seeds", "TCP variant"),
    n("tcp.mss_bytes", "integer", "bytes", Range::closed(MIN_MSS as f64, 65_495.0, "RFC 791: every host accepts 68-byte datagrams (28 bytes of payload); 65495 = 65535 - 40 header bytes"), "seed 000 §3 (1460)", "segment payload"),
    n("tcp.max_cwnd", "integer", SEG, Range::closed(0.0, MAX_SEGMENTS, "0 = unclamped; at most the RFC 7323 maximum window (65535 << 14 bytes) in segments of the smallest MSS"), "seeds 000, 004", "window clamp"),
    n("tcp.receive_window_bytes", "integer", "bytes", Range::closed(MIN_MSS as f64, crate::tcp::MAX_WINDOW_BYTES as f64, "at least one segment; at most 65535 << 14 (RFC 7323 §2.3)"), "RFC 793 / RFC 7323 §2 (65535)", "advertised window"),
    d(n("tcp.initial_cwnd", "integer", SEG, Range::closed(1.0, MAX_SEGMENTS, "at least one segment; at most the RFC 7323 maximum window (65535 << 14 bytes) in segments (checked against mss_bytes)"), "RFC 5681 §3.1", "initial window"), "RFC 5681 §3.1: 3 for 1460 B"),
    n("tcp.initial_ssthresh", "integer", SEG, Range::closed(0.0, MAX_SEGMENTS, "0 = the largest window (RFC 5681's arbitrarily high); at most the RFC 7323 maximum window in segments of the smallest MSS"), "RFC 5681 §3.1 (arbitrarily high); ns-2 tcp.cc TcpAgent::reset (ssthresh_ = window_ at the agent's creation)", "initial slow-start threshold"),
    o("tcp.delayed_ack", "bool", "ns-2 DelAck (seed 000 §4.1)", "false = an ACK per segment (receiver = \"every\")"),
    n("tcp.delack_timeout_s", "float", S, Range::closed(1e-3, 0.5, "1 ms (timer granularity) to 0.5 s (RFC 1122 §4.2.3.2: an ACK MUST NOT be delayed longer)"), "ns-2 DelAck interval_", "delayed-ACK timer"),
    n("tcp.min_rto_s", "float", S, Range::closed(0.0, 3600.0, "no floor of its own (ns-2 minrto_ 0) to 1 h; the RTO still never falls below SRTT + the 1 ms granularity G (rfc6298) or two ticks (ns2), so no timer fires at once"), "ns-2 minrto_ (0.2)", "lower bound of the RTO"),
    n("tcp.initial_rto_s", "float", S, Range::closed(1e-3, 3600.0, "1 ms (RFC 6298 clock granularity G used here) to 1 h"), "RFC 6298 (2.1)", "RTO before the first RTT sample"),
    n("tcp.max_rto_s", "float", S, Range::closed(1e-3, 3600.0, "1 ms to 1 h (RFC 6298 (2.5): a maximum of at least 60 s)"), "RFC 6298 (2.5)", "upper bound of the RTO (>= min_rto_s)"),
    o("tcp.syn", "bool", "ns-2 tcp.cc output/set_initial_window (Agent/TCP syn_ true)", "a 40-byte SYN first, with cwnd 1; initial_cwnd once it is ACKed"),
    o("tcp.rto_estimator", "\"rfc6298\" | \"ns2\"", "RFC 6298; ns-2 tcp.cc rtt_update/rtt_timeout", "retransmission timer: RFC 6298, or ns-2's tick-based one with one timed segment per RTT"),
    o("tcp.ns2_rfc2988", "bool", "ns-2 Agent/TCP rfc2988_ (tcp.cc rtt_timeout, rtt_backoff; ns-default.tcl: true)", "ns2 timer only: true clamps min_rto_s before the backoff multiplies the RTO and doubles the backoff while the RTO is under max_rto_s; false clamps after it and doubles only while the backoff is under 64"),
    o("tcp.limited_transmit", "bool", "ns-2 Agent/TCP singledup_ (tcp.cc recv, send_one; tcp-reno.cc and tcp-newreno.cc recv; ns-default.tcl: 1); RFC 3042", "tahoe, reno and new_reno: at each of the first two dupacks one segment beyond the window, if the receive window admits it and at most cwnd + dupacks are outstanding (ns-2's Sack1 and Vegas never read singledup_)"),
    o("tcp.ns2_recover_gate", "bool", "ns-2 tcp.cc TcpAgent::dupack_action, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc: recovered = highest_ack_ > recover_ (bug_fix_ true, less_careful_ false)", "a fast retransmit only once the highest segment ACKed is beyond recover (the highest sent at the last recovery or timeout); false: once the ACK covers recover (RFC 6582 §3.2 step 2). ns-2's reading stops a Tahoe go-back-N from re-sending segments the sink holds and counting their duplicate ACKs as a new loss"),
    n("tcp.header_bytes", "integer", "bytes", Range::closed(0.0, 120.0, "0 (ns-2 useHeaders_ false) to 120, IPv4 (at most 60) plus TCP (at most 60) headers"), "ns-2 Agent/TCP useHeaders_, tcpip_base_hdr_size_ (tcp.cc output, headersize(): 40)", "IP + TCP header bytes each data segment adds to its payload; SYNs and ACKs keep 40"),
    o("tcp.delay_growth", "bool", "ns-2 Agent/TCP delay_growth_ (tcp.cc set_initial_window, recv; ns-default.tcl: true)", "with syn: the window is 1 until the SYN is ACKed, then initial_cwnd; false: initial_cwnd from the start, the SYN one of its segments; without syn: no effect"),
    n("tcp.tick_s", "float", S, Range::closed(1e-6, 1.0, "1 us to 1 s (ns-2 tcpTick_; read only by rto_estimator = \"ns2\")"), "ns-2 tcpTick_ (0.01)", "clock tick of the ns2 retransmission timer"),
    n("tcp.vegas_alpha", "integer", SEG, Range::closed(1.0, 65_535.0, "at least one segment, at most vegas_beta"), "ns-2 v_alpha_", "Vegas: grow below this many queued segments"),
    n("tcp.vegas_beta", "integer", SEG, Range::closed(1.0, 65_535.0, "at least one segment"), "ns-2 v_beta_", "Vegas: shrink above this many queued segments"),
    n("tcp.vegas_gamma", "integer", SEG, Range::closed(1.0, 65_535.0, "at least one segment"), "ns-2 v_gamma_", "Vegas: leave slow start above this many queued segments"),
    o("tcp.receiver", "\"ns2\" | \"linux\" | \"every\"", "ns-2 DelAck; seed 000 (linux)", "receiver ACK policy"),
    o("tcp.clamp", "\"sender\" | \"receiver\"", "ns-2 maxcwnd_; Linux TCP_WINDOW_CLAMP", "how max_cwnd applies"),
    n("tcp.few_alpha", "float", "", Range::above(0.0, 1.0, "seed 001 Eq. 9: 0 < alpha <= 1 (1 = standard TCP)"), "seed 001 §4", "FeW window growth per RTT"),
    n("tcp.few_w_min", "float", SEG, Range::above(0.0, 1.0, "seed 001 §4: a fraction of a segment"), "seed 001 §4", "FeW lower bound of cwnd"),
    n("tcp.few_ssthresh_min", "float", SEG, Range::open(0.0, 1.0, "seed 001 §4: strictly between 0 and 1 segment"), "seed 001 §4", "FeW lower bound of ssthresh"),
    o("tcp.ecn", "bool", "RFC 3168", "ECN-capable transport"),
    o("tcp.elfn", "bool", "Holland & Vaidya 1999", "ELFN standby on route loss"),
    o("tcp.adtcp", "bool", "Fu et al. 2002", "ADTCP state detection"),
    n("tcp.probe_interval_s", "float", S, TIMER, "Holland & Vaidya 1999 (2 s)", "probe period in ELFN standby / ADTCP disconnection"),
    // --- flows ---
    d(o("flows[].kind", "\"ftp\" | \"cbr\" | \"www\"", "seeds; seed 002 §8.6 (www)", "FTP over TCP, CBR over UDP, or a WWW session (a TCP transfer per download)"), "required"),
    d(n("flows[].src", "integer", "node", NODE_ID, "our choice", "source node"), "required"),
    d(n("flows[].dst", "integer", "node", NODE_ID, "our choice", "destination node (not src)"), "required"),
    d(n("flows[].start_s", "float", S, RUN_TIME, "our choice", "start time (before the end of the run)"), "0"),
    d(n("flows[].stop_s", "float", S, RUN_TIME, "our choice", "stop time (after start_s)"), "end of the run"),
    d(n("flows[].bytes", "integer", "bytes", Range::closed(1.0, 1e15, "at least one byte; 1 PB"), "our choice", "ftp: bytes to transfer"), "infinite"),
    d(n("flows[].rate_kbps", "float", "kbit/s", Range::closed(1e-3, 1e7, "1 bit/s to 10 Gbit/s: above any 802.11 PHY rate"), "our choice", "cbr: UDP payload rate"), "required for cbr"),
    d(n("flows[].packet_size_bytes", "integer", "bytes", Range::closed(1.0, 65_507.0, "1 byte to the UDP maximum payload (65535 - 28)"), "ns-2 Application/Traffic/CBR (512)", "cbr: payload per packet"), "512"),
    d(n("flows[].on_s", "float", S, Range::closed(1e-6, 1e7, "a microsecond to the longest run"), "ns-2 Application/Traffic/Exponential burst_time_", "cbr: mean (or fixed) on period"), "always on"),
    d(n("flows[].off_s", "float", S, Range::closed(0.0, 1e7, "none to the longest run"), "ns-2 Application/Traffic/Exponential idle_time_", "cbr: mean (or fixed) off period"), "always on"),
    d(o("flows[].jitter", "bool", "ns-2 Application/Traffic/CBR random_ (cbr_traffic.cc CBR_Traffic::next_interval)", "cbr: each gap between packets is interval x (1 + U(-0.5, 0.5)); not with on_s/off_s"), "false"),
    d(n("flows[].max_packets", "integer", "packets", Range::closed(1.0, 1e15, "at least one (ns-2 sends one packet even for maxpkts_ 0); 1e15 is beyond any run"), "ns-2 Application/Traffic/CBR maxpkts_ (cbr_traffic.cc CBR_Traffic::next_interval)", "cbr: the source stops after this many packets"), "unlimited"),
    d(o("flows[].distribution", "\"exponential\" | \"fixed\"", "ns-2 Application/Traffic/Exponential", "cbr on-off: how on and off periods are drawn"), "exponential"),
    d(n("flows[].downloads", "integer", "downloads", Range::closed(1.0, 100_000.0, "at least one; 100,000 is far beyond a browsing session"), "seed 002 §8.6 (15)", "www: most downloads in the session"), "15"),
    d(n("flows[].think_shape", "float", "", Range::closed(0.1, 100.0, "a Pareto shape; below 0.1 the tail exceeds any run"), "our choice: SURGE (Barford & Crovella 1998) inactive OFF", "www: Pareto shape of the think time"), "1.5"),
    d(n("flows[].think_scale_s", "float", S, Range::closed(1e-3, 1e6, "1 ms to far beyond a run"), "our choice: SURGE inactive OFF", "www: smallest think time (Pareto scale)"), "1"),
    d(n("flows[].size_median_bytes", "float", "bytes", Range::closed(1.0, 1e12, "at least one byte; 1 TB"), "seed 002 §8.7 (Abrahamsson & Ahlgren: 7145)", "www: median download size (lognormal)"), "7145"),
    d(n("flows[].size_sigma", "float", "", Range::closed(0.0, 10.0, "0 is a fixed size; 10 spans any file size"), "our choice: SURGE body size (1.318)", "www: sigma of ln(download size)"), "1.318"),
    // --- output ---
    o("output.timeseries", "bool", "our choice", "record cwnd/ssthresh/srtt/rto time series"),
    n("output.timeseries_interval_s", "float", S, Range::closed(0.0, 1e7, "0 keeps every change; at most the longest run"), "our choice (series.rs)", "keep the last change of each series per interval"),
    n("output.timeseries_max_samples", "integer", "samples", Range::closed(crate::series::MIN_MAX_SAMPLES as f64, crate::series::MAX_MAX_SAMPLES as f64, "enough for a figure; 1e6 per flow bounds memory"), "our choice (series.rs)", "cap per flow: the interval doubles and samples merge when reached"),
    o("output.trace", "bool", "our choice", "record the event trace in memory (the trace table), filtered by [trace]"),
    // --- trace ---
    d(o("trace.formats[]", "\"csv\" | \"anim\" | \"ns2\" | \"pcap\" | \"pcapng\"", "our choice (issue 24)", "files streamed into the run's directory while it runs: trace.csv, anim.csv (the animator's log), trace.tr (ns-2 wireless trace), pcap or pcapng captures (`pcap`)"), "none"),
    o("trace.ns2_format", "\"old\" | \"new\"", "ns-2 cmu-trace.cc (seed 002 Appendix B)", "ns-2 trace format of the \"ns2\" format"),
    o("trace.pcap", "\"channel\" | \"nodes\" | \"hosts\"", "hoplab's choice: the air as one capture for Wireshark and tcptrace, or each node as tcpdump on it would see it", "pcap: one capture of every frame on the air (channel.pcap), per node the frames it sent and decoded (node-N.pcap), or per node its IP packets as tcpdump on it sees them (host-N.pcap); per-node files only for trace.nodes when it names some"),
    d(n("trace.nodes[]", "integer", "node", NODE_ID, "our choice", "keep only these nodes (empty: all)"), "all"),
    d(o("trace.layers[]", "\"AGT\" | \"RTR\" | \"MAC\" | \"PHY\"", "ns-2 cmu-trace.cc trace levels", "keep only these layers (empty: all)"), "all"),
    d(o("trace.drop_levels[]", "\"RTR\" | \"IFQ\" | \"MAC\"", "ns-2 ns-mobilenode.tcl: RTR and IFQ drop targets are traced whatever the trace switches say", "also keep drops logged at these ns-2 levels when layers leaves their layer out"), "none"),
    d(o("trace.packet_types[]", "\"tcp\" | \"ack\" | \"cbr\" | \"routing\" | \"ARP\" | \"MAC\"", "the drops table's packet types", "keep only these packet types (empty: all)"), "all"),
    d(o("trace.events[]", "\"send\" | \"recv\" | \"fwd\" | \"drop\" | \"col\" | \"weak\"", "ns-2 s/r/f/D; PHY outcomes", "keep only these events (empty: all)"), "all"),
    n("trace.start_s", "float", S, RUN_TIME, "our choice", "keep events from this time on; before the end of the run (a window after it is refused)"),
    d(n("trace.end_s", "float", S, RUN_TIME, "our choice", "keep events up to this time (after start_s)"), "end of the run"),
    // --- lred ---
    o("lred.enabled", "bool", "seed 001 §5.5", "link-layer ECN marking"),
    n("lred.min_th", "float", "retries/packet", Range::closed(0.0, 255.0, "an average of retries, at most dot11 retry limits (255)"), "our choice (net/lred.rs)", "average retries where marking starts"),
    n("lred.max_th", "float", "retries/packet", Range::above(0.0, 255.0, "above min_th, at most dot11 retry limits (255)"), "our choice (net/lred.rs)", "average retries where marking reaches max_p"),
    n("lred.max_p", "float", "", Range::above(0.0, 1.0, "a probability"), "ns-2 RED linterm_ 10", "largest marking probability"),
    n("lred.weight", "float", "", Range::above(0.0, 1.0, "an EWMA weight"), "our choice (net/lred.rs)", "EWMA weight of each packet"),
    // --- emulation (`hoplab emu`; the simulation ignores it) ---
    d(n("emulation.nodes[]", "integer", "node", EMU_NODE, "issue 25", "real nodes, each once: a network namespace with a TUN device each, where real Linux stacks run"), "required"),
    d(o("emulation.namespaces[]", "string", "our choice (issue 25)", "one per real node, in the order of nodes: \"\" for a fresh namespace (removed with the run), or the name of an existing `ip netns` namespace (entered, never removed), each node its own"), "[] (all fresh)"),
    n("emulation.lookahead_ms", "float", "ms", Range::closed(0.1, 1000.0, "0.1 ms: the engine is advanced every half look-ahead but at most every 50 us (crates/hoplab-emu driver.rs), so below it a delivery could be computed after it is due; 1 s: it is added to every real packet's first hop, and 1 s is TCP's initial RTO (RFC 6298)"), "our choice (crates/hoplab-emu driver.rs)", "the engine's head start over the clock: a packet read from a TUN device enters the simulation this long after it was read"),
    o("emulation.on_lag", "\"warn\" | \"abort\"", "our choice (issue 25)", "falling behind real time by more than lag_threshold_ms: one line per episode and go on, or end the run with one line (exit 2)"),
    n("emulation.lag_threshold_ms", "float", "ms", Range::closed(0.01, 60_000.0, "10 us: writes land tens of us late even when the loop keeps up, so a lower threshold would count nearly every write; 1 min: a longer lag is an outage, not lateness"), "our choice (crates/hoplab-emu lateness.rs)", "a write, or a wake-up of the loop, later than this starts an episode of lag"),
    n("emulation.spin_us", "float", "us", Range::closed(0.0, 10_000.0, "0 sleeps to each deadline; 10 ms: beyond a scheduler time slice (~4 ms), a longer spin only burns a core"), "our choice (issue 25: timer wake-ups are late by ~27 us at the median, ~1 ms at the 99th percentile on a loaded machine)", "wake this long before each deadline and spin to it"),
    o("emulation.realtime", "bool", "sched(7) SCHED_FIFO", "ask for real-time priority for the loop (a warning, not an error, when refused)"),
    d(n("emulation.commands[].node", "integer", "node", EMU_NODE, "our choice", "the real node (one of emulation.nodes) in whose namespace the command runs"), "required"),
    d(o("emulation.commands[].run", "string", "our choice", "the command line, split as a shell splits words but run without one; {python} stands for hoplab's Python"), "required"),
    d(n("emulation.commands[].start_s", "float", S, RUN_TIME, "our choice", "start it this long after the run starts (before the end of the run)"), "0"),
    d(o("emulation.commands[].wait", "bool", "our choice", "the run ends once every command that waits has exited, or at duration_s"), "true"),
];

/// The field at a pattern path (`flows[].tcp.mss_bytes` is looked up as
/// `tcp.mss_bytes`: a flow's TCP table has the scenario's fields).
pub fn find(pattern: &str) -> Option<&'static Field> {
    let key = pattern.strip_prefix("flows[].").filter(|k| k.starts_with("tcp.")).unwrap_or(pattern);
    FIELDS.iter().find(|f| f.path == key)
}
