//! The loss models a spec string names (`MODELS`), each declared in its own file
//! ([`super::spec`]), and the reader of a spec string against them ([`parse`]). Kept apart from
//! the declaration types so that the model files and the registry do not import each other.
use super::spec::{names, value, LossModelSpec, LossParam, SpecDefault, SpecError, SpecValue};
use super::{ber, bernoulli, bootstrap, gilbert_elliott, list, markov_ct, replay, runlength, semi_markov, vddp};

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
    &ber::SPEC,
];

/// The model a spec's name (or alias, any case) stands for.
pub fn find(name: &str) -> Option<&'static LossModelSpec> {
    let n = name.to_ascii_lowercase();
    MODELS.iter().copied().find(|m| m.name == n || m.aliases.contains(&n.as_str()))
}

/// A spec read: the model, and each parameter of its form with its value.
pub type Parsed = (&'static LossModelSpec, Vec<(&'static str, SpecValue)>);

/// Reads a spec string `MODEL:NAME=VALUE,...` against the declarations: the model, then every
/// parameter of the form it uses, in declaration order, with its value (given, or its default).
/// An unknown model or parameter, a missing one, one given twice, a value of the wrong type or
/// outside its range is a [`SpecError`] naming it.
pub fn parse(spec: &str) -> Result<Parsed, SpecError> {
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
        // `bernoulli p=0.01` (the form other tools use): name the spelling this one wants.
        if let Some((name, rest)) = kind.split_once(char::is_whitespace).filter(|(n, _)| find(n).is_some()) {
            let rest = rest.split_whitespace().collect::<Vec<_>>().join(",");
            return Err(SpecError(format!("invalid loss spec '{spec}': write it as '{name}:{rest}' (MODEL:name=value,...)")));
        }
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
        assert!(e("bernoulli p=0.02").contains("write it as 'bernoulli:p=0.02'"), "{}", e("bernoulli p=0.02"));
        assert!(e("GE  b=0.1 g=0.3").contains("'ge:b=0.1,g=0.3'"), "{}", e("GE  b=0.1 g=0.3"));
        assert!(e("ctmc:good=1,bad=0").contains("bad = 0 in loss spec ctmc:good=1,bad=0: expected more than 0 s"));
        assert!(e("semi:good=weibull/1,bad=exp/1").contains("expected one of"));
        assert!(e("semi:good=pareto/1,bad=exp/1").contains("pareto takes scale/shape"));
        assert!(e("list:drops=1/x").contains("/-separated packet numbers"));
        assert!(e("replay:file=a,end=loop").contains("one of wrap, deliver, drop, hold"));
        assert!(e("bernoulli:p").contains("expected name=value"));
    }
}
