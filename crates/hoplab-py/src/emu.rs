//! Bindings of the emulator (crates/hoplab-emu): a live run with real
//! namespaces, and the replay of its ingress log. Only `hoplab emu` uses them.

use crate::{output_dict, parse};
use hoplab_emu::{Config, Report, Setup, Stop};
use pyo3::exceptions::{PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// The `emu` results: counts, lateness percentiles and episodes.
fn report_dict<'py>(py: Python<'py>, r: &Report) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let l = &r.lateness;
    let us = |ns: u64| ns as f64 / 1e3;
    d.set_item("ended", r.ended)?;
    d.set_item("message", r.message.clone())?;
    d.set_item("packets_in", r.packets_in)?;
    d.set_item("packets_out", r.packets_out)?;
    d.set_item("write_drops", r.write_drops)?;
    d.set_item("dropped_not_ipv4", r.dropped_not_ipv4)?;
    d.set_item("dropped_malformed", r.dropped_malformed)?;
    d.set_item("dropped_unknown_destination", r.dropped_unknown_destination)?;
    d.set_item("writes", l.count())?;
    d.set_item("lateness_p50_us", us(l.quantile_ns(0.5)))?;
    d.set_item("lateness_p90_us", us(l.quantile_ns(0.9)))?;
    d.set_item("lateness_p99_us", us(l.quantile_ns(0.99)))?;
    d.set_item("lateness_max_us", us(l.max_ns()))?;
    d.set_item("lag_episodes", l.episodes.len())?;
    d.set_item("lag_worst_ms", l.episodes.iter().map(|e| e.2).max().unwrap_or(0) as f64 / 1e6)?;
    d.set_item("lag_total_ms", l.episodes.iter().map(|e| e.1).sum::<u64>() as f64 / 1e6)?;
    let eps: Vec<(f64, f64, f64)> = l.episodes.iter().map(|e| (e.0 as f64 / 1e9, e.1 as f64 / 1e6, e.2 as f64 / 1e6)).collect();
    d.set_item("episodes", eps)?;
    d.set_item("horizon_ns", r.horizon_ns)?;
    d.set_item("steps", r.steps)?;
    d.set_item("max_step_us", us(r.max_step_ns))?;
    d.set_item("fifo", r.fifo.clone())?;
    d.set_item("t0_ns", r.t0_ns)?;
    Ok(d)
}

/// Run `text` live: its `[emulation]` table (validated with the scenario)
/// names the real nodes, their namespaces ("" = a fresh unnamed one, else
/// an existing named one) and how time is kept. `on_ready([(node, pid, fd,
/// ifname)])` is called once the devices are up (`nsenter
/// --net=/proc/PID/fd/FD` enters node's namespace); `poll()` every
/// `poll_ms`, a true result stops the run. Ctrl-C stops it too, with
/// "interrupted" true in the result (the caller saves, then raises).
/// Returns {"emu": counts and lateness, "output": the run's tables,
/// "interrupted": bool}.
#[pyfunction]
#[pyo3(signature = (text, fmt, seed, log_path, on_ready, poll, stall=None, poll_ms=50))]
#[allow(clippy::too_many_arguments)]
pub fn emulate<'py>(
    py: Python<'py>,
    text: &str,
    fmt: &str,
    seed: Option<u64>,
    log_path: Option<PathBuf>,
    on_ready: Py<PyAny>,
    poll: Py<PyAny>,
    stall: Option<(u64, u64)>,
    poll_ms: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let (sc, _) = parse(text, fmt)?;
    let Some(e) = sc.emulation.clone() else {
        return Err(PyValueError::new_err("the scenario has no [emulation] table: name the real nodes, e.g. [emulation] nodes = [0, 3]"));
    };
    hoplab_emu::can_emulate().map_err(PyPermissionError::new_err)?;
    let mut nets = Vec::new();
    for (k, &n) in e.nodes.iter().enumerate() {
        let setup = match e.namespaces.get(k).filter(|name| !name.is_empty()) {
            Some(name) => Setup::Named(name.clone()),
            None => Setup::Fresh,
        };
        nets.push(hoplab_emu::create(n, &setup).map_err(|err| PyOSError::new_err(format!("node {n}: {err}")))?);
    }
    let pid = std::process::id();
    let info: Vec<(u32, u32, i32, String)> = nets.iter().map(|n| (n.node, pid, n.netns.as_raw_fd(), n.ifname.clone())).collect();
    on_ready.call1(py, (info,))?;
    let seed = seed.unwrap_or(sc.seed);
    let ns = |v: f64, unit: f64| (v * unit).round() as u64;
    let cfg = Config {
        lookahead_ns: ns(e.lookahead_ms, 1e6),
        on_lag: e.on_lag,
        lag_threshold_ns: ns(e.lag_threshold_ms, 1e6),
        spin_ns: ns(e.spin_us, 1e3),
        fifo: e.realtime,
        log: log_path,
        stall,
        poll_ns: poll_ms * 1_000_000,
    };
    let mut raised: Option<PyErr> = None;
    let t0 = std::time::Instant::now();
    // The world is built and read inside: it is not Send (its trace sinks).
    let done = py.detach(|| {
        let mut emu = hoplab_sim::Emulation::new(&sc, seed, &e.nodes);
        let rep = hoplab_emu::run_live(&mut emu, &nets, &cfg, &mut || {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    raised = Some(e);
                    return Stop::Stop;
                }
                match poll.call0(py).and_then(|v| v.is_truthy(py)) {
                    Ok(false) => Stop::Continue,
                    Ok(true) => Stop::Stop,
                    Err(e) => {
                        raised = Some(e);
                        Stop::Stop
                    }
                }
            })
        });
        rep.map(|r| (r, emu.results(t0.elapsed().as_secs_f64())))
    });
    drop(nets); // the devices and unnamed namespaces go now
    // Ctrl-C ends the run like its end does (the results and the ingress log
    // are kept, so it can be replayed); the caller raises it after saving.
    let interrupted = raised.as_ref().is_some_and(|e| e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py));
    if let Some(e) = raised.filter(|_| !interrupted) {
        return Err(e);
    }
    let (rep, out) = done.map_err(|e| PyOSError::new_err(format!("emulation: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("interrupted", interrupted)?;
    d.set_item("emu", report_dict(py, &rep)?)?;
    d.set_item("output", output_dict(py, &out)?)?;
    Ok(d)
}

/// Replay an ingress log in pure simulation up to `until_ns`; returns the
/// run's tables (its info holds the event hash) and the deliveries
/// `[(node, time_ns, bytes)]`.
/// `trace_dir`: where the scenario's `[trace] formats` stream (it must exist).
#[pyfunction]
#[pyo3(signature = (text, fmt, seed, nodes, log_path, until_ns, trace_dir=None))]
#[allow(clippy::too_many_arguments)]
pub fn emulate_replay<'py>(py: Python<'py>, text: &str, fmt: &str, seed: Option<u64>, nodes: Vec<u32>, log_path: PathBuf, until_ns: u64, trace_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyDict>> {
    let (sc, _) = parse(text, fmt)?;
    let log = hoplab_emu::read_log(&log_path).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let seed = seed.unwrap_or(sc.seed);
    let t0 = std::time::Instant::now();
    let (out, delivered) = py
        .detach(|| hoplab_emu::replay(&sc, seed, &nodes, log, until_ns, trace_dir.as_deref()).map(|mut e| (e.results(t0.elapsed().as_secs_f64()), e.drain())))
        .map_err(PyValueError::new_err)?;
    let d = PyDict::new(py);
    let rows: Vec<(u32, u64, pyo3::Bound<'py, pyo3::types::PyBytes>)> = delivered.into_iter().map(|x| (x.node, x.time_ns, pyo3::types::PyBytes::new(py, &x.bytes))).collect();
    d.set_item("delivered", rows)?;
    d.set_item("output", output_dict(py, &out)?)?;
    Ok(d)
}

/// The packets of an ingress log, `[(node, time_ns, bytes)]` in injection
/// order (crates/hoplab-emu log.rs). Raises OSError naming the file, the
/// byte offset and the damage (a checksum, a cut, bytes after the end).
#[pyfunction]
pub fn ingress_log<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Vec<(u32, u64, Bound<'py, pyo3::types::PyBytes>)>> {
    let log = hoplab_emu::read_log(&path).map_err(|e| PyOSError::new_err(e.to_string()))?;
    Ok(log.into_iter().map(|(n, t, b)| (n, t, pyo3::types::PyBytes::new(py, &b))).collect())
}

/// The scenario's `[emulation]` table as the engine validated it, every
/// default filled in, as JSON; None when it has none. Raises ScenarioError.
#[pyfunction]
pub fn emulation_table(text: &str, fmt: &str) -> PyResult<Option<String>> {
    let (sc, _) = parse(text, fmt)?;
    Ok(sc.emulation.as_ref().map(|e| e.to_json()))
}

/// Node `node`'s IPv4 address in emulation (hoplab_sim::ipv4: 10.0.0.0/16 +
/// node + 1), dotted.
#[pyfunction]
pub fn node_ipv4(node: u32) -> PyResult<String> {
    if node >= hoplab_sim::ipv4::MAX_NODES {
        return Err(PyValueError::new_err(format!("node {node} has no address: the plan holds nodes 0 to {}", hoplab_sim::ipv4::MAX_NODES - 1)));
    }
    let [a, b, c, d] = hoplab_sim::ipv4::node_addr(node);
    Ok(format!("{a}.{b}.{c}.{d}"))
}

/// The flow whose port (both ends) is `port` in hoplab's captures
/// (hoplab_sim::ipv4::port_flow: 50000 + flow); None for any other port.
#[pyfunction]
pub fn port_flow(port: u16) -> Option<u32> {
    hoplab_sim::ipv4::port_flow(port)
}

/// The node whose address `addr` (dotted IPv4) is in the plan above; None
/// for any other address, or text that is not one.
#[pyfunction]
pub fn ipv4_node(addr: &str) -> Option<u32> {
    let ip: std::net::Ipv4Addr = addr.parse().ok()?;
    hoplab_sim::ipv4::addr_node(ip.octets())
}
