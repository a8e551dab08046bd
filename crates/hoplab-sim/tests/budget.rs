//! One-hop saturation throughput against the 802.11 time budget of one frame
//! exchange, computed here from IEEE 802.11-1999 DSSS timings (§15.3.3:
//! aSlotTime 20 µs, aSIFSTime 10 µs, 192 µs long PLCP preamble+header at
//! 1 Mbit/s; §9.2.10: DIFS = SIFS + 2 slots; CWmin 31), not from the
//! simulator's constants.

mod common;

const SLOT: f64 = 20.0;
const SIFS: f64 = 10.0;
const DIFS: f64 = SIFS + 2.0 * SLOT;
const PLCP: f64 = 192.0;
const MEAN_BACKOFF: f64 = 31.0 / 2.0 * SLOT;

/// Airtime in µs of `bytes` at `mbps` after the PLCP.
fn air(bytes: f64, mbps: f64) -> f64 {
    PLCP + bytes * 8.0 / mbps
}

/// One access: DIFS + mean backoff + [RTS SIFS CTS SIFS] DATA SIFS ACK.
fn exchange(mpdu: f64, rate: f64, basic: f64, rts: bool) -> f64 {
    let handshake = if rts { air(20.0, basic) + SIFS + air(14.0, basic) + SIFS } else { 0.0 };
    DIFS + MEAN_BACKOFF + handshake + air(mpdu, rate) + SIFS + air(14.0, basic)
}

fn udp_one_hop(rate: f64, rts_threshold: u32) -> f64 {
    let toml = common::chain(
        1,
        &format!(
            "[mac]\ndata_rate_mbps = {rate}\nrts_threshold = {rts_threshold}\n\
             [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = {}\npacket_size = 1000\n",
            rate * 2000.0
        ),
    );
    common::run_toml(&toml, 7).flows[0].throughput_kbps
}

fn assert_within(measured: f64, expected: f64, tol: f64, what: &str) {
    let err = (measured - expected).abs() / expected;
    assert!(err <= tol, "{what}: measured {measured:.1} kbit/s, budget {expected:.1} kbit/s ({:.2}% off)", err * 100.0);
}

// 1000 B of UDP payload: 1028 B IP datagram, 1056 B MPDU (28 B MAC header + FCS).
const UDP_MPDU: f64 = 1056.0;

#[test]
fn saturated_udp_with_rts_cts_matches_the_budget() {
    let budget = 1000.0 * 8.0 / exchange(UDP_MPDU, 2.0, 1.0, true) * 1000.0;
    assert_within(udp_one_hop(2.0, 0), budget, 0.03, "2 Mbit/s, RTS/CTS");
}

#[test]
fn saturated_udp_without_rts_cts_matches_the_budget() {
    let budget = 1000.0 * 8.0 / exchange(UDP_MPDU, 2.0, 1.0, false) * 1000.0;
    assert_within(udp_one_hop(2.0, 3000), budget, 0.03, "2 Mbit/s, basic access");
}

#[test]
fn saturated_udp_at_11_mbps_matches_the_budget() {
    let budget = 1000.0 * 8.0 / exchange(UDP_MPDU, 11.0, 1.0, false) * 1000.0;
    assert_within(udp_one_hop(11.0, 3000), budget, 0.03, "11 Mbit/s, basic access");
}

#[test]
fn saturated_tcp_matches_the_budget_with_its_acks() {
    // Seed 000 settings: RTS/CTS for 1528 B data frames only (threshold 100 B);
    // a delayed ACK (68 B MPDU, no RTS) for every second segment.
    let toml = common::chain(
        1,
        "[mac]\nrts_threshold = 100\n[tcp]\nmax_cwnd = 32\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 1\n",
    );
    let out = common::run_toml(&toml, 7);
    let f = &out.flows[0];
    let per_two_segments = 2.0 * exchange(1528.0, 2.0, 1.0, true) + exchange(68.0, 2.0, 1.0, false);
    let budget = 2.0 * 1460.0 * 8.0 / per_two_segments * 1000.0;
    assert_within(f.throughput_kbps, budget, 0.05, "TCP, 1 hop");
    assert_eq!(f.stream_errors, 0);
}
