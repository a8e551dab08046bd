//! ARP over IEEE 802 networks (RFC 826; hardware type 1 as on Ethernet,
//! which 802.11 shares, RFC 1042).

use super::address::{ip, mac};
use crate::wire::ArpMsg;

/// Append the 28-byte packet. A request's target hardware address is
/// unknown, so zero (RFC 826 "Packet Generation").
pub fn encode(out: &mut Vec<u8>, a: &ArpMsg) {
    out.extend_from_slice(&[0, 1, 0x08, 0x00, 6, 4]); // Ethernet, IPv4, hlen, plen
    out.extend_from_slice(&(if a.reply { 2u16 } else { 1 }).to_be_bytes());
    out.extend_from_slice(&mac(a.sender));
    out.extend_from_slice(&ip(a.sender));
    out.extend_from_slice(&if a.reply { mac(a.target) } else { [0; 6] });
    out.extend_from_slice(&ip(a.target));
}
