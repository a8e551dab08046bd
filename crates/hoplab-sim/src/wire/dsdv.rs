//! The DSDV update message.

use super::addr::NodeId;
use super::udp::UDP_HEADER;
use serde::{Deserialize, Serialize};

/// How many bytes an update is charged on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PacketFormat {
    /// 8-byte UDP header + 4-byte header (entry count, padded) + 12 bytes
    /// per entry (destination 4, sequence number 4, metric 4).
    Udp,
    /// What ns-2 charges: `hdrc->size_ = change_count * 12 + IP_HDR_LEN`
    /// (dsdv.cc `makeUpdate`), i.e. 12 bytes per entry above IP and no
    /// transport or DSDV header (the agent sits on ns-2's ROUTER_PORT).
    Ns2,
}

/// One advertised route: (destination, metric, sequence number), the
/// triple ns-2 writes per entry in `makeUpdate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsdvEntry {
    pub dst: NodeId,
    /// Hops from the sender; `INFINITY` for a broken route.
    pub metric: u32,
    pub seqno: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DsdvUpdate {
    /// A full dump (true) or an incremental (triggered) update.
    pub full: bool,
    pub entries: Vec<DsdvEntry>,
    /// How the size is charged (from the sender's configuration).
    pub format: PacketFormat,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DsdvMsg {
    Update(DsdvUpdate),
}

/// Bytes per advertised route. ns-2 writes 9 bytes of data per entry
/// (dst 4, metric 1, seqnum 4) but charges 12 on the wire: dsdv.cc
/// `makeUpdate`, `hdrc->size_ = change_count * 12 + IP_HDR_LEN`.
pub const ENTRY_BYTES: u32 = 12;
/// Fixed DSDV header of the `Udp` format: entry count, padded to 4 bytes.
pub const HEADER_BYTES: u32 = 4;

impl DsdvMsg {
    /// Bytes above the IP header.
    pub fn size(&self) -> u32 {
        match self {
            DsdvMsg::Update(u) => {
                let body = ENTRY_BYTES * u.entries.len() as u32;
                match u.format {
                    PacketFormat::Udp => UDP_HEADER + HEADER_BYTES + body,
                    PacketFormat::Ns2 => body,
                }
            }
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            DsdvMsg::Update(_) => "dsdv.update",
        }
    }
}
