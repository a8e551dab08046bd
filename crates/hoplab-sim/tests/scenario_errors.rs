//! Every malformed or impossible scenario is refused with the field named.

use hoplab_sim::Scenario;

const OK: &str = "duration_s = 10.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n\
                  [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\n";

fn error_of(toml: &str) -> String {
    match Scenario::from_toml_str(toml) {
        Ok(_) => panic!("accepted a bad scenario:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

fn with(extra: &str) -> String {
    format!("{OK}{extra}")
}

#[test]
fn the_base_scenario_is_valid() {
    Scenario::from_toml_str(OK).unwrap();
}

#[test]
fn each_bad_value_names_its_field() {
    let cases: &[(&str, &str)] = &[
        (&OK.replace("10.0", "-1.0"), "duration_s"),
        (&OK.replace("nodes = 3", "nodes = 0"), "topology.nodes"),
        (&OK.replace("spacing_m = 200.0", "spacing_m = 0.0"), "topology.spacing_m"),
        (&OK.replace("dst = 2", "dst = 9"), "flows[0].dst"),
        (&OK.replace("dst = 2", "dst = 0"), "flows[0].dst"),
        (&with("start_s = 20.0\n"), "flows[0].start_s"),
        (&with("start_s = 2.0\nstop_s = 1.0\n"), "flows[0].stop_s"),
        (&with("bytes = 0\n"), "flows[0].bytes"),
        (&with("tcp = { mss_bytes = 0 }\n"), "flows[0].tcp.mss_bytes"),
        (&with("tcp = { min_rto_s = 2.0, max_rto_s = 1.0 }\n"), "flows[0].tcp.max_rto_s"),
        (&with("[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\n"), "flows[1].rate_kbps"),
        (&with("[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = -5.0\n"), "flows[1].rate_kbps"),
        (&with("[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 5.0\npacket_size_bytes = 0\n"), "flows[1].packet_size_bytes"),
        (&with("jitter = true\n"), "flows[0].jitter"),
        (&with("max_packets = 10\n"), "flows[0].max_packets"),
        (&with("[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 5.0\nmax_packets = 0\n"), "flows[1].max_packets"),
        (&with("[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 5.0\njitter = true\non_s = 1.0\noff_s = 1.0\n"), "flows[1].jitter"),
        (&with("[mac]\ncw_min = 30\n"), "mac.cw_min"),
        (&with("[mac]\ncw_max = 15\n"), "mac.cw_max"),
        (&with("[mac]\npreamble = \"short\"\n"), "mac.preamble"),
        (&with("[mac]\ndata_rate_mbps = 0.0\n"), "mac.data_rate_mbps"),
        (&with("[mac]\nshort_retry_limit = 0\n"), "mac.short_retry_limit"),
        (&with("[mac]\nqueue_limit = 0\n"), "mac.queue_limit"),
        (&with("[radio]\ntx_range_m = 300.0\ncs_range_m = 200.0\n"), "radio.cs_range_m"),
        (&with("[radio]\ntx_power_w = 0.0\n"), "radio.tx_power_w"),
        (&with("[radio]\ncs_threshold_w = 1.0\n"), "radio.cs_threshold_w"),
        (&with("[tcp]\ninitial_cwnd = 0\n"), "tcp.initial_cwnd"),
        (&with("[tcp]\nreceive_window_bytes = 1000\n"), "tcp.receive_window_bytes"),
        (&with("tcp = { mss_bytes = 512, receive_window_bytes = 500 }\n"), "flows[0].tcp.receive_window_bytes"),
    ];
    for (toml, field) in cases {
        let e = error_of(toml);
        assert!(e.starts_with(&format!("{field}: ")), "expected an error on {field}, got: {e}");
    }
}

#[test]
fn parse_errors_say_what_is_wrong() {
    assert!(error_of("duration_s = [").contains("invalid TOML"));
    assert!(error_of(&with("[mac]\nbogus = 1\n")).contains("bogus"));
    assert!(error_of(&OK.replace("\"chain\"", "\"ring\"")).contains("ring"));
    assert!(error_of("[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 1.0\n").contains("duration_s"));
    assert!(error_of(&with("[mac]\nrts_threshold = -1\n")).contains("rts_threshold"));
}

#[test]
fn json_is_the_same_structure() {
    let j = r#"{"duration": 5, "topology": {"kind": "grid", "rows": 2, "cols": 2, "spacing": 100},
               "flows": [{"kind": "cbr", "src": 0, "dst": 3, "rate_kbps": 100}]}"#;
    let sc = Scenario::from_json_str(j).unwrap();
    assert_eq!(sc.node_count(), 4);
    let bad = j.replace("\"dst\": 3", "\"dst\": 4");
    assert!(Scenario::from_json_str(&bad).unwrap_err().to_string().starts_with("flows[0].dst: "));
}

#[test]
fn receiver_and_delayed_ack_must_agree() {
    let cases: &[(&str, &str)] = &[
        (&with("[tcp]\nreceiver = \"linux\"\ndelayed_ack = false\n"), "tcp.receiver"),
        (&with("[tcp]\nreceiver = \"every\"\ndelayed_ack = true\n"), "tcp.receiver"),
        (&with("tcp = { receiver = \"ns2\", delayed_ack = false }\n"), "flows[0].tcp.receiver"),
        // The pair can also meet only once a flow's table is merged with [tcp].
        (&with("tcp = { delayed_ack = false }\n[tcp]\nreceiver = \"linux\"\n"), "flows[0].tcp.receiver"),
        (&with("[tcp]\nreceiver = \"bsd\"\n"), "tcp.receiver"),
        (&with("[tcp]\nclamp = \"both\"\n"), "tcp.clamp"),
    ];
    for (toml, field) in cases {
        let e = error_of(toml);
        assert!(e.starts_with(&format!("{field}:")), "expected an error on {field}, got: {e}");
    }
    for ok in ["receiver = \"linux\"\nclamp = \"receiver\"\nmax_cwnd = 2", "receiver = \"every\"\ndelayed_ack = false", "delayed_ack = false"] {
        Scenario::from_toml_str(&with(&format!("[tcp]\n{ok}\n"))).unwrap();
    }
}
