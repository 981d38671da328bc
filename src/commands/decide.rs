//! `lore decide`: list the decision trees, walk one interactively on a
//! terminal, or follow `--answer`s and print where they lead (text or JSON), or
//! print the tree as a graph. Everything from a tree file is sanitized before it
//! reaches the terminal. The walking itself is `decide::Session`'s.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::cli::{DecideArgs, GraphFormat};
use crate::config::{Settings, ThemeName};
use crate::corpus::{Corpus, Document};
use crate::decide::markdown::{self as tree_md, Names, RelatedAs};
use crate::decide::probes::Settled;
use crate::decide::{self, DecisionTree, Outcome, Question, Session, SessionStore, Step};
use crate::markdown::{Highlighter, RenderOptions, render, write_ansi};
use crate::probe::{self, Findings, ProbeOptions};
use crate::sources::{Origin, SourceFile};
use crate::text::{inline, one_line, sanitize};
use crate::theme::Theme;

use super::{EXIT_OK, EXIT_USAGE, stdout};

pub fn run(settings: &Settings, args: &DecideArgs, probing: &ProbeOptions) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    // Only the tree to walk has its `[[tests]]` run (`lore check` runs all).
    let tests = args
        .tree
        .as_deref()
        .map_or(decide::RunTests::Later, decide::RunTests::Only);
    let loaded = decide::load_with(&settings.trees, &corpus, tests);
    let skipped = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.location())
        .collect::<std::collections::BTreeSet<_>>();
    if !skipped.is_empty() {
        say!(
            "lore: warning: {} decision tree file{} with errors skipped ({}); `lore check` shows why",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            inline(&skipped.into_iter().collect::<Vec<_>>().join(", "))
        );
    }

    let Some(id) = &args.tree else {
        return list(&loaded.trees, args.json, settings.color);
    };
    let tree = match decide::find_tree(&loaded.trees, id) {
        Ok(tree) => tree,
        Err(err) => {
            say!("lore: error: {}", inline(&err.to_string()));
            return Ok(EXIT_USAGE);
        }
    };

    if let Some(format) = args.graph {
        let graph = match format {
            GraphFormat::Mermaid => decide::to_mermaid(tree),
            GraphFormat::Dot => decide::to_dot(tree),
        };
        let mut out = stdout();
        out.write_all(graph.as_bytes())?;
        out.flush()?;
        return Ok(EXIT_OK);
    }

    let interactive = args.answers.is_empty()
        && !args.probe
        && !args.json
        && io::stdin().is_terminal()
        && io::stdout().is_terminal();
    if interactive {
        let store = SessionStore::from_paths(&settings.paths);
        let stdin = io::stdin();
        let mut input = stdin.lock();
        let mut out = io::stdout().lock();
        let names = Names {
            corpus: &corpus,
            trees: &loaded.trees,
        };
        let session = walk(
            tree,
            &names,
            store.as_ref(),
            &mut input,
            &mut out,
            Style::for_terminal(settings),
        )?;
        if let Some(file) = &args.transcript {
            write_transcript(&session, file)?;
            writeln!(
                out,
                "Transcript written to {}",
                inline(&file.display().to_string())
            )?;
        }
        return Ok(EXIT_OK);
    }

    let findings = if args.probe {
        match probe::run(probing) {
            Ok(findings) => {
                for note in &findings.notes {
                    say!("lore: warning: {}", inline(&note.to_string()));
                }
                Some(findings)
            }
            Err(err) => {
                say!("lore: error: {}", inline(&err.to_string()));
                return Ok(EXIT_USAGE);
            }
        }
    } else {
        None
    };
    let mut session = Session::new(tree);
    let mut unsure: Vec<String> = Vec::new();
    let applied = session.apply_with(&args.answers, |q| {
        let findings = findings.as_ref()?;
        settle(q, findings, &mut unsure)
    });
    match applied {
        Ok(unused) => {
            for question in unused {
                say!(
                    "lore: warning: question `{}` is not on this path; its answer was not used",
                    inline(&question)
                );
            }
        }
        Err(err) => {
            say!("lore: error: {}", inline(&err.to_string()));
            return Ok(EXIT_USAGE);
        }
    }
    if let Some(file) = &args.transcript {
        write_transcript(&session, file)?;
        say!(
            "lore: transcript written to {}",
            inline(&file.display().to_string())
        );
    }
    let mut out = stdout();
    if args.json {
        let mut json = session_json(&session);
        if args.probe {
            json.probe = Some(ProbeJson {
                probed: probing.describe(),
                unsure: unsure.clone(),
            });
        }
        super::write_json(&mut out, &json)?;
    } else {
        let style = if io::stdout().is_terminal() {
            Style::for_terminal(settings)
        } else {
            Style::plain_text(settings.color)
        };
        let names = Names {
            corpus: &corpus,
            trees: &loaded.trees,
        };
        print_header(&mut out, &session, style)?;
        if args.probe {
            print_probed(&mut out, &session, probing, &unsure, style)?;
        }
        match session.current() {
            Step::Question(q) => {
                print_question(&mut out, &session, q, &names, style)?;
                let answers: Vec<String> = q
                    .options
                    .iter()
                    .map(|o| inline(&format!("{}={}", q.id, o.id)))
                    .collect();
                if let Some(width) = style.width {
                    let mut md = String::new();
                    for (i, (option, answer)) in q.options.iter().zip(&answers).enumerate() {
                        let answer = answer.replace('`', "'");
                        let label = one_line(&option.label);
                        md.push_str(&format!("{}. `{answer}` {label}\n", i + 1));
                    }
                    style.markdown(&mut out, md, width)?;
                } else {
                    let width = answers.iter().map(|a| a.chars().count()).max().unwrap_or(0);
                    for (i, (option, answer)) in q.options.iter().zip(&answers).enumerate() {
                        writeln!(
                            out,
                            "  {:>2}. {answer:<width$}  {}",
                            i + 1,
                            one_line(&option.label)
                        )?;
                    }
                }
                let mut next = format!("lore decide {}", tree.id);
                if args.probe {
                    next.push_str(" --probe");
                }
                for ((q, o), source) in session.path().iter().zip(session.sources()) {
                    if !source.is_probe() {
                        next.push_str(&format!(" --answer {q}={o}"));
                    }
                }
                writeln!(out, "\nNext: {next} --answer {}=OPTION", q.id)?;
            }
            Step::Outcome(o) => print_outcome(&mut out, &session, o, &names, style)?,
        }
    }
    out.flush()?;
    Ok(EXIT_OK)
}

fn list(trees: &[DecisionTree], json: bool, color: bool) -> anyhow::Result<u8> {
    let mut out = stdout();
    if json {
        let list: Vec<TreeJson> = trees
            .iter()
            .map(|t| TreeJson {
                id: t.id.clone(),
                title: t.title.clone(),
                summary: t.summary.clone(),
            })
            .collect();
        super::write_json(&mut out, &list)?;
    } else {
        let style = Style::plain_text(color);
        let width = trees.iter().map(|t| t.id.len()).max().unwrap_or(0);
        for t in trees {
            writeln!(
                out,
                "{}  {}",
                style.bold(&format!("{:<width$}", t.id)).clone(),
                one_line(&t.title)
            )?;
            writeln!(out, "{:width$}  {}", "", one_line(&t.summary))?;
        }
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// The JSON of `lore decide TREE --json`: where the session stands and how it
/// got there. Structs rather than `json!` so keys keep this order. Strings are
/// the tree's exact values; `write_json` escapes what a terminal could act
/// on or hide (`\u001b`, `\u202e`), as in every `--json` output.
#[derive(Serialize)]
struct SessionJson {
    tree: String,
    status: &'static str,
    question: Option<QuestionJson>,
    outcome: Option<OutcomeJson>,
    path: Vec<AnswerJson>,
    /// With `--probe`: what was probed and why a probe left a question open.
    #[serde(skip_serializing_if = "Option::is_none")]
    probe: Option<ProbeJson>,
}

#[derive(Serialize)]
struct ProbeJson {
    probed: String,
    unsure: Vec<String>,
}

/// The answer the question's probe gives, if it names one and is sure.
/// Otherwise `unsure` gets the reason and the walk stops here.
fn settle(
    q: &Question,
    findings: &Findings,
    unsure: &mut Vec<String>,
) -> Option<(String, Vec<String>)> {
    let Some(named) = &q.probe else {
        unsure.push(format!(
            "question `{}` has no probe: it needs your answer",
            q.id
        ));
        return None;
    };
    let probe = decide::probes::find(&named.name)?;
    match probe.settle(findings) {
        Settled::Answer { option, evidence } => Some((option, evidence)),
        Settled::Unsure(reason) => {
            unsure.push(format!(
                "probe `{}` left `{}` open: {reason}",
                probe.name, q.id
            ));
            None
        }
    }
}

/// The probed answers with their evidence, and why probing stopped.
fn print_probed(
    out: &mut impl Write,
    session: &Session,
    probing: &ProbeOptions,
    unsure: &[String],
    style: Style,
) -> io::Result<()> {
    writeln!(
        out,
        "\n{}",
        style.bold(&format!("Probed {}:", inline(&probing.describe())))
    )?;
    let mut any = false;
    for step in session.history() {
        if !step.source.is_probe() {
            continue;
        }
        any = true;
        writeln!(
            out,
            "  {} = {}  ({})",
            sanitize(&step.question.id),
            sanitize(&step.option.id),
            one_line(&step.option.label)
        )?;
        for e in step.source.evidence() {
            writeln!(out, "      {}", style.dim(&inline(e)))?;
        }
    }
    if !any {
        writeln!(out, "  no question answered")?;
    }
    for u in unsure {
        writeln!(out, "  {}", inline(u))?;
    }
    Ok(())
}

#[derive(Serialize)]
struct QuestionJson {
    id: String,
    text: String,
    why: String,
    help: Option<String>,
    options: Vec<OptionJson>,
}

#[derive(Serialize)]
struct OptionJson {
    id: String,
    label: String,
}

#[derive(Serialize)]
struct OutcomeJson {
    id: String,
    title: String,
    verdict: String,
    body: String,
    actions: Vec<ActionJson>,
    evidence: Vec<String>,
}

#[derive(Serialize)]
struct ActionJson {
    label: String,
    lang: String,
    code: String,
}

#[derive(Serialize)]
struct AnswerJson {
    question: String,
    answer: String,
    /// `user` (typed or `--answer`) or `probe`.
    source: &'static str,
    /// For a probed answer, the files (and lines) it rests on.
    evidence: Vec<String>,
}

#[derive(Serialize)]
struct TreeJson {
    id: String,
    title: String,
    summary: String,
}

fn session_json(session: &Session) -> SessionJson {
    let path = session
        .path()
        .iter()
        .zip(session.sources())
        .map(|((q, o), source)| AnswerJson {
            question: q.clone(),
            answer: o.clone(),
            source: if source.is_probe() { "probe" } else { "user" },
            evidence: source.evidence().to_vec(),
        })
        .collect();
    let (status, question, outcome) = match session.current() {
        Step::Question(q) => (
            "question",
            Some(QuestionJson {
                id: q.id.clone(),
                text: q.text.clone(),
                why: q.why.clone(),
                help: q.help.clone(),
                options: q
                    .options
                    .iter()
                    .map(|o| OptionJson {
                        id: o.id.clone(),
                        label: o.label.clone(),
                    })
                    .collect(),
            }),
            None,
        ),
        Step::Outcome(o) => (
            "outcome",
            None,
            Some(OutcomeJson {
                id: o.id.clone(),
                title: o.title.clone(),
                verdict: o.verdict.clone(),
                body: o.body.clone(),
                actions: o
                    .actions
                    .iter()
                    .map(|a| ActionJson {
                        label: a.label.clone(),
                        lang: a.lang.clone(),
                        code: a.code.clone(),
                    })
                    .collect(),
                evidence: o.evidence.iter().map(|e| e.link.clone()).collect(),
            }),
        ),
    };
    SessionJson {
        tree: session.tree().id.clone(),
        status,
        question,
        outcome,
        path,
        probe: None,
    }
}

fn write_transcript(session: &Session, file: &Path) -> anyhow::Result<()> {
    std::fs::write(file, session.transcript(&crate::date::today()))
        .with_context(|| format!("cannot write transcript {}", file.display()))
}

/// How a walk is printed. On a terminal, questions and outcomes go through
/// the Markdown renderer at the terminal's width (no raw Markdown, wrapped at
/// word boundaries); to a pipe they are plain text, one line per paragraph,
/// as scripts have read them.
#[derive(Clone, Copy)]
struct Style {
    color: bool,
    /// Columns to render Markdown to; `None` prints plain text.
    width: Option<u16>,
    theme: ThemeName,
}

impl Style {
    fn for_terminal(settings: &Settings) -> Style {
        let width = ratatui::crossterm::terminal::size()
            .ok()
            .map(|(columns, _)| columns)
            .filter(|&c| c > 0)
            .unwrap_or(80);
        Style {
            color: settings.color,
            width: Some(width),
            // The configured theme: asking the terminal for its background
            // could leave a late answer in the input the walk reads.
            theme: settings.theme,
        }
    }

    fn plain_text(color: bool) -> Style {
        Style {
            color,
            width: None,
            theme: ThemeName::default(),
        }
    }

    /// Markdown rendered for the terminal.
    fn markdown(self, out: &mut impl Write, md: String, width: u16) -> io::Result<()> {
        let doc = Document::parse(SourceFile {
            rel: "decide.md".into(),
            origin: Origin::Builtin,
            text: md,
            stamp: None,
        });
        let theme = if self.color {
            Theme::for_name(self.theme)
        } else {
            Theme::plain()
        };
        let rendered = render(
            &doc,
            &RenderOptions {
                width,
                theme: &theme,
                highlighter: self.color.then(Highlighter::global),
                wrap_code: true,
            },
        );
        write_ansi(out, rendered.lines.iter(), self.color)
    }

    fn bold(self, text: &str) -> String {
        if self.color {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn dim(self, text: &str) -> String {
        if self.color {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Tree text as a block, every line indented.
fn block(text: &str, indent: &str) -> String {
    sanitize(text.trim_end())
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn print_header(out: &mut impl Write, session: &Session, style: Style) -> io::Result<()> {
    let tree = session.tree();
    writeln!(
        out,
        "{} {}",
        style.bold(&one_line(&tree.title)),
        style.dim(&format!("({})", inline(&tree.id)))
    )?;
    let history = session.history();
    // At an outcome the full "how we got here" replaces the breadcrumbs.
    if !history.is_empty() && !session.is_finished() {
        // The options as they read (no backticks); on a terminal the most
        // recent answers are kept when the line is wider than it.
        let crumbs: Vec<String> = history
            .iter()
            .map(|a| crate::markdown::inline_text(&a.option.label))
            .collect();
        let line = crumbs.join(" › ");
        let line = match style.width {
            Some(width) => crate::text::fit_left(&line, usize::from(width)),
            None => line,
        };
        writeln!(out, "{}", style.dim(&line))?;
    }
    Ok(())
}

/// A question with why it matters, how to find out and the evidence.
fn print_question(
    out: &mut impl Write,
    session: &Session,
    q: &Question,
    names: &Names<'_>,
    style: Style,
) -> io::Result<()> {
    if let Some(width) = style.width {
        let md = format!(
            "## {}\n\n### Why it matters\n\n{}",
            one_line(&q.text),
            tree_md::question_panel(session, q, names, None)
        );
        writeln!(out)?;
        style.markdown(out, md, width)?;
        return writeln!(out);
    }
    writeln!(out, "\n{}\n", style.bold(&one_line(&q.text)))?;
    writeln!(out, "  Why it matters:\n{}", block(&q.why, "    "))?;
    if let Some(help) = &q.help {
        writeln!(out, "  How to find out:\n{}", block(help, "    "))?;
    }
    print_evidence(out, &q.evidence, names.corpus)?;
    writeln!(out)
}

fn print_evidence(
    out: &mut impl Write,
    evidence: &[decide::Evidence],
    corpus: &Corpus,
) -> io::Result<()> {
    if evidence.is_empty() {
        return Ok(());
    }
    writeln!(out, "  Evidence (open with `lore show`):")?;
    for e in evidence {
        let heading = corpus.get(e.path()).and_then(|doc| match e.anchor() {
            Some(anchor) => doc.section_by_anchor(anchor).map(|s| s.title.clone()),
            None => Some(doc.title.clone()),
        });
        match heading {
            Some(heading) => writeln!(out, "    {}  {}", inline(&e.link), one_line(&heading))?,
            None => writeln!(out, "    {}", inline(&e.link))?,
        }
    }
    Ok(())
}

fn print_outcome(
    out: &mut impl Write,
    session: &Session,
    o: &Outcome,
    names: &Names<'_>,
    style: Style,
) -> io::Result<()> {
    if let Some(width) = style.width {
        writeln!(out)?;
        let md = tree_md::outcome_page(session, o, names, RelatedAs::Commands);
        return style.markdown(out, md, width);
    }
    print_history(out, session, style)?;
    let corpus = names.corpus;
    writeln!(
        out,
        "\n{} {}",
        style.bold("Outcome:"),
        style.bold(&one_line(&o.title))
    )?;
    writeln!(out, "{} {}", style.bold("Verdict:"), one_line(&o.verdict))?;
    if !o.body.trim().is_empty() {
        writeln!(out, "\n{}", block(&o.body, "  "))?;
    }
    if !o.actions.is_empty() {
        writeln!(out, "\n{}", style.bold("Actions:"))?;
        for action in &o.actions {
            writeln!(
                out,
                "\n  {} {}",
                one_line(&action.label),
                style.dim(&format!("[{}]", one_line(&action.lang)))
            )?;
            writeln!(out, "{}", block(&action.code, "    "))?;
        }
    }
    if !o.evidence.is_empty() {
        writeln!(out)?;
        print_evidence(out, &o.evidence, corpus)?;
    }
    if !o.related.is_empty() {
        let related: Vec<String> = o
            .related
            .iter()
            .map(|r| format!("lore decide {}", inline(&r.tree)))
            .collect();
        writeln!(out, "\n  Related: {}", related.join(", "))?;
    }
    Ok(())
}

fn print_history(out: &mut impl Write, session: &Session, style: Style) -> io::Result<()> {
    let history = session.history();
    if history.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n{}", style.bold("How we got here:"))?;
    for (i, step) in history.iter().enumerate() {
        writeln!(
            out,
            "  {}. {}  → {}{}",
            i + 1,
            one_line(&step.question.text),
            one_line(&step.option.label),
            if step.source.is_probe() {
                "  (probed)"
            } else {
                ""
            }
        )?;
        for e in step.source.evidence() {
            writeln!(out, "       {}", style.dim(&inline(e)))?;
        }
    }
    Ok(())
}

/// The interactive walk: one question at a time, numbered options, `b` back,
/// `?` why and how to find out, `q` quit. Progress is saved after every answer
/// (when a data folder exists), so an interrupted walk can be resumed; the
/// saved session is dropped once an outcome is reached. Generic over input and
/// output so tests can drive it without a terminal.
fn walk(
    tree: &DecisionTree,
    names: &Names<'_>,
    store: Option<&SessionStore>,
    input: &mut impl BufRead,
    out: &mut impl Write,
    style: Style,
) -> anyhow::Result<Session> {
    let mut session = Session::new(tree);
    if let Some(store) = store {
        match store.resume(tree) {
            Ok(Some(resumed)) if resumed.session.path().is_empty() => {
                if let Some(note) = resumed.dropped_note() {
                    writeln!(
                        out,
                        "Your saved `{}` session cannot be resumed: {}.",
                        sanitize(&tree.id),
                        sanitize(&note)
                    )?;
                }
            }
            Ok(Some(resumed)) => {
                if let Some(note) = resumed.dropped_note() {
                    writeln!(
                        out,
                        "The tree changed since your `{}` session was saved: {}.",
                        sanitize(&tree.id),
                        sanitize(&note)
                    )?;
                }
                let n = resumed.session.path().len();
                write!(
                    out,
                    "You have an unfinished `{}` session ({n} answer{}). Resume it? [Y/n] ",
                    inline(&tree.id),
                    if n == 1 { "" } else { "s" }
                )?;
                out.flush()?;
                match read_line(input)? {
                    Some(answer) if answer.eq_ignore_ascii_case("n") => {
                        store.remove(&tree.id)?;
                    }
                    Some(_) => session = resumed.session,
                    None => return Ok(session),
                }
            }
            Ok(None) => {}
            Err(err) => writeln!(out, "(saved session ignored: {})", inline(&err.to_string()))?,
        }
    }

    let save = |session: &Session, out: &mut dyn Write| -> io::Result<()> {
        if let Some(store) = store {
            let result = if session.is_finished() || session.path().is_empty() {
                store.remove(&session.tree().id)
            } else {
                store.save(session).map(|_| ())
            };
            if let Err(err) = result {
                writeln!(
                    out,
                    "(could not save the session: {})",
                    inline(&err.to_string())
                )?;
            }
        }
        Ok(())
    };

    loop {
        writeln!(out)?;
        print_header(out, &session, style)?;
        match session.current() {
            Step::Question(q) => {
                let q = q.clone();
                print_options(out, &q, style)?;
                let count = q.options.len();
                loop {
                    write!(out, "\nChoose 1-{count}, b back, ? why, q quit: ")?;
                    out.flush()?;
                    let Some(answer) = read_line(input)? else {
                        return quit(out, &session, store);
                    };
                    match answer.as_str() {
                        "q" | "quit" => return quit(out, &session, store),
                        "?" | "h" | "help" => {
                            print_question(out, &session, &q, names, style)?;
                        }
                        "b" | "back" => {
                            if session.back().is_none() {
                                writeln!(out, "This is the first question.")?;
                                continue;
                            }
                            save(&session, out)?;
                            break;
                        }
                        other => match other.parse::<usize>() {
                            Ok(n) if (1..=count).contains(&n) => {
                                session.choose(n - 1)?;
                                save(&session, out)?;
                                break;
                            }
                            _ => writeln!(out, "Type a number from 1 to {count}, b, ? or q.")?,
                        },
                    }
                }
            }
            Step::Outcome(o) => {
                let o = o.clone();
                print_outcome(out, &session, &o, names, style)?;
                loop {
                    write!(out, "\nb back, t save a transcript, q quit: ")?;
                    out.flush()?;
                    match read_line(input)?.as_deref() {
                        None | Some("q" | "quit") => return Ok(session),
                        Some("b" | "back") => {
                            session.back();
                            save(&session, out)?;
                            break;
                        }
                        Some("t") => match store {
                            Some(store) => {
                                match store.write_transcript(&session, &crate::date::today()) {
                                    Ok(file) => writeln!(
                                        out,
                                        "Transcript written to {}",
                                        inline(&file.display().to_string())
                                    )?,
                                    Err(err) => writeln!(
                                        out,
                                        "Cannot write the transcript: {}",
                                        inline(&err.to_string())
                                    )?,
                                }
                            }
                            None => writeln!(
                                out,
                                "No data folder on this system; use --transcript FILE."
                            )?,
                        },
                        Some(_) => writeln!(out, "Type b, t or q.")?,
                    }
                }
            }
        }
    }
}

/// The question and its numbered options, as the interactive walk asks it.
fn print_options(out: &mut impl Write, q: &Question, style: Style) -> io::Result<()> {
    if let Some(width) = style.width {
        let mut md = format!("**{}**\n\n", one_line(&q.text));
        for (i, option) in q.options.iter().enumerate() {
            md.push_str(&format!("{}. {}\n", i + 1, one_line(&option.label)));
        }
        writeln!(out)?;
        return style.markdown(out, md, width);
    }
    writeln!(out, "\n{}\n", style.bold(&one_line(&q.text)))?;
    for (i, option) in q.options.iter().enumerate() {
        writeln!(out, "  {}. {}", i + 1, one_line(&option.label))?;
    }
    Ok(())
}

fn quit(
    out: &mut impl Write,
    session: &Session,
    store: Option<&SessionStore>,
) -> anyhow::Result<Session> {
    writeln!(out)?;
    if session.path().is_empty() {
        return Ok(session.clone());
    }
    // Only promise a resume the data folder can keep: a save may have failed.
    let id = &session.tree().id;
    let kept = store.is_some_and(
        |store| matches!(store.load(id), Ok(Some(saved)) if saved.path == session.path()),
    );
    if kept {
        writeln!(
            out,
            "Session kept; `lore decide {}` offers to resume it.",
            inline(id)
        )?;
    } else if store.is_some() {
        writeln!(
            out,
            "Session not kept: it could not be saved in the data folder."
        )?;
    }
    Ok(session.clone())
}

/// One trimmed line of input, or `None` at end of input.
fn read_line(input: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::SourceSet;

    fn builtin() -> (Corpus, Vec<DecisionTree>) {
        let corpus = Corpus::load(&SourceSet {
            builtin: Some(&crate::sources::BUILTIN_KNOWLEDGE),
            overlays: vec![],
        });
        let (trees, _) = decide::load_trees(
            &SourceSet {
                builtin: Some(&crate::sources::BUILTIN_TREES),
                overlays: vec![],
            },
            &corpus,
        );
        (corpus, trees)
    }

    fn run_walk(
        tree: &DecisionTree,
        corpus: &Corpus,
        store: &SessionStore,
        keys: &str,
    ) -> (Session, String) {
        let mut input = io::Cursor::new(keys.as_bytes().to_vec());
        let mut out = Vec::new();
        let (_, trees) = builtin();
        let names = Names {
            corpus,
            trees: &trees,
        };
        let style = Style::plain_text(false);
        let session = walk(tree, &names, Some(store), &mut input, &mut out, style).unwrap();
        (session, String::from_utf8(out).unwrap())
    }

    #[test]
    fn interactive_walk_numbers_back_help_and_resume() {
        let (corpus, trees) = builtin();
        let tree = decide::find_tree(&trees, "need-cupti").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let first = &tree.question(&tree.start).unwrap().clone();

        // ? explains, an out-of-range number is refused, 1 answers, b goes back,
        // 1 answers again, then q keeps the session.
        let (session, out) = run_walk(tree, &corpus, &store, "?\n99\n1\nb\n1\nq\n");
        assert!(out.contains("Why it matters:"), "{out}");
        assert!(
            out.contains(&format!("Type a number from 1 to {}", first.options.len())),
            "{out}"
        );
        assert_eq!(session.path().len(), 1, "{out}");
        assert!(out.contains("Session kept; `lore decide need-cupti` offers to resume it."));
        assert_eq!(
            store.load("need-cupti").unwrap().unwrap().path,
            session.path()
        );

        // Next time: resume, then end of input.
        let (resumed, out) = run_walk(tree, &corpus, &store, "y\n");
        assert!(
            out.starts_with(
                "You have an unfinished `need-cupti` session (1 answer). Resume it? [Y/n] "
            ),
            "{out}"
        );
        assert_eq!(resumed.path(), session.path());

        // Declining starts over and forgets the saved session.
        let (fresh, _) = run_walk(tree, &corpus, &store, "n\n");
        assert!(fresh.path().is_empty());
        assert!(store.load("need-cupti").unwrap().is_none());
    }

    #[test]
    fn quitting_does_not_promise_a_resume_when_saving_failed() {
        let (corpus, trees) = builtin();
        let tree = decide::find_tree(&trees, "need-cupti").unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The data folder is a file: every save fails.
        let data = dir.path().join("data");
        std::fs::write(&data, "").unwrap();
        let store = SessionStore::new(&data);
        let (session, out) = run_walk(tree, &corpus, &store, "1\nq\n");
        assert_eq!(session.path().len(), 1, "{out}");
        assert!(out.contains("(could not save the session: "), "{out}");
        assert!(!out.contains("Session kept"), "{out}");
        assert!(
            out.ends_with("Session not kept: it could not be saved in the data folder.\n"),
            "{out}"
        );
    }

    #[test]
    fn reaching_an_outcome_shows_how_we_got_here_and_forgets_the_session() {
        let (corpus, trees) = builtin();
        let tree = decide::find_tree(&trees, "need-cupti").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        // Always take the last option until an outcome, then save a transcript.
        let mut keys = String::new();
        let mut probe = Session::new(tree);
        while let Step::Question(q) = probe.current() {
            let n = q.options.len();
            keys.push_str(&format!("{n}\n"));
            probe.choose(n - 1).unwrap();
        }
        keys.push_str("t\nq\n");
        let (session, out) = run_walk(tree, &corpus, &store, &keys);
        assert!(session.is_finished());
        assert!(out.contains("How we got here:"), "{out}");
        assert!(out.contains("Verdict:"), "{out}");
        assert!(out.contains("Transcript written to "), "{out}");
        assert!(store.load("need-cupti").unwrap().is_none());
        assert_eq!(
            std::fs::read_dir(store.transcripts_dir()).unwrap().count(),
            1
        );
    }
}
