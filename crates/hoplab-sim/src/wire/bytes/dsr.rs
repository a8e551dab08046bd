//! DSR headers (RFC 4728 §6, flow state §7), IP protocol 48: the control
//! messages, and the header a source-routed data packet carries.

use super::address::ip;
use super::put16;
use crate::wire::dsr::{DsrMsg, RouteError, SourceRoute};
use crate::wire::NodeId;

/// §6.1: Next Header of a DSR header with nothing after it (IPv6's "No Next Header").
const NO_NEXT_HEADER: u8 = 59;
/// Option types (§6.2-§6.8, §7.2).
const ROUTE_REQUEST: u8 = 1;
const ROUTE_REPLY: u8 = 2;
const ROUTE_ERROR: u8 = 3;
const ACK: u8 = 32;
const SOURCE_ROUTE: u8 = 96;
const TIMEOUT: u8 = 128;
const ACK_REQUEST: u8 = 160;
const PAD1: u8 = 224;
const PADN: u8 = 0;
/// §6.4 and §7.2.4 error types.
const NODE_UNREACHABLE: u8 = 1;
const UNKNOWN_FLOW: u8 = 129;
const DEFAULT_FLOW_UNKNOWN: u8 = 130;
/// The Timeout option's value (§7.2.1, seconds): hoplab's flows carry no
/// timeout, so a fixed, documented one.
const FLOW_TIMEOUT_S: u16 = 60;

/// Pad1 / PadN options filling `n` bytes (§6.8, §6.9).
fn pad(out: &mut Vec<u8>, mut n: usize) {
    while n > 0 {
        if n == 1 {
            out.push(PAD1);
            return;
        }
        let k = n.min(257);
        out.push(PADN);
        out.push((k - 2) as u8);
        out.resize(out.len() + k - 2, 0);
        n -= k;
    }
}

/// The DSR Options header (§6.1) around `opts`, padded to `total` bytes
/// with its 4-byte fixed part (never shorter than the options).
fn options_header(out: &mut Vec<u8>, next: u8, opts: &[u8], total: usize) {
    let len = opts.len().max(total.saturating_sub(4));
    out.push(next);
    out.push(0); // F = 0: an options header, not a flow state header
    put16(out, len as u16);
    out.extend_from_slice(opts);
    pad(out, len - opts.len());
}

/// §6.4: a Route Error option (16 bytes for NODE_UNREACHABLE).
fn route_error(out: &mut Vec<u8>, e: &RouteError) {
    out.extend_from_slice(&[ROUTE_ERROR, 14, NODE_UNREACHABLE, e.salvage & 0x0f]);
    out.extend_from_slice(&ip(e.source));
    out.extend_from_slice(&ip(e.dest));
    out.extend_from_slice(&ip(e.unreachable));
}

/// §6.7: the Source Route option, listing the intermediate hops only.
/// Segments Left counts those not yet visited by the time the holder
/// (`route.at`) has sent it.
fn source_route(out: &mut Vec<u8>, r: &SourceRoute) {
    let mid: &[NodeId] = if r.addrs.len() > 2 { &r.addrs[1..r.addrs.len() - 1] } else { &[] };
    let left = mid.len().saturating_sub(r.at).min(63) as u16;
    out.push(SOURCE_ROUTE);
    out.push(2 + 4 * mid.len() as u8);
    // F, L = 0; Reserved 4 bits; Salvage 4 bits; Segments Left 6 bits.
    put16(out, ((r.salvage as u16 & 0x0f) << 6) | left);
    for &a in mid {
        out.extend_from_slice(&ip(a));
    }
}

/// Append a control message's DSR header (nothing follows it).
pub fn encode_control(out: &mut Vec<u8>, m: &DsrMsg) {
    let mut o = Vec::with_capacity(64);
    match m {
        DsrMsg::Request(q) => {
            o.extend_from_slice(&[ROUTE_REQUEST, 6 + 4 * q.addrs.len() as u8]);
            put16(&mut o, q.id);
            o.extend_from_slice(&ip(q.target));
            for &a in &q.addrs {
                o.extend_from_slice(&ip(a));
            }
            if let Some(e) = &q.error {
                route_error(&mut o, e);
            }
        }
        DsrMsg::Reply { reply, route } => {
            o.extend_from_slice(&[ROUTE_REPLY, 1 + 4 * reply.addrs.len() as u8, 0]);
            for &a in &reply.addrs {
                o.extend_from_slice(&ip(a));
            }
            source_route(&mut o, route);
        }
        DsrMsg::Error { error, route } => {
            route_error(&mut o, error);
            source_route(&mut o, route);
        }
        DsrMsg::Ack(a) => {
            o.extend_from_slice(&[ACK, 10]);
            put16(&mut o, a.id as u16);
            o.extend_from_slice(&ip(a.ack_source));
            o.extend_from_slice(&ip(a.ack_dest));
        }
        DsrMsg::FlowError { error, route } => {
            // §7.2.4 sized as ns-2 charges it (hdr_sr.h): UNKNOWN_FLOW with
            // only the 2-byte flow id as type-specific information (the
            // original destination is the error's destination field),
            // DEFAULT_FLOW_UNKNOWN with none.
            let kind = if error.id.is_some() { UNKNOWN_FLOW } else { DEFAULT_FLOW_UNKNOWN };
            o.extend_from_slice(&[ROUTE_ERROR, error.opt_size() as u8 - 2, kind, 0]);
            o.extend_from_slice(&ip(error.src));
            o.extend_from_slice(&ip(error.dst));
            if let Some(id) = error.id {
                put16(&mut o, id);
            }
            source_route(&mut o, route);
        }
    }
    options_header(out, NO_NEXT_HEADER, &o, m.size() as usize);
}

/// Append the DSR header of a data packet: `extra` bytes (the packet's
/// `extra_header`) with transport protocol `next` after it; nothing when
/// `extra` is 0. An established ns-2 flow's 4-byte header is the §7.1 Flow
/// State header; otherwise an options header with the Source Route (and
/// Acknowledgement Request, §6.5; Timeout, §7.2.1, while a flow is being
/// established), padded with PadN to `extra` bytes: ns-2's 4-byte Flow Id
/// option, and the second IP header its DSR charges
/// (`double_ip_header`), have no RFC form of that size.
pub fn encode_data(out: &mut Vec<u8>, sr: Option<&SourceRoute>, uid: u64, extra: u32, next: u8) {
    if extra == 0 {
        return;
    }
    if let Some(r) = sr {
        if let (Some(f), 4) = (r.flow, extra) {
            if !f.establish {
                out.push(next);
                out.push(0x80 | (r.at.min(127) as u8)); // F = 1, Hop Count
                put16(out, f.id);
                return;
            }
        }
    }
    let mut o = Vec::with_capacity(64);
    if let Some(r) = sr {
        if r.flow.is_none_or(|f| f.establish) {
            if r.ack_request {
                o.extend_from_slice(&[ACK_REQUEST, 2]);
                put16(&mut o, uid as u16);
            }
            if r.flow.is_some() {
                o.extend_from_slice(&[TIMEOUT, 2]);
                put16(&mut o, FLOW_TIMEOUT_S);
            }
            source_route(&mut o, r);
        }
    }
    if o.len() + 4 > extra as usize {
        o.clear(); // never longer than what hoplab charges
    }
    options_header(out, next, &o, extra as usize);
}
