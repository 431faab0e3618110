//! Loss models as a spec string names them (`ge:prr=0.9,mu=0.6`, `bernoulli:p=0.05`), declared
//! once beside each algorithm: every model file holds a [`LossModelSpec`] (name, aliases, help,
//! reference and its parameters: name, type, unit, default, range, one-line help, reference),
//! built with [`loss_param`]. `loss::registry` lists them (`MODELS`) and reads a spec string
//! against them (`parse`) (names, forms, types, ranges, defaults), and the Python parser
//! (`burstlab.lossspec`), the validation messages and the docs table (`docs/parameters.md`)
//! come from the same declaration. The parameters' ranges are the ones the models'
//! constructors check; relations between parameters (PRR and μ) stay with the constructors.
use crate::param::{Bound, Kind, ParamSpec};

/// What a parameter of a spec string holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossKind {
    /// A number (in the unit).
    Real,
    /// A whole number ≥ 0 (below 2^64).
    Int,
    /// A switch written as a number: 0 is off, any other number on.
    Flag,
    /// A sojourn or run-length law: `exp/MEAN`, `det/VALUE`, `pareto/SCALE/SHAPE`,
    /// `lognormal/MU/SIGMA`, `geom/MEAN` ([`LAWS`]).
    Law,
    /// Packet numbers separated by `/` (`4/13/17`).
    Packets,
    /// A file path.
    Path,
    /// One of these names.
    Choice(&'static [&'static str]),
}

impl LossKind {
    pub fn name(&self) -> &'static str {
        match self {
            LossKind::Real => "float",
            LossKind::Int => "int",
            LossKind::Flag => "0 or 1",
            LossKind::Law => "law",
            LossKind::Packets => "packets",
            LossKind::Path => "path",
            LossKind::Choice(_) => "choice",
        }
    }
}

/// A parameter's default in a spec string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpecDefault {
    /// Must be given (in its form).
    Required,
    /// May be left out; the model then does without it (its meaning is in the help).
    Absent,
    /// This value, as it would be written in a spec.
    Is(&'static str),
}

/// One parameter of a loss model's spec: the [`ParamSpec`] (name, unit, range, help,
/// reference; `component` = the model), its type in a spec string and its default.
#[derive(Clone, Copy, Debug)]
pub struct LossParam {
    pub spec: ParamSpec,
    pub kind: LossKind,
    pub default: SpecDefault,
}

/// A loss model as a spec string names it.
#[derive(Clone, Copy, Debug)]
pub struct LossModelSpec {
    /// The name in a spec (`ge`), then the other names it is known by.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub help: &'static str,
    pub reference: &'static str,
    /// The parameter sets it can be written with, in order (most models have one: all its
    /// parameters). A spec uses the first form that holds any parameter it gives, else the
    /// last; the parameters outside that form are refused.
    pub forms: &'static [&'static [&'static str]],
    pub params: &'static [LossParam],
}

/// The help of the `interval` parameter every time model has.
pub const INTERVAL_HELP: &str = "The time between packets when the model is used per packet (loss_mode = packet).";

/// A bound for [`loss_param`]: at least `x`.
pub const fn min(x: f64) -> Option<Bound> {
    Some(Bound { value: x, inclusive: true })
}

/// A bound for [`loss_param`]: more than `x`.
pub const fn gt(x: f64) -> Option<Bound> {
    Some(Bound { value: x, inclusive: false })
}

/// A bound for [`loss_param`]: less than `x` (as an upper bound).
pub const fn lt(x: f64) -> Option<Bound> {
    Some(Bound { value: x, inclusive: false })
}

/// A bound for [`loss_param`]: at most `x` (as an upper bound).
pub const fn max(x: f64) -> Option<Bound> {
    Some(Bound { value: x, inclusive: true })
}

/// One parameter: `(model, name, kind, unit, default, lower, upper, help, reference)`.
#[allow(clippy::too_many_arguments)]
pub const fn loss_param(
    model: &'static str,
    name: &'static str,
    kind: LossKind,
    unit: &'static str,
    default: SpecDefault,
    lower: Option<Bound>,
    upper: Option<Bound>,
    help: &'static str,
    reference: &'static str,
) -> LossParam {
    let pk = match kind {
        LossKind::Int => Kind::Int,
        LossKind::Flag => Kind::Bool,
        _ => Kind::Real,
    };
    LossParam { spec: ParamSpec { component: model, name, kind: pk, unit, min: lower, max: upper, help, reference }, kind, default }
}

/// The laws a [`LossKind::Law`] parameter takes: written name → (full name, its arguments).
pub const LAWS: &[(&str, &str, &[&str])] = &[
    ("exp", "exponential", &["mean"]),
    ("exponential", "exponential", &["mean"]),
    ("det", "deterministic", &["value"]),
    ("deterministic", "deterministic", &["value"]),
    ("pareto", "pareto", &["scale", "shape"]),
    ("lognormal", "lognormal", &["mu", "sigma"]),
    ("geom", "geometric", &["mean"]),
    ("geometric", "geometric", &["mean"]),
];

/// A parameter's value read from a spec string.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecValue {
    Real(f64),
    Int(u64),
    Flag(bool),
    /// The law's full name and its arguments by name.
    Law(&'static str, Vec<(&'static str, f64)>),
    Packets(Vec<u64>),
    Text(String),
    /// Left out ([`SpecDefault::Absent`]).
    Absent,
}

/// A spec string that cannot be read: the message names the spec and what is wrong
/// (the Python module raises it as `ParameterError`).
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError(pub String);

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// `['a', 'b']`: names as the messages list them.
pub(crate) fn names(v: &[&str]) -> String {
    format!("[{}]", v.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", "))
}

fn number(spec: &str, name: &str, v: &str) -> Result<f64, SpecError> {
    v.trim().parse::<f64>().map_err(|_| SpecError(format!("invalid parameter {name} = '{v}' in loss spec {spec}: expected a number")))
}

fn whole(spec: &str, name: &str, v: &str, what: &str) -> Result<u64, SpecError> {
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = v.parse::<u64>() {
            return Ok(n);
        }
    }
    Err(SpecError(format!("invalid parameter {name} = '{v}' in loss spec {spec}: expected {what} below 2^64")))
}

/// The value `v` of parameter `p` in `spec`, read and checked against its declaration.
pub(crate) fn value(spec: &str, p: &LossParam, v: &str) -> Result<SpecValue, SpecError> {
    let name = p.spec.name;
    let checked = |x: f64, shown: &str| {
        if p.spec.admits(x) {
            Ok(())
        } else {
            // the declared range, then the parameter's help (which says why, where it is not obvious)
            let help = p.spec.help.trim_end_matches('.');
            Err(SpecError(format!("invalid parameter {name} = {shown} in loss spec {spec}: expected {} ({help})", p.spec.range_text())))
        }
    };
    Ok(match p.kind {
        LossKind::Real => {
            let x = number(spec, name, v)?;
            checked(x, v)?;
            SpecValue::Real(x)
        }
        LossKind::Int => {
            let what = if p.spec.unit == "bytes" { "a whole number of bytes" } else { "a whole number of packets" };
            let n = whole(spec, name, v, what)?;
            checked(n as f64, v)?;
            SpecValue::Int(n)
        }
        LossKind::Flag => SpecValue::Flag(number(spec, name, v)? != 0.0),
        LossKind::Packets => {
            let mut out = Vec::new();
            for d in v.split('/').filter(|d| !d.is_empty()) {
                out.push(whole(spec, name, d, "/-separated packet numbers").map_err(|_| {
                    SpecError(format!("invalid parameter {name} = '{v}' in loss spec {spec}: expected /-separated packet numbers below 2^64"))
                })?);
            }
            SpecValue::Packets(out)
        }
        LossKind::Law => {
            let mut parts = v.split('/');
            let kind = parts.next().unwrap_or("");
            let args: Vec<&str> = parts.collect();
            let Some(&(_, full, argn)) = LAWS.iter().find(|(k, _, _)| *k == kind) else {
                let mut known: Vec<&str> = LAWS.iter().map(|(k, _, _)| *k).collect();
                known.sort_unstable();
                return Err(SpecError(format!(
                    "invalid parameter {name} = '{v}' in loss spec {spec}: expected one of {} with /-separated parameters",
                    names(&known)
                )));
            };
            if args.len() != argn.len() {
                return Err(SpecError(format!("invalid parameter {name} = '{v}' in loss spec {spec}: {kind} takes {}", argn.join("/"))));
            }
            let mut out = Vec::with_capacity(args.len());
            for (n, a) in argn.iter().zip(args) {
                out.push((*n, number(spec, &format!("{name}.{n}"), a)?));
            }
            SpecValue::Law(full, out)
        }
        LossKind::Path => SpecValue::Text(v.to_string()),
        LossKind::Choice(c) => {
            if !c.contains(&v) {
                return Err(SpecError(format!("invalid parameter {name} = '{v}' in loss spec {spec}: expected one of {}", c.join(", "))));
            }
            SpecValue::Text(v.to_string())
        }
    })
}
