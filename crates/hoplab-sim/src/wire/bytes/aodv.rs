//! AODV messages (RFC 3561 §5), the UDP payload on port 654 (§6).

use super::address::ip;
use super::{put16, put32};
use crate::wire::aodv::{AodvMsg, Rrep};

pub const PORT: u16 = 654;

/// §5.2 (a HELLO is a RREP, §6.9). R (repair) is not modelled: 0; Prefix
/// Size 0 (the route is to the host only).
fn rrep(out: &mut Vec<u8>, r: &Rrep) {
    out.push(2);
    out.push(if r.ack_required { 0x40 } else { 0 });
    out.push(0);
    out.push(r.hop_count);
    out.extend_from_slice(&ip(r.dst));
    put32(out, r.dst_seqno);
    out.extend_from_slice(&ip(r.orig));
    put32(out, r.lifetime_ms);
}

/// Append the message (without the UDP header its size in wire/aodv.rs includes).
pub fn encode(out: &mut Vec<u8>, m: &AodvMsg) {
    match m {
        AodvMsg::Rreq(q) => {
            // §5.1: J and R (multicast) are 0; then G, D, U.
            out.push(1);
            out.push((q.gratuitous as u8) << 5 | (q.dest_only as u8) << 4 | (q.unknown_seqno as u8) << 3);
            out.push(0);
            out.push(q.hop_count);
            put32(out, q.rreq_id);
            out.extend_from_slice(&ip(q.dst));
            put32(out, q.dst_seqno);
            out.extend_from_slice(&ip(q.orig));
            put32(out, q.orig_seqno);
        }
        AodvMsg::Rrep(r) | AodvMsg::Hello(r) => rrep(out, r),
        AodvMsg::Rerr(e) => {
            // §5.3: N flag, reserved, DestCount, then (address, seqno) pairs.
            out.push(3);
            out.push(if e.no_delete { 0x80 } else { 0 });
            out.push(0);
            out.push(e.dests.len().min(255) as u8);
            for &(d, s) in &e.dests {
                out.extend_from_slice(&ip(d));
                put32(out, s);
            }
        }
        AodvMsg::RrepAck => {
            put16(out, 0x0400); // §5.4: type 4, reserved
        }
    }
}
