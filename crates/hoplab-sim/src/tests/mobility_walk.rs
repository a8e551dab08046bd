//! Random walk and random direction (mobility/walk.rs, direction.rs): the
//! movement table against each model's rules, positions the channel used
//! against positions recomputed from the table alone, the stationary state
//! the random walk keeps, validation and determinism.

use crate::results::MovementRow;
use crate::world::World;
use crate::Scenario;

fn scenario(model: &str, nodes: u32, (w, h): (f64, f64), mobility: &str, duration: f64, extra: &str) -> Scenario {
    let text = format!(
        "duration_s = {duration}\n[topology]\nkind = \"random\"\nnodes = {nodes}\nwidth_m = {w}\nheight_m = {h}\n\
         [mobility]\nmodel = \"{model}\"\n{mobility}\n{extra}"
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("bad test scenario: {e}"))
}

/// A leg: start time, from, to, speed.
type Leg = (f64, (f64, f64), (f64, f64), f64);

/// A node's legs, its time-0 row left out.
fn legs(rows: &[MovementRow], node: u32) -> Vec<Leg> {
    rows.iter().filter(|r| r.node == node && r.speed_mps > 0.0).map(|r| (r.time_s, (r.x, r.y), (r.to_x, r.to_y), r.speed_mps)).collect()
}

fn len(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.0).hypot(b.1 - a.1)
}

/// Where `node` is at `t` by the movement table: along its last leg started
/// by `t` at that leg's speed, stopped at its end.
fn where_at(rows: &[MovementRow], node: u32, t: f64) -> (f64, (f64, f64)) {
    let r = rows.iter().rfind(|r| r.node == node && r.time_s <= t).expect("every node has a time-0 row");
    let d = len((r.x, r.y), (r.to_x, r.to_y));
    if r.speed_mps == 0.0 || d == 0.0 {
        return (0.0, (r.to_x, r.to_y));
    }
    let moved = (t - r.time_s) * r.speed_mps;
    let f = (moved / d).min(1.0);
    let v = if moved < d { r.speed_mps } else { 0.0 };
    (v, (r.x + (r.to_x - r.x) * f, r.y + (r.to_y - r.y) * f))
}

fn on_border((x, y): (f64, f64), (w, h): (f64, f64)) -> bool {
    x == 0.0 || x == w || y == 0.0 || y == h
}

#[test]
fn walk_legs_last_the_interval_unless_a_wall_cuts_them_and_reflections_mirror() {
    // 20 nodes at 5-15 m/s in 400 x 200 m, a new draw every 8 s: a wall every ~20 s.
    let (area, (vmin, vmax), interval) = ((400.0, 200.0), (5.0, 15.0), 8.0);
    let sc = scenario("walk", 20, area, &format!("speed_min_mps = {vmin}\nspeed_max_mps = {vmax}\nwalk_interval_s = {interval}"), 600.0, "");
    let rows = crate::run(&sc, 5).movement;
    let (mut reflections, mut corner_cases, mut intervals) = (0, 0, 0);
    let mut draws = Vec::new();
    for node in 0..20 {
        let init = rows.iter().find(|r| r.node == node).unwrap();
        let l = legs(&rows, node);
        // The first leg starts at 0 s where the topology put the node.
        assert_eq!((l[0].0, l[0].1), (0.0, (init.x, init.y)));
        let mut t_in = 0.0; // seconds into the current interval
        draws.push(l[0].3);
        for pair in l.windows(2) {
            let ((t0, a, b, v), (t1, b2, c, v2)) = (pair[0], pair[1]);
            for p in [a, b] {
                assert!((0.0..=area.0).contains(&p.0) && (0.0..=area.1).contains(&p.1), "node {node} left the area: {p:?}");
            }
            assert!((vmin..=vmax).contains(&v), "{v} m/s");
            // Straight on from where the last leg ended, when its length and speed say.
            assert_eq!(b2, b);
            assert!((t1 - (t0 + len(a, b) / v)).abs() < 2e-9, "node {node}: leg at {t1} s, arrival at {} s", t0 + len(a, b) / v);
            t_in += t1 - t0;
            assert!(t_in <= interval + 1e-6, "node {node}: an interval ran {t_in} s");
            if (t_in - interval).abs() < 1e-6 {
                // The interval is over: a fresh direction and speed.
                t_in = 0.0;
                intervals += 1;
                draws.push(v2);
                continue;
            }
            // Cut short: only by a wall; the rest of the interval goes the mirrored way at the same speed.
            assert!(on_border(b, area), "node {node}: a leg ended at {b:?} after {t_in} s of the interval");
            assert_eq!(v2, v);
            reflections += 1;
            if len(a, b) < 1.0 || len(b, c) < 1.0 {
                corner_cases += 1; // too short to read a direction from its end points
                continue;
            }
            let (da, db) = (((b.0 - a.0) / len(a, b), (b.1 - a.1) / len(a, b)), ((c.0 - b.0) / len(b, c), (c.1 - b.1) / len(b, c)));
            let fx = if b.0 == 0.0 || b.0 == area.0 { -1.0 } else { 1.0 };
            let fy = if b.1 == 0.0 || b.1 == area.1 { -1.0 } else { 1.0 };
            assert!((db.0 - fx * da.0).abs() < 1e-6 && (db.1 - fy * da.1).abs() < 1e-6, "node {node} at {b:?}: {da:?} then {db:?}");
        }
    }
    assert!(intervals > 1000 && reflections > 300 && corner_cases < reflections / 10, "{intervals} intervals, {reflections} reflections, {corner_cases} short");
    // The drawn speeds are uniform on [vmin, vmax]: KS distance from the uniform CDF.
    draws.sort_by(f64::total_cmp);
    let n = draws.len() as f64;
    let ks = draws.iter().enumerate().map(|(i, &v)| {
        let f = (v - vmin) / (vmax - vmin);
        (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
    });
    let d = ks.fold(0.0, f64::max);
    assert!(d < 1.95 / n.sqrt(), "speeds not uniform: KS {d} with {n} draws");
}

#[test]
fn walk_keeps_positions_uniform_and_speeds_as_drawn() {
    // Reflection keeps an isotropic walker's uniform distribution (and time
    // intervals keep the speed at a random instant uniform, unlike random
    // waypoint's 1/v drift): at 0 s and 300 s a quarter of 2000 nodes are in
    // the central quarter of the area, and the mean speed is (vmin + vmax) / 2.
    let (vmin, vmax) = (0.0, 20.0);
    // Only the movement table is looked at: coarse steps and short radio
    // ranges keep the channel's work small.
    let radio = "[radio]\ntx_range_m = 1.0\ncs_range_m = 2.0";
    let sc = scenario("walk", 2000, (1000.0, 1000.0), &format!("speed_min_mps = {vmin}\nspeed_max_mps = {vmax}\nwalk_interval_s = 30.0\nstep_m = 100.0"), 300.0, radio);
    let rows = crate::run(&sc, 11).movement;
    for t in [0.0, 150.0, 300.0] {
        let at: Vec<(f64, (f64, f64))> = (0..2000).map(|n| where_at(&rows, n, t)).collect();
        let central = at.iter().filter(|(_, (x, y))| (250.0..750.0).contains(x) && (250.0..750.0).contains(y)).count() as f64 / 2000.0;
        assert!((central - 0.25).abs() < 0.035, "{central} of the nodes in the central quarter at {t} s");
        let mean = at.iter().map(|(v, _)| v).sum::<f64>() / 2000.0;
        assert!((mean - 10.0).abs() < 0.4, "mean speed {mean} m/s at {t} s");
    }
}

#[test]
fn direction_legs_run_border_to_border_and_pause_there() {
    let (area, (vmin, vmax), pause) = ((600.0, 300.0), (2.0, 8.0), 7.5);
    let sc = scenario("direction", 20, area, &format!("speed_min_mps = {vmin}\nspeed_max_mps = {vmax}\npause_s = {pause}"), 900.0, "");
    let rows = crate::run(&sc, 3).movement;
    let mut seen = 0;
    for node in 0..20 {
        let init = rows.iter().find(|r| r.node == node).unwrap();
        let l = legs(&rows, node);
        // The first leg starts at 0 s from the node's initial position inside the area.
        assert_eq!((l[0].0, l[0].1), (0.0, (init.x, init.y)));
        assert!(!on_border(l[0].1, area));
        for (i, &(t0, a, b, v)) in l.iter().enumerate() {
            assert!(on_border(b, area), "node {node}: leg {i} ends inside the area at {b:?}");
            assert!((0.0..=area.0).contains(&b.0) && (0.0..=area.1).contains(&b.1), "{b:?}");
            assert!((vmin..=vmax).contains(&v), "{v} m/s");
            assert!(len(a, b) > 0.0);
            if let Some(&(t1, b2, _, _)) = l.get(i + 1) {
                // The next leg leaves from this one's end, a pause after the arrival.
                assert_eq!(b2, b);
                let arrival = t0 + len(a, b) / v;
                assert!((t1 - arrival - pause).abs() < 2e-9, "node {node}: next leg at {t1} s, arrival {arrival} s");
                seen += 1;
            }
        }
    }
    // Mean chord ~ pi A / P = 314 m at ~5 m/s, plus 7.5 s: ~12 legs per node in 900 s.
    assert!(seen > 150, "{seen} legs");
}

#[test]
fn the_channel_follows_the_movement_table() {
    // The positions the channel worked with, at the ends of runs of several
    // lengths, are those recomputed from the movement table alone (to within
    // a position step), and its links are those the distances imply.
    for model in ["walk", "direction"] {
        for duration in [13.0, 47.0, 120.0] {
            let sc = scenario(model, 30, (800.0, 500.0), "speed_min_mps = 3.0\nspeed_max_mps = 15.0\nwalk_interval_s = 4.0", duration, "");
            let mut world = World::new(&sc, 6);
            world.run();
            let rows = world.results(0.0).movement;
            let step = sc.mobility.step_m;
            let pos: Vec<(f64, f64)> = (0..30).map(|n| where_at(&rows, n, duration).1).collect();
            for (n, &p) in pos.iter().enumerate() {
                let (x, y) = world.channel.position(n as u32);
                assert!(len((x, y), p) <= step + 1e-9, "{model} {duration} s: node {n} at ({x}, {y}), table {p:?}");
            }
            let mut checked = 0;
            for a in 0..30u32 {
                for b in 0..30u32 {
                    let d = len(pos[a as usize], pos[b as usize]);
                    if a != b && (d - 250.0).abs() > 2.0 * step + 1e-6 {
                        assert_eq!(world.channel.in_tx_range(a, b), d < 250.0, "{model} {duration} s: {a}-{b} at {d:.2} m");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 800, "{checked}");
        }
    }
}

#[test]
fn same_seed_same_run_and_other_seeds_differ() {
    let flows = "[routing]\nprotocol = \"aodv\"\n[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 5\n";
    for (model, mob) in [("walk", "walk_interval_s = 5.0"), ("direction", "pause_s = 2.0")] {
        let sc = scenario(model, 25, (1000.0, 1000.0), &format!("speed_min_mps = 1.0\nspeed_max_mps = 10.0\n{mob}"), 40.0, flows);
        let (a, b, c) = (crate::run(&sc, 21), crate::run(&sc, 21), crate::run(&sc, 22));
        assert!(a.info.events > 10_000, "{model}: {} events", a.info.events);
        assert_eq!((a.info.events, a.info.event_hash), (b.info.events, b.info.event_hash), "{model}");
        assert_eq!(a.movement, b.movement);
        assert_eq!(a.flows, b.flows);
        assert_ne!(a.info.event_hash, c.info.event_hash, "{model}");
        assert_ne!(a.movement, c.movement);
    }
}

#[test]
fn walk_and_direction_need_a_random_topology_and_their_own_fields() {
    let chain = "duration_s = 10.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing_m = 200.0\n[mobility]\nmodel = \"walk\"\n";
    let e = Scenario::from_toml_str(chain).unwrap_err();
    assert_eq!(e.field, "mobility.model");
    assert!(e.message.contains("\"walk\" needs topology.kind = \"random\""), "{}", e.message);
    let explicit = "duration_s = 10.0\n[topology]\nkind = \"explicit\"\npositions = [[0.0, 0.0], [100.0, 0.0]]\n[mobility]\nmodel = \"direction\"\n";
    assert_eq!(Scenario::from_toml_str(explicit).unwrap_err().field, "mobility.model");
    let random = |model: &str, more: &str| {
        format!("duration_s = 10.0\n[topology]\nkind = \"random\"\nnodes = 3\nwidth_m = 500.0\nheight_m = 500.0\n[mobility]\nmodel = \"{model}\"\n{more}")
    };
    let e = Scenario::from_toml_str(&random("walk", "pause_s = 1.0\n")).unwrap_err();
    assert_eq!(e.field, "mobility.pause_s");
    let e = Scenario::from_toml_str(&random("direction", "speed_min_mps = 1.0\nsteady_state = true\n")).unwrap_err();
    assert_eq!(e.field, "mobility.steady_state");
    assert_eq!(Scenario::from_toml_str(&random("walk", "walk_interval_s = 0.0\n")).unwrap_err().field, "mobility.walk_interval_s");
    assert_eq!(Scenario::from_toml_str(&random("direction", "speed_max_mps = 0.0\n")).unwrap_err().field, "mobility.speed_max_mps");
    let e = Scenario::from_toml_str(&random("walk", "[[mobility.legs]]\nnode = 0\nat_s = 1.0\nto = [1.0, 1.0]\nspeed_mps = 1.0\n")).unwrap_err();
    assert_eq!(e.field, "mobility.legs");
    assert!(Scenario::from_toml_str(&random("direction", "pause_s = 3.0\nspeed_min_mps = 0.0\n")).is_ok());
    assert!(Scenario::from_toml_str(&random("walk", "walk_interval_s = 0.5\n")).is_ok());
}

#[test]
fn legs_come_as_often_as_the_cost_model_prices_them() {
    // cost.rs prices a leg every mean_leg_s: the legs a run makes agree
    // (walk: interval ends plus border hits every mean chord / v, to 0.5 %
    // here; direction: 11 % more legs than pi A / P chords imply, as
    // directions uniform in angle from a wall cut shorter chords).
    use crate::mobility::{direction, walk};
    let (w, h, dur) = (600.0, 400.0, 2000.0);
    let radio = "[radio]\ntx_range_m = 1.0\ncs_range_m = 2.0";
    for (model, mob, per_leg, tol) in [
        ("walk", "walk_interval_s = 20.0", walk::mean_leg_s(w, h, 10.0, 20.0), 0.03),
        ("walk", "walk_interval_s = 2.0", walk::mean_leg_s(w, h, 10.0, 2.0), 0.03),
        ("direction", "pause_s = 3.0", direction::mean_leg_s(w, h, 10.0, 3.0), 0.2),
    ] {
        let sc = scenario(model, 200, (w, h), &format!("speed_min_mps = 8.0\nspeed_max_mps = 12.0\nstep_m = 50.0\n{mob}"), dur, radio);
        let rows = crate::run(&sc, 1).movement;
        let made = rows.iter().filter(|r| r.speed_mps > 0.0).count() as f64;
        let priced = 200.0 * dur / per_leg;
        assert!((made / priced - 1.0).abs() < tol, "{model} {mob}: {made} legs, priced {priced:.0}");
    }
    // A walk that turns every 10 ms with many nodes for long is refused, naming
    // the interval, with a flow and without one (movement alone is the cost).
    let sc = String::from(
        "duration_s = 100000.0\n[topology]\nkind = \"random\"\nnodes = 5000\nwidth_m = 100000.0\nheight_m = 100000.0\n\
         [mobility]\nmodel = \"walk\"\nwalk_interval_s = 0.01\nstep_m = 1000.0\n"
    );
    let flow = "[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 1.0\n";
    for text in [format!("{sc}{flow}"), sc.clone()] {
        let e = Scenario::from_toml_str(&text).unwrap_err();
        assert_eq!(e.field, "mobility.walk_interval_s", "{}", e.message);
    }
}
