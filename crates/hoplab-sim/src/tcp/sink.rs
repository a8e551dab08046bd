//! TCP sink: reassembly, stream verification and (delayed) ACKs
//! (RFC 1122 §4.2.3.2, RFC 5681 §4.2, ns-2 `Agent/TCPSink/DelAck`).
//!
//! ACK rules:
//! - in-order segments: as the receiver model says ([`super::ack_policy`]:
//!   `ns2` every second segment or a 100 ms timer, `every`, `linux`);
//! - always immediate: an out-of-order segment (a duplicate ACK, RFC 5681
//!   §4.2), a segment that fills all or part of a hole (RFC 5681 §4.2), and
//!   a duplicate segment.
//!
//! ACKs are queued in the order they were generated, so a caller that feeds
//! several segments before polling still sends every duplicate ACK.

use std::collections::{BTreeMap, VecDeque};

use super::ack_policy::AckPolicy;
use super::adtcp::{Detector, Params};
use super::ecn::EcnReceiver;
use super::sack::SackReporter;
use super::{TcpConfig, Variant};
use crate::time::SimTime;
use crate::wire::{TcpSegment, TCPIP_HEADERS};

/// Counters of one sink.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinkStats {
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Distinct segments delivered.
    pub segments_unique: u64,
    /// Segments received that were already received.
    pub duplicates: u64,
    /// Delivered segments whose content was not the next range of the
    /// flow's byte stream (tcp/stream.rs): altered in flight, placed at the
    /// wrong offset, delivered twice, out of order, or after a gap.
    pub stream_errors: u64,
    pub acks_sent: u64,
}

/// The receiving end of one flow.
#[derive(Clone, Debug)]
pub struct TcpSink {
    flow: u32,
    /// When to ACK in-order data, and the window to advertise.
    acks: AckPolicy,
    /// Next segment expected in order.
    rcv_nxt: u64,
    /// Out-of-order segments above rcv_nxt: seqno -> (payload bytes, checksum).
    ooo: BTreeMap<u64, (u32, u32)>,
    /// Byte offset the application expects next (stream verification).
    next_offset: u64,
    /// ACKs generated and not yet polled (ackno, advertised window).
    ack_queue: VecDeque<(u64, u32)>,
    /// SACK blocks for each generated ACK, when the flow uses SACK (RFC 2018).
    sack: Option<SackReporter>,
    stats: SinkStats,
    /// ECN-capable transport (RFC 3168 §6.1.3), when configured.
    ecn: Option<EcnReceiver>,
    /// ADTCP's network-state detector (tcp/adtcp.rs), when on.
    detector: Option<Detector>,
}

impl TcpSink {
    pub fn new(flow: u32, cfg: &TcpConfig) -> Self {
        TcpSink {
            flow,
            acks: AckPolicy::new(cfg),
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            next_offset: 0,
            ack_queue: VecDeque::new(),
            sack: (cfg.variant == Variant::Sack).then(SackReporter::default),
            stats: SinkStats::default(),
            ecn: cfg.ecn.then(EcnReceiver::default),
            detector: cfg.adtcp.then(|| Detector::new(Params::default())),
        }
    }

    /// A connection whose first segment is `seq`, each `mss` bytes long
    /// (the stream check's offsets follow; app/www.rs). Call before use.
    pub fn starting_at(mut self, seq: u64, mss: u32) -> Self {
        self.rcv_nxt = seq;
        self.next_offset = seq * mss as u64;
        self
    }

    /// Feed a data segment that the sender sent at `sent` (its timestamp):
    /// ADTCP's detector sees it first, then [`TcpSink::handle_segment`].
    pub fn handle_segment_sent(&mut self, now: SimTime, seg: &TcpSegment, sent: SimTime) {
        if let Some(d) = self.detector.as_mut().filter(|_| seg.payload > 0) {
            d.on_arrival(now, sent, seg.seqno, seg.payload);
        }
        self.handle_segment(now, seg);
    }

    /// Feed a data segment (or an ns-2 SYN). Pure ACKs are ignored.
    pub fn handle_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        if seg.is_pure_ack() {
            return;
        }
        if let Some(e) = self.ecn.as_mut() {
            e.on_data(seg.ecn);
        }
        if let Some(r) = self.sack.as_mut() {
            r.note_arrival(seg.seqno);
        }
        if seg.seqno < self.rcv_nxt || self.ooo.contains_key(&seg.seqno) {
            self.stats.duplicates += 1;
            self.acks.on_duplicate();
            self.ack_now(); // RFC 5681 §4.2 / ns-2: re-ACK a duplicate at once
            return;
        }
        if seg.seqno > self.rcv_nxt {
            self.ooo.insert(seg.seqno, (seg.payload, seg.checksum));
            self.acks.on_out_of_order();
            self.ack_now(); // RFC 5681 §4.2: immediate duplicate ACK
            return;
        }
        let filled_hole = !self.ooo.is_empty();
        self.deliver(seg.seqno, seg.payload, seg.checksum);
        while let Some((p, c)) = self.ooo.remove(&self.rcv_nxt) {
            self.deliver(self.rcv_nxt, p, c);
        }
        // ns-2 tcp-sink.cc DelAckSink::recv, SYN_immediate_ack_ (default
        // true): the SYN is ACKed at once, whatever the receiver model.
        let policy_acks = seg.syn || self.acks.on_in_order(now, seg.payload, self.ooo.is_empty());
        if filled_hole || policy_acks {
            self.ack_now(); // RFC 5681 §4.2: also when it fills (part of) a gap
        }
    }

    /// Hand segment `seqno` to the application, checking that its content
    /// is the stream's next `payload` bytes: the checksum the sender put on
    /// it must be that of the range starting where the delivered stream
    /// ends (tcp/stream.rs), whatever the segment's header says.
    fn deliver(&mut self, seqno: u64, payload: u32, checksum: u32) {
        if checksum != super::stream::range_checksum(self.flow, self.next_offset, payload) {
            self.stats.stream_errors += 1;
        }
        self.next_offset += payload as u64;
        self.rcv_nxt = seqno + 1;
        self.stats.bytes_delivered += payload as u64;
        if payload > 0 {
            self.stats.segments_unique += 1; // not an ns-2 SYN
        }
    }

    fn ack_now(&mut self) {
        self.ack_queue.push_back((self.rcv_nxt, self.acks.window()));
        if let Some(r) = self.sack.as_mut() {
            r.on_ack(self.rcv_nxt, &self.ooo);
        }
        self.acks.on_ack_sent();
    }

    /// The delayed-ACK timer expired. Does nothing if it has not.
    pub fn handle_timeout(&mut self, now: SimTime) {
        if self.acks.on_timeout(now) {
            self.ack_now();
        }
    }

    /// Next ACK to send: a pure ACK carrying `ackno = rcv_nxt` and the
    /// advertised window at the time it was generated.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let (ackno, window) = self.ack_queue.pop_front()?;
        self.stats.acks_sent += 1;
        let adtcp = self.detector.as_ref().map(|d| d.state(now));
        let ecn = self.ecn.as_ref().map(EcnReceiver::ack_bits).unwrap_or_default();
        let sack = self.sack.as_mut().map(|r| r.pop()).unwrap_or_default();
        let options = sack.option_bytes();
        Some(TcpSegment { flow: self.flow, seqno: 0, ackno, payload: 0, options, sack, retransmit: false, window: Some(window), ecn, adtcp, checksum: 0, syn: false, headers: TCPIP_HEADERS })
    }

    /// When the delayed-ACK timer fires, if it is running.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.acks.deadline()
    }

    pub fn stats(&self) -> &SinkStats {
        &self.stats
    }

    /// Next segment expected in order.
    #[cfg(test)]
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    #[allow(dead_code)]
    pub fn flow(&self) -> u32 {
        self.flow
    }

    /// Test hook: hand `seg` straight to the application, bypassing
    /// reassembly, as a reassembly bug would (duplicated, out-of-order or
    /// skipped deliveries), so tests can see the stream check catch it.
    #[cfg(test)]
    pub(super) fn inject_delivery(&mut self, seg: &TcpSegment) {
        self.deliver(seg.seqno, seg.payload, seg.checksum);
    }
}
