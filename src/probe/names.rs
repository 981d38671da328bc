//! The fact vocabulary: every fact name the probes can report, with what it
//! means. `lore check` validates the facts a causes block's `check` names
//! against this list, `lore diagnose` evaluates them, and the README's table
//! is this list. Adding a fact is one line here (and the probe that reports
//! it).

/// How a condition reads a fact the probes report several times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Many {
    /// One thing per value, any of which may matter (GPUs, wheels, loader
    /// folders): a comparison holds if it holds for one value, and is ruled
    /// out only if it fails for every value.
    Any,
    /// The same question asked of several answers (two torch installs, an
    /// arch list's entries): a comparison holds only if it holds for every
    /// value, and is ruled out only if it fails for every value; otherwise
    /// it is unknown (which install runs decides).
    Each,
}

/// Which probing can tell a fact's absence: where nothing was found, a
/// `present(…)` test is false only when this source was probed, and
/// unknown otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The running machine's kernel (`/proc`) or process: only `lore`
    /// probing the machine it runs on can say something is absent.
    Machine,
    /// Files of the probed root (the machine or an unpacked image).
    Files,
    /// The Dockerfile given.
    Dockerfile,
    /// The message `lore diagnose` was given: what it states (see
    /// `diagnose::message`).
    Message,
}

/// One fact name of the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactName {
    pub name: &'static str,
    pub many: Many,
    pub scope: Scope,
    /// One line: what the value is and where it is read.
    pub doc: &'static str,
    /// The unit of a number value (`MiB`), which `lore probe` prints after
    /// it; conditions compare the bare number.
    pub unit: Option<&'static str>,
}

const fn fact(name: &'static str, many: Many, scope: Scope, doc: &'static str) -> FactName {
    FactName {
        name,
        many,
        scope,
        doc,
        unit: None,
    }
}

impl FactName {
    const fn in_unit(self, unit: &'static str) -> FactName {
        FactName {
            unit: Some(unit),
            ..self
        }
    }
}

use Many::{Any, Each};
use Scope::{Dockerfile, Files, Machine, Message};

/// Every fact a probe reports, in the order `lore probe` prints them.
/// `env.NAME` for a NAME in [`ENV_NAMES`] is accepted besides these.
#[rustfmt::skip]
pub const FACT_NAMES: &[FactName] = &[
    fact("os", Each, Files, "the distribution and release, from /etc/os-release"),
    fact("container", Each, Files, "`container` or `host`, from the container runtime's traces"),
    fact("driver", Each, Machine, "the loaded NVIDIA kernel module's version, from /proc/driver/nvidia/version"),
    fact("driver.cuda", Each, Machine, "the highest CUDA major the driver runs (minor-version compatibility: 450 → 11, 525 → 12, 580 → 13)"),
    fact("driver.userspace", Any, Files, "a user-space driver library's version, from the libnvidia-ml.so.VERSION file name"),
    fact("driver.profiling-admin", Each, Machine, "RmProfilingAdminOnly from /proc/driver/nvidia/params: 1 = GPU counters for admins only"),
    fact("nvidia-smi", Any, Machine, "where nvidia-smi is, in the machine's PATH folders"),
    fact("container-engine", Any, Files, "an installed container engine: docker (/usr/bin/docker, /usr/local/bin/docker), docker-snap (/snap/bin/docker), podman (/usr/bin/podman)"),
    fact("gpu", Any, Machine, "a GPU's model, from /proc/driver/nvidia/gpus/*/information"),
    fact("gpu.capability", Any, Machine, "a GPU's compute capability, from its model (NVIDIA's CUDA GPUs table)"),
    fact("nvidia_uvm", Each, Machine, "`loaded` or `not loaded`: the nvidia_uvm kernel module, from /proc/modules"),
    fact("gpu.visible", Each, Machine, "how many GPUs CUDA can see: the /dev/nvidiaN nodes, less what CUDA_VISIBLE_DEVICES hides (it stops at its first entry that is empty, negative, not an index, or past the nodes); not told for UUIDs or where MIG instances exist"),
    fact("shm.size", Each, Machine, "the size of /dev/shm in MiB, from /proc/self/mounts").in_unit("MiB"),
    fact("torch", Each, Files, "an installed torch's version, from torch/version.py (a Dockerfile alone: the version its install pins, or `absent from the image`)"),
    fact("torch.cuda", Each, Files, "the CUDA version that torch was built with, or `none (CPU)`"),
    fact("torch.install", Each, Files, "how that torch was installed: `wheel (pip)`, `conda`, `source` …"),
    fact("torch.arch.min", Each, Files, "the lowest compute capability a PyTorch release wheel carries code for"),
    fact("torch.arch.max", Each, Files, "the highest compute capability a PyTorch release wheel carries code for (compare with major(…))"),
    fact("package", Any, Files, "an installed Python distribution beside torch, `name version`, from its .dist-info"),
    fact("nvidia-wheel", Any, Files, "an NVIDIA CUDA wheel, `name version`"),
    fact("nvidia-wheel.libs", Any, Files, "the libraries in that wheel's lib folder"),
    fact("nvidia-wheel.missing", Any, Files, "a library an NVIDIA wheel's RECORD lists that is not there (its files removed by another wheel's uninstall, or deleted)"),
    fact("libcupti", Any, Files, "a CUPTI library found, and where"),
    fact("cuda-toolkit", Any, Files, "a CUDA toolkit folder and its version"),
    fact("nvcc", Any, Files, "an nvcc in a toolkit folder (a Dockerfile alone: `in the image` or `absent from the image`, from the stage's base image and installs)"),
    fact("nvcc.wheel", Any, Files, "an nvcc a pip wheel installed (CUDA 13's nvidia-cuda-nvcc: nvidia/cu13/bin/nvcc)"),
    fact("apt-package", Any, Files, "an installed dpkg package, `name version`: NVIDIA's, compilers, C/C++ runtimes, Python headers"),
    fact("ld.so.conf", Any, Files, "a folder the dynamic loader searches, from /etc/ld.so.conf and its includes"),
    fact("gcc", Each, Files, "the version of the system gcc, from dpkg or the /usr/bin/gcc link"),
    fact("libstdcxx", Each, Files, "the newest GLIBCXX the system libstdc++.so.6 provides, from its file name"),
    fact("python.libstdcxx", Each, Files, "the newest GLIBCXX of the libstdc++.so.6 in torch's Python environment's own lib folder (conda)"),
    fact("glibc", Each, Files, "the C library's version, from dpkg's libc6"),
    fact("python", Any, Files, "the X.Y of a Python environment found, from its lib/pythonX.Y folder"),
    fact("python.leftover", Any, Files, "a ~-named entry in a Python environment's site folder (~orch, ~orch-2.1.0.dist-info): left by a pip uninstall or upgrade that was killed"),
    fact("python.path", Each, Machine, "the X.Y of the python3 on the machine's PATH, from its lib/pythonX.Y folder"),
    fact("arch", Each, Files, "the CPU architecture the root's programs are built for (x86_64, aarch64 …), from /bin/sh's ELF header"),
    fact("image.flavour", Each, Dockerfile, "the nvidia/cuda flavour of the final stage (of a build log's failed step's stage): base, runtime, devel, cudnn-runtime, cudnn-devel"),
    fact("image.cuda", Each, Dockerfile, "the nvidia/cuda CUDA version of the final stage (of a build log's failed step's stage)"),
    fact("build.arch.min", Each, Machine, "the lowest compute capability in TORCH_CUDA_ARCH_LIST (environment or Dockerfile ENV)"),
    fact("build.arch.max", Each, Machine, "the highest compute capability in TORCH_CUDA_ARCH_LIST"),
    fact("dockerfile.stage", Any, Dockerfile, "a Dockerfile stage and the image it starts from"),
    fact("dockerfile.install", Any, Dockerfile, "a pip, conda or apt-get install in a stage"),
    fact("dockerfile.copy-from", Any, Dockerfile, "a COPY --from in a stage"),
    fact("dockerfile.env", Any, Dockerfile, "an ENV that matters to CUDA in a stage"),
    fact("dockerfile.build", Any, Dockerfile, "a command that compiles (nvcc, cmake, pip install .)"),
    fact("dockerfile.final-stage", Any, Dockerfile, "the final stage and what it is built on"),
    fact("message.arch", Each, Message, "an architecture the message says nvcc refuses (`Unsupported gpu architecture 'compute_120'` → 12.0); `lore diagnose` only"),
    fact("message.device", Each, Message, "the highest GPU index the message asks for (`cuda:1`, `set_device(1)`, CuPy's `Device(1)`, torch's `object on CUDA device 3`); `lore diagnose` only"),
    fact("message.wheel.python", Each, Message, "the Python a wheel pip refused is for (`cp311` → 3.11; not told for `py3` or `abi3` wheels); `lore diagnose` only"),
    fact("message.wheel.os", Each, Message, "the operating system that wheel is for: linux, windows, macos, any; `lore diagnose` only"),
    fact("message.wheel.arch", Each, Message, "the CPU architecture that wheel is for, in Linux's names (`win_amd64` → x86_64); `lore diagnose` only"),
    fact("message.wheel.libc", Each, Message, "the C library a Linux wheel is built against: glibc (manylinux) or musl (musllinux); `lore diagnose` only"),
    fact("message.wheel.glibc", Each, Message, "the oldest glibc that wheel's manylinux tags accept (`manylinux_2_28` → 2.28, `manylinux2014` → 2.17); `lore diagnose` only"),
    fact("message.oom.request", Each, Message, "what PyTorch's out-of-memory message says it tried to allocate (`Tried to allocate 2.00 GiB`), in MiB; `lore diagnose` only").in_unit("MiB"),
    fact("message.oom.total", Each, Message, "the GPU's total capacity the out-of-memory message gives, in MiB").in_unit("MiB"),
    fact("message.oom.free", Each, Message, "the GPU's free memory the out-of-memory message gives, in MiB").in_unit("MiB"),
    fact("message.oom.allocated", Each, Message, "what the out-of-memory message says PyTorch's tensors hold (`allocated by PyTorch`, `already allocated`), in MiB").in_unit("MiB"),
    fact("message.oom.reserved-free", Each, Message, "memory PyTorch's cache holds but no tensor uses (`reserved by PyTorch but unallocated`; 1.x: reserved in total less allocated), in MiB").in_unit("MiB"),
    fact("message.oom.others", Each, Message, "memory the GPU holds beyond this process (total − free − this process's use; else the `Process N has …` lines), in MiB").in_unit("MiB"),
];

/// Environment variables `env.NAME` may name: the ones causes turn on. On
/// the machine they are read from lore's own environment (the shell it runs
/// in); in a Dockerfile from the final stage's `ENV`s.
pub const ENV_NAMES: &[&str] = &[
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "CUDA_HOME",
    "CUDA_PATH",
    "PATH",
    "TORCH_CUDA_ARCH_LIST",
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "NCCL_SOCKET_IFNAME",
    "NCCL_IB_DISABLE",
    "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE",
    "PYTORCH_CUDA_ALLOC_CONF",
    "TRITON_PTXAS_PATH",
    "CONDA_PREFIX",
    "VIRTUAL_ENV",
];

/// `env.NAME`: the variable NAME, from this machine's environment (the
/// machine only) or a Dockerfile's `ENV` in the final stage or a stage it
/// builds on.
pub const ENV_PREFIX: &str = "env.";

/// The vocabulary entry of a name; `env.NAME` has none (see `is_fact_name`).
pub fn fact_name(name: &str) -> Option<&'static FactName> {
    FACT_NAMES.iter().find(|f| f.name == name)
}

/// Whether a condition may name this fact.
pub fn is_fact_name(name: &str) -> bool {
    fact_name(name).is_some() || env_name(name).is_some()
}

/// `env.CUDA_HOME` → `CUDA_HOME`, if that is one of [`ENV_NAMES`].
pub fn env_name(name: &str) -> Option<&'static str> {
    let var = name.strip_prefix(ENV_PREFIX)?;
    ENV_NAMES.iter().copied().find(|n| *n == var)
}

/// The known name closest to an unknown one, for "did you mean": the one
/// sharing the longest start (`-` and `_` read as `.`), if it shares a word.
pub fn closest(name: &str) -> Option<&'static str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], ".");
    let wanted = norm(name);
    FACT_NAMES
        .iter()
        .map(|f| {
            let common = norm(f.name)
                .chars()
                .zip(wanted.chars())
                .take_while(|(a, b)| a == b)
                .count();
            (common, f.name)
        })
        .filter(|(common, _)| *common >= 3)
        .max_by_key(|(common, _)| *common)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for f in FACT_NAMES {
            assert!(seen.insert(f.name), "{} twice", f.name);
            assert!(!f.doc.is_empty(), "{} has no doc", f.name);
            assert!(!f.name.starts_with(ENV_PREFIX));
        }
    }

    #[test]
    fn env_names() {
        assert!(is_fact_name("env.LD_LIBRARY_PATH"));
        assert!(!is_fact_name("env."));
        assert!(!is_fact_name("env.SOMETHING_ELSE"));
        assert!(!is_fact_name("torch.version"));
        assert_eq!(closest("torch_cuda"), Some("torch.cuda"));
        assert_eq!(closest("torch.cuda_version"), Some("torch.cuda"));
        assert_eq!(closest("xyz"), None);
    }
}
