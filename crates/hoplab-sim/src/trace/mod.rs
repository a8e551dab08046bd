//! The optional event trace (`[output] trace = true`): every frame a node puts
//! on the air, every frame its receiver finishes (decoded, lost to a collision,
//! or too weak to decode) and every packet it drops, in the order they
//! happened. It is the evidence an ns-2 trace file gives (seed 002 Appendix B),
//! as one table, for finding the mechanism behind a figure.
//!
//! Tracing only records: it never changes what the simulation does, so a
//! traced run has the same event hash as an untraced one.

pub mod event;
pub mod pcap;

use crate::net::DropReason;
use crate::time::SimTime;
use crate::wire::{Body, Frame, FrameKind, NodeId, Packet, PacketType, BROADCAST};

crate::result_table! {
    /// `[output] trace = true`: every frame sent ("tx") or ended at a receiver
    /// ("rx" decoded, "col" collided, "weak" below the receive threshold) and
    /// every drop ("drop", with the ns-2 code in `reason`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct TraceRow as "trace" {
        /// When it happened.
        pub time_s: f64 ["s"],
        /// Where it happened.
        pub node: u32 [""],
        /// "tx" (the node starts sending a frame), "rx" (a frame decoded, whoever
        /// it was for), "col" (a frame the receiver was locked on was lost to
        /// interference), "weak" (a frame below the receive threshold locked the
        /// receiver and ended in error) or "drop" (a packet discarded; `reason`
        /// says why).
        pub event: &'static str [""],
        /// "RTS", "CTS", "DATA", "ACK"; "" for drops.
        pub frame: &'static str [""],
        /// MAC transmitter of the frame (-1: none).
        pub src: i64 [""],
        /// MAC receiver of the frame (-1: broadcast or none).
        pub dst: i64 [""],
        /// 802.11 sequence number of a DATA frame.
        pub seq: i64 [""],
        /// The Retry bit of a DATA frame.
        pub retry: bool [""],
        /// The packet's uid (kept across hops; -1 for control frames).
        pub uid: i64 [""],
        /// The packet's type: "tcp", "ack", "cbr", "routing", "ARP" or "MAC" (control frames).
        pub packet_type: &'static str [""],
        /// IP source of the packet (-1 without a packet).
        pub packet_src: i64 [""],
        /// IP destination of the packet (-1 without a packet or broadcast).
        pub packet_dst: i64 [""],
        /// TCP segment number (data) or cumulative ACK (pure ACKs); -1 otherwise.
        pub tcp_seq: i64 [""],
        /// ns-2 drop code for "drop" rows, the routing message kind for routing
        /// packets, otherwise "".
        pub reason: &'static str [""],
    }
}

fn addr(n: NodeId) -> i64 {
    if n == BROADCAST {
        -1
    } else {
        n as i64
    }
}

fn frame_name(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Rts => "RTS",
        FrameKind::Cts => "CTS",
        FrameKind::Ack => "ACK",
        FrameKind::Data => "DATA",
    }
}

/// A node's trace, in the order its events happened.
#[derive(Debug, Default)]
pub struct Tracer {
    pub rows: Vec<TraceRow>,
}

impl Tracer {
    fn packet_row(now: SimTime, node: NodeId, event: &'static str, p: Option<&Packet>) -> TraceRow {
        let (uid, ptype, psrc, pdst, tcp_seq, kind) = match p {
            Some(p) => {
                let tcp_seq = match &p.body {
                    Body::Tcp(s) if s.is_pure_ack() => s.ackno as i64,
                    Body::Tcp(s) => s.seqno as i64,
                    _ => -1,
                };
                let kind = match &p.body {
                    Body::Routing(m) => m.kind(),
                    _ => "",
                };
                (p.uid as i64, p.ptype().name(), addr(p.src), addr(p.dst), tcp_seq, kind)
            }
            None => (-1, PacketType::Mac.name(), -1, -1, -1, ""),
        };
        TraceRow {
            time_s: now.as_secs_f64(),
            node,
            event,
            frame: "",
            src: -1,
            dst: -1,
            seq: -1,
            retry: false,
            uid,
            packet_type: ptype,
            packet_src: psrc,
            packet_dst: pdst,
            tcp_seq,
            reason: kind,
        }
    }

    /// A frame sent ("tx") or finished at a receiver ("rx", "col", "weak").
    pub fn frame(&mut self, now: SimTime, node: NodeId, event: &'static str, f: &Frame) {
        let mut r = Self::packet_row(now, node, event, f.packet.as_ref());
        r.frame = frame_name(f.kind);
        r.src = addr(f.src);
        r.dst = addr(f.dst);
        if f.kind == FrameKind::Data {
            r.seq = f.seq as i64;
            r.retry = f.retry;
        }
        self.rows.push(r);
    }

    /// A packet dropped (`p` is None where only its type is known).
    pub fn drop(&mut self, now: SimTime, node: NodeId, reason: DropReason, p: Option<&Packet>, ptype: PacketType) {
        let mut r = Self::packet_row(now, node, "drop", p);
        r.packet_type = ptype.name();
        r.reason = reason.code();
        self.rows.push(r);
    }
}

/// Every node's rows as one table ordered by time, then node; each node's own
/// rows keep the order in which they happened.
pub fn merge(per_node: Vec<Vec<TraceRow>>) -> Vec<TraceRow> {
    let mut all: Vec<TraceRow> = per_node.into_iter().flatten().collect();
    all.sort_by(|a, b| a.time_s.total_cmp(&b.time_s).then(a.node.cmp(&b.node)));
    all
}
