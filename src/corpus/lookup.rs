//! Finding the document a user meant from what they typed on a command line:
//! `cuda/x.md`, `cuda/x`, `knowledge/cuda/x.md`, `x.md`, or any fragment of a
//! path that only one document has (`20-cupti`). Shared by `lore show`,
//! `lore open` and shell completion, so they agree on what a name means.

use super::{Corpus, Document};

/// What a typed name refers to.
#[derive(Debug)]
pub enum Lookup<'c> {
    Found(&'c Document),
    /// A fragment that several paths contain, best candidates first.
    Ambiguous(Vec<&'c Document>),
    NotFound,
}

/// Candidates an ambiguous fragment lists at most.
const MAX_AMBIGUOUS: usize = 10;

impl Corpus {
    /// The document `query` names: the exact path, the path without `.md`,
    /// a path that includes the knowledge folder, a unique file name, and
    /// last a fragment (case-insensitive) that only one path contains.
    pub fn lookup(&self, query: &str) -> Lookup<'_> {
        let query = query.trim().trim_start_matches("./");
        if query.is_empty() {
            return Lookup::NotFound;
        }
        if let Some(doc) = self
            .get(query)
            .or_else(|| self.get(&format!("{query}.md")))
            .or_else(|| self.get(&format!("{query}.mdx")))
        {
            return Lookup::Found(doc);
        }
        let with_root: Vec<&Document> = self
            .documents
            .iter()
            .filter(|d| query.ends_with(&format!("/{}", d.path)))
            .collect();
        if let [doc] = with_root[..] {
            return Lookup::Found(doc);
        }
        let by_name: Vec<&Document> = self
            .documents
            .iter()
            .filter(|d| {
                let name = d.path.rsplit('/').next().unwrap_or(&d.path);
                name == query || super::links::strip_markdown_extension(name) == Some(query)
            })
            .collect();
        if let [doc] = by_name[..] {
            return Lookup::Found(doc);
        }
        // A fragment must say something: `#`, `.` or `/` alone is not a name.
        if !query.chars().any(char::is_alphanumeric) {
            return Lookup::NotFound;
        }
        let needle = query.to_lowercase();
        let mut containing: Vec<&Document> = self
            .documents
            .iter()
            .filter(|d| d.path.to_lowercase().contains(&needle))
            .collect();
        match containing.len() {
            0 => Lookup::NotFound,
            1 => Lookup::Found(containing[0]),
            _ => {
                // Shorter paths first: `cupti` lists the CUPTI file before
                // the drop that describes it.
                containing.sort_by_key(|d| (d.path.len(), d.path.as_str()));
                containing.truncate(MAX_AMBIGUOUS);
                Lookup::Ambiguous(containing)
            }
        }
    }

    /// `PATH#ANCHOR` split where the path names a document. Anchors never
    /// hold a `#` but file names may, so the whole target is tried as a path,
    /// then the part before the last `#`; when neither names a document, the
    /// anchor starts at the first `#` (so `a.md##x` blames the anchor, not
    /// the path).
    pub fn split_target<'t>(&self, target: &'t str) -> (&'t str, Option<&'t str>) {
        let Some(first) = target.find('#') else {
            return (target, None);
        };
        let names_one = |path: &str| matches!(self.lookup(path), Lookup::Found(_));
        // The whole target is a path only if it names a file outright (a
        // file name may hold `#`); as a fragment it would swallow the anchor.
        if self.get(target).is_some()
            || self.get(&format!("{target}.md")).is_some()
            || self.get(&format!("{target}.mdx")).is_some()
        {
            return (target, None);
        }
        let split = |at: usize| (&target[..at], Some(&target[at + 1..]));
        let last = target.rfind('#').unwrap_or(first);
        if names_one(&target[..last]) {
            return split(last);
        }
        split(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{Origin, SourceFile};

    fn corpus(paths: &[&str]) -> Corpus {
        let docs = paths
            .iter()
            .map(|p| {
                Document::parse(SourceFile {
                    rel: p.to_string(),
                    origin: Origin::Builtin,
                    text: "# T\n\n## Part\n".to_string(),
                    stamp: None,
                })
            })
            .collect();
        Corpus::from_documents(docs, Vec::new())
    }

    fn found(c: &Corpus, q: &str) -> Option<String> {
        match c.lookup(q) {
            Lookup::Found(d) => Some(d.path.clone()),
            _ => None,
        }
    }

    #[test]
    fn exact_names_and_unique_fragments_find_one_document() {
        let c = corpus(&[
            "cuda/20-cupti-deep-dive-arr-coc.md",
            "cuda/21-docker-build-strategy-patterns.md",
            "drops/KNOWLEDGE-DROP-cupti-deep-dive-2026-11-22.md",
        ]);
        let cupti = Some("cuda/20-cupti-deep-dive-arr-coc.md".to_string());
        assert_eq!(found(&c, "cuda/20-cupti-deep-dive-arr-coc.md"), cupti);
        assert_eq!(found(&c, "cuda/20-cupti-deep-dive-arr-coc"), cupti);
        assert_eq!(
            found(&c, "knowledge/cuda/20-cupti-deep-dive-arr-coc.md"),
            cupti
        );
        assert_eq!(found(&c, "20-cupti-deep-dive-arr-coc"), cupti);
        assert_eq!(found(&c, "20-cupti"), cupti);
        assert_eq!(
            found(&c, "DOCKER-build"),
            Some("cuda/21-docker-build-strategy-patterns.md".into())
        );
    }

    #[test]
    fn a_fragment_several_paths_contain_lists_them_shortest_first() {
        let c = corpus(&[
            "cuda/20-cupti-deep-dive-arr-coc.md",
            "drops/KNOWLEDGE-DROP-cupti-deep-dive-2026-11-22.md",
        ]);
        match c.lookup("cupti-deep") {
            Lookup::Ambiguous(docs) => {
                let paths: Vec<&str> = docs.iter().map(|d| d.path.as_str()).collect();
                assert_eq!(
                    paths,
                    [
                        "cuda/20-cupti-deep-dive-arr-coc.md",
                        "drops/KNOWLEDGE-DROP-cupti-deep-dive-2026-11-22.md"
                    ]
                );
            }
            other => panic!("expected ambiguous, got {other:?}"),
        }
        assert!(matches!(c.lookup("nothing-like-it"), Lookup::NotFound));
        assert!(matches!(c.lookup("  "), Lookup::NotFound));
        assert!(matches!(c.lookup("-"), Lookup::NotFound));
    }

    #[test]
    fn targets_split_at_the_anchor_of_a_fragment() {
        let c = corpus(&["cuda/20-cupti-deep-dive-arr-coc.md", "notes/a#b.md"]);
        assert_eq!(c.split_target("20-cupti#part"), ("20-cupti", Some("part")));
        assert_eq!(c.split_target("notes/a#b.md"), ("notes/a#b.md", None));
        assert_eq!(
            c.split_target("notes/a#b.md#part"),
            ("notes/a#b.md", Some("part"))
        );
        assert_eq!(c.split_target("x.md##y"), ("x.md", Some("#y")));
    }
}
