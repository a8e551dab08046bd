//! Reading a scenario from TOML or JSON: old key names upgraded, every error
//! named by its dotted path (and line, for TOML), then validated.

use super::error::{err, ScenarioError};
use super::model::Scenario;

impl Scenario {
    pub fn from_toml_str(s: &str) -> Result<Scenario, ScenarioError> {
        Self::parse_toml(s).map(|(sc, _)| sc)
    }

    /// The same structure as JSON (what the Python layer sends for a dict).
    pub fn from_json_str(s: &str) -> Result<Scenario, ScenarioError> {
        Self::parse_json(s).map(|(sc, _)| sc)
    }

    /// Parse and validate TOML; also return one deprecation warning per old
    /// key name used (`duration is deprecated, use duration_s`).
    pub fn parse_toml(s: &str) -> Result<(Scenario, Vec<String>), ScenarioError> {
        let syntax = |e: toml::de::Error| ScenarioError { field: String::new(), message: format!("invalid TOML: {}", e.to_string().trim_end()) };
        let de = toml::de::Deserializer::parse(s).map_err(syntax)?;
        let mut tree = toml::Value::Table(s.parse::<toml::Table>().map_err(syntax)?);
        let warnings = super::schema::rename::upgrade(&mut tree)?;
        let sc: Scenario = if warnings.is_empty() {
            // Deserialise the text itself so that errors can give a line.
            serde_path_to_error::deserialize(de).map_err(|e| {
                let msg = e.inner().message().to_string();
                let span = e.inner().span().map(|r| line_of(s, r.start)).map_or(String::new(), |l| format!(" (line {l})"));
                path_error(e.path(), format!("{msg}{span}"))
            })?
        } else {
            serde_path_to_error::deserialize(tree.clone()).map_err(|e| path_error(e.path(), e.inner().message().to_string()))?
        };
        // The profile fills in fields of a scenario already known to parse.
        let sc = if sc.compat.is_standard() {
            sc
        } else {
            super::schema::compat::apply(&mut tree);
            serde_path_to_error::deserialize(tree).map_err(|e| path_error(e.path(), e.inner().message().to_string()))?
        };
        Ok((Self::checked(sc)?, warnings))
    }

    /// Parse and validate JSON; warnings as for `parse_toml`.
    pub fn parse_json(s: &str) -> Result<(Scenario, Vec<String>), ScenarioError> {
        let mut tree: serde_json::Value =
            serde_json::from_str(s).map_err(|e| ScenarioError { field: String::new(), message: e.to_string() })?;
        if !tree.is_object() {
            return err("", "a scenario is a JSON object ({\"duration_s\": ..., \"topology\": {...}})");
        }
        let warnings = super::schema::rename::upgrade(&mut tree)?;
        if tree.get("compat").is_some_and(|c| c.as_str() != Some("standard")) {
            // Refuse a bad name before the profile fills anything in.
            serde_path_to_error::deserialize::<_, Scenario>(tree.clone()).map_err(|e| path_error(e.path(), e.inner().to_string()))?;
            super::schema::compat::apply(&mut tree);
        }
        let sc = serde_path_to_error::deserialize(tree).map_err(|e| path_error(e.path(), e.inner().to_string()))?;
        Ok((Self::checked(sc)?, warnings))
    }

    fn checked(sc: Scenario) -> Result<Scenario, ScenarioError> {
        sc.validate()?;
        Ok(sc)
    }
}

/// Name the field by its dotted path (`flows[0].dst`).
fn path_error(path: &serde_path_to_error::Path, message: String) -> ScenarioError {
    let field = path.to_string();
    ScenarioError { field: if field == "." { String::new() } else { field }, message }
}

fn line_of(s: &str, offset: usize) -> usize {
    s[..offset.min(s.len())].matches('\n').count() + 1
}
