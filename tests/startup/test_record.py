"""_record.NamedTuple builds what typing.NamedTuple builds, without typing."""

from __future__ import annotations

import collections
import pickle
import types
from typing import Any
from typing import NamedTuple as TypingNamedTuple

import pytest

from stspec import record as _record

# The pattern the modules use: mypy checks typing's, the run time gets ours.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from stspec.record import NamedTuple


class Point(NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = "p"

    @property
    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)

    def moved(self, dx: int) -> Point:
        return self._replace(x=self.x + dx)


class TypedPoint(TypingNamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = "p"


def test_fields_defaults_and_repr_match_typing() -> None:
    assert Point.__bases__ == TypedPoint.__bases__ == (tuple,)  # a namedtuple
    assert "typing" not in vars(_record)
    assert Point._fields == TypedPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypedPoint._field_defaults
    assert repr(Point(1)) == "Point(x=1, y=0, label='p')"
    assert tuple(Point(1, 2)) == tuple(TypedPoint(1, 2))


def test_keeps_methods_properties_and_the_docstring() -> None:
    point = Point(3, -4)
    assert point.norm1 == 7
    assert point.moved(1) == Point(4, -4)
    assert type(point.moved(1)) is Point
    assert Point.__doc__ == "A point."
    assert Point.__module__ == __name__


def test_is_immutable_hashable_and_picklable() -> None:
    point = Point(1, 2)
    with pytest.raises(AttributeError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 5  # type: ignore[attr-defined]
    assert {point: 1}[Point(1, 2)] == 1
    assert pickle.loads(pickle.dumps(point)) == point  # noqa: S301 - our own bytes


def test_takes_keywords_and_defaults_as_a_namedtuple_does() -> None:
    assert Point(label="q", x=2) == (2, 0, "q")
    assert Point._make([1, 2, "r"]) == Point(1, 2, "r")
    assert Point(1)._asdict() == TypedPoint(1)._asdict()
    assert Point.__match_args__ == ("x", "y", "label")
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="Expected 3 arguments, got 2"):
        Point._make([1, 2])
    with pytest.raises(ValueError, match="unexpected field names: \\['z'\\]"):
        Point(1)._replace(z=3)  # type: ignore[call-arg]


def test_compiles_no_code_per_class(monkeypatch: pytest.MonkeyPatch) -> None:
    # collections.namedtuple evals each constructor; start-up pays for it.
    def refuse(*_: object) -> None:
        raise AssertionError("eval called")

    monkeypatch.setattr("builtins.eval", refuse)

    class Pair(NamedTuple):
        left: int
        right: str = ""

    assert Pair(right="b", left=1) == (1, "b")
    assert repr(Pair(1)) == "Pair(left=1, right='')"


def test_more_fields_than_the_prepared_constructors() -> None:
    names = [f"f{i}" for i in range(20)]

    def body(namespace: dict[str, object]) -> None:
        namespace["__module__"] = __name__
        namespace["__annotations__"] = dict.fromkeys(names, "int")
        namespace["last"] = property(lambda self: self[-1])

    wide: Any = types.new_class("Wide", (NamedTuple,), exec_body=body)
    assert wide._fields == tuple(names)
    assert wide(*range(20)).last == 19


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="field y has no default but follows x"):

        class Bad(NamedTuple):
            x: int = 0
            y: int  # type: ignore[misc]


# A plain callable: mypy's namedtuple() support wants a literal class name.
make_namedtuple: Any = collections.namedtuple  # noqa: PYI024


@pytest.mark.parametrize("count", range(1, 21))
def test_every_number_of_fields_builds_what_namedtuple_builds(count: int) -> None:
    # Each prepared constructor (and the fallback past them) takes its fields
    # by position and by name, and the last field's default, as namedtuple's.
    names = [f"f{i}" for i in range(count)]

    def body(namespace: dict[str, object]) -> None:
        namespace["__module__"] = __name__
        namespace["__annotations__"] = dict.fromkeys(names, "int")
        namespace[names[-1]] = -1

    built: Any = types.new_class(f"R{count}", (NamedTuple,), exec_body=body)
    reference = make_namedtuple(f"R{count}", names, defaults=[-1])
    values = list(range(count))
    assert built(*values) == reference(*values) == tuple(values)
    assert built(**dict(zip(names, values, strict=True))) == tuple(values)
    assert built(*values[:-1])[-1] == -1
    assert built._fields == reference._fields
    assert repr(built(*values)) == repr(reference(*values))
    with pytest.raises(TypeError):
        built(*values, 0)
