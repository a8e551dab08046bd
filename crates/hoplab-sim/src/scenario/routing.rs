//! `[routing]`: which protocol, its preset, and the protocol's own table.
//! Each protocol owns its parameters (net/*/config.rs); this only chooses
//! one and applies the preset and the user's overrides.

use super::error::{err, plain_message, Notation, ScenarioError};
use crate::net::routing::RoutingConfig;
use crate::net::{aodv, dsdv, dsr, olsr};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest paths from the initial topology (seed 002's "ZERO").
    #[default]
    Static,
    Aodv,
    Dsr,
    Olsr,
    Dsdv,
}

impl RoutingProtocol {
    pub fn name(self) -> &'static str {
        match self {
            RoutingProtocol::Static => "static",
            RoutingProtocol::Aodv => "aodv",
            RoutingProtocol::Dsr => "dsr",
            RoutingProtocol::Olsr => "olsr",
            RoutingProtocol::Dsdv => "dsdv",
        }
    }
}

/// `[routing]`: the protocol, an optional preset of its parameters, and the
/// protocol's own table (`[routing.aodv]` ...) whose fields override the
/// preset's.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Routing {
    pub protocol: RoutingProtocol,
    pub preset: Option<String>,
    pub aodv: Option<toml::Table>,
    pub dsr: Option<toml::Table>,
    pub olsr: Option<toml::Table>,
    pub dsdv: Option<toml::Table>,
}

/// The protocols with a parameter table, in the reference's order.
pub const PROTOCOLS: [&str; 4] = ["aodv", "dsr", "olsr", "dsdv"];

/// Each preset of a protocol with its parameters as a table, the default
/// first; empty for a name that is not in `PROTOCOLS`.
pub fn preset_tables(protocol: &str) -> Vec<(&'static str, toml::Table)> {
    fn all<C: Serialize>(names: &'static [&'static str], get: fn(&str) -> Option<C>) -> Vec<(&'static str, toml::Table)> {
        names.iter().map(|n| (*n, toml::Table::try_from(get(n).expect("a listed preset exists")).expect("a config serialises to a table"))).collect()
    }
    match protocol {
        "aodv" => all(aodv::AodvConfig::PRESETS, aodv::AodvConfig::preset),
        "dsr" => all(dsr::DsrConfig::PRESETS, dsr::DsrConfig::preset),
        "olsr" => all(olsr::OlsrConfig::PRESETS, olsr::OlsrConfig::preset),
        "dsdv" => all(dsdv::DsdvConfig::PRESETS, dsdv::DsdvConfig::preset),
        _ => Vec::new(),
    }
}

impl Routing {
    /// Apply the preset, then the user's fields, and check the result.
    pub fn resolve(&self) -> Result<RoutingConfig, ScenarioError> {
        use RoutingProtocol as P;
        let name = self.protocol.name();
        for (other, table) in [("aodv", &self.aodv), ("dsr", &self.dsr), ("olsr", &self.olsr), ("dsdv", &self.dsdv)] {
            if table.is_some() && other != name {
                return err(format!("routing.{other}"), format!("is given but routing.protocol is \"{name}\""));
            }
        }
        Ok(match self.protocol {
            P::Static => {
                if let Some(p) = &self.preset {
                    return err("routing.preset", format!("static routing has no presets (got \"{p}\")"));
                }
                RoutingConfig::Static
            }
            P::Aodv => RoutingConfig::Aodv(self.build(name, aodv::AodvConfig::PRESETS, aodv::AodvConfig::preset, &self.aodv, |c: &aodv::AodvConfig| c.validate())?),
            P::Dsr => RoutingConfig::Dsr(self.build(name, dsr::DsrConfig::PRESETS, dsr::DsrConfig::preset, &self.dsr, |c: &dsr::DsrConfig| c.validate())?),
            P::Olsr => RoutingConfig::Olsr(self.build(name, olsr::OlsrConfig::PRESETS, olsr::OlsrConfig::preset, &self.olsr, |c: &olsr::OlsrConfig| c.validate())?),
            P::Dsdv => RoutingConfig::Dsdv(self.build(name, dsdv::DsdvConfig::PRESETS, dsdv::DsdvConfig::preset, &self.dsdv, |c: &dsdv::DsdvConfig| c.validate())?),
        })
    }

    fn build<C: Default + Serialize + DeserializeOwned>(
        &self,
        name: &str,
        presets: &[&str],
        preset: fn(&str) -> Option<C>,
        overrides: &Option<toml::Table>,
        validate: impl Fn(&C) -> Result<(), (&'static str, String)>,
    ) -> Result<C, ScenarioError> {
        let base = match &self.preset {
            None => C::default(),
            Some(p) => match preset(p) {
                Some(c) => c,
                None => return err("routing.preset", format!("\"{p}\" is not a {name} preset (known: {})", presets.join(", "))),
            },
        };
        let Some(over) = overrides else {
            validate(&base).or_else(|(f, m)| err(format!("routing.{name}.{f}"), m))?;
            return Ok(base);
        };
        let mut table = toml::Table::try_from(&base).expect("a config serialises to a table");
        for (k, v) in over {
            table.insert(k.clone(), v.clone());
        }
        let cfg: C = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let field = e.path().to_string();
            let field = format!("routing.{name}{}", if field == "." { String::new() } else { format!(".{field}") });
            ScenarioError::new(field, plain_message(e.inner().message(), Notation::Toml))
        })?;
        validate(&cfg).or_else(|(f, m)| err(format!("routing.{name}.{f}"), m))?;
        Ok(cfg)
    }
}
