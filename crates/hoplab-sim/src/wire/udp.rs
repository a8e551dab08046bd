//! UDP (RFC 768): the header size and the datagram of a CBR flow.

/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;

/// A UDP datagram of a CBR flow.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpDatagram {
    pub flow: u32,
    pub seqno: u64,
    pub payload: u32,
}
