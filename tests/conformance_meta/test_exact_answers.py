"""The suite's own pieces with what outsiders hand them: exact types in answers,
untrusted text, faults that say what they are, allowances and profiles that
match the spec."""

from __future__ import annotations

import json
import struct
import sys
from typing import TYPE_CHECKING

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from stspec_conformance import _profiles
from stspec_conformance import strategies as sts
from stspec_conformance._capabilities import (
    Capabilities,
    CapabilityError,
    from_describe,
)
from stspec_conformance._compare import content_problems
from stspec_conformance._limits import DATA_FACTOR, HEADER_FACTOR, Limits
from stspec_conformance._model import Content, Outcome
from stspec_conformance._results import distinct_failures
from stspec_conformance.adapters._base import (
    AdapterOutputError,
    InProcessAdapter,
    content_from_raw,
)
from stspec_conformance.adapters.command import _rejection
from stspec_conformance.adapters.module import ModuleAdapter

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance.adapters._base import RawTensors


@pytest.mark.parametrize(
    "shape",
    [
        [float("inf"), 4],  # json's reading of 1e400
        [True, 16, 256],
        ["16"],
        [16.0],
        "16",
        None,
    ],
)
def test_a_shape_that_is_not_integers_is_a_malformed_answer(shape: object) -> None:
    with pytest.raises(AdapterOutputError, match="shape must"):
        content_from_raw(({"t": ("U8", shape, b"")}, None))
    with pytest.raises(AdapterOutputError, match="shape must"):
        content_from_raw(({"t": ("U8", shape)}, None), header_only=True)


def test_integer_dimensions_of_any_integer_type_are_taken() -> None:
    content = content_from_raw(
        ({"t": ("U8", (np.int64(2), 3), bytes(6))}, None)  # numpy's shape tuples
    )
    assert content.tensors["t"].shape == (2, 3)


class _Raises(InProcessAdapter):
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def load(self, path: str) -> Content:
        raise self.exc from ValueError(path)

    def save(
        self, path: str, tensors: RawTensors, metadata: Mapping[str, str] | None
    ) -> None:
        del tensors, metadata
        raise self.exc from ValueError(path)


class _UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError


def test_untrusted_messages_are_made_encodable() -> None:
    outcome = _Raises(ValueError("name 'w\ud83d'")).attempt_load("x", timeout=0)
    assert outcome.status == "rejected"
    assert outcome.message == "name 'w\\ud83d'"
    outcome.message.encode("utf-8")
    broken = _Raises(_UnprintableError()).attempt_load("x", timeout=0)
    assert broken.status == "rejected"
    assert "could not be read" in broken.message
    said = _rejection(
        {"result": "rejected", "reason": "bad \ud800 name"}, b"", "read-answer"
    )
    assert said.message == "bad \\ud800 name"
    assert Outcome("crashed", crash="\udcff").crash == "\\udcff"


def test_write_rejects_apart_from_read_rejects(tmp_path: Path) -> None:
    module = tmp_path / "split_rejects.py"
    module.write_text(
        "REJECTS = KeyError\n"
        "WRITE_REJECTS = (KeyError, TypeError)\n"
        "def load(path):\n    raise TypeError(path)\n"
        "def save(path, tensors, metadata):\n    raise TypeError(path)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        adapter = ModuleAdapter(__import__("split_rejects"), "split_rejects")
    finally:
        sys.path.remove(str(tmp_path))
    assert adapter.attempt_load("x", timeout=0).status == "exception"
    assert adapter.attempt_save("x", {}, None, timeout=0).status == "rejected"


def test_metadata_a_reader_ignores_is_not_compared_but_what_it_says_is() -> None:
    caps = Capabilities(metadata=False)
    expected = Content.from_raw({"t": ("U8", (1,), b"\x01")}, {"k": "v"})
    silent = Content.from_raw({"t": ("U8", (1,), b"\x01")}, None)
    assert content_problems(silent, expected, caps) == []
    assert content_problems(silent, expected, Capabilities()) != []
    wrong = Content.from_raw({"t": ("U8", (1,), b"\x01")}, {"k": "w"})
    assert content_problems(wrong, expected, caps) == [
        "metadata is {'k': 'w'}, expected {'k': 'v'}"
    ]
    other_bytes = Content.from_raw({"t": ("U8", (1,), b"\x02")}, None)
    assert content_problems(other_bytes, expected, caps) != []


def test_a_command_declares_metadata_false_in_describe() -> None:
    info = {"protocol": 2, "capabilities": {"metadata": False}}
    caps = from_describe(info, source="cmd")
    assert caps.metadata is False
    assert caps.as_json()["metadata"] is False
    assert "ignores __metadata__" in caps.describe()
    with pytest.raises(CapabilityError, match="metadata'\\] must be true or false"):
        from_describe({"capabilities": {"metadata": "no"}}, source="cmd")


@settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(corruption=sts.corruptions(kinds=["KEY-UNIQUE/tensor-name"]))
def test_the_duplicated_tensor_name_is_a_tensor(corruption: sts.Corruption) -> None:
    (n,) = struct.unpack("<Q", corruption.data[:8])
    pairs = json.loads(corruption.data[8 : 8 + n], object_pairs_hook=list)
    keys = [key for key, _ in pairs]
    twice = {key for key in keys if keys.count(key) > 1}
    assert len(twice) == 1, keys
    assert twice != {"__metadata__"}, corruption.description
    assert "__metadata__" not in corruption.description


def test_a_checked_header_length_is_allowed_once(tmp_path: Path) -> None:
    # SPEC READ-OUTCOME: memory proportional to the header, at most
    # 100,000,000 bytes, even when the file is shorter than N says
    at_limit = tmp_path / "at_limit"
    at_limit.write_bytes(struct.pack("<Q", 100_000_000) + b"{}")
    over = tmp_path / "over"
    over.write_bytes(struct.pack("<Q", 100_000_001) + b"{}")
    limits = Limits(memory_budget=0)
    present = HEADER_FACTOR * 2 + DATA_FACTOR * 8  # what the 10 bytes earn
    assert limits.for_file(at_limit).memory == present + 100_000_000 - 2
    assert limits.for_file(over).memory == present


def test_the_default_profile_does_not_shrink() -> None:
    _profiles.register()
    assert Phase.shrink not in settings.get_profile(_profiles.DEFAULT_PROFILE).phases
    assert Phase.shrink in settings.get_profile(_profiles.SHRINK_PROFILE).phases


def test_each_distinct_failure_is_told_bounded() -> None:
    group = ExceptionGroup(
        "Hypothesis found 7 distinct failures.",
        [AssertionError(f"failure {i}: " + "x" * 500) for i in range(6)]
        + [ExceptionGroup("inner", [ValueError("nested")])],
    )
    text = distinct_failures(group)
    assert text is not None
    assert text.startswith("7 distinct failures: (1) AssertionError: failure 0: ")
    assert "(5) AssertionError: failure 4" in text
    assert "failure 5" not in text
    assert text.endswith("... (2 more)")
    assert len(text) < 1200
    assert distinct_failures(AssertionError("one")) is None
