//! IEEE 802.11 frames as they are on the air.

use super::addr::NodeId;
use super::packet::Packet;

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
