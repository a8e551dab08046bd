//! The one error a scenario can have: the dotted path of the offending
//! field and what is wrong.

use std::fmt;

/// A scenario error: the dotted path of the offending field and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}
impl std::error::Error for ScenarioError {}

pub(crate) fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { field: field.into(), message: message.into() })
}
