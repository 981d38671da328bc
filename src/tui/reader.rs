//! The reader's state and how it changes: the page on screen, the history
//! behind `Backspace` and the forward key, the table of contents, find in the
//! document and the code block picker. All of it changes only through
//! `App::update`, which hands reader actions to `App::update_reader`.
//!
//! Links are followed only through the corpus's own resolution
//! (`LinkTarget`): a link into the knowledge opens, a web link is shown and
//! can be copied, a path outside the knowledge roots is refused.

use std::sync::Arc;

use crate::corpus::{Kind, LinkTarget, footnote_label};
use crate::markdown::{Highlighter, RenderOptions, Rendered, RenderedLink};

use super::action::Action;
use super::app::{App, Level, Screen};
use super::layout;
use super::page::{Mark, Page, find_all};
use super::widgets::{Cursor, TextInput};

/// At most this many steps of history are kept.
const HISTORY: usize = 200;

/// A position in a document that survives re-rendering at another width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: String,
    pub source_line: usize,
    /// The link focused there (its `RenderedLink::index`): coming back to
    /// the page focuses it again, so Tab goes on from the link followed.
    pub link: Option<usize>,
}

/// One step back: an earlier page, or the screen the reader was opened from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Back {
    Doc(Place),
    Screen(Screen),
}

/// Where to open a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    Top,
    Anchor(String),
    /// A file line (1-based), e.g. a search hit's or a history entry's.
    Line(usize),
}

/// How the reader got to a document, which decides what `Backspace` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Opened from another screen: back returns there.
    Screen(Screen),
    /// Followed from the page on screen: back returns to that page.
    Link,
    /// Moving through the history itself: nothing is recorded.
    History,
}

#[derive(Debug, Default)]
pub struct Find {
    pub input: TextInput,
    /// The find box has the keyboard.
    pub typing: bool,
    pub marks: Vec<Mark>,
    pub current: Option<usize>,
    /// Where the page was when find started, to return to on Esc.
    origin: usize,
}

#[derive(Debug, Default)]
pub struct Reader {
    pub page: Option<Page>,
    pub back: Vec<Back>,
    pub forward: Vec<Place>,
    /// The table of contents is open (and has the keyboard), its cursor over
    /// `rendered.headings`.
    pub toc: Option<Cursor>,
    pub find: Find,
    /// The code block picker is open: indices into `rendered.code_blocks`.
    pub picker: Option<(Vec<usize>, Cursor)>,
}

impl Reader {
    fn place(&self) -> Option<Place> {
        self.page.as_ref().map(|p| Place {
            path: p.doc.path.clone(),
            source_line: p.source_line(),
            link: p.focused().map(|l| l.index),
        })
    }

    fn push_back(&mut self, back: Back) {
        self.back.push(back);
        if self.back.len() > HISTORY {
            self.back.remove(0);
        }
    }

    /// The screen the reader was last opened from.
    pub fn opened_from(&self) -> Screen {
        self.back
            .iter()
            .rev()
            .find_map(|b| match b {
                Back::Screen(s) => Some(*s),
                Back::Doc(_) => None,
            })
            .unwrap_or(Screen::Library)
    }
}

impl App {
    pub fn reader_layout(&self) -> layout::ReaderLayout {
        layout::reader(layout::body(self.size), self.reader.toc.is_some())
    }

    /// Rows of document text on screen.
    pub fn reader_height(&self) -> usize {
        self.reader_layout().text.height as usize
    }

    /// Renders a document for the reader's current width, through the cache.
    /// Code is coloured only as far as it takes no noticeable time; the rest
    /// is plain until the highlighter worker is done with it.
    pub(super) fn render_for_reader(
        &mut self,
        doc: &Arc<crate::corpus::Document>,
    ) -> Arc<Rendered> {
        let width = self.reader_layout().text.width;
        let highlighter = self.highlighter_ready.then(Highlighter::interactive);
        let options = RenderOptions {
            width,
            theme: &self.theme,
            highlighter,
            wrap_code: true,
        };
        let rendered = self.renders.get_or_render(doc, &options);
        self.highlight_later(doc);
        rendered
    }

    /// The path of the document in the reader.
    pub(super) fn page_path(&self) -> Option<&str> {
        self.reader.page.as_ref().map(|p| p.doc.path.as_str())
    }

    /// Opens `path` in the reader at `at`, highlighting `terms`. Reports (and
    /// returns false) when the corpus has no such document.
    pub fn open_document(&mut self, path: &str, at: At, terms: Vec<String>, via: Via) -> bool {
        let Some(doc) = self.corpus.get(path) else {
            let why = missing_document(&self.corpus, path);
            self.set_status(Level::Error, why);
            return false;
        };
        let doc = Arc::new(doc.clone());
        // An HTML anchor tag's name (`#attest`) is shown as its heading.
        let at = match at {
            At::Anchor(anchor) => At::Anchor(
                doc.anchor_for(&anchor)
                    .map_or(anchor.clone(), str::to_string),
            ),
            at => at,
        };
        self.remember_page();
        // A document opened at no place in particular returns to where it
        // was left.
        let mut returned = None;
        let at = match at {
            At::Top => match self.history.line_of(path) {
                Some(line) if line > 1 => {
                    returned = Some(line);
                    At::Line(line)
                }
                _ => At::Top,
            },
            at => at,
        };
        match via {
            Via::Screen(screen) => {
                self.reader.push_back(Back::Screen(screen));
                self.reader.forward.clear();
            }
            Via::Link => {
                if let Some(place) = self.reader.place() {
                    self.reader.push_back(Back::Doc(place));
                }
                self.reader.forward.clear();
            }
            Via::History => {}
        }
        let rendered = self.render_for_reader(&doc);
        let mut page = Page::new(doc, rendered);
        let height = self.reader_height();
        let line = match &at {
            At::Top => 0,
            At::Line(line) => page.rendered.line_for_source_line(*line),
            At::Anchor(anchor) => match page.rendered.line_for_anchor(anchor) {
                Some(line) => line,
                None => {
                    self.set_status(
                        Level::Warning,
                        format!("`{path}` has no section `#{anchor}`; showing its top"),
                    );
                    0
                }
            },
        };
        page.scroll_to(line, height);
        page.set_terms(terms);
        self.reader.page = Some(page);
        self.reader.find = Find::default();
        self.reader.picker = None;
        if self.reader.toc.is_some() {
            self.reader.toc = Some(self.toc_cursor_at_top());
        }
        self.screen = Screen::Reader;
        if let Some(line) = returned {
            let top = self
                .keys
                .key_for(crate::tui::keymap::Mode::Reader, &Action::Top)
                .map_or_else(|| "the top key".to_string(), |k| k.to_string());
            self.set_status(
                Level::Info,
                format!("back at line {line}, where you left it ({top}: the top)"),
            );
        }
        log::debug!("opened {path} at {at:?}");
        true
    }

    /// Notes where the page on screen is, for the next run and for opening
    /// it again; the library's recent documents follow.
    pub(super) fn remember_page(&mut self) {
        let Some(page) = &self.reader.page else {
            return;
        };
        self.history.read(&page.doc.path, page.source_line());
        self.library.set_recent(&self.corpus, &self.history);
    }

    /// Re-renders the page for the current width and highlighter.
    pub(super) fn rerender_reader(&mut self) {
        let Some(doc) = self.reader.page.as_ref().map(|p| Arc::clone(&p.doc)) else {
            return;
        };
        let rendered = self.render_for_reader(&doc);
        let height = self.reader_height();
        if let Some(page) = self.reader.page.as_mut() {
            page.rerendered(rendered, height);
        }
        if !self.reader.find.input.is_empty() {
            self.refind(false);
        }
    }

    fn toc_cursor_at_top(&self) -> Cursor {
        let mut cursor = Cursor::default();
        if let Some(page) = &self.reader.page {
            let headings = &page.rendered.headings;
            let at = headings
                .iter()
                .rposition(|h| h.line <= page.top)
                .unwrap_or(0);
            cursor.select(at, headings.len(), self.reader_height());
        }
        cursor
    }

    pub(super) fn update_reader(&mut self, action: Action) {
        if self.reader.page.is_none() {
            self.screen = Screen::Library;
            return;
        }
        if self.reader.find.typing {
            self.update_find(action);
        } else if self.reader.picker.is_some() {
            self.update_picker(action);
        } else if self.reader.toc.is_some() {
            self.update_toc(action);
        } else {
            self.update_page(action);
        }
    }

    fn page_mut(&mut self) -> &mut Page {
        self.reader
            .page
            .as_mut()
            .expect("update_reader checked there is a page")
    }

    fn page(&self) -> &Page {
        self.reader
            .page
            .as_ref()
            .expect("update_reader checked there is a page")
    }

    fn update_page(&mut self, action: Action) {
        let height = self.reader_height();
        let page_step = height.saturating_sub(2).max(1) as isize;
        match action {
            Action::Down => self.page_mut().scroll_by(1, height),
            Action::Up => self.page_mut().scroll_by(-1, height),
            Action::Scroll(n) => self.page_mut().scroll_by(n as isize, height),
            Action::PageDown => self.page_mut().scroll_by(page_step, height),
            Action::PageUp => self.page_mut().scroll_by(-page_step, height),
            Action::Top => self.page_mut().scroll_to(0, height),
            Action::Bottom => self.page_mut().scroll_to(usize::MAX, height),
            Action::Toc => {
                if self.page().rendered.headings.is_empty() {
                    self.set_status(Level::Info, "this document has no headings");
                    return;
                }
                self.reader.toc = Some(Cursor::default());
                self.rerender_reader();
                self.reader.toc = Some(self.toc_cursor_at_top());
            }
            Action::Find => {
                let top = self.page().top;
                self.reader.find = Find {
                    typing: true,
                    origin: top,
                    ..Find::default()
                };
            }
            Action::NextMatch => self.step_match(true),
            Action::PrevMatch => self.step_match(false),
            Action::NextLink | Action::PrevLink => {
                let forward = action == Action::NextLink;
                if !self.page_mut().cycle_link(forward, height) {
                    self.set_status(Level::Info, "no links on screen");
                } else if let Some(link) = self.page().focused() {
                    let text = describe_link(link, &self.page().doc.path);
                    self.set_status(Level::Info, text);
                }
            }
            Action::Open => self.follow_link(),
            Action::HistoryBack => self.history_back(),
            Action::HistoryForward => self.history_forward(),
            Action::CopyCode => {
                let block = self
                    .page()
                    .code_on_screen(height)
                    .first()
                    .map(|c| (c.raw.to_string(), c.lang.clone()));
                match block {
                    Some((raw, lang)) => self.copy_code(raw, lang),
                    None => self.set_status(Level::Info, "no code block on screen"),
                }
            }
            Action::PickCode => {
                let page = self.page();
                let visible = page.visible(height);
                let blocks: Vec<usize> = page
                    .rendered
                    .code_blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.last_line >= visible.start && c.first_line < visible.end)
                    .map(|(i, _)| i)
                    .collect();
                if blocks.is_empty() {
                    self.set_status(Level::Info, "no code block on screen");
                } else {
                    self.reader.picker = Some((blocks, Cursor::default()));
                }
            }
            Action::CopyLink => {
                let Some(link) = self.page().focused() else {
                    self.set_status(Level::Info, "Tab to a link first, then copy its address");
                    return;
                };
                let address = match &link.target {
                    LinkTarget::External(url) => url.clone(),
                    LinkTarget::Internal { path, anchor } => match anchor {
                        Some(a) => format!("{path}#{a}"),
                        None => path.clone(),
                    },
                    LinkTarget::OutsideRoot(dest) => dest.clone(),
                };
                let removed = self.copy(&address);
                self.set_status(Level::Ok, format!("copied {address}{removed}"));
            }
            Action::Companion => self.open_companion(),
            Action::Back => {
                let page = self.page_mut();
                if !page.term_marks.is_empty() || !page.terms.is_empty() {
                    page.set_terms(Vec::new());
                } else if page.focus.is_some() {
                    page.focus = None;
                } else if !self.reader.find.marks.is_empty() {
                    self.reader.find = Find::default();
                } else {
                    self.screen = self.usable(self.reader.opened_from());
                }
            }
            _ => {}
        }
    }

    /// Puts a code block on the clipboard and says so.
    pub(super) fn copy_code(&mut self, raw: String, lang: Option<String>) {
        let lines = raw.lines().count();
        let what = match lang {
            Some(lang) => format!("{lang} block"),
            None => "code block".to_string(),
        };
        let removed = self.copy(&raw);
        self.set_status(
            Level::Ok,
            format!(
                "copied the {what} ({lines} line{}) to the clipboard{removed}",
                if lines == 1 { "" } else { "s" }
            ),
        );
    }

    fn follow_link(&mut self) {
        let Some(link) = self.page().focused().cloned() else {
            self.set_status(Level::Info, "Tab to a link, then Enter follows it");
            return;
        };
        match &link.target {
            LinkTarget::Internal { path, anchor } => {
                let at = anchor.clone().map_or(At::Top, At::Anchor);
                if *path == self.page().doc.path {
                    let Some(place) = self.reader.place() else {
                        return;
                    };
                    let line = match &at {
                        At::Anchor(a) => {
                            let page = self.page();
                            let a = page.doc.anchor_for(a).unwrap_or(a);
                            page.rendered.line_for_anchor(a)
                        }
                        _ => Some(0),
                    };
                    match line {
                        Some(line) => {
                            self.reader.push_back(Back::Doc(place));
                            self.reader.forward.clear();
                            let height = self.reader_height();
                            let page = self.page_mut();
                            page.scroll_to(line, height);
                            page.focus = None;
                        }
                        None => self.set_status(
                            Level::Warning,
                            format!("no section `{}` in this document", link.dest),
                        ),
                    }
                } else {
                    self.open_document(path, at, Vec::new(), Via::Link);
                }
            }
            LinkTarget::External(_) if link.target.tree().is_some() => {
                let id = link.target.tree().unwrap_or_default().to_string();
                self.open_related(&id);
            }
            LinkTarget::External(url) => self.set_status(
                Level::Info,
                format!("web link, not opened: {url}  (c copies it)"),
            ),
            LinkTarget::OutsideRoot(dest) => self.set_status(
                Level::Warning,
                format!("`{dest}` is outside the knowledge folders; not followed"),
            ),
        }
    }

    fn history_back(&mut self) {
        let Some(back) = self.reader.back.pop() else {
            self.screen = Screen::Library;
            return;
        };
        match back {
            Back::Doc(place) => {
                if let Some(current) = self.reader.place() {
                    self.reader.forward.push(current);
                }
                self.return_to(place);
            }
            Back::Screen(screen) => self.screen = self.usable(screen),
        }
    }

    /// A screen to return to, or the nearest one that still has something to
    /// show (a walk may have been left for the tree list meanwhile).
    fn usable(&self, screen: Screen) -> Screen {
        match screen {
            Screen::Walk if self.trees.walk.is_none() => Screen::Trees,
            other => other,
        }
    }

    fn history_forward(&mut self) {
        let Some(place) = self.reader.forward.pop() else {
            self.set_status(Level::Info, "nothing further forward");
            return;
        };
        if let Some(current) = self.reader.place() {
            self.reader.push_back(Back::Doc(current));
        }
        self.return_to(place);
    }

    /// Opens a page of the history where it was left: the same line at the
    /// top and the same link focused.
    fn return_to(&mut self, place: Place) {
        let opened = self.open_document(
            &place.path,
            At::Line(place.source_line),
            Vec::new(),
            Via::History,
        );
        if opened && let Some(index) = place.link {
            let page = self.page_mut();
            page.focus = page.rendered.links.iter().position(|l| l.index == index);
        }
    }

    fn open_companion(&mut self) {
        let path = self.page().doc.path.clone();
        let kind = self.page().doc.kind;
        let companion = self
            .corpus
            .get(&path)
            .and_then(|doc| self.corpus.companion(doc))
            .map(|d| d.path.clone());
        match companion {
            Some(other) => {
                self.open_document(&other, At::Top, Vec::new(), Via::Link);
            }
            None if kind == Kind::Drop => {
                self.set_status(Level::Info, "this drop names no file in the knowledge")
            }
            None => self.set_status(Level::Info, "no KNOWLEDGE DROP describes this file"),
        }
    }

    fn update_toc(&mut self, action: Action) {
        let height = self.reader_height();
        let count = self.page().rendered.headings.len();
        let Some(cursor) = self.reader.toc.as_mut() else {
            return;
        };
        match action {
            Action::Down => cursor.move_by(1, count, height),
            Action::Up => cursor.move_by(-1, count, height),
            Action::Scroll(n) => cursor.move_by(n as isize, count, height),
            Action::PageDown => cursor.move_by(height as isize, count, height),
            Action::PageUp => cursor.move_by(-(height as isize), count, height),
            Action::Top => cursor.move_by(isize::MIN / 2, count, height),
            Action::Bottom => cursor.move_by(isize::MAX / 2, count, height),
            Action::Open => {
                let selected = cursor.selected;
                let Some(line) = self.page().rendered.headings.get(selected).map(|h| h.line) else {
                    return;
                };
                let Some(place) = self.reader.place() else {
                    return;
                };
                self.reader.push_back(Back::Doc(place));
                self.reader.forward.clear();
                let body = layout::body(self.size);
                let narrow = layout::reader(body, true).toc == Some(body);
                self.page_mut().scroll_to(line, height);
                if narrow {
                    // The panel covers the text on a narrow terminal: close
                    // it so the jump is visible.
                    self.reader.toc = None;
                    self.rerender_reader();
                }
            }
            Action::Back | Action::Toc => {
                self.reader.toc = None;
                self.rerender_reader();
            }
            _ => {}
        }
    }

    fn update_find(&mut self, action: Action) {
        match action {
            Action::Input(c) => {
                self.reader.find.input.push(c);
                self.refind(true);
            }
            Action::Paste(text) => {
                self.reader.find.input.paste(&text);
                self.refind(true);
            }
            Action::DeleteChar => {
                self.reader.find.input.delete_char();
                self.refind(true);
            }
            Action::DeleteWord => {
                self.reader.find.input.delete_word();
                self.refind(true);
            }
            Action::ClearInput => {
                self.reader.find.input.clear();
                self.refind(true);
            }
            Action::NextMatch => self.step_match(true),
            Action::PrevMatch => self.step_match(false),
            Action::Open => {
                self.reader.find.typing = false;
                if self.reader.find.input.is_empty() {
                    self.reader.find = Find::default();
                } else if self.reader.find.marks.is_empty() {
                    let text = self.reader.find.input.text.clone();
                    self.set_status(Level::Info, format!("no match for `{text}`"));
                }
            }
            Action::Back => {
                let origin = self.reader.find.origin;
                self.reader.find = Find::default();
                let height = self.reader_height();
                self.page_mut().scroll_to(origin, height);
            }
            _ => {}
        }
    }

    /// Recomputes the find matches; when `jump`, moves to the first match at
    /// or after where find started (typing a longer word narrows in place).
    fn refind(&mut self, jump: bool) {
        let marks = find_all(&self.page().rendered, &self.reader.find.input.text);
        let find = &mut self.reader.find;
        let origin = find.origin;
        find.current = if marks.is_empty() {
            None
        } else if jump {
            Some(marks.iter().position(|m| m.line >= origin).unwrap_or(0))
        } else {
            find.current.map(|c| c.min(marks.len() - 1))
        };
        find.marks = marks;
        if jump && let Some(line) = find.current.map(|c| find.marks[c].line) {
            let height = self.reader_height();
            self.page_mut().reveal(line, height);
        }
    }

    fn step_match(&mut self, forward: bool) {
        let find = &mut self.reader.find;
        if find.marks.is_empty() {
            let text = if find.input.is_empty() {
                // The key as the user's key table has it.
                let key = self
                    .keys
                    .key_for(crate::tui::keymap::Mode::Reader, &Action::Find)
                    .map_or_else(|| "find".to_string(), |k| k.to_string());
                format!("nothing to find: {key} finds in this document")
            } else {
                format!("no match for `{}`", find.input.text)
            };
            self.set_status(Level::Info, text);
            return;
        }
        let count = find.marks.len();
        let next = match (find.current, forward) {
            (None, _) => 0,
            (Some(c), true) => (c + 1) % count,
            (Some(c), false) => (c + count - 1) % count,
        };
        let wrapped = find
            .current
            .is_some_and(|c| (forward && next < c) || (!forward && next > c));
        find.current = Some(next);
        let line = find.marks[next].line;
        let height = self.reader_height();
        self.page_mut().reveal(line, height);
        if wrapped {
            self.set_status(
                Level::Info,
                if forward {
                    "search wrapped to the top"
                } else {
                    "search wrapped to the bottom"
                },
            );
        }
    }

    fn update_picker(&mut self, action: Action) {
        let Some((blocks, cursor)) = self.reader.picker.as_mut() else {
            return;
        };
        let count = blocks.len();
        let chosen = match action {
            Action::Down => {
                cursor.move_by(1, count, count);
                None
            }
            Action::Up => {
                cursor.move_by(-1, count, count);
                None
            }
            Action::Choose(n) => match blocks.get(n.wrapping_sub(1)) {
                Some(&b) => Some(b),
                None => {
                    self.set_status(Level::Info, format!("no block {n} on screen"));
                    return;
                }
            },
            Action::Open => blocks.get(cursor.selected).copied(),
            Action::Back => {
                self.reader.picker = None;
                return;
            }
            _ => None,
        };
        if let Some(index) = chosen {
            self.reader.picker = None;
            let block = self.page().rendered.code_blocks.get(index).cloned();
            if let Some(block) = block {
                self.copy_code(block.raw.to_string(), block.lang);
            }
        }
    }
}

/// Why the reader cannot open `path`: lore reads no hidden folder, and
/// opens nothing but Markdown (a folder with no README.md, `LICENSE`).
fn missing_document(corpus: &crate::corpus::Corpus, path: &str) -> String {
    let hidden = path
        .rsplit_once('/')
        .and_then(|(folders, _)| folders.split('/').find(|p| p.starts_with('.')));
    if let Some(hidden) = hidden {
        format!("`{path}` is in the hidden folder `{hidden}/`, which lore does not read")
    } else if corpus.others.contains(path) {
        format!(
            "`{path}` is a folder with no README.md, index.md or _index.md, or a file that is not Markdown; lore opens Markdown only"
        )
    } else {
        format!("no document `{path}` in the knowledge")
    }
}

/// What a focused link on the page of document `here` does, for the status
/// bar: a footnote reference says it is one.
fn describe_link(link: &RenderedLink, here: &str) -> String {
    if let LinkTarget::Internal {
        path,
        anchor: Some(anchor),
    } = &link.target
        && path == here
        && let Some(label) = footnote_label(anchor)
    {
        return format!("footnote [{label}]  (Enter jumps to the note, Backspace comes back)");
    }
    describe_target(&link.target, &link.dest)
}

/// What a focused link does, for the status bar.
pub fn describe_target(target: &LinkTarget, dest: &str) -> String {
    match target {
        LinkTarget::Internal { path, anchor } => match anchor {
            Some(a) => format!("→ {path}#{a}  (Enter opens)"),
            None => format!("→ {path}  (Enter opens)"),
        },
        LinkTarget::External(_) if target.tree().is_some() => {
            let id = crate::text::inline(target.tree().unwrap_or_default());
            format!("→ decision tree {id}  (Enter starts it)")
        }
        LinkTarget::External(url) => format!("web link {url}  (c copies; lore never opens it)"),
        LinkTarget::OutsideRoot(_) => {
            format!("{dest}: outside the knowledge folders, not followed")
        }
    }
}
