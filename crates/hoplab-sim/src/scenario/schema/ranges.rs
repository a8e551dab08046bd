//! Range checks driven by the field table: the scenario is serialised to a
//! TOML tree (which, unlike JSON, keeps NaN and infinities) and every number
//! in it is checked against its field's range.

use super::fields::{find, num, Field};
use crate::scenario::error::ScenarioError;
use toml::Value;

/// Check every number under `value`, whose dotted path is `prefix`, against
/// the table. Numbers of fields without a range (the seed) are skipped.
pub fn check(prefix: &str, value: &Value) -> Result<(), ScenarioError> {
    let mut pattern = String::from(prefix);
    let mut path = String::from(prefix);
    walk(value, &mut pattern, &mut path)
}

fn walk(v: &Value, pattern: &mut String, path: &mut String) -> Result<(), ScenarioError> {
    match v {
        Value::Table(m) => {
            for (k, child) in m {
                let (pl, ql) = (pattern.len(), path.len());
                if !pattern.is_empty() {
                    pattern.push('.');
                    path.push('.');
                }
                pattern.push_str(k);
                path.push_str(k);
                walk(child, pattern, path)?;
                pattern.truncate(pl);
                path.truncate(ql);
            }
        }
        Value::Array(items) => {
            let (pl, ql) = (pattern.len(), path.len());
            pattern.push_str("[]");
            for (i, child) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                walk(child, pattern, path)?;
                path.truncate(ql);
            }
            pattern.truncate(pl);
        }
        Value::Integer(x) => number(pattern, path, *x as f64)?,
        Value::Float(x) => number(pattern, path, *x)?,
        _ => {}
    }
    Ok(())
}

fn number(pattern: &str, path: &str, v: f64) -> Result<(), ScenarioError> {
    match find(pattern) {
        Some(f) => in_range(f, path, v),
        None => Ok(()),
    }
}

/// `Err` naming the field, the value, the range and its reason.
pub fn in_range(f: &Field, path: &str, v: f64) -> Result<(), ScenarioError> {
    match &f.range {
        Some(r) if !r.contains(v) => Err(ScenarioError::new(
            path,
            format!("{}{} is outside {}{}: {}", num(v), unit(f.unit), r.text(), unit(f.unit), r.why),
        )),
        _ => Ok(()),
    }
}

fn unit(u: &str) -> String {
    if u.is_empty() { String::new() } else { format!(" {u}") }
}
