//! Log-normal shadowing (`radio.propagation = "shadowing"`, ns-2
//! shadowing.cc) end to end: a two-node UDP run beyond the mean range
//! delivers the share of frames the Gaussian tail predicts, runs are
//! reproducible, and the validation rules name their field.

use crate::phy::propagation::gaussian_tail;
use crate::phy::RadioParams;
use crate::{run, Scenario};

/// ns-2's tcl/ex/wireless-shadowing-test.tcl radio: Pt_ 0.2818, 914 MHz,
/// RXThresh_ 1.47635e-07, CSThresh_ 1.559e-11, pathlossExp_ 2.0, std_db_
/// 4.0, dist0_ 1.0 (mean decode range 36.1 m). Node 1 starts 5 m from node
/// 0, so the static routes (computed once, at the mean power) hold the
/// direct link, and moves out to `far` m at once. One attempt per frame (a
/// short retry limit of 1, no RTS): each datagram arrives with the
/// probability that one reception's power reaches RXThresh_.
fn two_nodes(far: f64, duration: f64) -> Scenario {
    let text = format!(
        "duration_s = {duration}\n[topology]\nkind = \"explicit\"\npositions = [[0.0, 0.0], [5.0, 0.0]]\n\
         [radio]\npropagation = \"shadowing\"\ntx_power_w = 0.2818\nrx_threshold_w = 1.47635e-07\ncs_threshold_w = 1.559e-11\n\
         shadowing_path_loss_exponent = 2.0\nshadowing_std_db = 4.0\nshadowing_reference_m = 1.0\n\
         [mac]\nrts_threshold_bytes = 3000\nshort_retry_limit = 1\n\
         [[mobility.legs]]\nnode = 1\nat_s = 0.0\nto = [{far}, 0.0]\nspeed_mps = 1000.0\n\
         [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nstart_s = 1.0\nrate_kbps = 40.96\npacket_size_bytes = 512\n"
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("bad test scenario: {e}"))
}

#[test]
fn a_two_node_udp_run_beyond_the_mean_range_delivers_the_gaussian_tail() {
    let far = 45.0;
    let sc = two_nodes(far, 501.0);
    let p = RadioParams::from_config(&sc.radio);
    assert!((p.tx_range - 36.06).abs() < 0.01, "mean range {}", p.tx_range);
    // Q((Pth_dB - Pmean_dB) / sigma): 1.92 dB short of the threshold on
    // average, so Q(0.48) = 0.315.
    let db = |w: f64| 10.0 * w.log10();
    let want = gaussian_tail((db(p.rx_threshold) - db(p.path_loss.rx_power(far))) / 4.0);
    let out = run(&sc, 1);
    let f = &out.flows[0];
    assert!(f.packets_sent >= 4990, "{} sent", f.packets_sent);
    let got = f.packets_received as f64 / f.packets_sent as f64;
    // ~5000 datagrams: a standard error of 0.0066; 0.025 is ~4 of them.
    let se = (want * (1.0 - want) / f.packets_sent as f64).sqrt();
    assert!((got - want).abs() < 0.025, "delivered {got:.4} of {} datagrams, want Q = {want:.4} (standard error {se:.4})", f.packets_sent);
    eprintln!("shadowing e2e: delivered {got:.4} of {} datagrams at {far} m, Q = {want:.4}, standard error {se:.4}", f.packets_sent);
    // Reproducible: same seed, same events; another seed, other draws.
    let again = run(&sc, 1);
    assert_eq!((again.info.event_hash, again.flows[0].packets_received), (out.info.event_hash, f.packets_received));
    assert_ne!(run(&sc, 2).info.event_hash, out.info.event_hash);
}

#[test]
fn within_the_mean_range_without_deviation_every_datagram_arrives() {
    // sigma = 0 is the mean alone: 30 m is inside the 36.1 m mean range.
    let mut sc = two_nodes(30.0, 21.0);
    sc.radio.shadowing_std_db = 0.0;
    let out = run(&sc, 1);
    assert_eq!(out.flows[0].packets_received, out.flows[0].packets_sent);
    sc.radio.shadowing_std_db = 4.0;
    let out = run(&sc, 1);
    assert!(out.flows[0].packets_received < out.flows[0].packets_sent, "a 4 dB deviation loses some at 30 m (Q(-0.4) = 0.66)");
}

#[test]
fn validation_names_the_shadowing_fields() {
    let base = "duration_s = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing_m = 10.0\n[radio]\npropagation = \"shadowing\"\n";
    let cases = [
        ("shadowing_std_db = -1.0", "radio.shadowing_std_db", "is outside"),
        ("shadowing_std_db = 25.0", "radio.shadowing_std_db", "is outside"),
        ("shadowing_path_loss_exponent = 0.5", "radio.shadowing_path_loss_exponent", "is outside"),
        ("shadowing_reference_m = 0.0", "radio.shadowing_reference_m", "is outside"),
        ("shadowing_reference_m = 10.0\ntx_range_m = 5.0", "radio.tx_range_m", "within shadowing_reference_m"),
        ("shadowing_reference_m = 10.0\ncs_range_m = 5.0", "radio.cs_range_m", "within shadowing_reference_m"),
    ];
    for (extra, field, words) in cases {
        let e = Scenario::from_toml_str(&format!("{base}{extra}\n")).unwrap_err();
        assert_eq!(e.field, field, "{extra}: {e}");
        assert!(e.message.contains(words), "{extra}: {e}");
    }
    // Mean ranges beyond the reference distance are thresholds like any other.
    let sc = Scenario::from_toml_str(&format!("{base}tx_range_m = 100.0\ncs_range_m = 200.0\n")).unwrap();
    let p = RadioParams::from_config(&sc.radio);
    assert!((p.tx_range - 100.0).abs() < 1e-9 && (p.cs_range - 200.0).abs() < 1e-9);
}
