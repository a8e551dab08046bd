//! ELFN end to end on seed 003's route break (examples/route_break.toml):
//! with `[tcp] elfn = true`, AODV and DSR tell the source that its route to E
//! is gone, the sender waits in standby instead of backing off its RTO, and
//! the flow carries on afterwards. Default settings otherwise.

mod common;
use common::run_toml;
use hoplab_sim::RunOutput;

fn route_break(routing: &str, tcp_extra: &str, seed: u64) -> RunOutput {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/route_break.toml")).unwrap();
    let i = text.find("[routing]").unwrap();
    let j = i + text[i..].find("\n\n").unwrap();
    let text = format!("{}[routing]\n{routing}{}", &text[..i], &text[j..]);
    let k = text.find("[tcp]\n").unwrap() + "[tcp]\n".len();
    run_toml(&format!("{}{tcp_extra}{}", &text[..k], &text[k..]), seed)
}

const AODV: &str = "protocol = \"aodv\"\npreset = \"aodv-uu\"";
const DSR: &str = "protocol = \"dsr\"\npreset = \"dsr-uu\"";
const DSR_NS2: &str = "protocol = \"dsr\"\npreset = \"ns2\"";

#[test]
fn elfn_notifications_reach_the_source_and_the_flow_recovers() {
    for (name, routing) in [("AODV-UU", AODV), ("DSR-UU", DSR), ("DSR ns2", DSR_NS2)] {
        for seed in 1..=5 {
            let on = route_break(routing, "elfn = true\n", seed);
            let off = route_break(routing, "", seed);
            let (f, g) = (&on.flows[0], &off.flows[0]);
            eprintln!(
                "{name} seed {seed}: ELFN {} events, {} probes, standby {:.2} s, RTO {:.2} s, {} timeouts, {:.0} kbit/s; \
                 without: RTO {:.2} s, {} timeouts, {:.0} kbit/s",
                f.elfn_events, f.probes, f.standby_s, f.rto_time_s, f.timeouts, f.throughput_kbps,
                g.rto_time_s, g.timeouts, g.throughput_kbps
            );
            if name.starts_with("AODV") {
                // The RERR from D (and every MAC-feedback break at A) reaches A.
                assert!(f.elfn_events > 0, "{name} seed {seed}: no ELFN reached the source");
            }
            assert_eq!(g.elfn_events + g.probes, 0, "{name} seed {seed}: ELFN off");
            assert_eq!(f.stream_errors, 0);
            // The flow goes on after the break (E is reached through F).
            assert!(f.throughput_kbps > 0.5 * g.throughput_kbps, "{name} seed {seed}");
        }
    }
}

#[test]
fn static_routing_sends_no_notification() {
    let r = route_break("protocol = \"static\"", "elfn = true\n", 1);
    assert_eq!(r.flows[0].elfn_events, 0);
}

/// ADTCP on the same break: every loss indication is classified, and the
/// byte stream stays intact; the numbers are printed for the record.
#[test]
fn adtcp_classifies_the_losses_of_the_route_break() {
    for (name, routing) in [("AODV-UU", AODV), ("DSR-UU", DSR)] {
        for seed in 1..=3 {
            let on = route_break(routing, "adtcp = true\n", seed);
            let off = route_break(routing, "", seed);
            let (f, g) = (&on.flows[0], &off.flows[0]);
            eprintln!(
                "{name} seed {seed}: ADTCP congestion {} channel {} route {} disconnection {}, probes {}, standby {:.2} s, \
                 RTO {:.2} s, {:.0} kbit/s; without: RTO {:.2} s, {:.0} kbit/s",
                f.adtcp_congestion, f.adtcp_channel_error, f.adtcp_route_change, f.adtcp_disconnection,
                f.probes, f.standby_s, f.rto_time_s, f.throughput_kbps, g.rto_time_s, g.throughput_kbps
            );
            let reactions = f.adtcp_congestion + f.adtcp_channel_error + f.adtcp_route_change + f.adtcp_disconnection;
            assert_eq!(reactions, f.timeouts + f.fast_retransmits, "{name} seed {seed}: every loss indication classified once");
            assert_eq!(f.stream_errors, 0);
            assert!(f.throughput_kbps > 0.0);
        }
    }
}
