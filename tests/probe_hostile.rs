//! Probes against a hostile root (issue #30): folders swapped for symlinks
//! mid-probe, symlinked folders that multiply, FIFOs swapped in, sources
//! skipped behind links and loops, names that would forge output, and a
//! reader that closes the pipe. Each pattern is built here from scratch.

mod common;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fixture, home, lore};
use lore::probe::{ProbeOptions, fs::Root};
use serde_json::Value;

const SITE: &str = "usr/local/lib/python3.11/site-packages";

/// A copy of the pip fixture root at `dir/root`.
fn pip_root(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    copy_tree(&fixture("probe/pip-root"), &root);
    root
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[cfg(unix)]
fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `lore ARGS` on the real binary: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let home = home();
    let out = lore(&home).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn notes_of(json: &Value) -> Vec<String> {
    json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// The red team's race on `lore probe --root R`: while lore probes, a folder
/// on the way to a file it reads (the torch package folder, `/etc`) is
/// swapped, again and again, with a symlink to a folder of the same name
/// outside the root. Checking the path and then opening it by its full path
/// let the kernel follow the swapped-in link (37 of 200 runs printed torch's
/// version from outside). Each folder is now opened from the one before
/// without following a link: 1,000 probes, no outside read.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_link_out_of_the_root_mid_probe_is_never_read() {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let dir = tempfile::tempdir().unwrap();
    let root = pip_root(dir.path());
    let outside = dir.path().join("elsewhere");
    write(
        &outside.join("torch/version.py"),
        "__version__ = '6.6.6+leaked'\ncuda = '99.9'\n",
    );
    write(
        &outside.join("etc/os-release"),
        "ID=leaked\nVERSION_ID=\"66\"\n",
    );
    let site = root.join(SITE);
    symlink(outside.join("torch"), site.join("torch.swap"));
    symlink(outside.join("etc"), root.join("etc.swap"));
    let pairs = [
        (site.join("torch"), site.join("torch.swap")),
        (root.join("etc"), root.join("etc.swap")),
    ];
    let options = ProbeOptions {
        root: Some(root.clone()),
        dockerfile: None,
        dockerfile_line: None,
    };
    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let mut leaked = Vec::new();
    let mut torch_inside = 0;
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                for (a, b) in &pairs {
                    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
                }
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        });
        while swaps.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        for run in 0..1_000 {
            let findings = lore::probe::run(&options).unwrap();
            if format!("{findings:?}").contains("leaked") {
                leaked.push(run);
            }
            let facts = findings.root.as_ref().unwrap();
            if facts
                .torch
                .iter()
                .any(|t| t.version.as_ref().is_some_and(|v| v.value == "2.5.1+cu124"))
            {
                torch_inside += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(
        leaked.is_empty(),
        "{} of 1,000 probes read a file outside the root (runs {:?}…)",
        leaked.len(),
        &leaked[..leaked.len().min(10)]
    );
    assert!(torch_inside > 0, "the race never let torch be read at all");
}

/// K symlinks `/usr/local/cuda-N` to one toolkit whose `targets` folder
/// holds K folders, and K toolkits whose `targets` is a link to that same
/// folder: expanding every link and every entry gave K² paths (K=1,000 took
/// 27 s and 191 MB, K=2,000 89 s and 771 MB). Folders are grouped by where
/// they really lead before they are listed, so each real folder is listed
/// once.
#[cfg(unix)]
#[test]
fn symlinked_cuda_folders_are_listed_once_per_real_folder() {
    const K: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let toolkit = root.join("opt/cuda");
    write(
        &toolkit.join("version.json"),
        r#"{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}"#,
    );
    for t in 0..K {
        fs::create_dir_all(toolkit.join(format!("targets/t{t}/lib"))).unwrap();
    }
    write(&toolkit.join("targets/t0/lib/libcupti.so.12"), "");
    fs::create_dir_all(root.join("usr/local")).unwrap();
    for k in 0..K {
        symlink("/opt/cuda", root.join(format!("usr/local/cuda-{k}")));
        let other = root.join(format!("opt/other-{k}"));
        fs::create_dir_all(&other).unwrap();
        symlink("/opt/cuda/targets", other.join("targets"));
        symlink(
            format!("/opt/other-{k}"),
            root.join(format!("usr/local/cuda-other-{k}")),
        );
    }

    let probed = Root::new(&root).unwrap();
    let found = probed.expand("/usr/local/cuda*/targets/*/lib");
    assert_eq!(found.len(), K, "one path per real folder, not K²");
    assert!(probed.take_skipped().is_empty());

    let r = root.display().to_string();
    let (code, stdout, _) = run(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let count = |fact: &str| {
        json["facts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["fact"] == fact)
            .count()
    };
    assert_eq!(count("cuda-toolkit"), 1, "{json:#}");
    assert_eq!(count("libcupti"), 1, "{json:#}");
}

/// When os-release, the dpkg status, a toolkit's version.json, the loader
/// cache or torch's dist-info sits behind a link out of the root or in a
/// loop, the fact vanished with no word; so did folders listed only in part
/// (over 20,000 entries) and names that are not UTF-8. Each skipped source
/// now gets one warning naming it.
#[cfg(unix)]
#[test]
fn every_skipped_source_is_named_in_one_warning() {
    use std::os::unix::ffi::OsStrExt;

    let dir = tempfile::tempdir().unwrap();
    let root = pip_root(dir.path());
    let r = root.display().to_string();
    let site = root.join(SITE);
    for name in ["os-release", "ld.so.cache", "version.json", "dist-info"] {
        write(&dir.path().join(format!("outside-{name}")), "");
    }
    fs::remove_file(root.join("etc/os-release")).unwrap();
    symlink("../../outside-os-release", root.join("etc/os-release"));
    symlink("../../outside-ld.so.cache", root.join("etc/ld.so.cache"));
    let dpkg = root.join("var/lib/dpkg");
    fs::remove_file(dpkg.join("status")).unwrap();
    symlink("status.old", dpkg.join("status"));
    symlink("status", dpkg.join("status.old"));
    let toolkit = root.join("usr/local/cuda-12.4");
    fs::create_dir_all(toolkit.join("bin")).unwrap();
    symlink(
        "../../../../outside-version.json",
        toolkit.join("version.json"),
    );
    let dist_info = site.join("torch-2.5.1+cu124.dist-info");
    fs::remove_dir_all(&dist_info).unwrap();
    symlink("../../../../../../outside-dist-info", &dist_info);
    fs::create_dir_all(
        root.join("usr/local")
            .join(std::ffi::OsStr::from_bytes(b"cuda-\xff")),
    )
    .unwrap();
    let libs = root.join("usr/lib/x86_64-linux-gnu");
    fs::create_dir_all(&libs).unwrap();
    for i in 0..=20_000 {
        fs::File::create(libs.join(format!("lib{i}.so"))).unwrap();
    }

    let (code, stdout, stderr) = run(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let notes = notes_of(&json);
    let expected = [
        format!(
            "{r}/etc/os-release: symlink points outside the root (to ../../outside-os-release); not followed"
        ),
        format!("{r}/var/lib/dpkg/status: too many symlinks (a loop?); not followed"),
        format!(
            "{r}/usr/local/cuda-12.4/version.json: symlink points outside the root (to ../../../../outside-version.json); not followed"
        ),
        format!(
            "{r}/etc/ld.so.cache: symlink points outside the root (to ../../outside-ld.so.cache); not followed"
        ),
        format!(
            "{r}/{SITE}/torch-2.5.1+cu124.dist-info: symlink points outside the root (to ../../../../../../outside-dist-info); not followed"
        ),
        format!("{r}/usr/local: 1 entry whose name is not UTF-8 skipped: cuda-\\xFF"),
        format!("{r}/usr/lib/x86_64-linux-gnu: more than 20000 entries; the rest were not read"),
    ];
    for note in &expected {
        let times = notes.iter().filter(|n| *n == note).count();
        assert_eq!(times, 1, "{note}\nin {notes:#?}");
    }
    // And the text output says each once too.
    let (_, _, stderr) = run(&["probe", "--root", &r]);
    for note in &expected {
        let line = format!("lore: warning: {note}");
        assert_eq!(
            stderr.lines().filter(|l| *l == line).count(),
            1,
            "{line}\nin {stderr}"
        );
    }
}

/// One link out of the root on the way to every CUDA and Python pattern
/// (`/usr/local`) was warned about once per pattern: six times the same
/// line. Each warning is printed once, by `lore probe` and by `lore decide
/// --probe`.
#[cfg(unix)]
#[test]
fn a_problem_met_by_several_probes_is_warned_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = pip_root(dir.path());
    fs::create_dir_all(dir.path().join("outside-local")).unwrap();
    fs::rename(root.join("usr/local"), root.join("usr/local.real")).unwrap();
    symlink("../../outside-local", root.join("usr/local"));
    let r = root.display().to_string();
    let warning = format!(
        "lore: warning: {r}/usr/local: symlink points outside the root (to ../../outside-local); not followed"
    );
    for args in [
        vec!["probe", "--root", &r],
        vec!["decide", "need-cupti", "--probe", "--root", &r],
    ] {
        let (_, _, stderr) = run(&args);
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(lines.contains(&warning.as_str()), "{args:?}: {stderr}");
        let mut seen = std::collections::HashSet::new();
        for line in &lines {
            assert!(seen.insert(line), "{args:?} repeats {line:?}:\n{stderr}");
        }
    }
}

/// Folder names are file text: one holding a newline forged a whole fact
/// line of `lore probe` (and a warning line), and `--json` printed caret
/// notation (`^[`) instead of the name. Text output escapes them within
/// their line (`^J`, `^[`); JSON carries the exact names, JSON-escaped.
#[cfg(unix)]
#[test]
fn names_with_newlines_and_escapes_cannot_forge_probe_output() {
    let dir = tempfile::tempdir().unwrap();
    let root = pip_root(dir.path());
    let site = root.join(SITE);
    fs::create_dir(
        site.join("nvidia_cuda_nvrtc_cu12-12.4\nnvidia-wheel  forged-package 6.6.dist-info"),
    )
    .unwrap();
    fs::create_dir(site.join("nvidia_cudnn_cu12-9.1\u{1b}[31m.dist-info")).unwrap();
    fs::create_dir_all(root.join("usr/local")).unwrap();
    symlink(
        "../../../elsewhere",
        root.join("usr/local/cuda-x\nlore: warning: forged"),
    );
    let r = root.display().to_string();

    let (code, stdout, stderr) = run(&["probe", "--root", &r]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("nvidia-wheel  forged")),
        "{stdout}"
    );
    assert!(
        stdout.contains("nvidia-cuda-nvrtc-cu12 12.4^Jnvidia-wheel  forged-package 6.6"),
        "{stdout}"
    );
    assert!(stdout.contains("nvidia-cudnn-cu12 9.1^[[31m"), "{stdout}");
    assert!(
        !stderr
            .lines()
            .any(|l| l.starts_with("lore: warning: forged")),
        "{stderr}"
    );
    assert!(stderr.contains("cuda-x^Jlore: warning: forged"), "{stderr}");

    let (_, stdout, _) = run(&["probe", "--root", &r, "--json"]);
    assert!(!stdout.contains('\u{1b}'), "raw ESC in JSON: {stdout}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let values: Vec<&str> = json["facts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["fact"] == "nvidia-wheel")
        .map(|f| f["value"].as_str().unwrap())
        .collect();
    assert!(
        values.contains(&"nvidia-cuda-nvrtc-cu12 12.4\nnvidia-wheel  forged-package 6.6"),
        "{values:?}"
    );
    assert!(
        values.contains(&"nvidia-cudnn-cu12 9.1\u{1b}[31m"),
        "{values:?}"
    );
    assert!(
        notes_of(&json)
            .iter()
            .any(|n| n.contains("/usr/local/cuda-x\nlore: warning: forged: symlink")),
        "{json:#}"
    );
}

/// `lore decide need-cupti --probe --root R 2>&1 | head -c1` with a root
/// that gives many warnings: once the reader left, the next warning met a
/// closed stderr and `eprintln!` panicked (exit 101, "failed printing to
/// stderr"). Every verb now ends quietly with exit 0.
#[cfg(unix)]
#[test]
fn a_reader_that_leaves_after_one_byte_of_warnings_ends_lore_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let root = pip_root(dir.path());
    // 1,500 links out of the root: 1,500 different warnings, far more than
    // a pipe holds.
    for k in 0..1_500 {
        symlink(
            format!("../../../outside-{k}"),
            root.join(format!("usr/local/cuda-{k}")),
        );
    }
    let r = root.display().to_string();
    let home = home();
    for args in [
        vec!["decide", "need-cupti", "--probe", "--root", &r],
        vec!["probe", "--root", &r],
        vec!["probe", "--root", &r, "--json"],
    ] {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_lore"));
        command
            .env("LORE_HOME", home.path())
            .env_remove("LORE_KNOWLEDGE")
            .args(&args)
            .stdout(writer.try_clone().unwrap())
            .stderr(writer);
        let mut child = command.spawn().unwrap();
        drop(command);
        let mut byte = [0u8; 1];
        reader.read_exact(&mut byte).unwrap();
        drop(reader);
        let status = common::exit_status(&mut child, &format!("{args:?}"));
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
}

/// `lore probe --dockerfile F` while F is swapped, again and again, with a
/// FIFO: a check of the path, then an open, could open the FIFO, which
/// blocks until a writer comes (forever). The file is opened non-blocking
/// and the open file is checked; every probe returns, having read the file
/// or refused the FIFO.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_swapped_in_for_the_dockerfile_never_blocks_the_probe() {
    use rustix::fs::{CWD, Mode, OFlags, RenameFlags, mkfifoat, openat, renameat_with};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Dockerfile");
    let fifo = dir.path().join("Dockerfile.fifo");
    fs::write(&file, "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n").unwrap();
    mkfifoat(CWD, &fifo, Mode::from_raw_mode(0o600)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, file, fifo) = (stop.clone(), swaps.clone(), file.clone(), fifo.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                renameat_with(CWD, &file, CWD, &fifo, RenameFlags::EXCHANGE).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let (done, finished) = std::sync::mpsc::channel();
    let options = ProbeOptions {
        root: None,
        dockerfile: Some(file.clone().into()),
        dockerfile_line: None,
    };
    {
        let swaps = swaps.clone();
        std::thread::spawn(move || {
            while swaps.load(Ordering::Relaxed) == 0 {
                std::thread::yield_now();
            }
            let started = Instant::now();
            let (mut read, mut refused) = (0, 0);
            while read + refused < 1_000 || started.elapsed() < Duration::from_secs(3) {
                match lore::probe::run(&options) {
                    Ok(_) => read += 1,
                    Err(_) => refused += 1,
                }
            }
            let _ = done.send((read, refused));
        });
    }
    let result = finished.recv_timeout(Duration::from_secs(60));
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    if result.is_err() {
        // Free the probe stuck in `open`: a writer opens whichever name is
        // the FIFO now.
        for path in [&file, &fifo] {
            let _ = openat(CWD, path, OFlags::WRONLY | OFlags::NONBLOCK, Mode::empty());
        }
    }
    let (read, refused) = result.expect("a probe blocked on a FIFO swapped in for the Dockerfile");
    assert!(
        read > 0 && refused > 0,
        "the swap never alternated under the probe: {read} read, {refused} refused"
    );
}
