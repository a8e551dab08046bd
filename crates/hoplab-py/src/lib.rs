//! PyO3 bindings for hoplab-sim: parse and validate a scenario, run it with
//! the GIL released, and hand the results to Python as plain columns.
//! No model logic lives here; `python/hoplab` turns the columns into pandas
//! DataFrames.

use hoplab_sim::{DownloadRow, DropRow, FlowRow, MovementRow, NodeRow, OraclePathRow, OutageRow, OverheadRow, PathRow, RouteEventRow, RunInfo, TimeSeries};
use hoplab_sim::TraceRow;
use hoplab_sim::{RunOutput, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod guarded;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario is invalid. `.field` is the dotted path of the offending field \
     (empty for a syntax error), `.message` says what is wrong."
);

create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The engine failed while running a valid scenario (a bug in hoplab). \
     `.scenario` and `.seed` name the run, `.message` says what failed."
);

fn scenario_err(e: hoplab_sim::ScenarioError) -> PyErr {
    Python::attach(|py| {
        let err = ScenarioError::new_err(e.to_string());
        let value = err.value(py);
        // Setting attributes on a fresh exception instance cannot fail in
        // practice; if it did, the message still carries field and problem.
        let _ = value.setattr("field", e.field.as_str());
        let _ = value.setattr("message", e.message.as_str());
        err
    })
}

fn info_dict<'py>(py: Python<'py>, i: &RunInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("scenario", i.scenario.as_str())?;
    d.set_item("seed", i.seed)?;
    d.set_item("duration_s", i.duration_s)?;
    d.set_item("nodes", i.nodes)?;
    d.set_item("events", i.events)?;
    d.set_item("wall_s", i.wall_s)?;
    d.set_item("event_hash", i.event_hash)?;
    Ok(d)
}

/// Sets `d[name] = [f(row) for row in rows]`.
macro_rules! column {
    ($d:expr, $rows:expr, $name:ident) => {
        $d.set_item(stringify!($name), $rows.iter().map(|r| r.$name).collect::<Vec<_>>())?
    };
}

fn flows_dict<'py>(py: Python<'py>, rows: &[FlowRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, flow);
    column!(d, rows, kind);
    column!(d, rows, src);
    column!(d, rows, dst);
    column!(d, rows, start_s);
    column!(d, rows, end_s);
    column!(d, rows, bytes_delivered);
    column!(d, rows, throughput_kbps);
    column!(d, rows, packets_sent);
    column!(d, rows, retransmissions);
    column!(d, rows, packets_received);
    column!(d, rows, retransmission_index);
    column!(d, rows, loss_rate);
    column!(d, rows, rtt_mean_ms);
    column!(d, rows, rtt_std_ms);
    column!(d, rows, rtt_samples);
    column!(d, rows, timeouts);
    column!(d, rows, fast_retransmits);
    column!(d, rows, stream_errors);
    column!(d, rows, completed);
    column!(d, rows, route_changes);
    column!(d, rows, rto_time_s);
    column!(d, rows, no_route_s);
    column!(d, rows, longest_gap_s);
    column!(d, rows, ecn_reductions);
    column!(d, rows, elfn_events);
    column!(d, rows, probes);
    column!(d, rows, standby_s);
    column!(d, rows, adtcp_congestion);
    column!(d, rows, adtcp_channel_error);
    column!(d, rows, adtcp_route_change);
    column!(d, rows, adtcp_disconnection);
    column!(d, rows, delay_mean_ms);
    column!(d, rows, delay_std_ms);
    column!(d, rows, jitter_ms);
    column!(d, rows, completion_s);
    column!(d, rows, transfer_throughput_kbps);
    Ok(d)
}

fn downloads_dict<'py>(py: Python<'py>, rows: &[DownloadRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, flow);
    column!(d, rows, download);
    column!(d, rows, start_s);
    column!(d, rows, end_s);
    column!(d, rows, bytes);
    column!(d, rows, completed);
    Ok(d)
}

fn oracle_paths_dict<'py>(py: Python<'py>, rows: &[OraclePathRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, flow);
    column!(d, rows, hops);
    column!(d, rows, time_s);
    Ok(d)
}

fn overhead_dict<'py>(py: Python<'py>, rows: &[OverheadRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, node);
    column!(d, rows, kind);
    column!(d, rows, packets);
    column!(d, rows, bytes);
    Ok(d)
}

fn route_events_dict<'py>(py: Python<'py>, rows: &[RouteEventRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, time_s);
    column!(d, rows, node);
    column!(d, rows, event);
    column!(d, rows, peer);
    column!(d, rows, cause);
    column!(d, rows, false_failure);
    column!(d, rows, flow);
    column!(d, rows, latency_s);
    Ok(d)
}

fn paths_dict<'py>(py: Python<'py>, rows: &[PathRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, flow);
    column!(d, rows, direction);
    column!(d, rows, hops);
    column!(d, rows, time_s);
    Ok(d)
}

fn outages_dict<'py>(py: Python<'py>, rows: &[OutageRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, flow);
    column!(d, rows, node);
    column!(d, rows, kind);
    column!(d, rows, start_s);
    column!(d, rows, end_s);
    Ok(d)
}

fn movement_dict<'py>(py: Python<'py>, rows: &[MovementRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, node);
    column!(d, rows, time_s);
    column!(d, rows, x);
    column!(d, rows, y);
    column!(d, rows, to_x);
    column!(d, rows, to_y);
    column!(d, rows, speed_mps);
    Ok(d)
}

fn nodes_dict<'py>(py: Python<'py>, rows: &[NodeRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, node);
    column!(d, rows, x);
    column!(d, rows, y);
    column!(d, rows, ifq_mean);
    column!(d, rows, ifq_max);
    column!(d, rows, mac_frames_sent);
    column!(d, rows, mac_data_sent);
    column!(d, rows, mac_retransmissions);
    column!(d, rows, rx_collisions);
    column!(d, rows, forwarded);
    column!(d, rows, ecn_marks);
    Ok(d)
}

fn drops_dict<'py>(py: Python<'py>, rows: &[DropRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, node);
    column!(d, rows, layer);
    column!(d, rows, reason);
    column!(d, rows, packet_type);
    column!(d, rows, count);
    Ok(d)
}

fn timeseries_dict<'py>(py: Python<'py>, ts: &TimeSeries) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flow", &ts.flow)?;
    d.set_item("time_s", &ts.time_s)?;
    d.set_item("cwnd", &ts.cwnd)?;
    d.set_item("ssthresh", &ts.ssthresh)?;
    d.set_item("srtt_ms", &ts.srtt_ms)?;
    d.set_item("rto_ms", &ts.rto_ms)?;
    Ok(d)
}

fn trace_dict<'py>(py: Python<'py>, rows: &[TraceRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column!(d, rows, time_s);
    column!(d, rows, node);
    column!(d, rows, event);
    column!(d, rows, frame);
    column!(d, rows, src);
    column!(d, rows, dst);
    column!(d, rows, seq);
    column!(d, rows, retry);
    column!(d, rows, uid);
    column!(d, rows, packet_type);
    column!(d, rows, packet_src);
    column!(d, rows, packet_dst);
    column!(d, rows, tcp_seq);
    column!(d, rows, reason);
    Ok(d)
}

fn output_dict<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("info", info_dict(py, &out.info)?)?;
    d.set_item("flows", flows_dict(py, &out.flows)?)?;
    d.set_item("nodes", nodes_dict(py, &out.nodes)?)?;
    d.set_item("drops", drops_dict(py, &out.drops)?)?;
    d.set_item("timeseries", timeseries_dict(py, &out.timeseries)?)?;
    d.set_item("overhead", overhead_dict(py, &out.overhead)?)?;
    d.set_item("route_events", route_events_dict(py, &out.route_events)?)?;
    d.set_item("paths", paths_dict(py, &out.paths)?)?;
    d.set_item("outages", outages_dict(py, &out.outages)?)?;
    d.set_item("trace", trace_dict(py, &out.trace)?)?;
    d.set_item("movement", movement_dict(py, &out.movement)?)?;
    d.set_item("downloads", downloads_dict(py, &out.downloads)?)?;
    d.set_item("oracle_paths", oracle_paths_dict(py, &out.oracle_paths)?)?;
    Ok(d)
}

fn run_scenario<'py>(py: Python<'py>, scenario: Scenario, seed: Option<u64>, progress: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let seed = seed.unwrap_or(scenario.seed);
    let out = py.detach(|| guarded::run(&scenario, seed, progress))?;
    output_dict(py, &out)
}

/// Parse and validate a TOML scenario, run it with `seed` (default: the
/// scenario's own `seed`), and return `{"info": dict, "flows": columns,
/// "nodes": columns, "drops": columns, "timeseries": columns}` where each
/// `columns` is a dict of equal-length lists. Raises ScenarioError;
/// SimulationError if the engine fails; KeyboardInterrupt on Ctrl-C (checked
/// every ~50 ms). `progress(sim_time_s, duration_s, events, events_per_s)`
/// is called about every 50 ms of wall time.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=None))]
fn run_toml<'py>(py: Python<'py>, text: &str, seed: Option<u64>, progress: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let scenario = Scenario::from_toml_str(text).map_err(scenario_err)?;
    run_scenario(py, scenario, seed, progress)
}

/// Like `run_toml`, for the same structure as a JSON string.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=None))]
fn run_json<'py>(py: Python<'py>, text: &str, seed: Option<u64>, progress: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let scenario = Scenario::from_json_str(text).map_err(scenario_err)?;
    run_scenario(py, scenario, seed, progress)
}

/// Parse and validate a TOML scenario without running it; returns the
/// scenario's name. Raises ScenarioError.
#[pyfunction]
fn validate_toml(text: &str) -> PyResult<String> {
    Ok(Scenario::from_toml_str(text).map_err(scenario_err)?.name)
}

/// Parse and validate a JSON scenario without running it; returns its name.
#[pyfunction]
fn validate_json(text: &str) -> PyResult<String> {
    Ok(Scenario::from_json_str(text).map_err(scenario_err)?.name)
}

/// The cost estimate (hoplab_sim::cost) of a JSON scenario, without
/// refusing: `{"cells", "neighbours", "events_per_s", "events",
/// "memory_bytes", "limit_events", "limit_memory_bytes"}`. Parses
/// the structure only (no validation); raises ScenarioError if it cannot.
#[pyfunction]
fn estimate_cost_json<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let c = hoplab_sim::cost::estimate_json(text).map_err(scenario_err)?;
    let d = PyDict::new(py);
    d.set_item("cells", c.cells)?;
    d.set_item("neighbours", c.neighbours)?;
    d.set_item("events_per_s", c.events_per_s())?;
    d.set_item("events", c.events())?;
    d.set_item("memory_bytes", c.memory_bytes())?;
    d.set_item("limit_events", hoplab_sim::cost::MAX_EVENTS)?;
    d.set_item("limit_memory_bytes", hoplab_sim::cost::MAX_MEMORY_BYTES)?;
    Ok(d)
}

fn parse(text: &str, fmt: &str) -> PyResult<(Scenario, Vec<String>)> {
    if fmt == "json" { Scenario::parse_json(text) } else { Scenario::parse_toml(text) }.map_err(scenario_err)
}

/// Parse and validate a scenario ("toml" or "json") without running it;
/// returns (name, node count, deprecation warnings). Raises ScenarioError.
#[pyfunction]
fn check_scenario(text: &str, fmt: &str) -> PyResult<(String, usize, Vec<String>)> {
    let (sc, warnings) = parse(text, fmt)?;
    Ok((sc.name.clone(), sc.node_count(), warnings))
}

/// The scenario with every default filled in and its routing preset
/// resolved, as TOML. Raises ScenarioError.
#[pyfunction]
fn resolved_scenario(text: &str, fmt: &str) -> PyResult<String> {
    let (sc, _) = parse(text, fmt)?;
    hoplab_sim::schema::reference::resolved_toml(&sc).map_err(scenario_err)
}

/// The configuration reference as JSON: {"fields": [...], "presets": [...]}.
#[pyfunction]
fn schema_reference() -> String {
    hoplab_sim::schema::reference::entries_json()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    guarded::install_panic_hook();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The commit the extension was built from, or "unknown" (see build.rs).
    m.add("__git_commit__", env!("HOPLAB_GIT_COMMIT"))?;
    m.add_function(wrap_pyfunction!(run_toml, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_cost_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(schema_reference, m)?)?;
    Ok(())
}
