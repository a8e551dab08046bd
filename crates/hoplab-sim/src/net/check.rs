//! Checks shared by the protocols' configuration `validate` methods, which
//! all report a bad value as (field, message) so that the scenario layer can
//! name it as `routing.<protocol>.<field>`.

pub type Invalid = (&'static str, String);

/// A duration that must be positive.
#[cfg(test)]
pub fn positive_s(field: &'static str, v: f64) -> Result<(), Invalid> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err((field, format!("must be a positive number of seconds, got {v}")))
    }
}

/// A duration that may be zero (a jitter or hold-off that can be off).
#[cfg(test)]
pub fn non_negative_s(field: &'static str, v: f64) -> Result<(), Invalid> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err((field, format!("must be zero or more seconds, got {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_non_finite_values() {
        assert!(positive_s("a", 0.5).is_ok());
        assert_eq!(positive_s("a", 0.0).unwrap_err().0, "a");
        assert!(positive_s("a", f64::INFINITY).is_err());
        assert!(non_negative_s("b", 0.0).is_ok());
        assert!(non_negative_s("b", -1e-9).is_err());
        assert!(non_negative_s("b", f64::NAN).is_err());
    }
}
