"""read(path, mapped=False): the same answers as a mapping, and no SIGBUS."""

from __future__ import annotations

import mmap
import os
import signal
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

import stspec
from stspec import SafetensorsError, Tensor
from stspec.audit.cli import main
from stspec.reader import unmapped as unmapped_module

CORPUS_FILES = sorted(
    (Path(__file__).resolve().parents[2] / "corpus" / "files").glob("*.safetensors")
)
TENSORS = {
    "a": Tensor("U8", (4,), b"abcd"),
    "b": Tensor("F32", (2,), b"\x00\x00\x80\x3f\x00\x00\x00\x40"),
    "empty": Tensor("U8", (0,), b""),
}


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.safetensors"
    stspec.write(path, TENSORS, {"k": "v"})
    return path


def test_the_corpus_exists() -> None:
    assert len(CORPUS_FILES) > 100


def test_validate_gives_the_same_violations_as_the_mapped_reader() -> None:
    for path in CORPUS_FILES:
        mapped = [error.as_dict() for error in stspec.validate(path)]
        unmapped = [error.as_dict() for error in stspec.validate(path, mapped=False)]
        assert unmapped == mapped, path.name


def test_read_gives_the_same_first_violation_as_the_mapped_reader() -> None:
    for path in CORPUS_FILES:
        outcomes: list[dict[str, object] | None] = []
        for mapped in (True, False):
            try:
                stspec.read(path, mapped=mapped).close()
                outcomes.append(None)
            except SafetensorsError as exc:
                outcomes.append(exc.as_dict())
        assert outcomes[0] == outcomes[1], path.name


def test_gives_the_same_file_as_the_mapped_reader(model: Path) -> None:
    with stspec.read(model) as mapped, stspec.read(model, mapped=False) as copied:
        assert copied.metadata == mapped.metadata == {"k": "v"}
        assert list(copied.tensors.values()) == list(mapped.tensors.values())
        assert (copied.header_length, copied.data_start, copied.file_length) == (
            mapped.header_length,
            mapped.data_start,
            mapped.file_length,
        )
        for name, tensor in TENSORS.items():
            view = copied.tensor_bytes(name)
            assert view.readonly
            assert view == mapped.tensor_bytes(name) == tensor.data


def test_tensor_views_outlive_the_file(model: Path) -> None:
    with stspec.read(model, mapped=False) as file:
        view = file.tensor_bytes("a")
    assert bytes(view) == b"abcd"
    with pytest.raises(ValueError, match="closed file"):
        file.tensor_bytes("a")


@pytest.mark.skipif(sys.platform == "win32", reason="Windows refuses to truncate")
def test_a_mapped_reader_dies_of_sigbus_when_the_file_shrinks(tmp_path: Path) -> None:
    # The reason the unmapped mode exists (HF safetensors 0.8.0 dies the same
    # way).  Only pages wholly past the new end fault; the rest of the first
    # page reads as zeros, so the tensor spans a few pages.
    path = tmp_path / "big.safetensors"
    stspec.write(
        path, {"big": Tensor("U8", (4 * mmap.PAGESIZE,), bytes(4 * mmap.PAGESIZE))}
    )
    script = (
        "import os, sys, stspec\n"
        "file = stspec.read(sys.argv[1])\n"
        "os.truncate(sys.argv[1], 8)\n"
        "bytes(file.tensor_bytes('big'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == -signal.SIGBUS


def test_an_unmapped_reader_reports_a_file_that_shrank(model: Path) -> None:
    with stspec.read(model, mapped=False) as file:
        os.truncate(model, 8)
        with pytest.raises(SafetensorsError) as raised:
            file.tensor_bytes("a")
        # Nothing past the new end could be read: the first missing byte.
        first = file.data_start + file.tensors["a"].begin
    assert raised.value.rule == "LAYOUT-BOUNDS"
    assert raised.value.offset == first
    assert "has shrunk" in raised.value.msg


def test_a_partly_readable_tensor_is_still_an_error(model: Path) -> None:
    with stspec.read(model, mapped=False) as file:
        info = file.tensors["b"]
        os.truncate(model, file.data_start + info.begin + 3)
        with pytest.raises(SafetensorsError) as raised:
            file.tensor_bytes("b")
    assert raised.value.offset == file.data_start + info.begin + 3


class Shrinking:
    """os.fstat as it was before another process truncated the file."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.fstat = os.fstat

    def __call__(self, fd: int) -> os.stat_result:
        real = list(self.fstat(fd))
        real[6] = self.size  # st_size
        return os.stat_result(real)


@pytest.mark.parametrize(
    ("left", "rule", "expected"),
    [
        (50, "HEADER-BOUNDS", "exceeds the 42 bytes after the prefix"),
        (5, "FILE-PREFIX", "file is 5 bytes long"),
    ],
)
def test_a_file_that_shrinks_while_its_header_is_read_is_judged_as_it_is_now(
    model: Path, monkeypatch: pytest.MonkeyPatch, left: int, rule: str, expected: str
) -> None:
    monkeypatch.setattr(os, "fstat", Shrinking(model.stat().st_size))
    os.truncate(model, left)
    with pytest.raises(SafetensorsError) as raised:
        stspec.read(model, mapped=False)
    assert raised.value.rule == rule
    assert expected in raised.value.msg


def test_never_reads_a_header_the_prefix_rules_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.safetensors"
    path.write_bytes((2**40).to_bytes(8, "little") + b"{" * 4096)
    sizes: list[int] = []
    real_read = unmapped_module.FileBuffer._read_head

    def spy(
        self: unmapped_module.FileBuffer, path: Path
    ) -> tuple[bytes | bytearray, int]:
        head, length = real_read(self, path)
        sizes.append(len(head))
        return head, length

    monkeypatch.setattr(unmapped_module.FileBuffer, "_read_head", spy)
    assert [error.rule for error in stspec.validate(path, mapped=False)] == [
        "HEADER-LIMIT"
    ]
    assert sizes == [8]


def test_threads_read_their_own_tensors(model: Path) -> None:
    seen: list[bytes] = []

    def reader(name: str) -> None:
        seen.extend(bytes(file.tensor_bytes(name)) for _ in range(200))

    with stspec.read(model, mapped=False) as file:
        threads = [threading.Thread(target=reader, args=(n,)) for n in ("a", "b")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert set(seen) == {b"abcd", bytes(TENSORS["b"].data)}
    assert len(seen) == 400


def test_bytes_sources_ignore_the_mode(model: Path) -> None:
    with stspec.read(model.read_bytes(), mapped=False) as file:
        assert bytes(file.tensor_bytes("a")) == b"abcd"


def fail_to_map(*_args: object, **_kwargs: object) -> mmap.mmap:
    raise AssertionError("the command mapped the file")


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--all"],
        ["check", "--json"],
        ["inspect"],
        ["inspect", "--json"],
    ],
    ids=" ".join,
)
def test_the_command_never_maps_a_file(
    model: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
) -> None:
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(model.read_bytes()[:-1])
    monkeypatch.setattr(mmap, "mmap", fail_to_map)
    assert main([*args, str(model)]) == 0
    assert main([*args, str(broken)]) == 1
    assert "LAYOUT-" in capsys.readouterr().out


def test_closes_the_file_when_the_header_cannot_be_read(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[int] = []
    closed: list[int] = []
    real_open, real_close = os.open, os.close

    def spy_open(path: Path, flags: int) -> int:
        opened.append(real_open(path, flags))
        return opened[-1]

    def spy_close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    def broken(_fd: int) -> os.stat_result:
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", spy_open)
        patch.setattr(os, "close", spy_close)
        patch.setattr(os, "fstat", broken)
        with pytest.raises(OSError, match="Input/output"):
            stspec.read(model, mapped=False)
    assert len(opened) == 1
    assert closed == opened


def test_a_file_is_closed_once(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A second close of the same number could close a file opened since.
    closed: list[int] = []
    real_close = os.close

    def spy_close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(os, "close", spy_close)
    file = stspec.read(model, mapped=False)
    file.close()
    file.close()
    assert len(closed) == 1


def test_a_directory_is_an_os_error_not_a_verdict(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as raised:
        stspec.read(tmp_path, mapped=False)
    assert raised.value.filename == str(tmp_path)


def test_a_file_emptied_between_stat_and_map_is_judged_empty(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mapped reader's race: fstat sees the file, mmap finds it empty (it
    # raised ValueError, which is neither a verdict nor an I/O error).
    monkeypatch.setattr(os, "fstat", Shrinking(model.stat().st_size))
    os.truncate(model, 0)
    with pytest.raises(SafetensorsError) as raised:
        stspec.read(model)
    assert raised.value.rule == "FILE-PREFIX"
    assert [error.rule for error in stspec.validate(model)] == ["FILE-PREFIX"]


def test_the_header_is_held_once(tmp_path: Path) -> None:
    # Read in place, not read and then copied: a check of a large header
    # peaks at one copy of it.
    header = b'{"t":' + b"[" * 2_000_000 + b"]" * 2_000_000 + b"}"
    path = tmp_path / "bomb.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header)
    tracemalloc.start()
    try:
        buffer = unmapped_module.FileBuffer(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    try:
        view = buffer[8 : 8 + len(header)]
        assert view.readonly
        assert view == header
    finally:
        buffer.release()
    assert peak < len(header) * 1.25
