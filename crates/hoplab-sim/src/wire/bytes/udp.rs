//! The UDP header (RFC 768).

use super::checksum::{add, finish, pseudo_header};
use super::ipv4::PROTO_UDP;

/// Append a UDP datagram of `payload`, checksummed over the pseudo-header.
pub fn encode(out: &mut Vec<u8>, src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16, payload: &[u8]) {
    let len = (8 + payload.len()) as u16;
    let start = out.len();
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(payload);
    let sum = finish(add(pseudo_header(src, dst, PROTO_UDP, len), &out[start..]));
    // RFC 768: a computed 0 is sent as all ones (0 means "no checksum").
    let sum = if sum == 0 { 0xffff } else { sum };
    out[start + 6..start + 8].copy_from_slice(&sum.to_be_bytes());
}
