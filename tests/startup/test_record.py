"""_record.NamedTuple builds what typing.NamedTuple builds, without typing."""

from __future__ import annotations

import pickle
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
