//! The result schema, declared once: `result_table!` writes a row struct and,
//! from the same lines, the table's column list (name, dtype, unit, meaning)
//! and the code that turns rows into columns. The Python binding, the
//! `Result` DataFrames, the lab store and docs/RESULTS.md all read this list
//! (`RunOutput::schema`), so a new field cannot be left out of any of them.

/// How a column is typed in the DataFrame (pandas dtype names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Int,
    Float,
    Bool,
    Str,
}

impl Dtype {
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Int => "int64",
            Dtype::Float => "float64",
            Dtype::Bool => "bool",
            Dtype::Str => "str",
        }
    }
}

/// One column of a result table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub dtype: Dtype,
    /// "" when the column has no unit (an id, a count, a name).
    pub unit: &'static str,
    /// The field's doc comment, lines joined.
    pub meaning: &'static str,
}

/// One result table: its name (the file is `<name>.csv`), what a row is, and
/// its columns in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSchema {
    pub name: &'static str,
    pub meaning: &'static str,
    pub columns: &'static [Column],
}

/// A column's values, in the Rust type the row holds (the binding converts
/// each variant without a per-column case).
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    U32(Vec<u32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<&'static str>),
    String(Vec<String>),
}

impl ColumnData {
    pub fn len(&self) -> usize {
        match self {
            ColumnData::U32(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Str(v) => v.len(),
            ColumnData::String(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A Rust type a result field may have, with its dtype.
pub trait ColumnValue: Sized + Clone {
    const DTYPE: Dtype;
    fn column(values: Vec<Self>) -> ColumnData;
}

macro_rules! column_value {
    ($($ty:ty => $dtype:ident, $variant:ident;)*) => {$(
        impl ColumnValue for $ty {
            const DTYPE: Dtype = Dtype::$dtype;
            fn column(values: Vec<Self>) -> ColumnData {
                ColumnData::$variant(values)
            }
        }
    )*};
}

column_value! {
    u32 => Int, U32;
    u64 => Int, U64;
    i64 => Int, I64;
    f64 => Float, F64;
    bool => Bool, Bool;
    &'static str => Str, Str;
    String => Str, String;
}

/// A table of rows (one struct per row).
pub trait Table: Sized + 'static {
    const SCHEMA: TableSchema;
    /// One getter per column, in `SCHEMA.columns` order: a column is built
    /// only when asked for, so a caller converting a large table (the trace)
    /// holds one column at a time besides the rows.
    const COLUMNS: &'static [fn(&[Self]) -> ColumnData];
}

/// A table stored as columns already (one `Vec` per field).
pub trait ColumnarTable: Sized + 'static {
    const SCHEMA: TableSchema;
    const COLUMNS: &'static [fn(&Self) -> ColumnData];
}

/// Any result table, whichever way it is stored: its schema and its `i`th
/// column (`RunOutput::tables`).
pub trait Columns {
    fn schema(&self) -> TableSchema;
    fn column(&self, i: usize) -> ColumnData;
}

impl<T: Table> Columns for &[T] {
    fn schema(&self) -> TableSchema {
        T::SCHEMA
    }
    fn column(&self, i: usize) -> ColumnData {
        at_resolution(&T::SCHEMA.columns[i], T::COLUMNS[i](self))
    }
}

impl<T: ColumnarTable> Columns for &T {
    fn schema(&self) -> TableSchema {
        T::SCHEMA
    }
    fn column(&self, i: usize) -> ColumnData {
        at_resolution(&T::SCHEMA.columns[i], T::COLUMNS[i](self))
    }
}

/// A column of times (unit "s") at the simulator's resolution, whole
/// nanoseconds (time.rs): `SimTime::as_secs_f64` multiplies by 1e-9, which
/// is not exact, so 120 s arrives as 120.00000000000001 and sums of such
/// times carry the noise too. Rounded here, where every table is read
/// (DataFrames, CSV, Parquet, info.json, the lab store), each time is the
/// double nearest its nanosecond count, whose shortest text is that count
/// in seconds. The engine keeps its own values (event hashes use integer
/// times and are unchanged).
fn at_resolution(c: &Column, data: ColumnData) -> ColumnData {
    match data {
        ColumnData::F64(mut v) if c.unit == "s" => {
            v.iter_mut().for_each(|x| *x = whole_ns(*x));
            ColumnData::F64(v)
        }
        other => other,
    }
}

/// `s` rounded to whole nanoseconds: `round(s * 1e9)` is the integer count
/// and dividing it by 1e9 (exact operands, one correctly rounded division)
/// gives the double nearest count/1e9. NaN, infinities and times beyond
/// 2^53 ns (104 days, where a double has no sub-ns digits) are kept.
pub fn whole_ns(s: f64) -> f64 {
    let ns = s * 1e9;
    if ns.is_finite() && ns.abs() < 9.007_199_254_740_992e15 {
        ns.round() / 1e9
    } else {
        s
    }
}

/// Declares a result row struct and its `Table` schema from one list of
/// fields. Every field needs a doc comment (its meaning) and a unit in
/// brackets ("" for none). `columnar` after the table name declares a struct
/// of `Vec`s (a `ColumnarTable`) instead.
#[macro_export]
macro_rules! result_table {
    (
        $(#[doc = $tdoc:literal])*
        #[derive($($derive:ident),*)]
        pub struct $name:ident as $table:literal $($columnar:ident)? {
            $(
                $(#[doc = $doc:literal])+
                pub $field:ident : $ty:ty [$unit:literal],
            )*
        }
    ) => {
        $crate::result_table!(@struct [$($columnar)?] [$($tdoc),*] [$($derive),*] $name,
            $([$($doc),+] $field $ty),*);

        $crate::result_table!(@impl [$($columnar)?] $name, $table, [$($tdoc),*],
            $([$($doc),+] $field $ty, $unit),*);
    };
    (@struct [] [$($tdoc:literal),*] [$($derive:ident),*] $name:ident, $([$($doc:literal),+] $field:ident $ty:ty),*) => {
        $(#[doc = $tdoc])*
        #[derive($($derive),*)]
        pub struct $name { $($(#[doc = $doc])+ pub $field: $ty,)* }
    };
    (@struct [columnar] [$($tdoc:literal),*] [$($derive:ident),*] $name:ident, $([$($doc:literal),+] $field:ident $ty:ty),*) => {
        $(#[doc = $tdoc])*
        #[derive($($derive),*)]
        pub struct $name { $($(#[doc = $doc])+ pub $field: Vec<$ty>,)* }
    };
    (@schema $table:literal, [$($tdoc:literal),*], $([$($doc:literal),+] $field:ident $ty:ty, $unit:literal),*) => {
        $crate::results::columns::TableSchema {
            name: $table,
            meaning: concat!($($tdoc),*),
            columns: &[$($crate::results::columns::Column {
                name: stringify!($field),
                dtype: <$ty as $crate::results::columns::ColumnValue>::DTYPE,
                unit: $unit,
                meaning: concat!($($doc),+),
            }),*],
        }
    };
    (@impl [] $name:ident, $table:literal, [$($tdoc:literal),*], $([$($doc:literal),+] $field:ident $ty:ty, $unit:literal),*) => {
        impl $crate::results::columns::Table for $name {
            const SCHEMA: $crate::results::columns::TableSchema =
                $crate::result_table!(@schema $table, [$($tdoc),*], $([$($doc),+] $field $ty, $unit),*);

            const COLUMNS: &'static [fn(&[Self]) -> $crate::results::columns::ColumnData] = &[$(|rows| {
                <$ty as $crate::results::columns::ColumnValue>::column(rows.iter().map(|r| r.$field.clone()).collect())
            }),*];
        }
    };
    (@impl [columnar] $name:ident, $table:literal, [$($tdoc:literal),*], $([$($doc:literal),+] $field:ident $ty:ty, $unit:literal),*) => {
        impl $crate::results::columns::ColumnarTable for $name {
            const SCHEMA: $crate::results::columns::TableSchema =
                $crate::result_table!(@schema $table, [$($tdoc),*], $([$($doc),+] $field $ty, $unit),*);

            const COLUMNS: &'static [fn(&Self) -> $crate::results::columns::ColumnData] =
                &[$(|t| <$ty as $crate::results::columns::ColumnValue>::column(t.$field.clone())),*];
        }
    };
}

/// A doc comment's text as one line: `///` lines arrive with a leading space
/// and are concatenated without a separator by `concat!`, so lines are
/// re-joined here on the spaces they start with.
pub fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn times_are_written_as_whole_nanoseconds() {
        // The noise the issue saw (info.duration_s, a route event's time).
        for (ns, text) in [(120_000_000_000u64, "120"), (248_216_837, "0.248216837"), (1, "0.000000001"), (3_000_000_001, "3.000000001")] {
            let raw = SimTime(ns).as_secs_f64();
            assert_eq!(format!("{}", whole_ns(raw)), text, "{ns} ns ({raw})");
        }
        assert_ne!(format!("{}", SimTime(120_000_000_000).as_secs_f64()), "120", "the raw value is noisy");
        assert!(whole_ns(f64::NAN).is_nan());
        // only columns in seconds are rounded
        let ms = Column { name: "rtt_ms", dtype: Dtype::Float, unit: "ms", meaning: "" };
        assert_eq!(at_resolution(&ms, ColumnData::F64(vec![0.1 + 0.2])), ColumnData::F64(vec![0.1 + 0.2]));
        let s = Column { unit: "s", ..ms };
        assert_eq!(at_resolution(&s, ColumnData::F64(vec![0.1 + 0.2])), ColumnData::F64(vec![0.3]));
    }
}
