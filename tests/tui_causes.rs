//! The TUI's search lists the selected hit's causes, and the probe key
//! (`Ctrl-d`) judges them on a worker thread: here the worker's answer is fed
//! in by hand. The verdicts are the ones `lore diagnose` gives for the same
//! hit and the same probes (the same library functions).

mod common;

use std::sync::Arc;

use lore::diagnose::{self, Verdict};
use lore::probe::ProbeOptions;
use lore::theme::Theme;
use lore::tui::action::{Action, CausesChecked};
use lore::tui::app::Effect;
use lore::tui::keymap::{Key, Mode};

const MESSAGE: &str = "CUDA driver version is insufficient for CUDA runtime version";

/// A root where the driver-too-old cause holds: torch 2.11.0+cu130 on driver 550.
fn cu130_on_r550() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sp = dir.path().join("usr/local/lib/python3.11/site-packages");
    std::fs::create_dir_all(sp.join("torch")).unwrap();
    std::fs::create_dir_all(sp.join("torch-2.11.0.dist-info")).unwrap();
    std::fs::write(
        sp.join("torch/version.py"),
        "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n",
    )
    .unwrap();
    std::fs::write(sp.join("torch-2.11.0.dist-info/INSTALLER"), "pip\n").unwrap();
    let proc = dir.path().join("proc/driver/nvidia");
    std::fs::create_dir_all(&proc).unwrap();
    std::fs::write(
        proc.join("version"),
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n",
    )
    .unwrap();
    dir
}

/// Facts of what lore was told to probe (`--root`), for any query.
fn given(ctx: Arc<diagnose::Context>) -> CausesChecked {
    CausesChecked {
        ctx,
        scope: lore::diagnose::build_log::Scope::Any,
        brief: None,
    }
}

/// The query the probe key asked the causes worker to probe for.
fn probe_asked(a: &mut lore::tui::app::App) -> String {
    a.take_effects()
        .into_iter()
        .find_map(|e| match e {
            Effect::ProbeCauses { query } => Some(query),
            _ => None,
        })
        .expect("the probe is asked for")
}

/// The status bar's text.
fn status_line(a: &lore::tui::app::App) -> String {
    a.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

#[test]
fn a_hit_with_causes_shows_them_and_ctrl_d_judges_them_as_the_cli_does() {
    let mut a = common::shipped_app(Theme::plain(), 120, 40);
    let index = common::ready_index(&mut a);
    a.update(Action::Search);
    assert_eq!(a.mode(), Mode::Search);
    a.update(Action::Paste(MESSAGE.into()));
    let _ = common::pump(&mut a, &index);

    // Before probing: the causes are listed, not judged.
    let causes = a.search.causes.clone().expect("the first hit lists causes");
    assert!(causes.causes.iter().all(|(v, _)| v.is_none()));
    assert!(
        causes
            .causes
            .iter()
            .any(|(_, t)| t.contains("older than the CUDA major")),
        "{causes:?}"
    );
    assert!(a.causes_rows() > 0);

    // The probe key asks for the worker.
    let key = Key::parse("ctrl-d").unwrap();
    let action = a.action_for_key(key).expect("ctrl-d is bound in search");
    assert_eq!(action, Action::Probe);
    a.update(action);
    assert_eq!(
        a.take_effects(),
        vec![Effect::ProbeCauses {
            query: MESSAGE.into()
        }]
    );
    assert!(a.search.probing);

    // The worker answers with the facts of the root.
    let root = cu130_on_r550();
    let options = ProbeOptions {
        root: Some(root.path().to_path_buf()),
        dockerfile: None,
        dockerfile_line: None,
    };
    let (_, ctx) = diagnose::probe_context(&options).unwrap();
    let ctx = Arc::new(ctx);
    a.update(Action::CausesProbed(Ok(given(Arc::clone(&ctx)))));
    assert!(!a.search.probing);
    let judged = a.search.causes.clone().unwrap();
    assert_eq!(judged.causes[0].0, Some(Verdict::Holds), "{judged:?}");
    assert!(judged.causes[0].1.contains("older than the CUDA major"));

    // The same verdicts as `lore diagnose` for this hit.
    let hit = a.search.hits[a.search.cursor.selected].clone();
    let corpus = Arc::clone(&a.corpus);
    let sections = diagnose::section_causes(std::slice::from_ref(&hit), "", |p| corpus.get(p));
    let cli: Vec<(Option<Verdict>, String)> = diagnose::diagnose(sections, &ctx)
        .causes
        .into_iter()
        .map(|c| (Some(c.evaluation.verdict), c.text))
        .collect();
    assert_eq!(judged.causes, cli);
}

/// The pasted query speaks for the place it was printed, in the TUI as in
/// `lore diagnose`: torch's sm_120 warning, judged against an image with
/// no GPU and no torch, holds "newer than the torch wheel" on the
/// capabilities the warning prints.
#[test]
fn ctrl_d_judges_a_pasted_warning_on_the_capabilities_it_states() {
    let mut a = common::shipped_app(Theme::plain(), 120, 40);
    let index = common::ready_index(&mut a);
    a.update(Action::Search);
    a.update(Action::Paste(
        "UserWarning:\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n".into(),
    ));
    let _ = common::pump(&mut a, &index);
    let empty = tempfile::tempdir().unwrap();
    let options = ProbeOptions {
        root: Some(empty.path().to_path_buf()),
        dockerfile: None,
        dockerfile_line: None,
    };
    let (_, ctx) = diagnose::probe_context(&options).unwrap();
    a.update(Action::CausesProbed(Ok(given(Arc::new(ctx)))));
    let judged = a.search.causes.clone().expect("the first hit lists causes");
    assert_eq!(judged.causes[0].0, Some(Verdict::Holds), "{judged:?}");
    assert!(
        judged.causes[0].1.contains("newer than the torch wheel"),
        "{judged:?}"
    );

    // Another paste is judged on what it states, not on the last one's
    // facts: a wheel built up to sm_120 carries code for this GPU.
    a.update(Action::Search);
    a.update(Action::ClearInput);
    a.update(Action::Paste(
        "UserWarning:\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_75 sm_80 sm_90 sm_120.\n".into(),
    ));
    let _ = common::pump(&mut a, &index);
    let judged = a.search.causes.clone().expect("the first hit lists causes");
    let newer = judged
        .causes
        .iter()
        .find(|(_, t)| t.contains("newer than the torch wheel"))
        .expect("the cause is listed");
    assert_eq!(newer.0, Some(Verdict::RuledOut), "{judged:?}");
}

#[test]
fn the_help_lists_the_probe_key_of_the_search_screen() {
    let keys = lore::tui::keymap::defaults();
    assert!(keys.iter().any(|b| b.mode == Mode::Search
        && b.action == Action::Probe
        && b.key == Key::parse("ctrl-d").unwrap()
        && b.description.contains("causes")));
}

/// `Ctrl-d` on a pasted traceback asks the worker to probe the Python
/// environment the traceback's paths lead into, as `lore diagnose` does
/// (a venv run by its absolute path, which `PATH` does not name).
#[test]
fn ctrl_d_on_a_traceback_probes_the_environment_its_paths_name() {
    let mut a = common::shipped_app(Theme::plain(), 120, 40);
    let index = common::ready_index(&mut a);
    a.update(Action::Search);
    a.update(Action::Paste(
        "  File \"/data/envs/build/lib/python3.12/site-packages/torch/utils/cpp_extension.py\", line 2448, in verify_ninja_availability\nRuntimeError: Ninja is required to load C++ extensions".into(),
    ));
    let _ = common::pump(&mut a, &index);
    a.update(Action::Probe);
    let query = probe_asked(&mut a);
    let named = diagnose::message::python_envs(&query);
    assert_eq!(named.len(), 1, "{named:?}");
    assert_eq!(named[0].prefix, "/data/envs/build");

    // The worker probes an image where that venv exists; the status line
    // says it was read because the paste named it.
    let root = tempfile::tempdir().unwrap();
    let site = root
        .path()
        .join("data/envs/build/lib/python3.12/site-packages");
    std::fs::create_dir_all(site.join("torch")).unwrap();
    std::fs::create_dir_all(site.join("ninja-1.13.0.dist-info")).unwrap();
    std::fs::write(
        site.join("torch/version.py"),
        "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n",
    )
    .unwrap();
    std::fs::write(
        root.path().join("data/envs/build/pyvenv.cfg"),
        "home = /usr/bin\n",
    )
    .unwrap();
    let options = ProbeOptions {
        root: Some(root.path().to_path_buf()),
        dockerfile: None,
        dockerfile_line: None,
    };
    // The worker probes them too, as `lore diagnose` does.
    let checked = lore::tui::probe_worker::check_causes(&options, &query, root.path()).unwrap();
    a.update(Action::CausesProbed(Ok(checked)));
    let status = status_line(&a);
    assert!(
        status.contains("also probed") && status.contains("data/envs/build"),
        "{status}"
    );
}

/// Pattern: a `docker build` log pasted into the search after the machine
/// was probed for an earlier message. The machine's facts do not judge it
/// (the failure happened in the image), and `Ctrl-d` checks it against the
/// Dockerfile in lore's folder that holds its failed step, as `lore
/// diagnose` does.
#[test]
fn ctrl_d_on_a_docker_build_log_checks_its_dockerfile_not_the_machine() {
    use lore::diagnose::build_log::Scope;
    let mut a = common::shipped_app(Theme::plain(), 120, 40);
    let index = common::ready_index(&mut a);
    a.update(Action::Search);
    a.update(Action::Paste(MESSAGE.into()));
    let _ = common::pump(&mut a, &index);
    // The machine's facts, for that message (what the worker sends for a
    // query that is not a build log).
    let root = cu130_on_r550();
    let options = ProbeOptions {
        root: Some(root.path().to_path_buf()),
        dockerfile: None,
        dockerfile_line: None,
    };
    let (_, machine) = diagnose::probe_context(&options).unwrap();
    a.update(Action::CausesProbed(Ok(CausesChecked {
        ctx: Arc::new(machine),
        scope: Scope::NotBuildLog,
        brief: None,
    })));
    assert!(
        a.search
            .causes
            .as_ref()
            .unwrap()
            .causes
            .iter()
            .any(|(v, _)| v.is_some())
    );

    let log = "#8 [3/3] RUN pip install flash-attn --no-build-isolation\n\
               #8 3.910       OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n\
               #8 ERROR: process \"/bin/sh -c pip install flash-attn --no-build-isolation\" did not complete successfully: exit code: 1\n\
               ERROR: failed to solve: process \"/bin/sh -c pip install flash-attn --no-build-isolation\" did not complete successfully: exit code: 1\n";
    a.update(Action::Search);
    a.update(Action::ClearInput);
    a.update(Action::Paste(log.into()));
    let _ = common::pump(&mut a, &index);
    let causes = a.search.causes.clone().expect("the first hit lists causes");
    assert!(
        causes.causes.iter().all(|(v, _)| v.is_none()),
        "the machine's facts judged a build log: {causes:?}"
    );

    a.update(Action::Probe);
    let query = probe_asked(&mut a);
    let context = tempfile::tempdir().unwrap();
    std::fs::write(
        context.path().join("Dockerfile"),
        "FROM nvidia/cuda:12.6.3-base-ubuntu24.04\nRUN apt-get update && apt-get install -y python3-pip\nRUN pip install flash-attn --no-build-isolation\n",
    )
    .unwrap();
    let checked =
        lore::tui::probe_worker::check_causes(&ProbeOptions::default(), &query, context.path())
            .unwrap();
    a.update(Action::CausesProbed(Ok(checked)));
    let judged = a.search.causes.clone().unwrap();
    let flavour = judged
        .causes
        .iter()
        .find(|(_, t)| t.contains("runtime or base flavour"))
        .expect("the cause is listed");
    assert_eq!(flavour.0, Some(Verdict::Holds), "{judged:?}");
    let status = status_line(&a);
    assert!(
        status.contains("a build log: checked against") && status.contains("Dockerfile:3"),
        "{status}"
    );
    // The causes panel keeps saying so after the status line has gone.
    let shown = common::screen_text(&a);
    assert!(
        shown.contains("causes listed here, a build log: checked against"),
        "{shown}"
    );
}
