//! Packets and frames with byte-exact sizes. Contents are typed fields, not
//! bytes: the simulator needs sizes (for airtime) and header fields (for
//! protocol logic), and the trace/pcap writers of later issues serialise
//! these fields into real headers.

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
    /// Sender-side mark: this transmission is a retransmission. Not on the
    /// wire; used only by measurements.
    pub retransmit: bool,
}

impl TcpSegment {
    pub fn is_pure_ack(&self) -> bool {
        self.payload == 0
    }
    pub fn size(&self) -> u32 {
        TCP_HEADER + self.options as u32 + self.payload
    }
}

/// A UDP datagram of a CBR flow.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpDatagram {
    pub flow: u32,
    pub seqno: u64,
    pub payload: u32,
}

/// Transport-layer content of an IP packet.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Tcp(TcpSegment),
    Udp(UdpDatagram),
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
}

/// Packet classes for drop accounting and queue priority (ns-2 trace types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PacketType {
    Tcp,
    Ack,
    Cbr,
    Routing,
    Mac,
}

impl PacketType {
    pub fn name(self) -> &'static str {
        match self {
            PacketType::Tcp => "tcp",
            PacketType::Ack => "ack",
            PacketType::Cbr => "cbr",
            PacketType::Routing => "routing",
            PacketType::Mac => "MAC",
        }
    }
}

impl Packet {
    /// Size of the IP datagram in bytes.
    pub fn size(&self) -> u32 {
        IP_HEADER
            + self.extra_header
            + match &self.body {
                Body::Tcp(s) => s.size(),
                Body::Udp(d) => UDP_HEADER + d.payload,
            }
    }

    pub fn ptype(&self) -> PacketType {
        match &self.body {
            Body::Tcp(s) if s.is_pure_ack() => PacketType::Ack,
            Body::Tcp(_) => PacketType::Tcp,
            Body::Udp(_) => PacketType::Cbr,
        }
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
        let seg = TcpSegment { flow: 0, seqno: 0, ackno: 0, payload: 1460, options: 0, retransmit: false };
        let p = Packet { uid: 1, src: 0, dst: 1, ttl: 64, extra_header: 0, body: Body::Tcp(seg), created: SimTime::ZERO };
        assert_eq!(p.size(), 1500);
        let f = Frame { kind: FrameKind::Data, src: 0, dst: 1, duration_us: 0, seq: 0, retry: false, packet: Some(p) };
        assert_eq!(f.bytes(), 1528);
        let ack = TcpSegment { flow: 0, seqno: 0, ackno: 1, payload: 0, options: 0, retransmit: false };
        let pa = Packet { uid: 2, src: 1, dst: 0, ttl: 64, extra_header: 0, body: Body::Tcp(ack), created: SimTime::ZERO };
        assert_eq!(pa.size(), 40);
        assert_eq!(pa.ptype(), PacketType::Ack);
    }
}
