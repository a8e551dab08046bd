//! Packets and frames with byte-exact sizes. Contents are typed fields, not
//! bytes: the simulator needs sizes (for airtime) and header fields (for
//! protocol logic), and the trace/pcap writers of later issues serialise
//! these fields into real headers.

use crate::net::arp::ArpMsg;
use crate::net::msg::RoutingMsg;
use crate::time::SimTime;

/// A node's address. IP and MAC addresses are both the node id; the
/// broadcast address is `BROADCAST` at both layers.
pub type NodeId = u32;
pub const BROADCAST: NodeId = u32::MAX;

/// IPv4 header without options (RFC 791).
pub const IP_HEADER: u32 = 20;
/// TCP header without options (RFC 9293).
pub const TCP_HEADER: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;
/// IP default TTL (ns-2 `IP_DEF_TTL` is 32; RFC 1700 recommends 64).
pub const DEFAULT_TTL: u8 = 64;

/// A TCP segment. Sequence numbers count segments, as ns-2's one-way TCP
/// does; the byte sequence number of segment `n` is `n * mss`.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSegment {
    pub flow: u32,
    /// Segment number of the first (only) segment carried.
    pub seqno: u64,
    /// Cumulative acknowledgement: the next segment number expected.
    pub ackno: u64,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// Option bytes on the wire (SACK blocks, timestamps), a multiple of 4.
    pub options: u16,
    /// SACK blocks of an ACK (RFC 2018); empty unless the flow uses SACK.
    pub sack: SackBlocks,
    /// Sender-side mark: this transmission is a retransmission. Not on the
    /// wire; used only by measurements.
    pub retransmit: bool,
    /// SEG.WND of an ACK: the receiver's advertised window in bytes from
    /// `ackno` on (RFC 9293 §3.1; in the 20-byte header). `None`: the
    /// segment carries no window the peer should take (data segments).
    pub window: Option<u32>,
    /// ECN bits (RFC 3168); all clear unless the flow is ECN-capable.
    pub ecn: Ecn,
    /// ADTCP (tcp/adtcp.rs): the network state an ACK reports, in reserved
    /// header bits (no bytes); `None` without ADTCP.
    pub adtcp: Option<crate::tcp::adtcp::NetState>,
    /// Checksum of the payload's byte range as the sender believes it
    /// (tcp/stream.rs), standing for the bytes themselves; the sink verifies
    /// it. 0 on pure ACKs. Measurement only: it adds no bytes on the wire
    /// (real TCP carries the bytes and its own checksum).
    pub checksum: u32,
}

/// RFC 3168 ECN bits of one segment. ECT and CE are the IP header's ECN
/// field (§5), ECE and CWR TCP header flags (§6.1); they ride with the
/// segment because only TCP uses them here. They occupy existing header
/// bits, so sizes do not change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ecn {
    /// ECN-Capable Transport: set by the sender on new data (§6.1.2, §6.1.5).
    pub ect: bool,
    /// Congestion Experienced: set by a router (here LRED) on an ECT packet.
    pub ce: bool,
    /// ECN-Echo: the receiver saw CE and has not yet seen CWR (§6.1.3).
    pub ece: bool,
    /// Congestion Window Reduced: the sender reacted to ECE (§6.1.2).
    pub cwr: bool,
}

impl TcpSegment {
    pub fn is_pure_ack(&self) -> bool {
        self.payload == 0
    }
    pub fn size(&self) -> u32 {
        TCP_HEADER + self.options as u32 + self.payload
    }
}

/// Most SACK blocks an ACK carries: ns-2's `maxSackBlocks_` default, and
/// RFC 2018 §3's limit when the timestamp option shares the 40 bytes.
pub const MAX_SACK_BLOCKS: usize = 3;

/// The blocks of a SACK option (RFC 2018 §3), each `[start, end)` in
/// segment numbers, first block first. Boxed, and absent on every segment of
/// a flow without SACK: a `Packet` is copied at every hop and event, and
/// inline blocks would grow every packet of every run by 48 bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: Option<Box<(u8, [(u64, u64); MAX_SACK_BLOCKS])>>,
}

impl SackBlocks {
    /// Append a block; false (and nothing added) when all slots are used.
    pub fn push(&mut self, start: u64, end: u64) -> bool {
        let (len, blocks) = &mut **self.blocks.get_or_insert_with(Default::default);
        if *len as usize == MAX_SACK_BLOCKS {
            return false;
        }
        blocks[*len as usize] = (start, end);
        *len += 1;
        true
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        self.blocks.as_deref().map_or(&[], |(len, b)| &b[..*len as usize])
    }
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes of the option on the wire: kind and length (2) + 8 per block
    /// (RFC 2018 §3), after two NOPs that align it to 4 bytes; 0 without blocks.
    pub fn option_bytes(&self) -> u16 {
        match self.len() {
            0 => 0,
            n => 4 + 8 * n as u16,
        }
    }
}

/// A UDP datagram of a CBR flow.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpDatagram {
    pub flow: u32,
    pub seqno: u64,
    pub payload: u32,
}

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
}

/// The DSR source route option carried on data packets (RFC 4728 §6.7).
/// `addrs` is the whole path, source first and destination last; the
/// option on the wire lists only the intermediate hops.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceRoute {
    pub addrs: Vec<NodeId>,
    /// Index in `addrs` of the node that holds the packet now.
    pub at: usize,
    /// Times the packet was salvaged (RFC 4728 §8.4.1, 4-bit Salvage field).
    pub salvage: u8,
    /// An Acknowledgement Request option rides along (RFC 4728 §6.5,
    /// network-layer route maintenance §8.3.3).
    pub ack_request: bool,
}

impl SourceRoute {
    /// Bytes of the DSR options header with this option: 4-byte fixed
    /// header (§6.1) + 4-byte option header (§6.7) + 4 bytes per
    /// intermediate address, + 4 for an Acknowledgement Request (§6.5).
    pub fn wire_size(&self) -> u32 {
        8 + 4 * self.addrs.len().saturating_sub(2) as u32 + if self.ack_request { 4 } else { 0 }
    }
    pub fn next_hop(&self) -> Option<NodeId> {
        self.addrs.get(self.at + 1).copied()
    }
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
            body => {
                IP_HEADER
                    + self.extra_header
                    + match body {
                        Body::Tcp(s) => s.size(),
                        Body::Udp(d) => UDP_HEADER + d.payload,
                        Body::Routing(m) => m.size(),
                        Body::Arp(_) => unreachable!(),
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
        }
    }

    /// The flow a data packet belongs to.
    pub fn flow(&self) -> Option<u32> {
        match &self.body {
            Body::Tcp(s) => Some(s.flow),
            Body::Udp(d) => Some(d.flow),
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

/// 802.11 frame types used by the DCF (IEEE 802.11-1999 §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Ack,
    Data,
}

/// MAC frame sizes in bytes, FCS included (IEEE 802.11-1999 §7.2.1, §7.2.2).
pub const RTS_BYTES: u32 = 20;
pub const CTS_BYTES: u32 = 14;
pub const ACK_BYTES: u32 = 14;
/// Data frame: 24-byte header (three addresses) + 4-byte FCS.
pub const DATA_OVERHEAD_BYTES: u32 = 28;

/// An 802.11 frame as it is on the air.
#[derive(Clone, Debug)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address (TA).
    pub src: NodeId,
    /// Receiver address (RA); `BROADCAST` for broadcast data.
    pub dst: NodeId,
    /// Duration/ID field in microseconds (NAV), §7.1.3.2.
    pub duration_us: u32,
    /// Sequence number (data frames), §7.1.3.4.
    pub seq: u16,
    /// Retry bit of the frame control field.
    pub retry: bool,
    pub packet: Option<Packet>,
}

impl Frame {
    pub fn bytes(&self) -> u32 {
        match self.kind {
            FrameKind::Rts => RTS_BYTES,
            FrameKind::Cts => CTS_BYTES,
            FrameKind::Ack => ACK_BYTES,
            FrameKind::Data => DATA_OVERHEAD_BYTES + self.packet.as_ref().map_or(0, |p| p.size()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_byte_exact() {
        let seg = TcpSegment { flow: 0, seqno: 0, ackno: 0, payload: 1460, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0 };
        let p = Packet::new(1, 0, 1, Body::Tcp(seg), SimTime::ZERO);
        assert_eq!(p.size(), 1500);
        let f = Frame { kind: FrameKind::Data, src: 0, dst: 1, duration_us: 0, seq: 0, retry: false, packet: Some(p) };
        assert_eq!(f.bytes(), 1528);
        let ack = TcpSegment { flow: 0, seqno: 0, ackno: 1, payload: 0, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0 };
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
