use super::fields::{find, FIELDS};
use super::reference::{entries, resolved, resolved_toml};
use super::{ranges, rename};
use crate::scenario::routing::{preset_tables, PROTOCOLS};
use crate::scenario::Scenario;
use std::collections::BTreeSet;
use toml::Value;

const BASE: &str = r#"
name = "t"
duration_s = 10.0
[topology]
kind = "chain"
nodes = 3
spacing_m = 200.0
[[flows]]
kind = "ftp"
src = 0
dst = 2
"#;

/// Leaf patterns of a tree (`[]` for list items).
fn leaves(v: &Value, path: String, out: &mut BTreeSet<String>) {
    match v {
        Value::Table(t) => {
            for (k, c) in t {
                leaves(c, if path.is_empty() { k.clone() } else { format!("{path}.{k}") }, out);
            }
        }
        Value::Array(a) => {
            for c in a {
                leaves(c, format!("{path}[]"), out);
            }
        }
        _ => {
            out.insert(path);
        }
    }
}

fn parse(s: &str) -> Result<Scenario, crate::ScenarioError> {
    Scenario::from_toml_str(s)
}

#[test]
fn the_table_lists_exactly_the_fields_the_structs_have() {
    let mut seen = BTreeSet::new();
    let full = format!(
        "{BASE}stop_s = 5.0\nbytes = 1000\n[flows.tcp]\nmss_bytes = 1000\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 1.0\npacket_size_bytes = 100\non_s = 1.0\noff_s = 2.0\ndistribution = \"fixed\"\nmax_packets = 10\n[[flows]]\nkind = \"cbr\"\nsrc = 0\ndst = 1\nrate_kbps = 1.0\njitter = true\n\
         [[flows]]\nkind = \"www\"\nsrc = 0\ndst = 2\ndownloads = 3\nthink_shape = 1.5\nthink_scale_s = 1.0\nsize_median_bytes = 7145.0\nsize_sigma = 1.0\n\
         [[mobility.legs]]\nnode = 1\nat_s = 1.0\nto = [1.0, 2.0]\nspeed_mps = 1.0\n[routing]\nprotocol = \"aodv\"\npreset = \"aodv-uu\"\n\
         [radio]\ntx_range_m = 250.0\ncs_range_m = 550.0\ninterference_range_m = 550.0\n\
         [trace]\nformats = [\"csv\"]\nnodes = [1]\nlayers = [\"MAC\"]\ndrop_levels = [\"RTR\"]\npacket_types = [\"tcp\"]\nevents = [\"send\"]\nend_s = 5.0\n\
         [emulation]\nnodes = [0, 2]\nnamespaces = [\"\", \"lab2\"]\n[[emulation.commands]]\nnode = 2\nrun = \"sleep 1\"\n"
    );
    let sc = parse(&full).unwrap();
    leaves(&resolved(&sc).unwrap(), String::new(), &mut seen);
    let few = parse(&format!("{BASE}[tcp]\nfew_alpha = 0.5\n")).unwrap();
    leaves(&resolved(&few).unwrap(), String::new(), &mut seen);
    for topo in ["kind = \"grid\"\nrows = 2\ncols = 2\nspacing_m = 1.0", "kind = \"random\"\nnodes = 3\nwidth_m = 9.0\nheight_m = 9.0", "kind = \"explicit\"\npositions = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]"] {
        let s = BASE.replace("kind = \"chain\"\nnodes = 3\nspacing_m = 200.0", topo);
        leaves(&resolved(&parse(&s).unwrap()).unwrap(), String::new(), &mut seen);
    }
    let ns2 = parse(&format!("compat = \"ns2\"\n{BASE}")).unwrap();
    leaves(&resolved(&ns2).unwrap(), String::new(), &mut seen);
    for p in PROTOCOLS {
        let s = format!("{BASE}[routing]\nprotocol = \"{p}\"\n");
        leaves(&resolved(&parse(&s).unwrap()).unwrap(), String::new(), &mut seen);
    }
    seen.retain(|p| !p.starts_with("flows[].tcp."));
    let table: BTreeSet<String> = FIELDS.iter().map(|f| f.path.to_string()).collect();
    assert_eq!(seen.difference(&table).collect::<Vec<_>>(), Vec::<&String>::new(), "fields missing from the table");
    assert_eq!(table.difference(&seen).collect::<Vec<_>>(), Vec::<&String>::new(), "table rows that are no field");
}

#[test]
fn every_default_and_preset_is_in_range() {
    let sc = parse(BASE).unwrap();
    ranges::check("", &resolved(&sc).unwrap()).unwrap();
    for proto in PROTOCOLS {
        for (n, t) in preset_tables(proto) {
            ranges::check(&format!("routing.{proto}"), &Value::Table(t)).unwrap_or_else(|e| panic!("preset {n}: {e}"));
        }
    }
    // The reference shows per-preset defaults where they differ.
    let e = entries();
    let ld = e.iter().find(|e| e.path == "routing.aodv.link_detection").unwrap();
    assert_eq!(ld.default, "rfc3561: \"link_layer\"; aodv-uu: \"hello\"; cmu: \"link_layer\"");
    assert_eq!(e.iter().find(|e| e.path == "tcp.mss_bytes").unwrap().default, "1460");
    assert_eq!(e.len(), FIELDS.len());
}

#[test]
fn the_issue_reproducers_are_refused_by_range() {
    let cases = [
        ("[mac]\ndata_rate_mbps = 1e-7", "mac.data_rate_mbps", "802.11"),
        ("[tcp]\ninitial_rto_s = 1e-12", "tcp.initial_rto_s", "1 ms"),
        ("[tcp]\nmax_rto_s = 1e-12", "tcp.max_rto_s", "1 ms"),
        ("[tcp]\nmin_rto_s = -1e-12", "tcp.min_rto_s", "minrto_ 0"),
        ("[tcp]\nheader_bytes = 121", "tcp.header_bytes", "useHeaders_"),
        ("[tcp]\ndelack_timeout_s = 1e-12", "tcp.delack_timeout_s", "1 ms"),
        ("[tcp]\ninitial_cwnd = 4294967295", "tcp.initial_cwnd", "RFC 7323"),
        ("[radio]\ntx_range_m = 1e9", "radio.tx_range_m", "coverage"),
        ("[mobility]\nstep_m = 1e-9", "mobility.step_m", "1 cm"),
        ("[routing]\nprotocol = \"aodv\"\n[routing.aodv]\nhello_interval_s = 1e-9", "routing.aodv.hello_interval_s", "1 ms"),
        ("[routing]\nprotocol = \"dsdv\"\n[routing.dsdv]\nperiodic_update_s = 1e-9", "routing.dsdv.periodic_update_s", "1 ms"),
        ("[radio]\ntx_power_w = nan", "radio.tx_power_w", "W"),
    ];
    for (extra, field, reason) in cases {
        let e = parse(&format!("{BASE}{extra}\n")).unwrap_err();
        assert_eq!(e.field, field, "{extra}: {e}");
        assert!(e.message.contains("is outside") && e.message.contains(reason), "{extra}: {e}");
    }
    let e = parse(&BASE.replace("dst = 2\n", "dst = 2\nrate_kbps = 1e12\n").replace("\"ftp\"", "\"cbr\"")).unwrap_err();
    assert_eq!(e.field, "flows[0].rate_kbps", "{e}");
    assert!(e.message.starts_with("1e12 kbit/s is outside [0.001, 1e7] kbit/s"), "{e}");
    // A window in segments is bounded at the flow's actual MSS too.
    let e = parse(&format!("{BASE}[tcp]\ninitial_cwnd = 1000000\n")).unwrap_err();
    assert_eq!(e.field, "tcp.initial_cwnd");
    assert!(e.message.contains("735428 segments"), "{e}");
}

#[test]
fn old_key_names_still_work_and_warn() {
    let old = BASE.replace("duration_s", "duration").replace("spacing_m", "spacing") + "start = 1.0\n[flows.tcp]\nmin_rto = 1.0\n";
    let (sc, warnings) = Scenario::parse_toml(&old).unwrap();
    assert_eq!(
        warnings,
        ["duration is deprecated, use duration_s", "topology.spacing is deprecated, use topology.spacing_m", "flows[0].start is deprecated, use flows[0].start_s", "flows[0].tcp.min_rto is deprecated, use flows[0].tcp.min_rto_s"]
    );
    let new = BASE.to_string() + "start_s = 1.0\n[flows.tcp]\nmin_rto_s = 1.0\n";
    let (sc2, none) = Scenario::parse_toml(&new).unwrap();
    assert!(none.is_empty());
    assert_eq!(resolved_toml(&sc).unwrap(), resolved_toml(&sc2).unwrap());
    let (_, json_w) = Scenario::parse_json(r#"{"duration": 5, "topology": {"kind": "chain", "nodes": 2, "spacing": 100}}"#).unwrap();
    assert_eq!(json_w.len(), 2);
    let e = parse(&format!("duration = 3.0\n{BASE}")).unwrap_err();
    assert_eq!(e.field, "duration_s");
    assert!(e.message.contains("both duration (deprecated) and duration_s"), "{e}");
    assert_eq!(rename::RENAMES.iter().filter(|r| find(format!("{}.{}", r.0, r.2).trim_start_matches('.')).is_none()).count(), 0);
}

#[test]
fn the_resolved_scenario_reparses_to_itself() {
    let s = format!("{BASE}[routing]\nprotocol = \"olsr\"\npreset = \"oolsr\"\n[routing.olsr]\ntc_interval_s = 4.0\n");
    let once = resolved_toml(&parse(&s).unwrap()).unwrap();
    assert!(once.contains("tc_interval_s = 4.0") && once.contains("hello_interval_s = 1.0") && once.contains("mss_bytes = 1460"), "{once}");
    assert_eq!(resolved_toml(&parse(&once).unwrap()).unwrap(), once);
}


/// `[emulation]`: each problem refused with the field named; a good table
/// accepted with its defaults; no table, nothing written.
#[test]
fn emulation_checks_name_the_field() {
    let base = BASE.replace("nodes = 3", "nodes = 5");
    let cases = [
        ("nodes = []", "emulation.nodes", "needs at least one real node"),
        ("nodes = [0, 9]", "emulation.nodes", "node 9 is not in the scenario (nodes 0..4)"),
        ("nodes = [0, 70000]", "emulation.nodes[1]", "is outside [0, 65533]"),
        ("nodes = [1, 3, 1]", "emulation.nodes", "node 1 is listed twice"),
        ("nodes = [0, 4]\nnamespaces = [\"lab\"]", "emulation.namespaces", "1 name(s) for 2 real node(s)"),
        ("nodes = [0, 4]\nnamespaces = [\"\", \"a/b\"]", "emulation.namespaces[1]", "\"a/b\" is not a namespace name"),
        ("nodes = [0, 4]\nnamespaces = [\"..\", \"\"]", "emulation.namespaces[0]", "is not a namespace name"),
        ("nodes = [0, 4]\nnamespaces = [\"lab\", \"lab\"]", "emulation.namespaces[1]", "\"lab\" is node 0's namespace already"),
        ("nodes = [0, 4]\nlookahead_ms = 0.0", "emulation.lookahead_ms", "is outside [0.1, 1000] ms"),
        ("nodes = [0, 4]\nlag_threshold_ms = 1e9", "emulation.lag_threshold_ms", "is outside"),
        ("nodes = [0, 4]\nspin_us = -1.0", "emulation.spin_us", "is outside [0, 10000] us"),
        ("nodes = [0, 4]\non_lag = \"panic\"", "emulation.on_lag", "unknown variant `panic`"),
        ("nodes = [0, 4]\nrealtime = 1", "emulation.realtime", "true or false"),
        ("nodes = [0, 4]\nbogus = 1", "emulation", "unknown field `bogus`"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 2\nrun = \"x\"", "emulation.commands[0].node", "node 2 is not a real node (emulation.nodes = [0, 4])"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0", "emulation.commands[0]", "missing field `run`"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = \"  \"", "emulation.commands[0].run", "is empty"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = \"echo 'a\"", "emulation.commands[0].run", "a single quote (') is not closed"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = 'echo \"a \\\"'", "emulation.commands[0].run", "a double quote (\") is not closed"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = 'echo a\\'", "emulation.commands[0].run", "ends with an escaping"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = \"x\"\nstart_s = 10.0", "emulation.commands[0].start_s", "not before the end of the run (10 s)"),
        ("nodes = [0, 4]\n[[emulation.commands]]\nnode = 0\nrun = \"x\"\nstart_s = -1.0", "emulation.commands[0].start_s", "is outside"),
    ];
    for (table, field, text) in cases {
        let e = parse(&format!("{base}[emulation]\n{table}\n")).unwrap_err();
        assert!(e.field == field || (field == "emulation" && e.field.starts_with("emulation")), "{table}: {e}");
        assert!(e.message.contains(text), "{table}: {e}");
    }
    let good = parse(&format!("{base}[emulation]\nnodes = [4, 0]\nnamespaces = [\"lab4\", \"\"]\n[[emulation.commands]]\nnode = 4\nrun = \"sleep 1\"\nstart_s = 0.5\n")).unwrap();
    let e = good.emulation.as_ref().unwrap();
    assert_eq!((e.nodes.clone(), e.lookahead_ms, e.on_lag, e.lag_threshold_ms, e.spin_us, e.realtime), (vec![4, 0], 2.0, crate::scenario::OnLag::Warn, 5.0, 200.0, false));
    assert!(e.commands[0].wait && e.commands[0].start_s == 0.5);
    let text = resolved_toml(&good).unwrap();
    assert!(text.contains("[emulation]") && text.contains("lookahead_ms = 2.0") && text.contains("[[emulation.commands]]"), "{text}");
    assert_eq!(resolved_toml(&parse(&text).unwrap()).unwrap(), text);
    // Without the table, nothing of it is written: resolved scenarios (the
    // lab's run keys) are what they were.
    let plain = resolved_toml(&parse(&base).unwrap()).unwrap();
    assert!(!plain.contains("emulation"), "{plain}");
    // The simulation ignores it: the same run, event for event.
    let with = format!("{base}[emulation]\nnodes = [0, 4]\n");
    let (a, b) = (crate::run(&parse(&base).unwrap(), 1), crate::run(&parse(&with).unwrap(), 1));
    assert_eq!((a.info.events, a.info.event_hash), (b.info.events, b.info.event_hash));
}
