"""matrix/wrappers/_listing.py: a scanner's acceptance listed, never a crash."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from wrapper_modules import WRAPPERS, load_wrapper

REPO = Path(__file__).resolve().parents[2]

# a scanner that accepts every file, as a header-only wrapper lists it
ACCEPTING = """
from _listing import listing
CAPABILITIES = {"header_only": True}
def load(path):
    return listing(path)
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _file(tmp_path: Path, header: bytes | None) -> Path:
    path = tmp_path / f"{len(list(tmp_path.iterdir()))}.safetensors"
    if header is None:  # a GGUF file: its magic read as N claims 14 GB
        path.write_bytes(b"GGUF\x03" + bytes(19))
    else:
        path.write_bytes(len(header).to_bytes(8, "little") + header)
    return path


@pytest.mark.parametrize(
    "header",
    [b"[]", b'{"a": null}', b'{"a": {"dtype": "F32"', b"\xff\xfe", None],
    ids=["array", "null-entry", "cut", "not-utf8", "gguf-magic"],
)
def test_an_accepted_header_that_lists_no_tensors_is_invalid_output(
    header: bytes | None, tmp_path: Path
) -> None:
    wrapper = tmp_path / "accepting.py"
    wrapper.write_text(ACCEPTING)
    files = tmp_path / "files"
    files.mkdir()
    path = _file(files, header)
    done = subprocess.run(
        [sys.executable, str(WRAPPERS / "_probe.py"), str(wrapper), str(path)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(WRAPPERS)},
        timeout=60,
        check=True,
        preexec_fn=_limit_memory,  # as the suite's allowance: no 14 GB read
    )
    assert json.loads(done.stdout)["result"] == "invalid-output"


def test_an_accepted_valid_header_is_listed(tmp_path: Path) -> None:
    module = load_wrapper("_listing.py")
    header = {
        "__metadata__": {"k": "v"},
        "t": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
    }
    path = _file(tmp_path, json.dumps(header).encode())
    assert module.listing(str(path)) == ({"t": ("U8", [2])}, {"k": "v"})


def test_the_dtypes_without_f6_and_fnuz_keep_f64() -> None:
    # "F64".startswith("F6") once dropped F64 from three readers' declarations
    module = load_wrapper("_spec.py")
    dropped = {"F6_E2M3", "F6_E3M2", "F8_E4M3FNUZ", "F8_E5M2FNUZ"}
    assert set(module.DTYPES_BUT_F6_FNUZ) == set(module.DTYPES) - dropped


def test_an_allocation_failure_is_never_a_refusal() -> None:
    # torch's allocator refuses a claimed size with a plain RuntimeError; a
    # wrapper that maps exactly RuntimeError to a refusal once turned 16 GiB
    # asked for by a 96-byte file into a pass
    module = load_wrapper("_spec.py")

    @module.refusing_exactly(RuntimeError)  # type: ignore[untyped-decorator]
    def load(message: str) -> None:
        raise RuntimeError(message)

    oom = (
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
        "allocate memory: you tried to allocate 17179869184 bytes."
    )
    with pytest.raises(MemoryError, match="you tried to allocate"):
        load(oom)
    with pytest.raises(module.Refused, match="shape must be int"):
        load("shape must be int")
