//! Throughput along chains with static routing: it falls with the hop count,
//! and two hops carry about half of one (seed 002 §7.1.1; Li et al. 2001).

mod common;

fn chain_tcp(hops: u32, seed: u64) -> f64 {
    let toml = common::chain(hops, &format!("[mac]\nrts_threshold = 0\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = {hops}\n"));
    let out = common::run_toml(&toml, seed);
    assert_eq!(out.flows[0].stream_errors, 0);
    out.flows[0].throughput_kbps
}

#[test]
fn throughput_falls_with_hop_count() {
    let thr: Vec<f64> = (1..=8).map(|h| (1..=2).map(|s| chain_tcp(h, s)).sum::<f64>() / 2.0).collect();
    eprintln!("throughput by hops: {thr:?}");
    let ratio = thr[1] / thr[0];
    assert!((0.40..=0.60).contains(&ratio), "2-hop / 1-hop = {ratio:.3}");
    for h in 1..thr.len() {
        // Beyond 4 hops spatial reuse makes the curve flat: allow noise there.
        assert!(thr[h] < thr[h - 1] * 1.08, "{} hops: {:.1} vs {} hops: {:.1}", h + 1, thr[h], h, thr[h - 1]);
    }
    assert!(thr[7] < 0.8 * thr[2], "8 hops {:.1} vs 3 hops {:.1}", thr[7], thr[2]);
    assert!(thr[7] > 0.0);
}
