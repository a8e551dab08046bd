//! Reading a scenario from TOML or JSON: old key names upgraded, every error
//! named by its dotted path (and position, for TOML text and JSON syntax),
//! then validated.

use super::error::{err, serde_error, Notation, ScenarioError};
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
        let syntax = |e: toml::de::Error| ScenarioError::toml_syntax(s, &e);
        let de = toml::de::Deserializer::parse(s).map_err(syntax)?;
        let mut tree = toml::Value::Table(s.parse::<toml::Table>().map_err(syntax)?);
        let warnings = super::schema::rename::upgrade(&mut tree)?;
        let tree_error = |e: serde_path_to_error::Error<toml::de::Error>| serde_error(e.path(), e.inner().message(), Notation::Toml);
        let sc: Scenario = if warnings.is_empty() {
            // Deserialise the text itself so that errors can give a position.
            serde_path_to_error::deserialize(de)
                .map_err(|e| serde_error(e.path(), e.inner().message(), Notation::Toml).at_span(s, e.inner().span()))?
        } else {
            serde_path_to_error::deserialize(tree.clone()).map_err(tree_error)?
        };
        // The profile fills in fields of a scenario already known to parse.
        let sc = if sc.compat.is_standard() {
            sc
        } else {
            super::schema::compat::apply(&mut tree);
            serde_path_to_error::deserialize(tree).map_err(tree_error)?
        };
        Ok((Self::checked(sc)?, warnings))
    }

    /// Parse and validate JSON; warnings as for `parse_toml`.
    pub fn parse_json(s: &str) -> Result<(Scenario, Vec<String>), ScenarioError> {
        let mut tree: serde_json::Value = serde_json::from_str(s).map_err(|e| ScenarioError::json_syntax(&e))?;
        if !tree.is_object() {
            return err("", "invalid JSON: the scenario must be an object ({\"duration_s\": ..., \"topology\": {...}})");
        }
        let warnings = super::schema::rename::upgrade(&mut tree)?;
        // From a tree: serde_json gives no position, and there is no text to point into.
        let tree_error = |e: serde_path_to_error::Error<serde_json::Error>| serde_error(e.path(), &e.inner().to_string(), Notation::Json);
        if tree.get("compat").is_some_and(|c| c.as_str() != Some("standard")) {
            // Refuse a bad name before the profile fills anything in.
            serde_path_to_error::deserialize::<_, Scenario>(tree.clone()).map_err(tree_error)?;
            super::schema::compat::apply(&mut tree);
        }
        let sc = serde_path_to_error::deserialize(tree).map_err(tree_error)?;
        Ok((Self::checked(sc)?, warnings))
    }

    fn checked(sc: Scenario) -> Result<Scenario, ScenarioError> {
        sc.validate()?;
        Ok(sc)
    }
}
