//! AODV state-machine tests: table rules on their own, single nodes fed by
//! hand, and small networks on the TestNet bench.

use super::*;
use crate::net::testnet::TestNet;
use crate::net::Router;
use crate::rng::Purpose;
use crate::wire::UdpDatagram;

/// The field a scenario refuses in a resolved AODV config, if any: a
/// range of the field table, or `validate`'s rules between fields.
fn invalid(c: &AodvConfig) -> Option<String> {
    crate::scenario::protocol_error("aodv", c, AodvConfig::validate)
}

fn t(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

/// RFC defaults without jitter, so times are exact.
fn cfg() -> AodvConfig {
    AodvConfig { broadcast_jitter_s: 0.0, ..AodvConfig::default() }
}

fn node(me: NodeId, c: &AodvConfig) -> Aodv {
    Aodv::new(me, c, Stream::new(7, me, Purpose::Routing))
}

fn net(c: &AodvConfig, up: Vec<Vec<bool>>) -> TestNet {
    let routers = (0..up.len() as NodeId).map(|i| Router::Aodv(Box::new(node(i, c)))).collect();
    TestNet::new(routers, up)
}

fn aodv(n: &TestNet, i: usize) -> &Aodv {
    match &n.routers[i] {
        Router::Aodv(a) => a,
        _ => unreachable!(),
    }
}

fn msg(p: &Packet) -> Option<&AodvMsg> {
    match &p.body {
        Body::Routing(RoutingMsg::Aodv(m)) => Some(m),
        _ => None,
    }
}

fn has_note(out: &[RouteAction], n: RouteNote) -> bool {
    out.iter().any(|x| matches!(x, RouteAction::Note(m) if *m == n))
}

fn data(uid: u64, src: NodeId, dst: NodeId) -> Packet {
    Packet::new(uid, src, dst, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload: 512 }), SimTime::ZERO)
}

fn ctl(from: NodeId, ttl: u8, m: AodvMsg) -> Packet {
    let mut p = Packet::new(1, from, BROADCAST, Body::Routing(RoutingMsg::Aodv(m)), SimTime::ZERO);
    p.ttl = ttl;
    p
}

fn rreq(orig: NodeId, id: u32, dst: NodeId) -> Rreq {
    Rreq {
        gratuitous: false,
        dest_only: false,
        unknown_seqno: true,
        hop_count: 0,
        rreq_id: id,
        dst,
        dst_seqno: 0,
        orig,
        orig_seqno: 1,
        timestamp: SimTime::ZERO,
    }
}

/// Run a lone node's timers up to `until`.
fn drive(a: &mut Aodv, until: SimTime, out: &mut Vec<RouteAction>) {
    while let Some(w) = a.poll_timeout() {
        if w > until {
            break;
        }
        a.handle_timeout(w, out);
    }
}

/// A chain 0-1-2-3-4 plus node 5 linked to 3 and 4 (seed 003's node F).
fn chain_with_bypass() -> Vec<Vec<bool>> {
    let mut up = TestNet::chain_links(6);
    up[4][5] = false;
    up[5][4] = false;
    for (a, b) in [(3, 5), (5, 3), (4, 5), (5, 4)] {
        up[a][b] = true;
    }
    up
}

// ---------------------------------------------------------------- sizes

#[test]
fn message_sizes_are_byte_exact() {
    let rrep = Rrep { ack_required: false, hop_count: 0, dst: 1, dst_seqno: 1, orig: 1, lifetime_ms: 2000, timestamp: SimTime::ZERO };
    assert_eq!(AodvMsg::Rreq(rreq(0, 1, 2)).size(), 8 + 24);
    assert_eq!(AodvMsg::Rrep(rrep.clone()).size(), 8 + 20);
    assert_eq!(AodvMsg::Hello(rrep).size(), 8 + 20);
    assert_eq!(AodvMsg::Rerr(Rerr { no_delete: false, dests: vec![(1, 1)] }).size(), 8 + 12);
    assert_eq!(AodvMsg::Rerr(Rerr { no_delete: false, dests: vec![(1, 1), (2, 2), (3, 3)] }).size(), 8 + 28);
    assert_eq!(AodvMsg::RrepAck.size(), 8 + 2);
    // On the air: 20-byte IP header on top.
    assert_eq!(ctl(0, 1, AodvMsg::Rreq(rreq(0, 1, 2))).size(), 52);
    assert_eq!(AodvMsg::Rreq(rreq(0, 1, 2)).kind(), "aodv.rreq");
    assert_eq!(AodvMsg::RrepAck.kind(), "aodv.rrep_ack");
}

// ---------------------------------------------------------------- config

#[test]
fn presets_and_validation() {
    assert_eq!(AodvConfig::default(), AodvConfig::preset("rfc3561").unwrap());
    let uu = AodvConfig::preset("aodv-uu").unwrap();
    assert_eq!((uu.ttl_start, uu.ttl_increment, uu.active_route_timeout_s), (2, 2, 5.0));
    assert_eq!(uu.link_detection, LinkDetection::Hello);
    assert!(uu.hello_always && !uu.data_counts_as_hello && !uu.local_repair);
    for p in AodvConfig::PRESETS {
        assert_eq!(invalid(&AodvConfig::preset(p).unwrap()), None);
    }
    let c = AodvConfig::default();
    assert_eq!(c.net_traversal_time(), Dur::from_millis(2800));
    assert_eq!(c.path_discovery_time(), Dur::from_millis(5600));
    assert_eq!(c.delete_period(), Dur::from_millis(15000));
    assert_eq!(c.ring_traversal_time(1), Dur::from_millis(240));
    assert_eq!(c.my_route_timeout(), Dur::from_millis(6000));
    let bad = AodvConfig { hello_interval_s: 0.0, ..c.clone() };
    assert_eq!(invalid(&bad).unwrap(), "hello_interval_s");
    // RFC 3561 §10: ACTIVE_ROUTE_TIMEOUT > ALLOWED_HELLO_LOSS * HELLO_INTERVAL with HELLOs.
    let bad = AodvConfig { link_detection: LinkDetection::Hello, active_route_timeout_s: 2.0, ..c.clone() };
    assert_eq!(invalid(&bad).unwrap(), "active_route_timeout_s");
    let parsed: AodvConfig = toml::from_str("link_detection = \"both\"\nlocal_repair = true").unwrap();
    assert_eq!(parsed.link_detection, LinkDetection::Both);
    assert!(parsed.local_repair);
    assert!(toml::from_str::<AodvConfig>("no_such_field = 1").is_err());
}

// ---------------------------------------------------------------- table rules

#[test]
fn sequence_number_rules_of_6_1_and_6_2() {
    let mut tb = Table::default();
    let far = t(100.0);
    assert!(tb.offer(5, 10, 3, 1, far, false)); // new entry
    assert!(!tb.offer(5, 10, 4, 2, far, false)); // equal seqno, more hops: ignored
    assert_eq!(tb.get(5).unwrap().next_hop, 1);
    assert!(tb.offer(5, 10, 2, 2, far, false)); // equal seqno, fewer hops: wins
    assert_eq!((tb.get(5).unwrap().next_hop, tb.get(5).unwrap().hops), (2, 2));
    assert!(!tb.offer(5, 9, 1, 3, far, false)); // stale: discarded even if shorter
    assert_eq!(tb.get(5).unwrap().seqno, 10);
    assert!(tb.offer(5, 11, 6, 4, far, false)); // fresher wins even if longer
    assert_eq!((tb.get(5).unwrap().seqno, tb.get(5).unwrap().hops, tb.get(5).unwrap().next_hop), (11, 6, 4));
    // Broken link: invalid, sequence number + 1 (§6.11).
    tb.invalidate(5, far, true);
    assert_eq!((tb.get(5).unwrap().state, tb.get(5).unwrap().seqno), (State::Invalid, 12));
    assert!(tb.valid(5, t(0.0)).is_none());
    // Old news (seqno 11) cannot revive it; the destination's own reply can.
    assert!(!tb.offer(5, 11, 1, 1, far, false));
    assert!(tb.offer(5, 12, 7, 1, far, false)); // equal seqno but entry invalid
    assert_eq!(tb.get(5).unwrap().state, State::Valid);
    // Unknown sequence number (§6.2 (iii)): a neighbour route carries none,
    // so any numbered information replaces it.
    tb.neighbor(8, far);
    assert!(!tb.get(8).unwrap().valid_seqno);
    assert!(tb.offer(8, 3, 2, 9, far, false));
    assert!(tb.get(8).unwrap().valid_seqno);
    // Sequence numbers wrap (§6.1 signed comparison).
    assert!(tb.offer(20, u32::MAX, 1, 1, far, false));
    assert!(tb.offer(20, 0, 5, 2, far, false));
    assert!(fresher(0, u32::MAX) && !fresher(u32::MAX, 0));
}

// ---------------------------------------------------------------- RREQ handling

#[test]
fn a_node_rebroadcasts_a_given_rreq_once() {
    let mut a = node(1, &cfg());
    let mut out = vec![];
    a.receive(t(0.0), 0, ctl(0, 5, AodvMsg::Rreq(rreq(0, 1, 9))), &mut out);
    // The same RREQ again, by another neighbour: silently discarded.
    let mut again = rreq(0, 1, 9);
    again.hop_count = 1;
    a.receive(t(0.001), 2, ctl(2, 4, AodvMsg::Rreq(again)), &mut out);
    // A new RREQ ID is a new request.
    a.receive(t(0.002), 0, ctl(0, 5, AodvMsg::Rreq(rreq(0, 2, 9))), &mut out);
    let fwd: Vec<(u32, u8, u8)> = out
        .iter()
        .filter_map(|x| match x {
            RouteAction::Send { packet, .. } => match msg(packet) {
                Some(AodvMsg::Rreq(r)) => Some((r.rreq_id, r.hop_count, packet.ttl)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(fwd, vec![(1, 1, 4), (2, 1, 4)]);
    // A RREQ with IP TTL 1 is not rebroadcast.
    let mut out = vec![];
    a.receive(t(0.003), 0, ctl(0, 1, AodvMsg::Rreq(rreq(0, 3, 9))), &mut out);
    assert!(out.iter().all(|x| !matches!(x, RouteAction::Send { .. })));
    // After PATH_DISCOVERY_TIME (5.6 s) the cache forgets (0, 1).
    let mut out = vec![];
    a.receive(t(5.7), 0, ctl(0, 5, AodvMsg::Rreq(rreq(0, 1, 9))), &mut out);
    assert_eq!(out.iter().filter(|x| matches!(x, RouteAction::Send { .. })).count(), 1);
}

#[test]
fn flooded_rreq_is_forwarded_once_per_node_in_a_mesh() {
    // Diamond 0-1, 0-2, 1-3, 2-3, 3-4: node 3 hears the RREQ twice.
    let mut up = vec![vec![false; 5]; 5];
    for (a, b) in [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)] {
        up[a][b] = true;
        up[b][a] = true;
    }
    let c = AodvConfig { expanding_ring: false, ..cfg() };
    let mut n = net(&c, up);
    n.send_data(0, 99); // nobody answers
    n.run_until(t(1.0));
    for sender in 1..5u32 {
        let copies = n
            .sent
            .iter()
            .filter(|s| s.1 == sender && matches!(msg(&s.3), Some(AodvMsg::Rreq(r)) if r.rreq_id == 1))
            .count();
        assert_eq!(copies, 1, "node {sender}");
    }
}

// ---------------------------------------------------------------- discovery timing

#[test]
fn expanding_ring_ttls_and_backoff() {
    let mut n = net(&cfg(), vec![vec![false]]);
    n.send_data(0, 7);
    n.run_until(t(30.0));
    let rreqs: Vec<(f64, u8, u32)> = n
        .sent
        .iter()
        .filter_map(|s| match msg(&s.3) {
            Some(AodvMsg::Rreq(r)) => Some((s.0.as_secs_f64(), s.3.ttl, r.rreq_id)),
            _ => None,
        })
        .collect();
    // TTL 1,3,5,7 each waiting RING_TRAVERSAL_TIME = 2*40ms*(TTL+2), then
    // NET_DIAMETER waiting NET_TRAVERSAL_TIME (2.8 s), doubled for each of
    // the RREQ_RETRIES = 2 retries.
    let ttls: Vec<u8> = rreqs.iter().map(|r| r.1).collect();
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35, 35]);
    let times: Vec<f64> = rreqs.iter().map(|r| r.0).collect();
    let want = [0.0, 0.24, 0.64, 1.2, 1.92, 4.72, 10.32];
    for (g, w) in times.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{times:?}");
    }
    let ids: Vec<u32> = rreqs.iter().map(|r| r.2).collect();
    assert_eq!(ids, (1..=7).collect::<Vec<_>>());
    // Fails after the last wait of 4 * 2.8 s: 21.52 s; the packet goes as NRTE.
    let notes: Vec<_> = n.notes.iter().map(|x| (x.0.as_secs_f64(), x.2)).collect();
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[0], (0.0, RouteNote::DiscoveryStarted { dst: 7 }));
    assert!((notes[1].0 - 21.52).abs() < 1e-9);
    assert_eq!(notes[1].1, RouteNote::DiscoveryFailed { dst: 7 });
    assert_eq!(n.drops.len(), 1);
    assert_eq!(n.drops[0].2, DropReason::Nrte);
    assert!((n.drops[0].0.as_secs_f64() - 21.52).abs() < 1e-9);
}

#[test]
fn aodv_uu_ring_starts_at_two() {
    let c = AodvConfig { broadcast_jitter_s: 0.0, ..AodvConfig::preset("aodv-uu").unwrap() };
    let mut n = net(&c, vec![vec![false]]);
    n.send_data(0, 7);
    n.run_until(t(3.0));
    let ttls: Vec<u8> = n.sent.iter().filter(|s| matches!(msg(&s.3), Some(AodvMsg::Rreq(_)))).map(|s| s.3.ttl).collect();
    // 2, 4, 6; 8 would pass TTL_THRESHOLD = 7, so NET_DIAMETER.
    assert_eq!(ttls, vec![2, 4, 6, 35]);
}

#[test]
fn buffer_is_bounded_and_times_out() {
    let c = AodvConfig { buffer_packets: 3, buffer_timeout_s: 1.0, ..cfg() };
    let mut n = net(&c, vec![vec![false]]);
    for _ in 0..5 {
        n.send_data(0, 7);
    }
    // The two oldest are pushed out.
    let q: Vec<(u64, DropReason)> = n.drops.iter().map(|d| (d.3.uid, d.2)).collect();
    assert_eq!(q, vec![(1, DropReason::Qfull), (2, DropReason::Qfull)]);
    n.run_until(t(1.5));
    let tout: Vec<u64> = n.drops.iter().filter(|d| d.2 == DropReason::Tout).map(|d| d.3.uid).collect();
    assert_eq!(tout, vec![3, 4, 5]);
    assert_eq!(aodv(&n, 0).buffered(), 0);
}

// ---------------------------------------------------------------- discovery over a chain

#[test]
fn discovery_over_a_chain_delivers_buffered_packets_in_order() {
    let mut n = net(&cfg(), TestNet::chain_links(5));
    let uids: Vec<u64> = (0..3).map(|_| n.send_data(0, 4)).collect();
    n.run_until(t(2.0));
    assert_eq!(n.delivered_uids(4), uids);
    // TTL 1 and 3 do not reach node 4; TTL 5 at 0.24 + 0.40 s does.
    let ttls: Vec<u8> =
        n.sent.iter().filter(|s| s.1 == 0 && matches!(msg(&s.3), Some(AodvMsg::Rreq(_)))).map(|s| s.3.ttl).collect();
    assert_eq!(ttls, vec![1, 3, 5]);
    // RREQ 4 hops out (4 ms) and RREP back (4 ms), data 4 hops (4 ms).
    let first = n.delivered[0].0.as_secs_f64();
    assert!((first - 0.652).abs() < 1e-9, "{first}");
    let notes0: Vec<RouteNote> = n.notes.iter().filter(|x| x.1 == 0).map(|x| x.2).collect();
    assert_eq!(notes0, vec![RouteNote::DiscoveryStarted { dst: 4 }, RouteNote::DiscoveryDone { dst: 4 }]);
    let r = aodv(&n, 0).table.get(4).unwrap().clone();
    assert_eq!((r.hops, r.next_hop, r.state), (4, 1, State::Valid));
    assert!(aodv(&n, 0).has_route(n.now, 4));
    // Precursors along the path (§6.7): node 2 knows node 1 uses it toward 4.
    assert!(aodv(&n, 2).table.get(4).unwrap().precursors.contains(&1));
    assert!(aodv(&n, 2).table.get(0).unwrap().precursors.contains(&3));
}

// ---------------------------------------------------------------- RERR

fn with_routes(c: &AodvConfig, routes: &[(NodeId, NodeId, u8, &[NodeId])]) -> Aodv {
    let mut a = node(1, c);
    for &(dst, nh, hops, pre) in routes {
        a.table.offer(dst, 10, hops, nh, t(100.0), false);
        for &p in pre {
            a.table.add_precursor(dst, p);
        }
    }
    a
}

fn rerrs(out: &[RouteAction]) -> Vec<(NodeId, Rerr)> {
    out.iter()
        .filter_map(|x| match x {
            RouteAction::Send { next_hop, packet } => match msg(packet) {
                Some(AodvMsg::Rerr(e)) => Some((*next_hop, e.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn rerr_is_unicast_to_a_single_precursor() {
    let mut a = with_routes(&cfg(), &[(2, 2, 1, &[]), (5, 2, 3, &[0]), (6, 3, 2, &[4])]);
    let mut out = vec![];
    a.link_failed(t(1.0), 2, data(1, 0, 5), &mut out);
    let e = rerrs(&out);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 0); // unicast to the one precursor
    assert_eq!(e[0].1.dests, vec![(5, 11)]); // seqno incremented (§6.11)
    assert!(has_note(&out, RouteNote::LinkBroken { neighbor: 2, cause: LinkCause::MacFeedback }));
    assert!(has_note(&out, RouteNote::RouteErrorSent));
    assert!(out.iter().any(|x| matches!(x, RouteAction::Reclaim { next_hop: 2 })));
    assert!(out.iter().any(|x| matches!(x, RouteAction::Drop { reason: DropReason::Cbk, .. })));
    // Routes through 2 are invalid, kept for DELETE_PERIOD; the one via 3 is untouched.
    assert_eq!(a.table.get(5).unwrap().state, State::Invalid);
    assert_eq!(a.table.get(5).unwrap().lifetime, t(16.0));
    assert_eq!(a.table.get(2).unwrap().state, State::Invalid);
    assert!(a.has_route(t(1.0), 6));
}

#[test]
fn rerr_is_broadcast_to_several_precursors() {
    let mut a = with_routes(&cfg(), &[(5, 2, 3, &[0]), (6, 2, 2, &[4]), (7, 2, 2, &[])]);
    let mut out = vec![];
    a.link_failed(t(1.0), 2, data(1, 0, 5), &mut out);
    let e = rerrs(&out);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, BROADCAST);
    // Only destinations with precursors are listed.
    assert_eq!(e[0].1.dests, vec![(5, 11), (6, 11)]);
    let sent = out.iter().find_map(|x| match x {
        RouteAction::Send { packet, .. } => Some(packet.clone()),
        _ => None,
    });
    assert_eq!(sent.unwrap().ttl, 1);
}

#[test]
fn received_rerr_invalidates_and_propagates() {
    let mut a = with_routes(&cfg(), &[(5, 2, 3, &[0]), (6, 3, 2, &[4])]);
    let mut out = vec![];
    // From 2 about 5 (via 2) and 6 (via 3: not ours to drop).
    let m = Rerr { no_delete: false, dests: vec![(5, 12), (6, 12)] };
    a.receive(t(1.0), 2, ctl(2, 1, AodvMsg::Rerr(m)), &mut out);
    let r = a.table.get(5).unwrap();
    assert_eq!((r.state, r.seqno), (State::Invalid, 12)); // copied from the RERR
    assert!(a.has_route(t(1.0), 6));
    let e = rerrs(&out);
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0, e[0].1.dests.clone()), (0, vec![(5, 12)]));
    // Forwarding is not originating.
    assert!(!has_note(&out, RouteNote::RouteErrorSent));
}

#[test]
fn forwarding_without_route_drops_and_sends_rerr() {
    let mut a = with_routes(&cfg(), &[(0, 0, 1, &[])]);
    let mut out = vec![];
    a.route(t(1.0), data(1, 0, 9), &mut out);
    assert!(matches!(out[0], RouteAction::Drop { reason: DropReason::Nrte, .. }));
    let e = rerrs(&out);
    // §6.11 case (ii): one destination, toward the packet's source.
    assert_eq!((e[0].0, e[0].1.dests.clone()), (0, vec![(9, 0)]));
}

// ---------------------------------------------------------------- lifetimes

#[test]
fn route_expires_after_active_route_timeout_then_is_deleted() {
    let mut a = node(1, &cfg());
    let mut out = vec![];
    // A RREQ from 5 relayed by 0 gives a neighbour route to 0 (ACTIVE_ROUTE_TIMEOUT).
    let mut m = rreq(5, 1, 9);
    m.hop_count = 1;
    a.receive(t(0.0), 0, ctl(0, 1, AodvMsg::Rreq(m)), &mut out);
    assert_eq!(a.table.get(0).unwrap().lifetime, t(3.0));
    drive(&mut a, t(2.999), &mut out);
    assert!(a.has_route(t(2.999), 0));
    drive(&mut a, t(3.0), &mut out);
    assert!(!a.has_route(t(3.0), 0));
    assert_eq!(a.table.get(0).unwrap().state, State::Invalid);
    // Kept DELETE_PERIOD = 5 * max(3 s, 1 s) = 15 s more.
    drive(&mut a, t(17.999), &mut out);
    assert!(a.table.get(0).is_some());
    drive(&mut a, t(18.0), &mut out);
    assert!(a.table.get(0).is_none());
}

#[test]
fn using_a_route_extends_its_lifetime() {
    let mut a = node(1, &cfg());
    let mut out = vec![];
    let mut m = rreq(5, 1, 9);
    m.hop_count = 1;
    a.receive(t(0.0), 0, ctl(0, 1, AodvMsg::Rreq(m)), &mut out);
    // Data from 9 toward 0 at 2 s: the route to 0 lives to 2 + 3 s.
    a.route(t(2.0), data(1, 9, 0), &mut out);
    assert!(matches!(out.last(), Some(RouteAction::Send { next_hop: 0, .. })));
    drive(&mut a, t(4.999), &mut out);
    assert!(a.has_route(t(4.999), 0));
    drive(&mut a, t(5.0), &mut out);
    assert!(!a.has_route(t(5.0), 0));
}

// ---------------------------------------------------------------- route break and rediscovery

#[test]
fn rerr_reaches_source_which_rediscovers_around_the_break() {
    let mut n = net(&cfg(), chain_with_bypass());
    let first = n.send_data(0, 4);
    n.run_until(t(1.0));
    assert_eq!(n.delivered_uids(4), vec![first]);
    assert_eq!(aodv(&n, 3).table.get(4).unwrap().next_hop, 4);
    n.set_link(3, 4, false);
    let lost = n.send_data(0, 4);
    n.run_until(t(1.1));
    // Node 3's MAC gave up: link broken, RERR back to the source.
    assert!(n.notes.iter().any(|x| x.1 == 3
        && x.2 == RouteNote::LinkBroken { neighbor: 4, cause: LinkCause::MacFeedback }));
    assert!(n.notes.iter().any(|x| x.1 == 3 && x.2 == RouteNote::RouteErrorSent));
    assert!(n.drops.iter().any(|d| d.1 == 3 && d.2 == DropReason::Cbk && d.3.uid == lost));
    let r0 = aodv(&n, 0).table.get(4).unwrap();
    assert_eq!(r0.state, State::Invalid);
    assert_eq!(r0.seqno, 1); // destination's 0, incremented at node 3 and carried in the RERR
    // The source rediscovers with TTL = last hop count (4) + TTL_INCREMENT.
    let again = n.send_data(0, 4);
    n.run_until(t(2.0));
    assert_eq!(n.delivered_uids(4), vec![first, again]);
    let starts = n.notes.iter().filter(|x| x.1 == 0 && x.2 == RouteNote::DiscoveryStarted { dst: 4 }).count();
    assert_eq!(starts, 2);
    let last_rreq = n.sent.iter().rfind(|s| s.1 == 0 && matches!(msg(&s.3), Some(AodvMsg::Rreq(_)))).unwrap();
    assert_eq!(last_rreq.3.ttl, 6);
    assert_eq!(aodv(&n, 3).table.get(4).unwrap().next_hop, 5);
    assert_eq!(aodv(&n, 0).table.get(4).unwrap().hops, 5);
}

#[test]
fn lost_long_route_is_sought_with_hop_count_plus_increment_for_ring_traversal_time() {
    // RFC 3561 §6.4 and AODV-UU: after losing an 8-hop route the source's
    // first RREQ has TTL 8 + TTL_INCREMENT = 10 (beyond TTL_THRESHOLD = 7)
    // and waits RING_TRAVERSAL_TIME = 2 * 40 ms * (10 + 2) = 0.96 s; only
    // then does the ring jump to NET_DIAMETER and wait NET_TRAVERSAL_TIME
    // (2.8 s), doubled per retry (§6.3).
    let mut n = net(&cfg(), TestNet::chain_links(9));
    let first = n.send_data(0, 8);
    n.run_until(t(3.0));
    assert_eq!(n.delivered_uids(8), vec![first]);
    assert_eq!(aodv(&n, 0).table.get(8).unwrap().hops, 8);
    n.set_link(7, 8, false);
    n.send_data(0, 8);
    n.run_until(t(3.1));
    assert_eq!(aodv(&n, 0).table.get(8).unwrap().state, State::Invalid);
    n.send_data(0, 8);
    let t0 = n.now.as_secs_f64();
    n.run_until(t(8.0));
    let rreqs: Vec<(f64, u8)> = n
        .sent
        .iter()
        .filter(|s| s.1 == 0 && s.0.as_secs_f64() >= t0 && matches!(msg(&s.3), Some(AodvMsg::Rreq(_))))
        .map(|s| (s.0.as_secs_f64() - t0, s.3.ttl))
        .collect();
    let ttls: Vec<u8> = rreqs.iter().map(|r| r.1).collect();
    assert_eq!(ttls, vec![10, 35, 35]);
    let want = [0.0, 0.96, 0.96 + 2.8];
    for (g, w) in rreqs.iter().map(|r| r.0).zip(want) {
        assert!((g - w).abs() < 1e-9, "{rreqs:?}");
    }
}

// ---------------------------------------------------------------- HELLO

#[test]
fn hello_loss_declares_neighbour_lost_after_allowed_loss_times_interval() {
    let c = AodvConfig { broadcast_jitter_s: 0.0, ..AodvConfig::preset("aodv-uu").unwrap() };
    let mut n = net(&c, TestNet::chain_links(2));
    n.run_until(t(5.0));
    let hellos_from_1: Vec<SimTime> =
        n.sent.iter().filter(|s| s.1 == 1 && matches!(msg(&s.3), Some(AodvMsg::Hello(_)))).map(|s| s.0).collect();
    // hello_always: one per HELLO_INTERVAL, each period jittered by up to
    // +-50 ms (AODV-UU hello_send).
    assert_eq!(hellos_from_1.len(), 5);
    let periods: Vec<f64> = hellos_from_1.windows(2).map(|w| w[1].since(w[0]).as_secs_f64()).collect();
    assert!(periods.iter().all(|p| (0.95..=1.05).contains(p)), "{periods:?}");
    assert!(periods.windows(2).any(|w| w[0] != w[1]), "periods not jittered: {periods:?}");
    assert!(n.notes.is_empty());
    assert!(aodv(&n, 0).has_route(n.now, 1));
    n.set_link(0, 1, false);
    n.run_until(t(10.0));
    let last_heard = *hellos_from_1.last().unwrap() + n.hop_delay;
    let lb: Vec<_> = n.notes.iter().filter(|x| x.1 == 0).collect();
    assert_eq!(lb.len(), 1);
    assert_eq!(lb[0].2, RouteNote::LinkBroken { neighbor: 1, cause: LinkCause::HelloLoss });
    // ALLOWED_HELLO_LOSS * HELLO_INTERVAL + HELLO_DELAY = 2.05 s after the
    // last HELLO heard.
    assert_eq!(lb[0].0, last_heard + Dur::from_secs_f64(2.05));
    assert!(!aodv(&n, 0).has_route(n.now, 1));
}

#[test]
fn rfc_hellos_only_on_active_routes() {
    let c = AodvConfig { link_detection: LinkDetection::Hello, ..cfg() };
    let mut n = net(&c, TestNet::chain_links(3));
    n.run_until(t(3.0));
    let hellos = |n: &TestNet| n.sent.iter().filter(|s| matches!(msg(&s.3), Some(AodvMsg::Hello(_)))).count();
    assert_eq!(hellos(&n), 0);
    n.send_data(0, 2);
    n.run_until(t(6.0));
    // All three nodes are now on the active route 0-1-2 and say hello.
    let senders: BTreeSet<NodeId> =
        n.sent.iter().filter(|s| matches!(msg(&s.3), Some(AodvMsg::Hello(_)))).map(|s| s.1).collect();
    assert_eq!(senders, BTreeSet::from([0, 1, 2]));
}

#[test]
fn data_counts_as_hello_only_when_configured() {
    for counts in [true, false] {
        let c = AodvConfig {
            link_detection: LinkDetection::Hello,
            hello_always: true,
            data_counts_as_hello: counts,
            ..cfg()
        };
        let mut a = node(0, &c);
        let mut out = vec![];
        let h = Rrep { ack_required: false, hop_count: 0, dst: 1, dst_seqno: 1, orig: 1, lifetime_ms: 2000, timestamp: SimTime::ZERO };
        a.receive(t(0.0), 1, ctl(1, 1, AodvMsg::Hello(h)), &mut out);
        // Data heard from 1 at 1.5 s, then silence.
        a.heard(t(1.5), 1, &data(9, 1, 0), &mut out);
        out.clear();
        drive(&mut a, t(3.0), &mut out);
        let broke = out.iter().any(|x| matches!(x, RouteAction::Note(RouteNote::LinkBroken { .. })));
        // Without data counting, the break comes at 2.0 s; with it, at 3.5 s.
        assert_eq!(broke, !counts, "data_counts_as_hello = {counts}");
    }
}

// ---------------------------------------------------------------- local repair

#[test]
fn local_repair_at_the_break_node() {
    let c = AodvConfig { local_repair: true, ..cfg() };
    let mut n = net(&c, chain_with_bypass());
    let first = n.send_data(0, 4);
    n.run_until(t(1.0));
    assert_eq!(n.delivered_uids(4), vec![first]);
    n.set_link(3, 4, false);
    let hit = n.send_data(0, 4);
    n.run_until(t(2.0));
    // The packet that met the break is kept and delivered over 3-5-4.
    assert_eq!(n.delivered_uids(4), vec![first, hit]);
    let notes3: Vec<RouteNote> = n.notes.iter().filter(|x| x.1 == 3).map(|x| x.2).collect();
    assert_eq!(notes3[0], RouteNote::LinkBroken { neighbor: 4, cause: LinkCause::MacFeedback });
    assert!(notes3.contains(&RouteNote::DiscoveryStarted { dst: 4 }));
    assert!(notes3.contains(&RouteNote::DiscoveryDone { dst: 4 }));
    // Repair RREQ TTL = max(MIN_REPAIR_TTL = 1, 3 / 2) + LOCAL_ADD_TTL = 3.
    let rq = n.sent.iter().find(|s| matches!(msg(&s.3), Some(AodvMsg::Rreq(r)) if r.orig == 3)).unwrap();
    assert_eq!(rq.3.ttl, 3);
    assert_eq!(aodv(&n, 3).table.get(4).unwrap().next_hop, 5);
    // The longer route is announced with 'N' (§6.12): the source keeps its route.
    let n_rerr = n.sent.iter().filter(|s| s.1 == 3 && matches!(msg(&s.3), Some(AodvMsg::Rerr(e)) if e.no_delete)).count();
    assert_eq!(n_rerr, 1);
    assert!(aodv(&n, 0).has_route(n.now, 4));
    assert_eq!(n.notes.iter().filter(|x| x.1 == 0 && x.2 == RouteNote::DiscoveryStarted { dst: 4 }).count(), 1);
    assert!(n.drops.is_empty(), "{:?}", n.drops.iter().map(|d| (d.1, d.2)).collect::<Vec<_>>());
}

#[test]
fn failed_local_repair_sends_rerr() {
    let c = AodvConfig { local_repair: true, ..cfg() };
    let mut n = net(&c, TestNet::chain_links(5));
    n.send_data(0, 4);
    n.run_until(t(1.0));
    n.set_link(3, 4, false);
    let hit = n.send_data(0, 4);
    n.run_until(t(2.0));
    // No way around: after RING_TRAVERSAL_TIME(3) = 400 ms node 3 gives up.
    assert!(n.notes.iter().any(|x| x.1 == 3 && x.2 == RouteNote::DiscoveryFailed { dst: 4 }));
    assert!(n.notes.iter().any(|x| x.1 == 3 && x.2 == RouteNote::RouteErrorSent));
    assert!(n.drops.iter().any(|d| d.1 == 3 && d.2 == DropReason::Nrte && d.3.uid == hit));
    assert!(!aodv(&n, 0).has_route(n.now, 4));
}

#[test]
fn intermediate_node_replies_and_gratuitous_rrep_reaches_destination() {
    let c = AodvConfig { gratuitous_rrep: true, ..cfg() };
    let mut n = net(&c, TestNet::chain_links(5));
    n.send_data(0, 4);
    n.run_until(t(1.0));
    // Node 1 now knows 4 (fresh enough); node 2 asks for it.
    let before = n.sent.len();
    n.send_data(2, 4); // node 2 has a route already: no discovery
    assert_eq!(n.sent.len(), before + 1);
    // A new source beyond node 0 would get an intermediate reply: feed node 1
    // a RREQ from a stranger 7 via 0 with the 'G' flag.
    let mut a = node(1, &c);
    let mut out = vec![];
    a.table.offer(4, 3, 3, 2, t(50.0), false);
    let mut m = rreq(7, 1, 4);
    m.unknown_seqno = false;
    m.dst_seqno = 3;
    m.gratuitous = true;
    m.hop_count = 1;
    a.receive(t(1.0), 0, ctl(0, 5, AodvMsg::Rreq(m.clone())), &mut out);
    let sends: Vec<(NodeId, Rrep)> = out
        .iter()
        .filter_map(|x| match x {
            RouteAction::Send { next_hop, packet } => match msg(packet) {
                Some(AodvMsg::Rrep(r)) => Some((*next_hop, r.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(sends.len(), 2);
    assert_eq!((sends[0].0, sends[0].1.dst, sends[0].1.hop_count, sends[0].1.orig), (0, 4, 3, 7));
    // Gratuitous RREP to the destination: route to the originator, 2 hops.
    assert_eq!((sends[1].0, sends[1].1.dst, sends[1].1.hop_count, sends[1].1.orig), (2, 7, 2, 4));
    // With 'D' set only the destination may answer: rebroadcast instead.
    let mut b = node(1, &c);
    b.table.offer(4, 3, 3, 2, t(50.0), false);
    let mut out = vec![];
    m.dest_only = true;
    b.receive(t(1.0), 0, ctl(0, 5, AodvMsg::Rreq(m)), &mut out);
    assert!(out.iter().all(|x| !matches!(x, RouteAction::Send { packet, .. } if matches!(msg(packet), Some(AodvMsg::Rrep(_))))));
    assert!(out.iter().any(|x| matches!(x, RouteAction::Send { next_hop: BROADCAST, .. })));
}

#[test]
fn jitter_delays_broadcasts_by_at_most_the_configured_bound() {
    let c = AodvConfig::default(); // 10 ms jitter
    let mut n = net(&c, vec![vec![false]]);
    n.send_data(0, 7);
    n.run_until(t(0.5));
    let first = n.sent.iter().find(|s| matches!(msg(&s.3), Some(AodvMsg::Rreq(_)))).unwrap().0;
    assert!(first <= t(0.010));
}

/// §6.8: when the MAC cannot deliver our RREP to a neighbour, that
/// neighbour's RREQs are ignored for BLACKLIST_TIMEOUT (RREQ_RETRIES x
/// NET_TRAVERSAL_TIME = 5.6 s), then heard again; without the option nothing
/// is blacklisted.
#[test]
fn failed_rrep_blacklists_the_neighbour_for_blacklist_timeout() {
    let forwards = |a: &mut Aodv, at: f64, id: u32| {
        let mut out = vec![];
        a.receive(t(at), 0, ctl(0, 5, AodvMsg::Rreq(rreq(0, id, 9))), &mut out);
        out.iter().any(|x| matches!(x, RouteAction::Send { packet, .. } if matches!(msg(packet), Some(AodvMsg::Rreq(_)))))
    };
    let rrep = |dst| AodvMsg::Rrep(Rrep { ack_required: false, hop_count: 0, dst, dst_seqno: 1, orig: 0, lifetime_ms: 3000, timestamp: SimTime::ZERO });
    for on in [true, false] {
        let c = AodvConfig { blacklist: on, ..cfg() };
        assert_eq!(c.blacklist_timeout(), Dur::from_millis(5600));
        let mut a = node(1, &c);
        let mut out = vec![];
        let mut failed = ctl(1, 1, rrep(1));
        failed.dst = 0;
        a.link_failed(t(1.0), 0, failed, &mut out);
        assert_eq!(forwards(&mut a, 2.0, 1), !on, "blacklist {on}: RREQ just after the failed RREP");
        assert!(forwards(&mut a, 6.7, 2), "blacklist {on}: RREQ after BLACKLIST_TIMEOUT");
    }
}

// ---------------------------------------------------------------- ns-2 (cmu preset)

fn cmu() -> AodvConfig {
    AodvConfig::preset("cmu").unwrap()
}

/// The RREQs a batch of actions originates: (IP TTL, destination).
fn rreqs(out: &[RouteAction]) -> Vec<(u8, NodeId)> {
    out.iter()
        .filter_map(|a| match a {
            RouteAction::Send { packet, .. } => match msg(packet) {
                Some(AodvMsg::Rreq(r)) => Some((packet.ttl, r.dst)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A RREP from neighbour `from` for `dst`, `hop_count` hops behind it,
/// answering a RREQ sent at `ts`, addressed to originator `orig`.
fn rrep_from(from: NodeId, dst: NodeId, hop_count: u8, orig: NodeId, ts: SimTime) -> Packet {
    let m = Rrep { ack_required: false, hop_count, dst, dst_seqno: 10, orig, lifetime_ms: 10_000, timestamp: ts };
    let mut p = ctl(from, 1, AodvMsg::Rrep(m));
    p.dst = orig;
    p
}

fn drops_of(out: &[RouteAction], reason: DropReason) -> usize {
    out.iter().filter(|a| matches!(a, RouteAction::Drop { reason: r, .. } if *r == reason)).count()
}

#[test]
fn cmu_preset_has_ns2_constants() {
    let c = cmu();
    // aodv.h
    assert_eq!((c.ttl_start, c.ttl_increment, c.ttl_threshold, c.net_diameter), (5, 2, 7, 30));
    assert_eq!((c.node_traversal_time_s, c.active_route_timeout_s, c.rreq_retries), (0.030, 10.0, 3));
    assert_eq!((c.max_rreq_timeout_s, c.route_sweep_s), (10.0, 0.5));
    assert_eq!(c.link_detection, LinkDetection::LinkLayer);
    assert!(c.local_repair && !c.jitter_originated);
    assert_eq!(c.rerr_ratelimit, 10_000, "aodv.cc sendError: no limit");
    assert!(c.rerr_broadcast && !AodvConfig::default().rerr_broadcast);
    // A relay that has no route for a packet: one RERR, broadcast though
    // the packet's source is a known single recipient (aodv.cc rt_resolve).
    let mut a = node(2, &c);
    let mut out = vec![];
    a.receive(t(0.0), 1, rrep_from(1, 0, 0, 2, t(0.0)), &mut out);
    out.clear();
    let mut p = data(1, 0, 9);
    p.ttl = DEFAULT_TTL - 2;
    a.route(t(1.0), p, &mut out);
    assert_eq!(drops_of(&out, DropReason::Nrte), 1);
    assert!(out.iter().any(|x| matches!(x, RouteAction::Send { next_hop: BROADCAST, packet } if matches!(msg(packet), Some(AodvMsg::Rerr(_))))));
    assert_eq!((c.discovery, c.link_failure), (DiscoveryRule::Ns2, LinkFailureRule::Ns2));
    // aodv_rqueue.h
    assert_eq!((c.buffer_packets, c.buffer_timeout_s), (64, 30.0));
    // The default stays RFC 3561.
    let d = AodvConfig::default();
    assert_eq!((d.discovery, d.link_failure, d.jitter_originated), (DiscoveryRule::Rfc3561, LinkFailureRule::Rfc3561, true));
}

/// ns-2 sendRequest for a destination never reached: its last hop count is
/// INFINITY2, so the first RREQ is network-wide (TTL 30, not TTL_START);
/// the waits are 2 * 30 * NODE_TRAVERSAL_TIME times the network-wide
/// count (1.8, 3.6, 5.4, 7.2 s), retries come with the 0.5-s sweep, and the
/// fifth attempt drops the waiting packets and holds off 10 s.
#[test]
fn ns2_ttl_schedule_and_retries_for_an_unknown_destination() {
    let mut a = node(0, &cmu());
    let mut out = vec![];
    a.route(t(0.0), data(1, 0, 9), &mut out);
    assert_eq!(rreqs(&out), vec![(30, 9)], "no jitter on an originated RREQ: sent at once");
    // More packets within the wait ask nothing.
    out.clear();
    a.route(t(1.0), data(2, 0, 9), &mut out);
    assert!(rreqs(&out).is_empty());
    let mut sent = vec![];
    let mut now = t(0.0);
    while let Some(w) = a.poll_timeout() {
        if w > t(30.0) {
            break;
        }
        now = w;
        let mut o = vec![];
        a.handle_timeout(w, &mut o);
        for r in rreqs(&o) {
            sent.push((w, r.0));
        }
        if drops_of(&o, DropReason::Nrte) > 0 {
            assert_eq!(w, t(19.0), "dropped at the first sweep after 11.5 + 7.2 s");
            assert_eq!(drops_of(&o, DropReason::Nrte), 2);
            assert!(has_note(&o, RouteNote::DiscoveryFailed { dst: 9 }));
        }
    }
    assert!(now >= t(29.5));
    assert_eq!(sent, vec![(t(2.0), 30), (t(6.0), 30), (t(11.5), 30)]);
    assert_eq!(a.buffered(), 0);
    // Held off until 19 + 10 s: a packet at 28.9 asks nothing, at 29 it does.
    out.clear();
    a.route(t(28.9), data(3, 0, 9), &mut out);
    assert!(rreqs(&out).is_empty());
    out.clear();
    a.route(t(29.0), data(4, 0, 9), &mut out);
    assert_eq!(rreqs(&out), vec![(30, 9)]);
}

/// ns-2 recvReply records (reply time - the RREQ's timestamp) / hops, and
/// sendRequest waits 2 * TTL * the mean of the recorded latencies. After a
/// 4-hop route breaks, the ring restarts at 4 + 2 = 6, then 8, then 30.
#[test]
fn ns2_adaptive_timeout_from_recorded_latencies() {
    let mut a = node(0, &cmu());
    let mut out = vec![];
    a.route(t(0.0), data(1, 0, 4), &mut out);
    assert_eq!(rreqs(&out), vec![(30, 4)]);
    // The reply comes 0.2 s later over 4 hops: 0.05 s per hop.
    out.clear();
    a.receive(t(0.2), 1, rrep_from(1, 4, 3, 0, t(0.0)), &mut out);
    assert_eq!(a.table.valid(4, t(0.2)).map(|r| (r.hops, r.next_hop)), Some((4, 1)));
    assert_eq!(a.req[&4].latency, [0.05, 0.0, 0.0]);
    assert_eq!(a.req[&4].per_hop_time(0.03), 0.05);
    // The buffered packet went.
    assert!(out.iter().any(|x| matches!(x, RouteAction::Send { next_hop: 1, packet } if packet.uid == 1)));
    // The link to 1 fails under one of our own packets: the route goes down.
    out.clear();
    a.link_failed(t(1.0), 1, data(2, 0, 4), &mut out);
    assert_eq!(a.table.get(4).map(|r| (r.state, r.last_hops)), Some((State::Invalid, 4)));
    // Next packet: TTL 4 + 2 = 6, wait 2 * 6 * 0.05 = 0.6 s.
    out.clear();
    a.route(t(1.0), data(3, 0, 4), &mut out);
    assert_eq!(rreqs(&out), vec![(6, 4)]);
    assert_eq!(a.req[&4].timeout, t(1.6));
    out.clear();
    a.route(t(1.599), data(4, 0, 4), &mut out);
    assert!(rreqs(&out).is_empty());
    out.clear();
    a.route(t(1.6), data(5, 0, 4), &mut out);
    assert_eq!(rreqs(&out), vec![(8, 4)]);
    assert_eq!(a.req[&4].timeout, t(1.6 + 0.8));
    out.clear();
    a.route(t(2.4), data(6, 0, 4), &mut out);
    assert_eq!(rreqs(&out), vec![(30, 4)]);
    assert_eq!(a.req[&4].timeout, t(2.4 + 3.0));
    // A second reply, 0.1 s after the RREQ of 2.4 s: 0.025 s per hop; the
    // mean of the two is 0.0375 s.
    // (A fresher sequence number than the one the break left: 10 + 1.)
    out.clear();
    let mut fresh = rrep_from(1, 4, 3, 0, t(2.4));
    if let Body::Routing(RoutingMsg::Aodv(AodvMsg::Rrep(m))) = &mut fresh.body {
        m.dst_seqno = 12;
    }
    a.receive(t(2.5), 1, fresh, &mut out);
    assert_eq!(a.req[&4].latency, [0.05, 0.025, 0.0]);
    assert!((a.req[&4].per_hop_time(0.03) - 0.0375).abs() < 1e-12);
    assert_eq!((a.req[&4].cnt, a.req[&4].timeout, a.req[&4].last_ttl), (0, SimTime::ZERO, 4));
}

/// ns-2 rt_ll_failed at a node the packet has come no further to than
/// remains (the source here): the packet and everything queued for the
/// neighbour are dropped, the node's own packets too, every route through
/// it goes down and one RERR is broadcast, though nobody uses the route.
#[test]
fn ns2_link_failure_flushes_the_queue_and_drops_own_packets() {
    let mut a = node(0, &cmu());
    let mut out = vec![];
    a.receive(t(0.0), 1, rrep_from(1, 4, 3, 0, t(0.0)), &mut out);
    a.receive(t(0.0), 1, rrep_from(1, 5, 4, 0, t(0.0)), &mut out);
    out.clear();
    a.link_failed(t(1.0), 1, data(1, 0, 4), &mut out);
    assert_eq!(drops_of(&out, DropReason::Cbk), 1);
    assert!(out.iter().any(|x| matches!(x, RouteAction::Reclaim { next_hop: 1 })));
    let rerrs: Vec<&Rerr> = out
        .iter()
        .filter_map(|x| match x {
            RouteAction::Send { next_hop: BROADCAST, packet } => match msg(packet) {
                Some(AodvMsg::Rerr(e)) => Some(e),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(rerrs.len(), 1, "sent at once, no jitter");
    // CMU AODV learns no route to the neighbour a RREP came from (recvReply).
    assert!(a.table.get(1).is_none());
    assert_eq!(rerrs[0].dests.iter().map(|d| d.0).collect::<Vec<_>>(), vec![4, 5]);
    assert!(rreqs(&out).is_empty(), "the failed packet is not re-routed");
    for d in [4, 5] {
        assert_eq!(a.table.get(d).unwrap().state, State::Invalid);
    }
    // What the interface queue held for 1 comes back and is dropped, own or not.
    out.clear();
    a.reclaimed(t(1.0), 1, vec![data(2, 0, 4), data(3, 7, 5)], &mut out);
    assert_eq!(drops_of(&out, DropReason::Cbk), 2);
    assert_eq!(a.buffered(), 0);
    // RFC 3561 behaviour for comparison: the own packet is routed again.
    let mut r = node(0, &AodvConfig { local_repair: false, ..cfg() });
    r.receive(t(0.0), 1, rrep_from(1, 4, 3, 0, t(0.0)), &mut out);
    out.clear();
    r.link_failed(t(1.0), 1, data(1, 0, 4), &mut out);
    assert_eq!(drops_of(&out, DropReason::Cbk), 0);
    assert_eq!(r.buffered(), 1);
    // Control packets and broadcasts never break a link in ns-2.
    let mut c = node(0, &cmu());
    c.receive(t(0.0), 1, rrep_from(1, 4, 3, 0, t(0.0)), &mut out);
    out.clear();
    c.link_failed(t(1.0), 1, rrep_from(0, 4, 0, 1, t(0.0)), &mut out);
    assert_eq!(drops_of(&out, DropReason::Cbk), 1);
    assert_eq!(c.table.get(4).unwrap().state, State::Valid);
}

/// ns-2 local repair: a data packet that has come more hops than remain
/// (num_forwards > rt_hops) is buffered and its route alone repaired, with
/// no RERR and no queue flush; the RREQ is network-wide (the route never
/// went down: last hop count INFINITY2) and waits 1.8 s; the repair check
/// is armed rt_req_timeout, an absolute time, after now: at 10 + 11.8 s.
#[test]
fn ns2_local_repair_trigger_and_check() {
    let mut a = node(2, &cmu());
    let mut out = vec![];
    // Node 2 of the chain 0-1-2-3-4: route to 4 via 3 (2 hops).
    a.receive(t(0.0), 3, rrep_from(3, 4, 1, 0, t(0.0)), &mut out);
    assert_eq!(a.table.valid(4, t(0.0)).map(|r| r.hops), Some(2));
    // A packet that came 2 hops: not more than the 2 remaining: no repair.
    let mut p = data(1, 0, 4);
    p.ttl = DEFAULT_TTL - 2;
    let mut b = node(2, &cmu());
    b.receive(t(0.0), 3, rrep_from(3, 4, 1, 0, t(0.0)), &mut out);
    out.clear();
    b.link_failed(t(10.0), 3, p.clone(), &mut out);
    assert!(out.iter().any(|x| matches!(x, RouteAction::Reclaim { next_hop: 3 })));
    assert_eq!(b.table.get(4).unwrap().state, State::Invalid);
    // Came 3 hops (0 -> 1 -> 2 via a detour): 3 > 2: local repair.
    p.ttl = DEFAULT_TTL - 3;
    out.clear();
    a.link_failed(t(10.0), 3, p, &mut out);
    assert_eq!(rreqs(&out), vec![(30, 4)]);
    assert!(!out.iter().any(|x| matches!(x, RouteAction::Reclaim { .. })), "no flush");
    assert!(!out.iter().any(|x| matches!(x, RouteAction::Send { packet, .. } if matches!(msg(packet), Some(AodvMsg::Rerr(_))))));
    assert_eq!(drops_of(&out, DropReason::Cbk), 0);
    assert_eq!(a.buffered(), 1);
    assert_eq!(a.table.get(4).unwrap().state, State::Repairing);
    assert_eq!(a.req[&4].timeout, t(11.8));
    drive(&mut a, t(21.79), &mut out);
    assert_eq!(a.table.get(4).unwrap().state, State::Repairing);
    drive(&mut a, t(21.81), &mut out);
    assert_eq!(a.table.get(4).unwrap().state, State::Invalid);
}

/// ns-2 recvReply during a local repair: the route keeps its hop count, so
/// a neighbour answering with the same sequence number over a longer path
/// (its own route runs back through the repairing node) is ignored; a
/// shorter or fresher answer repairs it.
#[test]
fn ns2_repair_ignores_a_longer_equal_sequence_reply() {
    let mut a = node(2, &cmu());
    let mut out = vec![];
    a.receive(t(0.0), 3, rrep_from(3, 4, 1, 0, t(0.0)), &mut out);
    let mut p = data(1, 0, 4);
    p.ttl = DEFAULT_TTL - 3;
    a.link_failed(t(10.0), 3, p, &mut out);
    assert_eq!(a.table.get(4).map(|r| (r.state, r.hops, r.seqno)), Some((State::Repairing, 2, 10)));
    // Node 1 answers: 3 hops to 4 behind it, through us: 4 > 2.
    out.clear();
    a.receive(t(10.01), 1, rrep_from(1, 4, 3, 2, t(10.0)), &mut out);
    assert_eq!(a.table.get(4).map(|r| (r.state, r.next_hop)), Some((State::Repairing, 3)));
    assert_eq!(a.buffered(), 1);
    // Under RFC 3561's rule any equal-sequence news replaces a route not valid.
    let mut r = node(2, &AodvConfig { link_failure: LinkFailureRule::Rfc3561, ..cmu() });
    r.receive(t(0.0), 3, rrep_from(3, 4, 1, 0, t(0.0)), &mut out);
    r.table.get_mut(4).unwrap().state = State::Repairing;
    r.receive(t(10.01), 1, rrep_from(1, 4, 3, 2, t(10.0)), &mut out);
    assert_eq!(r.table.get(4).map(|r| (r.state, r.next_hop, r.hops)), Some((State::Valid, 1, 4)));
    // A 1-hop answer (shorter) repairs ours and releases the packet.
    out.clear();
    a.receive(t(10.02), 5, rrep_from(5, 4, 0, 2, t(10.0)), &mut out);
    assert_eq!(a.table.get(4).map(|r| (r.state, r.next_hop, r.hops)), Some((State::Valid, 5, 1)));
    assert!(out.iter().any(|x| matches!(x, RouteAction::Send { next_hop: 5, packet } if packet.uid == 1)));
}

/// ns-2 recvReply sends the waiting packets ARP_DELAY (10 ms) apart, the
/// first at once; a route learned from a RREQ releases them together.
#[test]
fn ns2_reply_releases_buffered_packets_10_ms_apart() {
    let mut a = node(0, &cmu());
    let mut out = vec![];
    for uid in 1..=3 {
        a.route(t(0.0), data(uid, 0, 4), &mut out);
    }
    assert_eq!(a.buffered(), 3);
    drive(&mut a, t(0.0), &mut out);
    out.clear();
    a.receive(t(0.05), 1, rrep_from(1, 4, 3, 0, t(0.0)), &mut out);
    let sends = |o: &[RouteAction]| -> Vec<u64> {
        o.iter().filter_map(|x| match x {
            RouteAction::Send { next_hop: 1, packet } if !packet.is_routing() => Some(packet.uid),
            _ => None,
        }).collect()
    };
    assert_eq!(sends(&out), vec![1]);
    let mut o = vec![];
    drive(&mut a, t(0.0599), &mut o);
    assert_eq!(sends(&o), Vec::<u64>::new());
    drive(&mut a, t(0.06), &mut o);
    assert_eq!(sends(&o), vec![2]);
    o.clear();
    drive(&mut a, t(0.07), &mut o);
    assert_eq!(sends(&o), vec![3]);
    // From a RREQ of the destination itself: all at once.
    let mut b = node(0, &cmu());
    for uid in 1..=3 {
        b.route(t(0.0), data(uid, 0, 4), &mut out);
    }
    let mut q = rreq(4, 1, 0);
    q.hop_count = 3;
    q.orig_seqno = 10;
    out.clear();
    b.receive(t(0.05), 1, ctl(1, 30, AodvMsg::Rreq(q)), &mut out);
    assert_eq!(sends(&out), vec![1, 2, 3]);
}

/// ns-2 aodv.h lifetimes: a destination grants MY_ROUTE_TIMEOUT 10 s, RREQ
/// IDs are kept BCAST_ID_SAVE 6 s, and every RREQ of an originator gives
/// its reverse route REV_ROUTE_LIFE 6 s, whether or not it changes it.
#[test]
fn ns2_lifetimes() {
    let c = cmu();
    assert_eq!((c.lifetimes, c.my_route_timeout(), c.rreq_id_hold()), (Lifetimes::Ns2, Dur::from_millis(10_000), Dur::from_millis(6000)));
    let d = AodvConfig::default();
    assert_eq!((d.lifetimes, d.my_route_timeout(), d.rreq_id_hold()), (Lifetimes::Rfc3561, Dur::from_millis(6000), Dur::from_millis(5600)));
    let mut a = node(2, &c);
    let mut out = vec![];
    let mut q = rreq(0, 1, 9);
    q.hop_count = 1;
    a.receive(t(1.0), 1, ctl(1, 29, AodvMsg::Rreq(q.clone())), &mut out);
    assert_eq!(a.table.valid(0, t(1.0)).map(|r| (r.hops, r.lifetime)), Some((2, t(7.0))));
    // The same RREQ ID again within 6 s is discarded; after 6 s it is new.
    q.rreq_id = 2;
    a.receive(t(4.0), 1, ctl(1, 29, AodvMsg::Rreq(q.clone())), &mut out);
    assert_eq!(a.table.get(0).unwrap().lifetime, t(10.0), "no change of route, lifetime extended");
    out.clear();
    a.receive(t(9.9), 1, ctl(1, 29, AodvMsg::Rreq(q.clone())), &mut out);
    assert!(out.is_empty(), "seen at 4.0, kept until 10.0");
    a.receive(t(10.0), 1, ctl(1, 29, AodvMsg::Rreq(q)), &mut out);
    assert!(!rreqs(&out).is_empty() || !a.jittered.is_empty(), "rebroadcast after BCAST_ID_SAVE");
}

/// The sequence number a destination puts in its RREPs to two RREQs for it
/// that name its current number: RFC 3561 §6.6.1 keeps it, ns-2's CMU AODV
/// (aodv.cc recvRequest: max(seqno, rq_dst_seqno) + 1) raises it on each.
fn answers(c: &AodvConfig) -> Vec<u32> {
    let mut d = node(3, c);
    let mut seqnos = vec![];
    for id in 1..=2 {
        let mut q = rreq(0, id, 3);
        q.unknown_seqno = false;
        q.dst_seqno = d.own_seqno();
        let mut out = vec![];
        d.receive(t(id as f64), 1, ctl(1, 5, AodvMsg::Rreq(q)), &mut out);
        seqnos.extend(out.iter().filter_map(|a| match a {
            RouteAction::Send { packet, .. } => match msg(packet) {
                Some(AodvMsg::Rrep(r)) => Some(r.dst_seqno),
                _ => None,
            },
            _ => None,
        }));
    }
    seqnos
}

#[test]
fn an_ns2_destination_answers_with_a_fresher_number_each_time() {
    let rfc = answers(&cfg());
    assert_eq!(rfc.len(), 2);
    assert_eq!(rfc[0], rfc[1], "RFC 3561 §6.6.1: the number asked for is kept");
    let ns2 = answers(&cmu());
    assert_eq!(ns2.len(), 2);
    assert_eq!(ns2, vec![rfc[0].wrapping_add(1), rfc[0].wrapping_add(2)], "ns-2: each answer is past the number asked for");
}

#[test]
fn an_ns2_route_that_expires_asks_for_a_fresher_number() {
    // A route learned at t = 0 expires; the next request for it asks for a number past the
    // one it had under ns-2's rt_purge (seqno++), the same one under RFC 3561.
    let asked = |c: &AodvConfig| {
        let mut a = node(0, c);
        let mut out = vec![];
        a.receive(t(0.0), 1, rrep_from(1, 2, 1, 0, t(0.0)), &mut out);
        let before = a.table.get(2).map(|r| r.seqno).unwrap();
        out.clear();
        drive(&mut a, t(11.0), &mut out); // the 10 s lifetime is over, DELETE_PERIOD not
        (before, a.table.get(2).map(|r| (r.state, r.seqno)))
    };
    let (b, after) = asked(&AodvConfig { active_route_timeout_s: 10.0, ..cfg() });
    assert_eq!(after, Some((State::Invalid, b)), "RFC 3561: expiry keeps the number");
    let (b, after) = asked(&cmu());
    assert_eq!(after, Some((State::Invalid, b.wrapping_add(1))), "ns-2 rt_purge: seqno++");
}

/// RFC 3561 §6.5: a RREQ relayed by neighbour 2 makes a one-hop route to 2,
/// even over a longer valid one; ns-2's CMU AODV (recvRequest) touches only
/// the originator's entry.
#[test]
fn a_relayed_rreq_makes_a_route_to_the_relay_unless_cmu() {
    for (c, learns) in [(cfg(), true), (cmu(), false)] {
        let mut a = with_routes(&c, &[(2, 5, 3, &[])]);
        let mut out = vec![];
        let mut relayed = rreq(7, 1, 9);
        relayed.hop_count = 2;
        a.receive(t(0.0), 2, ctl(2, 5, AodvMsg::Rreq(relayed)), &mut out);
        let r = a.table.get(2).unwrap();
        assert_eq!((r.hops, r.next_hop) == (1, 2), learns, "{:?}", c.learn_previous_hop);
        assert_eq!(a.table.get(7).unwrap().next_hop, 2, "the reverse route to the originator either way");
    }
}
