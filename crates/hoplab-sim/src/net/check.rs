//! What the protocols' configuration `validate` methods report: a bad value
//! as (field, message), which the scenario layer names as
//! `routing.<protocol>.<field>`. Ranges are not checked there: each is
//! written once, in the field table (scenario/schema/fields.rs).

pub type Invalid = (&'static str, String);
