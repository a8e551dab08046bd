//! DSDV updates. DSDV (Perkins & Bhagwat 1994) defines no wire format, so
//! hoplab uses a documented one of its own that Wireshark shows as data:
//! - `format = "udp"`: a UDP datagram from and to port 49152 (the first
//!   dynamic port, RFC 6335 §6; no Wireshark dissector), payload: entry
//!   count (2 bytes), flags (1 byte: 0x80 a full dump), reserved (1), then
//!   per entry destination address, sequence number, metric (4 bytes each).
//! - `format = "ns2"`: ns-2's 12 bytes per entry straight above IP
//!   (dsdv.cc `makeUpdate`), as IP protocol 253 (RFC 3692 experimentation).
//! Either way the sizes are those of wire/dsdv.rs.

use super::address::ip;
use super::{put16, put32};
use crate::wire::dsdv::{DsdvMsg, PacketFormat};

pub const PORT: u16 = 49152;

/// Append the entries (and, for the UDP format, the 4-byte header).
pub fn encode(out: &mut Vec<u8>, m: &DsdvMsg) {
    let DsdvMsg::Update(u) = m;
    if u.format == PacketFormat::Udp {
        put16(out, u.entries.len().min(0xffff) as u16);
        out.push(if u.full { 0x80 } else { 0 });
        out.push(0);
    }
    for e in &u.entries {
        out.extend_from_slice(&ip(e.dst));
        put32(out, e.seqno);
        put32(out, e.metric);
    }
}
