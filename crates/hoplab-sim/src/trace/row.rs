//! A trace event as a row: the `trace` result table, and the columns of
//! trace.csv and anim.csv (csv.rs writes the same rows as text).

use super::event::{TraceEvent, What};
use crate::wire::{Body, Frame, FrameKind, NodeId, Packet, BROADCAST};

crate::result_table! {
    /// `[output] trace = true`, filtered by `[trace]`: what each node's
    /// layers did, in the order the engine processed it (time order).
    #[derive(Debug, Clone, PartialEq)]
    pub struct TraceRow as "trace" {
        /// When it happened.
        pub time_s: f64 ["s"],
        /// Where it happened.
        pub node: u32 [""],
        /// "AGT" (an agent: TCP, CBR), "RTR" (routing), "MAC" (the 802.11
        /// MAC and its interface queue) or "PHY" (the radio's receptions).
        pub layer: &'static str [""],
        /// "send" (AGT: handed to IP; RTR: an originated packet leaves
        /// routing; MAC: a frame put on the air), "recv" (AGT: delivered at
        /// its destination; RTR: routing got it from the MAC; MAC: a frame
        /// decoded, whoever it was for), "fwd" (a relay's routing forwards
        /// it), "drop" (discarded; `reason` says why), "col" (a reception
        /// the receiver was locked on, lost to interference) or "weak" (a
        /// reception below the receive threshold that ended in error).
        pub event: &'static str [""],
        /// "RTS", "CTS", "DATA", "ACK"; "" without a frame (AGT, RTR, drops).
        pub frame: &'static str [""],
        /// MAC transmitter of the frame (-1: none).
        pub src: i64 [""],
        /// MAC receiver of the frame (-1: broadcast or none).
        pub dst: i64 [""],
        /// 802.11 sequence number of a DATA frame; -1 otherwise.
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
        /// The frame's bytes on the air (MAC, PHY) or the packet's IP bytes
        /// (AGT, RTR, drops); -1 without either.
        pub size_bytes: i64 ["B"],
        /// Airtime of a frame put on the air (MAC send); NaN otherwise.
        pub airtime_s: f64 ["s"],
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

pub fn frame_name(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Rts => "RTS",
        FrameKind::Cts => "CTS",
        FrameKind::Ack => "ACK",
        FrameKind::Data => "DATA",
    }
}

/// TCP segment number of data, cumulative ACK of a pure ACK; -1 otherwise.
fn tcp_seq(p: &Packet) -> i64 {
    match &p.body {
        Body::Tcp(s) if s.is_pure_ack() => s.ackno as i64,
        Body::Tcp(s) => s.seqno as i64,
        _ => -1,
    }
}

impl TraceRow {
    pub fn from_event(ev: &TraceEvent<'_>) -> TraceRow {
        let p = ev.packet;
        let f: Option<&Frame> = ev.frame;
        let data = f.filter(|f| f.kind == FrameKind::Data);
        let kind = match p.map(|p| &p.body) {
            Some(Body::Routing(m)) => m.kind(),
            _ => "",
        };
        TraceRow {
            // The double nearest the nanosecond count (one correctly rounded
            // division), as every table's times are (results::columns::whole_ns).
            time_s: ev.time.0 as f64 / 1e9,
            node: ev.node,
            layer: ev.layer.name(),
            event: ev.what.name(),
            frame: f.map_or("", |f| frame_name(f.kind)),
            src: f.map_or(-1, |f| addr(f.src)),
            dst: f.map_or(-1, |f| addr(f.dst)),
            seq: data.map_or(-1, |f| f.seq as i64),
            retry: data.is_some_and(|f| f.retry),
            uid: p.map_or(-1, |p| p.uid as i64),
            packet_type: ev.ptype.name(),
            packet_src: p.map_or(-1, |p| addr(p.src)),
            packet_dst: p.map_or(-1, |p| addr(p.dst)),
            tcp_seq: p.map_or(-1, tcp_seq),
            size_bytes: match (f, p) {
                (Some(f), _) => f.bytes() as i64,
                (None, Some(p)) => p.size() as i64,
                (None, None) => -1,
            },
            airtime_s: ev.airtime.map_or(f64::NAN, |a| a.0 as f64 / 1e9),
            reason: match (ev.what, ev.reason) {
                (What::Drop, Some(r)) => r.code(),
                _ => kind,
            },
        }
    }
}
