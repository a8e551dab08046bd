//! PyO3 bindings for hoplab-sim: parse and validate a scenario, run it with
//! the GIL released, and hand the results to Python as plain columns.
//! No model logic lives here; `python/hoplab` turns the columns into pandas
//! DataFrames.

use hoplab_sim::results::columns::{one_line, ColumnData};
use hoplab_sim::{RunOutput, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

mod emu;
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
        // Where the parser found it (1-based), None when it does not say.
        let _ = value.setattr("line", e.line);
        let _ = value.setattr("column", e.column);
        err
    })
}

/// A column as a Python list, whatever its Rust type.
fn column_list<'py>(py: Python<'py>, data: &ColumnData) -> PyResult<Bound<'py, PyAny>> {
    Ok(match data {
        ColumnData::U32(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::U64(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::I64(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::F64(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::Bool(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::Str(v) => v.into_pyobject(py)?.into_any(),
        ColumnData::String(v) => v.into_pyobject(py)?.into_any(),
    })
}

/// `{"info": {name: value}, table: {column: [values]}, ...}` by looping over
/// the engine's declaration of the tables (hoplab_sim::results).
fn output_dict<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for table in out.tables() {
        let schema = table.schema();
        let t = PyDict::new(py);
        // One column at a time: a large table (the trace) is never held twice in Rust.
        for (i, col) in schema.columns.iter().enumerate() {
            let values = column_list(py, &table.column(i))?;
            if schema.name == "info" {
                t.set_item(col.name, values.get_item(0)?)?;
            } else {
                t.set_item(col.name, values)?;
            }
        }
        d.set_item(schema.name, t)?;
    }
    // Not a table: the trace files streamed and the events each holds.
    let files = PyDict::new(py);
    for (name, n) in &out.trace_files {
        files.set_item(name, n)?;
    }
    d.set_item("trace_files", files)?;
    Ok(d)
}

fn run_scenario<'py>(py: Python<'py>, scenario: Scenario, seed: Option<u64>, progress: Option<Py<PyAny>>, trace_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyDict>> {
    if scenario.trace.writes_files() && trace_dir.is_none() {
        // Refused before running: the files would have nowhere to go.
        let e = hoplab_sim::ScenarioError::new("trace.formats", "writes trace files: give a directory for them (hoplab.run(..., trace_dir=DIR); `hoplab run` writes them into the result directory)");
        return Err(scenario_err(e));
    }
    let seed = seed.unwrap_or(scenario.seed);
    let out = py.detach(|| guarded::run(&scenario, seed, progress, trace_dir.as_deref()))?;
    output_dict(py, &out)
}

/// Parse and validate a TOML scenario, run it with `seed` (default: the
/// scenario's own `seed`), and return `{"info": dict, "flows": columns,
/// "nodes": columns, "drops": columns, "timeseries": columns}` where each
/// `columns` is a dict of equal-length lists. Raises ScenarioError;
/// SimulationError if the engine fails; KeyboardInterrupt on Ctrl-C (checked
/// every ~50 ms). `progress(sim_time_s, duration_s, events, events_per_s)`
/// is called about every 50 ms of wall time. `trace_dir`: the existing
/// directory the `[trace] formats` files stream into (required when the
/// scenario asks for any; OSError naming a file that cannot be written).
/// The result's "trace_files" maps each file streamed to its events.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=None, trace_dir=None))]
fn run_toml<'py>(py: Python<'py>, text: &str, seed: Option<u64>, progress: Option<Py<PyAny>>, trace_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyDict>> {
    let scenario = Scenario::from_toml_str(text).map_err(scenario_err)?;
    run_scenario(py, scenario, seed, progress, trace_dir)
}

/// Like `run_toml`, for the same structure as a JSON string.
#[pyfunction]
#[pyo3(signature = (text, seed=None, progress=None, trace_dir=None))]
fn run_json<'py>(py: Python<'py>, text: &str, seed: Option<u64>, progress: Option<Py<PyAny>>, trace_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyDict>> {
    let scenario = Scenario::from_json_str(text).map_err(scenario_err)?;
    run_scenario(py, scenario, seed, progress, trace_dir)
}

/// Parse, validate and run a scenario ("toml" or "json") once; returns
/// `(output, warnings)` where `output` is as for `run_toml` and `warnings`
/// the deprecation warnings of old key names. The one call `hoplab.run`
/// makes: the scenario is parsed, validated and cost-checked once.
#[pyfunction]
#[pyo3(signature = (text, fmt, seed=None, progress=None, trace_dir=None))]
fn run<'py>(py: Python<'py>, text: &str, fmt: &str, seed: Option<u64>, progress: Option<Py<PyAny>>, trace_dir: Option<PathBuf>)
    -> PyResult<(Bound<'py, PyDict>, Vec<String>)> {
    let (scenario, warnings) = parse(text, fmt)?;
    if scenario.emulation.is_some() {
        // Simulated alone its real nodes would send nothing: refused, not run
        // quietly (hoplab.run, the lab, `hoplab run`; `hoplab emu` runs it).
        return Err(ScenarioError::new_err("emulation: this scenario has real nodes; run it with `hoplab emu` (a plain run would simulate it without their traffic)"));
    }
    Ok((run_scenario(py, scenario, seed, progress, trace_dir)?, warnings))
}

/// What a run of this scenario will write and where `hoplab run` saves it:
/// `(name, seed, trace formats)`, `seed` being the scenario's own. Raises
/// ScenarioError.
#[pyfunction]
fn trace_plan(text: &str, fmt: &str) -> PyResult<(String, u64, Vec<String>)> {
    let (sc, _) = parse(text, fmt)?;
    Ok((sc.name.clone(), sc.seed, sc.trace.formats.clone()))
}

/// The result schema: a list of `{"name", "meaning", "columns": [{"name",
/// "dtype", "unit", "meaning"}]}`, `info` first, then the tables in file
/// order (hoplab_sim::results, where each is declared).
#[pyfunction]
fn result_schema<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let tables = PyList::empty(py);
    for t in RunOutput::schema() {
        let cols = PyList::empty(py);
        for c in t.columns {
            let d = PyDict::new(py);
            d.set_item("name", c.name)?;
            d.set_item("dtype", c.dtype.name())?;
            d.set_item("unit", c.unit)?;
            d.set_item("meaning", one_line(c.meaning))?;
            cols.append(d)?;
        }
        let d = PyDict::new(py);
        d.set_item("name", t.name)?;
        d.set_item("meaning", one_line(t.meaning))?;
        d.set_item("columns", cols)?;
        tables.append(d)?;
    }
    Ok(tables)
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
/// "memory_bytes", "disk_bytes", "limit_events", "limit_memory_bytes",
/// "limit_disk_bytes"}` (disk: the streamed trace files). Parses
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
    d.set_item("disk_bytes", c.disk_bytes())?;
    d.set_item("limit_events", hoplab_sim::cost::MAX_EVENTS)?;
    d.set_item("limit_memory_bytes", hoplab_sim::cost::MAX_MEMORY_BYTES)?;
    d.set_item("limit_disk_bytes", hoplab_sim::cost::MAX_DISK_BYTES)?;
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

/// The flows whose ends have no path between them when they start, in a
/// static topology (none when nodes move), with `seed` (default: the
/// scenario's) placing random nodes: `(tx_range_m, [(flow, src, dst)])`,
/// what `validate` and `run` warn of. Raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, fmt, seed=None))]
fn unconnected_flows(text: &str, fmt: &str, seed: Option<u64>) -> PyResult<(f64, Vec<(u32, u32, u32)>)> {
    let (sc, _) = parse(text, fmt)?;
    let (range, flows) = hoplab_sim::unconnected_at_start(&sc, seed.unwrap_or(sc.seed));
    Ok((range, flows.into_iter().map(|i| (i, sc.flows[i as usize].src, sc.flows[i as usize].dst)).collect()))
}

/// The radio's decode range in metres, as the engine resolves it (what
/// `plot topology` draws). Raises ScenarioError.
#[pyfunction]
fn tx_range_m(text: &str, fmt: &str) -> PyResult<f64> {
    let (sc, _) = parse(text, fmt)?;
    Ok(hoplab_sim::tx_range_m(&sc))
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
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(result_schema, m)?)?;
    m.add_function(wrap_pyfunction!(validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_cost_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(trace_plan, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(unconnected_flows, m)?)?;
    m.add_function(wrap_pyfunction!(tx_range_m, m)?)?;
    m.add_function(wrap_pyfunction!(schema_reference, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emulate_replay, m)?)?;
    m.add_function(wrap_pyfunction!(emu::ingress_log, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emulation_table, m)?)?;
    m.add_function(wrap_pyfunction!(emu::node_ipv4, m)?)?;
    m.add_function(wrap_pyfunction!(emu::ipv4_node, m)?)?;
    m.add_function(wrap_pyfunction!(emu::port_flow, m)?)?;
    Ok(())
}
