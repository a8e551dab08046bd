//! TcpConfig defaults and conversion from scenario parameters.

use crate::scenario::TcpParams;
use crate::tcp::{initial_window_segments, TcpConfig, Variant};
use crate::time::Dur;

#[test]
fn defaults_follow_the_rfcs_and_ns2() {
    let c = TcpConfig::default();
    assert_eq!(c.variant, Variant::NewReno);
    assert_eq!(c.mss, 1460);
    assert_eq!(c.initial_cwnd, 3, "RFC 5681 IW for 1460 B");
    assert_eq!(c.max_cwnd, None);
    assert_eq!(c.receive_window, 65_535, "no window scaling");
    assert_eq!(c.rto_min, Dur::from_millis(200));
    assert_eq!(c.rto_initial, Dur::from_millis(1000));
    assert_eq!(c.rto_max, Dur::from_millis(60_000));
    assert_eq!(c.clock_granularity, Dur::from_millis(1));
    assert_eq!(c.dupack_threshold, 3);
    assert!(c.delayed_ack);
    assert_eq!(c.delack_timeout, Dur::from_millis(100));
}

#[test]
fn initial_window_rule() {
    assert_eq!(initial_window_segments(1460), 3);
    assert_eq!(initial_window_segments(512), 4);
    assert_eq!(initial_window_segments(2190), 2);
    assert_eq!(initial_window_segments(4000), 2);
}

#[test]
fn from_params_fills_defaults_and_converts() {
    assert_eq!(TcpConfig::from_params(&TcpParams::default()), TcpConfig::default());
    let p = TcpParams {
        variant: Some(Variant::Reno),
        mss: Some(512),
        max_cwnd: Some(0),
        receive_window: Some(8192),
        initial_cwnd: None,
        delayed_ack: Some(false),
        delack_timeout: Some(0.2),
        min_rto: Some(1.0),
        initial_rto: Some(3.0),
        max_rto: Some(64.0),
        ..TcpParams::default()
    };
    let c = TcpConfig::from_params(&p);
    assert_eq!(c.variant, Variant::Reno);
    assert_eq!(c.mss, 512);
    assert_eq!(c.max_cwnd, None, "0 = unclamped");
    assert_eq!((c.receive_window, c.receive_window_segments()), (8192, 16));
    assert_eq!(c.initial_cwnd, 4, "IW follows the given MSS");
    assert!(!c.delayed_ack);
    assert_eq!(c.delack_timeout, Dur::from_millis(200));
    assert_eq!(c.rto_min, Dur::from_millis(1000));
    assert_eq!(c.rto_initial, Dur::from_millis(3000));
    assert_eq!(c.rto_max, Dur::from_millis(64_000));
    let c = TcpConfig::from_params(&TcpParams { max_cwnd: Some(4), initial_cwnd: Some(1), ..TcpParams::default() });
    assert_eq!((c.max_cwnd, c.initial_cwnd), (Some(4), 1));
}

#[test]
fn tahoe_is_a_scenario_variant() {
    let c = TcpConfig::from_params(&TcpParams { variant: Some(Variant::Tahoe), ..TcpParams::default() });
    assert_eq!(c.variant, Variant::Tahoe);
    let sc = crate::scenario::Scenario::from_toml_str(
        "duration = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 200.0\n[tcp]\nvariant = \"tahoe\"\n",
    )
    .expect("tahoe is a valid variant");
    assert_eq!(sc.tcp.variant, Some(Variant::Tahoe));
}

/// RFC 5681 §3.1 starts ssthresh "arbitrarily high" (the largest window);
/// `initial_ssthresh` gives ns-2's start (tcp.cc TcpAgent::reset: the
/// class's window_, 20, when the agent is made); 0 is the RFC's.
#[test]
fn initial_ssthresh_is_the_largest_window_unless_given() {
    use crate::tcp::TcpSender;
    let std = TcpSender::new(0, &TcpConfig::default(), None, false);
    assert_eq!(std.ssthresh(), (crate::tcp::MAX_WINDOW_BYTES / 1460) as f64);
    let c = TcpConfig::from_params(&TcpParams { initial_ssthresh: Some(20), ..TcpParams::default() });
    assert_eq!(TcpSender::new(0, &c, None, false).ssthresh(), 20.0);
    let c = TcpConfig::from_params(&TcpParams { initial_ssthresh: Some(0), ..TcpParams::default() });
    assert_eq!(c, TcpConfig::default(), "0 is the default");
}
