//! An IP packet: the unit every layer hands on. Its body is one of the
//! other wire formats; nothing here knows a protocol's logic.

use super::addr::{NodeId, BROADCAST};
use super::arp::ArpMsg;
use super::ipv4::{IpClass, RawIp};
use super::dsr::SourceRoute;
use super::routing::RoutingMsg;
use super::tcp::TcpSegment;
use super::udp::{UdpDatagram, UDP_HEADER};
use crate::time::SimTime;

/// IPv4 header without options (RFC 791).
pub const IP_HEADER: u32 = 20;
/// IP default TTL (ns-2 `IP_DEF_TTL` is 32; RFC 1700 recommends 64).
pub const DEFAULT_TTL: u8 = 64;

/// Transport-layer content of an IP packet, or a non-IP payload (ARP).
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Tcp(TcpSegment),
    Udp(UdpDatagram),
    /// A routing protocol's control message; its size includes the UDP
    /// header where the protocol runs over UDP (AODV, OLSR, DSDV).
    Routing(RoutingMsg),
    /// An ARP packet (RFC 826); not an IP datagram, so no IP header.
    Arp(ArpMsg),
    /// A real IPv4 packet, IP header included (emulation; wire/ipv4.rs).
    Ip(Box<RawIp>),
}

/// An IP packet.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    /// Unique id of the packet, kept across hops (ns-2 trace "uid").
    pub uid: u64,
    pub src: NodeId,
    pub dst: NodeId,
    pub ttl: u8,
    /// Bytes of network-layer headers beyond IP's (e.g. a DSR source route).
    pub extra_header: u32,
    pub body: Body,
    /// When the source handed the packet to IP.
    pub created: SimTime,
    /// DSR source route, when DSR routes this packet.
    pub sr: Option<Box<SourceRoute>>,
    /// Measurement only, not on the wire: a hash of the nodes the packet
    /// has left so far, so a sink can tell when the path changed.
    pub path: u64,
    /// The node last mixed into `path` (a node that re-routes a packet it
    /// already sent once does not count twice).
    pub path_last: NodeId,
}

/// Packet classes for drop accounting and queue priority (ns-2 trace types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PacketType {
    Tcp,
    Ack,
    Cbr,
    Routing,
    Arp,
    Mac,
}

impl PacketType {
    /// Every type, in declaration order (`t as u8` is its index).
    pub const ALL: [PacketType; 6] = [PacketType::Tcp, PacketType::Ack, PacketType::Cbr, PacketType::Routing, PacketType::Arp, PacketType::Mac];

    pub fn name(self) -> &'static str {
        match self {
            PacketType::Tcp => "tcp",
            PacketType::Ack => "ack",
            PacketType::Cbr => "cbr",
            PacketType::Routing => "routing",
            PacketType::Arp => "ARP",
            PacketType::Mac => "MAC",
        }
    }
}

impl Packet {
    /// A packet as its source builds it.
    pub fn new(uid: u64, src: NodeId, dst: NodeId, body: Body, created: SimTime) -> Packet {
        Packet { uid, src, dst, ttl: DEFAULT_TTL, extra_header: 0, body, created, sr: None, path: 0, path_last: BROADCAST }
    }

    /// Size in bytes of what the MAC carries: the IP datagram, or the ARP packet.
    pub fn size(&self) -> u32 {
        match &self.body {
            Body::Arp(a) => a.size(),
            // The real bytes already hold their IP header.
            Body::Ip(r) => r.bytes.len() as u32 + self.extra_header,
            // Its own headers: 40 bytes, or `tcp.header_bytes` (wire/tcp.rs).
            Body::Tcp(s) => s.ip_bytes() + self.extra_header,
            body => {
                IP_HEADER
                    + self.extra_header
                    + match body {
                        Body::Udp(d) => UDP_HEADER + d.payload,
                        Body::Routing(m) => m.size(),
                        Body::Arp(_) | Body::Ip(_) | Body::Tcp(_) => unreachable!(),
                    }
            }
        }
    }

    pub fn ptype(&self) -> PacketType {
        match &self.body {
            Body::Tcp(s) if s.is_pure_ack() => PacketType::Ack,
            Body::Tcp(_) => PacketType::Tcp,
            Body::Udp(_) => PacketType::Cbr,
            Body::Routing(_) => PacketType::Routing,
            Body::Arp(_) => PacketType::Arp,
            // Classed as the simulated kinds are, so that drop accounting
            // and traces read alike; any other protocol counts as CBR.
            Body::Ip(r) => match r.class {
                IpClass::TcpData => PacketType::Tcp,
                IpClass::TcpAck => PacketType::Ack,
                IpClass::Udp | IpClass::Other => PacketType::Cbr,
            },
        }
    }

    /// The flow a data packet belongs to.
    pub fn flow(&self) -> Option<u32> {
        match &self.body {
            Body::Tcp(s) => Some(s.flow),
            Body::Udp(d) => Some(d.flow),
            Body::Ip(r) => Some(r.flow),
            _ => None,
        }
    }

    /// Measurement: the packet leaves node `n`.
    pub fn mark_hop(&mut self, n: NodeId) {
        if self.path_last == n {
            return;
        }
        self.path_last = n;
        self.path = (self.path ^ (n as u64 + 1)).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(7);
    }

    /// Routing-protocol packets go ahead of data in the interface queue.
    pub fn is_routing(&self) -> bool {
        self.ptype() == PacketType::Routing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::frame::{Frame, FrameKind};
    use crate::wire::tcp::{Ecn, SackBlocks};

    #[test]
    fn sizes_are_byte_exact() {
        let seg = TcpSegment { flow: 0, seqno: 0, ackno: 0, payload: 1460, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0, syn: false, headers: 40 };
        let p = Packet::new(1, 0, 1, Body::Tcp(seg), SimTime::ZERO);
        assert_eq!(p.size(), 1500);
        let f = Frame { kind: FrameKind::Data, src: 0, dst: 1, duration_us: 0, seq: 0, retry: false, packet: Some(p) };
        assert_eq!(f.bytes(), 1528);
        let ack = TcpSegment { flow: 0, seqno: 0, ackno: 1, payload: 0, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0, syn: false, headers: 40 };
        let pa = Packet::new(2, 1, 0, Body::Tcp(ack), SimTime::ZERO);
        assert_eq!(pa.size(), 40);
        assert_eq!(pa.ptype(), PacketType::Ack);
    }

    /// A `Packet` is moved at every hop and event: keep it at 128 bytes
    /// (boxed SACK blocks and source routes; issue 10 added the 4-byte
    /// payload checksum without growing it).
    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<TcpSegment>() <= 56, "TcpSegment is {} bytes", std::mem::size_of::<TcpSegment>());
        assert_eq!(std::mem::size_of::<Packet>(), 128);
    }
}
