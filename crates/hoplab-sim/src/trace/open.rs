//! The sink factory: a validated `[trace]` table and the run's directory
//! in, the file sinks out. Each format names its file(s) here; a new
//! format is one more arm (and its name in config::FORMATS).

use super::config::TraceConfig;
use super::csv::CsvSink;
use super::event::TraceSink;
use super::ns2::{Ns2Format, Ns2Sink};
use super::tap::{FileSink, Selection, TraceError};
use std::path::Path;

/// The sinks of `c.formats`, their files created in `dir` (which must exist).
pub fn sinks(c: &TraceConfig, dir: &Path) -> Result<Vec<FileSink>, TraceError> {
    let mut out = Vec::new();
    for f in &c.formats {
        let (name, selection) = match f.as_str() {
            "csv" => ("trace.csv", Selection::Filtered),
            "anim" => ("anim.csv", Selection::Anim),
            "ns2" => ("trace.tr", Selection::Filtered),
            // "pcap" (trace/pcap.rs) plugs in here.
            other => unreachable!("format {other:?} passed validation"),
        };
        let path = dir.join(name);
        let err = |error| TraceError { path: path.clone(), error };
        let sink: Box<dyn TraceSink> = match f.as_str() {
            "ns2" => {
                let format = if c.ns2_format == "old" { Ns2Format::Old } else { Ns2Format::New };
                let file = std::fs::File::create(&path).map_err(err)?;
                Box::new(Ns2Sink::new(std::io::BufWriter::new(file), format))
            }
            _ => Box::new(CsvSink::create(&path).map_err(err)?),
        };
        out.push(FileSink { path, selection, sink, events: 0 });
    }
    Ok(out)
}
