//! Parameters declared once, beside the algorithm that reads them, in the manner of ns-3's
//! `TypeId::AddAttribute` but at compile time: [`params!`] turns one declaration per setting
//! (component, name, type, unit, default, range, one-line help, reference) into the struct,
//! its `Default`, a static descriptor table (`PARAMS: &[ParamSpec]`), reading and writing a
//! setting by name as a [`Value`], and the range checks, whose error names the parameter, the
//! value and the bound. Everything outside the core (the Python module, the CLI, TOML
//! scenarios, `docs/parameters.md`) is built from the table, so a setting is spelled once.
use crate::time::Nanos;
use crate::{Error, Result};

/// What a parameter holds, as the world outside Rust sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    /// A whole number (u64 or u32 in Rust; the range says which).
    Int,
    /// A whole number or none (unbounded).
    OptInt,
    Real,
    /// A time: nanoseconds in Rust, seconds outside.
    Time,
    /// One of these names (aliases accepted when parsed).
    Choice(&'static [&'static str]),
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::OptInt => "int?",
            Kind::Real => "float",
            Kind::Time => "time",
            Kind::Choice(_) => "choice",
        }
    }
}

/// One end of a parameter's range, in its unit (seconds for times).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub value: f64,
    pub inclusive: bool,
}

/// The description of one parameter: everything but its default, which is read from the
/// struct's `Default` (so it too is written once).
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The component that owns it (`tcp`, `timers`, `cubic`, `lt`, ...): groups docs and help.
    pub component: &'static str,
    /// The name everywhere (Python field, dict and TOML key; CLI option with `-` for `_`).
    pub name: &'static str,
    pub kind: Kind,
    /// Unit of the value outside Rust ("" for none).
    pub unit: &'static str,
    pub min: Option<Bound>,
    pub max: Option<Bound>,
    /// One line of help.
    pub help: &'static str,
    /// The rule, RFC or paper it comes from ("" for none).
    pub reference: &'static str,
}

impl ParamSpec {
    /// Whether `x` (in the parameter's unit) is within the range.
    pub fn admits(&self, x: f64) -> bool {
        let lo = self.min.map_or(true, |b| if b.inclusive { x >= b.value } else { x > b.value });
        let hi = self.max.map_or(true, |b| if b.inclusive { x <= b.value } else { x < b.value });
        lo && hi && !x.is_nan()
    }

    /// The range in words, e.g. "at least 0.001 s", "in [0, 1)".
    pub fn range_text(&self) -> String {
        let u = if self.unit.is_empty() { String::new() } else { format!(" {}", self.unit) };
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!(
                "in {}{}, {}{}{u}",
                if a.inclusive { "[" } else { "(" },
                a.value,
                b.value,
                if b.inclusive { "]" } else { ")" }
            ),
            (Some(a), None) => format!("{} {}{u}", if a.inclusive { "at least" } else { "more than" }, a.value),
            (None, Some(b)) => format!("{} {}{u}", if b.inclusive { "at most" } else { "less than" }, b.value),
            (None, None) => String::new(),
        }
    }

    /// `Ok` if `v` is within the range, else the error naming the parameter, value and bound.
    pub fn check(&self, v: &Value) -> Result<()> {
        let x = match *v {
            Value::Int(n) => n as f64,
            Value::OptInt(Some(n)) => n as f64,
            Value::Real(r) => r,
            Value::Time(t) => t as f64 / 1e9,
            _ => return Ok(()),
        };
        if self.admits(x) {
            Ok(())
        } else {
            Err(Error::param(self.name, v, &self.range_text()))
        }
    }
}

/// A parameter's value outside its struct.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(u64),
    OptInt(Option<u64>),
    Real(f64),
    Time(Nanos),
    /// A name (of a [`Kind::Choice`]).
    Text(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) | Value::OptInt(Some(n)) => write!(f, "{n}"),
            Value::OptInt(None) => write!(f, "none"),
            Value::Real(r) => write!(f, "{r}"),
            Value::Time(t) => write!(f, "{} s", *t as f64 / 1e9),
            Value::Text(s) => write!(f, "{s}"),
        }
    }
}

/// A closed set of names (the `named_enum!` enums): what a [`Kind::Choice`] field holds.
pub trait Named: Sized {
    const NAMES: &'static [&'static str];
    fn parse(s: &str) -> Result<Self>;
    fn name(&self) -> &'static str;
}

/// Conversions between a field's Rust type and [`Value`], one module per kind.
pub mod kinds {
    use super::*;

    fn wrong(name: &str, v: &Value, what: &str) -> Error {
        Error::param(name, v, what)
    }

    pub mod bool {
        use super::*;
        pub fn get(x: &bool) -> Value {
            Value::Bool(*x)
        }
        pub fn set(name: &str, v: Value) -> Result<bool> {
            match v {
                Value::Bool(b) => Ok(b),
                v => Err(wrong(name, &v, "true or false")),
            }
        }
    }

    macro_rules! int_kind {
        ($m:ident, $t:ty) => {
            pub mod $m {
                use super::*;
                pub fn get(x: &$t) -> Value {
                    Value::Int(*x as u64)
                }
                pub fn set(name: &str, v: Value) -> Result<$t> {
                    match v {
                        Value::Int(n) => <$t>::try_from(n).map_err(|_| wrong(name, &v, concat!("at most ", stringify!($t), "::MAX"))),
                        v => Err(wrong(name, &v, "a non-negative integer")),
                    }
                }
            }
        };
    }
    int_kind!(u64, u64);
    int_kind!(u32, u32);

    pub mod opt_u64 {
        use super::*;
        pub fn get(x: &Option<u64>) -> Value {
            Value::OptInt(*x)
        }
        pub fn set(name: &str, v: Value) -> Result<Option<u64>> {
            match v {
                Value::OptInt(n) => Ok(n),
                Value::Int(n) => Ok(Some(n)),
                v => Err(wrong(name, &v, "a non-negative integer or none")),
            }
        }
    }

    pub mod real {
        use super::*;
        pub fn get(x: &f64) -> Value {
            Value::Real(*x)
        }
        pub fn set(name: &str, v: Value) -> Result<f64> {
            match v {
                Value::Real(r) if r.is_finite() => Ok(r),
                Value::Int(n) => Ok(n as f64),
                v => Err(wrong(name, &v, "a finite number")),
            }
        }
    }

    pub mod time {
        use super::*;
        pub fn get(x: &Nanos) -> Value {
            Value::Time(*x)
        }
        pub fn set(name: &str, v: Value) -> Result<Nanos> {
            match v {
                Value::Time(t) => Ok(t),
                v => Err(wrong(name, &v, "a time")),
            }
        }
    }

    /// A bool seen as two names: `first` (false) or `every` (true) partial ACK restarts the
    /// retransmission timer (RFC 6582 §3.2 step 5 against RFC 2582 §4).
    pub mod partial_ack_timer {
        use super::*;
        pub const NAMES: &[&str] = &["first", "every"];
        pub fn get(x: &bool) -> Value {
            Value::Text(NAMES[*x as usize].to_string())
        }
        pub fn set(name: &str, v: Value) -> Result<bool> {
            match v {
                Value::Text(s) if s == "first" => Ok(false),
                Value::Text(s) if s == "every" => Ok(true),
                v => Err(wrong(name, &v, "first or every")),
            }
        }
    }

    pub mod choice {
        use super::*;
        pub fn get<T: Named>(x: &T) -> Value {
            Value::Text(x.name().to_string())
        }
        pub fn set<T: Named>(name: &str, v: Value) -> Result<T> {
            match v {
                Value::Text(s) => T::parse(&s),
                v => Err(wrong(name, &v, &format!("one of {}", T::NAMES.join(", ")))),
            }
        }
    }
}

/// Whether `input` names `name`: ASCII case and `-` against `_` do not matter
/// (`New-Ack`, `new_ack` and `NEW-ACK` all name `new_ack`).
pub fn same_name(input: &str, name: &str) -> bool {
    let norm = |b: u8| if b == b'-' { b'_' } else { b.to_ascii_lowercase() };
    input.len() == name.len() && input.bytes().zip(name.bytes()).all(|(a, b)| norm(a) == norm(b))
}

/// A closed set of names: the enum (`Clone, Copy, Debug, PartialEq, Eq`; more derives and
/// `#[default]` may be given), its `NAMES`, `parse` (by [`same_name`], with aliases; an
/// unknown name is "invalid parameter WHAT = NAME: expected one of ...") and `name`, and
/// its [`Named`] impl: every named choice of the parameter schema is declared with it.
#[macro_export]
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $v:ident = $s:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($s),+];

            pub fn parse(s: &str) -> $crate::Result<Self> {
                $(
                    if $crate::param::same_name(s, $s) $(|| $crate::param::same_name(s, $alias))* {
                        return Ok($name::$v);
                    }
                )+
                Err($crate::Error::param($what, s, &format!("one of {}", Self::NAMES.join(", "))))
            }

            pub fn name(&self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }

        impl $crate::param::Named for $name {
            const NAMES: &'static [&'static str] = $name::NAMES;
            fn parse(s: &str) -> $crate::Result<Self> { $name::parse(s) }
            fn name(&self) -> &'static str { $name::name(self) }
        }
    };
}

/// The [`Kind`] of a kind token of [`params!`].
#[macro_export]
#[doc(hidden)]
macro_rules! param_kind {
    (bool, $t:ty) => { $crate::param::Kind::Bool };
    (u64, $t:ty) => { $crate::param::Kind::Int };
    (u32, $t:ty) => { $crate::param::Kind::Int };
    (opt_u64, $t:ty) => { $crate::param::Kind::OptInt };
    (real, $t:ty) => { $crate::param::Kind::Real };
    (time, $t:ty) => { $crate::param::Kind::Time };
    (partial_ack_timer, $t:ty) => { $crate::param::Kind::Choice($crate::param::kinds::partial_ack_timer::NAMES) };
    (choice, $t:ty) => { $crate::param::Kind::Choice(<$t as $crate::param::Named>::NAMES) };
}

/// Declares a settings struct once. Each field:
///
/// ```text
/// /// Rust doc (any length).
/// component name: RustType [kind] = default, "unit", min|gt X, max|lt Y, "one-line help", "reference";
/// ```
///
/// `kind` is `bool`, `u64`, `u32`, `opt_u64`, `real`, `time` (Nanos) or `choice` (a
/// [`Named`] enum), or a conversion of its own in [`kinds`]; `as NAME` after it gives the
/// parameter another name than the field's; the bounds are optional (in the unit: seconds for times). Settings seen from
/// outside differently from their field (one field as several parameters, a bool as a named
/// choice) follow in a `virtual` section with their own reader and writer.
#[macro_export]
macro_rules! params {
    (
        $(#[$sm:meta])* pub struct $name:ident {
            $(
                $(#[$fm:meta])*
                $comp:ident $field:ident : $ty:ty [$kind:ident] $(as $pname:ident)? = $default:expr, $unit:literal,
                $(min $min:expr,)? $(gt $gt:expr,)? $(max $max:expr,)? $(lt $lt:expr,)?
                $help:literal, $reference:literal;
            )+
        }
        virtual {
            $(
                $vcomp:ident $vname:ident [$vkind:expr] , $vunit:literal, $vhelp:literal, $vref:literal,
                get $vget:expr, set $vset:expr;
            )*
        }
    ) => {
        $(#[$sm])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fm])* pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )+ }
            }
        }

        impl $name {
            /// Every parameter, in declaration order (the virtual ones last).
            pub const PARAMS: &'static [$crate::param::ParamSpec] = &[
                $(
                    $crate::param::ParamSpec {
                        component: stringify!($comp),
                        name: $crate::params!(@name $field $($pname)?),
                        kind: $crate::param_kind!($kind, $ty),
                        unit: $unit,
                        min: $crate::params!(@bound $(inc $min)? $(exc $gt)?),
                        max: $crate::params!(@bound $(inc $max)? $(exc $lt)?),
                        help: $help,
                        reference: $reference,
                    },
                )+
                $(
                    $crate::param::ParamSpec {
                        component: stringify!($vcomp),
                        name: stringify!($vname),
                        kind: $vkind,
                        unit: $vunit,
                        min: None,
                        max: None,
                        help: $vhelp,
                        reference: $vref,
                    },
                )*
            ];

            /// The parameter `name`'s value (None if there is no such parameter).
            pub fn get(&self, name: &str) -> Option<$crate::param::Value> {
                match name {
                    $( $crate::params!(@name $field $($pname)?) => Some($crate::param::kinds::$kind::get(&self.$field)), )+
                    $( stringify!($vname) => Some(($vget)(self)), )*
                    _ => None,
                }
            }

            /// Sets the parameter `name` (converted and range-checked), or says what is wrong.
            pub fn set(&mut self, name: &str, v: $crate::param::Value) -> $crate::Result<()> {
                let spec = Self::PARAMS.iter().find(|p| p.name == name)
                    .ok_or_else(|| $crate::Error::param(name, &v, "a known parameter"))?;
                spec.check(&v)?;
                match name {
                    $( $crate::params!(@name $field $($pname)?) => self.$field = $crate::param::kinds::$kind::set(name, v)?, )+
                    $( stringify!($vname) => ($vset)(self, v)?, )*
                    _ => unreachable!(),
                }
                Ok(())
            }

            /// Every field within its declared range; the first that is not, named with its
            /// value and bound.
            pub fn check_ranges(&self) -> $crate::Result<()> {
                for p in Self::PARAMS {
                    if let Some(v) = self.get(p.name) {
                        p.check(&v)?;
                    }
                }
                Ok(())
            }
        }
    };
    (@name $f:ident) => { stringify!($f) };
    (@name $f:ident $p:ident) => { stringify!($p) };
    (@bound) => { None };
    (@bound inc $x:expr) => { Some($crate::param::Bound { value: $x as f64, inclusive: true }) };
    (@bound exc $x:expr) => { Some($crate::param::Bound { value: $x as f64, inclusive: false }) };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::named_enum!(
        /// A toy choice.
        Fruit, "fruit" {
            Apple = "apple",
            BloodOrange = "blood_orange" | "sanguinello",
        }
    );

    #[test]
    fn named_enum_parses_any_case_and_either_separator_and_names_its_choices() {
        for s in ["blood_orange", "Blood-Orange", "BLOOD_ORANGE", "sanguinello", "Sanguinello"] {
            assert_eq!(Fruit::parse(s).unwrap(), Fruit::BloodOrange, "{s}");
        }
        assert_eq!(<Fruit as Named>::parse("APPLE").unwrap(), Fruit::Apple);
        assert_eq!(Fruit::BloodOrange.name(), "blood_orange");
        assert_eq!(Fruit::NAMES, &["apple", "blood_orange"]);
        let e = Fruit::parse("blood orange").unwrap_err().to_string();
        assert_eq!(e, "invalid parameter fruit = blood orange: expected one of apple, blood_orange");
        assert!(Fruit::parse("appl").is_err() && Fruit::parse("apples").is_err() && Fruit::parse("").is_err());
        assert!(same_name("new-ack", "new_ack") && !same_name("newack", "new_ack"));
    }

    crate::params! {
        /// A toy settings struct.
        pub struct Toy {
            toy n: u64 [u64] = 3, "segments", min 1, "How many.", "";
            toy p: f64 [real] = 0.5, "", min 0.0, lt 1.0, "A probability.", "";
            toy t: Nanos [time] = 1_000_000, "s", min 0.001, "A time.", "RFC 6298 §2.4";
            toy on: bool [bool] = true, "", "A switch.", "";
        }
        virtual {
            toy twice [Kind::Int], "segments", "Twice n.", "",
                get |c: &Toy| Value::Int(2 * c.n), set |c: &mut Toy, v: Value| -> Result<()> { c.n = kinds::u64::set("twice", v)? / 2; Ok(()) };
        }
    }

    #[test]
    fn the_table_the_defaults_and_the_setters_come_from_one_declaration() {
        let names: Vec<_> = Toy::PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(names, ["n", "p", "t", "on", "twice"]);
        let mut t = Toy::default();
        assert_eq!(t.get("t"), Some(Value::Time(1_000_000)));
        assert_eq!(t.get("twice"), Some(Value::Int(6)));
        t.set("twice", Value::Int(10)).unwrap();
        assert_eq!(t.n, 5);
        t.set("p", Value::Real(0.25)).unwrap();
        assert_eq!(t.p, 0.25);
        assert!(t.get("nope").is_none());
        assert!(t.set("nope", Value::Int(1)).unwrap_err().to_string().contains("nope"));
    }

    #[test]
    fn a_value_out_of_range_is_refused_naming_parameter_value_and_bound() {
        let mut t = Toy::default();
        let e = t.set("p", Value::Real(1.0)).unwrap_err().to_string();
        assert!(e.contains("p = 1") && e.contains("in [0, 1)"), "{e}");
        let e = t.set("t", Value::Time(1)).unwrap_err().to_string();
        assert!(e.contains("t = 0.000000001 s") && e.contains("at least 0.001 s"), "{e}");
        let e = t.set("n", Value::Int(0)).unwrap_err().to_string();
        assert!(e.contains("n = 0") && e.contains("at least 1 segments"), "{e}");
        assert!(t.set("on", Value::Int(1)).is_err());
        t.n = 0; // written directly: check_ranges still finds it
        assert!(t.check_ranges().unwrap_err().to_string().contains("n = 0"));
    }
}
