//! What the trace tap hands a sink: one `TraceEvent` per thing that happened
//! at a node, in the order the engine processed them (time order; events at
//! the same instant keep the engine's order, which is deterministic).
//!
//! The protocol layers never see this: the node reports what its layers did
//! (a frame on the air, a packet handed to the agent, a drop) to the world's
//! tap, which filters (`Filter`) and hands each kept event to every sink
//! (the in-memory table, the streamed CSV, the ns-2 trace, pcap, the
//! animator's log). A sink owns its file; `finish` flushes it.

use std::io;

use crate::net::DropReason;
use crate::time::{Dur, SimTime};
use crate::wire::{Frame, NodeId, Packet, PacketType};

/// The layer an event happened at: the levels of an ns-2 trace (cmu-trace.cc
/// `AGT`, `RTR`, `MAC`) and the radio below the MAC (`PHY`: receptions ruined
/// by a collision or too weak to decode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Agt,
    Rtr,
    Mac,
    Phy,
}

impl Layer {
    pub const ALL: [Layer; 4] = [Layer::Agt, Layer::Rtr, Layer::Mac, Layer::Phy];
    pub fn name(self) -> &'static str {
        match self {
            Layer::Agt => "AGT",
            Layer::Rtr => "RTR",
            Layer::Mac => "MAC",
            Layer::Phy => "PHY",
        }
    }
}

/// What happened (ns-2's first trace column: `s`, `r`, `f`, `D`; plus the
/// two outcomes of a failed reception).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum What {
    /// Sent: an agent's packet handed down, a routed packet leaving, a frame put on the air.
    Send,
    /// Received: a frame decoded, a packet handed up.
    Recv,
    /// Forwarded by a relay's router.
    Forward,
    /// Discarded; `TraceEvent::reason` says why.
    Drop,
    /// A reception the receiver was locked on, lost to interference.
    Collision,
    /// A reception below the receive threshold that ended in error.
    Weak,
}

impl What {
    pub const ALL: [What; 6] = [What::Send, What::Recv, What::Forward, What::Drop, What::Collision, What::Weak];
    pub fn name(self) -> &'static str {
        match self {
            What::Send => "send",
            What::Recv => "recv",
            What::Forward => "fwd",
            What::Drop => "drop",
            What::Collision => "col",
            What::Weak => "weak",
        }
    }
}

/// One traced event. `frame` is set at the MAC and PHY layers, `packet` where
/// there is an IP packet (also inside a DATA frame).
#[derive(Clone, Copy, Debug)]
pub struct TraceEvent<'a> {
    pub time: SimTime,
    pub node: NodeId,
    pub layer: Layer,
    pub what: What,
    pub frame: Option<&'a Frame>,
    pub packet: Option<&'a Packet>,
    /// The packet's class (known for drops that have no packet left).
    pub ptype: PacketType,
    /// Why a `Drop` happened.
    pub reason: Option<DropReason>,
    /// Airtime of a frame put on the air (MAC `Send`).
    pub airtime: Option<Dur>,
    /// The frame's power (W) at this node, for the end of a reception (MAC
    /// `Recv`, PHY `Collision` and `Weak`).
    pub power_w: Option<f64>,
    /// The next hop routing chose (RTR `Send` and `Forward`).
    pub next_hop: Option<NodeId>,
    /// The node's position (m) at `time`.
    pub pos: (f64, f64),
}

/// Where kept events go. Sinks write as events come (bounded memory).
pub trait TraceSink {
    fn event(&mut self, ev: &TraceEvent<'_>) -> io::Result<()>;
    /// Flush; called once, at the end of the run.
    fn finish(&mut self) -> io::Result<()>;
}
