//! FeW, ECN and LRED in the full simulator: seed 001's 6-hop chain (7 nodes
//! 200 m apart, 2 Mbit/s, two-ray ground with 250 m / 550 m ranges, DSR) with
//! two FTP flows from one end to the other, 120 s, default TCP otherwise.

mod common;

use hoplab_sim::RunOutput;

fn chain6(tcp: &str, lred: bool) -> RunOutput {
    let mut s = String::from(
        "duration = 120.0\n[topology]\nkind = \"chain\"\nnodes = 7\nspacing = 200.0\n[routing]\nprotocol = \"dsr\"\n[output]\ntimeseries = true\n",
    );
    if lred {
        s += "[lred]\nenabled = true\n";
    }
    s += &format!("[tcp]\n{tcp}\n");
    s += "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 6\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 6\n";
    common::run_toml(&s, 1)
}

/// Time-weighted mean cwnd of `flow` over the run.
fn mean_cwnd(r: &RunOutput, flow: u32, end: f64) -> f64 {
    let ts = &r.timeseries;
    let pts: Vec<(f64, f64)> = (0..ts.flow.len()).filter(|&i| ts.flow[i] == flow).map(|i| (ts.time_s[i], ts.cwnd[i])).collect();
    let mut area = 0.0;
    for (k, &(t, c)) in pts.iter().enumerate() {
        let next = pts.get(k + 1).map_or(end, |p| p.0);
        area += c * (next - t);
    }
    area / (end - pts[0].0)
}

fn report(name: &str, r: &RunOutput) {
    let thr: Vec<String> = r.flows.iter().map(|f| format!("{:.1}", f.throughput_kbps)).collect();
    let marks: u64 = r.nodes.iter().map(|n| n.ecn_marks).sum();
    let red: u64 = r.flows.iter().map(|f| f.ecn_reductions).sum();
    let total: f64 = r.flows.iter().map(|f| f.throughput_kbps).sum();
    eprintln!(
        "{name}: {} = {total:.1} kbit/s, mean cwnd {:.2} / {:.2}, {marks} marks, {red} ECN reductions, {} timeouts",
        thr.join(" + "),
        mean_cwnd(r, 0, 120.0),
        mean_cwnd(r, 1, 120.0),
        r.flows.iter().map(|f| f.timeouts).sum::<u64>()
    );
}

#[test]
fn lred_marks_and_ecn_capable_tcp_reduces() {
    let r = chain6("ecn = true", true);
    report("ecn + lred", &r);
    let marks: u64 = r.nodes.iter().map(|n| n.ecn_marks).sum();
    assert!(marks > 0, "LRED marked nothing");
    assert_eq!(r.nodes[6].ecn_marks, 0, "the sink originates only ACKs, which are not ECN-capable");
    for f in &r.flows {
        assert!(f.ecn_reductions > 0, "flow {} never reduced on ECE", f.flow);
        assert_eq!(f.stream_errors, 0);
    }
    // Without ECN-capable TCP LRED has nothing to mark; without LRED nothing marks.
    let r = chain6("ecn = false", true);
    assert_eq!(r.nodes.iter().map(|n| n.ecn_marks).sum::<u64>(), 0);
    let r = chain6("ecn = true", false);
    assert_eq!(r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>(), 0);
}

#[test]
fn few_alpha_001_keeps_a_smaller_window_than_alpha_1() {
    let standard = chain6("few_alpha = 1.0", false);
    let few = chain6("few_alpha = 0.01", false);
    report("alpha = 1", &standard);
    report("alpha = 0.01", &few);
    for flow in 0..2 {
        let (a, b) = (mean_cwnd(&few, flow, 120.0), mean_cwnd(&standard, flow, 120.0));
        assert!(a < b, "flow {flow}: mean cwnd {a:.2} with alpha 0.01 is not below {b:.2} with alpha 1");
    }
    for f in &few.flows {
        assert!(f.throughput_kbps > 0.0 && f.stream_errors == 0);
    }
    report("alpha = 0.01, ecn + lred", &chain6("few_alpha = 0.01\necn = true", true));
}

#[test]
fn bad_few_ecn_and_lred_values_name_their_field() {
    let base = "duration = 10.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
                [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\n";
    let cases: &[(&str, &str)] = &[
        ("tcp = { few_alpha = 0.0 }\n", "flows[0].tcp.few_alpha"),
        ("tcp = { few_alpha = 1.5 }\n", "flows[0].tcp.few_alpha"),
        ("tcp = { few_w_min = 0.0 }\n", "flows[0].tcp.few_w_min"),
        ("tcp = { few_w_min = 2.0 }\n", "flows[0].tcp.few_w_min"),
        ("tcp = { few_ssthresh_min = 1.0 }\n", "flows[0].tcp.few_ssthresh_min"),
        ("[tcp]\nfew_alpha = -0.1\n", "tcp.few_alpha"),
        ("[lred]\nenabled = true\nmin_th = -1.0\n", "lred.min_th"),
        ("[lred]\nmin_th = 2.0\nmax_th = 2.0\n", "lred.max_th"),
        ("[lred]\nmax_p = 0.0\n", "lred.max_p"),
        ("[lred]\nmax_p = 1.5\n", "lred.max_p"),
        ("[lred]\nweight = 0.0\n", "lred.weight"),
        ("[lred]\nweight = 1.5\n", "lred.weight"),
        ("[lred]\nthreshold = 1.0\n", "lred"),
    ];
    for (extra, field) in cases {
        let text = format!("{base}{extra}");
        match hoplab_sim::Scenario::from_toml_str(&text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => assert!(e.field.starts_with(field), "{extra:?}: error names {:?}, not {field}: {e}", e.field),
        }
    }
    let ok = format!("{base}[tcp]\nfew_alpha = 1.0\nfew_w_min = 1.0\nfew_ssthresh_min = 0.5\necn = true\n[lred]\nenabled = true\nmin_th = 0.0\nmax_th = 0.1\nmax_p = 1.0\nweight = 1.0\n");
    hoplab_sim::Scenario::from_toml_str(&ok).unwrap();
}
