//! A run that Python can interrupt and watch, and whose panics become
//! `SimulationError` instead of a PanicException with a Rust backtrace.
//!
//! Called with the GIL released. About every 50 ms of wall time the engine's
//! tick (hoplab_sim::control) re-attaches to run `check_signals` (Ctrl-C ->
//! KeyboardInterrupt, stopping the run within a tick) and the optional
//! progress callback.

use crate::SimulationError;
use hoplab_sim::{Progress, RunControl, RunError, RunOutput, Scenario};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::time::Duration;

/// Wall time between two checks for signals and progress calls.
const TICK: Duration = Duration::from_millis(50);

thread_local! {
    /// Set while this thread runs the engine: the panic hook stays quiet.
    static IN_RUN: Cell<bool> = const { Cell::new(false) };
}

/// Wrap the process's panic hook once: panics inside a run print nothing
/// (they come back as SimulationError) unless HOPLAB_DEBUG is set; other
/// panics reach the previous hook as before.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_RUN.with(Cell::get) || std::env::var_os("HOPLAB_DEBUG").is_some() {
                previous(info);
            }
        }));
    });
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

fn simulation_error(scenario: &str, seed: u64, what: &str) -> PyErr {
    Python::attach(|py| {
        let msg = format!("scenario \"{scenario}\", seed {seed}: the engine failed: {what} (a bug in hoplab; HOPLAB_DEBUG=1 shows where)");
        let err = SimulationError::new_err(msg);
        let v = err.value(py);
        let _ = v.setattr("scenario", scenario);
        let _ = v.setattr("seed", seed);
        let _ = v.setattr("message", what);
        err
    })
}

/// A trace file that could not be written, as Python's OSError (the
/// subclass of its errno) naming the file: the CLI prints it in one line.
fn trace_error(e: &hoplab_sim::TraceError) -> PyErr {
    let errno = e.error.raw_os_error().unwrap_or(0);
    let text = e.error.to_string();
    // io::Error's text ends with " (os error N)"; Python's strerror has none.
    let strerror = text.split(" (os error").next().unwrap_or(&text).to_string();
    PyOSError::new_err((errno, format!("cannot write the trace: {strerror}"), e.path.display().to_string()))
}

/// Run `sc` with `seed`, streaming its trace files into `trace_dir`; call
/// with the GIL released.
pub fn run(sc: &Scenario, seed: u64, progress: Option<Py<PyAny>>, trace_dir: Option<&std::path::Path>) -> PyResult<RunOutput> {
    let mut pending: Option<PyErr> = None;
    let result = {
        let tick = |p: &Progress| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    pending = Some(e);
                    return false;
                }
                if let Some(cb) = &progress {
                    if let Err(e) = cb.call1(py, (p.sim_time_s, p.duration_s, p.events, p.events_per_s())) {
                        pending = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        let mut ctl = RunControl { cancel: None, tick: Some(Box::new(tick)), interval: TICK };
        IN_RUN.with(|f| f.set(true));
        let r = panic::catch_unwind(AssertUnwindSafe(|| hoplab_sim::run_traced(sc, seed, &mut ctl, trace_dir)));
        IN_RUN.with(|f| f.set(false));
        r
    };
    match result {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(RunError::Trace(e))) => Err(trace_error(&e)),
        Ok(Err(RunError::Cancelled(cancelled))) => Err(pending.unwrap_or_else(|| simulation_error(&sc.name, seed, &cancelled.to_string()))),
        Err(payload) => Err(simulation_error(&sc.name, seed, &panic_text(payload.as_ref()))),
    }
}
