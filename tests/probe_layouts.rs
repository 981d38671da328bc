//! Probes on layouts seen in the field: the H100 machine of issue #27 (uv's
//! venv under /opt, CUDA 13's suffixless wheels in `nvidia/cu13/lib`,
//! Triton's own CUPTI, a toolkit from NVIDIA's apt repository without
//! `version.json`), conda environments listed in `environments.txt`, the
//! venvs of poetry, pipenv and uv, Debian's own toolkit, and the disputes
//! where two files disagree. Each fixture root under
//! `tests/fixtures/probe/` reproduces one pattern with files written for it.

mod common;

use std::fs;
use std::path::Path;

use common::{facts, fixture, home, lore, values};
use lore::probe::{Environment, Findings, ProbeOptions, run_with};
use serde_json::Value;

fn json_of(args: &[&str]) -> (i32, Value) {
    let home = home();
    let out = lore(&home).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(&stdout).unwrap_or(Value::Null),
    )
}

fn root(name: &str) -> String {
    fixture(&format!("probe/{name}")).display().to_string()
}

fn probe_root(r: &str) -> Value {
    let (code, json) = json_of(&["probe", "--root", r, "--json"]);
    assert_eq!(code, 0, "{json}");
    json
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

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

const H100_SITE: &str = "/opt/torch/.venv/lib/python3.12/site-packages";

/// Issue #27's H100: torch 2.11.0+cu130 installed by uv into
/// /opt/torch/.venv, found by the bounded search of an unpacked image.
#[test]
fn h100_uv_venv_under_opt_gives_torch_its_cuda_and_install_method() {
    let r = root("h100-root");
    let json = probe_root(&r);
    let site = format!("{r}{H100_SITE}");
    assert_eq!(
        facts(&json, "torch"),
        [(
            "2.11.0+cu130".into(),
            vec![format!("{site}/torch/version.py:4")]
        )]
    );
    assert_eq!(
        facts(&json, "torch.cuda"),
        [("13.0".into(), vec![format!("{site}/torch/version.py:6")])]
    );
    assert_eq!(
        facts(&json, "torch.install"),
        [(
            "wheel (uv)".into(),
            vec![format!("{site}/torch-2.11.0.dist-info/INSTALLER:1")]
        )]
    );
    assert!(
        facts(&json, "python-env").contains(&(
            format!("{r}/opt/torch/.venv (venv (uv))"),
            vec![format!("search under {r}/opt")]
        )),
        "{:#?}",
        facts(&json, "python-env")
    );
}

/// CUDA 13's wheels have no `-cu13` suffix and share `nvidia/cu13/lib`; their
/// RECORD says which library is whose. `nvidia-ml-py` installs no library
/// and is not one of them; `cuda-toolkit` is the metapackage.
#[test]
fn h100_cuda13_suffixless_wheels_and_their_libraries() {
    let r = root("h100-root");
    let json = probe_root(&r);
    let site = format!("{r}{H100_SITE}");
    let wheels = values(&json, "nvidia-wheel");
    assert!(wheels.contains(&"nvidia-cuda-cupti 13.0.85".to_string()));
    assert!(wheels.contains(&"nvidia-cufft 12.0.0.61".to_string()));
    assert!(wheels.contains(&"nvidia-cudnn-cu13 9.19.0.56".to_string()));
    assert!(
        !wheels.iter().any(|w| w.starts_with("nvidia-ml-py")),
        "{wheels:?}"
    );
    assert_eq!(wheels.len(), 15, "{wheels:?}");
    let libs = facts(&json, "nvidia-wheel.libs");
    assert!(
        libs.contains(&(
            "libcupti.so.13 libnvperf_host.so libnvperf_target.so libpcsamplingutil.so libcheckpoint.so"
                .into(),
            vec![
                format!("{site}/nvidia/cu13/lib"),
                format!("{site}/nvidia_cuda_cupti-13.0.85.dist-info/RECORD"),
            ]
        )),
        "{libs:#?}"
    );
    assert!(facts(&json, "nvidia-wheel.missing").is_empty());
    assert_eq!(
        facts(&json, "cuda-toolkit-wheel"),
        [(
            "13.0.2".into(),
            vec![format!("{site}/cuda_toolkit-13.0.2.dist-info")]
        )]
    );
}

/// CUPTI from the wheel, from Triton's bundled copy, and from the toolkit,
/// each named for what it is.
#[test]
fn h100_cupti_from_the_wheel_triton_and_the_toolkit() {
    let r = root("h100-root");
    let json = probe_root(&r);
    let site = format!("{r}{H100_SITE}");
    let cupti = values(&json, "libcupti");
    for expected in [
        format!("{site}/nvidia/cu13/lib/libcupti.so.13 (wheel)"),
        format!("{site}/triton/backends/nvidia/lib/cupti/libcupti.so.12 (triton)"),
    ] {
        assert!(cupti.contains(&expected), "{expected}\n{cupti:#?}");
    }
    // The toolkit's, by whichever of its linked names is listed first.
    assert!(
        cupti
            .iter()
            .any(|c| c.starts_with(&format!("{r}/usr/local/cuda"))
                && c.ends_with("/libcupti.so.13 (toolkit)")),
        "{cupti:#?}"
    );
}

/// The toolkit from NVIDIA's apt repository has no version.json: its version
/// comes from include/cuda.h and agrees with the dpkg record of
/// cuda-nvcc-13-0; /usr/local/cuda and cuda-13 lead through
/// /etc/alternatives to the same folder, named once.
#[test]
fn h100_toolkit_version_from_cuda_h_and_dpkg_with_nvcc() {
    let r = root("h100-root");
    let json = probe_root(&r);
    let status = format!("{r}/var/lib/dpkg/status");
    let line = fs::read_to_string(&status)
        .unwrap()
        .lines()
        .position(|l| l == "Package: cuda-nvcc-13-0")
        .unwrap()
        + 1;
    assert_eq!(
        facts(&json, "cuda-toolkit"),
        [(
            format!("{r}/usr/local/cuda-13.0 13.0"),
            vec![
                format!("{r}/usr/local/cuda-13.0/include/cuda.h:8 (CUDA_VERSION 13000)"),
                format!("{status}:{line} (cuda-nvcc-13-0 13.0.88-1)"),
            ]
        )]
    );
    assert_eq!(
        values(&json, "nvcc"),
        [format!("{r}/usr/local/cuda-13.0/bin/nvcc")]
    );
}

/// `lore decide need-cupti --probe` on the H100's files settles how torch
/// got there and that it imports (CUPTI 13 from its wheel), and asks only
/// which profiling the user will run.
#[test]
fn need_cupti_on_the_h100_root_asks_only_what_no_file_can_tell() {
    let r = root("h100-root");
    let (code, json) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(
        path_of(&json),
        [
            ("torch-install".into(), "pip".into(), "probe".into()),
            ("pip-wheel".into(), "cu13".into(), "probe".into()),
            ("pip-import-13".into(), "works".into(), "probe".into()),
        ]
    );
    assert_eq!(
        json["path"][2]["evidence"][0],
        format!("{r}{H100_SITE}/nvidia/cu13/lib/libcupti.so.13")
    );
    assert_eq!(json["question"]["id"], "pip-profiling-13");
    let (_, json) = json_of(&[
        "decide",
        "need-cupti",
        "--probe",
        "--root",
        &r,
        "--answer",
        "pip-profiling-13=torch-profiler",
        "--json",
    ]);
    assert_eq!(json["status"], "outcome", "{json}");
}

fn h100_machine_env(path: &str) -> Environment {
    Environment::default()
        .with("PATH", path)
        .with("HOME", "/root")
        .with("CUDA_HOME", "/usr/local/cuda")
        .with(
            "LD_LIBRARY_PATH",
            "/usr/local/nvidia/lib64:/usr/local/nvidia/lib",
        )
}

fn probe_as_machine(r: &str, env: &Environment) -> Findings {
    run_with(
        &ProbeOptions {
            root: Some(r.into()),
            dockerfile: None,
            dockerfile_line: None,
        },
        Some(env),
    )
    .unwrap()
}

fn fact_values(findings: &Findings, fact: &str) -> Vec<(String, Vec<String>)> {
    findings
        .facts()
        .into_iter()
        .filter(|f| f.fact == fact)
        .map(|f| (f.value, f.evidence))
        .collect()
}

/// On the H100, `/opt/torch/.venv/bin` is first on PATH and VIRTUAL_ENV is
/// unset: `python3` is the venv's, and it imports the venv's torch. With the
/// venv off PATH, the system python3 finds no torch.
#[test]
fn python3_first_on_path_is_the_uv_venv_and_imports_its_torch() {
    let r = root("h100-root");
    let path = "/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/gcc/bin";
    let findings = probe_as_machine(&r, &h100_machine_env(path));
    assert_eq!(
        fact_values(&findings, "python3"),
        [(
            format!("{r}/opt/torch/.venv/bin/python3"),
            vec![
                "$PATH entry 1: /opt/torch/.venv/bin is the first holding python3".to_string(),
                format!(
                    "{r}/opt/torch/.venv/pyvenv.cfg:5 (a venv; include-system-site-packages = false)"
                ),
            ]
        )]
    );
    let torch = fact_values(&findings, "python3.torch");
    assert_eq!(torch[0].0, format!("{r}{H100_SITE}/torch"));
    assert!(
        torch[0]
            .1
            .contains(&format!("{r}{H100_SITE}/torch/version.py:4"))
    );
    assert_eq!(
        fact_values(&findings, "nvcc.path"),
        [(
            format!("{r}/usr/local/cuda/bin/nvcc"),
            vec!["$PATH entry 3: /usr/local/cuda/bin is the first holding nvcc".to_string()]
        )]
    );
    let envs = fact_values(&findings, "python-env");
    assert!(envs.contains(&(
        format!("{r}/opt/torch/.venv (venv (uv))"),
        vec!["$PATH entry 1: /opt/torch/.venv/bin".to_string()]
    )));

    let findings = probe_as_machine(&r, &h100_machine_env("/usr/local/bin:/usr/bin:/bin"));
    let python3 = fact_values(&findings, "python3");
    assert_eq!(python3[0].0, format!("{r}/usr/bin/python3"));
    assert!(python3[0].1.contains(&format!(
        "{r}/usr/bin/python3 leads to {r}/usr/bin/python3.12"
    )));
    assert_eq!(
        fact_values(&findings, "python3.torch")[0].0,
        "none: `import torch` finds no torch"
    );
    // The machine is searched as the system would: through PATH, not by
    // walking /opt, so the venv is not found at all.
    assert!(fact_values(&findings, "torch").is_empty());
}

/// conda's `environments.txt` names environments wherever they are; each
/// installation's `envs/*` are environments; conda's own libcupti sits in
/// the environment's `lib`; the package cache `pkgs/` is not an environment.
#[test]
fn conda_environments_txt_envs_and_conda_cupti() {
    let r = root("conda-envs-root");
    let json = probe_root(&r);
    let torch = values(&json, "torch");
    assert_eq!(torch, ["2.5.1", "2.4.1"], "{json:#}");
    let installs = facts(&json, "torch.install");
    assert_eq!(installs[0].0, "conda");
    assert_eq!(
        installs[0].1,
        [
            format!(
                "{r}/opt/miniforge3/envs/train/conda-meta/pytorch-2.5.1-cuda124_py311h0a3e2a1_300.json"
            ),
            format!(
                "{r}/opt/miniforge3/envs/train/lib/python3.11/site-packages/torch-2.5.1.dist-info/INSTALLER:1"
            ),
        ]
    );
    let envs = facts(&json, "python-env");
    assert!(
        envs.contains(&(
            format!("{r}/data/envs/exp (conda)"),
            vec![format!("{r}/root/.conda/environments.txt:3")]
        )),
        "{envs:#?}"
    );
    assert!(
        envs.iter().any(
            |(v, e)| v == &format!("{r}/opt/miniforge3/envs/train (conda)")
                && e.contains(&format!("{r}/root/.conda/environments.txt:2"))
        ),
        "{envs:#?}"
    );
    assert!(!json.to_string().contains("/pkgs/pytorch"), "{json:#}");
    let cupti = values(&json, "libcupti");
    assert!(
        cupti.contains(&format!(
            "{r}/opt/miniforge3/envs/train/lib/libcupti.so.12 (conda)"
        )),
        "{cupti:#?}"
    );
}

/// poetry's and pipenv's central venv folders, uv's tool venvs, and a
/// project `.venv` the bounded search reaches; one deeper than the search
/// goes is not reported.
#[test]
fn poetry_pipenv_uv_and_project_venvs_are_found() {
    let r = root("home-venvs-root");
    let json = probe_root(&r);
    let envs = facts(&json, "python-env");
    let has = |prefix: &str, kind: &str, by: &str| {
        envs.iter()
            .any(|(v, e)| *v == format!("{r}{prefix} ({kind})") && e.iter().any(|e| e == by))
    };
    assert!(
        has(
            "/home/dev/.cache/pypoetry/virtualenvs/app-Qx3kz1-py3.11",
            "venv (virtualenv)",
            &format!("{r}/home/dev/.cache/pypoetry/virtualenvs (poetry)")
        ),
        "{envs:#?}"
    );
    assert!(has(
        "/home/dev/.local/share/virtualenvs/svc-8aQ2xk1b",
        "venv (virtualenv)",
        &format!("{r}/home/dev/.local/share/virtualenvs (pipenv)")
    ));
    assert!(has(
        "/home/dev/.local/share/uv/tools/ruff",
        "venv (uv)",
        &format!("{r}/home/dev/.local/share/uv/tools (uv tool)")
    ));
    assert!(has(
        "/home/dev/work/proj/.venv",
        "venv (uv)",
        &format!("search under {r}/home/dev")
    ));
    let mut torch = values(&json, "torch");
    torch.sort();
    assert_eq!(torch, ["2.3.1+cpu", "2.4.1+cu121", "2.5.1+cu124"]);
    assert!(
        values(&json, "torch.install").contains(&"wheel (poetry)".to_string()),
        "{json:#}"
    );
    assert!(values(&json, "torch.cuda").contains(&"none (CPU)".to_string()));
}

/// Ubuntu's own `nvidia-cuda-toolkit`: `/usr/bin/nvcc`, headers in
/// `/usr/include`, CUPTI in the multiarch folder; the version from cuda.h
/// agrees with the package's.
#[test]
fn debian_nvidia_cuda_toolkit_layout() {
    let r = root("debian-toolkit-root");
    let json = probe_root(&r);
    assert_eq!(
        facts(&json, "cuda-toolkit"),
        [(
            format!("{r}/usr/lib/nvidia-cuda-toolkit 11.5"),
            vec![
                format!("{r}/usr/include/cuda.h:2 (CUDA_VERSION 11050)"),
                format!("{r}/var/lib/dpkg/status:1 (nvidia-cuda-toolkit 11.5.1-1ubuntu1)"),
            ]
        )]
    );
    assert_eq!(values(&json, "nvcc"), [format!("{r}/usr/bin/nvcc")]);
    assert!(values(&json, "libcupti").contains(&format!(
        "{r}/usr/lib/x86_64-linux-gnu/libcupti.so.11.5 (system)"
    )));
}

/// With no version file, the folder's name is the last resort and says so;
/// a version.json that contradicts the folder's name is unsure, showing both;
/// a toolkit without bin/nvcc (a runtime image) says nvcc is absent.
#[test]
fn toolkit_version_fallbacks_and_conflicts_are_shown_with_their_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(&r.join("usr/local/cuda-12.6/bin/nvcc"), "fixture\n");
    write(
        &r.join("usr/local/cuda-12.4/version.json"),
        "{\n  \"cuda\": {\n    \"name\": \"CUDA SDK\",\n    \"version\": \"12.8.1\"\n  }\n}\n",
    );
    let rs = fs::canonicalize(r).unwrap().display().to_string();
    let json = probe_root(&rs);
    assert_eq!(
        facts(&json, "cuda-toolkit"),
        [
            (
                format!("{rs}/usr/local/cuda-12.4 unsure: 12.8.1 or 12.4"),
                vec![
                    format!("{rs}/usr/local/cuda-12.4/version.json:4"),
                    format!("{rs}/usr/local/cuda-12.4 (the folder's name)"),
                ]
            ),
            (
                format!("{rs}/usr/local/cuda-12.6 12.6"),
                vec![format!("{rs}/usr/local/cuda-12.6 (the folder's name)")]
            ),
        ]
    );
    assert_eq!(
        facts(&json, "nvcc"),
        [
            (
                format!("absent from {rs}/usr/local/cuda-12.4"),
                vec![format!("{rs}/usr/local/cuda-12.4/bin/nvcc: not there")]
            ),
            (
                format!("{rs}/usr/local/cuda-12.6/bin/nvcc"),
                vec![format!("{rs}/usr/local/cuda-12.6/bin/nvcc")]
            ),
        ]
    );
}

/// pip (or uv) installed over a conda pytorch: conda's record and the
/// dist-info's INSTALLER disagree, so the install method is unsure and
/// need-cupti asks instead of guessing.
#[test]
fn pip_over_conda_torch_is_unsure_with_both_pieces_of_evidence() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/conda-envs-root"), dir.path());
    let site = dir
        .path()
        .join("opt/miniforge3/envs/train/lib/python3.11/site-packages");
    write(&site.join("torch-2.5.1.dist-info/INSTALLER"), "uv\n");
    fs::remove_dir_all(dir.path().join("data")).unwrap();
    let r = fs::canonicalize(dir.path()).unwrap().display().to_string();
    let json = probe_root(&r);
    let env = format!("{r}/opt/miniforge3/envs/train");
    assert_eq!(
        facts(&json, "torch.install"),
        [(
            "unsure: wheel (uv) or conda".into(),
            vec![
                format!("{env}/lib/python3.11/site-packages/torch-2.5.1.dist-info/INSTALLER:1"),
                format!("{env}/conda-meta/pytorch-2.5.1-cuda124_py311h0a3e2a1_300.json"),
            ]
        )]
    );
    let (_, json) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(json["question"]["id"], "torch-install", "{json:#}");
    let why = json["probe"]["unsure"][0].as_str().unwrap();
    assert!(
        why.contains("disagree on how it got there: pip") && why.contains("conda-meta/pytorch-"),
        "{why}"
    );
}

/// A dist-info folder named for another version than `version.py`'s, or a
/// `+cu121` tag beside `cuda = '12.4'`: two installs overlaid. Both values
/// are shown, and cupti-import does not answer on a CUDA version it cannot
/// trust.
#[test]
fn overlaid_torch_versions_are_unsure() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/pip-root"), dir.path());
    let site = dir.path().join("usr/local/lib/python3.11/site-packages");
    fs::rename(
        site.join("torch-2.5.1+cu124.dist-info"),
        site.join("torch-2.4.0.dist-info"),
    )
    .unwrap();
    write(
        &site.join("torch/version.py"),
        "__version__ = '2.5.1+cu121'\ncuda: Optional[str] = '12.4'\n",
    );
    let r = fs::canonicalize(dir.path()).unwrap().display().to_string();
    let json = probe_root(&r);
    let s = format!("{r}/usr/local/lib/python3.11/site-packages");
    assert_eq!(
        facts(&json, "torch"),
        [(
            "unsure: 2.5.1+cu121 or 2.4.0".into(),
            vec![
                format!("{s}/torch/version.py:1"),
                format!("{s}/torch-2.4.0.dist-info")
            ]
        )]
    );
    assert_eq!(values(&json, "torch.cuda"), ["unsure: 12.4 or 12.1"]);
    let (_, json) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(json["question"]["id"], "pip-import", "{json:#}");
    assert!(
        json["probe"]["unsure"][0]
            .as_str()
            .unwrap()
            .contains("disagrees with itself on its CUDA version"),
        "{json:#}"
    );
}

/// The CUPTI wheel's RECORD lists libcupti.so.13 but the file is gone (a
/// partial copy into an image): the fact names the RECORD line, and
/// need-cupti's import check fails with it as evidence.
#[test]
fn a_wheel_library_listed_in_record_but_missing_fails_the_import() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/h100-root"), dir.path());
    let site = dir.path().join(H100_SITE.trim_start_matches('/'));
    fs::remove_file(site.join("nvidia/cu13/lib/libcupti.so.13")).unwrap();
    let r = fs::canonicalize(dir.path()).unwrap().display().to_string();
    let json = probe_root(&r);
    let s = format!("{r}{H100_SITE}");
    assert_eq!(
        facts(&json, "nvidia-wheel.missing"),
        [(
            format!("{s}/nvidia/cu13/lib/libcupti.so.13"),
            vec![
                format!("{s}/nvidia_cuda_cupti-13.0.85.dist-info/RECORD:1"),
                format!("{s}/nvidia/cu13/lib: not there"),
            ]
        )]
    );
    let (_, json) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(
        path_of(&json)[2],
        ("pip-import-13".into(), "fails".into(), "probe".into())
    );
    let evidence = json["path"][2]["evidence"].to_string();
    assert!(
        evidence.contains("nvidia_cuda_cupti-13.0.85.dist-info/RECORD:1"),
        "{evidence}"
    );
    // Triton's libcupti.so.12 and the toolkit's are not what this torch's
    // RPATH finds.
    assert_eq!(json["outcome"]["id"], "pip-reinstall-wheel-13");
}

/// A CUDA 12 CUPTI wheel beside a CUDA 13 torch does not give it the
/// libcupti.so.13 it asks for.
#[test]
fn a_cupti_wheel_of_another_cuda_major_does_not_satisfy_torch() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/pip-root"), dir.path());
    let site = dir.path().join("usr/local/lib/python3.11/site-packages");
    write(
        &site.join("torch/version.py"),
        "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n",
    );
    fs::rename(
        site.join("torch-2.5.1+cu124.dist-info"),
        site.join("torch-2.11.0+cu130.dist-info"),
    )
    .unwrap();
    let r = fs::canonicalize(dir.path()).unwrap().display().to_string();
    let (_, json) = json_of(&["decide", "need-cupti", "--probe", "--root", &r, "--json"]);
    assert_eq!(
        path_of(&json)[2],
        ("pip-import-13".into(), "fails".into(), "probe".into()),
        "{json:#}"
    );
    assert!(
        json["path"][2]["evidence"][0]
            .as_str()
            .unwrap()
            .contains("no libcupti.so.13 from the nvidia-cuda-cupti wheel")
    );
}

/// The loader's configuration as the H100 has it (`/etc/ld.so.conf`
/// including `ld.so.conf.d/*.conf`, in glob order), and Ubuntu's gcc link
/// chain with its dpkg version: facts issue #28's causes check.
#[test]
fn h100_loader_folders_and_gcc() {
    let r = root("h100-root");
    let json = probe_root(&r);
    let d = format!("{r}/etc/ld.so.conf.d");
    assert_eq!(
        facts(&json, "ld.so.conf"),
        [
            (
                "/usr/local/cuda/targets/x86_64-linux/lib",
                "000_cuda.conf:1"
            ),
            (
                "/usr/local/cuda-13/targets/x86_64-linux/lib",
                "987_cuda-13.conf:1"
            ),
            (
                "/usr/local/cuda-13.0/targets/x86_64-linux/lib",
                "gds-13-0.conf:1"
            ),
            ("/usr/local/nvidia/lib64", "git-farm-nvidia-folders.conf:1"),
            ("/usr/local/nvidia/lib", "git-farm-nvidia-folders.conf:2"),
            ("/usr/local/lib", "libc.conf:2"),
            ("/usr/local/cuda/lib64", "nvidia.conf:1"),
            ("/usr/local/lib/x86_64-linux-gnu", "x86_64-linux-gnu.conf:2"),
            ("/lib/x86_64-linux-gnu", "x86_64-linux-gnu.conf:3"),
            ("/usr/lib/x86_64-linux-gnu", "x86_64-linux-gnu.conf:4"),
        ]
        .map(|(dir, at)| (dir.to_string(), vec![format!("{d}/{at}")]))
    );
    let status = format!("{r}/var/lib/dpkg/status");
    let line = fs::read_to_string(&status)
        .unwrap()
        .lines()
        .position(|l| l == "Package: gcc-13")
        .unwrap()
        + 1;
    assert_eq!(
        facts(&json, "gcc"),
        [(
            "13 (gcc-13 13.3.0-6ubuntu2~24.04.1)".into(),
            vec![
                format!("{r}/usr/bin/gcc leads to {r}/usr/bin/x86_64-linux-gnu-gcc-13"),
                format!("{status}:{line} (gcc-13 13.3.0-6ubuntu2~24.04.1)"),
            ]
        )]
    );
    // An image has no process environment: none of the caller's variables.
    assert!(facts(&json, "env").is_empty());
}

/// On the machine, LD_LIBRARY_PATH and CUDA_HOME come from the environment.
#[test]
fn machine_environment_variables_are_facts() {
    let r = root("h100-root");
    let findings = probe_as_machine(&r, &h100_machine_env("/usr/bin:/bin"));
    assert_eq!(
        fact_values(&findings, "env"),
        [
            (
                "LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib".to_string(),
                vec!["$LD_LIBRARY_PATH".to_string()]
            ),
            (
                "CUDA_HOME=/usr/local/cuda".to_string(),
                vec!["$CUDA_HOME".to_string()]
            ),
        ]
    );
}

/// A PyTorch checkout on `$PYTHONPATH` (a developer's build in place) comes
/// before the venv's site-packages: that is the torch `python3` imports.
#[test]
fn a_torch_checkout_on_pythonpath_shadows_the_venv_torch() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("probe/h100-root"), dir.path());
    write(
        &dir.path().join("workspace/pytorch/torch/version.py"),
        "__version__ = '2.12.0a0+git1a2b3c4'\ncuda: Optional[str] = '13.0'\n",
    );
    let r = fs::canonicalize(dir.path()).unwrap().display().to_string();
    let env =
        h100_machine_env("/opt/torch/.venv/bin:/usr/bin").with("PYTHONPATH", "/workspace/pytorch");
    let findings = probe_as_machine(&r, &env);
    let torch = fact_values(&findings, "python3.torch");
    assert_eq!(torch[0].0, format!("{r}/workspace/pytorch/torch"));
    assert!(
        torch[0]
            .1
            .contains(&"$PYTHONPATH: /workspace/pytorch comes first".to_string())
    );
    let installs = fact_values(&findings, "torch.install");
    assert_eq!(installs.len(), 2, "{installs:?}");
    assert!(installs.contains(&(
        "source".to_string(),
        vec![format!("{r}/workspace/pytorch/torch/version.py:1")]
    )));
}

/// pyenv's shims come first on PATH and run the version pyenv chooses (its
/// global `version` file here); `system` hands over to the next python3.
#[test]
fn a_pyenv_shim_runs_the_version_pyenv_chooses() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        &r.join("root/.pyenv/shims/python3"),
        "#!/usr/bin/env bash\nexec \"/root/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n",
    );
    write(&r.join("root/.pyenv/version"), "3.11.7\n");
    let v = r.join("root/.pyenv/versions/3.11.7");
    write(&v.join("bin/python3.11"), "fixture\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink("python3.11", v.join("bin/python3")).unwrap();
    write(
        &v.join("lib/python3.11/site-packages/torch/version.py"),
        "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n",
    );
    write(&r.join("usr/bin/python3"), "fixture\n");
    write(&r.join("usr/lib/python3/dist-packages/README.txt"), "\n");
    let rs = fs::canonicalize(r).unwrap().display().to_string();
    let env = Environment::default()
        .with("PATH", "/root/.pyenv/shims:/usr/bin")
        .with("HOME", "/root");
    let findings = probe_as_machine(&rs, &env);
    let python3 = fact_values(&findings, "python3");
    assert_eq!(python3[0].0, format!("{rs}/root/.pyenv/shims/python3"));
    assert!(
        python3[0].1[1].starts_with(&format!("{rs}/root/.pyenv/version:1 (pyenv's choice")),
        "{python3:?}"
    );
    assert_eq!(
        fact_values(&findings, "python3.torch")[0].0,
        format!("{rs}/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch")
    );

    write(&r.join("root/.pyenv/version"), "system\n");
    let findings = probe_as_machine(&rs, &env);
    let python3 = fact_values(&findings, "python3");
    assert_eq!(python3[0].0, format!("{rs}/usr/bin/python3"));
    assert_eq!(
        fact_values(&findings, "python3.torch")[0].0,
        "none: `import torch` finds no torch"
    );
}

/// `pip install "cuda-toolkit[nvcc]"` on CUDA 13: the suffixless
/// `nvidia_cuda_nvcc-13.0.88.dist-info` installs `nvidia/cu13/bin/nvcc` and
/// no shared library. It is one of NVIDIA's CUDA 13 wheels all the same
/// (real roots showed it missing); `nvidia-ml-py`, an `nvidia_*` wheel with
/// only `pynvml.py`, still is not.
#[test]
fn cuda13_nvcc_wheel_without_libraries_is_listed_and_nvidia_ml_py_is_not() {
    let r = root("cu13-nvcc-wheel-root");
    let json = probe_root(&r);
    let site = format!("{r}/usr/local/lib/python3.12/site-packages");
    assert_eq!(
        facts(&json, "nvidia-wheel"),
        [(
            "nvidia-cuda-nvcc 13.0.88".to_string(),
            vec![format!("{site}/nvidia_cuda_nvcc-13.0.88.dist-info")]
        )]
    );
    assert_eq!(values(&json, "nvidia-wheel.libs"), Vec::<String>::new());
    assert_eq!(values(&json, "nvidia-wheel.missing"), Vec::<String>::new());
    // Its compiler is reported, with the RECORD line that installed it: an
    // nvcc outside any toolkit folder and off $PATH is otherwise invisible.
    assert_eq!(
        facts(&json, "nvcc.wheel"),
        [(
            format!("{site}/nvidia/cu13/bin/nvcc"),
            vec![format!(
                "{site}/nvidia_cuda_nvcc-13.0.88.dist-info/RECORD:1"
            )]
        )]
    );
    assert_eq!(values(&json, "cuda-toolkit"), Vec::<String>::new());
}

/// Debian 13's own CUDA runtime: `libcudart12` and `libnvrtc12` (source
/// package nvidia-cuda-toolkit, versions from trixie's non-free Packages
/// index) are NVIDIA packages dpkg lists, beside `libcupti12`; real roots
/// showed `libcudart12` missing from the apt packages.
#[test]
fn debian_libcudart12_and_libnvrtc12_are_listed_as_nvidia_packages() {
    let r = root("debian-cuda-libs-root");
    let json = probe_root(&r);
    let status = format!("{r}/var/lib/dpkg/status");
    assert_eq!(
        facts(&json, "apt-package"),
        [
            (
                "libcudart12 12.4.127~12.4.1-2".to_string(),
                vec![format!("{status}:5")]
            ),
            (
                "libnvrtc12 12.4.127~12.4.1-2".to_string(),
                vec![format!("{status}:11")]
            ),
            (
                "libcupti12 12.4.127~12.4.1-2".to_string(),
                vec![format!("{status}:16")]
            ),
        ]
    );
}
