//! Where nodes start (`[topology]`) and how they move (`[mobility]`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// `nodes` nodes on a line, `spacing` metres apart, node 0 at the origin.
    Chain {
        nodes: u32,
        #[serde(rename = "spacing_m")]
        spacing: f64,
    },
    /// `rows` x `cols` nodes, `spacing` metres apart, row-major ids.
    Grid {
        rows: u32,
        cols: u32,
        #[serde(rename = "spacing_m")]
        spacing: f64,
    },
    /// Uniformly random positions in a `width` x `height` rectangle, drawn
    /// from the run's seed (topology stream).
    Random {
        nodes: u32,
        #[serde(rename = "width_m")]
        width: f64,
        #[serde(rename = "height_m")]
        height: f64,
    },
    /// Explicit `[x, y]` positions in metres.
    Explicit { positions: Vec<[f64; 2]> },
}

/// One leg of scripted movement: from time `at`, `node` moves in a straight
/// line toward `to` at `speed` m/s and stops there.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leg {
    pub node: u32,
    #[serde(rename = "at_s")]
    pub at: f64,
    pub to: [f64; 2],
    #[serde(rename = "speed_mps")]
    pub speed: f64,
}

/// `[mobility]`: scripted legs and how finely positions are updated.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mobility {
    /// A moving node's position is updated every time it has moved this far.
    pub step_m: f64,
    pub legs: Vec<Leg>,
    /// How nodes move: scripted `legs` (default), random waypoint, random walk or random direction.
    pub model: MobilityModel,
    /// Random models: leg speeds uniform in [speed_min_mps, speed_max_mps]
    /// (ns-2 setdest; seed 002 uses [0.9 v, 1.1 v]).
    pub speed_min_mps: f64,
    pub speed_max_mps: f64,
    /// Random waypoint: pause at each waypoint (and, as in setdest, at the
    /// start); random direction: at each arrival on the border.
    pub pause_s: f64,
    /// Random waypoint: start in the stationary distribution (Navidi & Camp 2004).
    pub steady_state: bool,
    /// Random walk: a new direction and speed every this many seconds.
    pub walk_interval_s: f64,
}

/// `mobility.model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    /// Scripted `[[mobility.legs]]`.
    #[default]
    Legs,
    /// Random waypoint in the `topology.width_m` x `height_m` area (mobility/waypoint.rs).
    Waypoint,
    /// Random walk, reflected at the area's border (mobility/walk.rs).
    Walk,
    /// Random direction: border to border, pausing there (mobility/direction.rs).
    Direction,
}

impl Default for Mobility {
    fn default() -> Self {
        Mobility { step_m: 1.0, legs: Vec::new(), model: MobilityModel::Legs, speed_min_mps: 0.0, speed_max_mps: 10.0, pause_s: 0.0, steady_state: false, walk_interval_s: 1.0 }
    }
}
