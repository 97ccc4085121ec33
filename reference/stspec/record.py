"""typing.NamedTuple's class syntax at run time, without importing typing.

Importing typing (and dataclasses, which brings inspect, ast and dis) costs
more than everything else `stspec check` does on a small file.  Modules write

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from stspec.record import NamedTuple

so that mypy checks the real thing, while at run time this builds the same
``collections.namedtuple`` that typing would: fields from the annotations in
order, defaults from the values assigned to them, methods, properties and the
docstring kept.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NamedTuple"]

# Called with names only known at run time, which mypy's namedtuple() support
# refuses; as a plain callable it is an ordinary call.
_make_namedtuple: Callable[..., type] = namedtuple  # noqa: PYI024 - typing is what this avoids


# Set by namedtuple(), or meaningless for it.
_KEPT = frozenset(("__module__", "__annotations__", "__slots__"))


class _NamedTupleMeta(type):
    def __new__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]
    ) -> type:
        if not bases:  # NamedTuple itself
            return super().__new__(cls, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        assert isinstance(annotations, dict)  # noqa: S101 - set by the class body
        fields = list(annotations)
        defaults = [namespace[field] for field in fields if field in namespace]
        record = _make_namedtuple(
            name, fields, defaults=defaults, module=namespace["__module__"]
        )
        # The body goes onto the namedtuple itself, as typing does: a subclass
        # would be one more class to build at every start.
        for key, value in namespace.items():
            if key not in fields and key not in _KEPT:
                setattr(record, key, value)
        return record


class NamedTuple(metaclass=_NamedTupleMeta):
    """Subclass with annotated fields, as with typing.NamedTuple."""

    __slots__ = ()
