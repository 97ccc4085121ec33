"""typing.NamedTuple's class syntax at run time, without importing typing.

Importing typing (and dataclasses, which brings inspect, ast and dis) costs
more than everything else `stspec check` does on a small file.  Modules write

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from stspec.record import NamedTuple

so that mypy checks the real thing, while at run time this builds what
``collections.namedtuple`` would: a tuple subclass with fields from the
annotations in order, defaults from the values assigned to them, the same
constructor, ``_make``, ``_replace``, ``_asdict``, ``_fields``, repr and
pickling, and the class body's methods, properties and docstring kept.

It compiles nothing per class.  collections.namedtuple writes each class's
constructor as source text and evals it: about half of the 0.4 M
instructions a namedtuple class costs, and `stspec check FILE` builds nine
record classes (this builder: about 0.1 M each).  Here the
constructor is one of the functions below, one per number of fields, given
the class's field names as its parameter names: the same bytecode namedtuple
would compile, so building an instance costs the same.
"""

# A constructor takes one argument per field, as namedtuple's does.
# ruff: noqa: PLR0913, PLR0917

from __future__ import annotations

from collections import namedtuple
from types import FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

try:  # CPython's fast field getter, the one collections.namedtuple uses
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - other interpreters
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:
        return property(itemgetter(index), doc=doc)


__all__ = ["NamedTuple"]

_tuple_new = tuple.__new__


# The constructors, by number of fields.  Their parameter names are renamed
# per class (a field is a parameter, so keywords and defaults work as with
# namedtuple); the body refers to parameters by position, not by name.
def _new1(_cls: type, a: object) -> tuple[object, ...]:
    return _tuple_new(_cls, (a,))


def _new2(_cls: type, a: object, b: object) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b))


def _new3(_cls: type, a: object, b: object, c: object) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c))


def _new4(_cls: type, a: object, b: object, c: object, d: object) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d))


def _new5(
    _cls: type, a: object, b: object, c: object, d: object, e: object
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e))


def _new6(
    _cls: type, a: object, b: object, c: object, d: object, e: object, f: object
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f))


def _new7(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g))


def _new8(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h))


def _new9(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i))


def _new10(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j))


def _new11(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k))


def _new12(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
    m: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m))


def _new13(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
    m: object,
    n: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n))


def _new14(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
    m: object,
    n: object,
    o: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o))


def _new15(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
    m: object,
    n: object,
    o: object,
    p: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p))


def _new16(
    _cls: type,
    a: object,
    b: object,
    c: object,
    d: object,
    e: object,
    f: object,
    g: object,
    h: object,
    i: object,
    j: object,
    k: object,
    m: object,
    n: object,
    o: object,
    p: object,
    q: object,
) -> tuple[object, ...]:
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q))


_NEW: tuple[Callable[..., tuple[object, ...]], ...] = (
    _new1, _new2, _new3, _new4, _new5, _new6, _new7, _new8,
    _new9, _new10, _new11, _new12, _new13, _new14, _new15, _new16,
)  # fmt: skip


# The methods every record shares, written once.
@classmethod  # type: ignore[misc]
def _make(cls: type[tuple[object, ...]], iterable: Iterable[object]) -> object:
    result = _tuple_new(cls, iterable)
    if len(result) != len(cls._fields):  # type: ignore[attr-defined]
        msg = f"Expected {len(cls._fields)} arguments, got {len(result)}"  # type: ignore[attr-defined]
        raise TypeError(msg)
    return result


def _replace(self: tuple[object, ...], /, **changes: object) -> object:
    fields = self._fields  # type: ignore[attr-defined]
    result = self._make(map(changes.pop, fields, self))  # type: ignore[attr-defined]
    if changes:
        msg = f"Got unexpected field names: {list(changes)!r}"
        raise ValueError(msg)
    return result


def _repr(self: tuple[object, ...]) -> str:
    pairs = zip(self._fields, self, strict=True)  # type: ignore[attr-defined]
    inner = ", ".join(f"{field}={value!r}" for field, value in pairs)
    return f"{type(self).__name__}({inner})"


def _asdict(self: tuple[object, ...]) -> dict[str, object]:
    return dict(zip(self._fields, self, strict=True))  # type: ignore[attr-defined]


def _getnewargs(self: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(self)


# Called with names only known at run time, which mypy's namedtuple() support
# refuses; as a plain callable it is an ordinary call.
_make_namedtuple: Callable[..., type] = namedtuple  # noqa: PYI024 - typing is what this avoids

# Set here, or meaningless for a record.
_KEPT = frozenset(("__annotations__", "__slots__"))


def _record(name: str, namespace: dict[str, object]) -> type:
    annotations = namespace.get("__annotations__", {})
    assert isinstance(annotations, dict)  # noqa: S101 - set by the class body
    fields = tuple(annotations)
    defaults = tuple(namespace[field] for field in fields if field in namespace)
    defaulted = ""
    for field in fields:  # defaults come last, as typing requires
        if field in namespace:
            defaulted = defaulted or field
        elif defaulted:
            msg = f"field {field} has no default but follows {defaulted}, which has"
            raise TypeError(msg)
    body = {
        key: value
        for key, value in namespace.items()
        if key not in fields and key not in _KEPT
    }
    if not fields or len(fields) > len(_NEW):  # no record here is like that
        record = _make_namedtuple(
            name, fields, defaults=defaults, module=namespace["__module__"]
        )
        for key, value in body.items():
            setattr(record, key, value)
        return record
    template = _NEW[len(fields) - 1].__code__
    code = template.replace(
        co_varnames=("_cls", *fields),
        co_name="__new__",
        co_qualname=f"{name}.__new__",
    )
    new = FunctionType(code, globals(), "__new__", defaults or None)
    body.setdefault("__doc__", f"{name}({', '.join(fields)})")
    return type(
        name,
        (tuple,),
        {
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": dict(
                zip(fields[len(fields) - len(defaults) :], defaults, strict=True)
            ),
            "__match_args__": fields,
            "__new__": new,
            "_make": _make,
            "_replace": _replace,
            "__repr__": _repr,
            "_asdict": _asdict,
            "__getnewargs__": _getnewargs,
            **{
                field: _tuplegetter(index, f"Alias for field number {index}")
                for index, field in enumerate(fields)
            },
            **body,
        },
    )


class _NamedTupleMeta(type):
    def __new__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]
    ) -> type:
        if not bases:  # NamedTuple itself
            return super().__new__(cls, name, bases, namespace)
        return _record(name, namespace)


class NamedTuple(metaclass=_NamedTupleMeta):
    """Subclass with annotated fields, as with typing.NamedTuple."""

    __slots__ = ()
