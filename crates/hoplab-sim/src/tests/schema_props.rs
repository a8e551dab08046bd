//! Property tests of the scenario parser and validator: arbitrary text and
//! arbitrary or mutated scenario trees never panic; every error names a
//! field of the schema (or none, for syntax errors); every accepted
//! scenario has every number, defaults included, inside its documented
//! range. Short by default (CI); `PROPTEST_CASES=100000 cargo test
//! --release -p hoplab-sim --test schema_props` runs longer.

use crate::scenario::schema::{fields, ranges, reference};
use crate::Scenario;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const CASES: u32 = 256;

fn config() -> ProptestConfig {
    // PROPTEST_CASES overrides `cases` when set (proptest reads it itself).
    ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() }
}

/// Index-free pattern of an error's field (`flows[0].tcp.mss_bytes` -> `flows[].tcp.mss_bytes`).
fn pattern(field: &str) -> String {
    let mut out = String::new();
    let mut in_idx = false;
    for c in field.chars() {
        match c {
            '[' => {
                in_idx = true;
                out.push_str("[]");
            }
            ']' => in_idx = false,
            _ if in_idx => {}
            _ => out.push(c),
        }
    }
    out
}

/// The field is empty, a schema field, or a table/list that holds some.
fn names_schema_field(field: &str) -> bool {
    if field.is_empty() {
        return true;
    }
    let p = pattern(field);
    let p = p.strip_prefix("flows[].").filter(|k| k.starts_with("tcp")).unwrap_or(&p).to_string();
    // serde also reads a struct from a list of its fields in order, so a
    // table given as a list is named `mac[0]`: compare without list marks.
    let p = p.replace("[]", "");
    fields::FIELDS.iter().map(|f| f.path.replace("[]", "")).any(|f| f == p || f.starts_with(&format!("{p}.")))
}

fn base() -> Value {
    json!({
        "name": "p", "duration_s": 5.0,
        "topology": {"kind": "chain", "nodes": 4, "spacing_m": 200.0},
        "mac": {"rts_threshold_bytes": 100},
        "tcp": {"mss_bytes": 1460},
        "routing": {"protocol": "aodv"},
        "mobility": {"legs": [{"node": 1, "at_s": 1.0, "to": [10.0, 0.0], "speed_mps": 5.0}]},
        "flows": [{"kind": "ftp", "src": 0, "dst": 3, "start_s": 0.5},
                  {"kind": "cbr", "src": 3, "dst": 0, "rate_kbps": 10.0, "packet_size_bytes": 512}]
    })
}

/// Concrete JSON location of a schema field in `base()` (`[]` -> item 0).
fn set(root: &mut Value, path: &str, v: Value) {
    let mut node = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (key, list) = match part.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (*part, false),
        };
        let key = key.trim_end_matches("[]");
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let last = i + 1 == parts.len();
        let entry = node.as_object_mut().unwrap().entry(key.to_string()).or_insert(Value::Null);
        if list {
            if !entry.is_array() || entry.as_array().unwrap().is_empty() {
                *entry = json!([{}]);
            }
            node = &mut entry.as_array_mut().unwrap()[0];
            if last {
                *node = v;
                return;
            }
        } else if last {
            *entry = v;
            return;
        } else {
            node = entry;
        }
    }
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<f64>().prop_filter("JSON has no NaN", |x| x.is_finite()).prop_map(|x| json!(x)),
        (-1e3f64..1e4).prop_map(|x| json!(x)),
        any::<i64>().prop_map(|x| json!(x)),
        any::<u64>().prop_map(|x| json!(x)),
        (0u32..100).prop_map(|x| json!(x)),
        prop::sample::select(vec![0.0, 1e-12, 1e-9, 1e-7, 1e-3, 0.0625, 1.0, 255.0, 65535.0, 1e9, 1e12, 4294967295.0, -1.0]).prop_map(|x| json!(x)),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![number(), any::<bool>().prop_map(Value::Bool), "[a-z_\\-]{0,8}".prop_map(Value::String), Just(Value::Null)]
}

/// Arbitrary JSON trees whose keys are mostly schema keys.
fn tree() -> impl Strategy<Value = Value> {
    let keys: Vec<String> = fields::FIELDS
        .iter()
        .flat_map(|f| f.path.split('.').map(|k| k.trim_end_matches("[]").trim_end_matches("[]").to_string()))
        .chain(["kind", "protocol", "aodv", "legs", "tcp", "duration", "spacing", "start", "mss"].map(String::from))
        .collect();
    let key = prop::sample::select(keys);
    leaf().prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every accepted scenario, resolved (defaults and preset included), is in range.
fn accepted_is_in_range(sc: &Scenario) {
    let tree = reference::resolved(sc).expect("an accepted scenario resolves");
    if let Err(e) = ranges::check("", &tree) {
        panic!("accepted a value outside its range: {e}");
    }
}

fn check(result: Result<(Scenario, Vec<String>), crate::ScenarioError>) -> Result<(), TestCaseError> {
    match result {
        Ok((sc, _)) => accepted_is_in_range(&sc),
        Err(e) => {
            // An unknown key is named itself; its table must be the schema's.
            let field = if e.message.starts_with("unknown field") { e.field.rsplit_once('.').map_or("", |(t, _)| t) } else { &e.field };
            prop_assert!(names_schema_field(field), "error names no schema field: {e:?}")
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        let _ = Scenario::parse_toml(&s);
        let _ = Scenario::parse_json(&s);
    }

    #[test]
    fn toml_ish_text_never_panics(lines in prop::collection::vec(("[a-z_.\\[\\]]{1,20}", "[0-9a-z.\"\\-+e\\[\\], ]{0,12}"), 0..12)) {
        let text: String = lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
        let _ = Scenario::parse_toml(&(String::from("duration_s = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing_m = 100.0\n") + &text));
    }

    #[test]
    fn arbitrary_trees_never_panic_and_name_a_field(t in tree()) {
        check(Scenario::parse_json(&t.to_string()))?;
    }

    #[test]
    fn mutated_scenarios_stay_in_range(idx in 0..fields::FIELDS.len(), v in prop_oneof![number(), leaf()], idx2 in 0..fields::FIELDS.len(), v2 in number()) {
        let mut sc = base();
        set(&mut sc, fields::FIELDS[idx].path, v);
        set(&mut sc, fields::FIELDS[idx2].path, v2);
        check(Scenario::parse_json(&sc.to_string()))?;
    }
}

#[test]
fn the_base_scenario_is_valid() {
    Scenario::parse_json(&base().to_string()).unwrap();
}
