//! Routing control messages of every protocol, as one type the wire can
//! carry. Each protocol's message type, with byte-exact sizes, is a sibling
//! module; the protocols' logic lives in crate::net.

use super::{aodv, dsdv, dsr, olsr};

/// One routing protocol's control message.
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingMsg {
    Aodv(aodv::AodvMsg),
    Dsr(dsr::DsrMsg),
    Olsr(olsr::OlsrPacket),
    Dsdv(dsdv::DsdvMsg),
}

impl RoutingMsg {
    /// Bytes above the IP header: the UDP header (for protocols over UDP)
    /// plus the message itself.
    pub fn size(&self) -> u32 {
        match self {
            RoutingMsg::Aodv(m) => m.size(),
            RoutingMsg::Dsr(m) => m.size(),
            RoutingMsg::Olsr(m) => m.size(),
            RoutingMsg::Dsdv(m) => m.size(),
        }
    }

    /// The message type for overhead accounting, e.g. "aodv.rreq".
    pub fn kind(&self) -> &'static str {
        match self {
            RoutingMsg::Aodv(m) => m.kind(),
            RoutingMsg::Dsr(m) => m.kind(),
            RoutingMsg::Olsr(m) => m.kind(),
            RoutingMsg::Dsdv(m) => m.kind(),
        }
    }
}
