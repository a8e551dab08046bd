//! The emulation bridge (issue 25): real IPv4 packets injected at a node
//! cross the simulated chain and come out at their destination; without
//! injections a stepped world is the batch run, event for event.

use crate::bridge::{Emulation, InjectError};
use crate::scenario::Scenario;
use crate::wire::ipv4::tests::packet;
use crate::wire::ipv4::{header_checksum, Reject, PROTO_TCP, PROTO_UDP};
use crate::world::run;

fn chain(hops: u32, extra: &str) -> Scenario {
    let text = format!(
        "duration_s = 5.0\n[topology]\nkind = \"chain\"\nnodes = {}\nspacing_m = 200.0\n[mac]\ndata_rate_mbps = 2.0\nbasic_rate_mbps = 1.0\n{extra}",
        hops + 1
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("bad test scenario: {e}"))
}

const FTP: &str = "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 3\nstart_s = 0.0\n";

/// UDP packets 0 -> 3 every 20 ms from 0.1 s, 1000 bytes of payload.
fn udp_train(e: &mut Emulation, n: u64) -> Vec<Vec<u8>> {
    let mut sent = Vec::new();
    for k in 0..n {
        let mut p = packet(0, 3, PROTO_UDP, 1000, 0);
        p[4..6].copy_from_slice(&(k as u16).to_be_bytes()); // IP id: tell them apart
        let c = header_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        e.inject(0, p.clone(), 100_000_000 + k * 20_000_000).unwrap();
        sent.push(p);
    }
    sent
}

#[test]
fn stepping_without_injections_is_the_batch_run() {
    for extra in [FTP.to_string(), format!("[routing]\nprotocol = \"aodv\"\n{FTP}")] {
        let sc = chain(3, &extra);
        let batch = run(&sc, 7);
        let mut e = Emulation::new(&sc, 7, &[]);
        // Uneven steps, some shorter than an event gap, some empty.
        let mut h = 0u64;
        let mut k = 0u64;
        while h <= e.end_ns() {
            h += 137_000 + (k * 7_919_000) % 3_000_000;
            k += 1;
            e.run_until(h);
        }
        e.run_until(e.end_ns() + 1);
        assert!(batch.info.events > 10_000);
        assert_eq!(e.events(), batch.info.events);
        assert_eq!(e.event_hash(), batch.info.event_hash);
        let mut out = e.results(0.0);
        out.info.wall_s = batch.info.wall_s;
        assert_eq!(format!("{:?}", out.flows), format!("{:?}", batch.flows));
    }
}

#[test]
fn udp_crosses_a_three_hop_chain() {
    // (OLSR needs TCs over several seconds before 3-hop routes exist.)
    for routing in ["static", "aodv", "dsr"] {
        let sc = chain(3, &format!("[routing]\nprotocol = \"{routing}\"\n"));
        let mut e = Emulation::new(&sc, 1, &[0, 3]);
        let offset = 0;
        let mut sent = Vec::new();
        for k in 0..50u64 {
            let mut p = packet(0, 3, PROTO_UDP, 1000, 0);
            p[4..6].copy_from_slice(&(k as u16).to_be_bytes());
            let c = header_checksum(&p[..20]);
            p[10..12].copy_from_slice(&c.to_be_bytes());
            // 160 kbit/s: well below the chain's capacity, so no backlog.
            let at = offset + 100_000_000 + k * 50_000_000;
            e.inject(0, p.clone(), at).unwrap();
            sent.push((at, p));
        }
        e.run_until(e.end_ns() + 1);
        let got = e.drain();
        assert_eq!(got.len(), sent.len(), "{routing}: every packet delivered");
        // 1028-byte DATA at 2 Mbit/s plus its RTS/CTS/ACK: about 6.4 ms per
        // hop at the least, so three hops take more than 15 ms.
        let mut delays = Vec::new();
        for (d, (at, p)) in got.iter().zip(&sent) {
            assert_eq!(d.node, 3);
            assert_eq!(d.bytes.len(), p.len());
            assert_eq!(d.bytes[8], 62, "{routing}: the two relays each decrement the TTL");
            assert_eq!(u16::from_be_bytes([d.bytes[10], d.bytes[11]]), header_checksum(&d.bytes[..20]));
            assert_eq!(d.bytes[4..6], p[4..6], "{routing}: in order");
            assert_eq!(d.bytes[12..], p[12..]);
            delays.push(d.time_ns - at);
        }
        let min = *delays.iter().min().unwrap();
        assert!(min > 15_000_000 && min < 40_000_000, "{routing}: min delay {min} ns");
        let out = e.results(0.0);
        assert!(out.nodes[1].forwarded >= 50 && out.nodes[2].forwarded >= 50);
    }
}

#[test]
fn the_cut_into_steps_does_not_change_the_run() {
    let sc = chain(3, FTP);
    let mut one = Emulation::new(&sc, 3, &[0, 3]);
    let sent = udp_train(&mut one, 100);
    one.run_until(one.end_ns() + 1);
    // Live style: inject each packet only once the engine has reached just
    // before its stamp, stepping in 1 ms horizons.
    let mut live = Emulation::new(&sc, 3, &[0, 3]);
    let mut next = 0usize;
    let mut h = 0u64;
    while h <= live.end_ns() {
        while next < sent.len() && 100_000_000 + next as u64 * 20_000_000 < h + 1_000_000 {
            live.inject(0, sent[next].clone(), 100_000_000 + next as u64 * 20_000_000).unwrap();
            next += 1;
        }
        h += 1_000_000;
        live.run_until(h);
    }
    live.run_until(live.end_ns() + 1);
    assert_eq!(live.event_hash(), one.event_hash());
    assert_eq!(live.drain(), one.drain());
    // And the injections count: without them the hash differs.
    let batch = run(&sc, 3);
    assert_ne!(batch.info.event_hash, one.event_hash());
}

#[test]
fn real_and_simulated_flows_share_the_channel() {
    let sc = chain(3, FTP);
    let alone = run(&sc, 5);
    let mut e = Emulation::new(&sc, 5, &[0, 3]);
    // 200 packets of 1000 B in 4 s: 400 kbit/s of real UDP beside the FTP flow.
    udp_train(&mut e, 200);
    e.run_until(e.end_ns() + 1);
    let got = e.drain();
    let out = e.results(0.0);
    assert!(got.len() > 100, "most real packets delivered: {}", got.len());
    let (shared, solo) = (out.flows[0].bytes_delivered, alone.flows[0].bytes_delivered);
    assert!(shared < solo * 9 / 10, "the simulated flow gave way: {shared} vs {solo}");
}

#[test]
fn tcp_both_ways_is_one_flow_and_classified() {
    let sc = chain(2, "");
    let mut e = Emulation::new(&sc, 1, &[0, 2]);
    e.inject(0, packet(0, 2, PROTO_TCP, 1448, 0x10), 1_000_000).unwrap();
    let mut ack = packet(2, 0, PROTO_TCP, 0, 0x10);
    ack[20..22].copy_from_slice(&5002u16.to_be_bytes());
    ack[22..24].copy_from_slice(&5001u16.to_be_bytes());
    e.inject(2, ack, 2_000_000).unwrap();
    e.run_until(e.end_ns() + 1);
    assert_eq!(e.real_flows(), 1, "data and ACK of one connection");
    let got = e.drain();
    assert_eq!(got.iter().map(|d| d.node).collect::<Vec<_>>(), vec![2, 0]);
}

#[test]
fn bad_packets_and_late_stamps_are_refused() {
    let sc = chain(2, "");
    let mut e = Emulation::new(&sc, 1, &[0, 2]);
    let mut v6 = packet(0, 1, PROTO_UDP, 10, 0);
    v6[0] = 0x60;
    assert_eq!(e.inject(0, v6, 0), Err(InjectError::Packet(Reject::NotIpv4)));
    // 10.0.0.9 is node 8: not in a 3-node scenario.
    assert_eq!(e.inject(0, packet(0, 8, PROTO_UDP, 10, 0), 0), Err(InjectError::Packet(Reject::UnknownDestination)));
    assert_eq!(e.inject(5, packet(0, 1, PROTO_UDP, 10, 0), 0), Err(InjectError::NoSuchNode));
    e.run_until(1_000_000);
    assert_eq!(e.inject(0, packet(0, 1, PROTO_UDP, 10, 0), 999_999), Err(InjectError::Late));
    e.inject(0, packet(0, 1, PROTO_UDP, 10, 0), 1_000_000).unwrap();
    assert_eq!(e.inject(0, packet(0, 1, PROTO_UDP, 10, 0), 999_999), Err(InjectError::Late));
}
