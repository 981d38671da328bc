//! The decision-tree screen's state: the list of trees, the walk in
//! progress (a `decide::Session` and the option under the cursor), and the
//! outcome shown as a page whose evidence links open in the reader. Sessions
//! are kept per tree while lore runs and saved to the data folder after each
//! answer (through an `Effect`: `update` itself never touches the disk).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::corpus::Document;
use crate::decide::probes::Settled;
use crate::decide::{self, AnswerSource, DecisionTree, Outcome, Session, Step};
use crate::markdown::{Highlighter, RenderOptions, render};
use crate::probe::Findings;
use crate::sources::{Origin, SourceFile};
use crate::text::one_line;

use super::action::Action;
use super::app::{App, Effect, Level, Screen};
use super::layout;
use super::page::Page;
use super::reader::{At, Via};
use super::widgets::Cursor;

#[derive(Debug, Default)]
pub struct Trees {
    pub list: Vec<DecisionTree>,
    pub cursor: Cursor,
    /// Unfinished walks by tree id: saved in an earlier run, or left this run.
    pub sessions: HashMap<String, Session>,
    pub walk: Option<Walk>,
    /// Where Esc on the list goes.
    pub return_to: Option<Screen>,
    /// Sessions and transcripts can be saved (there is a data folder).
    pub can_save: bool,
    /// The probe worker is running.
    pub probing: bool,
    /// Trees whose `[[tests]]` have been run (they are run when a tree is
    /// first opened, not at start-up): whether they passed.
    pub tested: HashMap<String, bool>,
}

#[derive(Debug)]
pub struct Walk {
    pub session: Session,
    /// The option under the cursor (0-based).
    pub option: usize,
    /// The outcome as a page, once one is reached.
    pub outcome: Option<Page>,
}

impl App {
    /// Rows for the outcome page.
    pub fn outcome_height(&self) -> usize {
        layout::outcome(layout::body(self.size)).height as usize
    }

    pub(super) fn open_trees(&mut self) {
        if self.screen != Screen::Trees && self.screen != Screen::Walk {
            self.trees.return_to = Some(self.screen);
        }
        if let Some(walk) = self.trees.walk.take() {
            self.park(walk.session);
        }
        self.screen = Screen::Trees;
        if self.trees.list.is_empty() {
            self.set_status(Level::Warning, "no decision trees loaded (see the log: w)");
        }
    }

    /// Keeps a walk for when its tree is picked again this run (a finished
    /// one too, so its outcome is one key away; only unfinished walks are
    /// saved to disk). An empty walk is simply dropped.
    fn park(&mut self, session: Session) {
        let id = session.tree().id.clone();
        if session.path().is_empty() {
            self.trees.sessions.remove(&id);
        } else {
            self.trees.sessions.insert(id, session);
        }
    }

    pub(super) fn update_trees(&mut self, action: Action) {
        let count = self.trees.list.len();
        let height = (layout::body(self.size).height as usize / 2).max(1);
        let cursor = &mut self.trees.cursor;
        match action {
            Action::Down => cursor.move_by(1, count, height),
            Action::Up => cursor.move_by(-1, count, height),
            Action::Scroll(n) => cursor.move_by(n.signum() as isize, count, height),
            Action::Choose(n) if n >= 1 && n <= count => {
                cursor.select(n - 1, count, height);
                self.start_walk(false);
            }
            Action::Open => self.start_walk(false),
            Action::Restart => self.start_walk(true),
            Action::Back => {
                self.screen = self.trees.return_to.take().unwrap_or(Screen::Library);
            }
            _ => {}
        }
    }

    /// Starts (or resumes) the tree under the cursor.
    fn start_walk(&mut self, fresh: bool) {
        let Some(tree) = self.trees.list.get(self.trees.cursor.selected).cloned() else {
            return;
        };
        if !self.passes_its_tests(&tree) {
            return;
        }
        let id = tree.id.clone();
        let kept = self.trees.sessions.remove(&id);
        let session = match kept {
            Some(session) if !fresh => {
                let n = session.path().len();
                self.set_status(
                    Level::Info,
                    format!(
                        "resumed where you left off ({n} answer{}); n on the list starts over",
                        if n == 1 { "" } else { "s" }
                    ),
                );
                session
            }
            kept => {
                if kept.is_some() {
                    self.effects_push(Effect::ForgetSession(id));
                }
                Session::new(&tree)
            }
        };
        self.trees.walk = Some(Walk {
            session,
            option: 0,
            outcome: None,
        });
        self.screen = Screen::Walk;
        self.refresh_outcome();
    }

    /// Runs the tree's `[[tests]]` the first time it is opened; a tree that
    /// fails them is not walked (as `lore decide` and `lore check` refuse
    /// it), and the log says why.
    fn passes_its_tests(&mut self, tree: &DecisionTree) -> bool {
        let passed = match self.trees.tested.get(&tree.id) {
            Some(&passed) => passed,
            None => {
                let problems = decide::check_tests(tree);
                let passed = !problems.iter().any(|d| d.is_error());
                for problem in &problems {
                    log::warn!("{problem}");
                }
                self.warnings.extend(problems);
                self.trees.tested.insert(tree.id.clone(), passed);
                passed
            }
        };
        if !passed {
            self.set_status(
                Level::Error,
                format!(
                    "tree `{}` fails its own [[tests]] and cannot be walked (see the log: w)",
                    tree.id
                ),
            );
        }
        passed
    }

    pub(super) fn update_walk(&mut self, action: Action) {
        let Some(walk) = self.trees.walk.as_mut() else {
            self.screen = Screen::Trees;
            return;
        };
        if walk.outcome.is_some() {
            self.update_outcome(action);
            return;
        }
        let options = match walk.session.current() {
            Step::Question(q) => q.options.len(),
            Step::Outcome(_) => 0,
        };
        match action {
            Action::Down | Action::Scroll(1..=i32::MAX) => {
                walk.option = (walk.option + 1).min(options.saturating_sub(1));
            }
            Action::Up | Action::Scroll(i32::MIN..=-1) => {
                walk.option = walk.option.saturating_sub(1);
            }
            Action::Choose(n) => {
                if n == 0 || n > options {
                    self.set_status(Level::Info, format!("choose 1 to {options}"));
                } else {
                    self.answer(n - 1);
                }
            }
            Action::Open => {
                let option = walk.option;
                self.answer(option);
            }
            Action::HistoryBack => self.unanswer(),
            Action::Back => self.open_trees(),
            Action::Probe => {
                if !self.trees.probing {
                    self.trees.probing = true;
                    self.effects_push(Effect::Probe);
                }
                self.set_status(Level::Info, "probing…");
            }
            _ => {}
        }
    }

    /// The probe worker answered: from the question on screen, answer each
    /// question whose probe is sure, marked as probed with its evidence, and
    /// stop at the first one it cannot settle, saying why.
    pub(super) fn probed(&mut self, result: Result<Arc<Findings>, String>) {
        self.trees.probing = false;
        let findings = match result {
            Ok(findings) => findings,
            Err(message) => {
                self.set_status(Level::Error, format!("cannot probe: {message}"));
                return;
            }
        };
        for note in &findings.notes {
            self.log
                .events
                .push(crate::text::sanitize(&note.to_string()));
        }
        let Some(walk) = self.trees.walk.as_mut().filter(|w| w.outcome.is_none()) else {
            self.set_status(Level::Info, "probed, but no question is on screen");
            return;
        };
        let mut answered = Vec::new();
        let mut stopped = String::new();
        while let Step::Question(q) = walk.session.current() {
            let (id, probe) = (q.id.clone(), q.probe.clone());
            let Some(named) = probe else {
                stopped = format!("`{id}` needs your answer");
                break;
            };
            let Some(probe) = crate::decide::probes::find(&named.name) else {
                break;
            };
            match probe.settle(&findings) {
                Settled::Answer { option, evidence } => {
                    let source = AnswerSource::Probe { evidence };
                    if walk.session.answer_from(&id, &option, source).is_err() {
                        break;
                    }
                    answered.push(format!("{id}={option}"));
                }
                Settled::Unsure(reason) => {
                    stopped = format!("`{id}` left open: {reason}");
                    break;
                }
            }
        }
        walk.option = 0;
        let message = if answered.is_empty() {
            format!("probes answered nothing; {stopped}")
        } else if stopped.is_empty() {
            format!("probed {}", answered.join(", "))
        } else {
            format!("probed {}; {stopped}", answered.join(", "))
        };
        let level = if answered.is_empty() {
            Level::Warning
        } else {
            Level::Ok
        };
        self.set_status(level, message);
        if !answered.is_empty() {
            self.save_progress();
            self.refresh_outcome();
        }
    }

    fn answer(&mut self, index: usize) {
        let Some(walk) = self.trees.walk.as_mut() else {
            return;
        };
        if let Err(err) = walk.session.choose(index) {
            self.set_status(Level::Error, err.to_string());
            return;
        }
        walk.option = 0;
        self.save_progress();
        self.refresh_outcome();
    }

    /// Drops the last answer: back to the question before.
    fn unanswer(&mut self) {
        let Some(walk) = self.trees.walk.as_mut() else {
            return;
        };
        match walk.session.back() {
            Some((question, option)) => {
                walk.option = match walk.session.current() {
                    Step::Question(q) if q.id == question => {
                        q.options.iter().position(|o| o.id == option).unwrap_or(0)
                    }
                    _ => 0,
                };
                walk.outcome = None;
                self.save_progress();
            }
            None => self.open_trees(),
        }
    }

    /// Saves the walk in progress, or forgets it once it has reached an
    /// outcome or gone back to the start (as `lore decide` does).
    fn save_progress(&mut self) {
        if !self.trees.can_save {
            return;
        }
        let Some(walk) = &self.trees.walk else {
            return;
        };
        let session = &walk.session;
        let effect = if session.is_finished() || session.path().is_empty() {
            Effect::ForgetSession(session.tree().id.clone())
        } else {
            Effect::SaveSession(session.clone())
        };
        self.effects_push(effect);
    }

    /// Builds (or rebuilds, after a resize) the outcome page if the walk is at
    /// an outcome.
    pub(super) fn refresh_outcome(&mut self) {
        let width = layout::outcome(layout::body(self.size)).width;
        let height = self.outcome_height();
        let highlighter = self.highlighter_ready.then(Highlighter::interactive);
        let theme = &self.theme;
        let Some(walk) = self.trees.walk.as_mut() else {
            return;
        };
        let Step::Outcome(outcome) = walk.session.current() else {
            walk.outcome = None;
            return;
        };
        let doc = Arc::new(outcome_document(&walk.session, outcome));
        let rendered = Arc::new(render(
            &doc,
            &RenderOptions {
                width,
                theme,
                highlighter,
                wrap_code: true,
            },
        ));
        match walk.outcome.as_mut() {
            Some(page) if page.doc.text == doc.text => page.rerendered(rendered, height),
            _ => walk.outcome = Some(Page::new(Arc::clone(&doc), rendered)),
        }
        self.highlight_later(&doc);
    }

    /// The path of the outcome page on screen, if any.
    pub(super) fn outcome_path(&self) -> Option<&str> {
        let walk = self.trees.walk.as_ref()?;
        walk.outcome.as_ref().map(|p| p.doc.path.as_str())
    }

    fn update_outcome(&mut self, action: Action) {
        let height = self.outcome_height();
        let step = height.saturating_sub(2).max(1) as isize;
        let Some(page) = self.trees.walk.as_mut().and_then(|w| w.outcome.as_mut()) else {
            return;
        };
        match action {
            Action::Down => page.scroll_by(1, height),
            Action::Up => page.scroll_by(-1, height),
            Action::Scroll(n) => page.scroll_by(n as isize, height),
            Action::PageDown => page.scroll_by(step, height),
            Action::PageUp => page.scroll_by(-step, height),
            Action::Top => page.scroll_to(0, height),
            Action::Bottom => page.scroll_to(usize::MAX, height),
            Action::NextLink | Action::PrevLink => {
                if !page.cycle_link(action == Action::NextLink, height) {
                    self.set_status(Level::Info, "no evidence links on screen; scroll down");
                } else if let Some(link) = page.focused() {
                    let text = super::reader::describe_target(&link.target, &link.dest);
                    self.set_status(Level::Info, text);
                }
            }
            Action::Open => {
                let Some(link) = page.focused().cloned() else {
                    self.set_status(Level::Info, "Tab to an evidence link, then Enter opens it");
                    return;
                };
                match &link.target {
                    crate::corpus::LinkTarget::Internal { path, anchor } => {
                        let at = anchor.clone().map_or(At::Top, At::Anchor);
                        let path = path.clone();
                        self.open_document(&path, at, Vec::new(), Via::Screen(Screen::Walk));
                    }
                    crate::corpus::LinkTarget::External(url) => {
                        let text = format!("web link, not opened: {url}");
                        self.set_status(Level::Info, text);
                    }
                    crate::corpus::LinkTarget::OutsideRoot(dest) => {
                        let text = format!("`{dest}` is outside the knowledge folders");
                        self.set_status(Level::Warning, text);
                    }
                }
            }
            Action::CopyCode => {
                let block = page
                    .code_on_screen(height)
                    .first()
                    .map(|c| (c.raw.to_string(), c.lang.clone()));
                match block {
                    Some((raw, lang)) => self.copy_code(raw, lang),
                    None => self.set_status(Level::Info, "no command on screen"),
                }
            }
            Action::Export => self.export_transcript(),
            Action::HistoryBack => self.unanswer(),
            Action::Restart => {
                if let Some(walk) = self.trees.walk.as_mut() {
                    while walk.session.back().is_some() {}
                    walk.outcome = None;
                    walk.option = 0;
                }
                self.save_progress();
            }
            Action::Back => self.open_trees(),
            _ => {}
        }
    }

    /// Saves the transcript to the data folder and copies it.
    fn export_transcript(&mut self) {
        let Some(walk) = &self.trees.walk else {
            return;
        };
        let session = walk.session.clone();
        let text = session.transcript(&crate::date::today());
        let removed = self.copy(&text);
        if self.trees.can_save {
            self.effects_push(Effect::SaveTranscript(session));
            self.set_status(
                Level::Ok,
                format!("transcript copied to the clipboard{removed}; saving…"),
            );
        } else {
            self.set_status(
                Level::Ok,
                format!(
                    "transcript copied to the clipboard{removed} (no data folder to save it in)"
                ),
            );
        }
    }
}

/// The outcome as a Markdown document: verdict first, then how the answers
/// led here, the explanation, the commands, and the evidence as links into
/// the knowledge (which the page can follow). Tree text is untrusted; the
/// renderer sanitises everything it draws.
pub fn outcome_document(session: &Session, outcome: &Outcome) -> Document {
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", one_line(&outcome.title));
    let _ = writeln!(md, "**Verdict:** {}\n", one_line(&outcome.verdict));
    let history = session.history();
    if !history.is_empty() {
        let _ = writeln!(md, "## How we got here\n");
        for (i, step) in history.iter().enumerate() {
            let _ = writeln!(
                md,
                "{}. {} — **{}**{}",
                i + 1,
                one_line(&step.question.text),
                one_line(&step.option.label),
                if step.source.is_probe() {
                    " (probed)"
                } else {
                    ""
                }
            );
            for e in step.source.evidence() {
                let _ = writeln!(md, "   - `{}`", one_line(e).replace('`', "'"));
            }
        }
        md.push('\n');
    }
    if !outcome.body.trim().is_empty() {
        let _ = writeln!(md, "## Why\n\n{}\n", outcome.body.trim_end());
    }
    if !outcome.actions.is_empty() {
        let _ = writeln!(md, "## What to do\n");
        for action in &outcome.actions {
            let code = action.code.trim_end_matches('\n');
            let fence = "`".repeat(longest_backtick_run(code).max(2) + 1);
            let _ = writeln!(
                md,
                "{}:\n\n{fence}{}\n{code}\n{fence}\n",
                one_line(&action.label),
                one_line(&action.lang)
            );
        }
    }
    if !outcome.evidence.is_empty() {
        let _ = writeln!(md, "## Evidence\n");
        for e in &outcome.evidence {
            let link = one_line(&e.link);
            let _ = writeln!(md, "- [{link}]({})", link.replace(' ', "%20"));
        }
        md.push('\n');
    }
    if !outcome.related.is_empty() {
        let _ = writeln!(md, "## Related decisions\n");
        for r in &outcome.related {
            let _ = writeln!(md, "- `{}` (press d, then pick it)", one_line(&r.tree));
        }
    }
    Document::parse(SourceFile {
        // At the knowledge root, so `cuda/x.md#a` evidence resolves as written.
        rel: format!("{}.md", session.tree().id),
        origin: Origin::Builtin,
        text: md,
        stamp: None,
    })
}

fn longest_backtick_run(code: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}
