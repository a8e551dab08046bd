//! `compat`: another simulator's reading of a scenario, as a profile of
//! field values. A profile fills in only the fields the scenario leaves
//! unset, before parsing, so every rule it changes stays a named option of
//! its own layer (`mac.cts_needs_idle`, `routing.preset = "cmu"`, ...), a
//! scenario can turn any one of them back, and the resolved scenario shows
//! what ran. The default (`"standard"`) reads IEEE 802.11 and the RFCs and
//! fills in nothing, so default runs are untouched.
//!
//! Each entry: profile, dotted path, value (TOML), the condition under which
//! it applies (another field equal to a TOML literal), and its source. The
//! first entry that applies to a path fills it, so a conditional entry sits
//! before the unconditional one it overrides.

use super::rename::Tree;
pub use crate::scenario::model::Compat;

impl Compat {
    /// The profile's entries.
    pub fn entries(self) -> impl Iterator<Item = &'static Entry> {
        PROFILE.iter().filter(move |e| e.profile == self)
    }
}

/// One field value of a profile.
#[derive(Debug)]
pub struct Entry {
    pub profile: Compat,
    pub path: &'static str,
    /// The value as a TOML literal.
    pub value: &'static str,
    /// Applies only when this field (a dotted path) holds this value (a
    /// TOML literal: `"aodv"`, `true`).
    pub when: Option<(&'static str, &'static str)>,
    pub source: &'static str,
}

const fn ns2(path: &'static str, value: &'static str, source: &'static str) -> Entry {
    Entry { profile: Compat::Ns2, path, value, when: None, source }
}
const fn ns2_if(path: &'static str, value: &'static str, when: (&'static str, &'static str), source: &'static str) -> Entry {
    Entry { profile: Compat::Ns2, path, value, when: Some(when), source }
}

/// Every profile entry, by layer. ns-2 sources are ns-2.35's files.
pub const PROFILE: &[Entry] = &[
    // --- mac ---
    ns2("mac.idle_backoff", "true", "mac/mac-802_11.cc Mac802_11::send: DIFS + a backoff even on an idle medium"),
    ns2("mac.cts_needs_idle", "true", "mac/mac-802_11.cc check_pktCTRL, check_pktTx: CTS / DATA only if is_idle() when due"),
    ns2("mac.capture_nav", "true", "mac/mac-802_11.cc Mac802_11::capture: set_nav(EIFS + txtime(p))"),
    ns2("mac.eifs_nav", "true", "mac/mac-802_11.cc Mac802_11::recv_timer: set_nav(EIFS) after an error, then DIFS"),
    ns2("mac.rts_threshold_basis", "\"ns2\"", "mac/mac-802_11.cc Mac802_11::sendRTS: size with getHdrLen11() against RTSThreshold_"),
    ns2("mac.data_header_bytes", "30", "mac/mac-802_11.h hdr_mac802_11: four addresses, getHdrLen11() = 24 + 30 + 4"),
    // --- radio ---
    ns2("radio.capture_model", "\"ns2\"", "mac/mac-802_11.cc Mac802_11::recv: one-interferer CPThresh test, capture() / collision()"),
    ns2("radio.lock_while_transmitting", "true", "mac/mac-802_11.cc Mac802_11::recv: a frame starting during tx_active_ is marked in error but held"),
    // --- link ---
    ns2("link.arp", "\"ns2\"", "mac/arp.cc ARPTable::arpresolve: one packet held per unresolved address, a request per packet, the fourth fails to routing"),
    ns2("link.delay_us", "25.0", "ns-default.tcl: LL set delay_ 25us (mac/ll.cc LL::sendDown, LL::sendUp)"),
    ns2("link.refill_before_failure_sends", "true", "mac/mac-802_11.cc RetransmitRTS, RetransmitDATA: xmit_failure_ runs, the agent's packets are events at delay 0, tx_resume() takes the queue's head first"),
    ns2("mac.data_rate_mbps", "1.0", "ns-default.tcl: Mac/802_11 set dataRate_ 1Mb (a script that sets no rate sends data at 1 Mbit/s)"),
    // --- routing ---
    ns2_if("routing.preset", "\"cmu\"", ("routing.protocol", "\"aodv\""), "aodv/aodv.h, aodv/aodv.cc (CMU AODV)"),
    ns2_if("routing.dsdv.double_ip_header", "true", ("routing.protocol", "\"dsdv\""), "dsdv/dsdv.cc DSDV_Agent::recv: cmh->size() += IP_HDR_LEN for every packet it originates, TCP's included"),
    ns2("mac.queue_ns2_priqueue", "true", "queue/priqueue.cc PriQueue::recvHighPriority (enqueHead, drop the tail at qlim_), queue/drop-tail.cc DropTail::enque (refuse at length + 1 >= qlim_)"),
    ns2_if("mac.queue_classes", "true", ("routing.protocol", "\"dsr\""), "tcl/mobility/dsr.tcl: ns-2's DSR agent runs on CMUPriQueue (queue/dsr-priqueue.cc), its ACKs ahead of data"),
    ns2_if("routing.preset", "\"cmu\"", ("routing.protocol", "\"dsr\""), "dsr/dsragent.cc (CMU DSR, with flow state, the send-buffer scan and NEW_SALVAGE_LOGIC)"),
    // --- tcp: ns-2's Agent/TCP and Agent/TCPSink defaults (tcl/lib/ns-default.tcl) ---
    ns2("tcp.mss_bytes", "1000", "ns-default.tcl: Agent/TCP set packetSize_ 1000 (payload; +40 B TCP/IP, tcp.cc)"),
    // tcp.cc set_initial_window: with syn_ and delay_growth_ (both true) a
    // 40-byte SYN goes first with cwnd_ 1; its ACK sets cwnd_ to windowInit_.
    ns2("tcp.syn", "true", "ns-default.tcl: Agent/TCP set syn_ true; tcp.cc output (a tcpip_base_hdr_size_ SYN as seqno 0)"),
    ns2("tcp.initial_cwnd", "2", "ns-default.tcl: Agent/TCP set windowInit_ 2 (after the SYN, tcp.cc recv)"),
    // tcp.cc TcpAgent::reset runs as the agent is created and sets
    // ssthresh_ = window_, which is then the class default: a script sets
    // its agent's own window_ afterwards (ns-default.tcl: window_ 20).
    ns2("tcp.initial_ssthresh", "20", "tcp.cc TcpAgent::reset: ssthresh_ = int(wnd_) when the agent is created (Agent/TCP set window_ 20)"),
    ns2("tcp.limited_transmit", "true", "ns-default.tcl: Agent/TCP set singledup_ 1; tcp.cc send_one from TcpAgent::recv, tcp-reno.cc and tcp-newreno.cc recv"),
    ns2("tcp.ns2_recover_gate", "true", "tcp.cc TcpAgent::dupack_action (and tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc): recovered = highest_ack_ > recover_"),
    ns2("tcp.initial_rto_s", "3.0", "ns-default.tcl: Agent/TCP set rtxcur_init_ 3.0"),
    // A scenario that asks for delayed ACKs gets ns-2's DelAck sink, the
    // one ns-2 scripts attach for them; the profile never contradicts it.
    ns2_if("tcp.receiver", "\"ns2\"", ("tcp.delayed_ack", "true"), "tcp-sink.cc DelAckSink (Agent/TCPSink/DelAck, interval_ 100ms)"),
    ns2("tcp.receiver", "\"every\"", "ns-default.tcl / tcp-sink.cc: Agent/TCPSink ACKs every segment"),
    ns2("tcp.rto_estimator", "\"ns2\"", "tcp.cc rtt_update/rtt_timeout/rtt_backoff, timestamps_ false: one timed segment per RTT; dupack_action reset_rtx_timer"),
    ns2("tcp.tick_s", "0.01", "ns-default.tcl: Agent/TCP set tcpTick_ 0.01"),
];

/// Fill in the profile named by the tree's `compat` field (if any) where
/// the tree leaves a field unset. Returns the profile applied.
pub fn apply<T: Tree>(root: &mut T) -> Compat {
    let compat = match root.get_str("compat").as_deref() {
        Some("ns2") => Compat::Ns2,
        _ => return Compat::Standard, // an unknown name fails in parsing
    };
    for e in compat.entries() {
        if e.when.is_none_or(|(path, want)| root.get_path_literal(path).as_deref() == Some(want)) {
            root.fill(e.path, literal(e.value));
        }
    }
    // A flow's own `tcp` table that sets a field an entry is conditioned on
    // (delayed_ack) gets that entry's value there too, so the flow's sink is
    // the one its own field asks for.
    if let Some(flows) = root.child("flows") {
        for flow in flows.items() {
            let Some(tcp) = flow.child("tcp") else { continue };
            let own = |c: &Entry| c.when.and_then(|(p, _)| p.strip_prefix("tcp.")).is_some_and(|f| tcp.has(f));
            let paths: Vec<&str> = compat.entries().filter(|c| own(c)).map(|c| c.path).collect();
            for e in compat.entries().filter(|e| paths.contains(&e.path)) {
                let applies = e.when.is_none_or(|(p, want)| p.strip_prefix("tcp.").is_some_and(|f| tcp.get_literal(f).as_deref() == Some(want)));
                if let (true, Some(path)) = (applies, e.path.strip_prefix("tcp.")) {
                    tcp.fill(path, literal(e.value));
                }
            }
        }
    }
    compat
}

fn literal(text: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .expect("a profile value is a TOML literal")
        .remove("v")
        .expect("parsed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_parses_and_paths_are_schema_fields() {
        for e in PROFILE {
            let v = toml::from_str::<toml::Table>(&format!("v = {}", e.value));
            assert!(v.is_ok(), "{}: {}", e.path, e.value);
            assert!(super::super::fields::find(e.path).is_some(), "{} is not a schema field", e.path);
        }
    }

    #[test]
    fn a_profile_fills_only_unset_fields() {
        let mut t: toml::Value = toml::from_str("compat = \"ns2\"\n[tcp]\nmss_bytes = 1460\n[routing]\nprotocol = \"dsr\"\n").unwrap();
        assert_eq!(apply(&mut t), Compat::Ns2);
        assert_eq!(t["tcp"]["mss_bytes"].as_integer(), Some(1460), "the scenario's own value stays");
        assert_eq!(t["tcp"]["initial_cwnd"].as_integer(), Some(2));
        assert_eq!(t["tcp"]["syn"].as_bool(), Some(true));
        assert_eq!(t["tcp"]["rto_estimator"].as_str(), Some("ns2"));
        assert_eq!(t["routing"]["preset"].as_str(), Some("cmu"));
        let mut plain: toml::Value = toml::from_str("[tcp]\nmss_bytes = 1460\n").unwrap();
        let before = plain.clone();
        assert_eq!(apply(&mut plain), Compat::Standard);
        assert_eq!(plain, before, "the standard profile fills in nothing");
    }

    #[test]
    fn the_sink_follows_the_scenarios_delayed_ack() {
        let mut t: toml::Value = toml::from_str("compat = \"ns2\"\n[tcp]\ndelayed_ack = true\n").unwrap();
        apply(&mut t);
        assert_eq!(t["tcp"]["receiver"].as_str(), Some("ns2"), "delayed ACKs asked for: ns-2's DelAck sink");
        let mut t: toml::Value = toml::from_str("compat = \"ns2\"\n[tcp]\ndelayed_ack = false\n").unwrap();
        apply(&mut t);
        assert_eq!(t["tcp"]["receiver"].as_str(), Some("every"));
        let mut t: toml::Value = toml::from_str("compat = \"ns2\"\n").unwrap();
        apply(&mut t);
        assert_eq!(t["tcp"]["receiver"].as_str(), Some("every"), "unset: ns-2's default TCPSink");
        assert_eq!(t["mac"]["data_rate_mbps"].as_float(), Some(1.0), "ns-2's dataRate_ 1Mb");
        let src = "compat = \"ns2\"\n[[flows]]\nsrc = 0\n[flows.tcp]\ndelayed_ack = true\n[[flows]]\nsrc = 1\n";
        let mut t: toml::Value = toml::from_str(src).unwrap();
        apply(&mut t);
        assert_eq!(t["flows"][0]["tcp"]["receiver"].as_str(), Some("ns2"), "a flow's own delayed_ack picks its sink");
        assert!(t["flows"][1].get("tcp").is_none(), "a flow without its own tcp table inherits");
    }

    #[test]
    fn a_json_tree_gets_the_same_values() {
        let mut j: serde_json::Value = serde_json::json!({"compat": "ns2", "routing": {"protocol": "aodv"}});
        apply(&mut j);
        assert_eq!(j["tcp"]["mss_bytes"], 1000);
        assert_eq!(j["routing"]["preset"], "cmu", "the condition on routing.protocol holds in JSON too");
        let mut dsdv: serde_json::Value = serde_json::json!({"compat": "ns2", "routing": {"protocol": "dsdv"}});
        apply(&mut dsdv);
        assert!(dsdv["routing"].get("preset").is_none(), "no preset entry names dsdv");
    }
}
