//! AODV messages (RFC 3561 §5) with their byte-exact sizes. All travel over
//! UDP port 654 (§6), so each size includes the 8-byte UDP header.

use super::addr::NodeId;
use super::udp::UDP_HEADER;
use crate::time::SimTime;

/// Route Request (§5.1): 24 bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Rreq {
    /// 'G': the intermediate node that answers also tells the destination (§6.6.3).
    pub gratuitous: bool,
    /// 'D': only the destination may answer.
    pub dest_only: bool,
    /// 'U': the destination sequence number is unknown.
    pub unknown_seqno: bool,
    pub hop_count: u8,
    pub rreq_id: u32,
    pub dst: NodeId,
    pub dst_seqno: u32,
    pub orig: NodeId,
    pub orig_seqno: u32,
    /// When the originator sent it. Not an RFC 3561 field and not counted
    /// in the size: ns-2's `rq_timestamp` (aodv_packet.h), which the RREP
    /// echoes so the originator can measure the discovery latency.
    pub timestamp: SimTime,
}

/// Route Reply (§5.2): 20 bytes. A HELLO is a RREP too (§6.9).
#[derive(Clone, Debug, PartialEq)]
pub struct Rrep {
    /// 'A': acknowledgement required (§6.8).
    pub ack_required: bool,
    pub hop_count: u8,
    pub dst: NodeId,
    pub dst_seqno: u32,
    pub orig: NodeId,
    /// Milliseconds for which the route is valid.
    pub lifetime_ms: u32,
    /// The answered RREQ's `timestamp` (ns-2 `rp_timestamp`); not counted
    /// in the size.
    pub timestamp: SimTime,
}

/// Route Error (§5.3): 4 bytes + 8 per unreachable destination.
#[derive(Clone, Debug, PartialEq)]
pub struct Rerr {
    /// 'N': a local repair is under way; upstream nodes must not delete the route.
    pub no_delete: bool,
    /// (unreachable destination, its sequence number); at least one.
    pub dests: Vec<(NodeId, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
    /// RREP-ACK (§5.4): 2 bytes.
    RrepAck,
    /// A RREP sent with TTL 1 by a node about itself (§6.9). Kept apart
    /// from `Rrep` for overhead accounting.
    Hello(Rrep),
}

pub const RREQ_BYTES: u32 = 24;
pub const RREP_BYTES: u32 = 20;
pub const RERR_FIXED_BYTES: u32 = 4;
pub const RERR_PER_DEST_BYTES: u32 = 8;
pub const RREP_ACK_BYTES: u32 = 2;

impl AodvMsg {
    /// Bytes above the IP header: UDP header + AODV message.
    pub fn size(&self) -> u32 {
        UDP_HEADER
            + match self {
                AodvMsg::Rreq(_) => RREQ_BYTES,
                AodvMsg::Rrep(_) | AodvMsg::Hello(_) => RREP_BYTES,
                AodvMsg::Rerr(e) => RERR_FIXED_BYTES + RERR_PER_DEST_BYTES * e.dests.len() as u32,
                AodvMsg::RrepAck => RREP_ACK_BYTES,
            }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            AodvMsg::Rreq(_) => "aodv.rreq",
            AodvMsg::Rrep(_) => "aodv.rrep",
            AodvMsg::Rerr(_) => "aodv.rerr",
            AodvMsg::RrepAck => "aodv.rrep_ack",
            AodvMsg::Hello(_) => "aodv.hello",
        }
    }
}

/// `a` is fresher than `b`: sequence numbers compared as RFC 3561 §6.1
/// says, by the sign of their difference in 32-bit signed arithmetic, so
/// they may wrap.
pub fn fresher(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
