//! OLSR packets and messages (RFC 3626 §3.3, §6.1, §9.1) with byte-exact
//! sizes, the Vtime/Htime byte form (§18.3) and sequence number order (§19).

use crate::time::Dur;
use super::addr::NodeId;
use super::udp::UDP_HEADER;

/// §3.3: Packet Length (2) + Packet Sequence Number (2).
pub const PACKET_HEADER: u32 = 4;
/// §3.3: Message Type, Vtime, Message Size, Originator Address, TTL, Hop
/// Count, Message Sequence Number.
pub const MESSAGE_HEADER: u32 = 12;
/// §6.1: Reserved (2) + Htime (1) + Willingness (1).
pub const HELLO_HEADER: u32 = 4;
/// §6.1: Link Code (1) + Reserved (1) + Link Message Size (2).
pub const LINK_GROUP_HEADER: u32 = 4;
/// §9.1: ANSN (2) + Reserved (2).
pub const TC_HEADER: u32 = 4;
/// An IPv4 address.
pub const ADDR: u32 = 4;

/// §18.5 link types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkType {
    #[allow(dead_code)]
    Unspec = 0,
    Asym = 1,
    Sym = 2,
    Lost = 3,
}

/// §18.6 neighbour types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NeighType {
    Not = 0,
    Sym = 1,
    Mpr = 2,
}

/// One Link Code with its neighbour interface addresses (§6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkGroup {
    pub link: LinkType,
    pub neigh: NeighType,
    pub addrs: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Hello {
    /// Htime byte (§6.1): our HELLO_INTERVAL.
    pub htime: u8,
    pub willingness: u8,
    pub links: Vec<LinkGroup>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tc {
    pub ansn: u16,
    pub advertised: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Hello(Hello),
    Tc(Tc),
}

/// A message with its §3.3 header.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub vtime: u8,
    pub originator: NodeId,
    pub ttl: u8,
    pub hop_count: u8,
    pub msn: u16,
    pub body: Body,
}

/// An OLSR packet on UDP port 698: one message per packet (we do not
/// piggyback).
#[derive(Clone, Debug, PartialEq)]
pub struct OlsrPacket {
    /// Packet Sequence Number (§3.3), per interface.
    pub seq: u16,
    pub msg: Message,
}

impl Message {
    /// Message Size (§3.3): header plus body.
    pub fn size(&self) -> u32 {
        MESSAGE_HEADER
            + match &self.body {
                Body::Hello(h) => {
                    HELLO_HEADER
                        + h.links.iter().map(|g| LINK_GROUP_HEADER + ADDR * g.addrs.len() as u32).sum::<u32>()
                }
                Body::Tc(t) => TC_HEADER + ADDR * t.advertised.len() as u32,
            }
    }
}

impl OlsrPacket {
    /// Bytes above the IP header: UDP header, packet header, message.
    pub fn size(&self) -> u32 {
        UDP_HEADER + PACKET_HEADER + self.msg.size()
    }
    pub fn kind(&self) -> &'static str {
        match self.msg.body {
            Body::Hello(_) => "olsr.hello",
            Body::Tc(_) => "olsr.tc",
        }
    }
}

/// §18.3 scaling constant C = 1/16 s, in ns.
const C_NS: u64 = 62_500_000;

/// §18.3: the byte `a * 16 + b` whose value C * (1 + a/16) * 2^b is the
/// smallest representable time at or above `secs` (the RFC rounds `a` up).
pub fn encode_time(secs: f64) -> u8 {
    let x = secs / 0.0625;
    if x <= 1.0 {
        return 0;
    }
    let mut b: u32 = 0;
    while b < 15 && x >= (1u64 << (b + 1)) as f64 {
        b += 1;
    }
    // The small epsilon keeps exact values (6 s -> a = 8) from rounding up.
    let mut a = (16.0 * (x / (1u64 << b) as f64 - 1.0) - 1e-9).ceil().max(0.0) as u32;
    if a >= 16 {
        a = 0;
        b += 1;
    }
    if b > 15 {
        return 0xff;
    }
    (a * 16 + b) as u8
}

/// §18.3: the time a Vtime/Htime byte stands for.
pub fn decode_time(v: u8) -> Dur {
    let a = (v >> 4) as u64;
    let b = (v & 0x0f) as u32;
    Dur(((C_NS * (16 + a)) << b) / 16)
}

/// §19: S1 is "greater than" S2, with wrap-around (MAXVALUE = 65535).
pub fn seq_greater(s1: u16, s2: u16) -> bool {
    const HALF: u16 = u16::MAX / 2;
    (s1 > s2 && s1 - s2 <= HALF) || (s2 > s1 && s2 - s1 > HALF)
}
