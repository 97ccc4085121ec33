"""Every implementation in the matrix: how it is installed and how it is called.

Versions are pinned here and nowhere else.  ``pip`` pins go into the
implementation's own virtual environment, ``npm`` pins into its own
``node_modules``; ``build`` names a script under ``matrix/build/`` that turns
a downloaded source distribution into a program.  ``layer`` names a shared
read-only environment (torch, 700 MB) that the implementation's own
environment sees through a ``.pth`` file instead of installing it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

__all__ = [
    "COMMAND_PINS",
    "IMPLS",
    "LAYERS",
    "SUITE_PINS",
    "UNAVAILABLE",
    "Impl",
    "Unavailable",
    "by_name",
]

# The suite's own test dependencies, installed beside each Python implementation
# (the same pins as the project's dev extra).
SUITE_PINS: Final = ("pytest==9.2.0", "hypothesis==6.170.15")
# What the suite needs only to drive cmd: programs (it validates their answers
# against the protocol's JSON Schemas), installed in the _suite environment.
COMMAND_PINS: Final = ("jsonschema==4.26.0",)
NUMPY: Final = "numpy==2.4.6"


@dataclass(frozen=True, slots=True)
class Impl:
    """One column of the matrix."""

    name: str  # the column id and results/NAME.json
    title: str  # what a person calls it, with the version
    language: str  # the language of the parser itself
    kind: Literal["python", "cmd"]
    wrapper: str  # file under matrix/wrappers/ (or builtin:NAME, the suite's own)
    pip: tuple[str, ...] = ()
    # installed after ``pip`` with --no-deps: a package whose one module the
    # wrapper loads by path, without the framework its other modules import
    pip_no_deps: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()
    apt: tuple[str, ...] = ()
    build: str | None = None  # script under matrix/build/
    build_args: tuple[str, ...] = ()  # after DEST: what the script builds
    layer: str | None = None  # a name from LAYERS
    env: dict[str, str] = field(default_factory=dict)
    memory_limit_mib: int = 2048  # --memory-limit (cmd: programs)
    case_timeout_s: float = 10.0
    suite_args: tuple[str, ...] = ()  # more options for pytest conformance
    note: str = ""  # how it is called, shown under the table
    probe: str | None = None  # the wrapper matrix.probe calls (default: wrapper)
    ci: bool = False  # cheap enough for CI's machinery test


LAYERS: Final = {"torch": ("torch==2.13.0", NUMPY)}


def _hf_crate(version: str, why: str) -> Impl:
    """The HF crate at ``version`` from crates.io, through our CLI (stcli)."""
    return Impl(
        f"hf-rust-{version}",
        f"safetensors crate {version} (HF, Rust CLI)",
        "Rust",
        "cmd",
        "stcli",
        build="rust_crate.sh",
        build_args=(version,),
        note="SafeTensors::deserialize over a memmap2 map, as the crate's README "
        f"does; from crates.io, pinned by stcli/{version}.lock; {why}",
    )


# The versions other software pins, and the latest patch of each later minor.
_HF_CRATES: Final = (
    _hf_crate("0.8.0", "the latest release"),
    _hf_crate("0.3.3", "the version tensortracker ships"),
    _hf_crate("0.4.5", "the version candle 0.8 uses"),
    _hf_crate("0.5.3", "the last 0.5 release"),
    _hf_crate("0.6.2", "the last 0.6 release"),
    _hf_crate("0.7.0", "the last 0.7 release"),
)

IMPLS: Final = (
    Impl(
        "reference",
        "stspec 1.0.0 (this project)",
        "Python",
        "python",
        "builtin:reference",
        note="the strict reference reader and writer",
        probe="reference_st.py",
        ci=True,
    ),
    Impl(
        "hf-0.8.0",
        "safetensors 0.8.0 (HF, Python binding)",
        "Rust (via Python)",
        "python",
        "builtin:safetensors",
        pip=("safetensors==0.8.0", NUMPY),
        probe="hf_binding.py",
        note="the suite's built-in adapter: safe_open, deserialize, serialize_file",
        ci=True,
    ),
    Impl(
        "hf-0.9.0rc1",
        "safetensors 0.9.0rc1 (HF, Python binding)",
        "Rust (via Python)",
        "python",
        "hf_binding.py",
        pip=("safetensors==0.9.0rc1", NUMPY),
        note="the release candidate pip install --pre gives; read like 0.4.5",
    ),
    Impl(
        "hf-0.4.5",
        "safetensors 0.4.5 (HF, Python binding)",
        "Rust (via Python)",
        "python",
        "hf_binding.py",
        pip=("safetensors==0.4.5", NUMPY),
        note="safe_open validates; bytes from deserialize (mmap slices above 256 MiB)",
    ),
    *_HF_CRATES,
    Impl(
        "pure-safetensors",
        "pure-safetensors 0.3.2",
        "Python",
        "python",
        "puresafe.py",
        pip=("pure-safetensors==0.3.2", "marshmallow==3.26.1", NUMPY),
        note="SafeTensors(path, 'r'); writer via SafeTensors(path, 'w')",
    ),
    Impl(
        "modelvet",
        "modelvet 0.1.1",
        "C (via Python)",
        "python",
        "modelvet_st.py",
        pip=("modelvet==0.1.1",),
        note="header-only validator: verify_path",
    ),
    Impl(
        "safetensors-print",
        "safetensors-print 0.1.0",
        "Python",
        "python",
        "stprint.py",
        pip=("safetensors-print==0.1.0",),
        note="header-only: read_report; an ERROR issue is a rejection",
    ),
    Impl(
        "tinygrad",
        "tinygrad 0.14.0",
        "Python",
        "python",
        "tinygrad_st.py",
        pip=("tinygrad==0.14.0", NUMPY),
        apt=("clang-19",),
        env={"DEV": "CPU"},
        note="safe_load + safe_save on the CPU device (clang-19 for __bf16)",
    ),
    Impl(
        "mlx",
        "mlx 0.32.4 (CPU wheel)",
        "C++ (via Python)",
        "python",
        "mlx_st.py",
        pip=("mlx[cpu]==0.32.4", NUMPY),
        # The suite's fork server warms the adapter up before it forks a worker
        # per file; mlx's scheduler threads do not survive the fork (the worker
        # waits on an event forever), so mlx runs in the suite's own process.
        suite_args=("--in-process",),
        note="mx.load(return_metadata=True) + mx.save_safetensors; in-process",
    ),
    Impl(
        "gguf",
        "gguf 0.19.0 (llama.cpp SafetensorsLocal)",
        "Python",
        "python",
        "gguf_st.py",
        pip=("gguf==0.19.0", NUMPY),
        note="gguf.utility.SafetensorsLocal; it does not read __metadata__",
    ),
    Impl(
        "fastsafetensors",
        "fastsafetensors 0.5.0 (CPU, nogds)",
        "Python (C++ copier)",
        "python",
        "fastst.py",
        pip=("fastsafetensors==0.5.0",),
        layer="torch",
        # its copy threads' stacks count against the worker's RLIMIT_DATA:
        # with the default 64 MiB thread creation fails (EAGAIN) on every file
        suite_args=("--memory-budget=1024",),
        note="SafeTensorsFileLoader(nogds=True) on the CPU",
    ),
    Impl(
        "safetensors-streaming",
        "safetensors-streaming 0.1.1",
        "Rust (via Python)",
        "python",
        "sstreaming.py",
        pip=("safetensors-streaming==0.1.1",),
        layer="torch",
        note="its Rust header parser through safe_open on local files",
    ),
    Impl(
        "torch-dcp",
        "torch 2.13.0 distributed-checkpoint header parser",
        "Python",
        "python",
        "torch_dcp.py",
        layer="torch",
        note="header-only: _get_safetensors_file_metadata",
    ),
    Impl(
        "hf-hub-js",
        "@huggingface/hub 2.17.5 parseSafetensorsMetadata (HTTP)",
        "JavaScript",
        "cmd",
        "hub.mjs",
        npm=("@huggingface/hub@2.17.5",),
        note="header-only: Node's fetch and the library's Range requests (0-0 "
        "for the size, then slices) answered by the real HTTP server on "
        "127.0.0.1 that hf-hub-py-http uses (_range_server.py)",
    ),
    Impl(
        "npm-safetensors",
        "npm safetensors 0.0.1",
        "JavaScript",
        "cmd",
        "npm_safetensors.mjs",
        npm=("safetensors@0.0.1",),
        note="new SafeTensor(buffer)",
    ),
    Impl(
        "jax-js-loaders",
        "@jax-js/loaders 0.1.1 safetensors.parse",
        "JavaScript",
        "cmd",
        "jax_loaders.mjs",
        npm=("@jax-js/loaders@0.1.1",),
        note="safetensors.parse(bytes) from its ES module; 12 dtypes, F16 "
        "through Float16Array, which Node 20 lacks: there it declares no F16",
    ),
    Impl(
        "go-nlpodyssey",
        "github.com/nlpodyssey/safetensors (Go, 2025-02-09)",
        "Go",
        "cmd",
        "go_nlpodyssey",
        build="go_module.sh",
        build_args=("go_nlpodyssey",),
        note="safetensors.Deserialize over a read-only mmap; ReadMetadata for "
        "__metadata__; 13 dtypes; a port of the HF crate",
    ),
    Impl(
        "djl",
        "DJL ai.djl:api 0.38.0 (Java)",
        "Java",
        "cmd",
        "java_djl",
        build="java_jars.sh",
        build_args=("java_djl", "DjlReader", "api"),
        note="NDList.decode(PassthroughNDManager.INSTANCE, bytes), no native "
        "engine; 9 dtypes; DJL does not keep __metadata__ (answers null)",
    ),
    Impl(
        "jlama",
        "Jlama com.github.tjake:jlama-core 0.8.4 (Java)",
        "Java",
        "cmd",
        "java_jlama",
        build="java_jars.sh",
        build_args=(
            "java_jlama",
            "JlamaReader",
            "jlama-core",
            "21",  # its classes need JDK 21+: the build finds the Temurin 25
            "--add-modules",
            "jdk.incubator.vector",
        ),
        note="header-only: SafeTensorSupport.readWeights over a read-only map; "
        "its Weights.load converts F16/BF16 to F32, so bytes are not compared; "
        "absent __metadata__ is {}; 13 dtypes",
    ),
    Impl(
        "hf-hub-py",
        "huggingface_hub 2.4.0 parse_local_safetensors_file_metadata",
        "Python",
        "python",
        "hf_hub_local.py",
        pip=("huggingface_hub==2.4.0",),
        note="header-only: the Hub client's own parser on a local file",
    ),
    Impl(
        "hf-hub-py-http",
        "huggingface_hub 2.4.0 parse_safetensors_file_metadata (HTTP)",
        "Python",
        "python",
        "hf_hub_remote.py",
        pip=("huggingface_hub==2.4.0",),
        note="header-only: the remote reader's Range requests (0-100000, then "
        "8-(N+7)) answered by a real HTTP server on 127.0.0.1",
    ),
    Impl(
        "cryptotensors",
        "cryptotensors 0.2.3 (fork of the HF crate)",
        "Rust (via Python)",
        "python",
        "cryptotensors_st.py",
        pip=("cryptotensors==0.2.3", NUMPY),
        note="safe_open(framework='numpy') validates, deserialize gives the "
        "bytes; reader only",
    ),
    Impl(
        "modelaudit",
        "ModelAudit 0.2.54 SafeTensorsScanner",
        "Python",
        "python",
        "modelaudit_st.py",
        pip=("modelaudit==0.2.54", NUMPY),
        env={"PROMPTFOO_DISABLE_TELEMETRY": "1", "NO_ANALYTICS": "1"},
        note="header-only scanner: SafeTensorsScanner().scan; an inconclusive "
        "scan or a WARNING/CRITICAL issue is a rejection",
    ),
    Impl(
        "runai-model-streamer",
        "runai-model-streamer 0.17.0 (vLLM's streaming loader)",
        "Python (C++ byte path)",
        "python",
        "runai_st.py",
        pip=("runai-model-streamer==0.17.0", NUMPY),
        layer="torch",
        note="SafetensorsStreamer.stream_file + get_tensors on the CPU; it reads "
        "no __metadata__ (declared)",
    ),
    Impl(
        "stsw",
        "stsw 1.0.0",
        "Python",
        "python",
        "stsw_st.py",
        pip=("stsw==1.0.0", NUMPY),
        note="StreamReader (mmap) + get_slice; writer via StreamWriter",
    ),
    Impl(
        "reminis",
        "reminis 0.34.0",
        "Python",
        "python",
        "reminis_st.py",
        pip=("reminis==0.34.0", NUMPY),
        note="safetensors_to_sqlite into a temporary database, tensors read "
        "back; writer via sqlite_to_safetensors",
    ),
    Impl(
        "onnx-safetensors",
        "onnx-safetensors 1.6.0 (_read_safetensors)",
        "Python",
        "python",
        "onnxst.py",
        pip=("onnx-safetensors==1.6.0", NUMPY),
        note="the private _read_safetensors that load_file and "
        "replace_tensors share (the public API patches ONNX models)",
    ),
    Impl(
        "unifiedefficientloader",
        "unifiedefficientloader 0.5.4 (low_memory)",
        "Python",
        "python",
        "uel_st.py",
        # its constructor requires HF safetensors in every mode (an undeclared
        # dependency), though low_memory never calls it
        pip=("unifiedefficientloader==0.5.4", "safetensors==0.8.0", NUMPY),
        layer="torch",
        note="UnifiedSafetensorsLoader(low_memory=True), its own header "
        "parser (the default mode is HF safe_open)",
    ),
    Impl(
        "instanttensor",
        "instanttensor 0.2.2 (header parser)",
        "Python",
        "python",
        "instanttensor_st.py",
        pip=("instanttensor==0.2.2", NUMPY),
        layer="torch",
        note="header-only: read_safetensors_metadata (its loader needs CUDA)",
    ),
    Impl(
        "hayward",
        "hayward 1.4.1",
        "Python",
        "python",
        "hayward_st.py",
        pip=("hayward==1.4.1",),
        note="header-only scanner: ModelFileScanner().scan_file; a HIGH or "
        "CRITICAL finding is a rejection",
    ),
    Impl(
        "grit-datatype",
        "grit-datatype 1.1.0",
        "Python",
        "python",
        "grit_st.py",
        pip=("grit-datatype==1.1.0",),
        note="header-only scanner: grit.scan.scan_paths; a failing grade is a "
        "rejection",
    ),
    Impl(
        "sft-cli",
        "sft-cli 0.2.2 (sft check)",
        "Python",
        "python",
        "sft_st.py",
        pip=("sft-cli==0.2.2", NUMPY),
        note="header-only: the check behind `sft check --skip-values`",
    ),
    Impl(
        "model-fingerprint",
        "model-fingerprint 0.1.1",
        "Python",
        "python",
        "mfp_st.py",
        pip=("model-fingerprint==0.1.1",),
        note="parse_safetensors, then the byte range it fingerprints",
    ),
    Impl(
        "paddlenlp",
        "PaddleNLP 2.8.1 fast_safe_open",
        "Python",
        "python",
        "paddle_st.py",
        pip=(NUMPY,),
        pip_no_deps=("paddlenlp==2.8.1",),
        note="paddlenlp/utils/safetensors.py loaded by path (without paddle): "
        "fast_safe_open + get_tensor",
    ),
)


@dataclass(frozen=True, slots=True)
class Unavailable:
    """An implementation with a parser of its own that the matrix cannot run."""

    title: str
    language: str
    reason: str


# Listed on the results page so that a missing column says why it is missing.
UNAVAILABLE: Final = (
    Unavailable(
        "@reve-ai/safetensors-parser",
        "TypeScript",
        "not served by the npm registry (npm view answers 404)",
    ),
    Unavailable(
        "tmanabe/safetensors-java, huobingnan/SafeTensors4J",
        "Java",
        "not published on Maven Central (source repositories only)",
    ),
    Unavailable(
        "syoyo/safetensors-cpp, hsnyder/safetensors.h, safetensors.hpp",
        "C, C++",
        "published on no package registry; the matrix installs only from registries",
    ),
    Unavailable(
        "TorchSharp.PyBridge, SafeTensorSharp",
        "C#",
        "NuGet is not a registry this project's machines reach",
    ),
    Unavailable(
        "mlverse/safetensors (R), elixir-nx/safetensors, SafeTensors.jl, "
        "swift-safetensors, zml (Zig)",
        "R, Elixir, Julia, Swift, Zig",
        "their registries (CRAN, Hex, Julia General, SwiftPM) are not reached here",
    ),
    Unavailable(
        "github.com/maruel/safetensors",
        "Go",
        "the Go module proxy refuses it: every request (@v/list, any version) "
        "answers 403 'This module version is not available.', and github.com "
        "itself is not reached (GOPROXY=direct: could not resolve host)",
    ),
    Unavailable(
        "ollama convert (parseSafetensors)",
        "Go",
        "the parser is unexported; only whole-model conversion is public",
    ),
)


def by_name(name: str) -> Impl:
    """The implementation called ``name`` (ValueError names the known ones)."""
    for impl in IMPLS:
        if impl.name == name:
            return impl
    known = ", ".join(impl.name for impl in IMPLS)
    raise ValueError(f"no implementation {name!r}; known: {known}")
