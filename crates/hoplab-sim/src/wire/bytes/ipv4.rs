//! The IPv4 header (RFC 791 §3.1), without options.

use super::checksum::internet;

pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
/// RFC 4728 §6.1: the DSR Options header.
pub const PROTO_DSR: u8 = 48;
/// IP in IP (RFC 2003): an IPv4 header inside another.
pub const PROTO_IPIP: u8 = 4;
/// RFC 3692: a protocol number for experiments (hoplab's ns-2-sized DSDV).
pub const PROTO_EXPERIMENT: u8 = 253;

pub struct Ipv4 {
    /// RFC 3168 §5: the ECN field (low two bits of the old TOS byte).
    pub ecn: u8,
    pub total_len: u16,
    /// Identification: the packet's uid (mod 2^16), the same at every hop.
    pub id: u16,
    pub ttl: u8,
    pub proto: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

/// Append the 20-byte header with its checksum.
pub fn encode(out: &mut Vec<u8>, h: &Ipv4) {
    let mut b = [0u8; 20];
    b[0] = 0x45; // version 4, IHL 5 words
    b[1] = h.ecn & 0b11;
    b[2..4].copy_from_slice(&h.total_len.to_be_bytes());
    b[4..6].copy_from_slice(&h.id.to_be_bytes());
    // Flags and fragment offset 0: never fragmented.
    b[8] = h.ttl;
    b[9] = h.proto;
    b[12..16].copy_from_slice(&h.src);
    b[16..20].copy_from_slice(&h.dst);
    let sum = internet(&b);
    b[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&b);
}
