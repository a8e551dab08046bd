//! OLSR tests: pure pieces (sizes, Vtime, MPR selection, route calculation,
//! hysteresis), one node fed hand-made messages (hold times, duplicates,
//! link-layer feedback), and TestNet runs (convergence, repair, immediate TC).

use super::config::{OlsrConfig, WILL_ALWAYS, WILL_DEFAULT, WILL_NEVER};
use super::link::{Hyst, Link};
use super::mpr::select_mprs;
use super::msg::*;
use super::table::{compute_routes, Route};
use super::Olsr;
use crate::net::routing::{LinkCause, Protocol, RouteAction, RouteNote, Router};
use crate::net::testnet::TestNet;
use crate::net::{DropReason, RoutingMsg};
use crate::rng::{Purpose, Stream};
use crate::time::{Dur, SimTime};
use crate::wire::{self, NodeId, Packet, UdpDatagram, BROADCAST};
use std::collections::{BTreeMap, BTreeSet};

fn secs(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

fn plain() -> OlsrConfig {
    OlsrConfig { hysteresis: false, ..OlsrConfig::default() }
}

fn node(me: NodeId, cfg: &OlsrConfig) -> Olsr {
    Olsr::new(me, cfg, Stream::new(7, me, Purpose::Routing))
}

fn wrap(from: NodeId, seq: u16, msg: Message) -> Packet {
    let uid = ((from as u64) << 40) | seq as u64;
    let p = OlsrPacket { seq, msg };
    Packet::new(uid, from, BROADCAST, wire::Body::Routing(RoutingMsg::Olsr(p)), SimTime::ZERO)
}

/// A HELLO from `from` with Vtime 6 s and Htime 2 s.
fn hello(from: NodeId, msn: u16, groups: &[(LinkType, NeighType, &[NodeId])]) -> Packet {
    let links = groups.iter().map(|(l, n, a)| LinkGroup { link: *l, neigh: *n, addrs: a.to_vec() }).collect();
    let h = Hello { htime: encode_time(2.0), willingness: WILL_DEFAULT, links };
    wrap(from, msn, Message { vtime: encode_time(6.0), originator: from, ttl: 1, hop_count: 0, msn, body: Body::Hello(h) })
}

/// A TC originated by `orig`, Vtime 15 s.
fn tc(via: NodeId, orig: NodeId, msn: u16, ansn: u16, adv: &[NodeId]) -> Packet {
    let t = Tc { ansn, advertised: adv.to_vec() };
    wrap(via, msn, Message { vtime: encode_time(15.0), originator: orig, ttl: 255, hop_count: 1, msn, body: Body::Tc(t) })
}

/// Run `o`'s timers up to `until`, collecting its actions.
fn advance(o: &mut Olsr, until: SimTime, out: &mut Vec<RouteAction>) {
    while let Some(d) = o.poll_timeout() {
        if d > until {
            break;
        }
        o.handle_timeout(d, out);
    }
}

fn sent_tcs(out: &[RouteAction], orig: NodeId) -> Vec<Message> {
    out.iter()
        .filter_map(|a| match a {
            RouteAction::Send { packet, .. } => match &packet.body {
                wire::Body::Routing(RoutingMsg::Olsr(p)) if matches!(p.msg.body, Body::Tc(_)) && p.msg.originator == orig => {
                    Some(p.msg.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

use LinkType as L;
use NeighType as N;

/// The field a scenario refuses in a resolved OLSR config, if any: a
/// range of the field table, or `validate`'s rules between fields.
fn invalid(c: &OlsrConfig) -> Option<String> {
    crate::scenario::protocol_error("olsr", c, OlsrConfig::validate)
}

// ---------------------------------------------------------------- messages

#[test]
fn message_sizes_are_byte_exact() {
    let h = Hello {
        htime: 0,
        willingness: 3,
        links: vec![
            LinkGroup { link: L::Sym, neigh: N::Mpr, addrs: vec![1, 2] },
            LinkGroup { link: L::Asym, neigh: N::Not, addrs: vec![3] },
        ],
    };
    let m = |body| OlsrPacket { seq: 1, msg: Message { vtime: 0, originator: 0, ttl: 1, hop_count: 0, msn: 1, body } };
    // UDP 8 + packet header 4 + message header 12 + HELLO header 4
    // + groups (4 + 2*4) + (4 + 1*4).
    let hp = m(Body::Hello(h));
    assert_eq!(hp.size(), 8 + 4 + 12 + 4 + 12 + 8);
    assert_eq!(hp.kind(), "olsr.hello");
    assert_eq!(m(Body::Hello(Hello { htime: 0, willingness: 3, links: vec![] })).size(), 28);
    // TC: header 4 + 4 per advertised neighbour.
    let tp = m(Body::Tc(Tc { ansn: 1, advertised: vec![4, 5, 6] }));
    assert_eq!(tp.size(), 8 + 4 + 12 + 4 + 12);
    assert_eq!(tp.kind(), "olsr.tc");
    assert_eq!(RoutingMsg::Olsr(tp).size(), 40);
}

#[test]
fn built_hello_groups_links_by_code() {
    let mut o = node(0, &plain());
    let mut out = vec![];
    o.receive(secs(0.1), 1, hello(1, 1, &[(L::Asym, N::Not, &[0])]), &mut out);
    o.receive(secs(0.1), 2, hello(2, 1, &[]), &mut out);
    let h = o.build_hello(secs(0.2));
    // 1 heard us: symmetric; 2 did not: asymmetric. No MPR needed (no two-hop).
    assert_eq!(h.links.len(), 2);
    assert!(h.links.iter().any(|g| g.link == L::Sym && g.neigh == N::Sym && g.addrs == vec![1]));
    assert!(h.links.iter().any(|g| g.link == L::Asym && g.neigh == N::Not && g.addrs == vec![2]));
}

#[test]
fn vtime_encoding_matches_rfc_examples() {
    // §18.3: 2 s, 6 s, 15 s, 30 s -> (a, b) = (0,5), (8,6), (14,7), (14,8).
    assert_eq!(encode_time(2.0), 5);
    assert_eq!(encode_time(6.0), 8 * 16 + 6);
    assert_eq!(encode_time(15.0), 14 * 16 + 7);
    assert_eq!(encode_time(30.0), 14 * 16 + 8);
    for s in [0.0625, 1.0, 2.0, 5.0, 6.0, 15.0, 30.0] {
        assert_eq!(decode_time(encode_time(s)), Dur::from_secs_f64(s), "{s}");
    }
    // Values between steps round up.
    assert!(decode_time(encode_time(2.1)) >= Dur::from_secs_f64(2.1));
    assert!(seq_greater(1, 0) && seq_greater(0, 65535) && !seq_greater(0, 1) && !seq_greater(5, 5));
}

#[test]
fn presets_validate_and_toml_overrides() {
    for p in OlsrConfig::PRESETS {
        assert_eq!(invalid(&OlsrConfig::preset(p).unwrap()), None);
    }
    let d = OlsrConfig::default();
    // The default is ns-2's UM-OLSR (= olsrd as seed 000 ran it): no hysteresis.
    assert_eq!(OlsrConfig::preset("um-olsr").unwrap(), d);
    assert_eq!(OlsrConfig::preset("olsrd").unwrap(), d);
    assert!(!d.hysteresis && !d.link_layer_feedback && !d.immediate_tc);
    assert_eq!(OlsrConfig::preset("rfc3626").unwrap(), OlsrConfig { hysteresis: true, ..d.clone() });
    // §18.3 relations hold in the defaults.
    assert_eq!(d.neighb_hold_time_s, 3.0 * d.refresh_interval_s);
    assert_eq!(d.top_hold_time_s, 3.0 * d.tc_interval_s);
    assert_eq!(d.max_jitter_s, d.hello_interval_s / 4.0);
    let o = OlsrConfig::preset("oolsr").unwrap();
    assert_eq!((o.hello_interval_s, o.tc_interval_s, o.max_jitter_s, o.hysteresis), (1.0, 5.0, 0.25, false));
    let c: OlsrConfig = toml::from_str("tc_interval_s = 3.0\nimmediate_tc = true").unwrap();
    assert_eq!((c.tc_interval_s, c.immediate_tc, c.hello_interval_s), (3.0, true, 2.0));
    assert!(toml::from_str::<OlsrConfig>("tc_intervall_s = 3.0").is_err());
    let bad = |c: OlsrConfig| invalid(&c).unwrap();
    assert_eq!(bad(OlsrConfig { hello_interval_s: 0.0, ..d.clone() }), "hello_interval_s");
    assert_eq!(bad(OlsrConfig { willingness: 8, ..d.clone() }), "willingness");
    assert_eq!(bad(OlsrConfig { max_jitter_s: 2.0, ..d.clone() }), "max_jitter_s");
    assert_eq!(bad(OlsrConfig { mpr_coverage: 0, ..d.clone() }), "mpr_coverage");
    assert_eq!(bad(OlsrConfig { hyst_threshold_low: 0.9, ..d.clone() }), "hyst_threshold_low");
}

// ---------------------------------------------------------------- MPR selection

fn will(ns: &[(NodeId, u8)]) -> BTreeMap<NodeId, u8> {
    ns.iter().copied().collect()
}

/// How many MPRs cover each strict two-hop neighbour.
fn coverage(mprs: &BTreeSet<NodeId>, two_hop: &[(NodeId, NodeId)], z: NodeId) -> usize {
    two_hop.iter().filter(|(y, t)| *t == z && mprs.contains(y)).count()
}

#[test]
fn mprs_cover_every_strict_two_hop_neighbour() {
    let n = will(&[(1, 3), (2, 3), (3, 3), (4, 3)]);
    // 1 lists us (0) and neighbour 2: neither is a strict two-hop neighbour.
    let th = [(1, 0), (1, 2), (1, 5), (1, 6), (2, 6), (2, 7), (3, 7), (3, 8), (4, 8)];
    let m = select_mprs(0, &n, th, 1);
    for z in [5, 6, 7, 8] {
        assert!(coverage(&m, &th, z) >= 1, "{z} uncovered by {m:?}");
    }
    // 1 is the only path to 5 (step 3); then 3 reaches both 7 and 8 (step 4).
    assert_eq!(m, BTreeSet::from([1, 3]));
}

#[test]
fn only_path_neighbour_is_chosen_even_with_low_degree() {
    let n = will(&[(1, 3), (2, 3)]);
    let th = [(1, 3), (1, 4), (1, 5), (2, 3), (2, 6)];
    let m = select_mprs(0, &n, th, 1);
    assert!(m.contains(&2), "2 is the only way to 6: {m:?}");
    assert!(m.contains(&1));
}

#[test]
fn mpr_coverage_two_selects_two_covering_mprs() {
    let n = will(&[(1, 3), (2, 3), (3, 3)]);
    let th = [(1, 4), (1, 5), (2, 4), (2, 5), (3, 4), (3, 5), (3, 9)];
    let m1 = select_mprs(0, &n, th, 1);
    assert_eq!(m1, BTreeSet::from([3]), "3 covers all with the highest degree");
    let m2 = select_mprs(0, &n, th, 2);
    assert_eq!(m2.len(), 2);
    for z in [4, 5] {
        assert_eq!(coverage(&m2, &th, z), 2, "{z} in {m2:?}");
    }
    // 9 has one provider only: covered once, "where possible".
    assert_eq!(coverage(&m2, &th, 9), 1);
}

#[test]
fn willingness_never_excluded_always_included_high_preferred() {
    // 1 is unwilling though it covers most; 6 is reachable only through it
    // and so is not a two-hop neighbour to cover. 7 is WILL_ALWAYS with no
    // two-hop neighbours at all.
    let n = will(&[(1, WILL_NEVER), (2, 3), (3, 3), (7, WILL_ALWAYS)]);
    let th = [(1, 4), (1, 5), (1, 6), (2, 4), (3, 5)];
    let m = select_mprs(0, &n, th, 1);
    assert_eq!(m, BTreeSet::from([2, 3, 7]));
    // Higher willingness beats higher reachability and degree (§8.3.1 4.2).
    let n = will(&[(1, 3), (2, 6), (3, 3)]);
    let th = [(1, 4), (1, 5), (1, 6), (2, 4), (3, 5), (3, 6)];
    assert_eq!(select_mprs(0, &n, th, 1), BTreeSet::from([1, 2]));
    let n = will(&[(1, 3), (2, 6)]);
    let th = [(1, 4), (1, 5), (2, 4), (2, 5)];
    assert_eq!(select_mprs(0, &n, th, 1), BTreeSet::from([2]));
}

// ---------------------------------------------------------------- routing table

#[test]
fn routing_table_hop_counts_and_next_hops() {
    // 0-1, 0-2, 1-3, 3-4, 4-5, 2-6, 6-5.
    let nb = BTreeSet::from([1, 2]);
    let th = [(1, 3), (2, 6), (1, 0)];
    let topo = [(3, 1), (3, 4), (4, 3), (4, 5), (6, 2), (6, 5)];
    let r = compute_routes(0, &nb, th, topo);
    assert_eq!(r.get(1), Some(Route { next_hop: 1, hops: 1 }));
    assert_eq!(r.get(3), Some(Route { next_hop: 1, hops: 2 }));
    assert_eq!(r.get(6), Some(Route { next_hop: 2, hops: 2 }));
    assert_eq!(r.get(4), Some(Route { next_hop: 1, hops: 3 }));
    assert_eq!(r.get(5), Some(Route { next_hop: 2, hops: 3 }), "via 6, not via 4");
    assert!(!r.contains(0));
    assert!(!r.contains(1000), "an address never seen");
}

/// Node 0 with symmetric neighbours 1 and 2 (1 lists 3, 2 lists 6 as
/// symmetric neighbours), fed at `t`.
fn feed_neighbours(o: &mut Olsr, t: SimTime, msn: u16, out: &mut Vec<RouteAction>) {
    o.receive(t, 1, hello(1, msn, &[(L::Sym, N::Sym, &[0, 3])]), out);
    o.receive(t, 2, hello(2, msn, &[(L::Sym, N::Sym, &[0, 6])]), out);
}

#[test]
fn routes_through_the_topology_set_and_expire_after_top_hold_time() {
    let mut o = node(0, &plain());
    let mut out = vec![];
    feed_neighbours(&mut o, secs(0.1), 1, &mut out);
    // TCs flooded to us: 3 advertises 4, 4 advertises 5, 6 advertises 5.
    o.receive(secs(0.2), 1, tc(1, 3, 10, 1, &[1, 4]), &mut out);
    o.receive(secs(0.2), 1, tc(1, 4, 11, 1, &[3, 5]), &mut out);
    o.receive(secs(0.2), 2, tc(2, 6, 12, 1, &[2, 5]), &mut out);
    assert_eq!(o.route_to(1), Some((1, 1)));
    assert_eq!(o.route_to(3), Some((1, 2)));
    assert_eq!(o.route_to(6), Some((2, 2)));
    assert_eq!(o.route_to(4), Some((1, 3)));
    assert_eq!(o.route_to(5), Some((2, 3)));
    assert!(o.has_route(secs(0.2), 5));
    // An out-of-order TC (older ANSN) from 6 changes nothing; a newer one
    // without 5 replaces the old tuples (§9.5 steps 2-3).
    o.receive(secs(0.3), 2, tc(2, 6, 13, 0, &[]), &mut out);
    assert_eq!(o.route_to(5), Some((2, 3)));
    o.receive(secs(0.3), 2, tc(2, 6, 14, 2, &[2]), &mut out);
    assert_eq!(o.route_to(5), Some((1, 4)), "now only via 3 and 4");
    // Keep the neighbours alive but send no more TCs: topology tuples die
    // TOP_HOLD_TIME (15 s) after their last TC.
    let mut t = 0.1;
    while t + 2.0 < 15.19 {
        t += 2.0;
        advance(&mut o, secs(t), &mut out);
        feed_neighbours(&mut o, secs(t), (t * 10.0) as u16, &mut out);
    }
    advance(&mut o, secs(15.19), &mut out);
    assert_eq!(o.route_to(4), Some((1, 3)), "tuple (3,4) from t=0.2 valid until 15.2");
    advance(&mut o, secs(15.21), &mut out);
    assert_eq!(o.route_to(4), None);
    assert_eq!(o.route_to(3), Some((1, 2)), "two-hop routes stay");
    assert_eq!(o.topology_links().collect::<Vec<_>>(), vec![(6, 2)], "from t=0.3");
    advance(&mut o, secs(15.31), &mut out);
    assert_eq!(o.topology_links().count(), 0);
}

// ---------------------------------------------------------------- hold times, duplicates

#[test]
fn neighbour_lost_after_neighb_hold_time_without_hello() {
    let mut o = node(0, &plain());
    let mut out = vec![];
    o.receive(secs(1.0), 1, hello(1, 1, &[(L::Sym, N::Sym, &[0])]), &mut out);
    assert!(o.symmetric_neighbors().contains(&1));
    assert_eq!(o.route_to(1), Some((1, 1)));
    advance(&mut o, secs(6.99), &mut out);
    assert!(o.symmetric_neighbors().contains(&1), "valid for Vtime = 6 s");
    assert!(!out.iter().any(|a| matches!(a, RouteAction::Note(_))));
    advance(&mut o, secs(7.0), &mut out);
    assert!(!o.symmetric_neighbors().contains(&1));
    assert_eq!(o.route_to(1), None);
    let notes: Vec<_> = out.iter().filter_map(|a| if let RouteAction::Note(n) = a { Some(*n) } else { None }).collect();
    assert_eq!(notes, vec![RouteNote::LinkBroken { neighbor: 1, cause: LinkCause::HelloLoss }]);
    // Data now has no route and is not buffered.
    let mut out = vec![];
    let p = Packet::new(1, 0, 1, wire::Body::Udp(UdpDatagram { flow: 0, seqno: 1, payload: 512 }), secs(7.0));
    o.route(secs(7.0), p, &mut out);
    assert!(matches!(out[..], [RouteAction::Drop { reason: DropReason::Nrte, .. }]));
}

#[test]
fn lost_link_in_hello_breaks_symmetry_at_once() {
    let mut o = node(0, &plain());
    let mut out = vec![];
    o.receive(secs(1.0), 1, hello(1, 1, &[(L::Sym, N::Sym, &[0])]), &mut out);
    assert!(o.symmetric_neighbors().contains(&1));
    o.receive(secs(2.0), 1, hello(1, 2, &[(L::Lost, N::Not, &[0])]), &mut out);
    assert!(!o.symmetric_neighbors().contains(&1));
    assert!(out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::LinkBroken { neighbor: 1, .. }))));
}

#[test]
fn duplicate_set_prevents_reforwarding() {
    let mut o = node(1, &plain());
    let mut out = vec![];
    // 0 selects us as MPR; 2 is a plain symmetric neighbour.
    o.receive(secs(0.1), 0, hello(0, 1, &[(L::Sym, N::Mpr, &[1])]), &mut out);
    o.receive(secs(0.1), 2, hello(2, 1, &[(L::Sym, N::Sym, &[1])]), &mut out);
    assert_eq!(o.mpr_selectors().collect::<Vec<_>>(), vec![0]);
    // A TC from 9 arrives through our selector 0, then again through 2 and 0.
    o.receive(secs(0.2), 0, tc(0, 9, 100, 1, &[8]), &mut out);
    o.receive(secs(0.21), 2, tc(2, 9, 100, 1, &[8]), &mut out);
    o.receive(secs(0.22), 0, tc(0, 9, 100, 1, &[8]), &mut out);
    advance(&mut o, secs(1.0), &mut out);
    let fwd = sent_tcs(&out, 9);
    assert_eq!(fwd.len(), 1, "forwarded once");
    assert_eq!((fwd[0].ttl, fwd[0].hop_count, fwd[0].msn), (254, 2, 100));
    // A TC through a non-selector is processed but not relayed.
    o.receive(secs(1.1), 2, tc(2, 9, 101, 2, &[8]), &mut out);
    // A new message from 9 through the selector is relayed.
    o.receive(secs(1.2), 0, tc(0, 9, 102, 3, &[8]), &mut out);
    advance(&mut o, secs(2.0), &mut out);
    let msns: Vec<u16> = sent_tcs(&out, 9).iter().map(|m| m.msn).collect();
    assert_eq!(msns, vec![100, 102]);
    // A TC with TTL 1 is processed but goes no further.
    let mut last = tc(0, 9, 103, 4, &[8]);
    if let wire::Body::Routing(RoutingMsg::Olsr(p)) = &mut last.body {
        p.msg.ttl = 1;
    }
    o.receive(secs(2.1), 0, last, &mut out);
    advance(&mut o, secs(3.0), &mut out);
    assert_eq!(sent_tcs(&out, 9).len(), 2);
}

#[test]
fn hysteresis_quality_update() {
    let hyst = Hyst { on: true, high: 0.8, low: 0.3, scaling: 0.5 };
    let hold = Dur::from_secs_f64(6.0);
    let t0 = secs(1.0);
    let mut l = Link::new(t0, hold, &hyst, Dur::from_secs_f64(2.0));
    l.sym_time = t0 + hold;
    assert!(l.pending);
    // Stability rule: q = 0.5 q + 0.5 -> 0.5, 0.75, 0.875.
    l.packet_received(t0, &hyst, hold);
    assert_eq!(l.quality, 0.5);
    l.packet_received(t0, &hyst, hold);
    assert_eq!(l.quality, 0.75);
    assert!(l.pending && !l.is_sym(t0), "0.75 is not above HYST_THRESHOLD_HIGH");
    assert_eq!(l.advertised_type(t0), None, "pending links are not advertised");
    l.packet_received(t0, &hyst, hold);
    assert_eq!(l.quality, 0.875);
    assert!(!l.pending && l.is_sym(t0));
    // Instability rule: 0.4375 (between thresholds: unchanged), 0.21875 (< low).
    let t1 = secs(2.0);
    l.packet_lost(t1, &hyst, hold);
    assert!(!l.pending && l.is_sym(t1));
    l.packet_lost(t1, &hyst, hold);
    assert_eq!(l.quality, 0.21875);
    assert!(l.pending && !l.is_sym(t1));
    assert_eq!(l.lost_time, l.time.min(t1 + hold));
    assert_eq!(l.advertised_type(t1), Some(LinkType::Lost));
    // A sequence gap of two counts two losses.
    let mut l = Link::new(t0, hold, &hyst, Dur::from_secs_f64(2.0));
    l.quality = 1.0;
    l.check_seq(t0, 10, &hyst, hold);
    l.check_seq(t0, 13, &hyst, hold);
    assert_eq!(l.quality, 0.25);
}

#[test]
fn hysteresis_needs_three_hellos_and_silence_drops_the_link() {
    let mut o = node(0, &OlsrConfig::preset("rfc3626").unwrap());
    let mut out = vec![];
    for (i, t) in [1.0, 3.0, 5.0].into_iter().enumerate() {
        assert!(!o.symmetric_neighbors().contains(&1), "before HELLO {i}");
        o.receive(secs(t), 1, hello(1, i as u16 + 1, &[(L::Sym, N::Sym, &[0])]), &mut out);
    }
    assert!(o.symmetric_neighbors().contains(&1));
    // Silence: the first loss counts Htime + 1/4 after the last packet
    // (7.5 s: 0.4375), the next one Htime later (9.5 s: 0.22 < 0.3), so the
    // link goes before the 6 s Vtime would end it at 11 s.
    advance(&mut o, secs(9.49), &mut out);
    assert!(o.symmetric_neighbors().contains(&1));
    advance(&mut o, secs(9.5), &mut out);
    assert!(!o.symmetric_neighbors().contains(&1));
}

#[test]
fn one_missed_hello_is_one_loss_not_two() {
    // A neighbour that sends only HELLOs (a 1-hop chain's sink) misses one:
    // the silence rule counts it, and the gap the next HELLO shows must not
    // count it again (§14.3: the instability rule once per lost packet).
    let mut o = node(0, &OlsrConfig::preset("rfc3626").unwrap());
    let mut out = vec![];
    let hello_at = |o: &mut Olsr, out: &mut Vec<RouteAction>, t: f64, seq: u16| {
        advance(o, secs(t), out);
        o.receive(secs(t), 1, hello(1, seq, &[(L::Sym, N::Sym, &[0])]), out);
    };
    for (i, t) in [1.0, 3.0, 5.0, 7.0, 9.0].into_iter().enumerate() {
        hello_at(&mut o, &mut out, t, i as u16 + 1);
    }
    let q = o.links[&1].quality;
    assert!(q > 0.95, "{q}");
    // HELLO 6 (at 11 s) is lost; silence counts it at 11.5 s (0.5 q) and
    // HELLO 7 arrives at 13 s: quality 0.5 q, then the stability rule.
    hello_at(&mut o, &mut out, 13.0, 7);
    let l = &o.links[&1];
    assert!((l.quality - (0.5 * 0.5 * q + 0.5)).abs() < 1e-12, "quality {}", l.quality);
    assert!(o.symmetric_neighbors().contains(&1), "one lost HELLO keeps the link");
    assert!(!out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::LinkBroken { .. }))), "{out:?}");
    // Two lost in a row (15 s and 17 s) do drop it: 0.5 -> 0.25 < 0.3 ...
    hello_at(&mut o, &mut out, 19.0, 10);
    assert!(out.iter().any(|a| matches!(a, RouteAction::Note(RouteNote::LinkBroken { neighbor: 1, .. }))));
}

#[test]
fn link_layer_feedback_marks_the_link_lost() {
    let data = |t| Packet::new(1, 0, 1, wire::Body::Udp(UdpDatagram { flow: 0, seqno: 1, payload: 512 }), t);
    // Off (the default): the MAC failure changes nothing.
    let mut o = node(0, &plain());
    let mut out = vec![];
    o.receive(secs(1.0), 1, hello(1, 1, &[(L::Sym, N::Sym, &[0])]), &mut out);
    out.clear();
    o.link_failed(secs(1.5), 1, data(secs(1.5)), &mut out);
    assert!(o.symmetric_neighbors().contains(&1));
    assert!(out.is_empty());
    // On: lost for NEIGHB_HOLD_TIME, noted as a MAC failure, advertised LOST.
    let mut o = node(0, &OlsrConfig { link_layer_feedback: true, ..plain() });
    o.receive(secs(1.0), 1, hello(1, 1, &[(L::Sym, N::Sym, &[0])]), &mut out);
    o.link_failed(secs(1.5), 1, data(secs(1.5)), &mut out);
    assert!(!o.symmetric_neighbors().contains(&1));
    assert_eq!(o.route_to(1), None);
    assert!(out.iter().any(|a| matches!(
        a,
        RouteAction::Note(RouteNote::LinkBroken { neighbor: 1, cause: LinkCause::MacFeedback })
    )));
    let h = o.build_hello(secs(2.0));
    assert!(h.links.iter().any(|g| g.link == L::Lost && g.addrs == vec![1]));
    // HELLOs keep coming; the mark runs out 6 s after the failure.
    o.receive(secs(3.0), 1, hello(1, 2, &[(L::Sym, N::Sym, &[0])]), &mut out);
    o.receive(secs(5.0), 1, hello(1, 3, &[(L::Sym, N::Sym, &[0])]), &mut out);
    advance(&mut o, secs(7.4), &mut out);
    assert!(!o.symmetric_neighbors().contains(&1));
    advance(&mut o, secs(7.6), &mut out);
    assert!(o.symmetric_neighbors().contains(&1));
}

// ---------------------------------------------------------------- TestNet

fn olsr_net(cfg: &OlsrConfig, up: Vec<Vec<bool>>, seed: u64) -> TestNet {
    let routers = (0..up.len() as NodeId)
        .map(|i| Router::Olsr(Box::new(Olsr::new(i, cfg, Stream::new(seed, i, Purpose::Routing)))))
        .collect();
    TestNet::new(routers, up)
}

fn olsr(net: &TestNet, n: NodeId) -> &Olsr {
    match &net.routers[n as usize] {
        Router::Olsr(o) => o,
        _ => unreachable!(),
    }
}

/// Step the net in 50 ms steps until `cond` holds; the time it first did.
fn run_until_true(net: &mut TestNet, limit: f64, cond: impl Fn(&TestNet) -> bool) -> Option<f64> {
    while net.now < secs(limit) {
        let t = net.now + Dur::from_millis(50);
        net.run_until(t);
        if cond(net) {
            return Some(net.now.as_secs_f64());
        }
    }
    None
}

#[test]
fn five_node_chain_converges_to_a_four_hop_route() {
    for (preset, limit) in [("um-olsr", 20.0), ("rfc3626", 20.0), ("oolsr", 16.0)] {
        let cfg = OlsrConfig::preset(preset).unwrap();
        let mut net = olsr_net(&cfg, TestNet::chain_links(5), 1);
        let t = run_until_true(&mut net, 40.0, |n| olsr(n, 0).route_to(4) == Some((1, 4)))
            .unwrap_or_else(|| panic!("{preset}: no route"));
        // A few HELLO intervals to find the MPRs, then a TC round or two.
        assert!(t < limit, "{preset}: converged at {t}");
        // MPRs of a chain: every inner node relays for both sides.
        assert_eq!(olsr(&net, 2).mpr_set(), &BTreeSet::from([1, 3]));
        assert_eq!(olsr(&net, 0).mpr_set(), &BTreeSet::from([1]));
        assert_eq!(olsr(&net, 4).route_to(0), Some((3, 4)));
        let uid = net.send_data(0, 4);
        let t = net.now + Dur::from_millis(100);
        net.run_until(t);
        assert_eq!(net.delivered_uids(4), vec![uid], "{preset}");
        assert!(net.notes.is_empty(), "{preset}: no link broke: {:?}", net.notes);
    }
}

/// Chain 0-1-2-3-4 with a detour 3-5-4.
fn detour_links() -> Vec<Vec<bool>> {
    let mut up = TestNet::chain_links(6);
    for r in up.iter_mut() {
        r[5] = false;
    }
    up[4][5] = false;
    up[5] = vec![false; 6];
    for (a, b) in [(3, 5), (5, 4)] {
        up[a][b] = true;
        up[b][a] = true;
    }
    up
}

/// Seconds from cutting 3-4 until node 0 routes to 4 over the detour.
fn repair_time(cfg: &OlsrConfig, seed: u64) -> f64 {
    let mut net = olsr_net(cfg, detour_links(), seed);
    run_until_true(&mut net, 40.0, |n| olsr(n, 0).route_to(4) == Some((1, 4))).expect("converged");
    net.run_until(secs(30.0));
    assert_eq!(olsr(&net, 0).route_to(4), Some((1, 4)));
    net.set_link(3, 4, false);
    let t = run_until_true(&mut net, 90.0, |n| olsr(n, 0).route_to(4) == Some((1, 5))).expect("repaired");
    // Both ends noticed the missing HELLOs.
    for (a, b) in [(3, 4), (4, 3)] {
        assert!(net.notes.iter().any(|&(_, n, note)| n == a
            && note == RouteNote::LinkBroken { neighbor: b, cause: LinkCause::HelloLoss }));
    }
    assert_eq!(olsr(&net, 3).route_to(4), Some((5, 2)));
    let uid = net.send_data(0, 4);
    let end = net.now + Dur::from_millis(100);
    net.run_until(end);
    assert_eq!(net.delivered_uids(4), vec![uid]);
    t - 30.0
}

#[test]
fn route_moves_to_the_detour_after_the_hold_times() {
    let cfg = OlsrConfig::preset("oolsr").unwrap();
    let dt = repair_time(&cfg, 1);
    // Not before the neighbour hold time ends the link (5 s + last HELLO
    // within 1 s), and within it plus a TC interval and flooding.
    assert!((5.0..6.0 + 5.0 + 1.0).contains(&dt), "repaired after {dt}");
    let dt = repair_time(&OlsrConfig::preset("rfc3626").unwrap(), 1);
    // Hysteresis notices the silence sooner than the hold time.
    assert!(dt < 6.0 + 5.0 + 1.0, "rfc3626 repaired after {dt}");
}

#[test]
fn immediate_tc_shortens_reconvergence() {
    let periodic = OlsrConfig::preset("oolsr").unwrap();
    let immediate = OlsrConfig { immediate_tc: true, ..periodic.clone() };
    let (mut sum_p, mut sum_i) = (0.0, 0.0);
    for seed in 1..=4 {
        let p = repair_time(&periodic, seed);
        let i = repair_time(&immediate, seed);
        assert!(i <= p, "seed {seed}: immediate {i} periodic {p}");
        sum_p += p;
        sum_i += i;
    }
    // Immediate TCs go out when the link is declared lost: the repair
    // then takes about the hold time alone.
    assert!(sum_i / 4.0 < 6.5, "immediate mean {}", sum_i / 4.0);
    assert!(sum_i + 2.0 < sum_p, "immediate {sum_i} periodic {sum_p}");
}

#[test]
fn hellos_are_periodic_with_jitter_and_ttl_one() {
    let cfg = OlsrConfig::default();
    let mut o = node(0, &cfg);
    let mut out = vec![];
    advance(&mut o, secs(40.0), &mut out);
    let mut times = vec![];
    for a in &out {
        let RouteAction::Send { next_hop, packet } = a else { panic!("{a:?}") };
        let wire::Body::Routing(RoutingMsg::Olsr(p)) = &packet.body else { panic!() };
        assert_eq!((*next_hop, packet.dst, packet.ttl, p.msg.ttl), (BROADCAST, BROADCAST, 1, 1));
        assert_eq!(p.kind(), "olsr.hello");
        assert_eq!(p.size(), 28, "no neighbours: empty HELLO");
        times.push(packet.created.as_secs_f64());
    }
    assert!(times[0] <= 0.5, "first HELLO within MAXJITTER: {}", times[0]);
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    // HELLO_INTERVAL minus up to MAXJITTER (§18.9).
    assert!(gaps.iter().all(|g| (1.5 - 1e-9..=2.0 + 1e-9).contains(g)), "{gaps:?}");
    assert!(gaps.iter().any(|g| *g < 1.95), "jitter is drawn: {gaps:?}");
    // No MPR selectors: no TC at all.
    assert!(times.len() >= 20);
}
