//! Helpers shared by the whole-system tests that need the engine's
//! internals (a copy of tests/common's, for the tests moved here).

use crate::{run, RunOutput, Scenario};

pub fn run_toml(toml: &str, seed: u64) -> RunOutput {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("bad test scenario: {e}"));
    run(&sc, seed)
}

/// A chain of `hops` hops, 200 m apart, with the given extra TOML.
pub fn chain(hops: u32, extra: &str) -> String {
    format!("duration = 30.0\n[topology]\nkind = \"chain\"\nnodes = {}\nspacing = 200.0\n{extra}", hops + 1)
}
