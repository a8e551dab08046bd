//! TCP segment fields (RFC 9293) with the SACK (RFC 2018), ECN (RFC 3168)
//! and ADTCP bits they carry.

/// TCP header without options (RFC 9293).
pub const TCP_HEADER: u32 = 20;

/// IP (20) and TCP (20) headers without options: what a segment adds to
/// its payload on the wire, unless `tcp.header_bytes` says otherwise.
pub const TCPIP_HEADERS: u8 = 40;

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
    pub adtcp: Option<NetState>,
    /// Checksum of the payload's byte range as the sender believes it
    /// (tcp/stream.rs), standing for the bytes themselves; the sink verifies
    /// it. 0 on pure ACKs. Measurement only: it adds no bytes on the wire
    /// (real TCP carries the bytes and its own checksum).
    pub checksum: u32,
    /// ns-2 one-way TCP's connection-setup segment (`Agent/TCP syn_`): the
    /// first sequence number, no payload, 40 bytes at IP (tcp.cc `output`).
    /// A segment for the sink, not an ACK.
    pub syn: bool,
    /// IP and TCP header bytes before options: `TCPIP_HEADERS` (40), or a
    /// data segment's `tcp.header_bytes` (ns-2 `useHeaders_ false`: 0,
    /// tcp.cc output). Sizes only: a capture still writes real headers.
    pub headers: u8,
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
        self.payload == 0 && !self.syn
    }
    pub fn size(&self) -> u32 {
        TCP_HEADER + self.options as u32 + self.payload
    }
    /// Bytes of the IP datagram carrying it: headers, options, payload.
    pub fn ip_bytes(&self) -> u32 {
        self.headers as u32 + self.options as u32 + self.payload
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
    #[cfg(test)]
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

/// The network state an ADTCP receiver reports in its ACKs (tcp/adtcp.rs),
/// in the ACK's reserved header bits (3 bits, no bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetState {
    Normal,
    Congestion,
    ChannelError,
    RouteChange,
    Disconnection,
}
