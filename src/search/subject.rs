//! What a message is about by name: the shared libraries it names by
//! soname (`libcudart.so.12`, `libcupti.so`) and the Python modules it
//! could not import. A message about one library is not explained by a
//! section about another (`libcublas.so.12: cannot open …` against
//! TensorRT's `libnvinfer.so.N`), nor about another major version of it
//! (`libcudart.so.11.0` against `libcudart.so.12`). Search ranks a
//! section whose heading names other libraries lower (another version of
//! the same library is the same failure there); `lore diagnose` takes no
//! causes from a section about another library or another major version.

/// One thing named: a library (`libcudart.so.12.1` → `libcudart`, `12.1`;
/// `libcupti.so` or `libnvinfer.so.N` → `libcupti`, `libnvinfer`, no
/// version) or a Python module (`py:torch`, no version).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subject {
    pub name: String,
    pub version: String,
}

impl Subject {
    /// The same library at the same major version; a soname without a
    /// version matches any version of its library.
    fn matches(&self, other: &Subject) -> bool {
        self.name == other.name
            && (self.version.is_empty()
                || other.version.is_empty()
                || major(&self.version) == major(&other.version))
    }
}

/// The sonames `text` names, in order.
pub fn sonames(text: &str) -> Vec<Subject> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
        .filter_map(|word| {
            let (lib, rest) = match word.split_once(".so.") {
                Some((lib, version)) => (lib, version),
                None => (word.strip_suffix(".so")?, ""),
            };
            let version = rest.trim_end_matches(|c: char| !c.is_ascii_digit());
            let versioned = version.starts_with(|c: char| c.is_ascii_digit());
            // `libnvinfer.so.N`, `libcublas.so.*`: the library, any version.
            let placeholder = matches!(rest, "N" | "X" | "x" | "*" | "MAJOR");
            let named = versioned || rest.is_empty() || placeholder;
            (lib.len() > 3 && lib.starts_with("lib") && named).then(|| Subject {
                name: lib.to_string(),
                version: version.to_string(),
            })
        })
        .collect()
}

/// What a message is about by name: the shared libraries it names
/// ([`sonames`]) and the Python modules Python could not import (`No
/// module named 'torch'` gives `py:torch`, a name no soname has), or could
/// not import a name from (`cannot import name 'packaging' from
/// 'pkg_resources'` gives `py:pkg_resources`). A message about one is not
/// explained by a section about another: `No module named 'mmcv._ext'` is
/// another failure than `No module named 'torch'`, and so is a name missing
/// from `pkg_resources`.
pub fn subjects(text: &str) -> Vec<Subject> {
    let mut found = sonames(text);
    found.extend(modules(text));
    found
}

/// The modules of `No module named 'X'` (or `X` unquoted, as Python 2 and
/// `ImportError` print it) and of `cannot import name 'N' from 'X'` in
/// `text`, in order.
fn modules(text: &str) -> Vec<Subject> {
    let missing = text
        .match_indices("No module named ")
        .map(|(at, phrase)| at + phrase.len());
    // Python 3.7+: `cannot import name 'N' from 'X' (/path/…)`; the module
    // follows on the same line, after the name.
    let lacking = text
        .match_indices("cannot import name ")
        .filter_map(|(at, phrase)| {
            let rest = &text[at + phrase.len()..];
            let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let from = line.find(" from ")? + " from ".len();
            // `… from partially initialized module 'M' (most likely due to a
            // circular import)`: the module is after those words.
            let skip = line[from..]
                .strip_prefix(PARTIAL)
                .map_or(0, |_| PARTIAL.len());
            Some(at + phrase.len() + from + skip)
        });
    let mut starts: Vec<usize> = missing.chain(lacking).collect();
    starts.sort_unstable();
    starts
        .into_iter()
        .filter_map(|start| {
            let rest = &text[start..];
            let rest = rest.strip_prefix(['\'', '"']).unwrap_or(rest);
            let name: &str = &rest[..rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len())];
            let name = name.trim_end_matches('.');
            (!name.is_empty()).then(|| Subject {
                name: format!("{MODULE_PREFIX}{name}"),
                version: String::new(),
            })
        })
        .collect()
}

/// The words before the module in Python's circular-import form of
/// `cannot import name`.
const PARTIAL: &str = "partially initialized module ";

/// How a Python module is told from a library among a text's subjects.
const MODULE_PREFIX: &str = "py:";

/// Whether `heading` names shared libraries or modules and none of them is
/// one of `wanted` (the query's [`subjects`]) at its major version: the
/// section explains another message. False when either names none. `lore
/// diagnose` takes no causes from such a section.
pub fn names_only_others(heading: &str, wanted: &[Subject]) -> bool {
    names_none_of(heading, wanted, Subject::matches)
}

fn names_none_of(
    heading: &str,
    wanted: &[Subject],
    same: impl Fn(&Subject, &Subject) -> bool,
) -> bool {
    if wanted.is_empty() {
        return false;
    }
    let named = subjects(heading);
    !named.is_empty() && !named.iter().any(|n| wanted.iter().any(|w| same(n, w)))
}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sonames_with_and_without_versions() {
        let found =
            sonames("OSError: libcudart.so.12: cannot open; libcupti.so and libfoo.so.conf");
        assert_eq!(
            found,
            vec![
                Subject {
                    name: "libcudart".into(),
                    version: "12".into()
                },
                Subject {
                    name: "libcupti".into(),
                    version: String::new()
                },
            ]
        );
        assert!(sonames("the .so file, lib.so, a libc, libfoo.so.conf").is_empty());
        // A placeholder version names the library at any version.
        assert_eq!(
            sonames("libnvinfer.so.N")[0],
            Subject {
                name: "libnvinfer".into(),
                version: String::new()
            }
        );
    }

    #[test]
    fn a_module_python_could_not_import_is_a_subject() {
        let wanted = subjects("ModuleNotFoundError: No module named 'torch'");
        assert_eq!(wanted[0].name, "py:torch");
        assert!(names_only_others(
            "ModuleNotFoundError: No module named 'mmcv._ext'",
            &wanted
        ));
        assert!(!names_only_others(
            "ModuleNotFoundError: No module named 'torch' while pip builds flash-attn",
            &wanted
        ));
        assert!(!names_only_others("Building flash-attn", &wanted));
        assert_eq!(
            subjects("ImportError: No module named ninja.")[0].name,
            "py:ninja"
        );
        assert!(subjects("No module named ''").is_empty());
        // A name missing from a module: the module is the subject.
        let lacking = subjects(
            "ImportError: cannot import name 'packaging' from 'pkg_resources' (/usr/lib/python3/dist-packages/pkg_resources/__init__.py)",
        );
        assert_eq!(lacking.len(), 1, "{lacking:?}");
        assert_eq!(lacking[0].name, "py:pkg_resources");
        assert!(names_only_others(
            "ImportError: cannot import name 'packaging' from 'pkg_resources'",
            &wanted
        ));
        assert!(!names_only_others(
            "ImportError: cannot import name 'packaging' from 'pkg_resources'",
            &subjects("ModuleNotFoundError: No module named 'pkg_resources'")
        ));
        let circular = subjects(
            "ImportError: cannot import name 'triton_key' from partially initialized module 'triton.compiler.compiler' (most likely due to a circular import)",
        );
        assert_eq!(circular[0].name, "py:triton.compiler.compiler");
        // Python 2's `cannot import name X` names no module: no subject.
        assert!(subjects("ImportError: cannot import name _C").is_empty());
    }

    #[test]
    fn a_heading_about_another_library_or_major_is_about_others() {
        let wanted = sonames("ImportError: libcublas.so.12: cannot open shared object file");
        assert!(names_only_others(
            "ImportError: libnvinfer.so.N / libnvonnxparser.so.N: cannot open",
            &wanted
        ));
        assert!(names_only_others(
            "libcublas.so.11: undefined symbol",
            &wanted
        ));
        assert!(!names_only_others("libcublas.so.12.4 and friends", &wanted));
        assert!(!names_only_others("libcublas.so not found", &wanted));
        assert!(!names_only_others("How pip wheels find libraries", &wanted));
        assert!(!names_only_others("libnvinfer.so.10", &[]));
    }
}
