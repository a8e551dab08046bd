//! The same scenario and seed give bit-identical runs (GUIDE.md: "the same
//! run twice, compared event by event" — here through a hash of every event).

mod common;

const GRID: &str = "duration = 20.0\n[topology]\nkind = \"grid\"\nrows = 4\ncols = 4\nspacing = 200.0\n\
    [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 15\n\
    [[flows]]\nkind = \"ftp\"\nsrc = 3\ndst = 12\n\
    [[flows]]\nkind = \"cbr\"\nsrc = 5\ndst = 6\nrate_kbps = 192.0\n";

#[test]
fn same_seed_same_events_and_results() {
    let a = common::run_toml(GRID, 11);
    let b = common::run_toml(GRID, 11);
    assert!(a.info.events > 10_000);
    assert_eq!(a.info.events, b.info.events);
    assert_eq!(a.info.event_hash, b.info.event_hash);
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.drops, b.drops);
    assert_eq!(a.timeseries.cwnd.len(), b.timeseries.cwnd.len());
    assert!(a.timeseries.time_s.iter().zip(&b.timeseries.time_s).all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn different_seeds_differ() {
    let a = common::run_toml(GRID, 11);
    let c = common::run_toml(GRID, 12);
    assert_ne!(a.info.event_hash, c.info.event_hash);
}
