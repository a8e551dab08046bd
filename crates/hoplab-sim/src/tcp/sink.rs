//! TCP sink: reassembly, stream verification and (delayed) ACKs
//! (RFC 1122 §4.2.3.2, RFC 5681 §4.2, ns-2 `Agent/TCPSink/DelAck`).
//!
//! ACK rules:
//! - without delayed ACKs: one ACK per data segment;
//! - with delayed ACKs: an in-order segment that finds no unacked
//!   predecessor starts the delayed-ACK timer; the second one is ACKed at
//!   once (RFC 1122 §4.2.3.2 "at least every second full-sized segment");
//!   the timer's expiry ACKs a lone segment (RFC 5681 §4.2);
//! - always immediate: an out-of-order segment (a duplicate ACK, RFC 5681
//!   §4.2), a segment that fills all or part of a hole (RFC 5681 §4.2), and
//!   a duplicate segment.
//!
//! ACKs are queued in the order they were generated, so a caller that feeds
//! several segments before polling still sends every duplicate ACK.

use std::collections::{BTreeMap, VecDeque};

use super::adtcp::{Detector, Params};
use super::TcpConfig;
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

/// Counters of one sink.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinkStats {
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Distinct segments delivered.
    pub segments_unique: u64,
    /// Segments received that were already received.
    pub duplicates: u64,
    /// Delivered segments whose byte offset or size broke the stream.
    pub stream_errors: u64,
    pub acks_sent: u64,
}

/// The receiving end of one flow.
#[derive(Clone, Debug)]
pub struct TcpSink {
    flow: u32,
    mss: u32,
    delayed_ack: bool,
    delack_timeout: Dur,
    /// Next segment expected in order.
    rcv_nxt: u64,
    /// Out-of-order segments above rcv_nxt: seqno -> payload bytes.
    ooo: BTreeMap<u64, u32>,
    /// Byte offset the application expects next (stream verification).
    next_offset: u64,
    /// In-order segments received since the last ACK.
    unacked: u32,
    delack_deadline: Option<SimTime>,
    /// ACKs generated and not yet polled (their acknos).
    ack_queue: VecDeque<u64>,
    stats: SinkStats,
    /// ADTCP's network-state detector (tcp/adtcp.rs), when on.
    detector: Option<Detector>,
}

impl TcpSink {
    pub fn new(flow: u32, cfg: &TcpConfig) -> Self {
        TcpSink {
            flow,
            mss: cfg.mss.max(1),
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            next_offset: 0,
            unacked: 0,
            delack_deadline: None,
            ack_queue: VecDeque::new(),
            stats: SinkStats::default(),
            detector: cfg.adtcp.then(|| Detector::new(Params::default())),
        }
    }

    /// Feed a data segment that the sender sent at `sent` (its timestamp):
    /// ADTCP's detector sees it first, then [`TcpSink::handle_segment`].
    pub fn handle_segment_sent(&mut self, now: SimTime, seg: &TcpSegment, sent: SimTime) {
        if let Some(d) = self.detector.as_mut().filter(|_| seg.payload > 0) {
            d.on_arrival(now, sent, seg.seqno, seg.payload);
        }
        self.handle_segment(now, seg);
    }

    /// Feed a data segment. Pure ACKs (payload 0) are ignored.
    pub fn handle_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        if seg.payload == 0 {
            return;
        }
        if seg.seqno < self.rcv_nxt || self.ooo.contains_key(&seg.seqno) {
            self.stats.duplicates += 1;
            self.ack_now(); // RFC 5681 §4.2 / ns-2: re-ACK a duplicate at once
            return;
        }
        if seg.seqno > self.rcv_nxt {
            self.ooo.insert(seg.seqno, seg.payload);
            self.ack_now(); // RFC 5681 §4.2: immediate duplicate ACK
            return;
        }
        let filled_hole = !self.ooo.is_empty();
        self.deliver(seg.seqno, seg.payload);
        while let Some(p) = self.ooo.remove(&self.rcv_nxt) {
            self.deliver(self.rcv_nxt, p);
        }
        if filled_hole || !self.delayed_ack {
            self.ack_now(); // RFC 5681 §4.2: fills (part of) a gap
            return;
        }
        self.unacked += 1;
        if self.unacked >= 2 {
            self.ack_now(); // RFC 1122 §4.2.3.2: every second full-sized segment
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack_timeout); // ns-2 DelAck timer
        }
    }

    /// Hand segment `seqno` to the application, checking it continues the stream.
    fn deliver(&mut self, seqno: u64, payload: u32) {
        let offset = seqno * self.mss as u64;
        if offset != self.next_offset || payload > self.mss {
            self.stats.stream_errors += 1;
        }
        self.next_offset = offset + payload as u64;
        self.rcv_nxt = seqno + 1;
        self.stats.bytes_delivered += payload as u64;
        self.stats.segments_unique += 1;
    }

    fn ack_now(&mut self) {
        self.ack_queue.push_back(self.rcv_nxt);
        self.unacked = 0;
        self.delack_deadline = None;
    }

    /// The delayed-ACK timer expired. Does nothing if it has not.
    pub fn handle_timeout(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|t| now >= t) {
            self.ack_now(); // RFC 5681 §4.2: ACK within 500 ms (here delack_timeout)
        }
    }

    /// Next ACK to send: a pure ACK carrying `ackno = rcv_nxt` at the time it was generated.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let ackno = self.ack_queue.pop_front()?;
        self.stats.acks_sent += 1;
        let adtcp = self.detector.as_ref().map(|d| d.state(now));
        Some(TcpSegment { flow: self.flow, seqno: 0, ackno, payload: 0, options: 0, retransmit: false, adtcp })
    }

    /// When the delayed-ACK timer fires, if it is running.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    pub fn stats(&self) -> &SinkStats {
        &self.stats
    }

    /// Next segment expected in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
}
