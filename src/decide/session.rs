//! Walking a tree: a session is the tree plus an append-only log of
//! (question, option) answers. The current step, the breadcrumbs and "how we
//! got here" are all read off the log; going back drops its last entry. The TUI,
//! the CLI and the `[[tests]]` checks walk trees through this one type, so they
//! cannot disagree. Nothing here reads the terminal or the disk.

use std::borrow::Borrow;
use std::collections::HashMap;

use super::DecideError;
use super::tree::{AnswerOption, DecisionTree, Node, Outcome, Question};

/// Where a session stands.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Question(&'a Question),
    Outcome(&'a Outcome),
}

/// One answered question, as shown in breadcrumbs and "how we got here".
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    pub question: &'a Question,
    pub option: &'a AnswerOption,
    pub source: &'a AnswerSource,
}

/// Who gave an answer: the user (typed, `--answer`), or a probe, with the
/// files and lines it rests on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AnswerSource {
    #[default]
    User,
    Probe {
        evidence: Vec<String>,
    },
}

impl AnswerSource {
    pub fn is_probe(&self) -> bool {
        matches!(self, AnswerSource::Probe { .. })
    }

    /// The evidence of a probed answer; empty for the user's.
    pub fn evidence(&self) -> &[String] {
        match self {
            AnswerSource::User => &[],
            AnswerSource::Probe { evidence } => evidence,
        }
    }
}

/// A walk through one tree. A `Session` keeps its own copy of the tree
/// (trees are small), so it can live in an app's state without borrowing; a
/// `Session<&DecisionTree>` borrows it, for the many short walks of a tree's
/// `[[tests]]` (a copy per test made 10,000 tests take seconds, since the
/// copy holds the tests too).
#[derive(Debug, Clone)]
pub struct Session<T: Borrow<DecisionTree> = DecisionTree> {
    tree: T,
    log: Vec<(String, String)>,
    /// Who gave each answer of `log`, in step with it.
    sources: Vec<AnswerSource>,
}

impl Session {
    /// A fresh session at the tree's start. The tree must have passed
    /// validation (as every tree from `load_trees` has).
    pub fn new(tree: &DecisionTree) -> Session {
        Session {
            tree: tree.clone(),
            log: Vec::new(),
            sources: Vec::new(),
        }
    }

    /// A session that replays `path`, e.g. one saved earlier. Fails on the first
    /// answer that no longer fits the tree (the tree may have changed since).
    pub fn resume(tree: &DecisionTree, path: &[(String, String)]) -> Result<Session, DecideError> {
        let mut session = Session::new(tree);
        for (question, option) in path {
            session.answer(question, option)?;
        }
        Ok(session)
    }
}

impl<'t> Session<&'t DecisionTree> {
    /// A fresh session at the tree's start that borrows the tree.
    pub fn borrowing(tree: &'t DecisionTree) -> Session<&'t DecisionTree> {
        Session {
            tree,
            log: Vec::new(),
            sources: Vec::new(),
        }
    }
}

impl<T: Borrow<DecisionTree>> Session<T> {
    pub fn tree(&self) -> &DecisionTree {
        self.tree.borrow()
    }

    /// The id of the node the session is at.
    pub fn current_id(&self) -> &str {
        let tree = self.tree();
        match self.log.last() {
            None => &tree.start,
            Some((question, option)) => tree
                .question(question)
                .and_then(|q| q.option(option))
                .map(|o| o.next.as_str())
                .unwrap_or(&tree.start),
        }
    }

    /// The question to answer, or the outcome reached.
    pub fn current(&self) -> Step<'_> {
        match self.tree().node(self.current_id()) {
            Some(Node::Question(q)) => Step::Question(q),
            Some(Node::Outcome(o)) => Step::Outcome(o),
            // Unreachable for a validated tree: `answer` only logs existing edges
            // and validation guarantees `start` and every `next` exist.
            None => panic!(
                "tree `{}` has no node `{}`: the tree was not validated",
                self.tree().id,
                self.current_id()
            ),
        }
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.current(), Step::Outcome(_))
    }

    /// Answers the current question. `question_id` must be the current question:
    /// answering out of order is an error, not a jump.
    pub fn answer(&mut self, question_id: &str, option_id: &str) -> Result<(), DecideError> {
        self.answer_from(question_id, option_id, AnswerSource::User)
    }

    /// Answers the current question as `answer` does, recording who answered.
    pub fn answer_from(
        &mut self,
        question_id: &str,
        option_id: &str,
        source: AnswerSource,
    ) -> Result<(), DecideError> {
        let current = self.current_id().to_string();
        if question_id != current {
            return Err(match self.tree().node(question_id) {
                Some(Node::Question(_)) => DecideError::NotAsked {
                    question: question_id.to_string(),
                    current,
                },
                _ => self.unknown_question(question_id),
            });
        }
        let Step::Question(question) = self.current() else {
            return Err(DecideError::NotAsked {
                question: question_id.to_string(),
                current,
            });
        };
        if question.option(option_id).is_none() {
            return Err(DecideError::UnknownOption {
                question: question_id.to_string(),
                option: option_id.to_string(),
                valid: named(question.options.iter().map(|o| &o.id)),
            });
        }
        self.log
            .push((question_id.to_string(), option_id.to_string()));
        self.sources.push(source);
        Ok(())
    }

    /// Answers the current question with its `index`-th option (0-based), as
    /// a numbered menu does.
    pub fn choose(&mut self, index: usize) -> Result<(), DecideError> {
        let (question, option) = match self.current() {
            Step::Question(q) => match q.options.get(index) {
                Some(o) => (q.id.clone(), o.id.clone()),
                None => {
                    return Err(DecideError::NoSuchChoice {
                        question: q.id.clone(),
                        number: index + 1,
                        count: q.options.len(),
                    });
                }
            },
            Step::Outcome(o) => {
                return Err(DecideError::Finished {
                    outcome: o.id.clone(),
                });
            }
        };
        self.answer(&question, &option)
    }

    /// Drops the last answer. Returns it, or `None` at the start.
    pub fn back(&mut self) -> Option<(String, String)> {
        self.sources.pop();
        self.log.pop()
    }

    /// Who gave each answer of `path`, in the same order.
    pub fn sources(&self) -> &[AnswerSource] {
        &self.sources
    }

    /// The answers so far, oldest first, as (question id, option id).
    pub fn path(&self) -> &[(String, String)] {
        &self.log
    }

    /// The answers so far with their questions and options: breadcrumbs, and
    /// "how we got here" next to an outcome.
    pub fn history(&self) -> Vec<Answered<'_>> {
        self.log
            .iter()
            .zip(&self.sources)
            .filter_map(|((q, o), source)| {
                let question = self.tree().question(q)?;
                let option = question.option(o)?;
                Some(Answered {
                    question,
                    option,
                    source,
                })
            })
            .collect()
    }

    /// Walks as far as `answers` (question id → option id, any order) take it:
    /// at each question the matching answer is applied; the walk stops at an
    /// outcome or at a question with no answer. Every answer is checked against
    /// the tree first, so a typo is an error even if the walk never gets there.
    /// Returns the questions that were answered but never asked.
    pub fn apply(&mut self, answers: &[(String, String)]) -> Result<Vec<String>, DecideError> {
        self.apply_with(answers, |_| None)
    }

    /// `apply`, and at a question no answer covers, asks `fallback` (a probe
    /// runner): an option it returns is recorded as probed with its evidence;
    /// `None` stops the walk there. An explicit answer always wins.
    pub fn apply_with(
        &mut self,
        answers: &[(String, String)],
        mut fallback: impl FnMut(&Question) -> Option<(String, Vec<String>)>,
    ) -> Result<Vec<String>, DecideError> {
        // Question id → its answer's position. A map, not a scan per answer:
        // a tree file's `[[tests]]` may hold thousands of answers.
        let mut by_question: HashMap<&str, usize> = HashMap::with_capacity(answers.len());
        for (i, (question, option)) in answers.iter().enumerate() {
            let Some(q) = self.tree().question(question) else {
                return Err(self.unknown_question(question));
            };
            if q.option(option).is_none() {
                return Err(DecideError::UnknownOption {
                    question: question.clone(),
                    option: option.clone(),
                    valid: named(q.options.iter().map(|o| &o.id)),
                });
            }
            if by_question.insert(question, i).is_some() {
                return Err(DecideError::AnsweredTwice {
                    question: question.clone(),
                });
            }
        }
        let mut used = vec![false; answers.len()];
        // A validated tree has no cycles, so this ends within `nodes.len()` steps;
        // the bound keeps an unvalidated tree from looping.
        for _ in 0..=self.tree().nodes.len() {
            let Step::Question(q) = self.current() else {
                break;
            };
            let Some(&i) = by_question.get(q.id.as_str()) else {
                let question = q.id.clone();
                match fallback(q) {
                    Some((option, evidence)) => {
                        self.answer_from(&question, &option, AnswerSource::Probe { evidence })?;
                        continue;
                    }
                    None => break,
                }
            };
            used[i] = true;
            let (question, option) = answers[i].clone();
            self.answer(&question, &option)?;
        }
        Ok(answers
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|((q, _), _)| q.clone())
            .collect())
    }

    fn unknown_question(&self, question: &str) -> DecideError {
        DecideError::UnknownQuestion {
            tree: self.tree().id.clone(),
            question: question.to_string(),
            valid: named(self.tree().questions().map(|q| &q.id)),
        }
    }
}

/// At most this many valid ids are named in an error, then how many more
/// there are: a tree of 20,000 questions must not make every wrong answer
/// (or every failing `[[tests]]` entry) cost a message of 20,000 names.
const NAMED_IDS: usize = 12;

fn named<'a>(ids: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut more = 0;
    for id in ids {
        if out.len() < NAMED_IDS {
            out.push(id.clone());
        } else {
            more += 1;
        }
    }
    if more > 0 {
        out.push(format!("… {more} more"));
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::decide::tree::parse;
    use crate::sources::{Origin, SourceFile};

    /// start → (a → left → out-a | b → out-b)
    pub(crate) fn sample() -> DecisionTree {
        let text = r#"
[tree]
id = "sample"
title = "Sample"
summary = "Two questions"
start = "first"

[nodes.first]
kind = "question"
text = "First?"
why = "It decides the branch"
[[nodes.first.options]]
id = "a"
label = "A"
next = "second"
[[nodes.first.options]]
id = "b"
label = "B"
next = "out-b"

[nodes.second]
kind = "question"
text = "Second?"
why = "It decides the outcome"
[[nodes.second.options]]
id = "left"
label = "Left"
next = "out-a"
[[nodes.second.options]]
id = "right"
label = "Right"
next = "out-b"

[nodes.out-a]
kind = "outcome"
title = "Outcome A"
verdict = "A it is"

[nodes.out-b]
kind = "outcome"
title = "Outcome B"
verdict = "B it is"
"#;
        let file = SourceFile {
            rel: "sample.toml".into(),
            origin: Origin::Builtin,
            text: text.into(),
            stamp: None,
        };
        let (tree, diags) = parse(&file);
        assert!(diags.is_empty(), "{diags:?}");
        tree.unwrap()
    }

    /// A tree of `n` questions in a row, each with one option, then `end`.
    fn chain(n: usize) -> DecisionTree {
        let mut text = String::from(
            "[tree]\nid = \"chain\"\ntitle = \"t\"\nsummary = \"s\"\nstart = \"q0\"\n",
        );
        for i in 0..n {
            let next = if i + 1 < n {
                format!("q{}", i + 1)
            } else {
                "end".to_string()
            };
            text.push_str(&format!(
                "[nodes.q{i}]\nkind = \"question\"\ntext = \"q\"\nwhy = \"w\"\n\
                 [[nodes.q{i}.options]]\nid = \"a\"\nlabel = \"a\"\nnext = \"{next}\"\n"
            ));
        }
        text.push_str("[nodes.end]\nkind = \"outcome\"\ntitle = \"e\"\nverdict = \"v\"\n");
        let file = SourceFile {
            rel: "chain.toml".into(),
            origin: Origin::Builtin,
            text,
            stamp: None,
        };
        parse(&file).0.unwrap()
    }

    /// `apply` looked each answer up by scanning all of them (twice), so a
    /// tree file whose test answered 50,000 questions took 37 s to check.
    #[test]
    fn apply_takes_thousands_of_answers_in_any_order() {
        let tree = chain(5_000);
        let mut answers: Vec<(String, String)> = (0..5_000)
            .rev()
            .map(|i| (format!("q{i}"), "a".to_string()))
            .collect();
        let mut s = Session::new(&tree);
        assert_eq!(s.apply(&answers), Ok(Vec::new()));
        assert_eq!(current_id(&s), "end");
        assert_eq!(s.path().len(), 5_000);
        assert_eq!(s.path()[0], ("q0".to_string(), "a".to_string()));

        answers.push(("q17".into(), "a".into()));
        assert_eq!(
            Session::new(&tree).apply(&answers),
            Err(DecideError::AnsweredTwice {
                question: "q17".into()
            })
        );
    }

    fn current_id(s: &Session) -> &str {
        match s.current() {
            Step::Question(q) => &q.id,
            Step::Outcome(o) => &o.id,
        }
    }

    #[test]
    fn answers_walk_to_an_outcome_and_back_undoes_one() {
        let tree = sample();
        let mut s = Session::new(&tree);
        assert_eq!(current_id(&s), "first");
        s.answer("first", "a").unwrap();
        assert_eq!(current_id(&s), "second");
        s.answer("second", "left").unwrap();
        assert_eq!(current_id(&s), "out-a");
        assert!(s.is_finished());
        let crumbs: Vec<(&str, &str)> = s
            .history()
            .iter()
            .map(|a| (a.question.text.as_str(), a.option.label.as_str()))
            .collect();
        assert_eq!(crumbs, [("First?", "A"), ("Second?", "Left")]);
        assert_eq!(s.back(), Some(("second".into(), "left".into())));
        assert_eq!(current_id(&s), "second");
        s.back();
        assert_eq!(s.back(), None);
        assert_eq!(current_id(&s), "first");
    }

    #[test]
    fn wrong_answers_name_the_valid_ones() {
        let tree = sample();
        let mut s = Session::new(&tree);
        let err = s.answer("first", "c").unwrap_err();
        assert_eq!(
            err.to_string(),
            "question `first` has no option `c` (options: a, b)"
        );
        let err = s.answer("second", "left").unwrap_err();
        assert_eq!(
            err.to_string(),
            "question `second` is not the current question (the session is at `first`)"
        );
        let err = s.answer("nope", "a").unwrap_err();
        assert_eq!(
            err.to_string(),
            "tree `sample` has no question `nope` (questions: first, second)"
        );
        assert!(s.path().is_empty(), "a failed answer changes nothing");
        s.choose(1).unwrap();
        let err = s.choose(0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the session has reached outcome `out-b`; go back to change an answer"
        );
    }

    #[test]
    fn choose_takes_menu_positions() {
        let tree = sample();
        let mut s = Session::new(&tree);
        s.choose(0).unwrap();
        assert_eq!(s.path(), [("first".to_string(), "a".to_string())]);
        assert_eq!(
            s.choose(2).unwrap_err().to_string(),
            "question `second` has no choice 3 (choose 1 to 2)"
        );
    }

    #[test]
    fn apply_takes_answers_in_any_order_and_reports_unused_ones() {
        let tree = sample();
        let answers = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(q, o)| (q.to_string(), o.to_string()))
                .collect()
        };
        let mut s = Session::new(&tree);
        let unused = s
            .apply(&answers(&[("second", "right"), ("first", "a")]))
            .unwrap();
        assert!(unused.is_empty());
        assert_eq!(current_id(&s), "out-b");

        let mut s = Session::new(&tree);
        let unused = s
            .apply(&answers(&[("first", "b"), ("second", "left")]))
            .unwrap();
        assert_eq!(unused, ["second"]);
        assert_eq!(current_id(&s), "out-b");

        let mut s = Session::new(&tree);
        let err = s
            .apply(&answers(&[("first", "a"), ("second", "up")]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "question `second` has no option `up` (options: left, right)"
        );
        assert!(
            s.path().is_empty(),
            "nothing is applied when one answer is wrong"
        );

        let err = s
            .apply(&answers(&[("first", "a"), ("first", "b")]))
            .unwrap_err();
        assert_eq!(err.to_string(), "question `first` is answered twice");
    }

    #[test]
    fn resume_replays_a_saved_path() {
        let tree = sample();
        let path = vec![("first".to_string(), "a".to_string())];
        let s = Session::resume(&tree, &path).unwrap();
        assert_eq!(current_id(&s), "second");
        let bad = vec![("first".to_string(), "gone".to_string())];
        assert!(Session::resume(&tree, &bad).is_err());
    }
}
