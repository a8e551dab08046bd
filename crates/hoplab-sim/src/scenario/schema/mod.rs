//! The scenario schema's metadata in one place: every field's dotted path,
//! type, unit, valid range with its reason, and source (`fields`). The range
//! checks of `Scenario::validate` walk this table (`ranges`), the reference
//! (`hoplab config`, docs/SCENARIO.md) is generated from it (`reference`),
//! and old key names are mapped to the unit-suffixed ones with a deprecation
//! warning before parsing (`rename`).
//!
//! Why a hand-kept table and not a derived JSON schema (schemars): the range,
//! its reason and its source are the point of the table and would have to be
//! written as attributes beside ~200 fields spread over five files anyway;
//! defaults are NOT written here but read from the code's `Default`s and
//! routing presets, and a test checks that the table and the serialised
//! structs list exactly the same fields, so neither can drift.

pub mod compat;
pub mod fields;
pub mod ranges;
pub mod reference;
pub mod rename;


#[cfg(test)]
mod tests;
