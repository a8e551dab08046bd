//! trace.csv and anim.csv: trace rows streamed as CSV text while the run
//! goes (a BufWriter, nothing held). The text is what Python's export of
//! the same table writes (python/hoplab/_csv.py, pandas' `to_csv`): floats
//! as Python's `repr`, NaN as an empty field, booleans True/False, strings
//! quoted only when needed, "\n" line ends; so a streamed trace.csv and the
//! in-memory `trace` table saved as CSV are the same bytes.

use super::event::{TraceEvent, TraceSink};
use super::row::TraceRow;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// `x` as Python's `repr(float)` writes it: the shortest digits that read
/// back as `x` (Rust's `{:e}` gives the same shortest digits), in fixed
/// notation when the decimal exponent is in -4..16, else as `1.5e-05`
/// (CPython pystrtod.c format_float_short, mode 'r').
pub fn py_float(x: f64, out: &mut String) {
    if x.is_nan() {
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i32;
    // The decimal point sits after `decpt` digits.
    let decpt = exp + 1;
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        out.push_str("0.0");
    } else if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else if decpt < n {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    } else {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        out.push_str(".0");
    }
}

/// A string field as Python's csv module writes it (QUOTE_MINIMAL).
fn py_str(s: &str, out: &mut String) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// One row's line, "\n" included.
pub fn line(r: &TraceRow, out: &mut String) {
    py_float(r.time_s, out);
    let _ = write!(out, ",{},", r.node);
    py_str(r.layer, out);
    out.push(',');
    py_str(r.event, out);
    out.push(',');
    py_str(r.frame, out);
    let _ = write!(out, ",{},{},{},{},{},", r.src, r.dst, r.seq, if r.retry { "True" } else { "False" }, r.uid);
    py_str(r.packet_type, out);
    let _ = write!(out, ",{},{},{},{},", r.packet_src, r.packet_dst, r.tcp_seq, r.size_bytes);
    py_float(r.airtime_s, out);
    out.push(',');
    py_str(r.reason, out);
    out.push('\n');
}

/// The header line: the `trace` table's column names (a test checks them
/// against the table's schema; written out so that trace/ needs nothing
/// from results/, which holds the table).
pub const HEADER: &str = "time_s,node,layer,event,frame,src,dst,seq,retry,uid,packet_type,packet_src,packet_dst,tcp_seq,size_bytes,airtime_s,reason\n";

pub fn header() -> String {
    HEADER.to_string()
}

pub struct CsvSink {
    out: BufWriter<File>,
    line: String,
}

impl CsvSink {
    /// Create (or truncate) `path` and write the header.
    pub fn create(path: &Path) -> io::Result<CsvSink> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        out.write_all(header().as_bytes())?;
        Ok(CsvSink { out, line: String::with_capacity(160) })
    }
}

impl TraceSink for CsvSink {
    fn event(&mut self, ev: &TraceEvent<'_>) -> io::Result<()> {
        self.line.clear();
        line(&TraceRow::from_event(ev), &mut self.line);
        self.out.write_all(self.line.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> String {
        let mut s = String::new();
        py_float(x, &mut s);
        s
    }

    /// What CPython 3 prints for repr(x).
    #[test]
    fn floats_read_as_python_repr() {
        for (x, want) in [
            (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (1.5, "1.5"), (0.1, "0.1"), (100.0, "100.0"),
            (0.0001, "0.0001"), (0.00012345, "0.00012345"), (1e-05, "1e-05"), (1.5e-05, "1.5e-05"),
            (2.5e-07, "2.5e-07"), (1234567890123456.0, "1234567890123456.0"), (1e16, "1e+16"),
            (1.2345e17, "1.2345e+17"), (123.456, "123.456"), (-3.25, "-3.25"), (1e100, "1e+100"),
            (0.30000000000000004, "0.30000000000000004"), (f64::INFINITY, "inf"),
            (0.000556, "0.000556"), (12.000192, "12.000192"), (f64::NAN, ""),
        ] {
            assert_eq!(f(x), want, "{x:e}");
        }
        // Nanosecond times as the engine makes them read back exactly.
        for ns in [1u64, 999, 1_000_000_001, 3_599_999_999_999, 123_456_789] {
            let t = ns as f64 * 1e-9;
            assert_eq!(f(t).parse::<f64>().unwrap(), t);
        }
    }

    #[test]
    fn the_header_is_the_tables_columns() {
        use crate::results::columns::Table;
        let names: Vec<&str> = TraceRow::SCHEMA.columns.iter().map(|c| c.name).collect();
        assert_eq!(HEADER, names.join(",") + "\n");
    }

    #[test]
    fn strings_are_quoted_only_when_needed() {
        let mut s = String::new();
        py_str("RREQ", &mut s);
        py_str("a,b", &mut s);
        py_str("say \"x\"", &mut s);
        assert_eq!(s, "RREQ\"a,b\"\"say \"\"x\"\"\"");
    }
}
