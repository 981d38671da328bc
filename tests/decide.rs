//! `lore decide` on the real binary: listing, scripted walks in text and JSON,
//! graphs, transcripts, and the usage errors scripts rely on (exit 2 naming the
//! valid trees, questions and options).

mod common;

use common::{home, lore};
use predicates::prelude::*;
use serde_json::Value;

fn run(args: &[&str]) -> (i32, String, String) {
    let home = home();
    let out = lore(&home).args(args).output().expect("lore runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

#[test]
fn lists_the_trees() {
    let (code, stdout, _) = run(&["decide"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        ids,
        [
            "container-gpu",
            "cuda-install-method",
            "devel-as-runtime",
            "need-cupti",
            "torch-cuda-build"
        ]
    );
    assert!(
        stdout.contains("need-cupti           Do I need CUPTI in this image?\n"),
        "{stdout}"
    );

    let (_, raw, _) = run(&["decide", "--json"]);
    assert!(
        raw.contains("    \"id\": \"need-cupti\",\n    \"title\": \"Do I need CUPTI in this image?\",\n    \"summary\": "),
        "keys in the documented order:\n{raw}"
    );
    let list = json(&["decide", "--json"]);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 5);
    assert_eq!(list[3]["id"], "need-cupti");
    assert_eq!(list[3]["title"], "Do I need CUPTI in this image?");
}

#[test]
fn answers_walk_to_the_next_question() {
    let (code, stdout, _) = run(&[
        "decide",
        "need-cupti",
        "--answer",
        "torch-install=pip",
        "--answer",
        "pip-wheel=cu12",
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("\nDoes `import torch` already fail with `ImportError: libcupti.so.12: cannot open shared object file` (`libcupti.so.11.8` for a `+cu118` build)?\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  Why it matters:\n"), "{stdout}");
    assert!(
        stdout.contains("   1. pip-import=fails  Yes, the import fails on libcupti.so\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "Next: lore decide need-cupti --answer torch-install=pip --answer pip-wheel=cu12 --answer pip-import=OPTION\n"
        ),
        "{stdout}"
    );
}

#[test]
fn answers_in_any_order_reach_the_outcome_with_how_we_got_here() {
    let (code, stdout, _) = run(&[
        "decide",
        "need-cupti",
        "--answer",
        "pip-profiling=torch-profiler",
        "--answer",
        "pip-import=works",
        "--answer",
        "pip-wheel=cu12",
        "--answer",
        "torch-install=pip",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("How we got here:\n  1. How did PyTorch get into the image that runs your code?  → pip install torch from PyPI (Linux x86_64 wheel)\n"), "{stdout}");
    assert!(
        stdout.contains("Outcome: CUPTI is already in the image (pip wheel)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("Verdict: Add nothing: `pip install torch` already installed CUPTI as `nvidia-cuda-cupti-cu12`"), "{stdout}");
    assert!(stdout.contains("Actions:\n"), "{stdout}");
    assert!(stdout.contains("    cuda/20-cupti-deep-dive-arr-coc.md#pip-wheels-already-ship-cupti  pip wheels already ship CUPTI\n"), "{stdout}");
}

#[test]
fn an_answer_off_the_path_is_a_warning() {
    let (code, _, stderr) = run(&[
        "decide",
        "need-cupti",
        "--answer",
        "torch-install=pip",
        "--answer",
        "final-base=devel",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        stderr,
        "lore: warning: question `final-base` is not on this path; its answer was not used\n"
    );
}

#[test]
fn json_at_a_question() {
    let args = [
        "decide",
        "need-cupti",
        "--answer",
        "torch-install=source",
        "--json",
    ];
    let (_, raw, _) = run(&args);
    assert!(
        raw.starts_with("{\n  \"tree\": \"need-cupti\",\n  \"status\": \"question\",\n  \"question\": {\n    \"id\": \"source-linked\",\n    \"text\": "),
        "keys in the documented order:\n{raw}"
    );
    assert!(
        raw.contains("\n  \"outcome\": null,\n  \"path\": ["),
        "{raw}"
    );
    let v = json(&args);
    assert_eq!(v["tree"], "need-cupti");
    assert_eq!(v["status"], "question");
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["question"]["id"], "source-linked");
    assert!(
        v["question"]["why"]
            .as_str()
            .unwrap()
            .contains("Found CUPTI")
    );
    assert!(
        v["question"]["help"]
            .as_str()
            .unwrap()
            .contains("readelf -d")
    );
    let options: Vec<&str> = v["question"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["import-fails", "needed", "not-needed"]);
    assert_eq!(
        v["path"],
        serde_json::json!([{ "question": "torch-install", "answer": "source", "source": "user", "evidence": [] }])
    );
}

#[test]
fn json_at_an_outcome() {
    let v = json(&[
        "decide",
        "need-cupti",
        "--json",
        "--answer",
        "torch-install=source",
        "--answer",
        "source-linked=needed",
        "--answer",
        "linked-profiling=yes",
        "--answer",
        "final-base=runtime",
        "--answer",
        "apt-reachable=yes",
    ]);
    assert_eq!(v["status"], "outcome");
    assert_eq!(v["question"], Value::Null);
    let o = &v["outcome"];
    let keys: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6, "{keys:?}");
    for key in ["id", "title", "verdict", "body", "actions", "evidence"] {
        assert!(keys.contains(&key), "{key}");
    }
    assert_eq!(o["id"], "apt-install-cupti");
    let first = &o["actions"][0];
    assert_eq!(first["lang"], "dockerfile");
    assert!(
        first["code"]
            .as_str()
            .unwrap()
            .contains("apt-get install -y --no-install-recommends cuda-cupti-12-4")
    );
    assert!(o["evidence"].as_array().unwrap().contains(&Value::from(
        "cuda/13-nvidia-container-cuda-packaging.md#adding-cupti-to-a-runtime-image"
    )));
    assert_eq!(v["path"].as_array().unwrap().len(), 5);
}

#[test]
fn unknown_tree_question_or_option_is_exit_2_naming_the_valid_ones() {
    let home = home();
    lore(&home)
        .args(["decide", "need-cuptii"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "lore: error: no decision tree `need-cuptii` (trees: container-gpu, cuda-install-method, devel-as-runtime, need-cupti, torch-cuda-build)\n",
        );
    lore(&home)
        .args(["decide", "devel-as-runtime", "--answer", "purpose=fun"])
        .assert()
        .code(2)
        .stderr(
            "lore: error: question `purpose` has no option `fun` (options: dev-ci, debug, experiment, production)\n",
        );
    lore(&home)
        .args(["decide", "devel-as-runtime", "--json", "--answer", "size=big"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "lore: error: tree `devel-as-runtime` has no question `size` (questions: purpose, jit, aot-possible, pull-budget, exposure, tools, missing-lib, custom-cuda)",
        ));
    lore(&home)
        .args(["decide", "need-cupti", "--answer", "torch-install"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "expected QUESTION=OPTION, got `torch-install`",
        ));
    lore(&home)
        .args([
            "decide",
            "need-cupti",
            "--answer",
            "torch-install=pip",
            "--answer",
            "torch-install=conda",
        ])
        .assert()
        .code(2)
        .stderr("lore: error: question `torch-install` is answered twice\n");
    lore(&home)
        .args(["decide", "--graph", "dot"])
        .assert()
        .code(2);
}

#[test]
fn graphs_have_every_node_and_edge() {
    let (code, mermaid, _) = run(&["decide", "need-cupti", "--graph", "mermaid"]);
    assert_eq!(code, 0);
    assert!(
        mermaid.starts_with("---\ntitle: \"Do I need CUPTI in this image?\"\n---\nflowchart TD\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains(
            "    n_torch_install{\"How did PyTorch get into the image that runs your code?\"}\n"
        ),
        "{mermaid}"
    );
    assert!(mermaid.contains("    n_torch_install -->|\"pip install torch from PyPI (Linux x86_64 wheel)\"| n_pip_wheel\n"), "{mermaid}");
    assert!(
        mermaid.contains("    n_not_needed([\"CUPTI is not needed\"])\n"),
        "{mermaid}"
    );
    let edges = mermaid.matches(" -->|").count();

    let (code, dot, _) = run(&["decide", "need-cupti", "--graph", "dot"]);
    assert_eq!(code, 0);
    assert!(dot.starts_with("digraph \"need-cupti\" {\n"), "{dot}");
    assert!(dot.contains("    \"pip-import\" -> \"pip-reinstall-wheel\" [label=\"Yes, the import fails on libcupti.so\"];\n"), "{dot}");
    assert_eq!(
        dot.matches(" -> ").count(),
        edges,
        "both formats draw every edge"
    );
    assert_eq!(edges, 33, "need-cupti has 33 options");
    assert!(dot.ends_with("}\n"));
}

#[test]
fn transcript_is_markdown_for_a_bug_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("decision.md");
    let home = home();
    lore(&home)
        .args([
            "decide",
            "need-cupti",
            "--answer",
            "torch-install=pip",
            "--answer",
            "pip-wheel=cu12",
            "--answer",
            "pip-import=fails",
            "--transcript",
        ])
        .arg(&file)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("lore: transcript written to "));
    let md = std::fs::read_to_string(&file).unwrap();
    let mut lines = md.lines();
    assert_eq!(lines.next(), Some("# Do I need CUPTI in this image?"));
    assert_eq!(lines.next(), Some(""));
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("- Decision tree: `need-cupti` — ")
    );
    let date = lines.next().unwrap();
    assert!(
        date.starts_with("- Date: 20") && date.len() == "- Date: 2026-11-22".len(),
        "{date}"
    );
    assert!(
        md.contains("- Status: outcome `pip-reinstall-wheel` reached\n"),
        "{md}"
    );
    assert!(md.contains("1. **How did PyTorch get into the image that runs your code?**\n   - Answer: pip install torch from PyPI (Linux x86_64 wheel) (`pip`)\n   - Why it matters: Each route brings CUPTI differently."), "{md}");
    assert!(md.contains("2. **Which build of torch is it"), "{md}");
    assert!(md.contains("3. **Does `import torch` already fail"), "{md}");
    assert!(
        md.contains(
            "\n## Outcome: Put the wheel's CUPTI back\n\n**Verdict:** Reinstall the pinned"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "\n```bash\n# The requirement as torch names it, without its environment marker:\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("\n```dockerfile\nCOPY --from=builder /opt/venv /opt/venv\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "\n### Evidence\n\n- `cuda/20-cupti-deep-dive-arr-coc.md#what-happens-without-it`\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("\n### Related decisions\n\n- `lore decide devel-as-runtime`\n"),
        "{md}"
    );
}

#[test]
fn text_from_a_tree_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let tree = std::fs::read_to_string(common::fixture("trees/clean/tree.toml"))
        .unwrap()
        .replace(
            "text = \"Which?\"",
            "text = \"Which?\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\"",
        )
        .replace("label = \"A\"", "label = \"A\\u009b31m\"");
    std::fs::write(dir.path().join("evil.toml"), tree).unwrap();
    for args in [
        &["fixture"][..],
        &["fixture", "--json"][..],
        &["fixture", "--graph", "dot"][..],
    ] {
        let home = home();
        let out = lore(&home)
            .args(["decide", "--no-builtin", "--color", "never", "--trees"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !stdout.contains(['\x1b', '\x07', '\u{9b}']),
            "{args:?}: {stdout:?}"
        );
        // JSON carries the exact value, escaped; text shows it visibly.
        let shown = if args.contains(&"--json") {
            "Which?\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J"
        } else {
            "Which?^[]52;c;ZXZpbA==^G^[[2J"
        };
        assert!(stdout.contains(shown), "{args:?}: {stdout}");
    }
}

#[test]
fn check_covers_the_shipped_trees() {
    // The shipped trees are part of a clean `lore check`…
    let (code, stdout, _) = run(&["check"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.ends_with(" 0 errors, 0 warnings\n"), "{stdout}");
    // …and a broken tree in an overlay makes it fail, naming file, line and node.
    let dir = tempfile::tempdir().unwrap();
    let broken = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("decision-trees/need-cupti.toml"),
    )
    .unwrap()
    .replacen("next = \"pip-import\"", "next = \"pip-imports\"", 1);
    std::fs::write(dir.path().join("need-cupti.toml"), broken).unwrap();
    let home = home();
    lore(&home)
        .arg("check")
        .arg("--trees")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "need-cupti.toml:70: error: node `pip-wheel`: option `cu12` leads to `pip-imports`, which is not a node\n",
        ));
}

#[test]
fn every_evidence_link_of_the_shipped_trees_opens_in_lore_show() {
    let mut links = std::collections::BTreeSet::new();
    for tree in ["need-cupti", "devel-as-runtime", "cuda-install-method"] {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("decision-trees/{tree}.toml")),
        )
        .unwrap();
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        for node in parsed["nodes"].as_table().unwrap().values() {
            for link in node
                .get("evidence")
                .and_then(|e| e.as_array())
                .into_iter()
                .flatten()
            {
                links.insert(link.as_str().unwrap().to_string());
            }
        }
    }
    assert!(links.len() > 30, "{links:?}");
    let home = home();
    for link in &links {
        let out = lore(&home)
            .args(["show", "--plain", link])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "lore show {link}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "lore show {link} printed nothing");
    }
}

/// A tree's `[[tests]]` run when that tree is used (and by `lore check`),
/// not on every start: walking one tree does not run, or complain about,
/// another tree's tests. A tree whose own tests fail is still refused.
#[test]
fn only_the_walked_tree_runs_its_tests() {
    let trees = tempfile::tempdir().unwrap();
    let clean = std::fs::read_to_string(common::fixture("trees/clean/tree.toml")).unwrap();
    std::fs::write(trees.path().join("fixture.toml"), &clean).unwrap();
    let failing = clean
        .replace("id = \"fixture\"", "id = \"failing\"")
        .replacen("expect = \"done\"", "expect = \"q\"", 1);
    std::fs::write(trees.path().join("failing.toml"), failing).unwrap();
    let dir = trees.path().to_str().unwrap();

    let (code, stdout, stderr) = run(&[
        "decide",
        "--no-builtin",
        "--trees",
        dir,
        "fixture",
        "--answer",
        "q=a",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Finished"), "{stdout}");
    assert_eq!(stderr, "", "another tree's tests were run");

    let (code, _, stderr) = run(&["decide", "--no-builtin", "--trees", dir, "failing"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("skipped ({dir}/failing.toml)")),
        "{stderr}"
    );

    let (code, stdout, _) = run(&["check", "--no-builtin", "--trees", dir]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("failing.toml:"), "{stdout}");
    assert!(
        stdout.contains("test 1: expects `q`, which is not an outcome"),
        "{stdout}"
    );
}

/// A machine's `/proc/driver/nvidia`: the kernel module's version and one
/// `information` file per GPU model.
fn gpu_root(driver: &str, models: &[&str]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let nvidia = root.path().join("proc/driver/nvidia");
    std::fs::create_dir_all(&nvidia).unwrap();
    std::fs::write(
        nvidia.join("version"),
        format!("NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc version 12.3.0\n"),
    )
    .unwrap();
    for (i, model) in models.iter().enumerate() {
        let gpu = nvidia.join(format!("gpus/0000:0{i}:00.0"));
        std::fs::create_dir_all(&gpu).unwrap();
        std::fs::write(
            gpu.join("information"),
            format!("Model: \t\t {model}\nIRQ:   \t\t 130\nBus Type: \t PCIe\n"),
        )
        .unwrap();
    }
    root
}

/// "Which PyTorch build fits my GPU and driver?" answered from the machine:
/// the GPU's model gives its generation, the kernel module's version the
/// CUDA major it runs. An RTX 5090 on a 570 driver needs cu128 (the first
/// CUDA 12 builds with Blackwell code); a Tesla P40 on a 580 driver cu126
/// (cu130 has no Pascal code, though the driver runs CUDA 13); an H100 on
/// 580 cu130. A model lore does not know, or two generations, are asked.
#[test]
fn torch_cuda_build_is_answered_from_the_gpu_and_the_driver() {
    let walk = |driver: &str, models: &[&str]| {
        let root = gpu_root(driver, models);
        let path = root.path().to_str().unwrap().to_string();
        json(&[
            "decide",
            "torch-cuda-build",
            "--probe",
            "--root",
            &path,
            "--json",
        ])
    };
    let out = walk("570.124.06", &["NVIDIA GeForce RTX 5090"]);
    assert_eq!(out["outcome"]["id"], "cu128-blackwell", "{out}");
    assert_eq!(out["path"][0]["answer"], "blackwell");
    assert_eq!(out["path"][0]["source"], "probe");
    assert!(
        out["path"][0]["evidence"][0]
            .as_str()
            .unwrap()
            .ends_with("proc/driver/nvidia/gpus/0000:00:00.0/information:1"),
        "{out}"
    );
    assert_eq!(out["path"][1]["question"], "driver-blackwell");
    assert_eq!(out["path"][1]["answer"], "12");

    let out = walk("580.95.05", &["Tesla P40"]);
    assert_eq!(out["outcome"]["id"], "cu126-older-gpu", "{out}");
    let out = walk(
        "580.95.05",
        &["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"],
    );
    assert_eq!(out["outcome"]["id"], "cu130", "{out}");

    // Two generations in one machine: which one runs the code is the user's.
    let out = walk("580.95.05", &["NVIDIA H100 80GB HBM3", "Tesla P40"]);
    assert_eq!(out["status"], "question", "{out}");
    assert_eq!(out["question"]["id"], "gpu", "{out}");
    let out = walk("580.95.05", &["NVIDIA Imaginary 9000"]);
    assert_eq!(out["question"]["id"], "gpu", "{out}");
}

/// "My container does not see the GPU": walked with answers, the Docker
/// path ends at the layer that fails (dockerd without its GPU driver:
/// restart it), with the commands; on a root that is not this host, the
/// toolkit question is asked, not guessed.
#[test]
fn container_gpu_walks_to_the_layer_that_breaks() {
    let out = json(&[
        "decide",
        "container-gpu",
        "--answer",
        "host=yes",
        "--answer",
        "engine=docker",
        "--answer",
        "toolkit=yes",
        "--answer",
        "docker-says=no-device-driver",
        "--json",
    ]);
    assert_eq!(out["outcome"]["id"], "restart-docker", "{out}");
    assert!(
        out.to_string().contains("sudo systemctl restart docker"),
        "{out}"
    );
    let root = tempfile::tempdir().unwrap();
    let path = root.path().to_str().unwrap().to_string();
    let out = json(&[
        "decide",
        "container-gpu",
        "--probe",
        "--root",
        &path,
        "--answer",
        "host=yes",
        "--answer",
        "engine=docker",
        "--json",
    ]);
    assert_eq!(out["status"], "question", "{out}");
    assert_eq!(out["question"]["id"], "toolkit", "{out}");
}
