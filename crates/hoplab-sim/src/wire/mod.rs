//! Every wire format, with byte-exact sizes: packets, TCP segments, UDP
//! datagrams, ARP, each routing protocol's messages (DSR's source route
//! included) and 802.11 frames. Contents are typed fields, not bytes: the
//! simulator needs sizes (for airtime) and header fields (for protocol
//! logic), and the trace/pcap writers serialise these fields into real
//! headers.
//!
//! The bottom layer: nothing here imports a protocol module (only
//! crate::time), so every layer above may import it
//! (scripts/check_layers.py checks it). Within, `addr` is at the bottom,
//! the protocol messages above it, `routing` gathers them, `packet` carries
//! any of them and `frame` carries a packet.

pub mod addr;
pub mod bytes;
pub mod aodv;
pub mod arp;
pub mod dsdv;
pub mod dsr;
pub mod frame;
pub mod ipv4;
pub mod olsr;
pub mod packet;
pub mod routing;
pub mod tcp;
pub mod udp;

pub use addr::{NodeId, BROADCAST};
pub use arp::ArpMsg;
pub use dsr::SourceRoute;
#[cfg_attr(not(test), allow(unused_imports))]
pub use frame::{Frame, FrameKind, ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES};
#[cfg_attr(not(test), allow(unused_imports))]
pub use packet::{Body, Packet, PacketType, DEFAULT_TTL, IP_HEADER};
pub use routing::RoutingMsg;
#[cfg_attr(not(test), allow(unused_imports))]
pub use tcp::{Ecn, NetState, SackBlocks, TcpSegment, TCPIP_HEADERS, TCP_HEADER};
#[cfg_attr(not(test), allow(unused_imports))]
pub use udp::{UdpDatagram, UDP_HEADER};
