//! DSR state-machine tests: single nodes driven by hand, and small networks
//! on the TestNet bench (ideal links, 1 ms per hop, cut links fail after 7 ms).

use super::*;
use crate::net::routing::{LinkCause, Protocol, RouteAction, RouteNote, Router};
use crate::net::testnet::TestNet;
use crate::net::{DropReason, RoutingMsg};
use crate::rng::{Purpose, Stream};
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, Packet, SourceRoute, UdpDatagram, BROADCAST};

/// The field a scenario refuses in a resolved DSR config, if any: a
/// range of the field table, or `validate`'s rules between fields.
fn invalid(c: &DsrConfig) -> Option<String> {
    crate::scenario::protocol_error("dsr", c, DsrConfig::validate)
}

fn node(me: NodeId, cfg: &DsrConfig) -> Dsr {
    Dsr::new(me, cfg, Stream::new(1, me, Purpose::Routing))
}

fn net(up: Vec<Vec<bool>>, cfg: &DsrConfig) -> TestNet {
    let routers = (0..up.len()).map(|i| Router::Dsr(Box::new(node(i as NodeId, cfg)))).collect();
    TestNet::new(routers, up)
}

fn dsr(n: &mut TestNet, i: usize) -> &mut Dsr {
    match &mut n.routers[i] {
        Router::Dsr(d) => d,
        _ => unreachable!(),
    }
}

fn links(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut up = vec![vec![false; n]; n];
    for &(a, b) in pairs {
        up[a][b] = true;
        up[b][a] = true;
    }
    up
}

fn data(uid: u64, src: NodeId, dst: NodeId) -> Packet {
    Packet::new(uid, src, dst, Body::Udp(UdpDatagram { flow: 0, seqno: uid, payload: 512 }), SimTime::ZERO)
}

fn dsr_msg(p: &Packet) -> Option<&DsrMsg> {
    match &p.body {
        Body::Routing(RoutingMsg::Dsr(m)) => Some(m),
        _ => None,
    }
}

fn sends(out: &[RouteAction]) -> Vec<(NodeId, &Packet)> {
    out.iter()
        .filter_map(|a| match a {
            RouteAction::Send { next_hop, packet } => Some((*next_hop, packet)),
            _ => None,
        })
        .collect()
}

fn ms(x: u64) -> SimTime {
    SimTime(Dur::from_millis(x).0)
}

/// Control packets of a kind sent by `node` (or anyone with None).
fn sent_kind(n: &TestNet, node: Option<NodeId>, kind: &str) -> usize {
    n.sent.iter().filter(|s| node.is_none_or(|x| s.1 == x) && dsr_msg(&s.3).is_some_and(|m| m.kind() == kind)).count()
}

fn ns2_cfg() -> DsrConfig {
    DsrConfig::preset("ns2").unwrap()
}

#[test]
fn message_and_source_route_sizes_are_byte_exact() {
    // A 4-hop route: 3 intermediate addresses -> 4 + 4 + 4*3.
    let sr = SourceRoute { addrs: vec![0, 1, 2, 3, 4], at: 0, salvage: 0, ack_request: false, flow: None };
    assert_eq!(sr.wire_size(), 8 + 4 * 3);
    let rreq = DsrMsg::Request(RouteRequest { id: 1, target: 9, addrs: vec![1, 2], error: None });
    assert_eq!(rreq.size(), 4 + 8 + 4 * 2);
    assert_eq!(rreq.kind(), "dsr.rreq");
    let err = RouteError { source: 2, dest: 0, unreachable: 3, salvage: 0 };
    let rreq_e = DsrMsg::Request(RouteRequest { id: 1, target: 9, addrs: vec![], error: Some(err) });
    assert_eq!(rreq_e.size(), 4 + 8 + 16);
    // Reply listing 3 hops, returned over 2 hops (1 intermediate address).
    let back = SourceRoute { addrs: vec![3, 1, 0], at: 0, salvage: 0, ack_request: false, flow: None };
    let rrep = DsrMsg::Reply { reply: RouteReply { addrs: vec![1, 2, 3] }, route: back.clone() };
    assert_eq!(rrep.size(), 4 + (3 + 12) + (4 + 4));
    let rerr = DsrMsg::Error { error: err, route: back };
    assert_eq!(rerr.size(), 4 + 16 + 8);
    assert_eq!(DsrMsg::Ack(Ack { id: 5, ack_source: 1, ack_dest: 0 }).size(), 4 + 12);

    // A packet originated over a cached 4-hop route carries the header.
    let cfg = ns2_cfg();
    let mut d = node(0, &cfg);
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3, 4]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 4), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, 1);
    assert_eq!(s[0].1.extra_header, 20);
    assert_eq!(s[0].1.size(), 20 + 20 + 8 + 512);
}

#[test]
fn presets_and_validation() {
    assert_eq!(DsrConfig::preset("ns2").unwrap(), DsrConfig::default());
    assert_eq!(DsrConfig::default().maintenance, Maintenance::LinkLayer);
    let uu = DsrConfig::preset("dsr-uu").unwrap();
    assert_eq!(uu.maintenance, Maintenance::Passive);
    assert!(uu.promiscuous && uu.salvage && uu.snoop_routes);
    assert_eq!(uu.send_buffer_s, 30.0);
    for p in DsrConfig::PRESETS {
        assert!(invalid(&DsrConfig::preset(p).unwrap()).is_none());
    }
    let bad = DsrConfig { request_period_s: 0.0, ..DsrConfig::default() };
    assert_eq!(invalid(&bad).unwrap(), "request_period_s");
    let bad = DsrConfig { max_salvage_count: 16, ..DsrConfig::default() };
    assert_eq!(invalid(&bad).unwrap(), "max_salvage_count");
    let c: DsrConfig = toml::from_str("maintenance = \"network\"\nsend_buffer_packets = 10").unwrap();
    assert_eq!(c.maintenance, Maintenance::Network);
    assert!(toml::from_str::<DsrConfig>("bogus = 1").is_err());
}

/// A request from 0 that reached node 2 via 1, for target 5.
fn request_at_2(addrs: Vec<NodeId>) -> Packet {
    let m = DsrMsg::Request(RouteRequest { id: 7, target: 5, addrs, error: None });
    let mut p = Packet::new(99, 0, BROADCAST, Body::Routing(RoutingMsg::Dsr(m)), SimTime::ZERO);
    p.ttl = 200;
    p
}

#[test]
fn cached_reply_that_would_repeat_a_node_is_not_sent() {
    let cfg = ns2_cfg();
    let mut d = node(2, &cfg);
    // The cached route to 5 goes back through 1, which the request already visited.
    d.cache.add(SimTime::ZERO, &[2, 1, 5]);
    let mut out = vec![];
    d.receive(SimTime::ZERO, 1, request_at_2(vec![1]), &mut out);
    assert!(sends(&out).is_empty(), "no cached reply with a loop: {out:?}");
    // §8.2.3: the request propagates instead, after the broadcast jitter.
    let t = d.poll_timeout().unwrap();
    assert!(t <= ms(10));
    out.clear();
    d.handle_timeout(t, &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, BROADCAST);
    match dsr_msg(s[0].1) {
        Some(DsrMsg::Request(r)) => assert_eq!(r.addrs, vec![1, 2]),
        m => panic!("expected a request, got {m:?}"),
    }
    assert_eq!(s[0].1.ttl, 199);
}

#[test]
fn cached_reply_concatenates_routes() {
    let cfg = ns2_cfg();
    let mut d = node(2, &cfg);
    d.cache.add(SimTime::ZERO, &[2, 3, 5]);
    let mut out = vec![];
    d.receive(SimTime::ZERO, 1, request_at_2(vec![1]), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, 1, "the reply goes back the way the request came");
    assert_eq!(s[0].1.dst, 0);
    match dsr_msg(s[0].1) {
        Some(DsrMsg::Reply { reply, route }) => {
            assert_eq!(reply.addrs, vec![1, 2, 3, 5]);
            assert_eq!(route.addrs, vec![2, 1, 0]);
        }
        m => panic!("expected a reply, got {m:?}"),
    }
    assert!(d.poll_timeout().is_none(), "answered from cache: no rebroadcast");
}

#[test]
fn salvage_increments_count_and_drops_at_the_limit() {
    let cfg = ns2_cfg();
    let mut d = node(2, &cfg);
    d.cache.add(SimTime::ZERO, &[2, 4, 5]);
    let mut p = data(1, 0, 5);
    p.sr = Some(Box::new(SourceRoute { addrs: vec![0, 1, 2, 3, 5], at: 2, salvage: 3, ack_request: false, flow: None }));
    let mut out = vec![];
    d.link_failed(ms(1), 3, p.clone(), &mut out);
    let s = sends(&out);
    let salvaged = s.iter().find(|(_, q)| q.uid == 1).expect("packet salvaged");
    assert_eq!(salvaged.0, 4);
    let sr = salvaged.1.sr.as_ref().unwrap();
    assert_eq!((sr.addrs.clone(), sr.at, sr.salvage), (vec![2, 4, 5], 0, 4));
    assert_eq!(salvaged.1.extra_header, sr.wire_size());
    assert!(out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::Salvaged))));
    assert!(out.iter().any(|a| matches!(a, RouteAction::Reclaim { next_hop: 3 })));
    assert!(out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::LinkBroken { neighbor: 3, cause: LinkCause::MacFeedback }))));
    // A packet already salvaged MAX_SALVAGE_COUNT times is dropped (SAL).
    p.uid = 2;
    p.sr.as_mut().unwrap().salvage = 15;
    out.clear();
    d.reclaimed(ms(2), 3, vec![p], &mut out);
    assert!(out.iter().any(|a| matches!(a, RouteAction::Drop { reason: DropReason::Sal, packet } if packet.uid == 2)));
    assert!(sends(&out).iter().all(|(_, q)| q.uid != 2));
}

#[test]
fn nonpropagating_then_propagating_requests_back_off() {
    // RFC 4728 §8.2.1 spacing (the dsr-uu preset's).
    let cfg = DsrConfig { send_buffer_s: 1000.0, max_request_rexmt: 6, request_backoff: RequestBackoff::Rfc4728, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(2), &cfg);
    n.send_data(0, 7); // nobody is node 7
    n.run_until(SimTime::from_secs_f64(200.0));
    let reqs: Vec<(f64, u8)> = n
        .sent
        .iter()
        .filter(|s| s.1 == 0 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq"))
        .map(|s| (s.0.as_secs_f64(), s.3.ttl))
        .collect();
    let want = [(0.0, 1), (0.03, 255), (0.53, 255), (1.53, 255), (3.53, 255), (7.53, 255), (15.53, 255)];
    assert_eq!(reqs.len(), want.len(), "{reqs:?}");
    for (got, want) in reqs.iter().zip(want) {
        assert!((got.0 - want.0).abs() < 1e-9 && got.1 == want.1, "{reqs:?}");
    }
    // Node 1 rebroadcasts each propagating request but not the non-propagating one.
    assert_eq!(sent_kind(&n, Some(1), "dsr.rreq"), 6);
    let notes: Vec<_> = n.notes.iter().filter(|x| x.1 == 0).map(|x| (x.0.as_secs_f64(), x.2)).collect();
    assert_eq!(notes[0], (0.0, RouteNote::DiscoveryStarted { dst: 7 }));
    // After the 6th propagating request's 10 s wait (capped MaxRequestPeriod).
    assert_eq!(notes[1].1, RouteNote::DiscoveryFailed { dst: 7 });
    assert!((notes[1].0 - 25.53).abs() < 1e-9, "{notes:?}");
}

#[test]
fn send_buffer_times_out() {
    let cfg = ns2_cfg();
    let mut n = net(TestNet::chain_links(2), &cfg);
    n.send_data(0, 7);
    n.run_until(SimTime::from_secs_f64(40.0));
    assert_eq!(n.drops.len(), 1);
    assert_eq!(n.drops[0].2, DropReason::Tout);
    assert!((n.drops[0].0.as_secs_f64() - 30.0).abs() < 1e-9);
    assert!(n.notes.iter().any(|x| x.2 == RouteNote::DiscoveryFailed { dst: 7 }));
}

#[test]
fn discovery_over_a_chain_delivers_buffered_packets_in_order() {
    let cfg = ns2_cfg();
    let mut n = net(TestNet::chain_links(5), &cfg);
    let uids: Vec<u64> = (0..5).map(|_| n.send_data(0, 4)).collect();
    assert_eq!(dsr(&mut n, 0).buffered(), 5);
    n.run_until(SimTime::from_secs_f64(2.0));
    assert_eq!(n.delivered_uids(4), uids);
    assert!(n.drops.is_empty(), "{:?}", n.drops);
    for d in n.delivered.iter() {
        assert_eq!(d.2.extra_header, 8 + 4 * 3);
        assert_eq!(d.2.sr.as_ref().unwrap().addrs, vec![0, 1, 2, 3, 4]);
    }
    let notes: Vec<_> = n.notes.iter().filter(|x| x.1 == 0).map(|x| x.2).collect();
    assert_eq!(notes, vec![RouteNote::DiscoveryStarted { dst: 4 }, RouteNote::DiscoveryDone { dst: 4 }]);
    // The route came from the target: one reply per request copy it saw.
    assert!(sent_kind(&n, Some(4), "dsr.rrep") >= 1);
    let now = n.now;
    assert!(dsr(&mut n, 0).has_route(now, 4));
    // The destination learned the way back.
    assert!(dsr(&mut n, 4).has_route(now, 0));
}

#[test]
fn intermediate_node_replies_from_its_cache() {
    let cfg = ns2_cfg();
    let mut n = net(TestNet::chain_links(4), &cfg);
    dsr(&mut n, 1).cache.add(SimTime::ZERO, &[1, 2, 3]);
    let uid = n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(1.0));
    assert_eq!(n.delivered_uids(3), vec![uid]);
    // The non-propagating request sufficed: node 1 answered it.
    assert_eq!(sent_kind(&n, None, "dsr.rreq"), 1);
    assert_eq!(sent_kind(&n, Some(1), "dsr.rrep"), 1);
    assert_eq!(sent_kind(&n, Some(3), "dsr.rrep"), 0);
    let now = n.now;
    assert_eq!(dsr(&mut n, 0).cache.find(now, 3), Some(vec![0, 1, 2, 3]));
}

/// Discover 0 -> last over a chain with `cfg`, then send two packets back to
/// back: the second must not be lost while the first awaits its ACK.
fn two_packets_back_to_back(cfg: &DsrConfig) -> TestNet {
    let mut n = net(TestNet::chain_links(4), cfg);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(1.0));
    let a = n.send_data(0, 3);
    let b = n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(2.0));
    let got = n.delivered_uids(3);
    assert!(got.contains(&a) && got.contains(&b), "{got:?}");
    assert!(n.drops.is_empty(), "{:?}", n.drops);
    n
}

#[test]
fn network_acks_never_lose_a_packet_waiting_behind_another() {
    let n = two_packets_back_to_back(&DsrConfig { maintenance: Maintenance::Network, ..ns2_cfg() });
    // Every hop acknowledged the first packets; holdoff spares later ones.
    assert!(sent_kind(&n, Some(1), "dsr.ack") >= 1);
    assert!(sent_kind(&n, Some(3), "dsr.ack") >= 1);
    assert!(!n.notes.iter().any(|x| matches!(x.2, RouteNote::LinkBroken { .. })));
}

#[test]
fn passive_acks_suffice_until_the_last_hop() {
    let cfg = DsrConfig::preset("dsr-uu").unwrap();
    let n = two_packets_back_to_back(&cfg);
    // Nodes 1 and 2 forward (passive ACK to 0 and 1); only the destination,
    // which forwards nothing, is asked for a network-layer ACK.
    assert_eq!(sent_kind(&n, Some(1), "dsr.ack"), 0);
    assert_eq!(sent_kind(&n, Some(2), "dsr.ack"), 0);
    assert!(sent_kind(&n, Some(3), "dsr.ack") >= 1);
    // No retransmissions: each data packet left node 0 once.
    let from0 = n.sent.iter().filter(|s| s.1 == 0 && !s.3.is_routing()).count();
    assert_eq!(from0, 3);
    assert!(!n.notes.iter().any(|x| matches!(x.2, RouteNote::LinkBroken { .. })));
}

/// 0-1-2-3 with a detour 2-4-3; node 2 knows the detour.
fn detour_net(cfg: &DsrConfig) -> TestNet {
    let mut n = net(links(5, &[(0, 1), (1, 2), (2, 3), (2, 4), (4, 3)]), cfg);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(1.0));
    assert_eq!(n.delivered.len(), 1);
    let now = n.now;
    assert_eq!(dsr(&mut n, 0).cache.find(now, 3), Some(vec![0, 1, 2, 3]));
    dsr(&mut n, 2).cache.add(now, &[2, 4, 3]);
    n
}

fn cut_and_send(n: &mut TestNet) -> u64 {
    n.set_link(2, 3, false);
    let uid = n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(3.0));
    assert!(n.delivered_uids(3).contains(&uid), "salvaged packet delivered");
    let d = n.delivered.iter().find(|d| d.2.uid == uid).unwrap();
    let sr = d.2.sr.as_ref().unwrap();
    assert_eq!((sr.addrs.clone(), sr.salvage), (vec![2, 4, 3], 1));
    assert!(n.notes.iter().any(|x| x.1 == 2 && x.2 == RouteNote::Salvaged));
    assert!(n.drops.iter().all(|x| x.3.uid != uid), "{:?}", n.drops);
    uid
}

#[test]
fn cut_link_is_salvaged_onto_a_cached_detour() {
    let mut n = detour_net(&ns2_cfg());
    cut_and_send(&mut n);
    assert!(n.notes.iter().any(|x| x.1 == 2 && x.2 == RouteNote::LinkBroken { neighbor: 3, cause: LinkCause::MacFeedback }));
}

#[test]
fn route_error_reaches_the_source_and_removes_the_link() {
    let mut n = detour_net(&ns2_cfg());
    assert!(dsr(&mut n, 0).cache.has_link(2, 3));
    cut_and_send(&mut n);
    assert!(n.notes.iter().any(|x| x.1 == 2 && x.2 == RouteNote::RouteErrorSent));
    let got_error = n.sent.iter().any(|s| s.2 == 0 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rerr"));
    assert!(got_error, "the error was forwarded to node 0");
    assert!(!dsr(&mut n, 0).cache.has_link(2, 3));
    assert!(!dsr(&mut n, 1).cache.has_link(2, 3));
    // The next packet takes a route without the broken link.
    let uid = n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(5.0));
    let d = n.delivered.iter().find(|d| d.2.uid == uid).expect("delivered");
    let sr = d.2.sr.as_ref().unwrap();
    assert!(!sr.addrs.windows(2).any(|w| w == [2, 3]), "{:?}", sr.addrs);
}

#[test]
fn missing_acks_break_the_link_and_salvage_the_maintenance_buffer() {
    let cfg = DsrConfig::preset("dsr-uu").unwrap();
    let mut n = detour_net(&cfg);
    n.run_until(SimTime::from_secs_f64(1.5)); // past MaintHoldoffTime
    let uid = cut_and_send(&mut n);
    let broken: Vec<_> = n.notes.iter().filter(|x| matches!(x.2, RouteNote::LinkBroken { .. })).collect();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!((broken[0].1, broken[0].2), (2, RouteNote::LinkBroken { neighbor: 3, cause: LinkCause::NoAck }));
    // Next hop 3 is the destination: ACK requests from the start, then
    // MaxMaintRexmt (2) retransmissions 100 ms apart, then the break.
    // Each wait starts when the MAC gives up on the copy (7 ms on the bench).
    let t = broken[0].0.as_secs_f64() - 1.5;
    assert!((t - (0.002 + 3.0 * (0.007 + 0.1))).abs() < 1e-6, "{t}");
    let tries = n.sent.iter().filter(|s| s.1 == 2 && s.2 == 3 && s.3.uid == uid).count();
    assert_eq!(tries, 3);
}

#[test]
fn overhearing_a_later_hop_sends_a_gratuitous_reply_that_shortens_the_route() {
    // 0-1-2-3, and 2 also hears 0 directly.
    let mut n = net(links(4, &[(0, 1), (1, 2), (2, 3), (0, 2)]), &ns2_cfg());
    dsr(&mut n, 0).cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(0.1));
    // Node 2 overheard 0 -> 1 and told 0 it can skip node 1.
    let grat: Vec<_> = n.sent.iter().filter(|s| s.1 == 2 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rrep")).collect();
    assert_eq!(grat.len(), 1);
    assert_eq!(grat[0].2, 0);
    let now = n.now;
    assert_eq!(dsr(&mut n, 0).cache.find(now, 3), Some(vec![0, 2, 3]));
    let uid = n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(0.2));
    let d = n.delivered.iter().find(|d| d.2.uid == uid).unwrap();
    assert_eq!(d.2.sr.as_ref().unwrap().addrs, vec![0, 2, 3]);
    // GratReplyHoldoff: no second reply for the same shortcut within 1 s.
    assert_eq!(n.sent.iter().filter(|s| s.1 == 2 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rrep")).count(), 1);
}

#[test]
fn full_send_buffer_drops_the_oldest() {
    let cfg = DsrConfig { send_buffer_packets: 3, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(2), &cfg);
    let uids: Vec<u64> = (0..4).map(|_| n.send_data(0, 7)).collect();
    assert_eq!(n.drops.len(), 1);
    assert_eq!((n.drops[0].2, n.drops[0].3.uid), (DropReason::Qfull, uids[0]));
    assert_eq!(dsr(&mut n, 0).buffered(), 3);
    // One discovery for all of them.
    assert_eq!(n.notes.iter().filter(|x| matches!(x.2, RouteNote::DiscoveryStarted { .. })).count(), 1);
}

#[test]
fn route_error_rides_on_the_next_request() {
    let cfg = ns2_cfg();
    let mut d = node(0, &cfg);
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let error = RouteError { source: 2, dest: 0, unreachable: 3, salvage: 0 };
    let route = SourceRoute { addrs: vec![2, 1, 0], at: 1, salvage: 0, ack_request: false, flow: None };
    let p = Packet::new(50, 2, 0, Body::Routing(RoutingMsg::Dsr(DsrMsg::Error { error, route })), SimTime::ZERO);
    let mut out = vec![];
    d.receive(SimTime::ZERO, 1, p, &mut out);
    assert!(!d.has_route(SimTime::ZERO, 3));
    assert!(d.has_route(SimTime::ZERO, 2));
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    let req = sends(&out).into_iter().find_map(|(_, p)| match dsr_msg(p) {
        Some(DsrMsg::Request(r)) => Some(r.clone()),
        _ => None,
    });
    assert_eq!(req.unwrap().error, Some(error));
    // A neighbour that receives it forgets the link before answering.
    let mut nb = node(1, &cfg);
    nb.cache.add(SimTime::ZERO, &[1, 2, 3]);
    let m = DsrMsg::Request(RouteRequest { id: 1, target: 3, addrs: vec![], error: Some(error) });
    let mut q = Packet::new(51, 0, BROADCAST, Body::Routing(RoutingMsg::Dsr(m)), SimTime::ZERO);
    q.ttl = 1;
    out.clear();
    nb.receive(SimTime::ZERO, 0, q, &mut out);
    assert!(sends(&out).is_empty(), "no stale cached reply: {out:?}");
}

fn uu_cfg() -> DsrConfig {
    DsrConfig::preset("dsr-uu").unwrap()
}

fn secs(x: f64) -> SimTime {
    SimTime::from_secs_f64(x)
}

fn is_link_broken(out: &[RouteAction]) -> bool {
    out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::LinkBroken { .. })))
}

/// Bug: the passive-ACK timer started when the packet was handed to the
/// interface queue, so a packet waiting there longer than PassiveAckTimeout
/// (100 ms; common under TCP load) was "unacknowledged" before it was even
/// sent: retransmitted copies flooded the queue and links were declared
/// broken while up. The wait now starts when the MAC is done with the frame.
#[test]
fn ack_timer_starts_when_the_mac_sends_the_packet_not_when_it_is_queued() {
    let mut d = node(0, &uu_cfg());
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    assert_eq!(sends(&out).len(), 1);
    // Still queued 1 s later: no retransmission, no broken link.
    out.clear();
    assert!(d.poll_timeout().unwrap() > secs(1.0));
    d.handle_timeout(secs(1.0), &mut out);
    assert!(out.is_empty(), "{out:?}");
    // The MAC sends it at 1 s: the passive ACK is due 100 ms later.
    d.tx_ok(secs(1.0), 1, 1, &mut out);
    assert_eq!(d.poll_timeout(), Some(secs(1.1)));
    d.handle_timeout(secs(1.1), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1, "{out:?}");
    assert_eq!(s[0].1.uid, 1);
    assert!(msg::ack_requested(s[0].1), "the retransmission asks for a network ACK");
    // The retransmitted copy's wait also starts when it leaves.
    out.clear();
    d.handle_timeout(secs(2.0), &mut out);
    assert!(out.is_empty(), "{out:?}");
    // An ACK for it clears the entry.
    let a = Ack { id: 1, ack_source: 1, ack_dest: 0 };
    let ack = d.control(secs(2.0), 0, DsrMsg::Ack(a));
    d.tx_ok(secs(2.0), 1, 1, &mut out);
    d.receive(secs(2.01), 1, ack, &mut out);
    assert!(d.maint.is_empty());
    assert!(!is_link_broken(&out));
}

#[test]
fn an_entry_never_reported_sent_is_forgotten_without_breaking_the_link() {
    let mut d = node(0, &uu_cfg());
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    out.clear();
    let t = d.poll_timeout().unwrap();
    assert!((t.as_secs_f64() - state::UNSENT_LIMIT_S).abs() < 1e-9);
    d.handle_timeout(t, &mut out);
    assert!(out.is_empty(), "{out:?}");
    assert!(d.maint.is_empty());
    assert!(d.cache.has_link(0, 1));
}

#[test]
fn a_mac_give_up_starts_the_wait_for_that_packet() {
    let mut d = node(0, &uu_cfg());
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    d.route(SimTime::ZERO, data(2, 0, 3), &mut out);
    let second = sends(&out)[1].1.clone();
    out.clear();
    // The MAC gives up on the second packet (the first is still queued).
    d.link_failed(secs(0.5), 1, second, &mut out);
    assert!(out.is_empty(), "LL feedback is off: {out:?}");
    assert_eq!(d.poll_timeout(), Some(secs(0.6)));
    d.handle_timeout(secs(0.6), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1.uid, 2);
}

/// Bug: a copy retransmitted with an Acknowledgement Request (its passive
/// ACK went unheard) was forwarded again by the next hop, so every missed
/// passive ACK put a duplicate on every later hop. The next hop now answers
/// the request and drops the copy it already forwarded.
#[test]
fn a_retransmitted_copy_is_acknowledged_but_not_forwarded_twice() {
    let mut d = node(1, &uu_cfg());
    let mut p = data(7, 0, 3);
    p.sr = Some(Box::new(SourceRoute { addrs: vec![0, 1, 2, 3], at: 0, salvage: 0, ack_request: false, flow: None }));
    msg::set_header(&mut p, false);
    let mut out = vec![];
    d.heard(SimTime::ZERO, 0, &p, &mut out);
    d.route(SimTime::ZERO, p.clone(), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, 2);
    // The retransmission, asking for an ACK.
    msg::set_header(&mut p, true);
    assert!(msg::ack_requested(&p));
    out.clear();
    d.heard(secs(0.2), 0, &p, &mut out);
    d.route(secs(0.2), p.clone(), &mut out);
    let s = sends(&out);
    assert_eq!(s.len(), 1, "{out:?}");
    assert_eq!(s[0].0, 0);
    assert!(matches!(dsr_msg(s[0].1), Some(DsrMsg::Ack(a)) if a.id == 7 && a.ack_dest == 0));
    assert!(out.iter().any(|a| matches!(a, RouteAction::Drop { reason: DropReason::Dup, packet } if packet.uid == 7)));
    // A first copy that arrives with a request (the first one was lost) is forwarded.
    let mut q = data(8, 0, 3);
    q.sr = Some(Box::new(SourceRoute { addrs: vec![0, 1, 2, 3], at: 0, salvage: 0, ack_request: false, flow: None }));
    msg::set_header(&mut q, true);
    out.clear();
    d.route(secs(0.3), q, &mut out);
    assert!(sends(&out).iter().any(|(nh, p)| *nh == 2 && p.uid == 8));
}

/// Bug (issue 8 item 4): any MAC ACK to a neighbour started the oldest
/// waiting entry's acknowledgement timer. A frame with no entry (data sent
/// within MaintHoldoffTime, a control packet) thus started the timer of a
/// packet still queued, whose retransmission then joined it in the queue.
/// Only the MAC ACK of that packet starts its wait.
#[test]
fn only_the_packets_own_mac_ack_starts_its_wait() {
    let mut d = node(0, &uu_cfg());
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    // The MAC delivers another frame to node 1 (say a Route Error).
    d.tx_ok(secs(0.5), 1, 99, &mut out);
    out.clear();
    d.handle_timeout(secs(0.7), &mut out);
    assert!(out.is_empty(), "packet 1 is still queued: {out:?}");
    d.tx_ok(secs(1.0), 1, 1, &mut out);
    assert_eq!(d.poll_timeout(), Some(secs(1.1)));
}

/// Bug (issue 8 item 4): at a link break the maintenance buffer's copy of a
/// packet and the copy the interface queue gave back were both salvaged, so
/// each break multiplied the packet. A packet whose copy is still queued is
/// salvaged once, from the queue.
#[test]
fn a_link_break_salvages_one_copy_of_each_packet() {
    let mut d = node(0, &uu_cfg());
    d.cache.add(SimTime::ZERO, &[0, 1, 2, 3]);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    d.route(SimTime::ZERO, data(2, 0, 3), &mut out);
    let queued2 = sends(&out)[1].1.clone();
    // Packet 1 goes out and is never acknowledged; packet 2 waits.
    d.tx_ok(secs(1.0), 1, 1, &mut out);
    let mut t = secs(1.0);
    let mut copy1 = None;
    while !is_link_broken(&out) {
        out.clear();
        t = d.poll_timeout().unwrap();
        d.handle_timeout(t, &mut out);
        if let Some((_, p)) = sends(&out).into_iter().find(|(_, p)| p.uid == 1) {
            copy1 = Some(p.clone());
            // The retransmitted copy leaves; the MAC reports it sent.
            d.tx_ok(t, 1, 1, &mut vec![]);
        }
    }
    assert!(copy1.is_some());
    assert!(out.iter().any(|a| matches!(a, RouteAction::Reclaim { next_hop: 1 })));
    // The queue gives back packet 2, the only copy of it.
    d.reclaimed(t, 1, vec![queued2], &mut out);
    let mut buffered: Vec<u64> = d.send_buf.iter().map(|(_, p)| p.uid).collect();
    buffered.sort();
    assert_eq!(buffered, vec![1, 2], "one copy each: {buffered:?}");
}

/// ns-2 dsragent.cc BackOffTest: request cycles (ring-zero, then one
/// propagating request after arp_timeout) 0.5 s * 4^n apart, at most 10 s;
/// the count survives the discovery and only a Route Reply for the target
/// resets it.
#[test]
fn ns2_request_cycles_back_off_by_four_until_a_reply() {
    let cfg = DsrConfig { send_buffer_s: 1000.0, ..ns2_cfg() };
    assert_eq!(cfg.request_backoff, RequestBackoff::Ns2);
    let mut n = net(TestNet::chain_links(2), &cfg);
    n.send_data(0, 7); // nobody is node 7
    n.run_until(secs(25.0));
    let reqs: Vec<(f64, u8)> = n
        .sent
        .iter()
        .filter(|s| s.1 == 0 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq"))
        .map(|s| (s.0.as_secs_f64(), s.3.ttl))
        .collect();
    let want = [(0.0, 1), (0.03, 255), (2.0, 1), (2.03, 255), (10.0, 1), (10.03, 255), (20.0, 1), (20.03, 255)];
    assert_eq!(reqs.len(), want.len(), "{reqs:?}");
    for (got, want) in reqs.iter().zip(want) {
        assert!((got.0 - want.0).abs() < 1e-9 && got.1 == want.1, "{reqs:?}");
    }
    // A route found without a reply leaves the count: the next discovery
    // for the same target waits out the back-off.
    let mut d = node(0, &cfg);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 3), &mut out);
    d.cache.add(secs(0.1), &[0, 1, 2, 3]);
    d.flush(secs(0.1), &mut out);
    d.cache.remove_link(0, 1);
    out.clear();
    d.route(secs(0.5), data(2, 0, 3), &mut out);
    assert!(sends(&out).is_empty(), "no request before 2 s: {out:?}");
    assert_eq!(d.poll_timeout(), Some(secs(2.0)));
    // A Route Reply for the target resets it: the next cycle starts at once.
    let reply = DsrMsg::Reply { reply: RouteReply { addrs: vec![1, 2, 3] }, route: SourceRoute { addrs: vec![1, 0], at: 0, salvage: 0, ack_request: false, flow: None } };
    let p = Packet::new(60, 1, 0, Body::Routing(RoutingMsg::Dsr(reply)), secs(1.0));
    d.receive(secs(1.0), 1, p, &mut out);
    d.cache.remove_link(0, 1);
    out.clear();
    d.route(secs(1.1), data(3, 0, 3), &mut out);
    assert!(sends(&out).iter().any(|(nh, p)| *nh == BROADCAST && p.ttl == 1), "{out:?}");
}

fn flow_of(p: &Packet) -> Option<crate::wire::dsr::FlowTag> {
    p.sr.as_ref().and_then(|sr| sr.flow)
}

/// Data packets node `from` sent, in order.
fn data_sent(n: &TestNet, from: NodeId) -> Vec<&(SimTime, NodeId, NodeId, Packet)> {
    n.sent.iter().filter(|s| s.1 == from && !s.3.is_routing()).collect()
}

#[test]
fn flow_state_sends_the_route_on_three_packets_then_none() {
    // ns-2 dsragent.cc sendOutPacketWithRoute: count 1..=3 carry the route
    // (END_TO_END_COUNT 2), later packets of the default flow nothing.
    let cfg = DsrConfig { flow_state: true, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(5), &cfg);
    for k in 0..6 {
        n.send_data(0, 4);
        n.run_until(ms(100 + 100 * k));
    }
    assert_eq!(n.delivered_uids(4).len(), 6);
    let sent = data_sent(&n, 0);
    assert_eq!(sent.len(), 6);
    for (k, s) in sent.iter().enumerate() {
        let f = flow_of(&s.3).expect("on a flow");
        assert_eq!(f.id, 1, "the first flow id is odd: a default flow");
        assert_eq!(f.establish, k < 3, "packet {k}");
        // Route of 5 nodes: 4 + 4 per hop, + Flow Timeout 4 + Flow Id 4 (hdr_sr.h size()).
        assert_eq!(s.3.extra_header, if k < 3 { 4 * 5 + 8 } else { 0 }, "packet {k}");
    }
    // Forwarders send the route-less packets on, from their flow tables.
    let fwd = data_sent(&n, 2);
    assert_eq!(fwd.len(), 6);
    assert!(fwd[5].3.sr.as_ref().is_some_and(|sr| sr.next_hop() == Some(3)));
    // Re-advertised after MIN_ADV_INTERVAL (5 s).
    n.now = SimTime::from_secs_f64(6.0);
    n.send_data(0, 4);
    n.run_until(SimTime::from_secs_f64(6.1));
    assert!(flow_of(&data_sent(&n, 0)[6].3).unwrap().establish);
}

#[test]
fn a_route_error_ends_the_flow_and_the_next_route_is_a_new_flow() {
    let cfg = DsrConfig { flow_state: true, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(4), &cfg);
    for k in 0..4 {
        n.send_data(0, 3);
        n.run_until(ms(100 + 100 * k));
    }
    assert!(!flow_of(&data_sent(&n, 0)[3].3).unwrap().establish);
    // The link 2-3 breaks under a route-less packet: node 2 rebuilds its
    // route from its flow table (xmitFlowFailed) and tells node 0.
    n.set_link(2, 3, false);
    n.send_data(0, 3);
    n.run_until(ms(600));
    assert!(sent_kind(&n, Some(2), "dsr.rerr") >= 1);
    n.set_link(2, 3, true);
    n.now = SimTime::from_secs_f64(5.0);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(6.0));
    let last = data_sent(&n, 0).last().copied().unwrap();
    let f = flow_of(&last.3).unwrap();
    assert_eq!((f.id, f.establish), (3, true), "a new default flow, established");
    assert_eq!(n.delivered_uids(3).len(), 5);
}

#[test]
fn a_route_reply_releases_buffered_packets_one_per_arp_timeout() {
    // ns-2 acceptRouteReply: `delay += arp_timeout` per packet sent.
    let cfg = DsrConfig { send_buffer_check_s: 0.03, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(3), &cfg);
    for _ in 0..3 {
        n.send_data(0, 2);
    }
    // One non-propagating request at once (ns-2 getRouteForPacket); the
    // propagating one waits for a scan more than 30 ms later.
    let reqs: Vec<u8> = n.sent.iter().filter(|s| s.1 == 0 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq")).map(|s| s.3.ttl).collect();
    assert_eq!(reqs, vec![1]);
    n.run_until(SimTime::from_secs_f64(0.5));
    let reqs: Vec<(SimTime, u8)> = n.sent.iter().filter(|s| s.1 == 0 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq")).map(|s| (s.0, s.3.ttl)).collect();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[1].1 > 1 && reqs[1].0 > ms(30) && reqs[1].0 <= ms(120), "{reqs:?}");
    let sent: Vec<SimTime> = data_sent(&n, 0).iter().map(|s| s.0).collect();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[1].0 - sent[0].0, Dur::from_millis(30).0);
    assert_eq!(sent[2].0 - sent[1].0, Dur::from_millis(30).0);
    assert_eq!(n.delivered_uids(2).len(), 3);
}

#[test]
fn with_the_scan_a_route_learned_otherwise_waits_for_the_next_scan() {
    // ns-2: only acceptRouteReply and sendBufferCheck take packets out of
    // the send buffer; a route overheard meanwhile is used at the next scan.
    let cfg = DsrConfig { send_buffer_check_s: 0.03, ..ns2_cfg() };
    let mut d = node(0, &cfg);
    let mut out = vec![];
    d.route(SimTime::ZERO, data(1, 0, 2), &mut out);
    assert_eq!(d.buffered(), 1);
    // Overhear 1 forwarding a packet of 2's along 2-1-0... to 5: learn 0-1-2.
    let mut p = data(9, 2, 5);
    p.sr = Some(Box::new(SourceRoute { addrs: vec![2, 1, 5], at: 1, salvage: 0, ack_request: false, flow: None }));
    let mut out = vec![];
    d.overhear(ms(1), 1, 5, &p, &mut out);
    assert!(d.cache().find(ms(1), 2).is_some());
    assert!(sends(&out).is_empty());
    assert_eq!(d.buffered(), 1);
    let t = d.poll_timeout().unwrap();
    assert!(t >= ms(30) && t <= ms(60));
    let mut out = vec![];
    d.handle_timeout(t, &mut out);
    assert_eq!(d.buffered(), 0);
    assert_eq!(sends(&out).iter().filter(|s| !s.1.is_routing()).count(), 1);
}

#[test]
fn a_forwarder_salvages_by_a_non_propagating_request() {
    // ns-2 NEW_SALVAGE_LOGIC: no cached route, so node 2 buffers the packet
    // and asks its neighbours (TTL 1); node 3 answers, the packet goes on.
    let cfg = DsrConfig::preset("cmu").unwrap();
    let mut n = net(TestNet::chain_links(4), &cfg);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(1.0));
    assert_eq!(n.delivered_uids(3).len(), 1);
    n.set_link(2, 3, false);
    let t0 = n.now;
    n.send_data(0, 3);
    // Node 2 forwards at t0 + 2 ms; its MAC gives up 7 ms later. The link
    // was fine (a false failure): up again before that.
    n.run_until(t0 + Dur::from_micros(2500));
    n.set_link(2, 3, true);
    n.run_until(t0 + Dur::from_millis(500));
    assert_eq!(n.delivered_uids(3).len(), 2, "salvaged, not dropped");
    let reqs: Vec<u8> = n.sent.iter().filter(|s| s.3.src == 2 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq")).map(|s| s.3.ttl).collect();
    assert_eq!(reqs, vec![1], "one non-propagating request only");
    assert!(n.drops.iter().all(|d| d.1 != 2));
}

#[test]
fn a_salvaged_packet_is_dropped_when_its_request_cycle_failed() {
    // dsr_salvage_max_requests 1: the next BackOffTest (2 s later) drops it.
    let cfg = DsrConfig::preset("cmu").unwrap();
    let mut n = net(TestNet::chain_links(4), &cfg);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs_f64(1.0));
    n.set_link(2, 3, false);
    let t0 = n.now;
    n.send_data(0, 3);
    n.run_until(t0 + Dur::from_millis(1900));
    assert!(n.drops.iter().all(|d| d.1 != 2));
    n.run_until(t0 + Dur::from_millis(2200));
    assert!(n.drops.iter().any(|d| d.1 == 2 && d.2 == DropReason::Nrte));
    let reqs = n.sent.iter().filter(|s| s.3.src == 2 && dsr_msg(&s.3).is_some_and(|m| m.kind() == "dsr.rreq")).count();
    assert_eq!(reqs, 1);
}

#[test]
fn ns2_learning_caches_only_the_route_ahead() {
    // routecache.cc pre_noticeRouteUsed: a forwarder caches the route from
    // itself on; the way back is learned only by the node answering a request.
    for reverse in [true, false] {
        let cfg = DsrConfig { reverse_learning: reverse, ..ns2_cfg() };
        let mut d = node(1, &cfg);
        let mut p = data(1, 0, 3);
        p.sr = Some(Box::new(SourceRoute { addrs: vec![0, 1, 2, 3], at: 0, salvage: 0, ack_request: false, flow: None }));
        let mut out = vec![];
        d.route(SimTime::ZERO, p, &mut out);
        assert_eq!(d.cache().find(SimTime::ZERO, 3), Some(vec![1, 2, 3]));
        assert_eq!(d.cache().find(SimTime::ZERO, 0).is_some(), reverse);
        // A request from 5 via 4, passed on: the way back to 5 only with `reverse`.
        let r = RouteRequest { id: 1, target: 9, addrs: vec![4], error: None };
        let mut q = Packet::new(50, 5, BROADCAST, Body::Routing(RoutingMsg::Dsr(DsrMsg::Request(r))), SimTime::ZERO);
        q.ttl = 10;
        let mut out = vec![];
        d.receive(SimTime::ZERO, 4, q, &mut out);
        assert_eq!(d.cache().find(SimTime::ZERO, 5).is_some(), reverse);
    }
}

#[test]
fn with_an_error_hold_every_request_carries_the_error_until_a_propagating_one() {
    // ns-2 sendOutRtReq: the non-propagating request carries it and keeps
    // it; the propagating one 30+ ms later carries it and uses it up.
    let cfg = DsrConfig { error_hold_s: 1.0, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(3), &cfg);
    n.send_data(0, 2);
    n.run_until(ms(200));
    let error = RouteError { source: 1, dest: 0, unreachable: 2, salvage: 0 };
    let route = SourceRoute { addrs: vec![1, 0], at: 0, salvage: 0, ack_request: false, flow: None };
    let p = Packet::new(500, 1, 0, Body::Routing(RoutingMsg::Dsr(DsrMsg::Error { error, route })), n.now);
    let mut out = vec![];
    dsr(&mut n, 0).receive(ms(200), 1, p, &mut out);
    n.set_link(1, 2, false);
    n.send_data(0, 2);
    n.run_until(SimTime::from_secs_f64(3.0));
    let reqs: Vec<(u8, bool)> = n.sent.iter().filter(|s| s.1 == 0).filter_map(|s| match dsr_msg(&s.3) {
        Some(DsrMsg::Request(r)) if s.0 >= ms(200) => Some((s.3.ttl, r.error.is_some())),
        _ => None,
    }).collect();
    assert_eq!(&reqs[..2], &[(1, true), (255, true)]);
    assert!(reqs[2..].iter().all(|r| !r.1), "{reqs:?}");
}

#[test]
fn cmu_data_headers_match_ns2_sizes() {
    // ns-2 6-hop chain trace: TCP data 1556 B while the flow is being
    // established (1500 + IP_HDR_LEN 20 + route 28 + Flow Timeout 4 + Flow
    // Id 4), then 1520 B. Here a 3-node route: 20 + 12 + 8, then 20.
    let cfg = DsrConfig::preset("cmu").unwrap();
    let mut n = net(TestNet::chain_links(3), &cfg);
    for k in 0..4 {
        n.send_data(0, 2);
        n.run_until(ms(300 + 300 * k));
    }
    let sizes: Vec<u32> = data_sent(&n, 0).iter().map(|s| s.3.extra_header).collect();
    assert_eq!(sizes, vec![40, 40, 40, 20]);
    assert_eq!(n.delivered_uids(2).len(), 4);
}

#[test]
fn a_forwarder_that_does_not_know_the_flow_salvages_and_tells_the_source() {
    // dsragent.cc sendUnknownFlow / processUnknownFlowError.
    let cfg = DsrConfig { flow_state: true, ..ns2_cfg() };
    let mut n = net(TestNet::chain_links(4), &cfg);
    for k in 0..4 {
        n.send_data(0, 3);
        n.run_until(ms(100 + 100 * k));
    }
    assert!(!flow_of(&data_sent(&n, 0)[3].3).unwrap().establish);
    dsr(&mut n, 2).flows.clear();
    dsr(&mut n, 2).default_flow.clear();
    n.send_data(0, 3);
    n.run_until(ms(600));
    assert_eq!(n.delivered_uids(3).len(), 5, "salvaged on node 2's cached route");
    assert_eq!(sent_kind(&n, Some(2), "dsr.ferr"), 1);
    // The source sends the route again on its next three packets.
    for k in 0..4 {
        n.send_data(0, 3);
        n.run_until(ms(700 + 100 * k));
    }
    let est: Vec<bool> = data_sent(&n, 0)[5..].iter().map(|s| flow_of(&s.3).unwrap().establish).collect();
    assert_eq!(est, vec![true, true, true, false]);
    assert_eq!(n.delivered_uids(3).len(), 9);
}

#[test]
fn with_the_ns2_tap_a_source_learns_nothing_from_its_own_packets_overheard() {
    // ns-2 dsragent.cc tap: "don't trouble me with my own packets". Node 0
    // overhears node 1 forward (say, salvage) 0's packet on 0-1-2-3: with
    // `snoop_own_packets` it learns the route to 3, without it nothing; a
    // packet of another source teaches it either way.
    for own in [true, false] {
        let cfg = DsrConfig { snoop_own_packets: own, ..ns2_cfg() };
        let mut d = node(0, &cfg);
        let mut p = data(1, 0, 3);
        p.sr = Some(Box::new(SourceRoute { addrs: vec![0, 1, 2, 3], at: 1, salvage: 1, ack_request: false, flow: None }));
        let mut out = vec![];
        d.overhear(ms(1), 1, 2, &p, &mut out);
        assert_eq!(d.cache().find(ms(1), 3).is_some(), own);
        let mut q = data(2, 4, 3);
        q.sr = Some(Box::new(SourceRoute { addrs: vec![4, 1, 2, 3], at: 1, salvage: 0, ack_request: false, flow: None }));
        d.overhear(ms(2), 1, 2, &q, &mut out);
        assert_eq!(d.cache().find(ms(2), 3), Some(vec![0, 1, 2, 3]));
    }
}

#[test]
fn with_originator_jitter_own_requests_and_target_replies_wait_up_to_the_jitter() {
    // ns-2 dsragent.cc sendOutPacketWithRoute jitters every route request by
    // U(0, RREQ_JITTER); returnSrcRouteToRequestor the target's reply.
    for jitter in [false, true] {
        let cfg = DsrConfig { jitter_originated: jitter, ..ns2_cfg() };
        let mut n = net(TestNet::chain_links(2), &cfg);
        n.send_data(0, 1);
        n.run_until(ms(100));
        let at = |kind: &str, who: NodeId| n.sent.iter().find(|s| s.1 == who && dsr_msg(&s.3).is_some_and(|m| m.kind() == kind)).map(|s| s.0).unwrap();
        let (req, rep) = (at("dsr.rreq", 0), at("dsr.rrep", 1));
        if jitter {
            assert!(req > SimTime::ZERO && req <= ms(10), "{req:?}");
            // The reply leaves 0-10 ms after the request reached node 1 (1 ms a hop).
            let wait = rep.as_secs_f64() - req.as_secs_f64() - 0.001;
            assert!(wait > 0.0 && wait <= 0.010 + 1e-9, "{wait}");
        } else {
            assert_eq!(req, SimTime::ZERO);
            assert_eq!(rep, ms(1));
        }
        assert_eq!(n.delivered_uids(1).len(), 1);
    }
    let cmu = DsrConfig::preset("cmu").unwrap();
    assert!(cmu.jitter_originated && !cmu.snoop_own_packets);
    assert!(ns2_cfg().snoop_own_packets && !ns2_cfg().jitter_originated);
}
