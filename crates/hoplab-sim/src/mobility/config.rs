//! Where nodes start (`[topology]`) and how they move (`[mobility]`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, try_from = "TopologyTable")]
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

/// What `[topology]` is read as: every kind's fields in one table. serde
/// reads an internally tagged enum from a buffered copy of its table, so a
/// bad value inside it was reported at `topology` without its field
/// (`topology: invalid type: string "far", expected a number`); read flat,
/// each error names its field (`topology.spacing_m`) and its position.
/// `Topology::try_from` then keeps each kind to its own fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyTable {
    kind: TopologyKind,
    nodes: Option<u32>,
    rows: Option<u32>,
    cols: Option<u32>,
    spacing_m: Option<f64>,
    width_m: Option<f64>,
    height_m: Option<f64>,
    positions: Option<Vec<[f64; 2]>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum TopologyKind {
    Chain,
    Grid,
    Random,
    Explicit,
}

impl TryFrom<TopologyTable> for Topology {
    type Error = String;

    fn try_from(t: TopologyTable) -> Result<Topology, String> {
        let given = [
            ("nodes", t.nodes.is_some()),
            ("rows", t.rows.is_some()),
            ("cols", t.cols.is_some()),
            ("spacing_m", t.spacing_m.is_some()),
            ("width_m", t.width_m.is_some()),
            ("height_m", t.height_m.is_some()),
            ("positions", t.positions.is_some()),
        ];
        let (name, fields): (&str, &[&str]) = match t.kind {
            TopologyKind::Chain => ("chain", &["nodes", "spacing_m"]),
            TopologyKind::Grid => ("grid", &["rows", "cols", "spacing_m"]),
            TopologyKind::Random => ("random", &["nodes", "width_m", "height_m"]),
            TopologyKind::Explicit => ("explicit", &["positions"]),
        };
        let list = fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        if let Some((f, _)) = given.iter().find(|(f, set)| *set && !fields.contains(f)) {
            return Err(format!("unknown field `{f}` for kind = \"{name}\", expected one of {list}"));
        }
        if let Some((f, _)) = given.iter().find(|(f, set)| !*set && fields.contains(f)) {
            return Err(format!("missing field `{f}` (kind = \"{name}\" needs {list})"));
        }
        let need = "checked above";
        Ok(match t.kind {
            TopologyKind::Chain => Topology::Chain { nodes: t.nodes.expect(need), spacing: t.spacing_m.expect(need) },
            TopologyKind::Grid => Topology::Grid { rows: t.rows.expect(need), cols: t.cols.expect(need), spacing: t.spacing_m.expect(need) },
            TopologyKind::Random => Topology::Random { nodes: t.nodes.expect(need), width: t.width_m.expect(need), height: t.height_m.expect(need) },
            TopologyKind::Explicit => Topology::Explicit { positions: t.positions.expect(need) },
        })
    }
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

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    fn topology_error(table: &str) -> (String, String) {
        let e = Scenario::from_toml_str(&format!("duration_s = 10.0\n[topology]\n{table}\n")).expect_err(table);
        (e.field.clone(), e.to_string())
    }

    #[test]
    fn errors_inside_the_topology_name_their_field() {
        // A bad value: its field, as anywhere else in a scenario.
        let (field, _) = topology_error("kind = \"grid\"\nrows = 3\ncols = 3\nspacing_m = \"far\"");
        assert_eq!(field, "topology.spacing_m");
        let (field, _) = topology_error("kind = \"random\"\nnodes = -1\nwidth_m = 1.0\nheight_m = 1.0");
        assert_eq!(field, "topology.nodes");
        // A field of another kind, or one missing: the table, and the kind's fields.
        let (field, text) = topology_error("kind = \"chain\"\nnodes = 3\nspacing_m = 200.0\nrows = 2");
        assert_eq!(field, "topology");
        assert!(text.contains("unknown field `rows` for kind = \"chain\", expected one of `nodes`, `spacing_m`"), "{text}");
        let (_, text) = topology_error("kind = \"grid\"\nrows = 3\nspacing_m = 200.0");
        assert!(text.contains("missing field `cols`"), "{text}");
        // Each kind still reads as before.
        for ok in ["kind = \"chain\"\nnodes = 3\nspacing_m = 200.0", "kind = \"explicit\"\npositions = [[0.0, 0.0], [100.0, 0.0]]"] {
            Scenario::from_toml_str(&format!("duration_s = 10.0\n[topology]\n{ok}\n")).unwrap();
        }
    }
}
