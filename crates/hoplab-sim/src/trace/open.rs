//! The sink factory: a validated `[trace]` table and the run's directory
//! in, the file sinks out. Each format names its file(s) here; a new
//! format is one more arm (and its name in config::FORMATS).

use super::config::TraceConfig;
use super::csv::CsvSink;
use super::event::TraceSink;
use super::ns2::{Ns2Format, Ns2Numbering, Ns2Sink};
use super::pcap::{Container, PcapMode, PcapOptions, PcapSink};
use super::tap::{FileSink, Selection, TraceError};
use std::path::{Path, PathBuf};

/// The sinks of `c.formats`, their files created in `dir` (which must
/// exist). `pcap` is what a capture's bytes need from the scenario (rates,
/// each flow's MSS), `nodes` the node count (one capture per node).
/// `numbering`: how the ns-2 trace prints TTLs and AODV hop counts.
pub fn sinks(c: &TraceConfig, dir: &Path, pcap: &PcapOptions, numbering: Ns2Numbering, nodes: u32) -> Result<Vec<FileSink>, TraceError> {
    let mut out = Vec::new();
    for f in &c.formats {
        if f == "pcap" || f == "pcapng" {
            let mode = match c.pcap.as_str() {
                "nodes" => PcapMode::Nodes,
                "hosts" => PcapMode::Hosts,
                _ => PcapMode::Channel,
            };
            let open = |path: PathBuf, sink: std::io::Result<PcapSink>| match sink {
                Ok(sink) => Ok(FileSink { path, selection: Selection::Filtered, sink: Box::new(sink), events: 0 }),
                Err(error) => Err(TraceError { path, error }),
            };
            if f == "pcapng" {
                // One file in every mode: per node, an interface per node.
                let name = match mode {
                    PcapMode::Channel => "channel.pcapng",
                    PcapMode::Nodes => "nodes.pcapng",
                    PcapMode::Hosts => "hosts.pcapng",
                };
                out.push(open(dir.join(name), PcapSink::create(dir, mode, Container::Pcapng, nodes, pcap.clone()))?);
            } else if mode == PcapMode::Channel {
                out.push(open(dir.join("channel.pcap"), PcapSink::create(dir, mode, Container::Pcap, nodes, pcap.clone()))?);
            } else {
                // A sink per file, so that each file is listed with its events; with
                // `[trace] nodes`, files for those nodes only (the others' would stay empty).
                let mut kept: Vec<u32> = if c.nodes.is_empty() { (0..nodes).collect() } else { c.nodes.clone() };
                kept.sort_unstable();
                kept.dedup();
                for n in kept {
                    let path = dir.join(PcapSink::node_file_name(mode, n));
                    out.push(open(path.clone(), PcapSink::node_file(&path, mode, n, pcap.clone()))?);
                }
            }
            continue;
        }
        let (name, selection) = match f.as_str() {
            "csv" => ("trace.csv", Selection::Filtered),
            "anim" => ("anim.csv", Selection::Anim),
            "ns2" => ("trace.tr", Selection::Filtered),
            other => unreachable!("format {other:?} passed validation"),
        };
        let path = dir.join(name);
        let err = |error| TraceError { path: path.clone(), error };
        let sink: Box<dyn TraceSink> = match f.as_str() {
            "ns2" => {
                let format = if c.ns2_format == "old" { Ns2Format::Old } else { Ns2Format::New };
                let file = std::fs::File::create(&path).map_err(err)?;
                Box::new(Ns2Sink::new(std::io::BufWriter::new(file), format).numbered(numbering))
            }
            _ => Box::new(CsvSink::create(&path).map_err(err)?),
        };
        out.push(FileSink { path, selection, sink, events: 0 });
    }
    Ok(out)
}
