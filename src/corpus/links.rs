//! Links as doc sites resolve them, once every document is known: a link
//! with no `.md` (`../supported_models`, Hugo and Hugging Face doc-builder
//! pages) names `supported_models.md`; a link to a folder (`tools/`, shown
//! by GitHub as its README) names its `README.md`, `index.md` or
//! `_index.md`; an anchor an HTML anchor tag declares (`#attest`) names its
//! heading. `lore check`, the renderer and the reader then all follow the
//! same target. Only documents of the corpus are tried, so nothing resolves
//! outside the knowledge roots.

use std::collections::HashMap;

use super::{Document, LinkTarget};

/// The pages a folder shows, in the order tried: GitHub's, then MkDocs' /
/// Sphinx's, then Hugo's.
pub const FOLDER_PAGES: [&str; 3] = ["README.md", "index.md", "_index.md"];

/// Points each internal link of `documents` at the document and heading a
/// doc site would open. Links that name nothing are left as written, for
/// `lore check` to report.
pub(super) fn resolve_all(documents: &mut [Document], by_path: &HashMap<String, usize>) {
    let mut changes: Vec<(usize, usize, LinkTarget)> = Vec::new();
    for (d, doc) in documents.iter().enumerate() {
        for (l, link) in doc.links.iter().enumerate() {
            let LinkTarget::Internal { path, anchor } = &link.target else {
                continue;
            };
            let found = if by_path.contains_key(path) {
                Some(path.clone())
            } else {
                site_path(path, &link.dest, |p| by_path.contains_key(p))
            };
            let Some(found) = found else { continue };
            let target = &documents[by_path[&found]];
            let heading = anchor
                .as_deref()
                .and_then(|a| target.anchor_for(a))
                .map(str::to_string);
            let anchor = heading.or_else(|| anchor.clone());
            let resolved = LinkTarget::Internal {
                path: found,
                anchor,
            };
            if resolved != link.target {
                changes.push((d, l, resolved));
            }
        }
    }
    for (d, l, target) in changes {
        documents[d].links[l].target = target;
    }
}

/// Whether a link's destination names a folder: it ends in `/` (before any
/// `#anchor` or `?query`).
pub fn names_folder(dest: &str) -> bool {
    let path = dest.split(['#', '?']).next().unwrap_or("");
    path.ends_with('/') || path == "." || path == ".." || path.ends_with("/.")
}

/// Whether a resolved path's file name has no extension (`supported_models`,
/// `LICENSE`).
pub fn has_no_extension(path: &str) -> bool {
    !path.rsplit('/').next().unwrap_or(path).contains('.')
}

/// The document a doc site shows for `path` (a link target that is no
/// document), as `exists` knows them: `path.md` for a link with no
/// extension, a folder's page for a folder link (and for one with no
/// extension, after `path.md`), and `path.md` for a folder link last (Hugo
/// serves `x.md` at `x/`).
pub fn site_path(path: &str, dest: &str, exists: impl Fn(&str) -> bool) -> Option<String> {
    let folder = names_folder(dest);
    if !folder && !has_no_extension(path) {
        return None;
    }
    let page = (!path.is_empty()).then(|| format!("{path}.md"));
    let in_folder = FOLDER_PAGES.iter().map(|name| {
        if path.is_empty() {
            (*name).to_string()
        } else {
            format!("{path}/{name}")
        }
    });
    let candidates: Vec<String> = if folder {
        in_folder.chain(page).collect()
    } else {
        page.into_iter().chain(in_folder).collect()
    };
    // Docusaurus, Nextra and Mintlify serve `x.mdx` (and `index.mdx`) at
    // the same address as `x.md`.
    candidates
        .into_iter()
        .flat_map(|c| [format!("{c}x"), c].into_iter().rev())
        .find(|c| exists(c))
}

/// Whether `path` names a page lore reads: `.md`, or MDX's `.mdx` (any
/// case).
pub fn is_markdown_path(path: &str) -> bool {
    strip_markdown_extension(path).is_some()
}

/// `name` without its `.md` or `.mdx` (any case), if it has one.
pub fn strip_markdown_extension(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("mdx")).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_site_paths() {
        let have = [
            "models.md",
            "tools/README.md",
            "guides/_index.md",
            "x.md",
            "x/index.md",
        ];
        let find = |path: &str, dest: &str| site_path(path, dest, |p| have.contains(&p));
        assert_eq!(find("models", "../models").as_deref(), Some("models.md"));
        assert_eq!(find("tools", "tools/").as_deref(), Some("tools/README.md"));
        assert_eq!(find("tools", "tools").as_deref(), Some("tools/README.md"));
        assert_eq!(find("guides", "./").as_deref(), Some("guides/_index.md"));
        // A file link prefers the page, a folder link the folder's page.
        assert_eq!(find("x", "x").as_deref(), Some("x.md"));
        assert_eq!(find("x", "x/#a").as_deref(), Some("x/index.md"));
        assert_eq!(find("gone", "gone"), None);
        assert_eq!(find("img.png", "img.png"), None);
        assert!(names_folder("../"));
        assert!(names_folder("a/?x=1"));
        assert!(!names_folder("a#b/"));
    }
}
