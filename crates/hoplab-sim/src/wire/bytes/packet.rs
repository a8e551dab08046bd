//! A packet (or a whole frame) as bytes: which header goes where.

use super::address::{ip, port};
use super::ipv4::{self, Ipv4, PROTO_DSR, PROTO_EXPERIMENT, PROTO_IPIP, PROTO_TCP, PROTO_UDP};
use super::llc::{self, ETHERTYPE_ARP, ETHERTYPE_IPV4};
use super::radiotap::{self, RadioInfo};
use super::tcp::{self as tcpb, FlowWire};
use super::{aodv, arp, dsdv, dsr, ieee80211, olsr, udp};
use crate::wire::dsdv::{DsdvMsg, PacketFormat};
use crate::wire::{Body, Frame, Packet, RoutingMsg};

/// What the encoders need beyond the packet: each TCP flow's numbering,
/// by flow index (a flow missing here gets `FlowWire::default()`).
#[derive(Clone, Debug, Default)]
pub struct WireInfo {
    pub flows: Vec<FlowWire>,
    /// A data packet's 20-byte extra header without a source route is a
    /// second IPv4 header (ns-2's DSDV, `routing.dsdv.double_ip_header`),
    /// written as IP in IP (RFC 2003) so that readers find both.
    pub ip_in_ip: bool,
}

impl WireInfo {
    fn flow(&self, f: u32) -> FlowWire {
        self.flows.get(f as usize).copied().unwrap_or_default()
    }
}

/// Append the packet as the MAC carries it: an IPv4 datagram of exactly
/// `p.size()` bytes, or an ARP packet. Returns its EtherType.
pub fn encode_packet(out: &mut Vec<u8>, p: &Packet, w: &WireInfo) -> u16 {
    if let Body::Arp(a) = &p.body {
        arp::encode(out, a);
        return ETHERTYPE_ARP;
    }
    if let (Body::Ip(r), 0) = (&p.body, p.extra_header) {
        // A real host's packet (emulation): its own bytes, with the TTL the
        // relays left it (checksum patched, RFC 1624).
        let start = out.len();
        out.extend_from_slice(&r.bytes);
        crate::wire::ipv4::set_ttl(&mut out[start..], p.ttl);
        return ETHERTYPE_IPV4;
    }
    let (src, dst) = (ip(p.src), ip(p.dst));
    // The transport part first (its checksum needs only the addresses),
    // then the IP header in front of it.
    let mut t = Vec::with_capacity(p.size() as usize);
    let mut ecn = 0;
    let proto = match &p.body {
        Body::Tcp(s) => {
            // RFC 3168 §5: ECT(0) = 10, CE = 11.
            ecn = if s.ecn.ce { 0b11 } else if s.ecn.ect { 0b10 } else { 0 };
            let ts_ms = (p.created.0 / 1_000_000) as u32;
            tcpb::encode(&mut t, s, &w.flow(s.flow), src, dst, ts_ms);
            PROTO_TCP
        }
        Body::Udp(d) => {
            let payload = vec![0u8; d.payload as usize];
            udp::encode(&mut t, src, dst, port(d.flow), port(d.flow), &payload);
            PROTO_UDP
        }
        Body::Routing(RoutingMsg::Aodv(m)) => {
            let mut b = Vec::new();
            aodv::encode(&mut b, m);
            udp::encode(&mut t, src, dst, aodv::PORT, aodv::PORT, &b);
            PROTO_UDP
        }
        Body::Routing(RoutingMsg::Olsr(m)) => {
            let mut b = Vec::new();
            olsr::encode(&mut b, m);
            udp::encode(&mut t, src, dst, olsr::PORT, olsr::PORT, &b);
            PROTO_UDP
        }
        Body::Routing(RoutingMsg::Dsdv(m)) => {
            let mut b = Vec::new();
            dsdv::encode(&mut b, m);
            let DsdvMsg::Update(u) = m;
            if u.format == PacketFormat::Udp {
                udp::encode(&mut t, src, dst, dsdv::PORT, dsdv::PORT, &b);
                PROTO_UDP
            } else {
                t = b;
                PROTO_EXPERIMENT
            }
        }
        Body::Routing(RoutingMsg::Dsr(m)) => {
            dsr::encode_control(&mut t, m);
            PROTO_DSR
        }
        // A real packet under a DSR source route: its transport part behind
        // a new IPv4 header and the DSR header (RFC 4728 §6.1).
        Body::Ip(r) => {
            let ihl = usize::from(r.bytes[0] & 0x0F) * 4;
            ecn = r.bytes[1] & 0b11;
            t.extend_from_slice(&r.bytes[ihl..]);
            r.bytes[9]
        }
        Body::Arp(_) => unreachable!(),
    };
    // A data packet's extra header goes between IP and the transport header:
    // a second IPv4 header (IP in IP, RFC 2003) or DSR's (RFC 4728 §6.1).
    let extra = p.extra_header > 0 && !matches!(p.body, Body::Routing(_));
    let second_ip = w.ip_in_ip && p.sr.is_none() && p.extra_header == crate::wire::IP_HEADER;
    let (proto, extra_hdr) = if extra && second_ip {
        let inner_len = t.len() + crate::wire::IP_HEADER as usize;
        let inner = Ipv4 { ecn, total_len: inner_len as u16, id: p.uid as u16, ttl: p.ttl, proto, src, dst };
        let mut h = Vec::with_capacity(crate::wire::IP_HEADER as usize);
        ipv4::encode(&mut h, &inner);
        (PROTO_IPIP, h)
    } else if extra {
        let mut h = Vec::new();
        dsr::encode_data(&mut h, p.sr.as_deref(), p.uid, p.extra_header, proto);
        (PROTO_DSR, h)
    } else {
        (proto, Vec::new())
    };
    let total = 20 + extra_hdr.len() + t.len();
    // (A real packet with IP options loses them under a DSR header. A TCP
    // segment sized with `tcp.header_bytes` other than 40 is written with
    // its real 40 bytes of headers: the capture is longer or shorter.)
    let resized = matches!(&p.body, Body::Tcp(s) if s.headers != crate::wire::TCPIP_HEADERS);
    debug_assert!(matches!(p.body, Body::Ip(_)) || resized || total as u32 == p.size(), "{:?}", p.body);
    let h = Ipv4 { ecn, total_len: total as u16, id: p.uid as u16, ttl: p.ttl, proto, src, dst };
    ipv4::encode(out, &h);
    out.extend_from_slice(&extra_hdr);
    out.extend_from_slice(&t);
    ETHERTYPE_IPV4
}

/// Append a whole capture record: radiotap, the 802.11 frame with its
/// LLC/SNAP-encapsulated packet (DATA frames), and the FCS.
pub fn encode_frame(out: &mut Vec<u8>, f: &Frame, radio: &RadioInfo, w: &WireInfo) {
    radiotap::encode(out, radio);
    let mut body = Vec::with_capacity(f.packet.as_ref().map_or(0, |p| llc::LEN + p.size()) as usize);
    if let Some(p) = &f.packet {
        let mut pkt = Vec::with_capacity(p.size() as usize);
        let et = encode_packet(&mut pkt, p, w);
        llc::encode(&mut body, et);
        body.extend_from_slice(&pkt);
    }
    ieee80211::encode(out, f, &body);
}
