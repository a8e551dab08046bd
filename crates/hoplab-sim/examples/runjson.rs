//! Run a JSON scenario file and print events, event hash, wall time and the
//! oracle's share (for profiling: `perf record` on this binary).
//!     cargo run --profile profiling --example runjson -- FILE.json
use hoplab_sim::testing::{Channel, RadioParams};
use hoplab_sim::Scenario;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: runjson FILE.json");
    let text = std::fs::read_to_string(&path).expect("read");
    let sc = Scenario::from_json_str(&text).expect("scenario");
    let t0 = Instant::now();
    let out = hoplab_sim::run(&sc, sc.seed);
    let wall = t0.elapsed().as_secs_f64();
    // The oracle again, alone (the run already included it once).
    let pos: Vec<(f64, f64)> = out.nodes.iter().map(|n| (n.x, n.y)).collect();
    let ch = Channel::new(RadioParams::from_config(&sc.radio), pos, sc.seed);
    let windows: Vec<_> = out.flows.iter().map(|r| hoplab_sim::testing::Window { flow: r.flow, src: r.src, dst: r.dst, start_s: r.start_s, end_s: r.end_s }).collect();
    let t1 = Instant::now();
    let rows = hoplab_sim::testing::paths(&out.movement, &ch, &windows, out.info.duration_s);
    let oracle = t1.elapsed().as_secs_f64();
    let h: u64 = rows.iter().fold(0u64, |a, r| a.wrapping_mul(31).wrapping_add(r.flow as u64 * 1000 + r.hops as u64).wrapping_add(r.time_s.to_bits()));
    println!("events {} hash {:#x} wall {:.3} s ({:.0} ev/s) oracle {:.3} s rows {} ohash {:#x} movement {}", out.info.events, out.info.event_hash, wall, out.info.events as f64 / wall, oracle, rows.len(), h, out.movement.len());
}
