//! `run_with`: a run that is not stopped is the same run as `run` (events
//! and event hash); a cancel flag or a tick returning false stops it.

use hoplab_sim::{run, run_with, RunControl, Scenario};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn chain(duration: f64) -> Scenario {
    Scenario::from_toml_str(&format!(
        "duration = {duration}\n[topology]\nkind = \"chain\"\nnodes = 5\nspacing = 200.0\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n"
    ))
    .unwrap()
}

#[test]
fn a_watched_run_is_the_same_run() {
    let sc = chain(20.0);
    let plain = run(&sc, 3);
    let mut ticks = 0u32;
    let mut ctl = RunControl {
        tick: Some(Box::new(|p: &hoplab_sim::Progress| {
            assert!(p.sim_time_s <= p.duration_s);
            ticks += 1;
            true
        })),
        interval: Duration::from_nanos(1),
        ..RunControl::default()
    };
    let watched = run_with(&sc, 3, &mut ctl).unwrap();
    drop(ctl);
    assert_eq!((plain.info.events, plain.info.event_hash), (watched.info.events, watched.info.event_hash));
    assert!(ticks > 0, "the tick was never called");
}

#[test]
fn cancel_and_tick_stop_a_run() {
    let sc = chain(10_000.0);
    let flag = AtomicBool::new(true);
    let mut ctl = RunControl { cancel: Some(&flag), ..RunControl::default() };
    let err = run_with(&sc, 1, &mut ctl).unwrap_err();
    assert!(err.at_s < 1.0, "stopped at {} s, not at the first check", err.at_s);
    let mut ctl = RunControl { tick: Some(Box::new(|p: &hoplab_sim::Progress| p.sim_time_s < 5.0)), interval: Duration::from_nanos(1), ..RunControl::default() };
    let err = run_with(&sc, 1, &mut ctl).unwrap_err();
    assert!(err.at_s >= 5.0 && err.at_s < 50.0, "stopped at {} s", err.at_s);
}
