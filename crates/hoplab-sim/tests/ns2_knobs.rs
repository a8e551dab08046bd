//! ns-2 class defaults a wireless script may set, modelled as scenario
//! knobs: each changes what it should, and its default leaves runs alone.

mod common;

use common::run_toml;
use hoplab_sim::{RunOutput, TraceRow};

fn chain(nodes: u32, duration: f64, extra: &str) -> String {
    format!("duration_s = {duration}\n[topology]\nkind = \"chain\"\nnodes = {nodes}\nspacing_m = 200.0\n[output]\ntrace = true\n{extra}")
}

/// The time of the first trace row matching `f`, in ns.
fn first(out: &RunOutput, f: impl Fn(&TraceRow) -> bool) -> i64 {
    let r = out.trace.iter().find(|r| f(r)).expect("no such trace row");
    (r.time_s * 1e9).round() as i64
}

#[test]
fn the_link_delay_holds_packets_both_ways() {
    // One CBR packet a second over two hops: nothing else on the air.
    let flow = "[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 2\nrate_kbps = 4.096\nmax_packets = 3\n";
    let plain = run_toml(&chain(3, 5.0, flow), 1);
    let delayed = run_toml(&chain(3, 5.0, &format!("{flow}[link]\ndelay_us = 25.0\n")), 1);
    for out in [&plain, &delayed] {
        assert_eq!(out.flows[0].packets_received, 3);
    }
    // The packet sent at 1 s (the medium idle for long), step by step.
    let steps = |out: &RunOutput| -> Vec<i64> {
        let uid = out.trace.iter().filter(|r| r.node == 0 && r.layer == "AGT" && r.event == "send").nth(1).unwrap().uid;
        let at = |node: u32, layer: &str, event: &str, frame: &str| first(out, |r| r.uid == uid && r.node == node && r.layer == layer && r.event == event && (frame.is_empty() || r.frame == frame));
        vec![
            at(0, "RTR", "send", ""),
            at(0, "MAC", "send", "DATA"),
            at(1, "MAC", "recv", "DATA"),
            at(1, "RTR", "recv", ""),
            at(1, "MAC", "send", "DATA"),
            at(2, "MAC", "recv", "DATA"),
            at(2, "AGT", "recv", ""),
        ]
    };
    let (p, d) = (steps(&plain), steps(&delayed));
    let gaps = |v: &Vec<i64>| v.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>();
    let (gp, gd) = (gaps(&p), gaps(&d));
    // Down at the source: routing to the MAC 25 us later (an idle medium:
    // RTS at once, DATA after the exchange); up at the relay and at the
    // destination: MAC to routing 25 us later. (The relay's way down is
    // hidden: its ACK is on the air when the packet reaches the queue.)
    assert_eq!(gd[0] - gp[0], 25_000, "source: routed to MAC send {gp:?} vs {gd:?}");
    assert_eq!(gd[1], gp[1], "the air is not delayed");
    assert_eq!((gp[2], gd[2]), (0, 25_000), "relay: MAC recv to routing");
    assert!(gd[3] >= 25_000, "relay: routing to MAC send {}", gd[3]);
    assert_eq!((gp[5], gd[5]), (0, 25_000), "destination: MAC recv to the agent");
    // 0 is no delay at all: the same run.
    let zero = run_toml(&chain(3, 5.0, &format!("{flow}[link]\ndelay_us = 0.0\n")), 1);
    assert_eq!(zero.info.event_hash, plain.info.event_hash);
}

#[test]
fn the_link_delay_keeps_tcp_and_arp_working() {
    // A TCP transfer over ARP and AODV with the delay: it completes, and
    // the RTT grows by 4 delays per hop (down and up, each way).
    // One segment in flight, an ACK per segment: the RTT is the path's.
    let flow = "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 3\nbytes = 100000\n[tcp]\nmax_cwnd = 1\ndelayed_ack = false\n[routing]\nprotocol = \"aodv\"\n";
    let base = run_toml(&chain(4, 60.0, &format!("{flow}[link]\narp = \"ns2\"\n")), 3);
    let slow = run_toml(&chain(4, 60.0, &format!("{flow}[link]\narp = \"ns2\"\ndelay_us = 2000.0\n")), 3);
    assert!(base.flows[0].completed && slow.flows[0].completed);
    let (a, b) = (base.flows[0].rtt_mean_ms, slow.flows[0].rtt_mean_ms);
    // 12 delays of 2 ms per round trip (6 each way over 3 hops), less what
    // a relay no longer waits: without the delay a packet it forwards finds
    // its ACK on the air and backs off after it (~0.9 ms at each of the 4
    // relay hops per round trip); 2 ms later it finds the medium idle.
    assert!(b - a > 24.0 - 4.0 * 1.2 && b - a <= 24.0 + 0.5, "RTT {a} ms -> {b} ms");
}

#[test]
fn the_defer_timer_runs_whole_networks() {
    // compat = "ns2" (idle_backoff on) with and without bugFix_timer_ false,
    // TCP and CBR crossing on a grid with AODV: both finish and deliver,
    // and the defer changes the run.
    let sc = |extra: &str| {
        format!(
            "compat = \"ns2\"\nduration_s = 30.0\n[topology]\nkind = \"grid\"\nrows = 3\ncols = 3\nspacing_m = 200.0\n[routing]\nprotocol = \"aodv\"\n\
             [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 8\n[[flows]]\nkind = \"cbr\"\nsrc = 2\ndst = 6\nrate_kbps = 64.0\n{extra}"
        )
    };
    let backoff = run_toml(&sc(""), 4);
    let defer = run_toml(&sc("[mac]\nidle_defer = true\n"), 4);
    for out in [&backoff, &defer] {
        assert!(out.flows[0].bytes_delivered > 100_000, "{}", out.flows[0].bytes_delivered);
        assert!(out.flows[1].packets_received > 100, "{}", out.flows[1].packets_received);
    }
    assert_ne!(backoff.info.event_hash, defer.info.event_hash);
}

#[test]
fn a_fifo_interface_queue_holds_routing_packets_behind_data() {
    // A saturated CBR source at node 0 and AODV-UU (HELLOs every second):
    // with routing first, node 0's routing packets overtake its queued
    // data; in one FIFO they wait behind it (measured: 10 ms against
    // 196 ms on average). Seen in the trace: the time from "s RTR" to the
    // MAC send of each routing packet node 0 originates.
    let sc = |fifo: bool| {
        let q = if fifo { "[mac]\nqueue_routing_first = false\n" } else { "" };
        chain(4, 40.0, &format!("[routing]\nprotocol = \"aodv\"\npreset = \"aodv-uu\"\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 3\nrate_kbps = 1500.0\n{q}"))
    };
    let wait = |out: &RunOutput| -> f64 {
        let mut sent: std::collections::HashMap<i64, f64> = Default::default();
        let mut waits = Vec::new();
        for r in out.trace.iter().filter(|r| r.node == 0 && r.packet_type == "routing") {
            if r.layer == "RTR" && r.event == "send" {
                sent.insert(r.uid, r.time_s);
            } else if r.layer == "MAC" && r.event == "send" {
                if let Some(t) = sent.remove(&r.uid) {
                    waits.push(r.time_s - t);
                }
            }
        }
        assert!(waits.len() >= 5, "{} routing packets", waits.len());
        waits.iter().sum::<f64>() / waits.len() as f64
    };
    let (first, fifo) = (wait(&run_toml(&sc(false), 1)), wait(&run_toml(&sc(true), 1)));
    assert!(fifo > 5.0 * first, "mean wait of node 0's routing packets: {first} s routing first, {fifo} s FIFO");
}

#[test]
fn agent_tcp_flags_reach_the_run() {
    // 2 Mbit/s as these were measured (the profile's own rate is ns-2's 1Mb).
    let ftp = |tcp: &str| chain(3, 20.0, &format!("compat = \"ns2\"\n[mac]\ndata_rate_mbps = 2.0\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\n[flows.tcp]\n{tcp}"));
    // compat must come first: put it at the top.
    let ftp = |tcp: &str| format!("compat = \"ns2\"\n{}", ftp(tcp).replace("compat = \"ns2\"\n", ""));
    let base = run_toml(&ftp(""), 1);
    // useHeaders_ false: data segments are their payload (ns2: 1000 B), SYN and ACKs 40.
    let bare = run_toml(&ftp("header_bytes = 0\n"), 1);
    let sizes = |out: &RunOutput, ty: &str| -> std::collections::BTreeSet<i64> {
        out.trace.iter().filter(|r| r.layer == "AGT" && r.event == "send" && r.packet_type == ty).map(|r| r.size_bytes).collect()
    };
    assert_eq!(sizes(&base, "tcp"), [40, 1040].into());
    assert_eq!(sizes(&bare, "tcp"), [40, 1000].into());
    assert_eq!(sizes(&bare, "ack"), [40].into());
    assert!(bare.flows[0].bytes_delivered > base.flows[0].bytes_delivered, "fewer bytes on the air, more delivered");
    // Each of the others changes the run (ns2_rfc2988 only matters when
    // t_rtxcur_ < minrto_ under a backoff: tcp/tests/ns2_flags.rs). The
    // floor needs timeouts: two crossing flows over a 7-node chain.
    let lossy = |tcp: &str| {
        format!(
            "compat = \"ns2\"\nduration_s = 60.0\n[mac]\ndata_rate_mbps = 2.0\n[topology]\nkind = \"chain\"\nnodes = 7\nspacing_m = 200.0\n[tcp]\n{tcp}\
             [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 6\n[[flows]]\nkind = \"ftp\"\nsrc = 6\ndst = 1\n"
        )
    };
    let lossy_base = run_toml(&lossy(""), 1);
    assert!(lossy_base.flows.iter().map(|f| f.timeouts).sum::<u64>() >= 2, "no timeouts to tell the timers apart");
    for (tcp, reference) in [
        ("min_rto_s = 0.0\n", &lossy_base),
        ("limited_transmit = false\n", &base), // the profile sets it (singledup_ 1)
        ("delay_growth = false\n", &base),
    ] {
        let out = if std::ptr::eq(reference, &base) { run_toml(&ftp(tcp), 1) } else { run_toml(&lossy(tcp), 1) };
        assert!(out.flows[0].bytes_delivered > 50_000, "{tcp}");
        assert_ne!(out.info.event_hash, reference.info.event_hash, "{tcp}");
    }
}

/// `link.refill_before_failure_sends`: the RERR a link failure raises goes
/// on the air after the frame the MAC takes next from the queue (ns-2's
/// order), not before it.
#[test]
fn failure_sends_wait_for_the_next_frame() {
    let sc = |refill: bool| {
        chain(
            5,
            60.0,
            &format!(
                "[mac]\ndata_rate_mbps = 2.0\n[routing]\nprotocol = \"aodv\"\npreset = \"cmu\"\n[link]\nrefill_before_failure_sends = {refill}\n\
                 [tcp]\ndelayed_ack = false\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n"
            ),
        )
    };
    // After each CBK drop that raised a RERR: is the node's next DATA frame the RERR?
    let rerr_first = |out: &RunOutput| -> Vec<bool> {
        let rows = &out.trace;
        let mut v = vec![];
        for (i, r) in rows.iter().enumerate() {
            if !(r.event == "drop" && r.reason == "CBK") {
                continue;
            }
            let raised = rows[i..].iter().take_while(|x| x.time_s == r.time_s).any(|x| x.node == r.node && x.layer == "RTR" && x.reason == "aodv.rerr");
            if !raised {
                continue;
            }
            if let Some(next) = rows[i..].iter().find(|x| x.node == r.node && x.layer == "MAC" && x.event == "send" && x.frame == "DATA") {
                v.push(next.reason == "aodv.rerr");
            }
        }
        v
    };
    let (off, on) = (run_toml(&sc(false), 1), run_toml(&sc(true), 1));
    let (a, b) = (rerr_first(&off), rerr_first(&on));
    assert!(a.len() >= 5 && b.len() >= 5, "too few link failures with a RERR: {} / {}", a.len(), b.len());
    assert!(a.iter().all(|&x| x), "without the rule a RERR leaves first: {a:?}");
    // With it the RERR leads only when the queue held nothing else.
    assert!(b.iter().filter(|&&x| !x).count() * 4 >= b.len(), "with it, the queued frame often first: {b:?}");
    assert_ne!(off.info.event_hash, on.info.event_hash);
}

/// `mac.queue_classes` (ns-2's CMUPriQueue, DSR's queue under the ns2
/// reading): a relay's TCP ACKs go ahead of the data it queues, so they
/// wait far less there than in one drop-tail queue.
#[test]
fn cmu_priqueue_puts_acks_ahead_of_data() {
    let sc = |classes: bool| {
        chain(
            5,
            30.0,
            &format!("[mac]\ndata_rate_mbps = 2.0\nqueue_classes = {classes}\n[tcp]\ndelayed_ack = false\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n[[flows]]\nkind = \"ftp\"\nsrc = 1\ndst = 4\n"),
        )
    };
    // Mean wait at node 2 (relaying both flows) between routing handing a packet down and its MAC sending it.
    let wait = |out: &RunOutput, ty: &str| -> f64 {
        let mut down: std::collections::HashMap<i64, f64> = Default::default();
        let mut waits = Vec::new();
        for r in out.trace.iter().filter(|r| r.node == 2 && r.packet_type == ty) {
            if r.layer == "RTR" && (r.event == "send" || r.event == "fwd") {
                down.insert(r.uid, r.time_s);
            } else if r.layer == "MAC" && r.event == "send" && r.frame == "DATA" {
                if let Some(t) = down.remove(&r.uid) {
                    waits.push(r.time_s - t);
                }
            }
        }
        assert!(waits.len() >= 100, "{} {ty} packets through node 2", waits.len());
        waits.iter().sum::<f64>() / waits.len() as f64
    };
    let (fifo, classes) = (run_toml(&sc(false), 1), run_toml(&sc(true), 1));
    let (acks_fifo, acks_classes, data_classes) = (wait(&fifo, "ack"), wait(&classes, "ack"), wait(&classes, "tcp"));
    assert!(acks_classes * 3.0 < acks_fifo, "ACKs wait {acks_classes} s with classes, {acks_fifo} s in one queue");
    assert!(acks_classes * 3.0 < data_classes, "with classes ACKs wait {acks_classes} s, data {data_classes} s");
}

/// `routing.dsdv.double_ip_header` (ns-2 dsdv.cc recv): what a node
/// originates, TCP data and ACKs alike, is 20 bytes longer; what it relays
/// keeps its size.
#[test]
fn dsdv_charges_a_second_ip_header() {
    let sc = |double: bool| chain(3, 40.0, &format!("[routing]\nprotocol = \"dsdv\"\n[routing.dsdv]\ndouble_ip_header = {double}\nuse_settling = false\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 2\n"));
    let sizes = |out: &RunOutput, node: u32, event: &str, ty: &str| -> std::collections::BTreeSet<i64> {
        out.trace.iter().filter(|r| r.node == node && r.layer == "RTR" && r.event == event && r.packet_type == ty).map(|r| r.size_bytes).collect()
    };
    let (one, two) = (run_toml(&sc(false), 1), run_toml(&sc(true), 1));
    assert_eq!(sizes(&one, 0, "send", "tcp").last(), Some(&1500));
    assert_eq!(sizes(&two, 0, "send", "tcp").last(), Some(&1520));
    assert_eq!(sizes(&two, 1, "fwd", "tcp").last(), Some(&1520), "relayed as it came");
    assert_eq!(sizes(&two, 2, "send", "ack"), [60].into());
    assert!(two.flows[0].bytes_delivered < one.flows[0].bytes_delivered, "more airtime per segment");
}
