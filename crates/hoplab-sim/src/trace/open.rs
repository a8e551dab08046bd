//! The sink factory: a validated `[trace]` table and the run's directory
//! in, the file sinks out. Each format names its file(s) here; a new
//! format is one more arm (and its name in config::FORMATS).

use super::config::TraceConfig;
use super::csv::CsvSink;
use super::tap::{FileSink, Selection, TraceError};
use std::path::Path;

/// The sinks of `c.formats`, their files created in `dir` (which must exist).
pub fn sinks(c: &TraceConfig, dir: &Path) -> Result<Vec<FileSink>, TraceError> {
    let mut out = Vec::new();
    for f in &c.formats {
        let (name, selection) = match f.as_str() {
            "csv" => ("trace.csv", Selection::Filtered),
            "anim" => ("anim.csv", Selection::Anim),
            // "ns2" (trace/ns2.rs) and "pcap" (trace/pcap.rs) plug in here.
            other => unreachable!("format {other:?} passed validation"),
        };
        let path = dir.join(name);
        let sink = CsvSink::create(&path).map_err(|error| TraceError { path: path.clone(), error })?;
        out.push(FileSink { path, selection, sink: Box::new(sink), events: 0 });
    }
    Ok(out)
}
