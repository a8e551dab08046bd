//! Issue 10's reproducers: inputs that once panicked (division by zero in a
//! time conversion), livelocked (RTO rounding to 0 ns), hung (a spatial-grid
//! query over ~1e13 cells, 1e-9 s timers, a 1e-9 m mobility step, a 1e12
//! kbit/s CBR source) or ran out of memory (a 4294967295-segment initial
//! window, a 10^6-node chain, 65,535 nodes in a 500 m square). Each must give
//! a ScenarioError naming the field that drives the cost, or a finished run.
//! The Python twin is tests/python/test_reproducers.py.

use hoplab_sim::{run, Scenario};

const BASE: &str = r#"
name = "repro"
duration = DURATION
[topology]
TOPOLOGY
[[flows]]
FLOW
"#;

fn scenario(duration: &str, topology: &str, flow: &str, extra: &str) -> Result<Scenario, hoplab_sim::ScenarioError> {
    let text = BASE.replace("DURATION", duration).replace("TOPOLOGY", topology).replace("FLOW", flow) + extra;
    Scenario::from_toml_str(&text)
}

const CHAIN2: &str = "kind = \"chain\"\nnodes = 2\nspacing = 200.0";
const FTP: &str = "kind = \"ftp\"\nsrc = 0\ndst = 1";

/// Must run to the end (and quickly: the test would time out otherwise).
fn runs(duration: &str, topology: &str, flow: &str, extra: &str) {
    let sc = scenario(duration, topology, flow, extra).unwrap_or_else(|e| panic!("{extra}: refused: {e}"));
    let out = run(&sc, 1);
    assert_eq!(out.info.duration_s, sc.duration);
}

/// Must be refused, naming `field`.
fn refused(duration: &str, topology: &str, flow: &str, extra: &str, field: &str) {
    match scenario(duration, topology, flow, extra) {
        Ok(_) => panic!("{extra}: accepted, expected an error on {field}"),
        Err(e) => assert_eq!(e.field, field, "{e}"),
    }
}

#[test]
fn tiny_data_rate_runs_without_dividing_by_zero() {
    runs("1.0", CHAIN2, FTP, "[mac]\ndata_rate_mbps = 1e-7\n");
    runs("1.0", CHAIN2, FTP, "[mac]\nbasic_rate_mbps = 1e-7\n");
}

#[test]
fn rto_that_rounds_to_zero_does_not_livelock() {
    runs("0.001", CHAIN2, FTP, "[tcp]\ninitial_rto = 1e-12\n");
    runs("0.001", CHAIN2, FTP, "[tcp]\nmin_rto = 1e-12\nmax_rto = 1e-12\n");
    // The same over 100 s would be ~1e11 timer events: refused up front.
    refused("100.0", CHAIN2, FTP, "[tcp]\nmin_rto = 1e-12\nmax_rto = 1e-12\n", "flows[0].tcp.max_rto");
}

#[test]
fn huge_tx_range_builds_the_grid_quickly() {
    runs("1.0", CHAIN2, FTP, "[radio]\ntx_range_m = 1e9\n");
}

#[test]
fn huge_initial_window_allocates_nothing_up_front() {
    runs("1.0", CHAIN2, FTP, "[tcp]\ninitial_cwnd = 4294967295\n");
}

#[test]
fn networks_that_cannot_fit_are_refused() {
    refused("1.0", "kind = \"chain\"\nnodes = 1000000\nspacing = 200.0", FTP, "", "topology");
    refused("1.0", "kind = \"random\"\nnodes = 65535\nwidth = 500.0\nheight = 500.0", FTP, "", "topology");
}

#[test]
fn runaway_rates_are_refused_naming_the_field() {
    let mobility = "[mobility]\nstep_m = 1e-9\n[[mobility.legs]]\nnode = 1\nat = 0.0\nto = [400.0, 0.0]\nspeed = 10.0\n";
    refused("10.0", CHAIN2, FTP, mobility, "mobility.step_m");
    refused("1.0", CHAIN2, "kind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 1e12", "", "flows[0].rate_kbps");
    refused("10.0", CHAIN2, FTP, "[routing]\nprotocol = \"aodv\"\n[routing.aodv]\nhello_interval_s = 1e-9\nhello_jitter_s = 0.0\n", "routing.aodv.hello_interval_s");
    refused("10.0", CHAIN2, FTP, "[routing]\nprotocol = \"dsdv\"\n[routing.dsdv]\nperiodic_update_s = 1e-9\n", "routing.dsdv.periodic_update_s");
}
