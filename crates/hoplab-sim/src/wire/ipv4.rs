//! Real IPv4 packets carried through the simulated network (emulation): the
//! node <-> address plan, and the few header fields the engine reads to
//! classify a packet (data, pure ACK, UDP; its 5-tuple). The bytes are
//! carried untouched except the TTL, which each simulated hop decrements.

use super::addr::NodeId;

/// Node N's IPv4 address is 10.0.0.0/16 + N + 1 (10.0.0.1 for node 0). The
/// plan is defined here, once: the emulator's TUN addresses and routes use it.
pub const NET: u32 = 0x0a00_0000;
pub const PREFIX_LEN: u8 = 16;
/// 10.0.0.0/16 less the network and broadcast addresses.
pub const MAX_NODES: u32 = (1 << (32 - PREFIX_LEN)) - 2;

pub fn node_addr(n: NodeId) -> [u8; 4] {
    (NET + n + 1).to_be_bytes()
}

/// The node an address belongs to, if it is in the plan.
pub fn addr_node(a: [u8; 4]) -> Option<NodeId> {
    let a = u32::from_be_bytes(a);
    let host = a.checked_sub(NET + 1)?;
    (a >> (32 - PREFIX_LEN) == NET >> (32 - PREFIX_LEN) && host < MAX_NODES).then_some(host)
}

/// IANA protocol numbers (RFC 790).
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// What the engine needs of a real packet: its class and 5-tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IpClass {
    /// TCP with payload, or SYN/FIN (they take sequence space).
    TcpData,
    /// TCP with no payload and no SYN/FIN.
    TcpAck,
    Udp,
    /// Any other IPv4 protocol (ICMP...).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FiveTuple {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

/// A real IPv4 packet in the simulated network. Boxed in `Body::Ip`, so a
/// `Packet` keeps its size.
#[derive(Clone, Debug, PartialEq)]
pub struct RawIp {
    pub bytes: Vec<u8>,
    pub class: IpClass,
    /// The engine's flow id of the 5-tuple (`World::inject` numbers them).
    pub flow: u32,
}

/// Why a packet read from a TUN device cannot enter the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    NotIpv4,
    /// Shorter than its headers say, or a bad header length.
    Malformed,
    /// The destination is not a node's address (multicast, outside the plan).
    UnknownDestination,
}

/// The fields of a packet's headers the engine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub class: IpClass,
    pub tuple: FiveTuple,
    pub src_node: Option<NodeId>,
    pub dst_node: NodeId,
    pub ttl: u8,
}

/// Read the IPv4 header (RFC 791 §3.1) and the transport ports and flags
/// (RFC 793 §3.1, RFC 768). Nothing beyond them is read.
pub fn parse(b: &[u8]) -> Result<Parsed, Reject> {
    if b.first().map(|v| v >> 4) != Some(4) {
        return Err(Reject::NotIpv4);
    }
    let ihl = ((b[0] & 0x0f) as usize) * 4;
    if ihl < 20 || b.len() < ihl {
        return Err(Reject::Malformed);
    }
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    if total < ihl || total > b.len() {
        return Err(Reject::Malformed);
    }
    let src: [u8; 4] = b[12..16].try_into().unwrap();
    let dst: [u8; 4] = b[16..20].try_into().unwrap();
    let dst_node = addr_node(dst).ok_or(Reject::UnknownDestination)?;
    let proto = b[9];
    // A non-first fragment has no transport header (RFC 791 fragment offset).
    let first_fragment = u16::from_be_bytes([b[6], b[7]]) & 0x1fff == 0;
    let l4 = &b[ihl..total];
    let ports = |l4: &[u8]| if first_fragment && l4.len() >= 4 { (u16::from_be_bytes([l4[0], l4[1]]), u16::from_be_bytes([l4[2], l4[3]])) } else { (0, 0) };
    let (class, (sport, dport)) = match proto {
        PROTO_TCP if first_fragment && l4.len() >= 20 => {
            let doff = ((l4[12] >> 4) as usize) * 4;
            let syn_fin = l4[13] & 0x03 != 0;
            let payload = l4.len().saturating_sub(doff);
            (if payload > 0 || syn_fin { IpClass::TcpData } else { IpClass::TcpAck }, ports(l4))
        }
        PROTO_UDP => (IpClass::Udp, ports(l4)),
        _ => (IpClass::Other, (0, 0)),
    };
    Ok(Parsed { class, tuple: FiveTuple { src, dst, proto, sport, dport }, src_node: addr_node(src), dst_node, ttl: b[8] })
}

/// Write `ttl` into the header and patch its checksum (RFC 1624 eqn. 3), as
/// a router forwarding the datagram does (RFC 791 §3.2, RFC 1812 §5.3.1).
pub fn set_ttl(b: &mut [u8], ttl: u8) {
    if b.len() < 20 || b[8] == ttl {
        return;
    }
    let old = u16::from_be_bytes([b[8], b[9]]);
    b[8] = ttl;
    let new = u16::from_be_bytes([b[8], b[9]]);
    let hc = u16::from_be_bytes([b[10], b[11]]);
    // HC' = ~(~HC + ~m + m')
    let mut sum = (!hc as u32) + (!old as u32) + new as u32;
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let hc2 = !(sum as u16);
    b[10..12].copy_from_slice(&hc2.to_be_bytes());
}

/// The IPv4 header checksum (RFC 791 §3.1): tests and the bundled tools.
pub fn header_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, c) in h.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field itself
        }
        sum += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// An IPv4 packet from node `s` to node `d` (UDP, or TCP with flags).
    pub fn packet(s: NodeId, d: NodeId, proto: u8, payload: usize, tcp_flags: u8) -> Vec<u8> {
        let l4 = if proto == PROTO_TCP { 20 } else { 8 };
        let total = 20 + l4 + payload;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[8] = 64;
        b[9] = proto;
        b[12..16].copy_from_slice(&node_addr(s));
        b[16..20].copy_from_slice(&node_addr(d));
        let c = header_checksum(&b[..20]);
        b[10..12].copy_from_slice(&c.to_be_bytes());
        b[20..22].copy_from_slice(&5001u16.to_be_bytes());
        b[22..24].copy_from_slice(&5002u16.to_be_bytes());
        if proto == PROTO_TCP {
            b[32] = 5 << 4;
            b[33] = tcp_flags;
        }
        b
    }

    #[test]
    fn address_plan() {
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(255), [10, 0, 1, 0]);
        assert_eq!(addr_node([10, 0, 0, 1]), Some(0));
        assert_eq!(addr_node([10, 0, 1, 0]), Some(255));
        assert_eq!(addr_node([10, 0, 0, 0]), None);
        assert_eq!(addr_node([10, 0, 255, 255]), None);
        assert_eq!(addr_node([10, 1, 0, 1]), None);
        assert_eq!(addr_node([224, 0, 0, 1]), None);
    }

    #[test]
    fn classifies_by_transport_header() {
        let p = parse(&packet(0, 3, PROTO_TCP, 1448, 0x10)).unwrap();
        assert_eq!((p.class, p.dst_node, p.src_node, p.tuple.sport, p.tuple.dport), (IpClass::TcpData, 3, Some(0), 5001, 5002));
        assert_eq!(parse(&packet(3, 0, PROTO_TCP, 0, 0x10)).unwrap().class, IpClass::TcpAck);
        assert_eq!(parse(&packet(3, 0, PROTO_TCP, 0, 0x12)).unwrap().class, IpClass::TcpData); // SYN-ACK
        assert_eq!(parse(&packet(0, 1, PROTO_UDP, 100, 0)).unwrap().class, IpClass::Udp);
        let mut v6 = packet(0, 1, PROTO_UDP, 10, 0);
        v6[0] = 0x60;
        assert_eq!(parse(&v6), Err(Reject::NotIpv4));
        assert_eq!(parse(&[]), Err(Reject::NotIpv4));
        let short = packet(0, 1, PROTO_UDP, 10, 0);
        assert_eq!(parse(&short[..30]), Err(Reject::Malformed));
        let mut mc = packet(0, 1, PROTO_UDP, 10, 0);
        mc[16..20].copy_from_slice(&[224, 0, 0, 251]);
        assert_eq!(parse(&mc), Err(Reject::UnknownDestination));
    }

    #[test]
    fn ttl_patch_keeps_the_checksum_valid() {
        let mut b = packet(0, 2, PROTO_UDP, 10, 0);
        set_ttl(&mut b, 61);
        assert_eq!(b[8], 61);
        assert_eq!(u16::from_be_bytes([b[10], b[11]]), header_checksum(&b[..20]));
    }
}
