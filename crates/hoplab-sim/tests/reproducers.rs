//! Issue 10's reproducers: inputs that once panicked (division by zero in a
//! time conversion), livelocked (RTO rounding to 0 ns), hung (a spatial-grid
//! query over ~1e13 cells, 1e-9 s timers, a 1e-9 m mobility step, a 1e12
//! kbit/s CBR source) or ran out of memory (a 4294967295-segment initial
//! window, a 10^6-node chain, 65,535 nodes in a 500 m square). Each must give
//! a ScenarioError naming the field (its valid range, or the cost estimate),
//! and the engine itself must survive the value when validation is bypassed
//! (a scenario mutated after parsing), as a second line of defence.
//! The Python twin is tests/python/test_reproducers.py.

use hoplab_sim::{run, Scenario};

const BASE: &str = r#"
name = "repro"
duration_s = DURATION
[topology]
TOPOLOGY
[[flows]]
FLOW
"#;

fn scenario(duration: &str, topology: &str, flow: &str, extra: &str) -> Result<Scenario, hoplab_sim::ScenarioError> {
    let text = BASE.replace("DURATION", duration).replace("TOPOLOGY", topology).replace("FLOW", flow) + extra;
    Scenario::from_toml_str(&text)
}

const CHAIN2: &str = "kind = \"chain\"\nnodes = 2\nspacing_m = 200.0";
const FTP: &str = "kind = \"ftp\"\nsrc = 0\ndst = 1";

/// Must be refused, naming `field`.
fn refused(duration: &str, topology: &str, flow: &str, extra: &str, field: &str) {
    match scenario(duration, topology, flow, extra) {
        Ok(_) => panic!("{extra}: accepted, expected an error on {field}"),
        Err(e) => assert_eq!(e.field, field, "{e}"),
    }
}

/// A valid 2-node chain changed by `mutate` after validation must still run
/// to the end (quickly: the test would time out otherwise).
fn engine_survives(duration: f64, mutate: impl FnOnce(&mut Scenario)) {
    let mut sc = scenario(&format!("{duration:?}"), CHAIN2, FTP, "").unwrap();
    mutate(&mut sc);
    let out = run(&sc, 1);
    assert_eq!(out.info.duration_s, duration);
}

#[test]
fn tiny_data_rate_is_refused_and_does_not_divide_by_zero() {
    refused("1.0", CHAIN2, FTP, "[mac]\ndata_rate_mbps = 1e-7\n", "mac.data_rate_mbps");
    refused("1.0", CHAIN2, FTP, "[mac]\nbasic_rate_mbps = 1e-7\n", "mac.basic_rate_mbps");
    engine_survives(1.0, |sc| sc.mac.data_rate_mbps = 1e-7);
    engine_survives(1.0, |sc| sc.mac.basic_rate_mbps = 1e-7);
}

#[test]
fn rto_that_rounds_to_zero_is_refused_and_does_not_livelock() {
    refused("0.001", CHAIN2, FTP, "[tcp]\ninitial_rto_s = 1e-12\n", "tcp.initial_rto_s");
    refused("0.001", CHAIN2, FTP, "[tcp]\nmin_rto_s = 1e-12\nmax_rto_s = 1e-12\n", "tcp.max_rto_s");
    engine_survives(0.001, |sc| sc.tcp.initial_rto = Some(1e-12));
    engine_survives(0.001, |sc| {
        sc.tcp.min_rto = Some(1e-12);
        sc.tcp.max_rto = Some(1e-12);
    });
}

#[test]
fn huge_tx_range_is_refused_and_builds_the_grid_quickly() {
    refused("1.0", CHAIN2, FTP, "[radio]\ntx_range_m = 1e9\n", "radio.tx_range_m");
    engine_survives(1.0, |sc| sc.radio.tx_range_m = Some(1e9));
}

#[test]
fn huge_initial_window_is_refused_and_allocates_nothing_up_front() {
    refused("1.0", CHAIN2, FTP, "[tcp]\ninitial_cwnd = 4294967295\n", "tcp.initial_cwnd");
    engine_survives(1.0, |sc| sc.tcp.initial_cwnd = Some(u32::MAX));
}

#[test]
fn networks_that_cannot_fit_are_refused() {
    refused("1.0", "kind = \"chain\"\nnodes = 1000000\nspacing_m = 200.0", FTP, "", "topology");
    refused("1.0", "kind = \"random\"\nnodes = 65535\nwidth_m = 500.0\nheight_m = 500.0", FTP, "", "topology");
}

#[test]
fn runaway_rates_are_refused_naming_the_field() {
    let mobility = "[mobility]\nstep_m = 1e-9\n[[mobility.legs]]\nnode = 1\nat_s = 0.0\nto = [400.0, 0.0]\nspeed_mps = 10.0\n";
    refused("10.0", CHAIN2, FTP, mobility, "mobility.step_m");
    refused("1.0", CHAIN2, "kind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 1e12", "", "flows[0].rate_kbps");
    refused("10.0", CHAIN2, FTP, "[routing]\nprotocol = \"aodv\"\n[routing.aodv]\nhello_interval_s = 1e-9\nhello_jitter_s = 0.0\n", "routing.aodv.hello_interval_s");
    refused("10.0", CHAIN2, FTP, "[routing]\nprotocol = \"dsdv\"\n[routing.dsdv]\nperiodic_update_s = 1e-9\n", "routing.dsdv.periodic_update_s");
}

/// Inside every range, the cost estimate still refuses what cannot finish:
/// a saturated one-hop FTP flow for 10^7 s is about 3e10 events.
#[test]
fn cost_refuses_what_ranges_allow() {
    refused("1e7", CHAIN2, FTP, "", "topology");
}
