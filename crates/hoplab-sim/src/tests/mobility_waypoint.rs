//! Random waypoint (ns-2 setdest; Navidi & Camp 2004 steady state): the
//! movement table against the model's rules, the stationary speed law, the
//! channel's links against positions computed from the movement table alone,
//! and determinism.

use super::common;

use crate::mobility::waypoint::{mean_distance, Start, Waypoint};
use crate::results::MovementRow;
use crate::rng::{Purpose, Stream};
use crate::world::World;
use crate::Scenario;

fn scenario(nodes: u32, w: f64, h: f64, mobility: &str, duration: f64, extra: &str) -> Scenario {
    let text = format!(
        "duration_s = {duration}\n[topology]\nkind = \"random\"\nnodes = {nodes}\nwidth_m = {w}\nheight_m = {h}\n\
         [mobility]\nmodel = \"waypoint\"\n{mobility}\n{extra}"
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("bad test scenario: {e}"))
}

fn movement(sc: &Scenario, seed: u64) -> Vec<MovementRow> {
    crate::run(sc, seed).movement
}

/// Where `node` is at `t`, from the movement table alone: its last leg
/// started by `t`, followed in a straight line at its speed, stopping at
/// the leg's end.
fn position_at(rows: &[MovementRow], node: u32, t: f64) -> (f64, f64) {
    let r = rows.iter().filter(|r| r.node == node && r.time_s <= t).last().expect("every node has an initial row");
    if r.speed_mps == 0.0 {
        return (r.to_x, r.to_y);
    }
    let len = (r.to_x - r.x).hypot(r.to_y - r.y);
    let f = ((t - r.time_s) * r.speed_mps / len).min(1.0);
    (r.x + (r.to_x - r.x) * f, r.y + (r.to_y - r.y) * f)
}

/// The speed of `node`'s leg under way at `t` (0 when it stands or pauses).
fn speed_at(rows: &[MovementRow], node: u32, t: f64) -> f64 {
    let r = rows.iter().filter(|r| r.node == node && r.time_s <= t).last().unwrap();
    let len = (r.to_x - r.x).hypot(r.to_y - r.y);
    if r.speed_mps > 0.0 && t < r.time_s + len / r.speed_mps {
        r.speed_mps
    } else {
        0.0
    }
}

#[test]
fn nodes_stay_in_the_area_reach_each_waypoint_on_time_and_pause_as_asked() {
    // Seed 002's area and its [0.9 v, 1.1 v] speeds at v = 2 m/s, with a 5 s pause.
    let (w, h, pause) = (1500.0, 300.0, 5.0);
    let sc = scenario(30, w, h, "speed_min_mps = 1.8\nspeed_max_mps = 2.2\npause_s = 5.0", 900.0, "");
    let mut world = World::new(&sc, 3);
    world.run();
    let out = world.results(0.0);
    let rows = &out.movement;
    let mut legs_seen = 0;
    for node in 0..30 {
        let mine: Vec<&MovementRow> = rows.iter().filter(|r| r.node == node).collect();
        let init = mine[0];
        assert_eq!((init.time_s, init.speed_mps, init.x, init.y), (0.0, 0.0, init.to_x, init.to_y));
        assert!((0.0..w).contains(&init.x) && (0.0..h).contains(&init.y), "{init:?}");
        // setdest: a node pauses where it starts before its first leg.
        assert!((mine[1].time_s - pause).abs() < 1e-9, "first leg at {}", mine[1].time_s);
        assert_eq!((mine[1].x, mine[1].y), (init.x, init.y));
        for pair in mine[1..].windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!((0.0..w).contains(&a.to_x) && (0.0..h).contains(&a.to_y), "waypoint outside the area: {a:?}");
            assert!((1.8..=2.2).contains(&a.speed_mps), "{a:?}");
            // The next leg starts exactly where this one ends ...
            assert_eq!((b.x, b.y), (a.to_x, a.to_y));
            // ... a pause after the arrival its length and speed imply (ns rounding).
            let arrival = a.time_s + (a.to_x - a.x).hypot(a.to_y - a.y) / a.speed_mps;
            assert!((b.time_s - (arrival + pause)).abs() < 3e-9, "node {node}: next leg at {} s, expected {} s", b.time_s, arrival + pause);
            legs_seen += 1;
        }
        // The channel's position is the analytic one, to within a position step.
        let (x, y) = world.channel.position(node);
        let (ex, ey) = position_at(rows, node, 900.0);
        assert!((x - ex).hypot(y - ey) <= sc.mobility.step_m + 1e-9, "node {node}: channel at ({x}, {y}), movement table ({ex}, {ey})");
        assert!((0.0..=w).contains(&x) && (0.0..=h).contains(&y));
    }
    // Legs average ~E[L] / 2 m/s + 5 s = 300 s: about 3 per node in 900 s.
    assert!(legs_seen > 30, "{legs_seen} legs");
}

#[test]
fn pause_zero_moves_at_once_and_all_the_time() {
    let sc = scenario(10, 1000.0, 1000.0, "speed_min_mps = 5.0\nspeed_max_mps = 10.0", 300.0, "");
    let rows = movement(&sc, 1);
    for node in 0..10 {
        assert_eq!(rows.iter().filter(|r| r.node == node && r.time_s == 0.0 && r.speed_mps > 0.0).count(), 1);
        for t in [0.5, 37.0, 150.0, 299.0] {
            assert!(speed_at(&rows, node, t) >= 5.0, "node {node} stands at {t} s");
        }
    }
}

/// The stationary speed law for speeds uniform on [vmin, vmax]: density
/// proportional to 1/v, CDF ln(v/vmin) / ln(vmax/vmin).
fn cdf(v: f64, vmin: f64, vmax: f64) -> f64 {
    ((v / vmin).ln() / (vmax / vmin).ln()).clamp(0.0, 1.0)
}

/// Kolmogorov-Smirnov distance of `xs` from `cdf`.
fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter().enumerate().map(|(i, &x)| (cdf(x) - i as f64 / n).abs().max(((i + 1) as f64 / n - cdf(x)).abs())).fold(0.0, f64::max)
}

#[test]
fn stationary_speed_has_density_proportional_to_one_over_v() {
    let (vmin, vmax) = (1.0, 10.0);
    let mut m = Waypoint::new(2000.0, 2000.0, vmin, vmax, 0.0, Stream::new(5, 0, Purpose::Mobility));
    let n = 100_000;
    let mut bins = [0u32; 9];
    let mut sum = 0.0;
    for _ in 0..n {
        let Start::Moving { speed, pos, to } = m.stationary_start() else { panic!("no pause: every node moves") };
        assert!((vmin..=vmax).contains(&speed));
        assert!((0.0..2000.0).contains(&pos.0) && (0.0..2000.0).contains(&to.1));
        bins[((speed - vmin) as usize).min(8)] += 1;
        sum += speed;
    }
    // Bin [k, k+1] holds ln((k+1)/k) / ln 10 of the mass: 30 % in [1, 2], 4.6 % in [9, 10].
    for (k, &c) in bins.iter().enumerate() {
        let (a, b) = (vmin + k as f64, vmin + k as f64 + 1.0);
        let expect = n as f64 * (b / a).ln() / (vmax / vmin).ln();
        assert!((c as f64 - expect).abs() < 4.0 * expect.sqrt(), "bin [{a}, {b}]: {c} against {expect:.0}");
    }
    // Mean speed (vmax - vmin) / ln(vmax / vmin) = 3.909 m/s, not the 5.5 of a leg's speed.
    let mean = sum / n as f64;
    let want = (vmax - vmin) / (vmax / vmin).ln();
    assert!((mean - want).abs() < 0.03, "mean {mean} against {want}");
}

#[test]
fn steady_state_start_stays_stationary_and_the_plain_start_does_not() {
    // 2000 nodes in seed 001's area, no traffic: compare the speeds of the
    // legs under way at 0 s and at 300 s with the stationary law.
    let (vmin, vmax) = (1.0, 10.0);
    // A coarse step: only the movement table is looked at, not the channel.
    let body = format!("speed_min_mps = {vmin}\nspeed_max_mps = {vmax}\nstep_m = 100.0");
    let steady = movement(&scenario(2000, 2000.0, 2000.0, &format!("{body}\nsteady_state = true"), 300.0, ""), 7);
    let plain = movement(&scenario(2000, 2000.0, 2000.0, &body, 300.0, ""), 7);
    let speeds = |rows: &[MovementRow], t: f64| (0..2000).map(|n| speed_at(rows, n, t)).collect::<Vec<f64>>();
    // KS critical distance at 2000 samples, alpha = 0.001: 1.95 / sqrt(2000) = 0.044.
    for t in [0.0, 300.0] {
        let d = ks(speeds(&steady, t), |v| cdf(v, vmin, vmax));
        assert!(d < 0.044, "steady-state start at {t} s: KS distance {d}");
    }
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let stationary_mean = (vmax - vmin) / (vmax / vmin).ln();
    assert!((mean(speeds(&steady, 0.0)) - stationary_mean).abs() < 0.2);
    assert!((mean(speeds(&steady, 300.0)) - stationary_mean).abs() < 0.2);
    // setdest's plain start: speeds uniform at 0 s (mean 5.5), decaying toward 3.9 after.
    let d0 = ks(speeds(&plain, 0.0), |v| cdf(v, vmin, vmax));
    assert!(d0 > 0.15, "plain start looks stationary at 0 s: {d0}");
    assert!((mean(speeds(&plain, 0.0)) - 5.5).abs() < 0.2);
    // Positions too: a stationary node is more often near the middle (Navidi & Camp
    // Fig. 1); the central quarter of the area holds more than a quarter of them,
    // at 0 s as later, while the plain start has a uniform quarter at 0 s.
    let central = |rows: &[MovementRow], t: f64| {
        (0..2000).filter(|&n| {
            let (x, y) = position_at(rows, n, t);
            (500.0..1500.0).contains(&x) && (500.0..1500.0).contains(&y)
        }).count() as f64 / 2000.0
    };
    let (s0, s300, p0) = (central(&steady, 0.0), central(&steady, 300.0), central(&plain, 0.0));
    assert!(s0 > 0.38 && s300 > 0.38 && (s0 - s300).abs() < 0.05, "steady: {s0} at 0 s, {s300} at 300 s");
    assert!((p0 - 0.25).abs() < 0.04, "plain start: {p0} in the central quarter");
}

#[test]
fn steady_state_pauses_as_often_as_the_stationary_law_says() {
    let (w, h, pause) = (1500.0, 300.0, 60.0);
    let mut m = Waypoint::new(w, h, 1.8, 2.2, pause, Stream::new(2, 0, Purpose::Mobility));
    let n = 50_000;
    let mut paused = 0;
    let mut residual = 0.0;
    for _ in 0..n {
        if let Start::Paused { for_s, .. } = m.stationary_start() {
            paused += 1;
            assert!((0.0..=pause).contains(&for_s));
            residual += for_s;
        }
    }
    // P(paused) = E[P] / (E[P] + E[L] E[1/V]) (Navidi & Camp 2004).
    let moving = mean_distance(w, h) * (2.2f64 / 1.8).ln() / 0.4;
    let want = pause / (pause + moving);
    let got = paused as f64 / n as f64;
    assert!((got - want).abs() < 0.01, "paused {got} against {want}");
    assert!((residual / paused as f64 - pause / 2.0).abs() < 1.0);
}

#[test]
fn links_break_and_form_where_the_radio_says() {
    // 40 nodes at 5-15 m/s in 1000 x 1000 m: the channel's link view at the
    // end of runs of 10, 20, ..., 120 s against distances computed from the
    // movement table alone (default radio: 250 m decode, 550 m sense).
    let mob = "speed_min_mps = 5.0\nspeed_max_mps = 15.0";
    let mut prev: Option<Vec<bool>> = None;
    let (mut formed, mut broke, mut checked) = (0, 0, 0);
    for k in 1..=12 {
        let t = 10.0 * k as f64;
        let sc = scenario(40, 1000.0, 1000.0, mob, t, "");
        let mut world = World::new(&sc, 9);
        world.run();
        let rows = world.results(0.0).movement;
        let step = sc.mobility.step_m + 1e-6;
        let pos: Vec<(f64, f64)> = (0..40).map(|n| position_at(&rows, n, t)).collect();
        let mut now = Vec::new();
        for a in 0..40u32 {
            let sensed: Vec<u32> = world.channel.links(a).iter().map(|l| l.node).collect();
            for b in 0..40u32 {
                if a == b {
                    continue;
                }
                let d = (pos[a as usize].0 - pos[b as usize].0).hypot(pos[a as usize].1 - pos[b as usize].1);
                let decodes = world.channel.in_tx_range(a, b);
                now.push(decodes);
                // Positions reach the channel every step_m of movement: both
                // ends may lag by a step, so only pairs farther than that
                // from a range edge must agree exactly.
                if (d - 250.0).abs() > 2.0 * step {
                    assert_eq!(decodes, d < 250.0, "t {t}: {a}-{b} at {d:.2} m");
                    checked += 1;
                }
                if (d - 550.0).abs() > 2.0 * step {
                    assert_eq!(sensed.contains(&b), d < 550.0, "t {t}: {a} senses {b} at {d:.2} m?");
                }
            }
        }
        if let Some(p) = &prev {
            formed += p.iter().zip(&now).filter(|(a, b)| !**a && **b).count();
            broke += p.iter().zip(&now).filter(|(a, b)| **a && !**b).count();
        }
        prev = Some(now);
    }
    assert!(checked > 10_000 && formed > 50 && broke > 50, "checked {checked}, formed {formed}, broke {broke}");
}

#[test]
fn decoded_frames_come_from_within_range_while_nodes_move() {
    // AODV finds routes among moving nodes; every frame a node decodes came
    // from a transmitter within 250 m of it (plus the step and the frame's
    // few ms of movement), by the movement table.
    let flows = "[routing]\nprotocol = \"aodv\"\n[output]\ntrace = true\n\
                 [[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 64.0\n\
                 [[flows]]\nkind = \"ftp\"\nsrc = 2\ndst = 3\n";
    let sc = scenario(30, 1000.0, 1000.0, "speed_min_mps = 5.0\nspeed_max_mps = 15.0", 60.0, flows);
    let out = crate::run(&sc, 4);
    let rx: Vec<_> = out.trace.iter().filter(|r| r.event == "recv" && r.layer == "MAC" && r.src >= 0).collect();
    assert!(rx.len() > 1000, "{} frames decoded", rx.len());
    let mut far = 0.0f64;
    for r in rx {
        let (a, b) = (position_at(&out.movement, r.src as u32, r.time_s), position_at(&out.movement, r.node, r.time_s));
        far = far.max((a.0 - b.0).hypot(a.1 - b.1));
    }
    assert!(far <= 250.0 + 2.0 * sc.mobility.step_m + 0.5, "a frame was decoded {far} m from its transmitter");
    assert!(far > 200.0, "frames only over short distances ({far} m): do nodes move?");
    assert!(out.flows.iter().all(|f| f.bytes_delivered > 0), "{:?}", out.flows);
}

#[test]
fn same_seed_same_run_and_other_seeds_differ() {
    let flows = "[routing]\nprotocol = \"dsr\"\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 5\n";
    let sc = scenario(25, 1000.0, 1000.0, "speed_min_mps = 1.0\nspeed_max_mps = 10.0\nsteady_state = true", 40.0, flows);
    let (a, b, c) = (crate::run(&sc, 21), crate::run(&sc, 21), crate::run(&sc, 22));
    assert!(a.info.events > 10_000);
    assert_eq!((a.info.events, a.info.event_hash), (b.info.events, b.info.event_hash));
    assert_eq!(a.movement, b.movement);
    assert_eq!(a.flows, b.flows);
    assert_ne!(a.info.event_hash, c.info.event_hash);
    assert_ne!(a.movement, c.movement);
}

#[test]
fn scripted_legs_and_standing_nodes_fill_the_movement_table_too() {
    let text = "duration_s = 30.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n\
                [[mobility.legs]]\nnode = 2\nat_s = 5.0\nto = [400.0, 300.0]\nspeed_mps = 10.0\n";
    let out = common::run_toml(text, 1);
    let m: Vec<(u32, f64, f64, f64, f64, f64, f64)> = out.movement.iter().map(|r| (r.node, r.time_s, r.x, r.y, r.to_x, r.to_y, r.speed_mps)).collect();
    assert_eq!(
        m,
        vec![
            (0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
            (1, 0.0, 200.0, 0.0, 200.0, 0.0, 0.0),
            (2, 0.0, 400.0, 0.0, 400.0, 0.0, 0.0),
            (2, 5.0, 400.0, 0.0, 400.0, 300.0, 10.0),
        ]
    );
}

#[test]
fn waypoint_needs_an_area_and_a_minimum_speed_for_the_steady_state() {
    let chain = "duration_s = 10.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n[mobility]\nmodel = \"waypoint\"\n";
    let e = Scenario::from_toml_str(chain).unwrap_err();
    assert_eq!(e.field, "mobility.model");
    let random = "duration_s = 10.0\n[topology]\nkind = \"random\"\nnodes = 3\nwidth_m = 500.0\nheight_m = 500.0\n[mobility]\nmodel = \"waypoint\"\n";
    let e = Scenario::from_toml_str(&format!("{random}steady_state = true\n")).unwrap_err();
    assert_eq!(e.field, "mobility.speed_min_mps");
    assert!(e.message.contains("1/v"), "{}", e.message);
    let e = Scenario::from_toml_str(&format!("{random}speed_min_mps = 5.0\nspeed_max_mps = 2.0\n")).unwrap_err();
    assert_eq!(e.field, "mobility.speed_max_mps");
    assert!(Scenario::from_toml_str(&format!("{random}speed_min_mps = 0.5\nsteady_state = true\npause_s = 2.0\n")).is_ok());
}
