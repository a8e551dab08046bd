//! ARP (RFC 826). PLACEHOLDER message type; the state machine comes next.

/// An ARP request or reply for IPv4 over 802.11: 28 bytes (RFC 826 with
/// 6-byte hardware and 4-byte protocol addresses).
#[derive(Clone, Debug, PartialEq)]
pub struct ArpMsg {
    pub reply: bool,
    pub sender: crate::wire::NodeId,
    pub target: crate::wire::NodeId,
}

impl ArpMsg {
    pub fn size(&self) -> u32 {
        28
    }
}
