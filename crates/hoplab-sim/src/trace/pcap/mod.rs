//! The pcap sink (`[trace] formats = ["pcap"]`): 802.11 frames with radiotap
//! headers, byte-exact down to the TCP payload, for Wireshark, tshark and
//! tcptrace. The bytes come from crate::wire::bytes; this file decides which
//! frame goes into which file.
//!
//! - `PcapMode::Channel`: one capture of every frame put on the air (each
//!   MAC `send` event): RTS, CTS, DATA with every MAC retry and every hop of
//!   a multihop packet, ACK. What a monitor-mode sniffer hearing the whole
//!   network would record.
//! - `PcapMode::Nodes`: per node, the frames it sent and the frames it
//!   decoded (MAC `recv`) that were addressed to it or broadcast: what its
//!   own card passes up outside monitor mode (frames overheard for others
//!   are in the channel capture). In pcap, one file `node-N.pcap` per node;
//!   in pcapng, one file `nodes.pcapng` with one interface per node
//!   (interface N, named `node-N`).
//! - `PcapMode::Hosts`: per node, the IP packets as `tcpdump` on the node
//!   itself would see them: each packet its routing layer sends or forwards
//!   (RTR `send`, `fwd`) and each it receives (RTR `recv`), once, as raw IPv4
//!   (LINKTYPE_RAW): no 802.11 header, no RTS/CTS/ACK, no MAC retries, and
//!   packets later dropped at the interface queue included. This is the
//!   capture tcptrace counts TCP's own transmissions and retransmissions
//!   from (an air capture holds a copy per MAC retry and per hop; tcptrace
//!   6.6.7 also reads radiotap with a fixed 64-byte header, tcpdump.c, and
//!   cannot read hoplab's). ARP is not IP, so not in it. `host-N.pcap` per
//!   node, or one `hosts.pcapng`.
//!
//! Timestamps are the event's time at nanosecond resolution, radiotap TSFT
//! the same in µs. Addresses and ports: wire/bytes/address.rs.

pub mod file;

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::event::{Layer, TraceEvent, TraceSink, What};
use crate::phy::config::Preamble;
use crate::app::config::{Flow, FlowKind};
use crate::mac::config::Mac;
use crate::tcp::config::TcpParams;
use crate::tcp::config::TcpConfig;
use crate::wire::bytes::packet::{encode_frame, encode_packet, WireInfo};
use crate::wire::bytes::radiotap::{self, RadioInfo};
use crate::wire::bytes::tcp::FlowWire;
use crate::wire::{Body, FrameKind, NodeId, BROADCAST};
pub use file::{CaptureWriter, Container};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcapMode {
    Channel,
    Nodes,
    Hosts,
}

impl PcapMode {
    fn linktype(self) -> u16 {
        match self {
            PcapMode::Hosts => file::LINKTYPE_RAW,
            _ => file::LINKTYPE_RADIOTAP,
        }
    }
    /// File name stem: `node-N.pcap`, `nodes.pcapng`; `host-N.pcap`, `hosts.pcapng`.
    fn stem(self) -> &'static str {
        match self {
            PcapMode::Hosts => "host",
            _ => "node",
        }
    }
}

/// What the frames' bytes depend on besides the events: the PHY rates
/// (radiotap) and each TCP flow's MSS (byte sequence numbers).
#[derive(Clone, Debug)]
pub struct PcapOptions {
    pub data_rate_bps: u64,
    /// Control frames (RTS, CTS, ACK) go at the basic rate (IEEE 802.11-2012 §9.7.6.5).
    pub basic_rate_bps: u64,
    pub short_preamble: bool,
    pub wire: WireInfo,
}

impl PcapOptions {
    /// The options a scenario's run implies, from its `[mac]`, `flows` and
    /// `[tcp]` (`PcapOptions::new(&sc.mac, &sc.flows, &sc.tcp)`; the
    /// scenario module itself is above trace in the layering).
    pub fn new(mac: &Mac, flows: &[Flow], tcp: &TcpParams) -> PcapOptions {
        let flows = flows
            .iter()
            .map(|f| match f.kind {
                FlowKind::Ftp | FlowKind::Www => {
                    let cfg = TcpConfig::from_params(&f.tcp.or(tcp));
                    // A WWW flow's downloads are transfers of their own: no single length.
                    let bytes = if f.kind == FlowKind::Ftp { f.bytes } else { None };
                    FlowWire { mss: cfg.mss, syn: cfg.syn, bytes }
                }
                FlowKind::Cbr => FlowWire::default(),
            })
            .collect();
        PcapOptions {
            data_rate_bps: (mac.data_rate_mbps * 1e6).round() as u64,
            basic_rate_bps: (mac.basic_rate_mbps * 1e6).round() as u64,
            short_preamble: mac.preamble == Preamble::Short,
            wire: WireInfo { flows, ip_in_ip: false },
        }
    }
}

enum Target {
    /// Everything into one capture, on interface `iface_of` says.
    One(CaptureWriter),
    /// One pcap file per node.
    PerNode(Vec<CaptureWriter>),
}

pub struct PcapSink {
    mode: PcapMode,
    /// `node_file`: the one node whose capture this is.
    only: Option<NodeId>,
    target: Target,
    opts: PcapOptions,
    buf: Vec<u8>,
}

fn create(path: &Path) -> io::Result<Box<dyn Write + Send>> {
    File::create(path)
        .map(|f| Box::new(f) as Box<dyn Write + Send>)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

impl PcapSink {
    /// The channel capture, written to `w`.
    pub fn channel(w: Box<dyn Write + Send>, container: Container, opts: PcapOptions) -> io::Result<PcapSink> {
        let cw = match container {
            Container::Pcap => CaptureWriter::pcap(w, file::LINKTYPE_RADIOTAP)?,
            Container::Pcapng => CaptureWriter::pcapng(w, &["channel".to_string()], file::LINKTYPE_RADIOTAP)?,
        };
        Ok(PcapSink { mode: PcapMode::Channel, only: None, target: Target::One(cw), opts, buf: Vec::with_capacity(2048) })
    }

    /// Per-node captures (`mode` `Nodes` or `Hosts`) of `nodes` nodes, in
    /// `dir`: `node-N.pcap` (`host-N.pcap`) each, or one `nodes.pcapng`
    /// (`hosts.pcapng`) with interface N named `node-N` (`host-N`).
    pub fn per_node(dir: &Path, mode: PcapMode, nodes: u32, container: Container, opts: PcapOptions) -> io::Result<PcapSink> {
        let (stem, lt) = (mode.stem(), mode.linktype());
        let target = match container {
            Container::Pcap => Target::PerNode((0..nodes).map(|n| CaptureWriter::pcap(create(&dir.join(PcapSink::node_file_name(mode, n)))?, lt)).collect::<io::Result<_>>()?),
            Container::Pcapng => {
                let names: Vec<String> = (0..nodes).map(|n| format!("{stem}-{n}")).collect();
                Target::One(CaptureWriter::pcapng(create(&dir.join(format!("{stem}s.pcapng")))?, &names, lt)?)
            }
        };
        Ok(PcapSink { mode, only: None, target, opts, buf: Vec::with_capacity(2048) })
    }

    /// One node's capture (`mode` `Nodes` or `Hosts`) alone, in the pcap
    /// file `path`: for a caller that wants one sink per file.
    pub fn node_file(path: &Path, mode: PcapMode, node: NodeId, opts: PcapOptions) -> io::Result<PcapSink> {
        let cw = CaptureWriter::pcap(create(path)?, mode.linktype())?;
        Ok(PcapSink { mode, only: Some(node), target: Target::One(cw), opts, buf: Vec::with_capacity(2048) })
    }

    /// The file name of node `n`'s capture in `mode`: `node-N.pcap`, `host-N.pcap`.
    pub fn node_file_name(mode: PcapMode, n: NodeId) -> String {
        format!("{}-{n}.pcap", mode.stem())
    }

    /// The sink `[trace] pcap = "channel" | "nodes" | "hosts"` asks for,
    /// writing into the run's directory: `channel.pcap(ng)` or the per-node files.
    pub fn create(dir: &Path, mode: PcapMode, container: Container, nodes: u32, opts: PcapOptions) -> io::Result<PcapSink> {
        match mode {
            PcapMode::Channel => {
                let path: PathBuf = dir.join(format!("channel.{}", container.extension()));
                PcapSink::channel(create(&path)?, container, opts)
            }
            PcapMode::Nodes | PcapMode::Hosts => PcapSink::per_node(dir, mode, nodes, container, opts),
        }
    }

    /// The capture (node, or 0 for the channel) a MAC event's frame goes to, if any.
    fn capture_of(&self, ev: &TraceEvent<'_>, dst: NodeId) -> Option<u32> {
        match (self.mode, ev.what) {
            (PcapMode::Channel, What::Send) => Some(0),
            (PcapMode::Nodes, What::Send) => Some(ev.node),
            (PcapMode::Nodes, What::Recv) if dst == ev.node || dst == BROADCAST => Some(ev.node),
            _ => None,
        }
    }

    fn write(&mut self, iface: u32, ts_ns: u64) -> io::Result<()> {
        match &mut self.target {
            Target::One(w) => w.packet(if self.mode == PcapMode::Channel || self.only.is_some() { 0 } else { iface }, ts_ns, &self.buf),
            Target::PerNode(ws) => match ws.get_mut(iface as usize) {
                Some(w) => w.packet(0, ts_ns, &self.buf),
                None => Ok(()), // a node the sink was not told of
            },
        }
    }

    /// Hosts: an IP packet crossing node `ev.node`'s routing layer.
    fn host_event(&mut self, ev: &TraceEvent<'_>) -> io::Result<()> {
        let (Layer::Rtr, What::Send | What::Forward | What::Recv, Some(p)) = (ev.layer, ev.what, ev.packet) else { return Ok(()) };
        if matches!(p.body, Body::Arp(_)) {
            return Ok(());
        }
        self.buf.clear();
        encode_packet(&mut self.buf, p, &self.opts.wire);
        self.write(ev.node, ev.time.0)
    }
}

impl TraceSink for PcapSink {
    fn event(&mut self, ev: &TraceEvent<'_>) -> io::Result<()> {
        if self.only.is_some_and(|n| n != ev.node) {
            return Ok(());
        }
        if self.mode == PcapMode::Hosts {
            return self.host_event(ev);
        }
        let (Layer::Mac, Some(f)) = (ev.layer, ev.frame) else { return Ok(()) };
        let Some(iface) = self.capture_of(ev, f.dst) else { return Ok(()) };
        let rate_bps = if f.kind == FrameKind::Data { self.opts.data_rate_bps } else { self.opts.basic_rate_bps };
        // What the receiving node's driver would report (nodes mode); a
        // frame as sent has none.
        let signal_dbm = if ev.what == What::Recv { ev.power_w.map(radiotap::dbm) } else { None };
        let radio = RadioInfo { tsft_us: ev.time.0 / 1000, rate_bps, short_preamble: self.opts.short_preamble, signal_dbm };
        self.buf.clear();
        encode_frame(&mut self.buf, f, &radio, &self.opts.wire);
        self.write(iface, ev.time.0)
    }

    fn finish(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::One(w) => w.flush(),
            Target::PerNode(ws) => ws.iter_mut().try_for_each(CaptureWriter::flush),
        }
    }
}

#[cfg(test)]
mod tests;
