//! Where lore keeps things and what the user asked for: platform directories,
//! `config.toml`, environment variables and global flags, merged into one
//! `Settings`. Nothing here creates a file or folder: the config file is read if
//! the user made it, never written.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use directories::ProjectDirs;
use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceError, SourceSet};

/// Environment variable: a path list of knowledge overlay folders.
pub const ENV_KNOWLEDGE: &str = "LORE_KNOWLEDGE";
/// Environment variable: one folder holding config.toml, cache/, data/ and
/// state/ instead of the platform directories (tests, portable installs).
pub const ENV_HOME: &str = "LORE_HOME";
/// The theme when no `--theme` flag gives one: `dark` or `light`.
pub const ENV_THEME: &str = "LORE_THEME";

/// `TERM=dumb`: a terminal that understands no escape sequences.
pub fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// The platform folders lore may use.
#[derive(Debug, Clone)]
pub struct Paths {
    pub config_file: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
}

impl Paths {
    pub fn discover() -> Paths {
        if let Some(home) = std::env::var_os(ENV_HOME).filter(|h| !h.is_empty()) {
            let home = PathBuf::from(home);
            return Paths {
                config_file: Some(home.join("config.toml")),
                cache_dir: Some(home.join("cache")),
                data_dir: Some(home.join("data")),
                state_dir: Some(home.join("state")),
            };
        }
        match ProjectDirs::from("", "", "lore") {
            Some(dirs) => Paths {
                config_file: Some(dirs.config_dir().join("config.toml")),
                cache_dir: Some(dirs.cache_dir().to_path_buf()),
                data_dir: Some(dirs.data_dir().to_path_buf()),
                state_dir: Some(
                    dirs.state_dir()
                        .unwrap_or_else(|| dirs.cache_dir())
                        .to_path_buf(),
                ),
            },
            None => Paths {
                config_file: None,
                cache_dir: None,
                data_dir: None,
                state_dir: None,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// What `config.toml` says.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub knowledge_dirs: Vec<ConfigDir>,
    pub trees_dirs: Vec<ConfigDir>,
    pub theme: Option<ThemeName>,
    /// Capture the mouse in the TUI from the start (it blocks text selection).
    pub mouse: Option<bool>,
    /// Key binding overrides, checked by the TUI's key table.
    pub keys: toml::Table,
}

/// A folder named in `config.toml`, `~` and relative paths resolved, with
/// the line that names it (for a warning when the folder is not there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigDir {
    pub path: PathBuf,
    pub line: usize,
}

/// `config.toml` as written. Unknown keys are an error so a typo is
/// reported, not ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    knowledge_dirs: Vec<toml::Spanned<PathBuf>>,
    #[serde(default)]
    trees_dirs: Vec<toml::Spanned<PathBuf>>,
    theme: Option<ThemeName>,
    mouse: Option<bool>,
    #[serde(default)]
    keys: toml::Table,
}

/// A config file larger than this is not read (it is a few lines).
const CONFIG_LIMIT: u64 = 1 << 20;

impl Config {
    /// Reads the config file if it exists. A file that cannot be parsed is a
    /// warning naming its line; the defaults stay.
    pub fn load(path: Option<&Path>) -> (Config, Vec<Diagnostic>) {
        let Some(path) = path else {
            return (Config::default(), Vec::new());
        };
        // Read only if it is a regular file of sane size: a FIFO or a link to
        // a device there must not hang every start.
        let bytes = match crate::datafile::read(path, CONFIG_LIMIT) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return (Config::default(), Vec::new());
            }
            Err(err) => {
                let d = Diagnostic::warning(
                    path.display().to_string(),
                    None,
                    format!("cannot read config, using defaults: {err}"),
                );
                return (Config::default(), vec![d]);
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => {
                let at = err.utf8_error().valid_up_to();
                let line = err.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                let d = Diagnostic::warning(
                    path.display().to_string(),
                    Some(line),
                    format!("config is not valid UTF-8 (byte {at}), using defaults"),
                );
                return (Config::default(), vec![d]);
            }
        };
        let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
        match toml::from_str::<ConfigFile>(&text) {
            Ok(file) => {
                let base = path.parent().unwrap_or(Path::new("."));
                let dirs = |dirs: Vec<toml::Spanned<PathBuf>>| -> Vec<ConfigDir> {
                    dirs.into_iter()
                        .map(|dir| ConfigDir {
                            line: line_of(dir.span().start),
                            path: expand_path(dir.get_ref(), base),
                        })
                        .collect()
                };
                let config = Config {
                    knowledge_dirs: dirs(file.knowledge_dirs),
                    trees_dirs: dirs(file.trees_dirs),
                    theme: file.theme,
                    mouse: file.mouse,
                    keys: file.keys,
                };
                (config, Vec::new())
            }
            Err(err) => {
                let line = err.span().map(|span| line_of(span.start));
                let message = err.message().trim().to_string();
                let d = Diagnostic::warning(
                    path.display().to_string(),
                    line,
                    format!("invalid config, using defaults: {message}"),
                );
                (Config::default(), vec![d])
            }
        }
    }
}

/// Config files near `file` that lore does not read, when `file` itself
/// is missing: a `config/config.toml` one folder too deep (what
/// `$LORE_HOME/config/` suggests), a `lore.toml` beside it or one level up
/// (`~/.config/lore.toml`), or the right name in another format. Each is a
/// warning naming the file lore reads instead.
fn misplaced_configs(file: &Path) -> Vec<Diagnostic> {
    if file.exists() {
        return Vec::new();
    }
    let Some(dir) = file.parent() else {
        return Vec::new();
    };
    let mut candidates = vec![
        dir.join("config").join("config.toml"),
        dir.join("lore.toml"),
        dir.join("config.yaml"),
        dir.join("config.yml"),
        dir.join("config.json"),
    ];
    if let Some(up) = dir.parent() {
        candidates.push(up.join("lore.toml"));
    }
    candidates
        .into_iter()
        .filter(|c| c.is_file())
        .map(|c| {
            Diagnostic::warning(
                c.display().to_string(),
                None,
                format!(
                    "lore does not read this file; its settings go in {} (TOML)",
                    file.display()
                ),
            )
        })
        .collect()
}

/// `~/x` is relative to the home folder, a relative path to the config file.
fn expand_path(path: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    if path.is_relative() {
        base.join(path)
    } else {
        path.to_path_buf()
    }
}

/// What the global flags asked for, before it is merged with config and env.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub knowledge: Vec<PathBuf>,
    pub trees: Vec<PathBuf>,
    pub no_builtin: bool,
    pub color: ColorChoice,
    pub theme: Option<ThemeName>,
}

/// Everything a command needs to know about where things are and how to look.
#[derive(Debug, Clone)]
pub struct Settings {
    pub knowledge: SourceSet,
    pub trees: SourceSet,
    pub color: bool,
    pub theme: ThemeName,
    /// `theme` was asked for (flag, `LORE_THEME` or config) rather than
    /// the default.
    pub theme_chosen: bool,
    pub paths: Paths,
    pub config: Config,
    /// Config problems, shown by `lore check` and the TUI.
    pub warnings: Vec<Diagnostic>,
}

/// How long lore waits for the terminal to tell its background colour. A
/// terminal that cannot answer is told apart at once (it answers the device
/// attributes query sent after it); only one that answers nothing waits.
const BACKGROUND_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

impl Settings {
    /// The theme for colour output to this terminal: the one asked for;
    /// else light or dark by the terminal's background, which lore asks the
    /// terminal for (OSC 11); else dark.
    pub fn theme_for_terminal(&self) -> ThemeName {
        if self.theme_chosen || !self.color || !std::io::stdout().is_terminal() {
            return self.theme;
        }
        let mut options = terminal_colorsaurus::QueryOptions::default();
        options.timeout = BACKGROUND_TIMEOUT;
        let asked = std::time::Instant::now();
        let answer = terminal_colorsaurus::background_color(options);
        if let Err(terminal_colorsaurus::Error::Timeout(_)) = &answer {
            // It may still come, as keys: see `terminal_answer`.
            crate::terminal_answer::unanswered(asked);
        }
        match answer {
            Ok(background) => {
                let theme = if background.perceived_lightness() > 0.5 {
                    ThemeName::Light
                } else {
                    ThemeName::Dark
                };
                log::info!("the terminal's background is {theme:?}: that theme is used");
                theme
            }
            Err(err) => {
                log::info!(
                    "the terminal did not tell its background ({err}); {:?} theme",
                    self.theme
                );
                self.theme
            }
        }
    }

    /// Merges config file, environment and flags. Overlays apply in that order,
    /// so a `--knowledge` folder shadows one from the environment or the config.
    /// An overlay folder of the environment or a flag that does not exist is a
    /// usage error; one in `config.toml` (a disk not mounted today, notes
    /// deleted since) is a warning naming its line, and the rest loads.
    pub fn resolve(flags: Flags) -> Result<Settings, SourceError> {
        let paths = Paths::discover();
        let (config, mut warnings) = Config::load(paths.config_file.as_deref());
        if let Some(file) = &paths.config_file {
            warnings.extend(misplaced_configs(file));
        }
        let config_file = paths.config_file.as_deref().unwrap_or(Path::new(""));
        let config_knowledge = usable_dirs(
            &config.knowledge_dirs,
            "knowledge_dirs:",
            config_file,
            &mut warnings,
        );
        let config_trees = usable_dirs(
            &config.trees_dirs,
            "trees_dirs:",
            config_file,
            &mut warnings,
        );
        // Set once in a shell profile, the variable outlives a mount: like
        // `knowledge_dirs`, a folder it names that is gone is a warning.
        let mut env_dirs: Vec<PathBuf> = Vec::new();
        for dir in std::env::var_os(ENV_KNOWLEDGE)
            .map(|v| std::env::split_paths(&v).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| !p.as_os_str().is_empty())
        {
            // The warning names the variable; the error need not repeat it.
            match crate::sources::validate_dir(&dir, "") {
                Ok(()) => env_dirs.push(dir),
                Err(err) => warnings.push(Diagnostic::warning(
                    ENV_KNOWLEDGE,
                    None,
                    format!("{}, skipped", err.to_string().trim_start()),
                )),
            }
        }
        let flag_knowledge = SourceSet {
            builtin: None,
            overlays: flags.knowledge.clone(),
        };
        flag_knowledge.validate("--knowledge")?;

        let trees_flag = SourceSet {
            builtin: None,
            overlays: flags.trees.clone(),
        };
        trees_flag.validate("--trees")?;

        let knowledge = SourceSet {
            builtin: (!flags.no_builtin).then_some(&BUILTIN_KNOWLEDGE),
            overlays: [config_knowledge, env_dirs, flags.knowledge].concat(),
        };
        let trees = SourceSet {
            builtin: (!flags.no_builtin).then_some(&BUILTIN_TREES),
            overlays: [config_trees, flags.trees].concat(),
        };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match flags.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && !dumb_terminal() && std::io::stdout().is_terminal(),
        };
        let env_theme = match std::env::var(ENV_THEME) {
            Ok(value) if !value.trim().is_empty() => {
                match <ThemeName as clap::ValueEnum>::from_str(value.trim(), true) {
                    Ok(theme) => Some(theme),
                    Err(_) => {
                        warnings.push(Diagnostic::warning(
                            ENV_THEME,
                            None,
                            format!(
                                "unknown theme `{}` (dark or light); ignored",
                                crate::text::inline(&value)
                            ),
                        ));
                        None
                    }
                }
            }
            _ => None,
        };
        let chosen = flags.theme.or(env_theme).or(config.theme);
        Ok(Settings {
            knowledge,
            trees,
            color,
            theme: chosen.unwrap_or_default(),
            theme_chosen: chosen.is_some(),
            paths,
            config,
            warnings,
        })
    }
}

/// The folders of `dirs` lore can use; each other one is a warning at its
/// line of the config file, naming the key (`knowledge_dirs:`), and is left
/// out.
fn usable_dirs(
    dirs: &[ConfigDir],
    key: &'static str,
    config_file: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<PathBuf> {
    let mut usable = Vec::new();
    for dir in dirs {
        match crate::sources::validate_dir(&dir.path, key) {
            Ok(()) => usable.push(dir.path.clone()),
            Err(err) => warnings.push(Diagnostic::warning(
                config_file.display().to_string(),
                Some(dir.line),
                format!("{err}, skipped"),
            )),
        }
    }
    usable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_config_is_a_warning_with_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "theme = \"dark\"\nknowledge_dirz = []\n").unwrap();
        let (config, warnings) = Config::load(Some(&path));
        assert!(config.knowledge_dirs.is_empty());
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(2));
        assert!(
            warnings[0].message.contains("knowledge_dirz"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn non_utf8_config_is_a_warning_with_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, b"theme = \"dark\"\n# caf\xe9\n").unwrap();
        let (config, warnings) = Config::load(Some(&path));
        assert_eq!(config.theme, None);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(2));
        assert_eq!(
            warnings[0].message,
            "config is not valid UTF-8 (byte 20), using defaults"
        );
    }

    #[test]
    fn relative_dirs_are_relative_to_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "knowledge_dirs = [\"notes\"]\n").unwrap();
        let (config, warnings) = Config::load(Some(&path));
        assert!(warnings.is_empty());
        assert_eq!(
            config.knowledge_dirs,
            vec![ConfigDir {
                path: dir.path().join("notes"),
                line: 1
            }]
        );
    }

    /// A notes folder on a disk not mounted today: a warning at its line,
    /// and the folders that are there still load.
    #[test]
    fn an_unmounted_config_folder_is_a_warning_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        std::fs::write(
            &path,
            "knowledge_dirs = [\n  \"notes\",\n  \"/mnt/usb/gone\",\n]\n",
        )
        .unwrap();
        let (config, warnings) = Config::load(Some(&path));
        assert!(warnings.is_empty());
        let mut warnings = Vec::new();
        let usable = usable_dirs(
            &config.knowledge_dirs,
            "knowledge_dirs:",
            &path,
            &mut warnings,
        );
        assert_eq!(usable, vec![dir.path().join("notes")]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            format!(
                "{}:3: warning: knowledge_dirs: /mnt/usb/gone: no such directory, skipped",
                path.display()
            )
        );
    }
}
