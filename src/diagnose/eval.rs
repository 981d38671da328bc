//! Evaluating a cause's condition against what the probes found, in three
//! values: a cause holds, is ruled out, or is unknown. A comparison with a
//! fact the probes could not read is unknown, never false, so lore is never
//! confident on missing evidence. Every verdict carries what decided it: the
//! facts' values and their evidence (file and line, or an environment
//! variable).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::corpus::causes::{Condition, Op, Operand, Test};
use crate::probe::fs::Root;
use crate::probe::{
    self, Fact, Findings, LOADER_DIRS, Many, ProbeOptions, Scope, env_name, fact_name, find_files,
    glob_match, is_listed_apt, is_nvidia_package, normalise,
};

/// A cause's verdict, in the order they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    Unknown,
    RuledOut,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Unknown => "unknown",
            Verdict::RuledOut => "ruled out",
        }
    }

    fn not(self) -> Verdict {
        match self {
            Verdict::Holds => Verdict::RuledOut,
            Verdict::RuledOut => Verdict::Holds,
            Verdict::Unknown => Verdict::Unknown,
        }
    }

    fn of(value: Option<bool>) -> Verdict {
        match value {
            Some(true) => Verdict::Holds,
            Some(false) => Verdict::RuledOut,
            None => Verdict::Unknown,
        }
    }
}

/// A verdict and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    pub verdict: Verdict,
    /// What was seen, in words: `torch.cuda 13.0 is above driver.cuda 12`,
    /// `gpu: not found by the probes`.
    pub reasons: Vec<String>,
    /// Files and lines (or `environment`) the reasons come from.
    pub evidence: Vec<String>,
}

impl Evaluation {
    fn new(verdict: Verdict, reason: String, evidence: Vec<String>) -> Evaluation {
        Evaluation {
            verdict,
            reasons: vec![reason],
            evidence,
        }
    }
}

/// What conditions are evaluated against: the facts, and the root for
/// file tests.
#[derive(Debug, Clone)]
pub struct Context {
    facts: Vec<Fact>,
    root: Option<Root>,
    live: bool,
    dockerfile: bool,
    /// Whether the facts a message states were added (`with_stated`).
    message: bool,
    /// The Python environments probed because the message's paths named
    /// them (`probe_context_with_named_envs`), as shown.
    named: Vec<String>,
}

impl PartialEq for Context {
    fn eq(&self, other: &Context) -> bool {
        self.facts == other.facts
            && self.live == other.live
            && self.dockerfile == other.dockerfile
            && self.message == other.message
            && self.root.as_ref().map(Root::dir) == other.root.as_ref().map(Root::dir)
    }
}

impl Context {
    /// The facts the probes found with `options`.
    pub fn new(findings: &Findings, options: &ProbeOptions) -> Context {
        let root = findings
            .root
            .as_ref()
            .and(options.root_dir())
            .and_then(|dir| Root::new(&dir).ok());
        let named = findings
            .root
            .iter()
            .flat_map(|r| &r.python_envs)
            .filter(|e| e.named_only)
            .map(|e| e.prefix.clone())
            .collect();
        Context {
            facts: findings.facts(),
            live: root.as_ref().is_some_and(Root::is_live),
            root,
            dockerfile: findings.dockerfile.is_some(),
            message: false,
            named,
        }
    }

    /// The Python environments probed because the message's paths lead
    /// there (and that exist where the probes looked), as shown.
    pub fn named_envs(&self) -> &[String] {
        &self.named
    }

    /// These facts and the ones a message states (`diagnose::message::facts`
    /// of it): a pasted log speaks for the place it was printed, so its
    /// values sit beside the probes', with the message as their evidence.
    pub fn with_stated(mut self, stated: &[Fact]) -> Context {
        self.facts.extend_from_slice(stated);
        self.message = true;
        self
    }

    /// Nothing probed: every check is unknown (the TUI before `p`).
    pub fn empty() -> Context {
        Context {
            facts: Vec::new(),
            root: None,
            live: false,
            dockerfile: false,
            message: false,
            named: Vec::new(),
        }
    }

    /// Whether the probes ran at all.
    pub fn is_probed(&self) -> bool {
        self.root.is_some() || self.dockerfile
    }

    fn knows_absence(&self, scope: Scope) -> bool {
        match scope {
            Scope::Machine => self.live,
            Scope::Files => self.root.is_some(),
            Scope::Dockerfile => self.dockerfile,
            Scope::Message => self.message,
        }
    }

    fn values(&self, name: &str) -> Vec<&Fact> {
        self.facts.iter().filter(|f| f.fact == name).collect()
    }
}

/// One value of an operand, with its evidence.
#[derive(Debug, Clone)]
struct Value {
    /// As shown in reasons: `torch.cuda 13.0`.
    label: String,
    kind: ValueKind,
    evidence: Vec<String>,
}

#[derive(Debug, Clone)]
enum ValueKind {
    Text(String),
    /// `unsure: A or B`: the probes saw conflicting evidence.
    Unsure(Vec<String>),
    /// Known to have no value: `none (CPU)`, `absent from …`, an unset
    /// variable on the machine.
    Absent(String),
}

/// An operand's values, or why it has none.
enum Resolved {
    Values(Many, Vec<Value>),
    Unknown(String),
}

fn parse_value(text: &str) -> ValueKind {
    let lower = text.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("unsure:") {
        let start = text.len() - rest.len();
        return ValueKind::Unsure(
            text[start..]
                .split(" or ")
                .map(|s| s.trim().to_string())
                .collect(),
        );
    }
    if lower.starts_with("none") || lower.starts_with("absent") {
        return ValueKind::Absent(text.to_string());
    }
    ValueKind::Text(text.to_string())
}

/// The version in a fact's value: the last word starting with a digit, up
/// to its first character that is not a digit or dot (`2.5.1+cu124` →
/// `2.5.1`; `/usr/local/cuda-12.4 12.4.1` → `12.4.1`).
pub fn version_in(text: &str) -> Option<Vec<u64>> {
    let word = text
        .split_whitespace()
        .rev()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let end = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(word.len());
    let parts: Vec<u64> = word[..end]
        .trim_end_matches('.')
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then_some(parts)
}

/// Component by component over the shorter: `12` equals `12.8` (a version
/// given as `12` means any 12.x).
fn compare_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n])
}

/// One comparison of two texts: `None` when it cannot be decided.
fn compare_text(left: &str, op: Op, right: &str, as_version: bool) -> Option<bool> {
    use std::cmp::Ordering::*;
    if op == Op::Contains {
        return Some(left.contains(right));
    }
    if as_version {
        let (a, b) = (version_in(left)?, version_in(right)?);
        let ord = compare_versions(&a, &b);
        return Some(match op {
            Op::Eq => ord == Equal,
            Op::Ne => ord != Equal,
            Op::Lt => ord == Less,
            Op::Le => ord != Greater,
            Op::Gt => ord == Greater,
            Op::Ge => ord != Less,
            Op::Contains => unreachable!(),
        });
    }
    match op {
        Op::Eq => Some(left.eq_ignore_ascii_case(right)),
        Op::Ne => Some(!left.eq_ignore_ascii_case(right)),
        // Ordering needs versions on both sides.
        _ => None,
    }
}

/// One value against another.
fn compare_values(left: &Value, op: Op, right: &Value, as_version: bool) -> Option<bool> {
    let alternatives = |v: &Value| -> Vec<Result<String, String>> {
        match &v.kind {
            ValueKind::Text(t) => vec![Ok(t.clone())],
            ValueKind::Unsure(all) => all.iter().cloned().map(Ok).collect(),
            ValueKind::Absent(t) => vec![Err(t.clone())],
        }
    };
    let mut results = BTreeSet::new();
    for l in alternatives(left) {
        for r in alternatives(right) {
            let result = match (&l, &r) {
                (Ok(a), Ok(b)) => compare_text(a, op, b, as_version),
                // A known absence: not equal to anything, below nothing,
                // above nothing, containing nothing.
                (Err(_), _) | (_, Err(_)) => Some(op == Op::Ne),
            };
            results.insert(result);
        }
    }
    // Conflicting evidence decides only where every reading agrees.
    match results.len() {
        1 => results.into_iter().next().flatten(),
        _ => None,
    }
}

/// Combines verdicts over a fact's several values.
fn combine(many: Many, verdicts: &[Verdict]) -> Verdict {
    let all = |v| verdicts.iter().all(|x| *x == v);
    let some = |v| verdicts.contains(&v);
    match many {
        Many::Any if some(Verdict::Holds) => Verdict::Holds,
        _ if all(Verdict::Holds) => Verdict::Holds,
        _ if all(Verdict::RuledOut) => Verdict::RuledOut,
        _ => Verdict::Unknown,
    }
}

fn dedup(list: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    list.retain(|e| seen.insert(e.clone()));
}

/// Evaluates a condition.
pub fn evaluate(condition: &Condition, ctx: &Context) -> Evaluation {
    let mut out = match condition {
        Condition::All(parts) => junction(parts, ctx, Verdict::RuledOut),
        Condition::Any(parts) => junction(parts, ctx, Verdict::Holds),
        Condition::Not(inner) => {
            let mut e = evaluate(inner, ctx);
            e.verdict = e.verdict.not();
            e
        }
        Condition::Compare { left, op, right } => compare(left, *op, right, ctx),
        Condition::Test(test) => run_test(test, ctx),
    };
    dedup(&mut out.evidence);
    dedup(&mut out.reasons);
    out
}

/// `and` (decided by the first part ruled out) and `or` (by the first that
/// holds); otherwise every part agrees, or the whole is unknown.
fn junction(parts: &[Condition], ctx: &Context, decisive: Verdict) -> Evaluation {
    let evaluated: Vec<Evaluation> = parts.iter().map(|p| evaluate(p, ctx)).collect();
    let pick = |v: Verdict| {
        let mut e = Evaluation {
            verdict: v,
            reasons: Vec::new(),
            evidence: Vec::new(),
        };
        for part in evaluated.iter().filter(|p| p.verdict == v) {
            e.reasons.extend(part.reasons.iter().cloned());
            e.evidence.extend(part.evidence.iter().cloned());
        }
        e
    };
    if evaluated.iter().any(|e| e.verdict == decisive) {
        return pick(decisive);
    }
    if evaluated.iter().all(|e| e.verdict == decisive.not()) {
        return pick(decisive.not());
    }
    // Unknown: say what is missing, and what is known besides.
    let mut e = pick(Verdict::Unknown);
    let known = pick(decisive.not());
    e.reasons.extend(known.reasons);
    e.evidence.extend(known.evidence);
    e
}

fn resolve(operand: &Operand, ctx: &Context) -> Resolved {
    match operand {
        Operand::Literal(text) => Resolved::Values(
            Many::Each,
            vec![Value {
                label: operand.to_string(),
                kind: ValueKind::Text(text.clone()),
                evidence: Vec::new(),
            }],
        ),
        Operand::VersionOf(package) => {
            let wanted = normalise(package);
            let mut values = Vec::new();
            for name in ["package", "nvidia-wheel", "apt-package"] {
                for f in ctx.values(name) {
                    let mut words = f.value.split_whitespace();
                    if let (Some(n), Some(v)) = (words.next(), words.next())
                        && normalise(n) == wanted
                    {
                        values.push(Value {
                            label: format!("{package} {v}"),
                            kind: ValueKind::Text(v.to_string()),
                            evidence: f.evidence.clone(),
                        });
                    }
                }
            }
            if wanted == "torch" {
                values.extend(fact_values("torch", ctx));
            }
            if values.is_empty() {
                Resolved::Unknown(format!("{package}: no installed version found"))
            } else {
                Resolved::Values(Many::Each, values)
            }
        }
        Operand::MajorOf(name) => match resolve(&Operand::Fact(name.clone()), ctx) {
            Resolved::Values(many, values) => {
                let majors = |t: &str| version_in(t).map(|v| v[0].to_string());
                let values = values
                    .into_iter()
                    .map(|v| {
                        let kind = match v.kind {
                            ValueKind::Text(t) => match majors(&t) {
                                Some(m) => ValueKind::Text(m),
                                None => ValueKind::Text(t),
                            },
                            ValueKind::Unsure(all) => ValueKind::Unsure(
                                all.iter()
                                    .map(|t| majors(t).unwrap_or_else(|| t.clone()))
                                    .collect(),
                            ),
                            absent => absent,
                        };
                        Value {
                            label: format!("major({})", v.label),
                            kind,
                            evidence: v.evidence,
                        }
                    })
                    .collect();
                Resolved::Values(many, values)
            }
            unknown => unknown,
        },
        Operand::Fact(name) => {
            if let Some(var) = env_name(name) {
                return env_values(name, var, ctx);
            }
            let Some(entry) = fact_name(name) else {
                return Resolved::Unknown(format!("{name}: not a fact lore knows"));
            };
            let values = fact_values(name, ctx);
            if values.is_empty() {
                let why = match entry.scope {
                    Scope::Dockerfile if !ctx.dockerfile => "no Dockerfile given",
                    Scope::Machine if !ctx.live => "only the running machine tells",
                    Scope::Files if ctx.root.is_none() => "no filesystem probed",
                    Scope::Message if !ctx.message => "no message given",
                    Scope::Message => "the message names none",
                    _ => "not found by the probes",
                };
                Resolved::Unknown(format!("{name}: {why}"))
            } else {
                Resolved::Values(entry.many, values)
            }
        }
    }
}

fn fact_values(name: &str, ctx: &Context) -> Vec<Value> {
    ctx.values(name)
        .into_iter()
        .map(|f| Value {
            label: format!("{name} {}", f.value),
            kind: parse_value(&f.value),
            evidence: f.evidence.clone(),
        })
        .collect()
}

/// `env.NAME`: `NAME=value` facts from the machine's environment or the
/// Dockerfile. Unset is known only on the machine.
fn env_values(label: &str, var: &str, ctx: &Context) -> Resolved {
    let prefix = format!("{var}=");
    let values: Vec<Value> = ctx
        .values("env")
        .into_iter()
        .filter_map(|f| {
            let value = f.value.strip_prefix(&prefix)?;
            Some(Value {
                label: format!("{label}={value}"),
                kind: ValueKind::Text(value.to_string()),
                evidence: f.evidence.iter().map(|e| format!("{e} ({var})")).collect(),
            })
        })
        .collect();
    if !values.is_empty() {
        return Resolved::Values(Many::Each, values);
    }
    if ctx.live {
        Resolved::Values(
            Many::Each,
            vec![Value {
                label: format!("{label} unset"),
                kind: ValueKind::Absent("unset".into()),
                evidence: vec![format!("environment: {var} not set")],
            }],
        )
    } else {
        Resolved::Unknown(format!(
            "{label}: not known here (no environment, or no ENV setting it)"
        ))
    }
}

fn compare(left: &Operand, op: Op, right: &Operand, ctx: &Context) -> Evaluation {
    let (l, r) = (resolve(left, ctx), resolve(right, ctx));
    let (lmany, lvalues, rmany, rvalues) = match (l, r) {
        (Resolved::Values(lm, lv), Resolved::Values(rm, rv)) => (lm, lv, rm, rv),
        (l, r) => {
            let mut e = Evaluation::new(Verdict::Unknown, String::new(), Vec::new());
            e.reasons.clear();
            for side in [l, r] {
                match side {
                    Resolved::Unknown(why) => e.reasons.push(why),
                    Resolved::Values(_, values) => {
                        for v in values.iter().filter(|v| !v.evidence.is_empty()) {
                            e.reasons.push(v.label.clone());
                            e.evidence.extend(v.evidence.iter().cloned());
                        }
                    }
                }
            }
            return e;
        }
    };
    // Versions where either side is a version literal or both look like
    // versions; text otherwise.
    let literal_version =
        |o: &Operand| matches!(o, Operand::Literal(t) if crate::corpus::causes::is_version(t));
    let all_versions = |vs: &[Value]| {
        vs.iter().all(|v| match &v.kind {
            ValueKind::Text(t) => version_in(t).is_some(),
            ValueKind::Unsure(a) => a.iter().all(|t| version_in(t).is_some()),
            ValueKind::Absent(_) => true,
        })
    };
    let as_version = op != Op::Contains
        && (literal_version(left)
            || literal_version(right)
            || matches!(left, Operand::VersionOf(_) | Operand::MajorOf(_))
            || matches!(right, Operand::VersionOf(_) | Operand::MajorOf(_))
            || (all_versions(&lvalues) && all_versions(&rvalues)));
    let mut per_left = Vec::new();
    let mut reasons = Vec::new();
    let mut evidence: Vec<(Verdict, Vec<String>)> = Vec::new();
    for lv in &lvalues {
        let mut per_right = Vec::new();
        for rv in &rvalues {
            let verdict = Verdict::of(compare_values(lv, op, rv, as_version));
            per_right.push(verdict);
            let mut ev = lv.evidence.clone();
            ev.extend(rv.evidence.iter().cloned());
            reasons.push((
                verdict,
                format!(
                    "{} {} {}",
                    lv.label,
                    match verdict {
                        Verdict::Holds => op.symbol().to_string(),
                        Verdict::RuledOut => format!("not {}", op.symbol()),
                        Verdict::Unknown => format!("{} (cannot tell)", op.symbol()),
                    },
                    rv.label
                ),
            ));
            evidence.push((verdict, ev));
        }
        per_left.push(combine(rmany, &per_right));
    }
    let verdict = combine(lmany, &per_left);
    // Show what supports the verdict (all of it when unknown).
    let keep = |v: Verdict| verdict == Verdict::Unknown || v == verdict;
    Evaluation {
        verdict,
        reasons: reasons
            .into_iter()
            .filter(|(v, _)| keep(*v))
            .map(|(_, r)| r)
            .collect(),
        evidence: evidence
            .into_iter()
            .filter(|(v, _)| keep(*v))
            .flat_map(|(_, e)| e)
            .collect(),
    }
}

fn run_test(test: &Test, ctx: &Context) -> Evaluation {
    match test {
        Test::File(pattern) => match &ctx.root {
            None => Evaluation::new(
                Verdict::Unknown,
                format!("{pattern}: no filesystem probed"),
                Vec::new(),
            ),
            Some(root) => {
                let found = find_files(root, pattern);
                if found.is_empty() {
                    Evaluation::new(
                        Verdict::RuledOut,
                        format!("{pattern}: not there"),
                        vec![format!("{}: not there", root.show(pattern))],
                    )
                } else {
                    Evaluation::new(
                        Verdict::Holds,
                        format!("{pattern}: there"),
                        found.iter().take(3).map(|p| root.show(p)).collect(),
                    )
                }
            }
        },
        Test::Package(name) => package_test(name, ctx),
        Test::Lib(name) => lib_test(name, ctx),
        Test::WheelLib(name) => {
            let mut found = Vec::new();
            for f in ctx.values("nvidia-wheel.libs") {
                if f.value.split_whitespace().any(|l| glob_match(name, l)) {
                    found.extend(f.evidence.iter().cloned());
                }
            }
            if !found.is_empty() {
                Evaluation::new(Verdict::Holds, format!("a wheel ships {name}"), found)
            } else if ctx.root.is_some() {
                let wheels: Vec<String> = ctx
                    .values("nvidia-wheel")
                    .iter()
                    .flat_map(|f| f.evidence.iter().cloned())
                    .collect();
                Evaluation::new(
                    Verdict::RuledOut,
                    format!("no NVIDIA wheel ships {name}"),
                    wheels,
                )
            } else {
                Evaluation::new(
                    Verdict::Unknown,
                    format!("{name}: no filesystem probed"),
                    Vec::new(),
                )
            }
        }
        Test::Apt(name) => apt_test(name, ctx),
        Test::Present(name) => present_test(name, ctx),
    }
}

fn package_test(name: &str, ctx: &Context) -> Evaluation {
    let wanted = normalise(name);
    let mut found = Vec::new();
    for fact in ["package", "nvidia-wheel"] {
        for f in ctx.values(fact) {
            if f.value.split_whitespace().next().map(normalise).as_deref() == Some(wanted.as_str())
            {
                found.extend(f.evidence.iter().cloned());
            }
        }
    }
    if wanted == "torch" {
        for f in ctx.values("torch") {
            if !matches!(parse_value(&f.value), ValueKind::Absent(_)) {
                found.extend(f.evidence.iter().cloned());
            }
        }
    }
    if !found.is_empty() {
        return Evaluation::new(Verdict::Holds, format!("{name} is installed"), found);
    }
    // Absent only where site-packages were listed: beside a torch or a wheel.
    let listed: Vec<String> = ctx
        .values("torch")
        .iter()
        .chain(ctx.values("nvidia-wheel").iter())
        .flat_map(|f| f.evidence.iter().take(1).cloned())
        .collect();
    if ctx.root.is_some() && !listed.is_empty() {
        Evaluation::new(
            Verdict::RuledOut,
            format!("{name}: no .dist-info beside torch"),
            listed,
        )
    } else {
        Evaluation::new(
            Verdict::Unknown,
            format!("{name}: no Python environment found to look in"),
            Vec::new(),
        )
    }
}

fn lib_test(name: &str, ctx: &Context) -> Evaluation {
    let Some(root) = &ctx.root else {
        return Evaluation::new(
            Verdict::Unknown,
            format!("{name}: no filesystem probed"),
            Vec::new(),
        );
    };
    let mut dirs: Vec<String> = LOADER_DIRS.iter().map(|d| d.to_string()).collect();
    dirs.extend(ctx.values("ld.so.conf").iter().map(|f| f.value.clone()));
    let mut seen = BTreeSet::new();
    for dir in dirs {
        let Ok(real) = root.real(&dir) else { continue };
        if !seen.insert(real.clone()) {
            continue;
        }
        let Ok(listing) = root.list(&real, crate::probe::MAX_ENTRIES) else {
            continue;
        };
        if let Some(file) = listing.names.iter().find(|n| glob_match(name, n)) {
            return Evaluation::new(
                Verdict::Holds,
                format!("{name} is in {dir}"),
                vec![root.show(&format!("{real}/{file}"))],
            );
        }
    }
    Evaluation::new(
        Verdict::RuledOut,
        format!("{name}: in none of the loader's folders"),
        vec![format!(
            "{}: searched {} folders",
            root.show("/"),
            seen.len()
        )],
    )
}

fn apt_test(name: &str, ctx: &Context) -> Evaluation {
    let mut found = Vec::new();
    for f in ctx.values("apt-package") {
        if f.value.split_whitespace().next() == Some(name) {
            found.extend(f.evidence.iter().cloned());
        }
    }
    if !found.is_empty() {
        return Evaluation::new(
            Verdict::Holds,
            format!("apt package {name} is installed"),
            found,
        );
    }
    let listed = is_nvidia_package(name) || is_listed_apt(name);
    match &ctx.root {
        Some(root) if listed && root.exists("/var/lib/dpkg/status") => Evaluation::new(
            Verdict::RuledOut,
            format!("apt package {name} is not installed"),
            vec![root.show("/var/lib/dpkg/status")],
        ),
        _ => Evaluation::new(
            Verdict::Unknown,
            format!("apt package {name}: not known here"),
            Vec::new(),
        ),
    }
}

fn present_test(name: &str, ctx: &Context) -> Evaluation {
    let resolved = resolve(&Operand::Fact(name.to_string()), ctx);
    match resolved {
        Resolved::Values(_, values) => {
            let evidence: Vec<String> = values.iter().flat_map(|v| v.evidence.clone()).collect();
            if values
                .iter()
                .all(|v| matches!(v.kind, ValueKind::Absent(_)))
            {
                let labels: Vec<String> = values.iter().map(|v| v.label.clone()).collect();
                Evaluation::new(Verdict::RuledOut, labels.join(", "), evidence)
            } else {
                let labels: Vec<String> = values
                    .iter()
                    .filter(|v| !matches!(v.kind, ValueKind::Absent(_)))
                    .map(|v| v.label.clone())
                    .collect();
                Evaluation::new(Verdict::Holds, labels.join(", "), evidence)
            }
        }
        Resolved::Unknown(why) => {
            let known_absent = fact_name(name).is_some_and(|f| ctx.knows_absence(f.scope));
            if known_absent {
                let probed = match ctx.root.as_ref() {
                    Some(root) if root.is_live() => "this machine".to_string(),
                    Some(root) => root.show(""),
                    None => "the Dockerfile".to_string(),
                };
                Evaluation::new(
                    Verdict::RuledOut,
                    format!("{name}: not found"),
                    vec![format!("{probed}: no {name} found")],
                )
            } else {
                Evaluation::new(Verdict::Unknown, why, Vec::new())
            }
        }
    }
}

/// Probes what `options` name and makes the context; `Err` when the root or
/// Dockerfile cannot be opened at all.
pub fn probe_context(options: &ProbeOptions) -> Result<(Findings, Context), probe::ProbeError> {
    probe_context_with_named_envs(options, &[])
}

/// `probe_context`, with the Python environments a message names
/// ([`super::message::python_envs`]) probed too.
pub fn probe_context_with_named_envs(
    options: &ProbeOptions,
    named: &[probe::NamedEnv],
) -> Result<(Findings, Context), probe::ProbeError> {
    let findings = probe::run_with_named_envs(options, named)?;
    let ctx = Context::new(&findings, options);
    Ok((findings, ctx))
}

/// The facts to judge `message`'s causes by, probed where `place` says
/// (`build_log::place`): what the user named, this machine with the Python
/// environments the message's paths lead to, a build log's Dockerfile, or
/// nothing (an empty context). With the probes' notes. The CLI and the TUI
/// both call this, so a build log is judged alike in both.
pub fn probe_place(
    place: &super::build_log::Place,
    given: &ProbeOptions,
    message: &str,
) -> Result<(Vec<probe::Note>, Context), probe::ProbeError> {
    use super::build_log::Place;
    let Some(options) = place.options(given) else {
        return Ok((Vec::new(), Context::empty()));
    };
    // A traceback's environments are this machine's (or the root's) only
    // when that is what is probed, not a build log's Dockerfile.
    let named = match place {
        Place::Dockerfile { .. } => Vec::new(),
        _ => super::message::python_envs(message),
    };
    let (findings, ctx) = probe_context_with_named_envs(&options, &named)?;
    Ok((findings.notes, ctx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::causes::parse_condition;

    fn ctx(facts: &[(&'static str, &str, &str)], live: bool) -> Context {
        Context {
            facts: facts
                .iter()
                .map(|&(f, v, e)| Fact {
                    fact: f,
                    value: v.to_string(),
                    evidence: vec![e.to_string()],
                })
                .collect(),
            root: live.then(|| Root::new(std::path::Path::new("/")).unwrap()),
            live,
            dockerfile: false,
            message: false,
            named: Vec::new(),
        }
    }

    fn verdict(cond: &str, ctx: &Context) -> Verdict {
        evaluate(&parse_condition(cond).unwrap(), ctx).verdict
    }

    /// The verdicts of the shipped `invalid device ordinal` causes (cuda/26)
    /// for the facts given, on the machine, in the order written.
    fn ordinal_verdicts(facts: &[(&'static str, &str, &str)]) -> Vec<Verdict> {
        use crate::sources::SourceSet;
        let corpus = crate::corpus::Corpus::load(&SourceSet::builtin_knowledge());
        let doc = corpus
            .get("cuda/26-cuda-initialization-device-errors.md")
            .unwrap();
        let section = doc
            .sections
            .iter()
            .find(|s| s.anchor == "runtimeerror-cuda-error-invalid-device-ordinal")
            .unwrap();
        let mut c = ctx(facts, true);
        c.message = true;
        crate::corpus::causes::section_blocks(doc, section)
            .iter()
            .flat_map(|b| &b.causes)
            .map(|cause| match &cause.check {
                Some(check) => evaluate(&check.condition, &c).verdict,
                None => Verdict::Unknown,
            })
            .collect()
    }

    #[test]
    fn invalid_device_ordinal_causes_turn_on_the_index_and_the_mask() {
        use Verdict::{Holds, RuledOut, Unknown};
        let mask = ("env", "CUDA_VISIBLE_DEVICES=3", "environment");
        let asked = |i: &'static str| ("message.device", i, "the message: \"set_device(…)\"");
        let gpus = |n: &'static str| ("gpu.visible", n, "/dev: nvidiaN");
        // Two GPUs, no mask: cuda:2 is past them, cuda:1 is not.
        assert_eq!(
            ordinal_verdicts(&[asked("2"), gpus("2")]),
            [Holds, RuledOut, Unknown]
        );
        assert_eq!(
            ordinal_verdicts(&[asked("1"), gpus("2")]),
            [RuledOut, RuledOut, Unknown]
        );
        // A mask keeps one GPU, renumbered 0: cuda:3 is the physical number.
        assert_eq!(
            ordinal_verdicts(&[mask, asked("3"), gpus("1")]),
            [RuledOut, Holds, Unknown]
        );
        assert_eq!(
            ordinal_verdicts(&[mask, asked("0"), gpus("1")]),
            [RuledOut, RuledOut, Unknown]
        );
        // No index in the message, or no count (no GPU nodes, MIG): unknown.
        assert_eq!(ordinal_verdicts(&[gpus("1")]), [Unknown, RuledOut, Unknown]);
        assert_eq!(
            ordinal_verdicts(&[asked("1")]),
            [Unknown, RuledOut, Unknown]
        );
    }

    #[test]
    fn a_missing_fact_is_unknown_never_false() {
        let c = ctx(&[("driver.cuda", "12", "d")], false);
        assert_eq!(verdict("torch.cuda > driver.cuda", &c), Verdict::Unknown);
        assert_eq!(
            verdict("not torch.cuda > driver.cuda", &c),
            Verdict::Unknown
        );
        // `and` with a known false part is false; `or` with a true part true.
        assert_eq!(
            verdict("torch.cuda > 12 and driver.cuda > 12", &c),
            Verdict::RuledOut
        );
        assert_eq!(
            verdict("torch.cuda > 12 or driver.cuda == 12", &c),
            Verdict::Holds
        );
    }

    #[test]
    fn versions_compare_by_component_with_prefixes() {
        let c = ctx(
            &[
                ("torch.cuda", "12.8", "v.py:5"),
                ("driver.cuda", "12", "drv:1"),
                ("cuda-toolkit", "/usr/local/cuda-12.4 12.4.1", "t"),
            ],
            false,
        );
        assert_eq!(verdict("torch.cuda > driver.cuda", &c), Verdict::RuledOut);
        assert_eq!(verdict("torch.cuda == 12", &c), Verdict::Holds);
        assert_eq!(verdict("torch.cuda >= 12.10", &c), Verdict::RuledOut);
        assert_eq!(verdict("cuda-toolkit < 12.5", &c), Verdict::Holds);
        let e = evaluate(&parse_condition("torch.cuda > 12.4").unwrap(), &c);
        assert_eq!(e.verdict, Verdict::Holds);
        assert_eq!(e.evidence, vec!["v.py:5"]);
        assert_eq!(e.reasons, vec!["torch.cuda 12.8 > 12.4"]);
    }

    #[test]
    fn several_values_any_and_each() {
        // Two torch installs that disagree: unknown which one runs.
        let c = ctx(
            &[
                ("torch.cuda", "13.0", "a"),
                ("torch.cuda", "12.4", "b"),
                ("driver.cuda", "12", "d"),
                ("gpu.capability", "8.0", "g0"),
                ("gpu.capability", "12.0", "g1"),
                ("torch.arch.max", "9.0", "w"),
            ],
            false,
        );
        assert_eq!(verdict("torch.cuda > driver.cuda", &c), Verdict::Unknown);
        // Any GPU above the wheel's range is enough.
        assert_eq!(
            verdict("major(gpu.capability) > major(torch.arch.max)", &c),
            Verdict::Holds
        );
        assert_eq!(
            verdict("gpu.capability < torch.arch.max", &c),
            Verdict::Holds
        );
        assert_eq!(verdict("major(gpu.capability) < 8", &c), Verdict::RuledOut);
    }

    #[test]
    fn unsure_values_decide_only_when_every_reading_agrees() {
        let c = ctx(
            &[
                ("torch.arch.min", "unsure: 7.0 or 7.5", "w"),
                ("gpu.capability", "6.1", "g"),
            ],
            false,
        );
        assert_eq!(
            verdict("gpu.capability < torch.arch.min", &c),
            Verdict::Holds
        );
        let c = ctx(
            &[
                ("torch.arch.min", "unsure: 7.0 or 7.5", "w"),
                ("gpu.capability", "7.0", "g"),
            ],
            false,
        );
        assert_eq!(
            verdict("gpu.capability < torch.arch.min", &c),
            Verdict::Unknown
        );
    }

    #[test]
    fn known_absences() {
        let c = ctx(&[("torch.cuda", "none (CPU)", "v")], false);
        assert_eq!(verdict("torch.cuda > 11", &c), Verdict::RuledOut);
        assert_eq!(verdict("present(torch.cuda)", &c), Verdict::RuledOut);
        // gpu is a machine fact: absent in an image means nothing.
        assert_eq!(verdict("present(gpu)", &c), Verdict::Unknown);
        // env: unknown without a machine environment.
        assert_eq!(
            verdict("env.CUDA_HOME == \"/usr/local/cuda\"", &c),
            Verdict::Unknown
        );
        assert_eq!(verdict("present(env.CUDA_HOME)", &c), Verdict::Unknown);
    }

    #[test]
    fn text_comparisons_and_contains() {
        let c = ctx(
            &[
                (
                    "env",
                    "LD_LIBRARY_PATH=/usr/local/cuda/lib64:/x",
                    "Dockerfile:3",
                ),
                ("torch.install", "wheel (pip)", "i"),
            ],
            false,
        );
        let e = evaluate(
            &parse_condition("env.LD_LIBRARY_PATH contains \"/usr/local/cuda\"").unwrap(),
            &c,
        );
        assert_eq!(e.verdict, Verdict::Holds);
        assert_eq!(e.evidence, vec!["Dockerfile:3 (LD_LIBRARY_PATH)"]);
        assert_eq!(
            verdict("torch.install contains \"wheel\"", &c),
            Verdict::Holds
        );
        assert_eq!(verdict("torch.install == \"conda\"", &c), Verdict::RuledOut);
        assert_eq!(verdict("torch.install > \"conda\"", &c), Verdict::Unknown);
    }

    #[test]
    fn version_extraction() {
        assert_eq!(version_in("2.5.1+cu124"), Some(vec![2, 5, 1]));
        assert_eq!(
            version_in("/usr/local/cuda-12.4 12.4.1"),
            Some(vec![12, 4, 1])
        );
        assert_eq!(
            version_in("nvidia-cudnn-cu12 9.1.0.70"),
            Some(vec![9, 1, 0, 70])
        );
        assert_eq!(version_in("wheel (pip)"), None);
    }
}
