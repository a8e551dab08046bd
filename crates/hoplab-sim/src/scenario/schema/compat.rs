//! `compat`: another simulator's reading of a scenario, as a profile of
//! field values. A profile fills in only the fields the scenario leaves
//! unset, before parsing, so every rule it changes stays a named option of
//! its own layer (`mac.cts_needs_idle`, `routing.preset = "cmu"`, ...), a
//! scenario can turn any one of them back, and the resolved scenario shows
//! what ran. The default (`"standard"`) reads IEEE 802.11 and the RFCs and
//! fills in nothing, so default runs are untouched.
//!
//! Each entry: profile, dotted path, value (TOML), the condition under which
//! it applies (a sibling-or-ancestor field equal to a string), and its source.

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
    /// Applies only when this field (a dotted path) has this string value.
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
    ns2("link.arp", "\"ns2\"", "mac/arp.cc ARPTable::arpresolve: one packet held per unresolved address"),
    // --- routing ---
    ns2_if("routing.preset", "\"cmu\"", ("routing.protocol", "aodv"), "aodv/aodv.h, aodv/aodv.cc (CMU AODV)"),
    ns2_if("routing.preset", "\"cmu\"", ("routing.protocol", "dsr"), "dsr/dsragent.cc (CMU DSR, with flow state, the send-buffer scan and NEW_SALVAGE_LOGIC)"),
    // --- tcp: ns-2's Agent/TCP and Agent/TCPSink defaults (tcl/lib/ns-default.tcl) ---
    ns2("tcp.mss_bytes", "1000", "ns-default.tcl: Agent/TCP set packetSize_ 1000 (payload; +40 B TCP/IP, tcp.cc)"),
    // tcp.cc set_initial_window: with syn_ and delay_growth_ (both true) a
    // 40-byte SYN goes first with cwnd_ 1; its ACK sets cwnd_ to windowInit_.
    ns2("tcp.syn", "true", "ns-default.tcl: Agent/TCP set syn_ true; tcp.cc output (a tcpip_base_hdr_size_ SYN as seqno 0)"),
    ns2("tcp.initial_cwnd", "2", "ns-default.tcl: Agent/TCP set windowInit_ 2 (after the SYN, tcp.cc recv)"),
    ns2("tcp.initial_rto_s", "3.0", "ns-default.tcl: Agent/TCP set rtxcur_init_ 3.0"),
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
        if let Some((path, want)) = e.when {
            if root.get_path_str(path).as_deref() != Some(want) {
                continue;
            }
        }
        let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {}", e.value))
            .expect("a profile value is a TOML literal")
            .remove("v")
            .expect("parsed");
        root.fill(e.path, value);
    }
    compat
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
