//! Flow endpoints ("agents", as ns-2 calls them): traffic sources with their
//! transport, and the sinks that receive them. Each is sans-IO: it is fed
//! packets and timer expiries, and is polled for packets and deadlines.

pub mod cbr;
pub mod config;
pub mod ftp;
pub mod onoff;
pub mod www;

use crate::time::SimTime;
use crate::wire::{Body, NodeId, Packet};

/// Timer slots per agent: 0 = transport (RTO, delayed ACK), 1 = application
/// (start, stop, next CBR packet).
pub const AGENT_TIMERS: usize = 2;

pub enum Agent {
    Cbr(cbr::CbrSource),
    UdpSink(cbr::UdpSink),
    FtpSource(ftp::FtpSource),
    TcpSink(ftp::TcpSinkAgent),
    WwwServer(Box<www::WwwServer>),
    WwwClient(www::WwwClient),
}

impl Agent {
    pub fn flow(&self) -> u32 {
        match self {
            Agent::Cbr(a) => a.flow,
            Agent::UdpSink(a) => a.flow,
            Agent::FtpSource(a) => a.flow,
            Agent::TcpSink(a) => a.flow,
            Agent::WwwServer(a) => a.flow,
            Agent::WwwClient(a) => a.flow,
        }
    }

    /// The node this agent sends to.
    pub fn peer(&self) -> NodeId {
        match self {
            Agent::Cbr(a) => a.dst,
            Agent::UdpSink(a) => a.src,
            Agent::FtpSource(a) => a.dst,
            Agent::TcpSink(a) => a.src,
            Agent::WwwServer(a) => a.dst,
            Agent::WwwClient(a) => a.src,
        }
    }

    pub fn handle_timer(&mut self, now: SimTime, slot: usize) {
        match self {
            Agent::Cbr(a) => a.handle_timer(now),
            Agent::UdpSink(_) => {}
            Agent::FtpSource(a) => a.handle_timer(now, slot),
            Agent::TcpSink(a) => a.sink.handle_timeout(now),
            Agent::WwwServer(a) => a.handle_timer(now, slot),
            Agent::WwwClient(a) => a.handle_timeout(now),
        }
    }

    pub fn handle_packet(&mut self, now: SimTime, p: &Packet) {
        match (self, &p.body) {
            (Agent::UdpSink(a), Body::Udp(d)) => a.receive(now, d, p.created),
            (Agent::FtpSource(a), Body::Tcp(s)) => a.sender.handle_ack(now, s),
            (Agent::TcpSink(a), Body::Tcp(s)) => a.sink.handle_segment_sent(now, s, p.created),
            (Agent::WwwServer(a), Body::Tcp(s)) => a.handle_ack(now, s),
            (Agent::WwwClient(a), Body::Tcp(s)) => a.handle_segment(now, s, p.created),
            _ => {}
        }
    }

    /// The route to the peer was lost (ELFN): only a TCP sender acts on it.
    /// Returns whether the agent took it (ELFN on).
    pub fn route_lost(&mut self, now: SimTime) -> bool {
        match self {
            Agent::FtpSource(a) => a.sender.handle_elfn(now),
            Agent::WwwServer(a) => a.route_lost(now),
            _ => false,
        }
    }

    /// Transport payloads ready to go to the peer.
    pub fn poll_transmit(&mut self, now: SimTime, out: &mut Vec<Body>) {
        match self {
            Agent::Cbr(a) => a.poll_transmit(out),
            Agent::UdpSink(_) => {}
            Agent::FtpSource(a) => a.poll_transmit(now, out),
            Agent::TcpSink(a) => {
                while let Some(s) = a.sink.poll_transmit(now) {
                    out.push(Body::Tcp(s));
                }
            }
            Agent::WwwServer(a) => a.poll_transmit(now, out),
            Agent::WwwClient(a) => a.poll_transmit(now, out),
        }
    }

    pub fn timeouts(&self) -> [Option<SimTime>; AGENT_TIMERS] {
        match self {
            Agent::Cbr(a) => [None, a.next_at],
            Agent::UdpSink(_) => [None, None],
            Agent::FtpSource(a) => a.timeouts(),
            Agent::TcpSink(a) => [a.sink.poll_timeout(), None],
            Agent::WwwServer(a) => a.timeouts(),
            Agent::WwwClient(a) => [a.poll_timeout(), None],
        }
    }
}
