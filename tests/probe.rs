//! Probes: each fact from a fixture root or Dockerfile, each probed question,
//! `--answer` winning over a probe, and hostile inputs (symlinks out of the
//! root, a 1 GB sparse METADATA, unreadable files, a FIFO, a 10,000-line or
//! binary Dockerfile) reported with the file and line while the rest works.

mod common;

use std::fs;
use std::path::Path;

use common::{facts, fixture, home, lore};
use serde_json::Value;

fn json_of(args: &[&str]) -> (i32, Value, String) {
    let home = home();
    let out = lore(&home).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        value,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn root(name: &str) -> String {
    fixture(&format!("probe/{name}")).display().to_string()
}

fn path_of(json: &Value) -> Vec<(String, String, String)> {
    json["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["question"].as_str().unwrap().to_string(),
                p["answer"].as_str().unwrap().to_string(),
                p["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_pip_image_root_gives_torch_wheels_cupti_os_and_packages() {
    let r = root("pip-root");
    let (code, json, _) = json_of(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0, "{json}");
    let site = format!("{r}/usr/local/lib/python3.11/site-packages");
    assert_eq!(
        facts(&json, "torch"),
        [(
            "2.5.1+cu124".into(),
            vec![format!("{site}/torch/version.py:4")]
        )]
    );
    assert_eq!(facts(&json, "torch.cuda")[0].0, "12.4");
    assert_eq!(
        facts(&json, "torch.install"),
        [(
            "wheel (pip)".into(),
            vec![format!("{site}/torch-2.5.1+cu124.dist-info/INSTALLER:1")]
        )]
    );
    assert_eq!(
        facts(&json, "nvidia-wheel")[0].0,
        "nvidia-cuda-cupti-cu12 12.4.127"
    );
    assert_eq!(facts(&json, "nvidia-wheel.libs")[0].0, "libcupti.so.12");
    assert_eq!(
        facts(&json, "libcupti")[0].0,
        format!("{site}/nvidia/cuda_cupti/lib/libcupti.so.12 (wheel)")
    );
    assert_eq!(
        facts(&json, "os"),
        [(
            "ubuntu 22.04 (Ubuntu 22.04.4 LTS)".into(),
            vec![format!("{r}/etc/os-release:4")]
        )]
    );
    assert_eq!(facts(&json, "container")[0].0, "container");
    // Only installed packages: cuda-cupti-12-4 is `deinstall ok config-files`.
    // NVIDIA's packages come first, then the C runtime the causes check.
    assert_eq!(
        facts(&json, "apt-package"),
        [
            (
                "cuda-cudart-12-4 12.4.127-1".into(),
                vec![format!("{r}/var/lib/dpkg/status:5")]
            ),
            (
                "libc6 2.35-0ubuntu3.8".into(),
                vec![format!("{r}/var/lib/dpkg/status:1")]
            )
        ]
    );
    assert!(facts(&json, "driver").is_empty(), "an image has no driver");
}

#[test]
fn a_conda_image_root_gives_conda_torch_and_the_toolkit() {
    let r = root("conda-root");
    let (code, json, _) = json_of(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        facts(&json, "torch.install"),
        [(
            "conda".into(),
            vec![format!(
                "{r}/opt/conda/conda-meta/pytorch-2.5.1-py3.11_cuda12.4_cudnn9.1.0_0.json"
            )]
        )]
    );
    // /usr/local/cuda is a link to cuda-12.4: one toolkit, named by its folder.
    assert_eq!(
        facts(&json, "cuda-toolkit"),
        [(
            format!("{r}/usr/local/cuda-12.4 12.4.1"),
            vec![
                format!("{r}/usr/local/cuda-12.4/version.json:4"),
                // dpkg's cuda-nvcc-12-4 agrees and is shown too.
                format!("{r}/var/lib/dpkg/status:1 (cuda-nvcc-12-4 12.4.131-1)"),
            ]
        )]
    );
    assert_eq!(facts(&json, "nvcc").len(), 1);
}

#[test]
fn a_dockerfile_gives_stages_installs_copies_env_and_the_final_stage() {
    let f = root("source-build.Dockerfile");
    let home = home();
    let out = lore(&home)
        .args(["probe", "--dockerfile", &f])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "dockerfile.stage        stage 0 (builder): nvidia/cuda:12.4.1-devel-ubuntu22.04 (nvidia/cuda devel, CUDA 12.4.1, ubuntu22.04)",
        "dockerfile.build        stage 0 (builder): python setup.py bdist_wheel",
        "dockerfile.copy-from    stage 1 from builder: /pytorch/dist /dist",
        "dockerfile.env          stage 1: LD_LIBRARY_PATH=/usr/local/cuda/lib64",
        "dockerfile.final-stage  stage 1: nvidia/cuda cudnn-runtime, CUDA 12.4.1, ubuntu22.04",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}\n{text}");
    }
    assert!(text.contains(&format!("{f}:4\n")), "{text}");
}

#[test]
fn decide_probe_answers_what_it_can_and_stops_at_the_first_it_cannot() {
    let r = root("pip-root");
    let (code, json, _) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        path_of(&json),
        [
            ("torch-install".into(), "pip".into(), "probe".into()),
            ("pip-wheel".into(), "cu12".into(), "probe".into()),
            ("pip-import".into(), "works".into(), "probe".into()),
        ]
    );
    assert_eq!(json["question"]["id"], "pip-profiling");
    assert!(
        json["path"][1]["evidence"][0]
            .as_str()
            .unwrap()
            .ends_with("torch/version.py:6"),
        "{}",
        json["path"][1]
    );
    let evidence = json["path"][2]["evidence"][0].as_str().unwrap();
    assert!(
        evidence.ends_with("nvidia/cuda_cupti/lib/libcupti.so.12"),
        "{evidence}"
    );
    assert_eq!(
        json["probe"]["unsure"][0],
        "question `pip-profiling` has no probe: it needs your answer"
    );

    // An explicit answer wins over the probe.
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--root",
        &r,
        "--answer",
        "torch-install=conda",
        "--json",
    ]);
    assert_eq!(
        path_of(&json),
        [("torch-install".into(), "conda".into(), "user".into())]
    );
    assert_eq!(json["path"][0]["evidence"], Value::Array(vec![]));
}

#[test]
fn a_pip_torch_without_the_cupti_wheel_fails_the_import() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/pip-root"), dir.path());
    let site = dir.path().join("usr/local/lib/python3.11/site-packages");
    fs::remove_dir_all(site.join("nvidia")).unwrap();
    fs::remove_dir_all(site.join("nvidia_cuda_cupti_cu12-12.4.127.dist-info")).unwrap();
    let r = dir.path().display().to_string();
    let (_, json, _) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(
        path_of(&json)[2],
        ("pip-import".into(), "fails".into(), "probe".into())
    );
    assert_eq!(json["status"], "outcome");
    assert_eq!(json["outcome"]["id"], "pip-reinstall-wheel");
}

#[test]
fn the_final_base_comes_from_the_dockerfile_and_the_dpkg_status() {
    let f = root("source-build.Dockerfile");
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--dockerfile",
        &f,
        "--answer",
        "source-linked=import-fails",
        "--json",
    ]);
    assert_eq!(
        path_of(&json),
        [
            ("torch-install".into(), "source".into(), "probe".into()),
            ("source-linked".into(), "import-fails".into(), "user".into()),
            ("final-base".into(), "runtime".into(), "probe".into()),
        ]
    );
    assert_eq!(json["path"][2]["evidence"][0], format!("{f}:5"));
    assert_eq!(json["question"]["id"], "apt-reachable");

    // An image whose dpkg lists cuda-nvcc is a devel image.
    let r = root("conda-root");
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--root",
        &r,
        "--answer",
        "torch-install=source",
        "--answer",
        "source-linked=import-fails",
        "--json",
    ]);
    assert_eq!(
        path_of(&json)[2],
        ("final-base".into(), "devel".into(), "probe".into())
    );
}

#[test]
fn cuda_install_method_and_devel_as_runtime_probes() {
    let f = root("source-build.Dockerfile");
    let (_, json, _) = json_of(&[
        "decide",
        "cuda-install-method",
        "--probe",
        "--dockerfile",
        &f,
        "--json",
    ]);
    assert_eq!(
        path_of(&json),
        [("where".into(), "container".into(), "probe".into())]
    );
    let (_, json, _) = json_of(&[
        "decide",
        "cuda-install-method",
        "--probe",
        "--dockerfile",
        &f,
        "--answer",
        "container-need=toolkit",
        "--json",
    ]);
    assert_eq!(
        path_of(&json)[2],
        ("container-base".into(), "yes".into(), "probe".into())
    );
    assert_eq!(json["outcome"]["id"], "container-nvidia-base");

    let (_, json, _) = json_of(&[
        "decide",
        "devel-as-runtime",
        "--probe",
        "--dockerfile",
        &f,
        "--answer",
        "purpose=production",
        "--answer",
        "jit=none",
        "--answer",
        "tools=no",
        "--answer",
        "missing-lib=no",
        "--json",
    ]);
    assert_eq!(
        path_of(&json)[4],
        ("custom-cuda".into(), "yes".into(), "probe".into())
    );
    assert_eq!(
        json["path"][4]["evidence"][0],
        format!("{f}:4 (python setup.py bdist_wheel)")
    );
}

#[test]
fn host_driver_reads_the_kernel_module_and_nvidia_smi_on_a_host_only() {
    use lore::decide::probes::{Settled, find};
    use lore::probe::{Findings, Found, RootFacts};
    let host = |driver: bool, smi: bool, container: bool| Findings {
        root: Some(RootFacts {
            dir: "/".into(),
            live: true,
            container: Some(Found::new(container, "/.dockerenv")),
            driver: driver
                .then(|| Found::new("550.54.15".to_string(), "/proc/driver/nvidia/version:1")),
            nvidia_smi: smi
                .then(|| Found::new("/usr/bin/nvidia-smi".to_string(), "/usr/bin/nvidia-smi")),
            ..RootFacts::default()
        }),
        ..Findings::default()
    };
    let probe = find("host-driver").unwrap();
    let option = |f: &Findings| match probe.settle(f) {
        Settled::Answer { option, .. } => option,
        Settled::Unsure(why) => format!("unsure: {why}"),
    };
    assert_eq!(option(&host(true, true, false)), "yes");
    assert_eq!(option(&host(true, false, false)), "no");
    assert_eq!(option(&host(false, false, false)), "no");
    assert!(option(&host(true, true, true)).starts_with("unsure: this is a container"));
    let image = Findings {
        root: Some(RootFacts {
            dir: "/img".into(),
            ..RootFacts::default()
        }),
        ..Findings::default()
    };
    assert!(option(&image).starts_with("unsure: the driver is the host's"));
}

#[test]
fn the_transcript_records_probed_answers_with_evidence() {
    let r = root("pip-root");
    let home = home();
    let file = home.path().join("t.md");
    let out = lore(&home)
        .args([
            "decide",
            "need-cupti",
            "--probe",
            "--root",
            &r,
            "--answer",
            "pip-profiling=none",
            "--transcript",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = fs::read_to_string(&file).unwrap();
    assert!(md.contains("   - Probed from: `"), "{md}");
    assert!(
        md.contains("torch-2.5.1+cu124.dist-info/INSTALLER:1`"),
        "{md}"
    );
    assert_eq!(md.matches("Probed from").count(), 3, "{md}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("→ pip install torch from PyPI (Linux x86_64 wheel)  (probed)"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn hostile_roots_are_reported_and_the_rest_still_works() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = tempfile::tempdir().unwrap();
    let root_dir = dir.path().join("root");
    copy_tree(&fixture("probe/pip-root"), &root_dir);
    fs::write(
        dir.path().join("secret-version.py"),
        "__version__ = 'stolen'\n",
    )
    .unwrap();
    let site = root_dir.join("usr/local/lib/python3.11/site-packages");
    // torch/version.py leads out of the root.
    fs::remove_file(site.join("torch/version.py")).unwrap();
    symlink(
        "../../../../../../../secret-version.py",
        site.join("torch/version.py"),
    )
    .unwrap();
    // A sparse 1 GB METADATA.
    let meta =
        fs::File::create(site.join("nvidia_cuda_cupti_cu12-12.4.127.dist-info/METADATA")).unwrap();
    meta.set_len(1_000_000_000).unwrap();
    drop(meta);
    // os-release is a FIFO (opening it would block).
    fs::remove_file(root_dir.join("etc/os-release")).unwrap();
    rustix_mkfifo(&root_dir.join("etc/os-release"));
    // An unreadable dpkg status.
    let status = root_dir.join("var/lib/dpkg/status");
    fs::set_permissions(&status, fs::Permissions::from_mode(0o000)).unwrap();
    let privileged = fs::read(&status).is_ok();

    let r = root_dir.display().to_string();
    let (code, json, _) = json_of(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0, "{json}");
    let notes: Vec<String> = json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let has = |needle: &str| notes.iter().any(|n| n.contains(needle));
    assert!(
        has(&format!(
            "{r}/usr/local/lib/python3.11/site-packages/torch/version.py: symlink points outside the root"
        )),
        "{notes:#?}"
    );
    assert!(!json.to_string().contains("stolen"));
    assert!(
        has(
            "nvidia_cuda_cupti_cu12-12.4.127.dist-info/METADATA:1: no `Version:` header in the first 64 KiB (the file is 1.0 GB)"
        ),
        "{notes:#?}"
    );
    assert!(
        has(&format!("{r}/etc/os-release: not a regular file; not read")),
        "{notes:#?}"
    );
    if !privileged {
        assert!(
            has(&format!("{r}/var/lib/dpkg/status: cannot read")),
            "{notes:#?}"
        );
    }
    // Everything else is still found.
    assert_eq!(
        facts(&json, "nvidia-wheel")[0].0,
        "nvidia-cuda-cupti-cu12 12.4.127"
    );
    assert!(
        facts(&json, "torch").is_empty(),
        "nothing read from outside"
    );
    assert_eq!(facts(&json, "container")[0].0, "container");
    fs::set_permissions(&status, fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn hostile_dockerfiles_are_read_up_to_the_problem_and_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.Dockerfile");
    let mut text = String::from("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n");
    for i in 0..10_000 {
        text.push_str(&format!("RUN echo {i}\n"));
    }
    fs::write(&long, text).unwrap();
    let path = long.display().to_string();
    let (code, json, _) = json_of(&["probe", "--dockerfile", &path, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        json["notes"][0],
        format!(
            "{path}:5001: more than 5000 lines: not plausibly a Dockerfile; read the first 5000"
        )
    );
    assert!(facts(&json, "dockerfile.final-stage").is_empty());
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--dockerfile",
        &path,
        "--answer",
        "torch-install=source",
        "--answer",
        "source-linked=import-fails",
        "--json",
    ]);
    assert_eq!(
        json["question"]["id"], "final-base",
        "an incomplete file decides nothing"
    );
    assert!(
        json["probe"]["unsure"][0]
            .as_str()
            .unwrap()
            .contains("was not read to the end")
    );

    let binary = dir.path().join("binary.Dockerfile");
    fs::write(
        &binary,
        b"FROM ubuntu:22.04\nRUN pip install torch\n\x00\x01\x02ELF\n",
    )
    .unwrap();
    let path = binary.display().to_string();
    let (code, json, _) = json_of(&["probe", "--dockerfile", &path, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        json["notes"][0],
        format!(
            "{path}:3: binary data (byte 0x00 at column 1): not Dockerfile text; read up to the line before"
        )
    );
    assert_eq!(
        facts(&json, "dockerfile.install")[0].0,
        "stage 0: pip torch"
    );

    let (code, _, err) = json_of(&["probe", "--dockerfile", "/nonexistent/Dockerfile"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--dockerfile /nonexistent/Dockerfile: "),
        "{err}"
    );
    let (code, _, err) = json_of(&["probe", "--root", "/nonexistent-root"]);
    assert_eq!(code, 2);
    assert!(err.contains("--root /nonexistent-root: "), "{err}");
}

/// A Dockerfile saved by Windows Notepad or VS Code as "UTF-8 with BOM"
/// (EF BB BF before `FROM`) gave `(no facts found)`, exit 1 and no warning,
/// and `lore decide --probe` said it "was not read to the end". BuildKit
/// drops the BOM and builds it; lore reads it like the same file without.
#[test]
fn a_dockerfile_saved_with_a_utf8_bom_gives_the_facts_of_the_file_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN pip install torch==2.5.1\n";
    let plain = dir.path().join("plain.Dockerfile");
    let bom = dir.path().join("bom.Dockerfile");
    fs::write(&plain, text).unwrap();
    fs::write(&bom, [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat()).unwrap();
    let (plain, bom) = (plain.display().to_string(), bom.display().to_string());
    let (code, json, _) = json_of(&["probe", "--dockerfile", &bom, "--json"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["notes"], Value::Array(Vec::new()));
    let (_, without, _) = json_of(&["probe", "--dockerfile", &plain, "--json"]);
    let values = |json: &Value| -> Vec<(String, String)> {
        json["facts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["fact"].to_string(), f["value"].to_string()))
            .collect()
    };
    assert_eq!(values(&json), values(&without));
    assert_eq!(
        facts(&json, "dockerfile.stage")[0],
        (
            "stage 0: nvidia/cuda:12.4.1-devel-ubuntu22.04 (nvidia/cuda devel, CUDA 12.4.1, ubuntu22.04)"
                .into(),
            vec![format!("{bom}:1")]
        )
    );
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--dockerfile",
        &bom,
        "--json",
    ]);
    assert_eq!(
        path_of(&json)[0],
        ("torch-install".into(), "pip".into(), "probe".into())
    );
}

/// A file with no `FROM` (a fragment meant to be pasted into another, or
/// not a Dockerfile at all) was read to its end, yet decide said it "was not
/// read to the end": the reason it decides nothing is that it starts no
/// image.
#[test]
fn a_dockerfile_without_from_is_said_to_have_no_from() {
    let dir = tempfile::tempdir().unwrap();
    let fragment = dir.path().join("fragment.Dockerfile");
    fs::write(
        &fragment,
        "RUN pip install torch==2.5.1\nENV PATH=/opt/venv/bin:$PATH\n",
    )
    .unwrap();
    let path = fragment.display().to_string();
    let (_, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--dockerfile",
        &path,
        "--answer",
        "torch-install=source",
        "--answer",
        "source-linked=import-fails",
        "--json",
    ]);
    let unsure = json["probe"]["unsure"][0].as_str().unwrap();
    assert!(unsure.contains("has no FROM instruction"), "{unsure}");
    assert!(!unsure.contains("not read to the end"), "{unsure}");
}

/// `ARG CU=cu124` (or `ENV CU=cu124`) and `pip install torch==2.5.1
/// --index-url https://download.pytorch.org/whl/${CU}`: the index was taken
/// as written, so the wheel's build was "unknown" and `pip-wheel` stayed
/// open. It is expanded like the package spec, as the literal URL is read.
#[test]
fn an_index_url_built_from_a_build_arg_settles_the_pip_wheel() {
    let dir = tempfile::tempdir().unwrap();
    for (name, set, reference) in [
        ("arg", "ARG CU=cu124", "${CU}"),
        ("env", "ENV CU=cu124", "$CU"),
    ] {
        let file = dir.path().join(format!("{name}.Dockerfile"));
        fs::write(
            &file,
            format!(
                "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n{set}\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/{reference}\n"
            ),
        )
        .unwrap();
        let f = file.display().to_string();
        let (_, json, _) = json_of(&["probe", "--dockerfile", &f, "--json"]);
        assert_eq!(
            facts(&json, "dockerfile.torch")[0].0,
            "stage 0: torch==2.5.1 (pip, a CUDA build)",
            "{name}"
        );
        let (_, json, _) = json_of(&[
            "decide",
            "need-cupti",
            "--probe",
            "--dockerfile",
            &f,
            "--json",
        ]);
        assert_eq!(
            path_of(&json)[..2],
            [
                ("torch-install".into(), "pip".into(), "probe".into()),
                ("pip-wheel".into(), "cu12".into(), "probe".into()),
            ],
            "{name}: {json}"
        );
    }
}

/// issue #30 item 13: a Dockerfile over 4 MiB with few lines was cut at the
/// read limit without a word, and its final stage taken from the cut text.
/// Now the cut is a note with its line, and no final stage is concluded.
#[test]
fn a_dockerfile_over_the_byte_limit_is_cut_with_a_note_and_no_final_stage() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.Dockerfile");
    let mut text = String::from("FROM ubuntu:22.04\nRUN echo ");
    text.push_str(&"x".repeat(4 * 1024 * 1024));
    text.push_str("\nFROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n");
    fs::write(&big, text).unwrap();
    let path = big.display().to_string();
    let (code, json, _) = json_of(&["probe", "--dockerfile", &path, "--json"]);
    assert_eq!(code, 0);
    let note = json["notes"][0].as_str().unwrap_or("");
    assert!(
        note.starts_with(&format!("{path}:2: more than 4 MiB")),
        "{json}"
    );
    assert!(facts(&json, "dockerfile.final-stage").is_empty(), "{json}");
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[cfg(unix)]
fn rustix_mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// The TUI: `p` on a question asks for a probe run (an effect the event loop
/// hands to the probe worker), and the findings fill in what they settle,
/// marked as probed; Backspace still changes a probed answer.
#[test]
fn the_tui_probe_key_fills_in_probed_answers() {
    use std::sync::Arc;

    use lore::decide::Step;
    use lore::tui::action::Action;
    use lore::tui::app::Effect;

    let mut app = common::shipped_app(lore::theme::Theme::plain(), 100, 30);
    app.update(Action::Trees);
    let n = app
        .trees
        .list
        .iter()
        .position(|t| t.id == "need-cupti")
        .unwrap();
    app.update(Action::Choose(n + 1));
    let key = app
        .action_for_key(lore::tui::keymap::Key::Char('p'))
        .unwrap();
    assert_eq!(key, Action::Probe);
    app.update(key);
    assert_eq!(app.take_effects(), vec![Effect::Probe]);

    let findings = lore::probe::run(&lore::probe::ProbeOptions {
        root: Some(fixture("probe/pip-root")),
        dockerfile: None,
        dockerfile_line: None,
    })
    .unwrap();
    app.update(Action::Probed(Ok(Arc::new(findings))));
    let walk = app.trees.walk.as_ref().unwrap();
    assert_eq!(
        walk.session.path(),
        [
            ("torch-install".to_string(), "pip".to_string()),
            ("pip-wheel".to_string(), "cu12".to_string()),
            ("pip-import".to_string(), "works".to_string())
        ]
    );
    assert!(walk.session.sources().iter().all(|s| s.is_probe()));
    assert!(matches!(walk.session.current(), Step::Question(q) if q.id == "pip-profiling"));

    app.update(Action::HistoryBack);
    let walk = app.trees.walk.as_ref().unwrap();
    assert_eq!(walk.session.path().len(), 2);
}

/// issue #27 item 5: once the probes have run, a walk takes their answer at
/// every question it reaches, also after a question the user answered:
/// here the final base, two questions after the probe key was pressed.
#[test]
fn the_tui_walk_takes_probed_answers_after_the_users_own() {
    use std::sync::Arc;

    use lore::decide::Step;
    use lore::tui::action::Action;

    let mut app = common::shipped_app(lore::theme::Theme::plain(), 100, 30);
    app.update(Action::Trees);
    let n = app
        .trees
        .list
        .iter()
        .position(|t| t.id == "need-cupti")
        .unwrap();
    app.update(Action::Choose(n + 1));
    app.update(Action::Probe);
    let findings = lore::probe::run(&lore::probe::ProbeOptions {
        root: None,
        dockerfile: Some(fixture("probe/source-build.Dockerfile").into()),
        dockerfile_line: None,
    })
    .unwrap();
    app.update(Action::Probed(Ok(Arc::new(findings))));
    let walk = app.trees.walk.as_ref().unwrap();
    assert_eq!(
        walk.session.path(),
        [("torch-install".to_string(), "source".to_string())]
    );
    // source-linked has no probe: the user answers "import fails" (1).
    app.update(Action::Choose(1));
    let walk = app.trees.walk.as_ref().unwrap();
    assert_eq!(
        walk.session.path()[1..],
        [
            ("source-linked".to_string(), "import-fails".to_string()),
            ("final-base".to_string(), "runtime".to_string()),
        ]
    );
    assert!(walk.session.sources()[2].is_probe());
    assert!(matches!(walk.session.current(), Step::Question(q) if q.id == "apt-reachable"));
}

/// A walk saved with probed answers resumes with them still marked as probed
/// and their evidence, so the transcript written later still says so.
#[test]
fn saved_walks_keep_probed_answers_and_their_evidence() {
    use lore::decide::{AnswerSource, Session, SessionStore};
    let corpus = lore::corpus::Corpus::load(&lore::sources::SourceSet {
        builtin: Some(&lore::sources::BUILTIN_KNOWLEDGE),
        overlays: vec![],
    });
    let (trees, _) = lore::decide::load_trees(
        &lore::sources::SourceSet {
            builtin: Some(&lore::sources::BUILTIN_TREES),
            overlays: vec![],
        },
        &corpus,
    );
    let tree = lore::decide::find_tree(&trees, "need-cupti").unwrap();
    let mut session = Session::new(tree);
    let probed = AnswerSource::Probe {
        evidence: vec![
            "/venv/lib/python3.11/site-packages/torch-2.5.1.dist-info/INSTALLER:1".into(),
        ],
    };
    session
        .answer_from("torch-install", "pip", probed.clone())
        .unwrap();
    session.answer("pip-wheel", "cu12").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.save(&session).unwrap();
    let resumed = store.resume(tree).unwrap().unwrap().session;
    assert_eq!(resumed.path(), session.path());
    assert_eq!(resumed.sources(), [probed, AnswerSource::User]);
}

/// Every Dockerfile under `tests/fixtures/probe/dockerfiles/` reproduces a
/// pattern seen in real Dockerfiles (BuildKit mounts, shell control flow,
/// build arguments, dnf, uv, dependencies that bring torch, local wheels,
/// CUDA extensions, known base images) and states, in its header, what the
/// probes must conclude: `# expect: PROBE = OPTION`, `# expect: PROBE
/// unsure`, and `# expect-fact: FACT = VALUE` for a fact `lore probe`
/// prints. None may be answered with confidence where the file cannot tell.
#[test]
fn dockerfile_patterns_settle_what_the_file_shows_and_nothing_more() {
    use lore::decide::probes::{Settled, find};
    use lore::probe::{Findings, parse_dockerfile};
    let dir = fixture("probe/dockerfiles");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(&path).unwrap();
        let (parsed, notes) = parse_dockerfile(&name, &bytes);
        assert!(notes.is_empty(), "{name}: {notes:?}");
        let facts = parsed.facts();
        let findings = Findings {
            dockerfile: Some(parsed),
            ..Findings::default()
        };
        let text = String::from_utf8(bytes).unwrap();
        let mut expectations = 0;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# expect-fact: ") {
                expectations += 1;
                let (fact, value) = rest.split_once(" = ").unwrap();
                if !facts.iter().any(|f| f.fact == fact && f.value == value) {
                    let same: Vec<&str> = facts
                        .iter()
                        .filter(|f| f.fact == fact)
                        .map(|f| f.value.as_str())
                        .collect();
                    failures.push(format!("{name}: no fact {fact} = {value}; have {same:?}"));
                }
            } else if let Some(rest) = line.strip_prefix("# expect: ") {
                expectations += 1;
                let (probe, want) = match rest.split_once(" = ") {
                    Some((probe, option)) => (probe, Some(option)),
                    None => (rest.strip_suffix(" unsure").unwrap(), None),
                };
                let settled = find(probe).unwrap().settle(&findings);
                let ok = match (&settled, want) {
                    (Settled::Answer { option, .. }, Some(want)) => option == want,
                    (Settled::Unsure(_), None) => true,
                    _ => false,
                };
                if !ok {
                    failures.push(format!(
                        "{name}: {probe} expected {}, got {settled:?}",
                        want.unwrap_or("unsure")
                    ));
                }
            }
        }
        assert!(expectations > 0, "{name} states no expectation");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `lore probe` prints the size of /dev/shm with its unit, as a reader
/// needs it; JSON keeps the bare number that a cause's `check` compares
/// (`shm.size <= 64`).
#[test]
fn the_size_of_dev_shm_is_printed_with_its_unit() {
    let dir = tempfile::tempdir().unwrap();
    let proc = dir.path().join("proc/self");
    fs::create_dir_all(&proc).unwrap();
    fs::write(
        proc.join("mounts"),
        "overlay / overlay rw,relatime 0 0\nshm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n",
    )
    .unwrap();
    let r = dir.path().display().to_string();
    let home = home();
    let out = lore(&home)
        .args(["probe", "--root", &r, "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("shm.size"))
        .unwrap_or_else(|| panic!("no shm.size line in:\n{text}"));
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["shm.size", "64", "MiB"]
    );
    let (_, json, _) = json_of(&["probe", "--root", &r, "--json"]);
    assert_eq!(facts(&json, "shm.size")[0].0, "64");
}

/// The facts and the settled probes of a Dockerfile's text, read by the
/// library as `lore probe --dockerfile` and `decide --probe` read it.
fn dockerfile_outcome(
    text: &str,
    probes: &[&str],
) -> (Vec<(String, String)>, Vec<lore::decide::probes::Settled>) {
    use lore::decide::probes::find;
    use lore::probe::{Findings, parse_dockerfile};
    let (parsed, notes) = parse_dockerfile("Dockerfile", text.as_bytes());
    assert!(notes.is_empty(), "{notes:?}");
    let facts = parsed
        .facts()
        .into_iter()
        .map(|f| (f.fact.to_string(), f.value))
        .collect();
    let findings = Findings {
        dockerfile: Some(parsed),
        ..Findings::default()
    };
    let settled = probes
        .iter()
        .map(|p| find(p).unwrap().settle(&findings))
        .collect();
    (facts, settled)
}

fn values_of<'a>(facts: &'a [(String, String)], fact: &str) -> Vec<&'a str> {
    facts
        .iter()
        .filter(|(f, _)| f == fact)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// vLLM's Dockerfile picks the PyTorch index with a command substitution:
/// `--index-url …/whl/cu$(echo $CUDA_VERSION | cut -d. -f1,2 | tr -d '.')
/// torch==2.5.1`. The `(` cut the command there, torch vanished, and decide
/// said "no torch install in the final stage". The substitution is one word
/// (so is a backtick one, and one inside double quotes); its output is not
/// known, so the wheel's build is unknown, never a guess.
#[test]
fn a_pip_index_url_built_by_command_substitution_keeps_the_packages_after_it() {
    use lore::decide::probes::Settled;
    let suffixes = [
        "cu$(echo $CUDA_VERSION | cut -d. -f1,2 | tr -d '.')",
        "cu$(python3 -c \"print(124)\")",
        "\"cu$(echo \"$CUDA_VERSION\" | tr -d .)\"",
        "cu`echo $CUDA_VERSION | tr -d .`",
        "cu$(( 12 * 10 + 4 ))",
    ];
    for suffix in suffixes {
        let text = format!(
            "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nARG CUDA_VERSION=12.4.1\n\
             RUN pip install --index-url https://download.pytorch.org/whl/{suffix} torch==2.5.1 \\\n  && echo done\n"
        );
        let (facts, settled) = dockerfile_outcome(&text, &["torch-install", "torch-wheel"]);
        assert_eq!(
            values_of(&facts, "dockerfile.install"),
            ["stage 0: pip torch==2.5.1"],
            "{suffix}"
        );
        assert_eq!(
            values_of(&facts, "dockerfile.torch"),
            ["stage 0: torch==2.5.1 (pip)"],
            "{suffix}"
        );
        assert!(
            matches!(&settled[0], Settled::Answer { option, .. } if option == "pip"),
            "{suffix}: {:?}",
            settled[0]
        );
        match &settled[1] {
            Settled::Unsure(why) => assert!(why.contains("Dockerfile:3"), "{suffix}: {why}"),
            other => panic!("{suffix}: torch-wheel settled {other:?}"),
        }
    }
    // The packages of a list built by a substitution are not known.
    let (facts, _) = dockerfile_outcome(
        "FROM python:3.11\nRUN pip install $(cat /tmp/packages.txt) numpy\n",
        &[],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        ["stage 0: pip numpy $(cat /tmp/packages.txt)"]
    );
    // A plain subshell still separates commands.
    let (facts, _) = dockerfile_outcome(
        "FROM python:3.11\nRUN (cd /src && pip install numpy) && pip install torch==2.5.1\n",
        &[],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        ["stage 0: pip numpy", "stage 0: pip torch==2.5.1"]
    );
}

/// Option values read as packages: TGI's `uv sync --frozen --extra gen
/// --extra bnb …` listed `gen` and `bnb` as installed, and `uv sync
/// --no-install-package torch` (an exclusion) was probed as "torch installed
/// with pip"; `pip install --progress-bar off --timeout 100 --no-binary :all:
/// numpy` listed `off`, `100` and `:all:`. `uv sync` installs the locked
/// dependencies, never named packages.
#[test]
fn option_values_of_pip_and_uv_are_not_packages() {
    use lore::decide::probes::Settled;
    let (facts, settled) = dockerfile_outcome(
        "FROM python:3.11-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.5.31 /uv /bin/\n\
         RUN uv sync --frozen --no-install-package torch --extra cpu\n",
        &["torch-install"],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        ["stage 0: uv sync (uv.lock) except torch"]
    );
    assert!(
        values_of(&facts, "dockerfile.torch").is_empty(),
        "{facts:?}"
    );
    assert!(
        !matches!(&settled[0], Settled::Answer { .. }),
        "{:?}",
        settled[0]
    );
    let (facts, settled) = dockerfile_outcome(
        "FROM python:3.11-slim\n\
         RUN uv sync --frozen --extra gen --extra bnb --group dev --only-group=test \\\n\
         \x20   --package app --upgrade-package torch -P numpy --reinstall-package x \\\n\
         \x20   --no-build-package y --index-strategy unsafe-best-match --python-platform linux \\\n\
         \x20   --extra torch --no-install-project --active\n",
        &["torch-install"],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        ["stage 0: uv sync (uv.lock)"]
    );
    assert_eq!(
        values_of(&facts, "dockerfile.torch"),
        ["stage 0: torch may come from a dependency, version unknown: uv sync (uv.lock)"]
    );
    assert!(
        matches!(&settled[0], Settled::Unsure(_)),
        "{:?}",
        settled[0]
    );
    let (facts, _) = dockerfile_outcome(
        "FROM python:3.11\n\
         RUN pip --timeout 60 install --progress-bar off --timeout 100 --retries 3 \\\n\
         \x20   --no-binary :all: --only-binary=:none: --log /tmp/pip.log --exists-action w \\\n\
         \x20   --proxy http://proxy:3128 --report /tmp/r.json --global-option build_ext \\\n\
         \x20   -C key=value --root-user-action ignore --use-feature truststore numpy\n\
         RUN uv pip install --system --extra cu124 --no-binary torch --resolution lowest \\\n\
         \x20   --prerelease allow --link-mode copy --exclude-newer 2025-01-01 --keyring-provider subprocess \\\n\
         \x20   -p 3.11 --python-platform x86_64-manylinux_2_28 --override o.txt scipy\n\
         RUN uv add --optional gpu --bounds major --rev main --no-binary pandas\n\
         RUN pip install --group dev\n",
        &[],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        [
            "stage 0: pip numpy",
            "stage 0: uv scipy",
            "stage 0: uv pandas",
            "stage 0: pip --group dev"
        ]
    );
}

/// An NGC PyTorch base (TensorRT-LLM's `Dockerfile.multi`): the stage line
/// said "an image lore does not classify" while the next line and decide
/// named it NGC PyTorch. Every line now names the image table's family.
#[test]
fn an_ngc_pytorch_base_is_named_the_same_on_every_line() {
    let (facts, _) = dockerfile_outcome(
        "ARG B=nvcr.io/nvidia/pytorch\nFROM ${B}:24.05-py3 AS base\nFROM base AS release\n",
        &[],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.stage")[0],
        "stage 0 (base): nvcr.io/nvidia/pytorch:24.05-py3 (NGC PyTorch)"
    );
    assert_eq!(
        values_of(&facts, "dockerfile.final-stage"),
        ["stage 1 (release): NGC PyTorch"]
    );
    assert!(
        !facts.iter().any(|(_, v)| v.contains("does not classify")),
        "{facts:?}"
    );
    let (facts, _) = dockerfile_outcome("FROM example.com/team/base:1\n", &[]);
    assert_eq!(
        values_of(&facts, "dockerfile.final-stage"),
        ["stage 0: an image lore does not classify"]
    );
}

/// TensorRT-LLM's release stage: `ARG CPP_BUILD_DIR=/src/…/build` then
/// `COPY --from=wheel ${CPP_BUILD_DIR}/tensorrt_llm/libtensorrt_llm.so lib/`
/// printed the ARG unexpanded. Sources are expanded as the rest of the
/// probe expands ARG and ENV; an ARG with no value stays as written.
#[test]
fn copy_from_sources_expand_the_stage_args() {
    let (facts, _) = dockerfile_outcome(
        "FROM python:3.11 AS wheel\nFROM python:3.11 AS release\n\
         ARG CPP_BUILD_DIR=/src/cpp/build\nARG OTHER\nENV LIB=lib\n\
         COPY --from=wheel ${CPP_BUILD_DIR}/libx.so $OTHER/liby.so ${LIB}/\n",
        &[],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.copy-from"),
        ["stage 1 (release) from wheel: /src/cpp/build/libx.so $OTHER/liby.so lib/"]
    );
}

/// PyTorch's own Dockerfile picks the wheel index with `case
/// ${TARGETPLATFORM} in "linux/arm64") pip install … whl/cpu/ torch ;; *)
/// pip install … whl/cu124/ torch ;; esac`: each build runs one arm, yet
/// lore stated both installs as facts of the stage ("a CPU build" among
/// them). An install inside an arm is conditional and says so; arms that
/// agree (pip in both) still settle the route, arms that differ (a CPU and
/// a CUDA wheel) leave the build open; a command after `esac &&` is not
/// conditional.
#[test]
fn a_case_on_targetplatform_installs_torch_in_one_branch_only() {
    use lore::decide::probes::Settled;
    let text = "FROM python:3.11-slim\n\
                ARG TARGETPLATFORM\n\
                RUN case ${TARGETPLATFORM} in \\\n\
                \x20     \"linux/arm64\") pip install --extra-index-url https://download.pytorch.org/whl/cpu/ torch torchvision ;; \\\n\
                \x20     *) pip install --index-url https://download.pytorch.org/whl/cu124/ torch torchvision ;; \\\n\
                \x20   esac && \\\n\
                \x20   apt-get install -y git\n";
    let (facts, settled) = dockerfile_outcome(text, &["torch-install", "torch-wheel"]);
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        [
            "stage 0: pip torch torchvision (in one branch of a case)",
            "stage 0: pip torch torchvision (in one branch of a case)",
            "stage 0: apt-get git",
        ]
    );
    assert_eq!(
        values_of(&facts, "dockerfile.torch"),
        [
            "stage 0: torch (pip, a CPU build; in one branch of a case)",
            "stage 0: torch (pip, a CUDA build; in one branch of a case)",
        ]
    );
    // Every arm installs with pip: the route is settled, each arm its
    // evidence. The arms' wheels differ (CPU, CUDA): which one is not.
    match &settled[0] {
        Settled::Answer { option, evidence } => {
            assert_eq!(option, "pip");
            assert!(
                evidence
                    .iter()
                    .all(|e| e.contains("in one branch of a case")),
                "{evidence:?}"
            );
        }
        other => panic!("torch-install: {other:?}"),
    }
    assert!(matches!(settled[1], Settled::Unsure(_)), "{:?}", settled[1]);

    // `lore decide need-cupti --probe --dockerfile` answers the route and
    // stops at the wheel's build.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Dockerfile");
    fs::write(&path, text).unwrap();
    let f = path.display().to_string();
    let (code, json, _) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--dockerfile",
        &f,
        "--json",
    ]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["question"]["id"], "pip-wheel", "{json}");
}

/// A build argument picks the CUDA or the CPU index in an `if … then …
/// elif … else … fi`: every branch's install is conditional (the condition
/// after `if` is not); the route they share (pip) is settled, the wheel's
/// build they differ on is not.
#[test]
fn an_if_else_on_a_build_arg_choosing_a_cuda_or_cpu_index_is_conditional() {
    use lore::decide::probes::Settled;
    let text = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
                ARG DEVICE=cuda\n\
                RUN if pip install numpy && [ \"$DEVICE\" = cpu ]; then \\\n\
                \x20     pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cpu; \\\n\
                \x20   elif [ \"$DEVICE\" = rocm ]; then \\\n\
                \x20     pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.2; \\\n\
                \x20   else \\\n\
                \x20     pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124 && make; \\\n\
                \x20   fi; pip install einops\n";
    let (facts, settled) = dockerfile_outcome(text, &["torch-install", "torch-wheel"]);
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        [
            "stage 0: pip numpy",
            "stage 0: pip torch==2.5.1 (in one branch of an if)",
            "stage 0: pip torch==2.5.1 (in one branch of an if)",
            "stage 0: pip torch==2.5.1 (in one branch of an if)",
            "stage 0: pip einops",
        ]
    );
    assert_eq!(
        values_of(&facts, "dockerfile.build"),
        ["stage 0: make (in one branch of an if)"]
    );
    assert_eq!(
        values_of(&facts, "dockerfile.torch")[0],
        "stage 0: torch==2.5.1 (pip, a CPU build; in one branch of an if)"
    );
    // pip in every branch settles the route; the CPU, ROCm and CUDA
    // indexes leave the wheel's build open.
    assert!(
        matches!(&settled[0], Settled::Answer { option, .. } if option == "pip"),
        "{:?}",
        settled[0]
    );
    assert!(matches!(settled[1], Settled::Unsure(_)), "{:?}", settled[1]);
}

/// `cmd1 && cmd2` and `cmd1 || cmd2` are no branches for the facts: both
/// installs stay unconditional and settle what they show.
#[test]
fn a_plain_and_chain_stays_unconditional() {
    use lore::decide::probes::Settled;
    let (facts, settled) = dockerfile_outcome(
        "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
         RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124 \\\n\
         \x20 && apt-get install -y cuda-nvcc-12-4 || true\n",
        &["torch-install", "torch-wheel"],
    );
    assert_eq!(
        values_of(&facts, "dockerfile.install"),
        [
            "stage 0: pip torch==2.5.1",
            "stage 0: apt-get cuda-nvcc-12-4"
        ]
    );
    assert_eq!(
        values_of(&facts, "dockerfile.torch"),
        ["stage 0: torch==2.5.1 (pip, a CUDA build)"]
    );
    let options: Vec<&str> = settled
        .iter()
        .map(|s| match s {
            Settled::Answer { option, .. } => option.as_str(),
            Settled::Unsure(why) => panic!("unsure: {why}"),
        })
        .collect();
    assert_eq!(options, ["pip", "cu12"]);
}

/// The wheel's build is read the way the Dockerfile's `torch` facts read
/// it. Before, `torch-wheel` parsed the spec again on its own: a `+cu92`
/// build was skipped, so decide said there was no `pip install torch` at
/// all; of two CUDA indexes it took the first, though pip takes the best
/// wheel of both; a ROCm index read as "no build named".
#[test]
fn the_torch_wheel_probe_reads_old_cuda_builds_two_indexes_and_rocm_plainly() {
    use lore::decide::probes::Settled;
    let unsure = |text: &str| {
        let (_, settled) = dockerfile_outcome(text, &["torch-wheel"]);
        match &settled[0] {
            Settled::Unsure(why) => why.clone(),
            other => panic!("{text}: {other:?}"),
        }
    };
    let why = unsure(
        "FROM nvidia/cuda:9.2-runtime-ubuntu18.04\n\
         RUN pip install torch==1.7.1+cu92 -f https://download.pytorch.org/whl/torch_stable.html\n",
    );
    assert!(
        why.contains("Dockerfile:2") && why.contains("CUDA 9.2"),
        "{why}"
    );
    let why = unsure(
        "FROM python:3.12\n\
         RUN pip install torch==2.9.0 --extra-index-url https://download.pytorch.org/whl/cu126 \\\n\
         \x20   --extra-index-url https://download.pytorch.org/whl/cu130\n",
    );
    assert!(why.contains("more than one CUDA index"), "{why}");
    let why = unsure(
        "FROM python:3.12\n\
         RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n",
    );
    assert!(why.contains("ROCm"), "{why}");
    // A wheel file named for CUDA 11.8 has the CUDA 12 layout's family; the
    // CUDA 13 index its own.
    for (text, family) in [
        (
            "FROM python:3.10\nRUN pip install /wheels/torch-2.1.0+cu118-cp310-cp310-linux_x86_64.whl\n",
            "cu12",
        ),
        (
            "FROM python:3.12\nRUN pip install torch==2.9.0 --index-url https://download.pytorch.org/whl/cu130\n",
            "cu13",
        ),
        (
            "FROM python:3.12\nRUN pip install torch==2.9.0+cpu -f https://download.pytorch.org/whl/torch_stable.html\n",
            "cpu",
        ),
    ] {
        let (_, settled) = dockerfile_outcome(text, &["torch-wheel"]);
        assert!(
            matches!(&settled[0], Settled::Answer { option, .. } if option == family),
            "{text}: {:?}",
            settled[0]
        );
    }
}

/// `container-toolkit` (the container-gpu tree's "is the NVIDIA Container
/// Toolkit installed on the host?") reads dpkg's status on the host: the
/// package listed is a yes, with its line and version; other NVIDIA packages
/// listed without it a no; no NVIDIA package at all (no dpkg, a runfile
/// driver, an RPM host) leaves it open, as does a container or an image.
#[test]
fn container_toolkit_is_read_from_the_hosts_dpkg_status() {
    use lore::decide::probes::{Settled, find};
    use lore::probe::{AptPackage, Findings, Found, RootFacts};
    let package = |name: &str, version: &str, line: usize| {
        Found::new(
            AptPackage {
                name: name.into(),
                version: version.into(),
            },
            format!("/var/lib/dpkg/status:{line}"),
        )
    };
    let settle = |root: RootFacts| {
        find("container-toolkit").unwrap().settle(&Findings {
            root: Some(root),
            ..Findings::default()
        })
    };
    let host = |apt| RootFacts {
        dir: "/".into(),
        live: true,
        apt,
        ..RootFacts::default()
    };
    match settle(host(vec![
        package("nvidia-driver-570", "570.124.06-0ubuntu1", 812),
        package("nvidia-container-toolkit", "1.18.2-1", 4410),
    ])) {
        Settled::Answer { option, evidence } => {
            assert_eq!(option, "yes");
            assert_eq!(
                evidence,
                ["/var/lib/dpkg/status:4410 (nvidia-container-toolkit 1.18.2-1)"]
            );
        }
        other => panic!("{other:?}"),
    }
    match settle(host(vec![package(
        "nvidia-driver-570",
        "570.124.06-0ubuntu1",
        812,
    )])) {
        Settled::Answer { option, evidence } => {
            assert_eq!(option, "no");
            assert!(
                evidence[0].starts_with("/var/lib/dpkg/status: 1 NVIDIA packages"),
                "{evidence:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(settle(host(Vec::new())), Settled::Unsure(_)));
    let mut inside = host(vec![package("nvidia-container-toolkit", "1.18.2-1", 4410)]);
    inside.container = Some(Found::new(true, "/.dockerenv"));
    assert!(matches!(settle(inside), Settled::Unsure(_)));
    let mut image = host(vec![package("nvidia-container-toolkit", "1.18.2-1", 4410)]);
    image.live = false;
    assert!(matches!(settle(image), Settled::Unsure(_)));
}

/// The container engines a root has installed: the docker package's
/// command, the docker snap's `/snap/bin/docker`, Podman's. `lore probe`
/// lists each; `container-engine` (container-gpu's "what starts the
/// container?") answers on the host when there is exactly one kind, and
/// asks when there are several or none (a Kubernetes node is the user's to
/// say).
#[test]
fn container_engines_are_listed_and_one_kind_answers_on_the_host() {
    use lore::decide::probes::{Settled, find};
    use lore::probe::{Findings, Found, RootFacts};
    let dir = tempfile::tempdir().unwrap();
    for path in ["snap/bin/docker", "usr/bin/podman"] {
        let file = dir.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, "#!/bin/sh\n").unwrap();
    }
    let r = dir.path().display().to_string();
    let (code, json, _) = json_of(&["probe", "--root", &r, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        facts(&json, "container-engine"),
        [
            ("docker-snap".into(), vec![format!("{r}/snap/bin/docker")]),
            ("podman".into(), vec![format!("{r}/usr/bin/podman")]),
        ]
    );

    let settle = |engines: &[(&str, &str)]| {
        let root = RootFacts {
            dir: "/".into(),
            live: true,
            engines: engines
                .iter()
                .map(|(kind, path)| Found::new(kind.to_string(), *path))
                .collect(),
            ..RootFacts::default()
        };
        find("container-engine").unwrap().settle(&Findings {
            root: Some(root),
            ..Findings::default()
        })
    };
    match settle(&[
        ("docker", "/usr/bin/docker"),
        ("docker", "/usr/local/bin/docker"),
    ]) {
        Settled::Answer { option, evidence } => {
            assert_eq!(option, "docker");
            assert_eq!(evidence, ["/usr/bin/docker", "/usr/local/bin/docker"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        settle(&[("docker-snap", "/snap/bin/docker")]),
        Settled::Answer { option, .. } if option == "docker-snap"
    ));
    match settle(&[
        ("docker", "/usr/bin/docker"),
        ("docker-snap", "/snap/bin/docker"),
    ]) {
        Settled::Unsure(why) => assert!(why.contains("docker, docker-snap"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(settle(&[]), Settled::Unsure(_)));
}
