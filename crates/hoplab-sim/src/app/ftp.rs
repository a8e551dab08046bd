//! FTP over TCP: a bulk source (infinite, or a given number of bytes) that
//! starts and stops on schedule, and the TCP sink at the other end.

use crate::series::SeriesLimits;
use crate::tcp::{TcpConfig, TcpSender, TcpSink};
use crate::time::SimTime;
use crate::wire::{Body, NodeId};

pub struct FtpSource {
    pub flow: u32,
    pub dst: NodeId,
    pub sender: TcpSender,
    start: SimTime,
    stop: Option<SimTime>,
    started: bool,
}

impl FtpSource {
    /// `trace`: record the sender's time series within these limits.
    pub fn new(flow: u32, dst: NodeId, cfg: &TcpConfig, bytes: Option<u64>, start: SimTime, stop: Option<SimTime>, trace: Option<SeriesLimits>) -> FtpSource {
        let sender = TcpSender::new(flow, cfg, bytes, false).with_trace_limits(trace);
        FtpSource { flow, dst, sender, start, stop, started: false }
    }

    pub fn handle_timer(&mut self, now: SimTime, slot: usize) {
        if slot == 0 {
            self.sender.handle_timeout(now);
        } else if !self.started {
            self.started = true;
        } else {
            self.sender.stop();
            self.stop = None;
        }
    }

    pub fn poll_transmit(&mut self, now: SimTime, out: &mut Vec<Body>) {
        if !self.started {
            return;
        }
        while let Some(s) = self.sender.poll_transmit(now) {
            out.push(Body::Tcp(s));
        }
    }

    pub fn timeouts(&self) -> [Option<SimTime>; 2] {
        let app = if self.started { self.stop } else { Some(self.start) };
        [self.sender.poll_timeout(), app]
    }
}

pub struct TcpSinkAgent {
    pub flow: u32,
    pub src: NodeId,
    pub sink: TcpSink,
}

impl TcpSinkAgent {
    pub fn new(flow: u32, src: NodeId, cfg: &TcpConfig) -> TcpSinkAgent {
        TcpSinkAgent { flow, src, sink: TcpSink::new(flow, cfg) }
    }
}
