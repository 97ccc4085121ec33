"""The matrix's wrappers decide no verdict the library did not make."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from wrapper_modules import WRAPPERS, load_wrapper

if TYPE_CHECKING:
    from types import ModuleType

REPO = Path(__file__).resolve().parents[2]

# A stand-in for npm safetensors: it "accepts" a 100,000-deep nesting bomb and
# returns it as a tensor's shape, and (as the npm wrapper does) counts every
# RangeError as the library's refusal.
DEEP_READER = """
import {{ serve }} from "{protocol}";
function read(path) {{
  let shape = [0];
  for (let i = 0; i < 100000; i++) shape = [shape];
  return {{ metadata: null, tensors: {{ t: {{ dtype: "U8", shape, sha256: "00" }} }} }};
}}
serve({{ protocol: 2, name: "deep" }}, read, (error) => error instanceof RangeError);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("mode", [(), ("--each",)])
def test_an_answer_the_node_wrapper_cannot_serialise_is_no_rejection(
    mode: tuple[str, ...], tmp_path: Path
) -> None:
    # npm safetensors' "rejection" of the nesting bomb was the wrapper's own
    # JSON.stringify overflowing the stack (a RangeError)
    script = tmp_path / "deep.mjs"
    script.write_text(
        DEEP_READER.format(protocol=(WRAPPERS / "_protocol.mjs").as_uri())
    )
    done = subprocess.run(
        [str(shutil.which("node")), str(script), *mode, "x.safetensors"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["result"] == "accepted", answer
    said = answer.get("reason") or answer.get("error")
    assert "could not be serialised (RangeError" in said


# A reader of the whole file, as the in-memory Node rows read it: readWhole,
# with the file-size limit its API has (here 16 bytes) refused unread.
WHOLE_READER = """
import {{ BeyondLimit, digest, readWhole, serve }} from "{protocol}";
function read(path) {{
  const bytes = new Uint8Array(readWhole(path, 16));
  const t = {{ dtype: "U8", shape: [bytes.length], ...digest(bytes) }};
  return {{ metadata: null, tensors: {{ t }} }};
}}
serve({{ protocol: 2, name: "whole" }}, read, (error) => error instanceof BeyondLimit);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize(
    ("size", "result"), [(0, "accepted"), (16, "accepted"), (17, "rejected")]
)
def test_a_node_wrapper_reads_the_whole_file_or_refuses_it_beyond_its_limit(
    size: int, result: str, tmp_path: Path
) -> None:
    # readFileSync refuses files over 2 GiB: the Node rows read in chunks
    script = tmp_path / "whole.mjs"
    script.write_text(
        WHOLE_READER.format(protocol=(WRAPPERS / "_protocol.mjs").as_uri())
    )
    data = bytes(range(size))
    (tmp_path / "f.safetensors").write_bytes(data)
    done = subprocess.run(
        [str(shutil.which("node")), str(script), str(tmp_path / "f.safetensors")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answer = json.loads(done.stdout)
    assert answer["result"] == result, (answer, done.stderr[-2000:])
    if result == "accepted":
        got = answer["tensors"]["t"]
        assert got["sha256"] == hashlib.sha256(data).hexdigest()
        assert got["nbytes"] == size
    else:
        assert done.returncode == 1
        assert answer["reason"].startswith("BeyondLimit: the file's 17 bytes")


def _hf_wrapper() -> ModuleType:
    pytest.importorskip("safetensors")
    return load_wrapper("hf_binding.py")


def test_the_hf_writer_is_given_the_bytes_as_they_are(tmp_path: Path) -> None:
    # F32[8] with 31 bytes: numpy in the wrapper used to refuse them before HF
    # saw them (HF 0.4.5 itself writes such a file)
    hf = _hf_wrapper()
    path = tmp_path / "bad.safetensors"
    with pytest.raises(Exception) as refused:  # noqa: PT011 - any of HF's errors
        hf.save(str(path), {"t": ("F32", (8,), bytes(31))}, None)
    assert type(refused.value).__module__.startswith("safetensors"), refused.value
    good = tmp_path / "good.safetensors"
    data = bytes(range(32))
    hf.save(str(good), {"t": ("F32", (8,), data), "e": ("U8", (0,), b"")}, {"k": "v"})
    tensors, metadata = hf.load(str(good))
    assert metadata == {"k": "v"}
    assert tensors["t"] == ("F32", [8], data)
    assert tensors["e"][2] == b""
