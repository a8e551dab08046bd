//! Old key names (before the unit suffixes) are still accepted: a pre-pass
//! over the parsed TOML or JSON tree renames them and returns one
//! deprecation warning per key. A table that gives both names is an error.

use crate::scenario::error::ScenarioError;

/// (table pattern, old key, new key); `[]` in a pattern is every list item.
pub const RENAMES: &[(&str, &str, &str)] = &[
    ("", "duration", "duration_s"),
    ("topology", "spacing", "spacing_m"),
    ("topology", "width", "width_m"),
    ("topology", "height", "height_m"),
    ("mac", "rts_threshold", "rts_threshold_bytes"),
    ("mobility.legs[]", "at", "at_s"),
    ("mobility.legs[]", "speed", "speed_mps"),
    ("flows[]", "start", "start_s"),
    ("flows[]", "stop", "stop_s"),
    ("flows[]", "packet_size", "packet_size_bytes"),
    ("tcp", "mss", "mss_bytes"),
    ("tcp", "receive_window", "receive_window_bytes"),
    ("tcp", "delack_timeout", "delack_timeout_s"),
    ("tcp", "min_rto", "min_rto_s"),
    ("tcp", "initial_rto", "initial_rto_s"),
    ("tcp", "max_rto", "max_rto_s"),
    ("tcp", "probe_interval", "probe_interval_s"),
    ("flows[].tcp", "mss", "mss_bytes"),
    ("flows[].tcp", "receive_window", "receive_window_bytes"),
    ("flows[].tcp", "delack_timeout", "delack_timeout_s"),
    ("flows[].tcp", "min_rto", "min_rto_s"),
    ("flows[].tcp", "initial_rto", "initial_rto_s"),
    ("flows[].tcp", "max_rto", "max_rto_s"),
    ("flows[].tcp", "probe_interval", "probe_interval_s"),
];

/// A parsed tree the pre-pass can walk: TOML or JSON.
pub trait Tree: Sized {
    fn child(&mut self, key: &str) -> Option<&mut Self>;
    fn items(&mut self) -> Vec<&mut Self>;
    fn has(&self, key: &str) -> bool;
    /// Move `old` to `new` (the caller checked that `new` is absent).
    fn rename(&mut self, old: &str, new: &str);
    /// The string at `key`, if it is one.
    fn get_str(&self, key: &str) -> Option<String>;
    /// The scalar at `key` as a TOML literal (`"aodv"`, `true`, `2`).
    fn get_literal(&self, key: &str) -> Option<String>;
    /// Set `key` to `value` unless present (a table only).
    fn insert_absent(&mut self, key: &str, value: toml::Value);

    /// The scalar at a dotted path of tables, as a TOML literal.
    fn get_path_literal(&mut self, path: &str) -> Option<String> {
        match path.split_once('.') {
            None => self.get_literal(path),
            Some((head, rest)) => self.child(head)?.get_path_literal(rest),
        }
    }
    /// Set a dotted path of tables to `value` unless present, creating the
    /// missing tables; a non-table on the way leaves it to parsing to refuse.
    fn fill(&mut self, path: &str, value: toml::Value) {
        match path.split_once('.') {
            None => self.insert_absent(path, value),
            Some((head, rest)) => {
                self.insert_absent(head, toml::Value::Table(toml::Table::new()));
                if let Some(c) = self.child(head) {
                    c.fill(rest, value);
                }
            }
        }
    }
}

impl Tree for toml::Value {
    fn child(&mut self, key: &str) -> Option<&mut Self> {
        self.as_table_mut()?.get_mut(key)
    }
    fn items(&mut self) -> Vec<&mut Self> {
        self.as_array_mut().map(|a| a.iter_mut().collect()).unwrap_or_default()
    }
    fn has(&self, key: &str) -> bool {
        self.as_table().is_some_and(|t| t.contains_key(key))
    }
    fn rename(&mut self, old: &str, new: &str) {
        if let Some(t) = self.as_table_mut() {
            if let Some(v) = t.remove(old) {
                t.insert(new.to_string(), v);
            }
        }
    }
    fn get_str(&self, key: &str) -> Option<String> {
        self.as_table()?.get(key)?.as_str().map(str::to_string)
    }
    fn get_literal(&self, key: &str) -> Option<String> {
        let v = self.as_table()?.get(key)?;
        (!v.is_table() && !v.is_array()).then(|| v.to_string())
    }
    fn insert_absent(&mut self, key: &str, value: toml::Value) {
        if let Some(t) = self.as_table_mut() {
            t.entry(key).or_insert(value);
        }
    }
}

impl Tree for serde_json::Value {
    fn child(&mut self, key: &str) -> Option<&mut Self> {
        self.as_object_mut()?.get_mut(key)
    }
    fn items(&mut self) -> Vec<&mut Self> {
        self.as_array_mut().map(|a| a.iter_mut().collect()).unwrap_or_default()
    }
    fn has(&self, key: &str) -> bool {
        self.as_object().is_some_and(|t| t.contains_key(key))
    }
    fn rename(&mut self, old: &str, new: &str) {
        if let Some(t) = self.as_object_mut() {
            if let Some(v) = t.remove(old) {
                t.insert(new.to_string(), v);
            }
        }
    }
    fn get_str(&self, key: &str) -> Option<String> {
        self.as_object()?.get(key)?.as_str().map(str::to_string)
    }
    fn get_literal(&self, key: &str) -> Option<String> {
        let v = self.as_object()?.get(key)?;
        (!v.is_object() && !v.is_array()).then(|| v.to_string())
    }
    fn insert_absent(&mut self, key: &str, value: toml::Value) {
        if let Some(t) = self.as_object_mut() {
            t.entry(key).or_insert_with(|| serde_json::to_value(value).expect("a TOML value is JSON"));
        }
    }
}

/// Rename every old key in `root`; the warnings name each one by its path.
pub fn upgrade<T: Tree>(root: &mut T) -> Result<Vec<String>, ScenarioError> {
    let mut warnings = Vec::new();
    for (pattern, old, new) in RENAMES {
        let mut tables = Vec::new();
        tables_at(root, pattern, String::new(), &mut tables);
        for (path, table) in tables {
            if !table.has(old) {
                continue;
            }
            let at = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
            if table.has(new) {
                return Err(ScenarioError::new(
                    at(new),
                    format!("both {} (deprecated) and {} are given; keep only {}", at(old), at(new), new),
                ));
            }
            table.rename(old, new);
            warnings.push(format!("{} is deprecated, use {}", at(old), at(new)));
        }
    }
    Ok(warnings)
}

/// The tables a pattern names, with their concrete paths.
fn tables_at<'a, T: Tree>(node: &'a mut T, pattern: &str, path: String, out: &mut Vec<(String, &'a mut T)>) {
    if pattern.is_empty() {
        out.push((path, node));
        return;
    }
    let (head, rest) = pattern.split_once('.').unwrap_or((pattern, ""));
    let (key, list) = match head.strip_suffix("[]") {
        Some(k) => (k, true),
        None => (head, false),
    };
    let sub = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    let Some(child) = node.child(key) else { return };
    if list {
        for (i, item) in child.items().into_iter().enumerate() {
            tables_at(item, rest, format!("{sub}[{i}]"), out);
        }
    } else {
        tables_at(child, rest, sub, out);
    }
}
