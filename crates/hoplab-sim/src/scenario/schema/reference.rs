//! The configuration reference (`hoplab config`, docs/SCENARIO.md) and the
//! fully resolved scenario (`hoplab config --resolved`). Defaults are read
//! from the code's `Default`s and routing presets, never written by hand.

use super::fields::{Field, FIELDS};
use crate::mac::config::Mac;
use crate::mobility::config::Mobility;
use crate::net::config::{Link, Lred};
use crate::phy::config::Radio;
use crate::scenario::error::ScenarioError;
use crate::scenario::model::Scenario;
use crate::scenario::output::Output;
use crate::scenario::routing::{preset_tables, PROTOCOLS};
use crate::tcp::config::TcpParams;
use crate::tcp::{few, vegas::VegasParams, TcpConfig};
use serde::Serialize;
use toml::Value;

/// One row of the reference.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub path: &'static str,
    pub ty: &'static str,
    pub unit: &'static str,
    /// The default; for routing fields whose presets differ,
    /// `preset: value; preset: value` (the first preset is the protocol's default).
    pub default: String,
    pub range: String,
    pub why: String,
    pub source: &'static str,
    pub doc: &'static str,
}

/// `p` with every unset field given its effective value (TcpConfig's
/// defaults; the initial window follows the MSS).
pub fn resolved_tcp(p: &TcpParams) -> TcpParams {
    let c = TcpConfig::from_params(p);
    let v = VegasParams::from_params(p);
    TcpParams {
        variant: Some(c.variant),
        mss: Some(c.mss),
        max_cwnd: Some(c.max_cwnd.unwrap_or(0)),
        receive_window: Some(c.receive_window),
        initial_cwnd: Some(c.initial_cwnd),
        initial_ssthresh: Some(c.initial_ssthresh.unwrap_or(0)),
        delayed_ack: Some(c.delayed_ack),
        delack_timeout: Some(c.delack_timeout.as_secs_f64()),
        min_rto: Some(c.rto_min.as_secs_f64()),
        initial_rto: Some(c.rto_initial.as_secs_f64()),
        max_rto: Some(c.rto_max.as_secs_f64()),
        syn: Some(c.syn),
        rto_estimator: Some(c.rto_estimator),
        ns2_rfc2988: Some(c.ns2_rfc2988),
        limited_transmit: Some(c.limited_transmit),
        ns2_recover_gate: Some(c.ns2_recover_gate),
        header_bytes: Some(c.header_bytes),
        delay_growth: Some(c.delay_growth),
        tick: Some(c.tick.as_secs_f64()),
        vegas_alpha: Some(v.alpha),
        vegas_beta: Some(v.beta),
        vegas_gamma: Some(v.gamma),
        receiver: Some(c.receiver),
        clamp: Some(c.clamp),
        few_alpha: Some(p.few_alpha.unwrap_or(1.0)),
        // Giving a FeW bound switches FeW on: fill them only when it is on.
        few_w_min: c.few.map(|f| f.w_min),
        few_ssthresh_min: c.few.map(|f| f.ssthresh_min),
        ecn: Some(c.ecn),
        elfn: Some(c.elfn),
        adtcp: Some(c.adtcp),
        probe_interval: Some(c.probe_interval.as_secs_f64()),
    }
}

fn tree<T: Serialize>(v: &T) -> Value {
    Value::try_from(v).expect("a default serialises to TOML")
}

/// The defaults of every table that has them, as one tree.
fn default_tree() -> Value {
    let mut t = toml::Table::new();
    t.insert("radio".into(), tree(&Radio::default()));
    t.insert("mac".into(), tree(&Mac::default()));
    t.insert("link".into(), tree(&Link::default()));
    t.insert("mobility".into(), tree(&Mobility::default()));
    let tcp = TcpParams { few_w_min: Some(few::DEFAULT_W_MIN), few_ssthresh_min: Some(few::DEFAULT_SSTHRESH_MIN), ..TcpParams::default() };
    t.insert("tcp".into(), tree(&resolved_tcp(&tcp)));
    t.insert("output".into(), tree(&Output::default()));
    t.insert("lred".into(), tree(&Lred::default()));
    t.insert("trace".into(), tree(&crate::trace::config::TraceConfig::default()));
    t.insert("emulation".into(), tree(&crate::scenario::model::EmulationConfig::default()));
    let mut routing = toml::Table::new();
    routing.insert("protocol".into(), Value::String("static".into()));
    t.insert("routing".into(), Value::Table(routing));
    t.insert("seed".into(), Value::Integer(1));
    Value::Table(t)
}

/// Each preset of a protocol with its configuration, default first.
fn presets(protocol: &str) -> Vec<(&'static str, Value)> {
    preset_tables(protocol).into_iter().map(|(n, t)| (n, Value::Table(t))).collect()
}

/// The value at a dotted path without list items.
fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

fn default_of(f: &Field, defaults: &Value) -> String {
    if let Some(d) = f.default {
        return d.to_string();
    }
    if let Some(rest) = f.path.strip_prefix("routing.") {
        if let Some((proto, key)) = rest.split_once('.') {
            let vals: Vec<(&str, String)> =
                presets(proto).iter().map(|(n, c)| (*n, c.get(key).map_or("?".into(), |v| v.to_string()))).collect();
            if vals.iter().all(|(_, v)| *v == vals[0].1) {
                return vals[0].1.clone();
            }
            return vals.iter().map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join("; ");
        }
    }
    lookup(defaults, f.path).map_or_else(|| "unset".into(), |v| v.to_string())
}

/// Every field with its default, in table order.
pub fn entries() -> Vec<Entry> {
    let defaults = default_tree();
    FIELDS
        .iter()
        .map(|f| Entry {
            path: f.path,
            ty: f.ty,
            unit: f.unit,
            default: default_of(f, &defaults),
            range: f.range.map_or(String::new(), |r| r.text()),
            why: f.range.map_or(String::new(), |r| r.why.to_string()),
            source: f.source,
            doc: f.doc,
        })
        .collect()
}

/// The reference as JSON (what the Python layer renders).
pub fn entries_json() -> String {
    let presets: Vec<(String, Vec<&str>)> = PROTOCOLS
        .iter()
        .map(|p| (p.to_string(), presets(p).into_iter().map(|(n, _)| n).collect()))
        .collect();
    let profiles: Vec<serde_json::Value> = super::compat::PROFILE
        .iter()
        .map(|e| {
            serde_json::json!({ "profile": e.profile.name(), "path": e.path, "value": e.value,
                                "when": e.when.map(|(p, v)| format!("{p} = {v}")), "source": e.source })
        })
        .collect();
    serde_json::json!({ "fields": entries(), "presets": presets, "profiles": profiles }).to_string()
}

/// The scenario with every default filled in and the routing preset
/// resolved, as a TOML tree (flows' own `tcp` tables stay overrides).
pub fn resolved(sc: &Scenario) -> Result<Value, ScenarioError> {
    let mut v = Value::try_from(sc).map_err(|e| ScenarioError::new("", format!("cannot be written as TOML: {e}")))?;
    let t = v.as_table_mut().expect("a scenario is a table");
    t.insert("tcp".into(), tree(&resolved_tcp(&sc.tcp)));
    let mut routing = toml::Table::new();
    routing.insert("protocol".into(), Value::String(sc.routing.protocol.name().into()));
    if let Some(p) = &sc.routing.preset {
        routing.insert("preset".into(), Value::String(p.clone()));
    }
    if let Some((name, c)) = sc.routing.resolve()?.table() {
        routing.insert(name.into(), Value::Table(c));
    }
    t.insert("routing".into(), Value::Table(routing));
    Ok(v)
}

/// `resolved` as TOML text.
pub fn resolved_toml(sc: &Scenario) -> Result<String, ScenarioError> {
    toml::to_string(&resolved(sc)?).map_err(|e| ScenarioError::new("", format!("cannot be written as TOML: {e}")))
}
