//! Loss models as a spec string names them (`ge:prr=0.9,mu=0.6`, `bernoulli:p=0.05`), declared
//! once beside each algorithm: every model file holds a [`LossModelSpec`] (name, aliases, help,
//! reference and its parameters: name, type, unit, default, range, one-line help, reference),
//! built with [`loss_param`]. [`MODELS`] lists them; [`parse`] reads a spec string against
//! them (names, forms, types, ranges, defaults), and the Python parser
//! (`burstlab.lossspec`), the validation messages and the docs table (`docs/parameters.md`)
//! come from the same declaration. The parameters' ranges are the ones the models'
//! constructors check; relations between parameters (PRR and μ) stay with the constructors.
use super::{bernoulli, bootstrap, gilbert_elliott, list, markov_ct, replay, runlength, semi_markov, vddp};
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

/// Every loss model a spec string can name, in the order the docs list them. (`phy:` — frames
/// of a PHY mode over an SNR — has its own parser in `burstlab.phy`, `docs/phy.md`; `@FILE.json`
/// is a saved model.)
pub const MODELS: &[&LossModelSpec] = &[
    &bernoulli::SPEC,
    &gilbert_elliott::SPEC,
    &list::SPEC,
    &markov_ct::SPEC_CTMC,
    &markov_ct::SPEC_ONOFF,
    &semi_markov::SPEC,
    &vddp::SPEC,
    &runlength::SPEC,
    &replay::SPEC,
    &bootstrap::SPEC,
];

/// The model a spec's name (or alias, any case) stands for.
pub fn find(name: &str) -> Option<&'static LossModelSpec> {
    let n = name.to_ascii_lowercase();
    MODELS.iter().copied().find(|m| m.name == n || m.aliases.contains(&n.as_str()))
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
fn names(v: &[&str]) -> String {
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

fn value(spec: &str, p: &LossParam, v: &str) -> Result<SpecValue, SpecError> {
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
            let n = whole(spec, name, v, "a whole number of packets")?;
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

/// Reads a spec string `MODEL:NAME=VALUE,...` against the declarations: the model, then every
/// parameter of the form it uses, in declaration order, with its value (given, or its default).
/// An unknown model or parameter, a missing one, one given twice, a value of the wrong type or
/// outside its range is a [`SpecError`] naming it.
pub fn parse(spec: &str) -> Result<(&'static LossModelSpec, Vec<(&'static str, SpecValue)>), SpecError> {
    let s = spec.trim();
    let (kind, body) = s.split_once(':').unwrap_or((s, ""));
    let kind = kind.to_ascii_lowercase();
    let mut given: Vec<(&str, &str)> = Vec::new();
    for part in body.split(',').filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(SpecError(format!("invalid loss spec {kind}:{body}: expected name=value, got '{part}'")));
        };
        let k = k.trim();
        if given.iter().any(|(g, _)| *g == k) {
            return Err(SpecError(format!("invalid loss spec {kind}:{body}: parameter '{k}' given twice")));
        }
        given.push((k, v.trim()));
    }
    let Some(model) = find(&kind) else {
        let known: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
        return Err(SpecError(format!("invalid loss spec '{spec}': unknown model '{kind}' (known: none, {}, phy, @file.json)", known.join(", "))));
    };
    let form = model
        .forms
        .iter()
        .find(|f| given.iter().any(|(k, _)| f.contains(k)))
        .or(model.forms.last())
        .expect("a model has at least one form");
    let mut unknown: Vec<&str> = given.iter().map(|(k, _)| *k).filter(|k| !form.contains(k)).collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        return Err(SpecError(format!("invalid loss spec '{spec}': unknown parameter(s) {} for {kind}", names(&unknown))));
    }
    let params: Vec<&LossParam> = model.params.iter().filter(|p| form.contains(&p.spec.name)).collect();
    let missing: Vec<&str> = params
        .iter()
        .filter(|p| p.default == SpecDefault::Required && !given.iter().any(|(k, _)| *k == p.spec.name))
        .map(|p| p.spec.name)
        .collect();
    if !missing.is_empty() {
        return Err(SpecError(format!("invalid loss spec '{spec}': missing parameter(s) {} for {kind}", names(&missing))));
    }
    let mut out = Vec::with_capacity(params.len());
    for p in params {
        let v = match (given.iter().find(|(k, _)| *k == p.spec.name), p.default) {
            (Some((_, v)), _) => value(spec, p, v)?,
            (None, SpecDefault::Is(d)) => value(spec, p, d)?,
            (None, _) => SpecValue::Absent,
        };
        out.push((p.spec.name, v));
    }
    Ok((model, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for m in MODELS {
            for n in std::iter::once(&m.name).chain(m.aliases) {
                assert!(seen.insert(*n), "{n} names two models");
            }
            assert!(!m.forms.is_empty() && !m.help.is_empty() && !m.reference.is_empty(), "{}", m.name);
            for f in m.forms {
                for n in *f {
                    assert!(m.params.iter().any(|p| p.spec.name == *n), "{}: form names unknown {n}", m.name);
                }
            }
            for p in m.params {
                assert_eq!(p.spec.component, m.name);
                assert!(m.forms.iter().any(|f| f.contains(&p.spec.name)), "{}.{} in no form", m.name, p.spec.name);
                assert!(!p.spec.help.is_empty(), "{}.{}", m.name, p.spec.name);
                if let SpecDefault::Is(d) = p.default {
                    value("default", p, d).unwrap_or_else(|e| panic!("{}.{}: default {d}: {e}", m.name, p.spec.name));
                }
            }
        }
    }

    #[test]
    fn a_spec_reads_to_its_values_with_the_declared_defaults() {
        let (m, v) = parse("GE:b=0.01,g=0.3").unwrap();
        assert_eq!(m.name, "ge");
        assert_eq!(v, [("b", SpecValue::Real(0.01)), ("g", SpecValue::Real(0.3)), ("h", SpecValue::Real(1.0)), ("k", SpecValue::Real(0.0))]);
        let (_, v) = parse("gilbert-elliott:prr=0.9,mu=0.6").unwrap();
        assert_eq!(v, [("prr", SpecValue::Real(0.9)), ("mu", SpecValue::Real(0.6))]);
        let (m, v) = parse("semi:good=pareto/0.1/1.5,bad=exp/0.05,temporal=1").unwrap();
        assert_eq!(m.name, "semi");
        assert_eq!(v[0], ("good", SpecValue::Law("pareto", vec![("scale", 0.1), ("shape", 1.5)])));
        assert_eq!(v[4], ("temporal", SpecValue::Flag(true)));
        assert_eq!(v[5], ("interval", SpecValue::Real(0.001)));
        let (_, v) = parse("list:drops=4/13/17").unwrap();
        assert_eq!(v, [("drops", SpecValue::Packets(vec![4, 13, 17])), ("period", SpecValue::Absent)]);
        let (_, v) = parse("replay:file=x.txt").unwrap();
        assert_eq!(v[1], ("end", SpecValue::Text("wrap".into())));
    }

    #[test]
    fn a_bad_spec_is_refused_naming_what_is_wrong() {
        let e = |s: &str| parse(s).unwrap_err().0;
        assert!(e("bernoulli:p=1.5").contains("p = 1.5 in loss spec bernoulli:p=1.5: expected in [0, 1] (Loss probability of each packet)"), "{}", e("bernoulli:p=1.5"));
        assert!(e("bernoulli:p=x").contains("expected a number"));
        assert!(e("bernoulli:p=0.1,p=0.2").contains("'p' given twice"));
        assert!(e("bernoulli:q=0.1").contains("unknown parameter(s) ['q'] for bernoulli"));
        assert!(e("ge:prr=0.5,mu=1").contains("stuck in one state"), "the help says why");
        assert!(e("ge:prr=0.9").contains("missing parameter(s) ['mu'] for ge"));
        assert!(e("ge:prr=0.9,mu=0.5,h=1").contains("unknown parameter(s) ['h']"), "the (prr, mu) form has no h");
        assert!(e("ge:").contains("missing parameter(s) ['b', 'g']"));
        assert!(e("wibble:x=1").contains("unknown model 'wibble'"));
        assert!(e("ctmc:good=1,bad=0").contains("bad = 0 in loss spec ctmc:good=1,bad=0: expected more than 0 s"));
        assert!(e("semi:good=weibull/1,bad=exp/1").contains("expected one of"));
        assert!(e("semi:good=pareto/1,bad=exp/1").contains("pareto takes scale/shape"));
        assert!(e("list:drops=1/x").contains("/-separated packet numbers"));
        assert!(e("replay:file=a,end=loop").contains("one of wrap, deliver, drop, hold"));
        assert!(e("bernoulli:p").contains("expected name=value"));
    }
}
