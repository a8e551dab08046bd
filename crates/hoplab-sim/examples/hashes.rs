//! Refactor guard: for each scenario file and seeds 1..=3, print the event
//! hash and a digest of every RunOutput table (Debug-formatted, wall time
//! zeroed), once as written and once with the event trace on. Equal lines
//! before and after a change mean the change kept behaviour.
//!     cargo run --release --example hashes -- FILE.toml...
use hoplab_sim::Scenario;
use std::fmt::Write;

/// FNV-1a over everything written to it, so a long trace never becomes one string.
struct Fnv(u64);
impl Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Ok(())
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read");
        let sc = if path.ends_with(".json") { Scenario::from_json_str(&text) } else { Scenario::from_toml_str(&text) };
        let sc = match sc {
            Ok(sc) => sc,
            Err(e) => {
                println!("{path} error {e}");
                continue;
            }
        };
        for trace in [false, true] {
            let mut sc = sc.clone();
            sc.output.trace = trace;
            for seed in 1..=3 {
                let mut out = hoplab_sim::run(&sc, seed);
                out.info.wall_s = 0.0;
                let mut d = Fnv(0xcbf2_9ce4_8422_2325);
                // Without issue 24's `trace_files` (empty here), the digest
                // of an untraced run compares with one from before it.
                out.trace_files.clear();
                let text = if trace { format!("{out:?}") } else { format!("{out:?}").replace(", trace_files: []", "") };
                write!(d, "{text}").unwrap();
                println!("{path} trace={trace} seed={seed} events={} hash={:#018x} tables={:#018x}", out.info.events, out.info.event_hash, d.0);
            }
        }
    }
}
