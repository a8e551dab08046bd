//! The ns-2 wireless trace file (`[trace] formats = ["ns2"]`, `trace.tr`):
//! each traced event as the line ns-2.35's CMU trace writes for it
//! (trace/cmu-trace.cc; seed 002 Appendix B), in the old format
//! (`s 1.000000000 _0_ AGT  --- 0 tcp 40 [0 0 0 0] ------- [...] ...`) or the
//! new one (`s -t 1.000000000 -Hs 0 -Hd -2 -Ni 0 ...`), so that the awk
//! scripts and tools written for ns-2 traces run on it unchanged.
//!
//! What ns-2 writes and hoplab therefore writes too:
//! - `s`/`r` at AGT, `s`/`r`/`f` at RTR, `s`/`r` at MAC; `D` (old) or `d`
//!   (new) for drops, at the level ns-2 logs each reason (`DropReason::layer`:
//!   AODV/DSR's RTR, the MAC, or IFQ for the queue and ARP).
//! - A reception lost to a collision is `D ... MAC COL`
//!   (mac-802_11.cc `collision()` -> `discard(p, DROP_MAC_COLLISION)`).
//!
//! What ns-2 does not write, and neither does this sink:
//! - Frames decoded but addressed to another node: mac-802_11.cc
//!   `recv_timer()` "Address Filtering" hands them to `discard()`, which
//!   logs only frames to or from this node (or broadcast).
//! - Receptions too weak to decode: the PHY marks them `error()` and
//!   mac-802_11.cc `discard()` frees them untraced ("a real MAC layer
//!   couldn't necessarily read any data from it").
//!
//! Sizes follow ns-2's counting (the `size` column, `-Il`), so hoplab's
//! figures line up with an ns-2 trace of the same traffic:
//! - AGT and RTR: the IP datagram (`Packet::size()`: IP header + transport
//!   header + payload, e.g. 1500 for a 1460-byte segment, 40 for an ACK).
//!   ns-2's TCP agent counts the same 40 bytes of TCP/IP header
//!   (tcp.cc `headersize()`), so agent-level byte sums agree.
//! - A frame put on the air (and a collided one): `Frame::bytes()` + 24 for
//!   the PLCP preamble and header, which ns-2 counts as bytes
//!   (mac-802_11.h `getPLCPhdrLen()`: 192 bits at 1 Mbit/s), + 6 for DATA
//!   frames, whose ns-2 header struct carries a fourth address that an
//!   ad hoc frame does not have (`hdr_mac802_11`: 30 bytes to `dh_body`,
//!   hoplab 24). RTS 44, CTS and ACK 38, DATA = IP + 58, as in ns-2.
//! - A DATA frame received, and a DATA drop by retry limit or duplicate:
//!   the IP size, because ns-2 strips the MAC header first (mac-802_11.cc
//!   `recvDATA()`, `RetransmitDATA()`: `ch->size() -= getHdrLen11()`).
//!
//! - AGT lines: the agent's packet, without a routing header DSR adds
//!   below it (ns-2: 1040 for a 1000-byte segment, at both ends).
//!
//! Under `compat = "ns2"` (`Ns2Numbering`) the numbers ns-2 puts on the wire
//! differently are printed its way: the IP TTL from 32 (30 once AODV has
//! routed the packet), AODV hop counts from 1, and a RREP relayed as one
//! packet (`f RTR`, see net/aodv). What still differs: AODV messages keep
//! RFC 3561's sizes (RREQ 52 B, ns-2 48; RREP 48, ns-2 44), their sequence
//! numbers step by 1 (ns-2 by 2), uids are hoplab's, the source's own
//! `r RTR` line (the agent handing a packet down) is not written, and a
//! failed RTS exchange is one `D MAC RET` line (ns-2 writes the RTS's too).
//!
//! Fields hoplab has no value for are printed as ns-2 prints an unset one:
//! the MAC header `[0 0 0 0]` on AGT/RTR lines (ns-2 shows the last hop's
//! stale header there), next hop 0 (`-Hd -2`) where the routing decision is
//! not part of the event, energy -1, GOD's optimal hop count 0.

use std::io::{self, Write};

use super::event::{Layer, TraceEvent, TraceSink, What};
use crate::net::DropReason;
use crate::time::SimTime;
use crate::wire::aodv::AodvMsg;
use crate::wire::dsr::DsrMsg;
use crate::wire::{Body, Frame, FrameKind, NodeId, Packet, PacketType, RoutingMsg, BROADCAST, DEFAULT_TTL};

/// ns-2.35 wrote two wireless formats: the CMU one (`old`, the default) and
/// the tagged `-t ...` one (`$ns use-newtrace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2Format {
    Old,
    New,
}

/// Numbers that ns-2.35 puts on the wire differently from the standards,
/// printed its way when the run reads the scenario as ns-2 (`compat =
/// "ns2"`), so that awk scripts keyed on them read the same values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Numbering {
    /// IP TTL from ns-2's 32 (ip.h `IP_DEF_TTL`) rather than 64, and AODV
    /// hop counts from 1 (aodv.cc sendRequest, sendReply, sendHello set
    /// `hop_count = 1`; RFC 3561 §6.3 starts at 0).
    pub ns2: bool,
    /// The routing agent is AODV: ns-2 aodv.cc `recv` sets a packet it
    /// originates to TTL `NETWORK_DIAMETER` (30) once the agent hands it down.
    pub aodv: bool,
    /// The interface queue is ns-2's CMUPriQueue (`mac.queue_classes`),
    /// which drops with a reason, `DROP_IFQ_QFULL` (dsr-priqueue.cc
    /// prq_enqueue), where a drop-tail queue gives none.
    pub cmu_ifq: bool,
    /// The routing agent is CMU DSR read as ns-2: its send buffer drops
    /// what it sheds when full as `DROP_RTR_QTIMEOUT` too (dsragent.cc
    /// dropSendBuff), where hoplab's table says QFULL.
    pub dsr: bool,
}

/// ns-2's default IP TTL (ip.h `IP_DEF_TTL`).
const NS2_IP_TTL: i64 = 32;
/// ns-2 aodv.h `NETWORK_DIAMETER`: the TTL AODV gives what it originates.
const NS2_AODV_TTL: i64 = 30;

/// Streams ns-2 trace lines to `out`, one per kept event.
pub struct Ns2Sink<W: Write> {
    out: W,
    format: Ns2Format,
    numbering: Ns2Numbering,
    line: String,
}

impl<W: Write> Ns2Sink<W> {
    pub fn new(out: W, format: Ns2Format) -> Ns2Sink<W> {
        Ns2Sink { out, format, numbering: Ns2Numbering::default(), line: String::with_capacity(256) }
    }

    pub fn numbered(mut self, numbering: Ns2Numbering) -> Ns2Sink<W> {
        self.numbering = numbering;
        self
    }

    #[cfg(test)]
    fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> TraceSink for Ns2Sink<W> {
    fn event(&mut self, ev: &TraceEvent<'_>) -> io::Result<()> {
        let Some(rec) = Rec::of(ev, self.numbering) else { return Ok(()) };
        self.line.clear();
        match self.format {
            Ns2Format::Old => rec.write_old(&mut self.line),
            Ns2Format::New => rec.write_new(&mut self.line),
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// ns-2's PLCP preamble + header counted as bytes (mac-802_11.h
/// `getPLCPhdrLen()`, long preamble: (144 + 48) / 8).
const PLCP_BYTES: u32 = 24;
/// ns-2's `hdr_mac802_11` has Address4 (6 bytes) that hoplab's 3-address
/// ad hoc DATA header does not (IEEE 802.11-2012 §8.3.2.1: Address4 only
/// in WDS frames).
const NS2_ADDR4_BYTES: u32 = 6;
/// ns-2's routing agents bind port 255 (`RT_PORT`, ip.h).
const RT_PORT: i64 = 255;
/// ethertype in the MAC header column (ns-2 `ETHERTYPE_IP`, `ETHERTYPE_ARP`).
const ETHERTYPE_IP: u32 = 0x800;
const ETHERTYPE_ARP: u32 = 0x806;

/// The MAC header as ns-2 prints it: `[duration RA TA ethertype]`.
#[derive(Clone, Copy, Default)]
struct MacHdr {
    duration: u32,
    ra: u32,
    ta: u32,
    ethertype: u32,
}

/// One line's fields, before the format is chosen.
struct Rec<'a> {
    op: char,
    time: SimTime,
    node: NodeId,
    level: &'static str,
    why: &'static str,
    uid: u64,
    name: &'static str,
    size: u32,
    mac: MacHdr,
    /// ns-2 `ch->next_hop_`; -2 when unset (ns-2's initial value).
    next_hop: i64,
    pos: (f64, f64),
    /// The IP packet (or ARP message) after the MAC header; None for
    /// control frames and drops that kept no packet.
    packet: Option<&'a Packet>,
    /// ns-2 `num_forwards`: MAC hops the packet has completed.
    forwards: u32,
    /// A drop that kept only the packet's type (no packet): the new format
    /// still names it (`-It`), so that tag-reading scripts can count it.
    type_only: bool,
    /// The IP TTL column.
    ttl: i64,
    /// Added to an AODV message's hop count (ns-2 counts from 1).
    aodv_hop_base: u8,
}

/// The reason as ns-2's trace prints it (trace/cmu-trace.h), where that
/// differs from the drops table's code: a full drop-tail interface queue
/// drops with no reason (queue/drop-tail.cc `drop(p)`: "---"), CMUPriQueue
/// with `DROP_IFQ_QFULL` ("IFQ"), and a routing agent's full buffer is
/// `DROP_RTR_QFULL`, printed "IFQ".
fn ns2_code(r: DropReason, numbering: Ns2Numbering) -> &'static str {
    match r {
        DropReason::Ifq if numbering.cmu_ifq => "IFQ",
        DropReason::Ifq => "---",
        DropReason::Qfull if numbering.dsr => "TOUT",
        DropReason::Qfull => "IFQ",
        _ => r.code(),
    }
}

impl<'a> Rec<'a> {
    fn of(ev: &TraceEvent<'a>, numbering: Ns2Numbering) -> Option<Rec<'a>> {
        let frame = ev.frame;
        let addressed = |f: &Frame| f.dst == ev.node || f.dst == BROADCAST;
        let (op, level, why) = match (ev.layer, ev.what) {
            (Layer::Agt, What::Send) => ('s', "AGT", "---"),
            (Layer::Agt, What::Recv) => ('r', "AGT", "---"),
            (Layer::Rtr, What::Send) => ('s', "RTR", "---"),
            (Layer::Rtr, What::Forward) => ('f', "RTR", "---"),
            (Layer::Rtr, What::Recv) => ('r', "RTR", "---"),
            (Layer::Mac, What::Send) => ('s', "MAC", "---"),
            // mac-802_11.cc recv_timer(): frames for others are not logged.
            (Layer::Mac, What::Recv) if frame.is_some_and(addressed) => ('r', "MAC", "---"),
            // mac-802_11.cc collision()/discard(): logged when to this node.
            (_, What::Collision) if frame.is_some_and(addressed) => ('D', "MAC", DropReason::Col.code()),
            // A CTS withheld on a busy medium: mac-802_11.cc check_pktCTRL
            // discards it with DROP_MAC_BUSY, but discard() logs a CTS only
            // when it is addressed to this node, and ours never is.
            (_, What::Drop) if ev.reason == Some(DropReason::Bsy) => return None,
            (_, What::Drop) => {
                let r = ev.reason.unwrap_or(DropReason::End);
                let level = if r == DropReason::Col { "MAC" } else { r.layer() };
                ('D', level, ns2_code(r, numbering))
            }
            _ => return None,
        };
        // A DATA frame's packet, or the packet of an AGT/RTR event.
        let packet = ev.packet.or_else(|| frame.and_then(|f| f.packet.as_ref()));
        let mac = frame.map_or(MacHdr::default(), mac_hdr);
        let on_air_size = frame.map(ns2_frame_bytes);
        let whole_frame = matches!(ev.what, What::Collision) || (ev.layer == Layer::Mac && ev.what == What::Send);
        let size = match (on_air_size, packet) {
            (Some(s), _) if whole_frame => s,
            // The agent's packet, without the routing agent's header: ns-2
            // dsragent.cc adds the source route below AGT and strips it
            // before the packet goes up.
            (_, Some(p)) if ev.layer == Layer::Agt => p.size() - p.extra_header,
            (_, Some(p)) => p.size(),
            (Some(s), None) => s,
            (None, None) => 0,
        };
        let name = match (frame, packet) {
            (Some(f), _) if f.kind != FrameKind::Data => control_name(f.kind),
            (_, Some(p)) => type_name(p),
            (_, None) => ptype_name(ev.ptype),
        };
        // Hops completed: hoplab's relays decrement the TTL once per forward
        // (node.rs, RFC 791), so a packet that came over the air has made
        // one hop more than it has been forwarded.
        let arrived = matches!(ev.what, What::Recv) || ev.reason == Some(DropReason::Dup);
        let forwards = packet.map_or(0, |p| {
            let fwd = (DEFAULT_TTL.saturating_sub(p.ttl)) as u32;
            if arrived && p.src != ev.node { fwd + 1 } else { fwd }
        });
        let next_hop = match (frame, packet) {
            // The routing decision (ns-2 `ch->next_hop_`, set before "s/f RTR").
            _ if ev.next_hop.is_some() => ev.next_hop.map_or(-2, ip),
            (Some(f), Some(p)) if f.kind == FrameKind::Data && f.dst != BROADCAST && !matches!(p.body, Body::Arp(_)) => f.dst as i64,
            (None, Some(p)) if ev.what == What::Recv && p.src != ev.node => ev.node as i64,
            _ => -2,
        };
        let ttl = packet.map_or(0, |p| {
            let hops = i64::from(DEFAULT_TTL) - i64::from(p.ttl);
            match (numbering.ns2, &p.body) {
                (false, _) | (true, Body::Routing(_) | Body::Arp(_)) => i64::from(p.ttl),
                // The source's agent hands it down at ns-2's default; AODV
                // resets it as it routes it.
                (true, _) if ev.layer == Layer::Agt && ev.what == What::Send => NS2_IP_TTL - hops,
                (true, _) if numbering.aodv => NS2_AODV_TTL - hops,
                (true, _) => NS2_IP_TTL - hops,
            }
        });
        Some(Rec {
            op,
            time: ev.time,
            node: ev.node,
            level,
            why,
            uid: if frame.is_some_and(|f| f.kind != FrameKind::Data) { 0 } else { packet.map_or(0, |p| p.uid) },
            name,
            size,
            mac,
            next_hop,
            pos: ev.pos,
            packet: if frame.is_some_and(|f| f.kind != FrameKind::Data) { None } else { packet },
            forwards,
            type_only: packet.is_none() && frame.is_none() && ev.ptype != PacketType::Mac,
            ttl,
            aodv_hop_base: u8::from(numbering.ns2),
        })
    }

    /// cmu-trace.cc `format_mac_common` (old format), `format_mac`, then
    /// `format_ip` + the transport/routing part, or `format_arp`.
    fn write_old(&self, s: &mut String) {
        use std::fmt::Write;
        let _ = write!(s, "{} {} _{}_ {:>3} {:>4} {} {} {}", self.op, Time9(self.time), self.node, self.level, self.why, self.uid, self.name, self.size);
        let m = self.mac;
        let _ = write!(s, " [{:x} {:x} {:x} {:x}] ", m.duration, m.ra, m.ta, m.ethertype);
        let Some(p) = self.packet else { return };
        if let Body::Arp(a) = &p.body {
            let (op, tha, tpa) = arp_fields(a);
            let _ = write!(s, "------- [{} {}/{} {}/{}]", op, a.sender, a.sender, tha, tpa);
            return;
        }
        let (sport, dport) = ports(p);
        let nh = if self.next_hop < 0 { 0 } else { self.next_hop };
        let _ = write!(s, "------- [{}:{} {}:{} {} {}] ", ip(p.src), sport, ip(p.dst), dport, self.ttl, nh);
        match &p.body {
            Body::Tcp(t) => {
                let _ = write!(s, "[{} {}] {} 0", tcp_seqno(t), 0, self.forwards);
            }
            Body::Udp(d) => {
                let _ = write!(s, "[{}] {} 0", d.seqno, self.forwards);
            }
            Body::Routing(RoutingMsg::Aodv(m)) => aodv_old(s, m, self.aodv_hop_base),
            Body::Routing(RoutingMsg::Dsr(m)) => {
                let d = dsr_fields(m);
                let _ = write!(
                    s,
                    "{} [{} {}] [{} {} {} {}->{}] [{} {} {} {}->{}]",
                    d.num_addrs, d.request, d.seq, d.reply, d.seq, d.reply_len, d.reply_first, d.reply_last, d.error, d.num_errors, d.tell, d.from, d.to
                );
            }
            // format_msg(): DSDV's PT_MESSAGE (and OLSR) print nothing more.
            Body::Routing(_) => {}
            // A real host's packet (emulation): TCP's own sequence and ACK numbers.
            Body::Ip(r) => {
                if let Some((seq, ack)) = real_tcp_seq_ack(&r.bytes) {
                    let _ = write!(s, "[{} {}] {} 0", seq, ack, self.forwards);
                }
            }
            Body::Arp(_) => unreachable!(),
        }
    }

    /// cmu-trace.cc `format_mac_common` (`newtrace_`), `format_mac`,
    /// `format_ip`, then `format_tcp`/`format_rtp`/`format_aodv`/`format_dsr`
    /// or `format_arp`. Every field ends with a space, as ns-2's do.
    fn write_new(&self, s: &mut String) {
        use std::fmt::Write;
        let op = if self.op == 'D' { 'd' } else { self.op };
        let _ = write!(
            s,
            "{} -t {} -Hs {} -Hd {} -Ni {} -Nx {:.2} -Ny {:.2} -Nz 0.00 -Ne -1.000000 -Nl {:>3} -Nw {} ",
            op,
            Time9(self.time),
            self.node,
            self.next_hop,
            self.node,
            self.pos.0,
            self.pos.1,
            self.level,
            self.why
        );
        let m = self.mac;
        let _ = write!(s, "-Ma {:x} -Md {:x} -Ms {:x} -Mt {:x} ", m.duration, m.ra, m.ta, m.ethertype);
        if self.type_only {
            let _ = write!(s, "-It {} -Il {} ", self.name, self.size);
        }
        let Some(p) = self.packet else { return };
        if let Body::Arp(a) = &p.body {
            let (op, tha, tpa) = arp_fields(a);
            let _ = write!(s, "-P arp -Po {} -Pms {} -Ps {} -Pmd {} -Pd {} ", op, a.sender, a.sender, tha, tpa);
            return;
        }
        let (sport, dport) = ports(p);
        let _ = write!(s, "-Is {}.{} -Id {}.{} -It {} -Il {} -If {} -Ii {} -Iv {} ", ip(p.src), sport, ip(p.dst), dport, self.name, self.size, p.flow().unwrap_or(0), p.uid, self.ttl);
        match &p.body {
            Body::Tcp(t) => {
                let _ = write!(s, "-Pn tcp -Ps {} -Pa {} -Pf {} -Po 0 ", tcp_seqno(t), 0, self.forwards);
            }
            Body::Udp(d) => {
                let _ = write!(s, "-Pn cbr -Pi {} -Pf {} -Po 0 ", d.seqno, self.forwards);
            }
            Body::Routing(RoutingMsg::Aodv(m)) => aodv_new(s, m, self.aodv_hop_base),
            Body::Routing(RoutingMsg::Dsr(m)) => {
                let d = dsr_fields(m);
                let _ = write!(
                    s,
                    "-P dsr -Ph {} -Pq {} -Ps {} -Pp {} -Pn {} -Pl {} -Pe {}->{} -Pw {} -Pm {} -Pc {} -Pb {}->{} ",
                    d.num_addrs, d.request, d.seq, d.reply, d.seq, d.reply_len, d.reply_first, d.reply_last, d.error, d.num_errors, d.tell, d.from, d.to
                );
            }
            Body::Routing(_) => {}
            Body::Ip(r) => {
                if let Some((seq, ack)) = real_tcp_seq_ack(&r.bytes) {
                    let _ = write!(s, "-Pn tcp -Ps {} -Pa {} -Pf {} -Po 0 ", seq, ack, self.forwards);
                }
            }
            Body::Arp(_) => unreachable!(),
        }
    }
}

/// `%.9f` of the time, exactly: SimTime is integer nanoseconds.
struct Time9(SimTime);

impl std::fmt::Display for Time9 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:09}", self.0 .0 / 1_000_000_000, self.0 .0 % 1_000_000_000)
    }
}

/// ns-2 prints IP addresses as node ids, the broadcast address as -1
/// (`IP_BROADCAST`, ip.h).
fn ip(n: NodeId) -> i64 {
    if n == BROADCAST {
        -1
    } else {
        n as i64
    }
}

/// ns-2 MAC addresses are node ids too; broadcast is `MAC_BROADCAST`
/// (0xffffffff, mac.h), printed `%x`.
fn mac_addr(n: NodeId) -> u32 {
    n
}

fn mac_hdr(f: &Frame) -> MacHdr {
    let ethertype = match &f.packet {
        Some(Packet { body: Body::Arp(_), .. }) => ETHERTYPE_ARP,
        Some(_) if f.kind == FrameKind::Data => ETHERTYPE_IP,
        // format_mac(): no ethertype for control frames.
        _ => 0,
    };
    // ns-2's CTS and ACK frames have no transmitter address (mac-802_11.cc
    // sendCTS/sendACK fill only RA), so the trace shows the zeroed TA.
    let ta = match f.kind {
        FrameKind::Cts | FrameKind::Ack => 0,
        _ => mac_addr(f.src),
    };
    MacHdr { duration: f.duration_us, ra: mac_addr(f.dst), ta, ethertype }
}

/// A frame's size as ns-2 counts it (see the module comment).
fn ns2_frame_bytes(f: &Frame) -> u32 {
    f.bytes() + PLCP_BYTES + if f.kind == FrameKind::Data { NS2_ADDR4_BYTES } else { 0 }
}

fn control_name(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Rts => "RTS",
        FrameKind::Cts => "CTS",
        FrameKind::Ack => "ACK",
        FrameKind::Data => "MAC",
    }
}

/// ns-2's `packet_info` names (common/packet.h `name_[PT_*]`).
fn type_name(p: &Packet) -> &'static str {
    match &p.body {
        Body::Routing(RoutingMsg::Aodv(_)) => "AODV",
        Body::Routing(RoutingMsg::Dsr(_)) => "DSR",
        // dsdv.cc sends PT_MESSAGE; OLSR is not in ns-2.35 (UM-OLSR's patch
        // names its type "OLSR").
        Body::Routing(RoutingMsg::Dsdv(_)) => "message",
        Body::Routing(RoutingMsg::Olsr(_)) => "OLSR",
        _ => ptype_name(p.ptype()),
    }
}

fn ptype_name(t: PacketType) -> &'static str {
    match t {
        PacketType::Tcp => "tcp",
        PacketType::Ack => "ack",
        PacketType::Cbr => "cbr",
        PacketType::Routing => "message",
        PacketType::Arp => "ARP",
        PacketType::Mac => "MAC",
    }
}

/// Ports: ns-2 numbers an agent's port on its node; hoplab gives each
/// flow's agents the flow's index (flow 0: `0:0`, as a one-flow ns-2
/// script shows), routing agents `RT_PORT`.
fn ports(p: &Packet) -> (i64, i64) {
    match (&p.body, p.flow()) {
        (Body::Routing(_), _) => (RT_PORT, RT_PORT),
        (_, Some(f)) => (f as i64, f as i64),
        _ => (0, 0),
    }
}

/// The first `[seqno ackno]` number. ns-2's TCP sink puts its cumulative
/// ACK in `seqno` as the highest in-order segment received
/// (tcp-sink.cc `ack()`: `ntcp->seqno() = acker_->Seqno()`), one less
/// than hoplab's `ackno` (the next segment expected); ns-2's one-way TCP
/// leaves `ackno` 0 on data and ACKs alike.
fn tcp_seqno(t: &crate::wire::TcpSegment) -> i64 {
    if t.is_pure_ack() {
        t.ackno as i64 - 1
    } else {
        t.seqno as i64
    }
}

/// format_arp(): operation, sender hw/ip, target hw/ip (a request's
/// target hardware address is unknown: 0).
fn arp_fields(a: &crate::wire::ArpMsg) -> (&'static str, NodeId, NodeId) {
    if a.reply {
        ("REPLY", a.target, a.target)
    } else {
        ("REQUEST", 0, a.target)
    }
}

/// AODV message type codes (aodv_packet.h `AODVTYPE_*`; RFC 3561 §5 uses 1-4).
fn aodv_type(m: &AodvMsg) -> u32 {
    match m {
        AodvMsg::Hello(_) => 0x1,
        AodvMsg::Rreq(_) => 0x2,
        AodvMsg::Rrep(_) => 0x4,
        AodvMsg::Rerr(_) => 0x8,
        AodvMsg::RrepAck => 0x10,
    }
}

/// The reply-shaped fields format_aodv prints for RREP, HELLO and RERR:
/// (hop count, dst, dst seqno, lifetime s, label). ns-2 reads a RERR through
/// the reply struct; hoplab prints its first unreachable destination there.
fn aodv_reply(m: &AodvMsg, base: u8) -> (u8, i64, u32, f64, &'static str) {
    match m {
        AodvMsg::Rrep(r) => (r.hop_count.saturating_add(base), ip(r.dst), r.dst_seqno, r.lifetime_ms as f64 / 1000.0, "REPLY"),
        AodvMsg::Hello(r) => (r.hop_count.saturating_add(base), ip(r.dst), r.dst_seqno, r.lifetime_ms as f64 / 1000.0, "HELLO"),
        AodvMsg::Rerr(e) => {
            let (d, q) = e.dests.first().map_or((-1, 0), |&(d, q)| (ip(d), q));
            (e.dests.len() as u8, d, q, 0.0, "ERROR")
        }
        // Not an ns-2 message (ns-2's AODV sends no RREP-ACK); labelled as
        // format_aodv labels any type that is neither RREP nor RERR.
        AodvMsg::RrepAck | AodvMsg::Rreq(_) => (0, -1, 0, 0.0, "HELLO"),
    }
}

fn aodv_old(s: &mut String, m: &AodvMsg, base: u8) {
    use std::fmt::Write;
    if let AodvMsg::Rreq(q) = m {
        let _ = write!(s, "[0x{:x} {} {} [{} {}] [{} {}]] (REQUEST)", 0x2, q.hop_count.saturating_add(base), q.rreq_id, ip(q.dst), q.dst_seqno, ip(q.orig), q.orig_seqno);
    } else {
        let (h, d, ds, l, c) = aodv_reply(m, base);
        let _ = write!(s, "[0x{:x} {} [{} {}] {:.6}] ({})", aodv_type(m), h, d, ds, l, c);
    }
}

fn aodv_new(s: &mut String, m: &AodvMsg, base: u8) {
    use std::fmt::Write;
    if let AodvMsg::Rreq(q) = m {
        let _ = write!(s, "-P aodv -Pt 0x{:x} -Ph {} -Pb {} -Pd {} -Pds {} -Ps {} -Pss {} -Pc REQUEST ", 0x2, q.hop_count.saturating_add(base), q.rreq_id, ip(q.dst), q.dst_seqno, ip(q.orig), q.orig_seqno);
    } else {
        let (h, d, ds, l, c) = aodv_reply(m, base);
        let _ = write!(s, "-P aodv -Pt 0x{:x} -Ph {} -Pd {} -Pds {} -Pl {:.6} -Pc {} ", aodv_type(m), h, d, ds, l, c);
    }
}

/// The fields format_dsr prints from ns-2's `hdr_sr`.
#[derive(Default)]
struct DsrFields {
    num_addrs: usize,
    request: u8,
    seq: i64,
    reply: u8,
    reply_len: usize,
    reply_first: i64,
    reply_last: i64,
    error: u8,
    num_errors: u8,
    tell: i64,
    from: i64,
    to: i64,
}

fn dsr_fields(m: &DsrMsg) -> DsrFields {
    let mut d = DsrFields::default();
    match m {
        DsrMsg::Request(q) => {
            // hdr_sr's address list includes the initiator.
            d.num_addrs = q.addrs.len() + 1;
            d.request = 1;
            d.seq = q.id as i64;
        }
        DsrMsg::Reply { reply, route } => {
            d.num_addrs = route.addrs.len();
            d.reply = 1;
            d.reply_len = reply.addrs.len();
            d.reply_first = reply.addrs.first().map_or(0, |&a| ip(a));
            d.reply_last = reply.addrs.last().map_or(0, |&a| ip(a));
        }
        DsrMsg::Error { error, route } => {
            d.num_addrs = route.addrs.len();
            d.error = 1;
            d.num_errors = 1;
            d.tell = ip(error.dest);
            d.from = ip(error.source);
            d.to = ip(error.unreachable);
        }
        DsrMsg::FlowError { route, .. } => d.num_addrs = route.addrs.len(),
        DsrMsg::Ack(_) => {}
    }
    d
}

#[cfg(test)]
#[path = "ns2_tests.rs"]
mod tests;

/// The sequence and acknowledgment numbers of a real IPv4 TCP packet
/// (RFC 793 §3.1: at bytes 4 and 8 of the TCP header); None for other protocols.
fn real_tcp_seq_ack(b: &[u8]) -> Option<(u32, u32)> {
    let ihl = usize::from(*b.first()? & 0x0F) * 4;
    if *b.get(9)? != 6 {
        return None;
    }
    let word = |at: usize| Some(u32::from_be_bytes(b.get(ihl + at..ihl + at + 4)?.try_into().ok()?));
    Some((word(4)?, word(8)?))
}
