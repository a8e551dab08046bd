//! Bounded time series (issue 10 item 5): a 2,000 s loaded 1-hop flow
//! changes state ~124,000 times; the series keeps what `[output]` allows,
//! spans the whole run, and sampling never changes the run itself.

mod common;

use hoplab_sim::RunOutput;

fn one_hop(output: &str) -> RunOutput {
    let toml = format!(
        "duration = 2000.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 200.0\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 1\n[output]\n{output}\n"
    );
    common::run_toml(&toml, 1)
}

fn span(r: &RunOutput) -> (f64, f64) {
    (r.timeseries.time_s[0], *r.timeseries.time_s.last().unwrap())
}

#[test]
fn the_series_is_bounded_as_configured_and_sampling_creates_no_events() {
    let default = one_hop("");
    let n = default.timeseries.time_s.len();
    assert!((12_500..=50_000).contains(&n), "default cap 50,000: {n} samples");
    let (first, last) = span(&default);
    assert!(first < 1.0 && last > 1_990.0, "spans the run: {first}..{last}");
    assert!(default.timeseries.time_s.windows(2).all(|w| w[0] <= w[1]));

    let capped = one_hop("timeseries_max_samples = 1000");
    let n = capped.timeseries.time_s.len();
    assert!((250..=1000).contains(&n), "cap 1,000: {n} samples");
    assert!(span(&capped).1 > 1_990.0);

    let per_second = one_hop("timeseries_interval_s = 1.0");
    let n = per_second.timeseries.time_s.len();
    assert!((1_900..=2_001).contains(&n), "one per 1 s bucket: {n} samples");
    // At most one sample per bucket: the last change in it.
    let buckets: Vec<u64> = per_second.timeseries.time_s.iter().map(|t| (t * 1e9).round() as u64 / 1_000_000_000).collect();
    assert!(buckets.windows(2).all(|w| w[0] < w[1]));

    let off = one_hop("timeseries = false");
    assert!(off.timeseries.time_s.is_empty());
    for r in [&capped, &per_second, &off] {
        assert_eq!(r.info.event_hash, default.info.event_hash, "sampling changed the run");
        assert_eq!(r.flows, default.flows);
    }
}
