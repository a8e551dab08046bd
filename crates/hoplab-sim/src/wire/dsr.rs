//! DSR control packets: a DSR Options header (IP protocol 48, RFC 4728 §6.1)
//! holding one option, plus the Source Route option that carries a unicast
//! control packet over several hops. Sizes are byte-exact.

use super::addr::NodeId;

/// Fixed part of the DSR Options header (§6.1): next header, flags,
/// payload length.
pub const FIXED_HEADER: u32 = 4;

/// Route Request option (§6.2).
#[derive(Clone, Debug, PartialEq)]
pub struct RouteRequest {
    /// Identification: unique per initiator (the IP source).
    pub id: u16,
    pub target: NodeId,
    /// Nodes the request has passed, initiator excluded (it is the IP source).
    pub addrs: Vec<NodeId>,
    /// A Route Error piggybacked on the request (§8.2.1, gratuitous errors).
    pub error: Option<RouteError>,
}

/// Route Reply option (§6.3).
#[derive(Clone, Debug, PartialEq)]
pub struct RouteReply {
    /// The route from the initiator (the IP destination of the reply,
    /// excluded) to the target (included).
    pub addrs: Vec<NodeId>,
}

/// Route Error option (§6.4), type NODE_UNREACHABLE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouteError {
    /// The node that found the link broken.
    pub source: NodeId,
    /// The node the error is sent to.
    pub dest: NodeId,
    /// The far end of the broken link (type-specific information).
    pub unreachable: NodeId,
    pub salvage: u8,
}

/// Acknowledgement option (§6.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ack {
    /// Identification from the Acknowledgement Request. 16 bits on the
    /// wire; the simulator echoes the packet's uid.
    pub id: u64,
    /// The node acknowledging (the receiver of the data packet).
    pub ack_source: NodeId,
    /// The node that asked for the acknowledgement.
    pub ack_dest: NodeId,
}

/// ns-2 CMU DSR's Unknown Flow error (hdr_sr.h `flow_error`; dsragent.cc
/// `sendUnknownFlow`): a forwarder got a packet of a flow it has no entry
/// for and tells the flow's source, which then re-sends the route.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowError {
    /// The flow's source and destination.
    pub src: NodeId,
    pub dst: NodeId,
    /// The flow id; None when the packet had none (the default flow).
    pub id: Option<u16>,
}

impl FlowError {
    /// ns-2 hdr_sr.h size(): 14 per Unknown Flow, 12 per Default Flow Unknown.
    pub fn opt_size(&self) -> u32 {
        if self.id.is_some() { 14 } else { 12 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum DsrMsg {
    /// Broadcast; the IP source is the initiator.
    Request(RouteRequest),
    /// Unicast to the initiator along `route` (replier first).
    Reply { reply: RouteReply, route: SourceRoute },
    /// Unicast to `error.dest` along `route`.
    Error { error: RouteError, route: SourceRoute },
    /// One hop back to the node that requested it.
    Ack(Ack),
    /// Unicast to the flow's source along `route` (ns-2 flow state).
    FlowError { error: FlowError, route: SourceRoute },
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
    /// ns-2 CMU DSR flow state (`dsragent_enable_flowstate`): the flow the
    /// packet belongs to. None: a plain source-routed packet.
    pub flow: Option<FlowTag>,
}

/// A data packet's flow state in ns-2's CMU DSR (dsragent.cc
/// `sendOutPacketWithRoute`, hdr_sr.h). A flow is one source route of one
/// source to one destination, named by a 16-bit id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowTag {
    pub id: u16,
    /// The source route is on the wire with a Flow Timeout option: the
    /// flow is being established (its first packets) or re-advertised.
    /// Otherwise only the flow id travels, and the simulator's `addrs` are
    /// not on the wire: the forwarders take the next hop from their flow
    /// tables, and nobody can snoop the route.
    pub establish: bool,
    /// A Flow Id option (4 bytes) is on the wire; a packet of the
    /// source's default flow carries none.
    pub header: bool,
}

impl SourceRoute {
    /// Bytes of the DSR options header with this option: 4-byte fixed
    /// header (§6.1) + 4-byte option header (§6.7) + 4 bytes per
    /// intermediate address, + 4 for an Acknowledgement Request (§6.5).
    pub fn wire_size(&self) -> u32 {
        if let Some(f) = self.flow {
            // ns-2 hdr_sr.h size(): 4 per Flow Timeout and Flow Id option;
            // the route itself only while establishing.
            let id = if f.header { 4 } else { 0 };
            if !f.establish {
                return id;
            }
            return 8 + 4 * self.addrs.len().saturating_sub(2) as u32 + 4 + id + if self.ack_request { 4 } else { 0 };
        }
        8 + 4 * self.addrs.len().saturating_sub(2) as u32 + if self.ack_request { 4 } else { 0 }
    }
    pub fn next_hop(&self) -> Option<NodeId> {
        self.addrs.get(self.at + 1).copied()
    }
}

/// Source Route option (§6.7): 4 bytes + 4 per intermediate hop.
pub fn source_route_opt(route: &SourceRoute) -> u32 {
    route.wire_size() - FIXED_HEADER
}

impl RouteRequest {
    pub fn opt_size(&self) -> u32 {
        8 + 4 * self.addrs.len() as u32 + self.error.map_or(0, |_| RouteError::OPT_SIZE)
    }
}

impl RouteError {
    /// Type, length, error type, reserved/salvage, source, destination,
    /// unreachable node address.
    pub const OPT_SIZE: u32 = 16;
}

impl DsrMsg {
    /// Bytes above the IP header: DSR Options header with its options.
    pub fn size(&self) -> u32 {
        FIXED_HEADER
            + match self {
                DsrMsg::Request(r) => r.opt_size(),
                // §6.3: type, length, L/reserved byte, 4 per address.
                DsrMsg::Reply { reply, route } => 3 + 4 * reply.addrs.len() as u32 + source_route_opt(route),
                DsrMsg::Error { route, .. } => RouteError::OPT_SIZE + source_route_opt(route),
                DsrMsg::Ack(_) => 12,
                DsrMsg::FlowError { error, route } => error.opt_size() + source_route_opt(route),
            }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            DsrMsg::Request(_) => "dsr.rreq",
            DsrMsg::Reply { .. } => "dsr.rrep",
            DsrMsg::Error { .. } => "dsr.rerr",
            DsrMsg::Ack(_) => "dsr.ack",
            DsrMsg::FlowError { .. } => "dsr.ferr",
        }
    }
}
