"""A valid file of a dtype the reader does not declare is judged as declared.

A refusal and a managed runtime's own exception on it are not applicable
(the declaration told users not to hand it such files); a native crash or a
hang on it is a failure all the same, and so is either answer on a file
whose dtypes the reader declares.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from stspec_conformance import _outcomes, _props, _verdicts
from stspec_conformance._capabilities import Capabilities
from stspec_conformance._model import Outcome

F16_CASE: dict[str, Any] = {
    "id": "y_dtype_f16_values",
    "verdict": "valid",
    "rules": [],
    "expected": {"tensors": {"x": {"dtype": "F16", "shape": [2], "nbytes": 4}}},
}


class _Item:
    def __init__(self) -> None:
        self.user_properties: list[tuple[str, object]] = []


def _judge(status: str, read_dtypes: frozenset[str]) -> _Item:
    impl = SimpleNamespace(capabilities=Capabilities(read_dtypes=read_dtypes))
    item = _Item()
    _verdicts.acceptable(
        F16_CASE,
        Path("unused.safetensors"),
        Outcome(status, message="ReferenceError: Float16Array is not defined"),  # type: ignore[arg-type]
        impl,  # type: ignore[arg-type]
        item,  # type: ignore[arg-type]
    )
    return item


@pytest.mark.parametrize("status", ["rejected", "exception"])
def test_a_refusal_or_exception_on_an_undeclared_dtype_is_not_applicable(
    status: str,
) -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        _judge(status, frozenset({"F32"}))
    reason = str(skipped.value)
    assert _outcomes.is_not_applicable(reason)
    assert "a file of F16, which the implementation does not declare" in reason


@pytest.mark.parametrize("status", ["crashed", "hung", "resource"])
def test_a_crash_on_an_undeclared_dtype_is_still_judged(status: str) -> None:
    item = _judge(status, frozenset({"F32"}))  # no skip: the checks judge it
    assert item.user_properties == []


@pytest.mark.parametrize("status", ["rejected", "exception"])
def test_either_answer_on_a_declared_dtype_is_still_judged(status: str) -> None:
    item = _judge(status, frozenset({"F16", "F32"}))
    assert item.user_properties == []


class _Answers:
    """An adapter that answers every load with one outcome status."""

    def __init__(self, status: str) -> None:
        self.status = status
        self.capabilities = Capabilities(read_dtypes=frozenset({"F32"}))

    def attempt_load(self, _path: Path, **_: object) -> Outcome:
        return Outcome(self.status, message="KeyError: 'F16'")  # type: ignore[arg-type]


F16_FILE = b'{"x":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}'
F16_DATA = len(F16_FILE).to_bytes(8, "little") + F16_FILE + b"\0\0"


@pytest.mark.parametrize(
    ("status", "undeclared", "passes"),
    [
        ("exception", True, True),
        ("rejected", True, True),
        ("crashed", True, False),
        ("exception", False, False),
    ],
)
def test_a_property_example_of_an_undeclared_dtype_is_judged_alike(
    status: str, undeclared: bool, passes: bool
) -> None:
    def load() -> None:
        _props.check_loads(
            _Answers(status),  # type: ignore[arg-type]
            F16_DATA,
            {"x": ("F16", (1,), b"\0\0")},
            None,
            timeout=10.0,
            may_reject=undeclared,
            undeclared_dtype=undeclared,
        )

    if passes:
        load()
    else:
        with pytest.raises(AssertionError, match=status):
            load()


def test_an_exception_beyond_a_declared_limit_is_not_applicable(
    tmp_path: Path,
) -> None:
    # a valid zero-size tensor with a dimension of 2^64 - 1, for a reader
    # declaring dimensions up to 2^63 - 1 (torch's int64 shapes)
    header = (
        b'{"x":{"dtype":"U8","shape":[0,18446744073709551615],"data_offsets":[0,0]}}'
    )
    path = tmp_path / "y.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header)
    case = {"id": "y_dim", "verdict": "valid", "rules": [], "expected": {}}
    caps = Capabilities(shape_limits=(None, None, None, 2**63 - 1, None))
    for status, skipped in (("exception", True), ("crashed", False)):
        item = _Item()
        impl = SimpleNamespace(capabilities=caps)
        outcome = Outcome(status, message="Overflow when unpacking long long")  # type: ignore[arg-type]
        if skipped:
            with pytest.raises(pytest.skip.Exception, match="max_dimension"):
                _verdicts.acceptable(case, path, outcome, impl, item)  # type: ignore[arg-type]
        else:
            _verdicts.acceptable(case, path, outcome, impl, item)  # type: ignore[arg-type]
            assert item.user_properties == []
