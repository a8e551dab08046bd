//! The world's one tap: nodes report what their layers did (`report`), the
//! tap filters and hands each kept event to the in-memory table and to
//! every file sink, in processing (= time) order. The first write error
//! stops all writing and is kept for the run loop to end the run with.

use super::event::{Layer, TraceEvent, TraceSink, What};
use super::filter::Filter;
use super::row::TraceRow;
use std::io;
use std::path::PathBuf;

/// Which events a file sink takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// What the `[trace]` filter keeps (trace.csv).
    Filtered,
    /// The animator's set: frames put on the air and every drop, within the
    /// filter's nodes and time window only (anim.csv).
    Anim,
}

impl Selection {
    /// Whether this sink takes `ev`, which the `[trace]` filter `kept` or not.
    pub fn wants(self, ev: &TraceEvent<'_>, kept: bool) -> bool {
        match self {
            Selection::Filtered => kept,
            Selection::Anim => (ev.layer == Layer::Mac && ev.what == What::Send) || ev.what == What::Drop,
        }
    }
}

/// A sink writing a file, with the events it takes.
pub struct FileSink {
    /// The file (or, for one file per node, the directory) it writes: named in errors.
    pub path: PathBuf,
    pub selection: Selection,
    pub sink: Box<dyn TraceSink>,
    /// Events handed to it (a CSV file's rows).
    pub events: u64,
}

/// A trace file that could not be written.
#[derive(Debug)]
pub struct TraceError {
    pub path: PathBuf,
    pub error: io::Error,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: cannot write the trace: {}", self.path.display(), self.error)
    }
}
impl std::error::Error for TraceError {}

pub struct Tap {
    filter: Filter,
    /// `[output] trace`: the rows of the `trace` table.
    memory: Option<Vec<TraceRow>>,
    files: Vec<FileSink>,
    /// Only the animator's log wants events outside the filter's layers,
    /// events and packet types.
    any_unfiltered: bool,
    error: Option<TraceError>,
    /// After `finish`: each file written and its events.
    written: Vec<(PathBuf, u64)>,
}

impl Tap {
    pub fn new(filter: Filter, memory: bool, files: Vec<FileSink>) -> Tap {
        let any_unfiltered = files.iter().any(|f| f.selection != Selection::Filtered);
        Tap { filter, memory: memory.then(Vec::new), files, any_unfiltered, error: None, written: Vec::new() }
    }

    /// One event from a node, in processing order.
    #[inline]
    pub fn report(&mut self, ev: &TraceEvent<'_>) {
        if !self.filter.in_scope(ev.node, ev.time) {
            return;
        }
        let kept = self.filter.keeps(ev);
        if !kept && !self.any_unfiltered {
            return;
        }
        self.deliver(ev, kept);
    }

    #[inline(never)]
    fn deliver(&mut self, ev: &TraceEvent<'_>, kept: bool) {
        if kept {
            if let Some(rows) = self.memory.as_mut() {
                rows.push(TraceRow::from_event(ev));
            }
        }
        let mut failed = None;
        for (i, f) in self.files.iter_mut().enumerate() {
            if f.selection.wants(ev, kept) {
                f.events += 1;
                if let Err(e) = f.sink.event(ev) {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        if let Some((i, error)) = failed {
            self.fail(i, error);
        }
    }

    /// Keep the first error; write nothing more (the run loop ends the run).
    fn fail(&mut self, i: usize, error: io::Error) {
        let path = self.files[i].path.clone();
        self.error.get_or_insert(TraceError { path, error });
        self.files.clear();
    }

    /// Whether a write failed (the run must end).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Flush every file; the first error of the run, if any. The files'
    /// names and event counts stay for `files`.
    pub fn finish(&mut self) -> Result<(), TraceError> {
        for i in 0..self.files.len() {
            if let Err(e) = self.files[i].sink.finish() {
                self.fail(i, e);
                break;
            }
        }
        self.written = self.files.drain(..).map(|f| (f.path, f.events)).collect();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The files written (after `finish`) and the events each holds.
    pub fn files(&self) -> &[(PathBuf, u64)] {
        &self.written
    }

    /// The in-memory rows (empty unless `[output] trace`).
    pub fn take_rows(&mut self) -> Vec<TraceRow> {
        self.memory.take().unwrap_or_default()
    }
}
