//! Workloads (issue 12 item 3) and seed 002's oracle (item 4), run whole:
//! finite transfers, start/stop times, on-off CBR, the WWW model, and the
//! shortest-path oracle under scripted movement.

mod common;

use common::run_toml;

fn chain(nodes: u32, duration: f64, extra: &str) -> String {
    format!("duration_s = {duration}\n[topology]\nkind = \"chain\"\nnodes = {nodes}\nspacing_m = 200.0\n{extra}")
}

#[test]
fn a_finite_transfer_completes_when_its_last_ack_arrives() {
    // 100,000 bytes at MSS 1460: 69 segments over 2 hops.
    let out = run_toml(&chain(3, 30.0, "[output]\ntrace = true\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\nstart_s = 0.5\nbytes = 100000\n"), 1);
    let f = &out.flows[0];
    assert!(f.completed);
    assert_eq!(f.bytes_delivered, 100_000);
    // The last byte's ACK (cumulative ACK 69) as node 0 decodes it.
    let last_ack = out
        .trace
        .iter()
        .filter(|r| r.node == 0 && r.event == "recv" && r.layer == "MAC" && r.frame == "DATA" && r.dst == 0 && r.packet_type == "ack" && r.tcp_seq == 69)
        .map(|r| r.time_s)
        .fold(f64::INFINITY, f64::min);
    assert!(last_ack.is_finite(), "no ACK of the last segment in the trace");
    assert!((f.completion_s - last_ack).abs() < 1e-9, "completion {} vs last ACK {last_ack}", f.completion_s);
    assert_eq!(f.end_s, f.completion_s);
    let want = 100_000.0 * 8.0 / (f.completion_s - 0.5) / 1e3;
    assert!((f.transfer_throughput_kbps - want).abs() < 1e-9, "{} vs {want}", f.transfer_throughput_kbps);
    // An infinite flow has neither.
    let inf = run_toml(&chain(2, 5.0, "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 1\n"), 1);
    assert!(inf.flows[0].completion_s.is_nan() && inf.flows[0].transfer_throughput_kbps.is_nan());
}

#[test]
fn start_and_stop_times_hold_for_tcp_and_cbr() {
    let extra = "[output]\ntrace = true\n\
        [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\nstart_s = 2.0\nstop_s = 6.0\n\
        [[flows]]\nkind = \"cbr\"\nsrc = 2\ndst = 0\nstart_s = 1.0\nstop_s = 3.0\nrate_kbps = 64.0\npacket_size_bytes = 512\n";
    let out = run_toml(&chain(3, 12.0, extra), 1);
    let sent = |node: u32, ty: &str| -> Vec<(f64, i64)> {
        out.trace.iter().filter(|r| r.node == node && r.event == "send" && r.layer == "MAC" && r.frame == "DATA" && r.packet_type == ty && r.packet_src == node as i64).map(|r| (r.time_s, r.tcp_seq)).collect()
    };
    // CBR: one datagram every 64 ms from 1 s while t < 3 s: 32 datagrams.
    assert_eq!(out.flows[1].packets_sent, 32);
    let cbr = sent(2, "cbr");
    assert!(cbr.first().unwrap().0 >= 1.0 && cbr.last().unwrap().0 < 3.5, "{:?} {:?}", cbr.first(), cbr.last());
    // TCP: nothing before 2 s.
    let tcp = sent(0, "tcp");
    assert!(tcp.first().unwrap().0 >= 2.0 && tcp.first().unwrap().0 < 2.1);
    assert_eq!(out.flows[0].end_s, 6.0);
    // No new segment after 6 s: the new segments (sent - retransmitted) are
    // those of the same run cut at 6 s without a stop time, and all of them
    // are delivered while the queues drain.
    let cut = run_toml(&chain(3, 6.0, &extra.replace("stop_s = 6.0\n", "")), 1);
    let new = |f: &hoplab_sim::results::FlowRow| f.packets_sent - f.retransmissions;
    assert!(new(&cut.flows[0]) > 100, "the flow ran");
    assert_eq!(new(&out.flows[0]), new(&cut.flows[0]));
    assert_eq!(out.flows[0].bytes_delivered, new(&out.flows[0]) * 1460);
}

#[test]
fn an_on_off_source_sends_its_duty_cycle() {
    // 64 kbit/s while on, exponential on and off periods of mean 1 s: half the rate.
    let extra = "[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 64.0\non_s = 1.0\noff_s = 1.0\n";
    let out = run_toml(&chain(2, 2000.0, &format!("{extra}[output]\ntimeseries = false\n")), 3);
    let f = &out.flows[0];
    let always_on = 2000.0 / 0.064;
    let frac = f.packets_sent as f64 / always_on;
    // ~1000 cycles: the fraction's standard error is ~0.016.
    assert!((frac - 0.5).abs() < 0.05, "sent {} of {always_on} ({frac})", f.packets_sent);
    assert!(f.packets_received + 1 >= f.packets_sent, "a 1-hop CBR flow at 64 kbit/s loses nothing");
}

const WWW: &str = "[[flows]]\nkind = \"www\"\nsrc = 0\ndst = 2\ndownloads = 6\nthink_scale_s = 0.5\n";

#[test]
fn a_www_session_downloads_one_transfer_after_another() {
    let out = run_toml(&chain(3, 300.0, WWW), 1);
    let d = &out.downloads;
    assert_eq!(d.len(), 6);
    assert!(d.iter().all(|r| r.completed && r.flow == 0 && r.end_s > r.start_s && r.bytes > 0));
    assert_eq!(d.iter().map(|r| r.download).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(d[0].start_s, 0.0);
    for w in d.windows(2) {
        // The next click comes a think time (>= the Pareto scale) after the last ACK.
        assert!(w[1].start_s >= w[0].end_s + 0.5 - 1e-9, "{w:?}");
    }
    let f = &out.flows[0];
    assert_eq!(f.kind, "www");
    assert_eq!(f.bytes_delivered, d.iter().map(|r| r.bytes).sum::<u64>());
    assert_eq!(f.stream_errors, 0);
    assert!(f.completed && f.completion_s == d[5].end_s);
    // Deterministic per seed; another seed draws other sizes.
    assert_eq!(run_toml(&chain(3, 300.0, WWW), 1).downloads, out.downloads);
    let other = run_toml(&chain(3, 300.0, WWW), 2);
    assert_ne!(other.downloads.iter().map(|r| r.bytes).collect::<Vec<_>>(), d.iter().map(|r| r.bytes).collect::<Vec<_>>());
}

#[test]
fn the_oracle_follows_geometry_under_scripted_legs() {
    // Node 2 (400 m from node 0) heads for node 0 at 10 m/s from 1 s: within
    // 250 m at 1 + 150/10 = 16 s. The shortest path 0 -> 2 is 2 hops until
    // then and 1 hop after.
    let toml = "duration_s = 30.0\n[radio]\ntx_range_m = 250.0\ncs_range_m = 550.0\n\
        [topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n\
        [[mobility.legs]]\nnode = 2\nat_s = 1.0\nto = [0.0, 0.0]\nspeed_mps = 10.0\n\
        [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 2\nrate_kbps = 8.0\n";
    let out = run_toml(toml, 1);
    let t = |h: u32| out.oracle_paths.iter().find(|r| r.flow == 0 && r.hops == h).map_or(0.0, |r| r.time_s);
    assert!((t(2) - 16.0).abs() < 1e-6 && (t(1) - 14.0).abs() < 1e-6, "{:?}", out.oracle_paths);
    // Moving out of range: node 1 leaves node 0 (200 m) at 10 m/s from 1 s,
    // out of range at 6 s; no path for the remaining 24 s.
    let toml = "duration_s = 30.0\n[radio]\ntx_range_m = 250.0\ncs_range_m = 550.0\n\
        [topology]\nkind = \"chain\"\nnodes = 2\nspacing_m = 200.0\n\
        [[mobility.legs]]\nnode = 1\nat_s = 1.0\nto = [1000.0, 0.0]\nspeed_mps = 10.0\n\
        [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 8.0\n";
    let out = run_toml(toml, 1);
    let t = |h: u32| out.oracle_paths.iter().find(|r| r.hops == h).map_or(0.0, |r| r.time_s);
    assert!((t(1) - 6.0).abs() < 1e-6 && (t(0) - 24.0).abs() < 1e-6, "{:?}", out.oracle_paths);
}

#[test]
fn the_oracle_of_a_static_chain_is_its_length() {
    let out = run_toml(&chain(5, 20.0, "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\nstart_s = 2.0\n"), 1);
    assert_eq!(out.oracle_paths.len(), 1);
    let r = &out.oracle_paths[0];
    assert_eq!((r.flow, r.hops), (0, 4));
    assert!((r.time_s - 18.0).abs() < 1e-9);
}

#[test]
fn cbr_jitter_and_max_packets_reach_the_run() {
    // 512 B at 40.96 kbit/s: every 100 ms, 100 packets in 10 s.
    let flow = |extra: &str| chain(2, 10.0, &format!("[output]\ntrace = true\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 40.96\n{extra}"));
    let sends = |out: &hoplab_sim::RunOutput| -> Vec<f64> {
        out.trace.iter().filter(|r| r.node == 0 && r.layer == "AGT" && r.event == "send").map(|r| r.time_s).collect()
    };
    let plain = run_toml(&flow(""), 1);
    assert_eq!(plain.flows[0].packets_sent, 100);
    let capped = run_toml(&flow("max_packets = 25\n"), 1);
    assert_eq!((capped.flows[0].packets_sent, capped.flows[0].packets_received), (25, 25));
    assert_eq!(sends(&capped).len(), 25);
    let jit = run_toml(&flow("jitter = true\n"), 1);
    let t = sends(&jit);
    assert_eq!(t[0], 0.0);
    let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) / 0.1).collect();
    assert!(gaps.iter().all(|g| (0.5 - 1e-9..=1.5 + 1e-9).contains(g)), "{gaps:?}");
    assert!(gaps.iter().any(|g| (g - 1.0).abs() > 0.1), "no gap moved: {gaps:?}");
    // About 100 packets (the gaps average one interval), and a new seed draws others.
    assert!((85..=115).contains(&jit.flows[0].packets_sent), "{}", jit.flows[0].packets_sent);
    assert_ne!(t, sends(&run_toml(&flow("jitter = true\n"), 2)));
    // jitter = false is today's source.
    assert_eq!(run_toml(&flow("jitter = false\n"), 1).info.event_hash, plain.info.event_hash);
}
