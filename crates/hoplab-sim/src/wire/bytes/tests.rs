//! Encoder tests: checksums against published vectors, field offsets, and
//! every packet kind encoded to exactly hoplab's size. `samples()` is also
//! the frame set of the tshark test (trace/pcap/tests.rs).

use super::checksum::{crc32, internet};
use super::packet::{encode_frame, encode_packet, WireInfo};
use super::radiotap::{self, RadioInfo};
use super::tcp::FlowWire;
use super::*;
use crate::time::SimTime;
use crate::wire::aodv::{AodvMsg, Rerr, Rrep, Rreq};
use crate::wire::dsdv::{DsdvEntry, DsdvMsg, DsdvUpdate, PacketFormat};
use crate::wire::dsr::{self, DsrMsg, FlowError, FlowTag, RouteError, RouteReply, RouteRequest, SourceRoute};
use crate::wire::olsr::{self, Hello, LinkGroup, LinkType, Message, NeighType, OlsrPacket, Tc};
use crate::wire::{ArpMsg, Body, Ecn, Frame, FrameKind, Packet, RoutingMsg, SackBlocks, TcpSegment, UdpDatagram, BROADCAST};

pub(crate) fn seg(seqno: u64, ackno: u64, payload: u32) -> TcpSegment {
    TcpSegment { flow: 0, seqno, ackno, payload, options: 0, sack: SackBlocks::default(), retransmit: false, window: None, ecn: Ecn::default(), adtcp: None, checksum: 0, syn: false, headers: 40 }
}

fn route(addrs: &[u32], at: usize) -> SourceRoute {
    SourceRoute { addrs: addrs.to_vec(), at, salvage: 0, ack_request: false, flow: None }
}

fn pkt(uid: u64, src: u32, dst: u32, body: Body) -> Packet {
    Packet::new(uid, src, dst, body, SimTime(1_234_567_890))
}

fn data(p: Packet, src: u32, dst: u32, seq: u16) -> Frame {
    Frame { kind: FrameKind::Data, src, dst, duration_us: 314, seq, retry: false, packet: Some(p) }
}

/// One frame of every kind the sink writes, with a name for messages.
pub(crate) fn samples() -> Vec<(&'static str, Frame)> {
    let mut v = Vec::new();
    let ctrl = |kind, src, dst, d| Frame { kind, src, dst, duration_us: d, seq: 0, retry: false, packet: None };
    v.push(("rts", ctrl(FrameKind::Rts, 0, 1, 2000)));
    v.push(("cts", ctrl(FrameKind::Cts, 1, 0, 1700)));
    v.push(("ack", ctrl(FrameKind::Ack, 1, 0, 0)));
    // TCP data, segment 5, ECT with CE and CWR, ADTCP's 12-byte timestamp.
    let mut s = seg(5, 0, 1460);
    s.ecn = Ecn { ect: true, ce: true, ece: false, cwr: true };
    s.options = 12;
    let mut f = data(pkt(10, 0, 3, Body::Tcp(s)), 0, 1, 7);
    f.retry = true;
    v.push(("tcp-data", f));
    // Pure ACK of 4 with two SACK blocks and ECE.
    let mut a = seg(0, 4, 0);
    a.sack.push(5, 7);
    a.sack.push(9, 10);
    a.options = a.sack.option_bytes();
    a.window = Some(44 * 1460);
    a.ecn.ece = true;
    v.push(("tcp-ack", data(pkt(11, 3, 0, Body::Tcp(a)), 1, 0, 8)));
    v.push(("cbr", data(pkt(12, 0, 3, Body::Udp(UdpDatagram { flow: 1, seqno: 3, payload: 512 })), 0, 1, 9)));
    let rreq = Rreq { gratuitous: false, dest_only: true, unknown_seqno: true, hop_count: 1, rreq_id: 7, dst: 3, dst_seqno: 0, orig: 0, orig_seqno: 2, timestamp: SimTime::ZERO };
    let rrep = Rrep { ack_required: false, hop_count: 2, dst: 3, dst_seqno: 4, orig: 0, lifetime_ms: 10_000, timestamp: SimTime::ZERO };
    let aodv = |m| Body::Routing(RoutingMsg::Aodv(m));
    v.push(("aodv-rreq", data(pkt(13, 0, BROADCAST, aodv(AodvMsg::Rreq(rreq)), ), 0, BROADCAST, 10)));
    v.push(("aodv-rrep", data(pkt(14, 3, 0, aodv(AodvMsg::Rrep(rrep.clone()))), 1, 0, 11)));
    v.push(("aodv-rerr", data(pkt(15, 1, BROADCAST, aodv(AodvMsg::Rerr(Rerr { no_delete: false, dests: vec![(3, 5), (2, 9)] }))), 1, BROADCAST, 12)));
    v.push(("aodv-rrep-ack", data(pkt(16, 0, 1, aodv(AodvMsg::RrepAck)), 0, 1, 13)));
    v.push(("aodv-hello", data(pkt(17, 2, BROADCAST, aodv(AodvMsg::Hello(Rrep { dst: 2, orig: 2, hop_count: 0, ..rrep }))), 2, BROADCAST, 14)));
    let links = vec![
        LinkGroup { link: LinkType::Sym, neigh: NeighType::Mpr, addrs: vec![1, 2] },
        LinkGroup { link: LinkType::Asym, neigh: NeighType::Not, addrs: vec![4] },
    ];
    let msg = |body| Message { vtime: olsr::encode_time(6.0), originator: 0, ttl: 1, hop_count: 0, msn: 77, body };
    let olsr_p = |m| Body::Routing(RoutingMsg::Olsr(OlsrPacket { seq: 5, msg: m }));
    v.push(("olsr-hello", data(pkt(18, 0, BROADCAST, olsr_p(msg(olsr::Body::Hello(Hello { htime: olsr::encode_time(2.0), willingness: 3, links })))), 0, BROADCAST, 15)));
    v.push(("olsr-tc", data(pkt(19, 0, BROADCAST, olsr_p(Message { ttl: 255, ..msg(olsr::Body::Tc(Tc { ansn: 3, advertised: vec![1, 4, 5] })) })), 0, BROADCAST, 16)));
    let dsr_p = |m| Body::Routing(RoutingMsg::Dsr(m));
    let err = RouteError { source: 1, dest: 0, unreachable: 2, salvage: 0 };
    v.push(("dsr-request", data(pkt(20, 0, BROADCAST, dsr_p(DsrMsg::Request(RouteRequest { id: 9, target: 3, addrs: vec![1, 2], error: None }))), 2, BROADCAST, 17)));
    v.push(("dsr-request-error", data(pkt(21, 0, BROADCAST, dsr_p(DsrMsg::Request(RouteRequest { id: 10, target: 3, addrs: vec![], error: Some(err) }))), 0, BROADCAST, 18)));
    v.push(("dsr-reply", data(pkt(22, 3, 0, dsr_p(DsrMsg::Reply { reply: RouteReply { addrs: vec![1, 2, 3] }, route: route(&[3, 2, 1, 0], 0) })), 3, 2, 19)));
    v.push(("dsr-error", data(pkt(23, 1, 0, dsr_p(DsrMsg::Error { error: err, route: route(&[1, 0], 0) })), 1, 0, 20)));
    v.push(("dsr-ack", data(pkt(24, 1, 0, dsr_p(DsrMsg::Ack(dsr::Ack { id: 99, ack_source: 1, ack_dest: 0 }))), 1, 0, 21)));
    v.push(("dsr-flow-error", data(pkt(25, 2, 0, dsr_p(DsrMsg::FlowError { error: FlowError { src: 0, dst: 3, id: Some(4) }, route: route(&[2, 1, 0], 0) })), 2, 1, 22)));
    // A TCP segment source-routed by DSR, at its second hop, with an ACK request.
    let mut p = pkt(26, 0, 3, Body::Tcp(seg(6, 0, 1460)));
    p.sr = Some(Box::new(SourceRoute { ack_request: true, ..route(&[0, 1, 2, 3], 1) }));
    p.extra_header = p.sr.as_ref().unwrap().wire_size();
    v.push(("dsr-source-route", data(p, 1, 2, 23)));
    // ns-2 flow state: an established flow's 4-byte header.
    let mut p = pkt(27, 0, 3, Body::Tcp(seg(7, 0, 1460)));
    p.sr = Some(Box::new(SourceRoute { flow: Some(FlowTag { id: 2, establish: false, header: true }), ..route(&[0, 1, 2, 3], 1) }));
    p.extra_header = p.sr.as_ref().unwrap().wire_size();
    v.push(("dsr-flow-state", data(p, 1, 2, 24)));
    let entries = vec![DsdvEntry { dst: 1, metric: 1, seqno: 10 }, DsdvEntry { dst: 2, metric: 2, seqno: 12 }];
    for (name, format) in [("dsdv-udp", PacketFormat::Udp), ("dsdv-ns2", PacketFormat::Ns2)] {
        let m = DsdvMsg::Update(DsdvUpdate { full: true, entries: entries.clone(), format });
        v.push((name, data(pkt(28, 0, BROADCAST, Body::Routing(RoutingMsg::Dsdv(m))), 0, BROADCAST, 25)));
    }
    v.push(("arp-request", data(pkt(29, 0, BROADCAST, Body::Arp(ArpMsg { reply: false, sender: 0, target: 1 })), 0, BROADCAST, 26)));
    v.push(("arp-reply", data(pkt(30, 1, 0, Body::Arp(ArpMsg { reply: true, sender: 1, target: 0 })), 1, 0, 27)));
    v
}

pub(crate) fn wire() -> WireInfo {
    WireInfo { flows: vec![FlowWire { mss: 1460, syn: false, bytes: None }], ip_in_ip: false }
}

#[test]
fn internet_checksum_matches_rfc1071_example() {
    // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (checksum 220d).
    assert_eq!(internet(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), !0xddf2);
    // A published IPv4 header (Wikipedia "IPv4 header checksum"): b861.
    let h = [0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7];
    assert_eq!(internet(&h), 0xb861);
    // Odd length: the last byte is the high half of a word.
    assert_eq!(internet(&[0x01]), !0x0100);
}

#[test]
fn crc32_matches_the_check_value() {
    // The CRC-32/ISO-HDLC check value of "123456789".
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
}

#[test]
fn addresses_and_ports() {
    assert_eq!(address::ip(0), [10, 0, 0, 1]);
    assert_eq!(address::ip(253), [10, 0, 0, 254]);
    assert_eq!(address::ip(255), [10, 0, 1, 0]);
    assert_eq!(address::ip(BROADCAST), [255; 4]);
    assert_eq!(address::mac(0x0102), [2, 0, 0, 0, 1, 2]);
    assert_eq!(address::port(3), 50003);
    assert_eq!((address::port_flow(50003), address::port_flow(49999), address::port_flow(54096)), (Some(3), None, None));
}

#[test]
fn every_packet_is_its_hoplab_size_and_checksums_verify() {
    for (name, f) in samples() {
        let Some(p) = f.packet.as_ref() else { continue };
        let mut b = Vec::new();
        let et = encode_packet(&mut b, p, &wire());
        assert_eq!(b.len() as u32, p.size(), "{name}: bytes vs Packet::size()");
        if et == llc::ETHERTYPE_IPV4 {
            assert_eq!(u16::from_be_bytes([b[2], b[3]]) as u32, p.size(), "{name}: IP total length");
            assert_eq!(internet(&b[..20]), 0, "{name}: IP header checksum");
            let proto = b[9];
            if proto == 6 || proto == 17 {
                let l4 = &b[20..];
                let sum = checksum::finish(checksum::add(checksum::pseudo_header(b[12..16].try_into().unwrap(), b[16..20].try_into().unwrap(), proto, l4.len() as u16), l4));
                assert_eq!(sum, 0, "{name}: transport checksum");
            }
        }
    }
}

#[test]
fn a_second_ip_header_is_ip_in_ip() {
    // ns-2's DSDV charges every packet it originates a second IP header
    // (routing.dsdv.double_ip_header): the capture carries it as RFC 2003.
    let mut p = pkt(40, 0, 2, Body::Tcp(seg(1, 0, 1460)));
    p.extra_header = 20;
    let mut b = Vec::new();
    encode_packet(&mut b, &p, &WireInfo { ip_in_ip: true, ..wire() });
    assert_eq!((b.len(), p.size()), (1520, 1520));
    assert_eq!((u16::from_be_bytes([b[2], b[3]]), b[9]), (1520, 4), "outer: all of it, IP in IP");
    assert_eq!((u16::from_be_bytes([b[22], b[23]]), b[29]), (1500, 6), "inner: TCP");
    assert_eq!((internet(&b[..20]), internet(&b[20..40])), (0, 0));
    assert_eq!(b[12..20], b[32..40], "the same addresses");
}

#[test]
fn frames_are_hoplab_size_plus_llc_snap() {
    let r = RadioInfo { tsft_us: 5, rate_bps: 2_000_000, short_preamble: false, signal_dbm: None };
    for (name, f) in samples() {
        let mut b = Vec::new();
        encode_frame(&mut b, &f, &r, &wire());
        let extra = if f.packet.is_some() { llc::LEN } else { 0 };
        assert_eq!(b.len() as u32, radiotap::LEN as u32 + f.bytes() + extra, "{name}");
        // The FCS covers everything after radiotap.
        let mac = &b[radiotap::LEN as usize..];
        let (body, fcs) = mac.split_at(mac.len() - 4);
        assert_eq!(crc32(body).to_le_bytes(), fcs, "{name}: FCS");
    }
}

#[test]
fn radiotap_and_data_header_fields() {
    let (_, f) = samples().into_iter().find(|(n, _)| *n == "tcp-data").unwrap();
    let mut b = Vec::new();
    encode_frame(&mut b, &f, &RadioInfo { tsft_us: 0x0102_0304, rate_bps: 11_000_000, short_preamble: true, signal_dbm: None }, &wire());
    assert_eq!(&b[0..8], &[0, 0, 22, 0, 0x0f, 0, 0, 0]);
    assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), 0x0102_0304);
    assert_eq!(b[16], 0x12, "flags: FCS + short preamble");
    assert_eq!(b[17], 22, "11 Mbit/s in 500 kbit/s units");
    assert_eq!(u16::from_le_bytes([b[18], b[19]]), 2412);
    let m = &b[22..];
    assert_eq!(&m[0..2], &[0x08, 0x08], "data frame, Retry");
    assert_eq!(u16::from_le_bytes([m[2], m[3]]), 314);
    assert_eq!(&m[4..10], &[2, 0, 0, 0, 0, 1]);
    assert_eq!(&m[10..16], &[2, 0, 0, 0, 0, 0]);
    assert_eq!(&m[16..22], &address::BSSID);
    assert_eq!(u16::from_le_bytes([m[22], m[23]]), 7 << 4);
    assert_eq!(&m[24..32], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
    let ip = &m[32..];
    assert_eq!(ip[1], 0b11, "CE");
    let tcp = &ip[20..];
    // Segment 5 of MSS 1460 starts at byte 1 + 5 * 1460.
    assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 1 + 5 * 1460);
    assert_eq!(tcp[12] >> 4, 8, "20 + 12 option bytes");
    assert_eq!(tcp[13], 0x10 | 0x80, "ACK, CWR");
    assert_eq!(&tcp[20..24], &[1, 1, 8, 10], "timestamp option");
    assert_eq!(u32::from_be_bytes(tcp[24..28].try_into().unwrap()), 1234, "TSval: creation time in ms");
}

#[test]
fn a_received_frame_carries_its_antenna_signal() {
    // Radiotap's dBm antenna signal (present bit 5): one signed byte after
    // the channel, and the header one byte longer.
    let (_, f) = samples().into_iter().find(|(n, _)| *n == "rts").unwrap();
    let r = RadioInfo { tsft_us: 1, rate_bps: 1_000_000, short_preamble: false, signal_dbm: Some(radiotap::dbm(3.652e-10)) };
    let mut b = Vec::new();
    encode_frame(&mut b, &f, &r, &wire());
    assert_eq!(&b[0..8], &[0, 0, 23, 0, 0x2f, 0, 0, 0]);
    assert_eq!(b[22] as i8, -64, "ns-2's receive threshold, 3.652e-10 W, is -64.4 dBm");
    assert_eq!(b.len() as u32, 23 + f.bytes());
    assert_eq!((radiotap::dbm(1e-3), radiotap::dbm(1e-20), radiotap::dbm(1e3)), (0, -128, 60));
}

#[test]
fn sack_blocks_and_acks_count_bytes() {
    let fw = FlowWire { mss: 1000, syn: false, bytes: None };
    assert_eq!(fw.byte(0), 1);
    assert_eq!(fw.byte(3), 3001);
    let syn = FlowWire { mss: 1000, syn: true, bytes: Some(2500) };
    assert_eq!(syn.byte(0), 0, "the SYN");
    assert_eq!(syn.byte(1), 1, "first data byte");
    assert_eq!(syn.byte(4), 2501, "an ACK of the whole transfer stops at its last byte");
    let (_, f) = samples().into_iter().find(|(n, _)| *n == "tcp-ack").unwrap();
    let mut b = Vec::new();
    encode_packet(&mut b, f.packet.as_ref().unwrap(), &wire());
    let tcp = &b[20..];
    assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 1 + 4 * 1460);
    assert_eq!(tcp[13], 0x10 | 0x40, "ACK, ECE");
    assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 44 * 1460, "the ACK's window");
    assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
    let mut big = seg(0, 4, 0);
    big.window = Some(1 << 20);
    let mut b2 = Vec::new();
    super::tcp::encode(&mut b2, &big, &FlowWire::default(), [10, 0, 0, 1], [10, 0, 0, 2], 0);
    assert_eq!(u16::from_be_bytes([b2[14], b2[15]]), 65535, "capped: no window scale option");
    let block = |i: usize| u32::from_be_bytes(tcp[24 + 4 * i..28 + 4 * i].try_into().unwrap());
    assert_eq!([block(0), block(1), block(2), block(3)], [1 + 5 * 1460, 1 + 7 * 1460, 1 + 9 * 1460, 1 + 10 * 1460]);
}

#[test]
fn dsr_source_route_lists_intermediate_hops() {
    let (_, f) = samples().into_iter().find(|(n, _)| *n == "dsr-source-route").unwrap();
    let mut b = Vec::new();
    encode_packet(&mut b, f.packet.as_ref().unwrap(), &wire());
    assert_eq!(b[9], 48, "IP protocol DSR");
    let d = &b[20..];
    assert_eq!(d[0], 6, "next header TCP");
    assert_eq!(u16::from_be_bytes([d[2], d[3]]) as usize, 4 + 12, "ack request + source route of 2 hops");
    assert_eq!(&d[4..8], &[160, 2, 0, 26]);
    assert_eq!(&d[8..10], &[96, 10]);
    assert_eq!(u16::from_be_bytes([d[10], d[11]]) & 0x3f, 1, "one hop left after node 1");
    assert_eq!(&d[12..20], &[10, 0, 0, 2, 10, 0, 0, 3]);
}
