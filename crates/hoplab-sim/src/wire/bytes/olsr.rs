//! OLSR packets (RFC 3626 §3.3, HELLO §6.1, TC §9.1), the UDP payload on
//! port 698 (§3.1).

use super::address::ip;
use super::put16;
use crate::wire::olsr::{Body, OlsrPacket, ADDR, LINK_GROUP_HEADER};

pub const PORT: u16 = 698;
/// §18.4 message types.
const HELLO: u8 = 1;
const TC: u8 = 2;

pub fn encode(out: &mut Vec<u8>, p: &OlsrPacket) {
    let m = &p.msg;
    // Packet header: Packet Length counts the header itself (§3.3).
    put16(out, (4 + m.size()) as u16);
    put16(out, p.seq);
    out.push(match m.body {
        Body::Hello(_) => HELLO,
        Body::Tc(_) => TC,
    });
    out.push(m.vtime);
    put16(out, m.size() as u16);
    out.extend_from_slice(&ip(m.originator));
    out.push(m.ttl);
    out.push(m.hop_count);
    put16(out, m.msn);
    match &m.body {
        Body::Hello(h) => {
            put16(out, 0);
            out.push(h.htime);
            out.push(h.willingness);
            for g in &h.links {
                // §6.1.1: Link Code = neighbour type << 2 | link type.
                out.push((g.neigh as u8) << 2 | g.link as u8);
                out.push(0);
                put16(out, (LINK_GROUP_HEADER + ADDR * g.addrs.len() as u32) as u16);
                for &a in &g.addrs {
                    out.extend_from_slice(&ip(a));
                }
            }
        }
        Body::Tc(t) => {
            put16(out, t.ansn);
            put16(out, 0);
            for &a in &t.advertised {
                out.extend_from_slice(&ip(a));
            }
        }
    }
}
