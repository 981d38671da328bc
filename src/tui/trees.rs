//! The decision-tree screen's state: the list of trees, the walk in
//! progress (a `decide::Session` and the option under the cursor), the
//! question on screen laid out by the Markdown renderer with its panel as a
//! page, and the outcome as a page. Links on either open knowledge in the
//! reader, or another tree (`decide:ID`). Sessions
//! are kept per tree while lore runs and saved to the data folder after each
//! answer (through an `Effect`: `update` itself never touches the disk).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::corpus::{Document, LinkTarget};
use crate::decide::markdown::{self as tree_md, Names, RelatedAs};
use crate::decide::{self, DecisionTree, Question, Session, Step};
use crate::markdown::{Highlighter, RenderOptions, Rendered, render};
use crate::probe::Findings;
use crate::sources::{Origin, SourceFile};
use crate::text::one_line;
use crate::theme::Theme;

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
    /// The question on screen, laid out; `None` at an outcome.
    pub question: Option<QuestionView>,
    /// The outcome as a page, once one is reached.
    pub outcome: Option<Page>,
    /// What the last probe run found: once there, every question the walk
    /// reaches takes a sure probe's answer.
    pub findings: Option<Arc<Findings>>,
}

/// A question laid out for the screen: its text and its options' labels at
/// the question area's width (the numbers and the selection are added when
/// drawn), and the panel beside them (why it matters, how to find out, read
/// more) as a page with links and code blocks.
#[derive(Debug)]
pub struct QuestionView {
    /// A blank row, the question, a blank row, then every option's label.
    pub head: Vec<Line<'static>>,
    /// The rows of `head` each option's label takes.
    pub options: Vec<Range<usize>>,
    pub panel: Page,
}

/// Columns before an option's label: ` ▸ 1 `.
pub const OPTION_INDENT: u16 = 5;

impl QuestionView {
    /// The first head row on screen in `height` rows: the top, unless the
    /// selected option would fall below, then as little scrolled as shows it.
    pub fn head_top(&self, selected: usize, height: usize) -> usize {
        let Some(rows) = self.options.get(selected) else {
            return 0;
        };
        if rows.end <= height {
            0
        } else {
            (rows.end - height).min(rows.start)
        }
    }
}

impl App {
    /// Rows for the outcome page.
    pub fn outcome_height(&self) -> usize {
        layout::outcome(layout::body(self.size)).height as usize
    }

    /// Where the question, its options and the panel go, for the question
    /// on screen.
    pub fn walk_layout(&self) -> layout::WalkLayout {
        let rows = self
            .trees
            .walk
            .as_ref()
            .and_then(|w| w.question.as_ref())
            .map_or(0, |q| q.head.len());
        layout::walk(layout::body(self.size), rows)
    }

    fn panel_height(&self) -> usize {
        self.walk_layout().panel.height as usize
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
            question: None,
            outcome: None,
            findings: None,
        });
        self.screen = Screen::Walk;
        self.refresh_walk();
    }

    /// Starts the tree a `decide:ID` link names (a related decision).
    pub(super) fn open_related(&mut self, id: &str) {
        let Some(index) = self.trees.list.iter().position(|t| t.id == id) else {
            self.set_status(Level::Warning, format!("no decision tree `{id}` is loaded"));
            return;
        };
        if let Some(walk) = self.trees.walk.take() {
            self.park(walk.session);
        }
        let height = (layout::body(self.size).height as usize / 2).max(1);
        let count = self.trees.list.len();
        self.trees.cursor.select(index, count, height);
        self.start_walk(false);
        if self.trees.walk.is_none() {
            // The tree fails its own tests (the status says so): the list.
            self.screen = Screen::Trees;
        }
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
        let height = self.panel_height();
        let step = height.saturating_sub(2).max(1) as isize;
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
        let Some(view) = walk.question.as_mut() else {
            return;
        };
        let panel = &mut view.panel;
        match action {
            Action::Down | Action::Scroll(1..=i32::MAX) => {
                walk.option = (walk.option + 1).min(options.saturating_sub(1));
                panel.focus = None;
            }
            Action::Up | Action::Scroll(i32::MIN..=-1) => {
                walk.option = walk.option.saturating_sub(1);
                panel.focus = None;
            }
            Action::PageDown => panel.scroll_by(step, height),
            Action::PageUp => panel.scroll_by(-step, height),
            Action::Choose(n) => {
                if n == 0 || n > options {
                    self.set_status(Level::Info, format!("choose 1 to {options}"));
                } else {
                    self.answer(n - 1);
                }
            }
            Action::Open => match panel.focused().cloned() {
                Some(link) => self.follow_walk_link(&link.target),
                None => {
                    let option = walk.option;
                    self.answer(option);
                }
            },
            Action::NextLink | Action::PrevLink => {
                if !panel.cycle_all_links(action == Action::NextLink, height) {
                    self.set_status(Level::Info, "this question links to nothing to read");
                } else if let Some(link) = panel.focused() {
                    let text = super::reader::describe_target(&link.target, &link.dest);
                    self.set_status(Level::Info, text);
                }
            }
            Action::CopyCode => {
                let block = panel
                    .code_on_screen(height)
                    .first()
                    .map(|c| (c.raw.to_string(), c.lang.clone()));
                match block {
                    Some((raw, lang)) => self.copy_code(raw, lang),
                    None => {
                        self.set_status(Level::Info, "no command in view; PgDn scrolls the panel")
                    }
                }
            }
            Action::PickCode => {
                let blocks: Vec<String> = panel
                    .rendered
                    .code_blocks
                    .iter()
                    .map(|c| c.raw.trim_end_matches('\n').to_string())
                    .collect();
                if blocks.is_empty() {
                    self.set_status(Level::Info, "this question lists no commands");
                } else {
                    let n = blocks.len();
                    let removed = self.copy(&(blocks.join("\n") + "\n"));
                    self.set_status(
                        Level::Ok,
                        format!(
                            "copied {n} command block{} to the clipboard{removed}",
                            if n == 1 { "" } else { "s" }
                        ),
                    );
                }
            }
            Action::HistoryBack => self.unanswer(),
            Action::Back if panel.focus.is_some() => panel.focus = None,
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

    /// Opens a link from a question's panel or an outcome page: knowledge in
    /// the reader (Backspace comes back here), a related tree as a new walk.
    fn follow_walk_link(&mut self, target: &LinkTarget) {
        match target {
            LinkTarget::Internal { path, anchor } => {
                let at = anchor.clone().map_or(At::Top, At::Anchor);
                let path = path.clone();
                self.open_document(&path, at, Vec::new(), Via::Screen(Screen::Walk));
            }
            LinkTarget::External(url) => match tree_md::tree_link(url) {
                Some(id) => {
                    let id = id.to_string();
                    self.open_related(&id);
                }
                None => {
                    let text = format!("web link, not opened: {url}");
                    self.set_status(Level::Info, text);
                }
            },
            LinkTarget::OutsideRoot(dest) => {
                let text = format!("`{dest}` is outside the knowledge folders");
                self.set_status(Level::Warning, text);
            }
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
        walk.findings = Some(Arc::clone(&findings));
        let decide::probes::Advanced { answered, stopped } =
            decide::probes::advance(&mut walk.session, &findings);
        let stopped = stopped.unwrap_or_default();
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
            self.refresh_walk();
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
        // The probes already ran: the next questions take their answers.
        if let Some(findings) = walk.findings.clone() {
            let advanced = decide::probes::advance(&mut walk.session, &findings);
            if !advanced.answered.is_empty() {
                let message = format!("probed {}", advanced.answered.join(", "));
                self.set_status(Level::Ok, message);
            }
        }
        self.save_progress();
        self.refresh_walk();
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
                self.refresh_walk();
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

    /// Lays out (again, after a resize or once colours load) the step the
    /// walk is at: the question with its panel, or the outcome page. A page
    /// already on screen keeps its place.
    pub(super) fn refresh_walk(&mut self) {
        let body = layout::body(self.size);
        let outcome_width = layout::outcome(body).width;
        let outcome_height = self.outcome_height();
        let bare = layout::walk(body, 0);
        let highlighter = self.highlighter_ready.then(Highlighter::interactive);
        let names = Names {
            corpus: &self.corpus,
            trees: &self.trees.list,
        };
        let probe_key = self.keys.key_for(super::keymap::Mode::Walk, &Action::Probe);
        let Some(walk) = self.trees.walk.as_mut() else {
            return;
        };
        let rel = format!("{}.md", walk.session.tree().id);
        let style = Styling {
            theme: &self.theme,
            highlighter,
        };
        let doc = match walk.session.current() {
            Step::Question(question) => {
                walk.outcome = None;
                let hint = probe_key
                    .map(|key| format!("Press `{key}` to answer from evidence (built-in probe)."));
                let panel_md =
                    tree_md::question_panel(&walk.session, question, &names, hint.as_deref());
                let (doc, panel) = style.render(panel_md, &rel, bare.panel.width);
                // The last column is kept for the `▲`/`▼` marks of a list
                // that scrolls, so they never cover a letter.
                let (head, options) = style.head(question, bare.question.width.saturating_sub(1));
                let panel_height = layout::walk(body, head.len()).panel.height as usize;
                let panel = match walk.question.take() {
                    Some(mut view) if view.panel.doc.text == doc.text => {
                        view.panel.rerendered(Arc::new(panel), panel_height);
                        view.panel
                    }
                    _ => Page::new(Arc::clone(&doc), Arc::new(panel)),
                };
                walk.question = Some(QuestionView {
                    head,
                    options,
                    panel,
                });
                doc
            }
            Step::Outcome(outcome) => {
                walk.question = None;
                let md = tree_md::outcome_page(&walk.session, outcome, &names, RelatedAs::Links);
                let (doc, rendered) = style.render(md, &rel, outcome_width);
                let rendered = Arc::new(rendered);
                match walk.outcome.as_mut() {
                    Some(page) if page.doc.text == doc.text => {
                        page.rerendered(rendered, outcome_height)
                    }
                    _ => walk.outcome = Some(Page::new(Arc::clone(&doc), rendered)),
                }
                doc
            }
        };
        self.highlight_later(&doc);
    }

    /// The path of the walk's page on screen (a question's panel or the
    /// outcome), if any.
    pub(super) fn walk_path(&self) -> Option<&str> {
        let walk = self.trees.walk.as_ref()?;
        let page = walk
            .outcome
            .as_ref()
            .or(walk.question.as_ref().map(|q| &q.panel))?;
        Some(page.doc.path.as_str())
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
                    self.set_status(Level::Info, "Tab to a link, then Enter opens it");
                    return;
                };
                self.follow_walk_link(&link.target);
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
                self.refresh_walk();
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

/// How the walk's Markdown is drawn: the theme and, once loaded, colours
/// for code.
struct Styling<'a> {
    theme: &'a Theme,
    highlighter: Option<&'a Highlighter>,
}

impl Styling<'_> {
    /// Markdown from the tree as a document at the knowledge root (so
    /// `cuda/x.md#a` evidence resolves as written), rendered at `width`.
    fn render(&self, md: String, rel: &str, width: u16) -> (Arc<Document>, Rendered) {
        let doc = Arc::new(Document::parse(SourceFile {
            rel: rel.to_string(),
            origin: Origin::Builtin,
            text: md,
            stamp: None,
        }));
        let rendered = render(
            &doc,
            &RenderOptions {
                width,
                theme: self.theme,
                highlighter: self.highlighter,
                wrap_code: true,
            },
        );
        (doc, rendered)
    }

    /// The question (bold) and each option's label, wrapped: a label to the
    /// width left after its number.
    fn head(&self, question: &Question, width: u16) -> (Vec<Line<'static>>, Vec<Range<usize>>) {
        let mut head = vec![Line::default()];
        let (_, text) = self.render(one_line(&question.text), "question.md", width);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        head.extend(text.lines.iter().map(|line| owned(line).patch_style(bold)));
        head.push(Line::default());
        let mut options = Vec::new();
        let label_width = width.saturating_sub(OPTION_INDENT).max(1);
        for option in &question.options {
            let (_, label) = self.render(one_line(&option.label), "option.md", label_width);
            let start = head.len();
            head.extend(label.lines.iter().map(owned));
            if head.len() == start {
                head.push(Line::default());
            }
            options.push(start..head.len());
        }
        (head, options)
    }
}

/// A rendered line that no longer borrows its rendering.
fn owned(line: Line<'_>) -> Line<'static> {
    let spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|span| Span::styled(span.content.into_owned(), span.style))
        .collect();
    Line::from(spans).style(line.style)
}
