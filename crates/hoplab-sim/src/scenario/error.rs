//! The one error a scenario can have: the dotted path of the offending
//! field, what is wrong, and where in the text (when the parser knows).

use std::fmt;

/// A scenario error: the dotted path of the offending field and what is
/// wrong; `line` and `column` (1-based, in characters) where the parser
/// found it, taken from its structured position (the toml crate's byte
/// span, serde_json's line and column), never from its message text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError { field: field.into(), message: message.into(), line: None, column: None }
    }

    /// A TOML syntax error: "invalid TOML: problem" at the span's start.
    pub(crate) fn toml_syntax(text: &str, e: &toml::de::Error) -> ScenarioError {
        // `message()` is the problem alone; `Display` adds a caret diagram.
        ScenarioError::new("", format!("invalid TOML: {}", e.message().trim_end())).at_span(text, e.span())
    }

    /// A JSON syntax error: "invalid JSON: problem" at serde_json's position.
    pub(crate) fn json_syntax(e: &serde_json::Error) -> ScenarioError {
        // serde_json has no accessor for the problem alone: its Display is
        // the problem then " at line L column C" (0: no position), made from
        // the same line and column given here, so that suffix is cut.
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let problem = full.strip_suffix(&suffix).unwrap_or(&full);
        let mut out = ScenarioError::new("", format!("invalid JSON: {problem}"));
        if e.line() > 0 {
            (out.line, out.column) = (Some(e.line()), Some(e.column()));
        }
        out
    }

    /// The same error placed at the start of byte range `span` of `text`.
    pub(crate) fn at_span(mut self, text: &str, span: Option<std::ops::Range<usize>>) -> ScenarioError {
        if let Some(r) = span {
            let (line, column) = line_column(text, r.start);
            (self.line, self.column) = (Some(line), Some(column));
        }
        self
    }
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{}", self.message)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, " (at line {l}, column {c})")?;
        }
        Ok(())
    }
}
impl std::error::Error for ScenarioError {}

pub(crate) fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, message))
}

/// A serde error at `path` (`flows[0].dst`), in plain words (`plain_message`).
pub(crate) fn serde_error(path: &serde_path_to_error::Path, message: &str, notation: Notation) -> ScenarioError {
    let field = path.to_string();
    ScenarioError::new(if field == "." { String::new() } else { field }, plain_message(message, notation))
}

/// The scenario's notation, for naming a table in a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Notation {
    Toml,
    Json,
}

/// What serde's "expected ..." names, in the user's words instead of Rust's
/// type names: the one table every serde message passes through
/// (`plain_message`).
const EXPECTED: &[(&str, &str)] = &[
    ("u8", "a whole number from 0 to 255"),
    ("u16", "a whole number from 0 to 65535"),
    ("u32", "a whole number from 0 to 4294967295"),
    ("u64", "a whole number from 0 to 18446744073709551615"),
    ("usize", "a whole number from 0 to 18446744073709551615"),
    ("i8", "a whole number from -128 to 127"),
    ("i16", "a whole number from -32768 to 32767"),
    ("i32", "a whole number from -2147483648 to 2147483647"),
    ("i64", "a whole number from -9223372036854775808 to 9223372036854775807"),
    ("f32", "a number"),
    ("f64", "a number"),
    ("a boolean", "true or false"),
    ("a sequence", "an array"),
    ("variant identifier", "a name (a string)"),
];

/// A serde error message with every Rust type name in its "expected ..."
/// replaced from `EXPECTED` ("struct X" and "map": a table, or a JSON
/// object; "enum X": a name).
pub(crate) fn plain_message(message: &str, notation: Notation) -> String {
    let table = match notation {
        Notation::Toml => "a table",
        Notation::Json => "an object",
    };
    let Some(at) = message.rfind("expected ") else {
        return message.to_string();
    };
    let (head, what) = message.split_at(at + "expected ".len());
    // The toml crate may append its own words after serde's: only the
    // expected type itself, up to the end or a " (", is replaced.
    let (what, tail) = what.split_at(what.find(" (").unwrap_or(what.len()));
    let plain = if let Some((_, p)) = EXPECTED.iter().find(|(rust, _)| *rust == what) {
        p.to_string()
    } else if what == "a map" || what.starts_with("struct ") || what.starts_with("internally tagged enum ") {
        table.to_string()
    } else if what.starts_with("enum ") {
        "a name (a string)".to_string()
    } else {
        what.to_string()
    };
    format!("{head}{plain}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_become_words() {
        let m = plain_message("invalid value: integer `-1`, expected u32", Notation::Toml);
        assert_eq!(m, "invalid value: integer `-1`, expected a whole number from 0 to 4294967295");
        assert_eq!(plain_message("invalid type: string \"x\", expected f64", Notation::Json), "invalid type: string \"x\", expected a number");
        assert_eq!(plain_message("invalid type: integer `5`, expected struct Radio", Notation::Toml), "invalid type: integer `5`, expected a table");
        assert_eq!(plain_message("invalid type: integer `5`, expected struct Radio", Notation::Json), "invalid type: integer `5`, expected an object");
        // a list of names is left as it is
        let known = "unknown field `x`, expected one of `a`, `b`";
        assert_eq!(plain_message(known, Notation::Toml), known);
    }

    #[test]
    fn positions_come_from_the_parsers() {
        let text = "duration_s = 10\nseed = \n";
        let e = toml::from_str::<toml::Table>(text).unwrap_err();
        let s = ScenarioError::toml_syntax(text, &e);
        assert_eq!((s.line, s.column), (Some(2), Some(8)));
        assert!(s.message.starts_with("invalid TOML: ") && !s.message.contains('\n'), "{}", s.message);
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": 1,\n \"b\": 2, }").unwrap_err();
        let s = ScenarioError::json_syntax(&e);
        assert_eq!((s.line, s.column), (Some(2), Some(10)));
        assert_eq!(s.message, "invalid JSON: trailing comma");
        assert_eq!(s.to_string(), "invalid JSON: trailing comma (at line 2, column 10)");
        // columns count characters, not bytes
        assert_eq!(line_column("é = 1\nä ö", 10), (2, 3));
    }
}
