"""The adapter protocols: mypy accepts a module keeping the contract, refuses others."""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from mypy import api

import stspec_conformance
from stspec_conformance.adapters import resolve

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

GOOD = """
from collections.abc import Mapping

NAME = "good"
CAPABILITIES = {"read_dtypes": ["F32", "U8"], "header_only": False}
REJECTS = (ValueError, KeyError)
READ_REJECTS = ValueError
WRITE_REJECTS = (TypeError, ValueError)


Tensors = dict[str, tuple[str, list[int], bytes]]


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    if path.endswith("x"):
        raise ValueError(path)
    return {"w": ("U8", [1], b"\\x01")}, None


def save(
    path: str,
    tensors: Mapping[str, tuple[str, tuple[int, ...], bytes]],
    metadata: Mapping[str, str] | None,
) -> None:
    del path, tensors, metadata


def classify(exc: BaseException) -> str | None:
    return "HEADER-JSON" if isinstance(exc, ValueError) else None
"""

GOOD_VIEWS = """
def load(path: str) -> tuple[dict[str, tuple[str, tuple[int, ...], memoryview]], None]:
    return {"w": ("U8", (1,), memoryview(path.encode()))}, None
"""

BAD = """
CAPABILITIES = ["F32"]
REJECTS = "ValueError"
READ_REJECTS = ["ValueError"]
WRITE_REJECTS = None


def load(path: bytes) -> list[str]:
    return [path.decode()]


def save(path: str) -> None:
    del path


def classify(exc: BaseException) -> int:
    return 1
"""

# (protocol, module, should pass)
CHECKS = (
    ("ReaderAdapter", "good", True),
    ("ReaderAdapter", "good_views", True),
    ("WriterAdapter", "good", True),
    ("ClassifyingAdapter", "good", True),
    ("DeclaringAdapter", "good", True),
    ("RejectsAdapter", "good", True),
    ("ReadRejectsAdapter", "good", True),
    ("WriteRejectsAdapter", "good", True),
    ("ReaderAdapter", "bad", False),
    ("WriterAdapter", "bad", False),
    ("WriterAdapter", "good_views", False),  # no save()
    ("ClassifyingAdapter", "bad", False),
    ("DeclaringAdapter", "bad", False),
    ("RejectsAdapter", "bad", False),
    ("ReadRejectsAdapter", "bad", False),
    ("WriteRejectsAdapter", "bad", False),
    ("ReadRejectsAdapter", "good_views", False),  # declares none
)


def test_mypy_accepts_a_kept_contract_and_refuses_a_broken_one(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "good_views.py").write_text(GOOD_VIEWS, encoding="utf-8")
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    lines = ["import stspec_conformance", "import good, good_views, bad"]
    first = len(lines) + 1
    lines += [
        f"check_{i}: stspec_conformance.{protocol} = {module}"
        for i, (protocol, module, _) in enumerate(CHECKS)
    ]
    (tmp_path / "check.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, err, _ = api.run(
        [
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(tmp_path / "check.py"),
        ]
    )
    assert not err, err
    refused = {int(m.group(1)) for m in re.finditer(r"check\.py:(\d+): error:", out)}
    expected = {first + i for i, (_, _, ok) in enumerate(CHECKS) if not ok}
    assert refused == expected, out
    assert "bad.py" not in out, out
    assert "good.py" not in out, out


def test_the_protocols_are_public() -> None:
    for name in (
        "ReaderAdapter",
        "WriterAdapter",
        "ClassifyingAdapter",
        "DeclaringAdapter",
        "RejectsAdapter",
        "ReadRejectsAdapter",
        "WriteRejectsAdapter",
    ):
        assert name in stspec_conformance.__all__
        assert getattr(stspec_conformance, name).__doc__


def test_the_module_mypy_accepts_runs_in_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "good_adapter.py"
    path.write_text(textwrap.dedent(GOOD), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    adapter = resolve(str(path))
    assert adapter.can_save
    assert adapter.capabilities.read_dtypes == frozenset({"F32", "U8"})
    assert adapter.attempt_load(str(tmp_path / "x"), timeout=5).status == "rejected"
