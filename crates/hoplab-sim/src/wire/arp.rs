//! ARP packets (RFC 826).

use super::addr::NodeId;

/// An ARP request or reply for IPv4 over 802.11: 28 bytes (RFC 826 with
/// 6-byte hardware and 4-byte protocol addresses).
#[derive(Clone, Debug, PartialEq)]
pub struct ArpMsg {
    pub reply: bool,
    pub sender: NodeId,
    pub target: NodeId,
}

impl ArpMsg {
    pub fn size(&self) -> u32 {
        28
    }
}
