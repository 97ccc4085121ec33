"""Up-front checks of strategy arguments: a bad value is named when it is passed.

Hypothesis checks its own arguments only when a strategy is first drawn from,
and an empty choice surfaces as "Cannot sample from a length-zero sequence";
the strategies here check theirs when they are called, and raise Hypothesis'
own :class:`~hypothesis.errors.InvalidArgument` naming the argument, the
value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hypothesis.errors import InvalidArgument

import stspec

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ["check_choice", "check_dtypes", "check_flag", "check_sizes"]

_DTYPE_NAMES = tuple(dt.name for dt in stspec.DTYPES)


def _listed(name: str, value: object, what: str) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        msg = (
            f"{name}={value!r:.80} is not a collection of {what} "
            f"(pass a list such as [{value!r:.20}], or None)"
        )
        raise InvalidArgument(msg)
    return list(value)


def check_choice(
    name: str, value: object, known: Collection[str], what: str
) -> tuple[str, ...] | None:
    """``value`` as a tuple of names from ``known``, or None when it is None."""
    if value is None:
        return None
    chosen = _listed(name, value, what)
    unknown = [v for v in chosen if not isinstance(v, str) or v not in known]
    if unknown:
        msg = (
            f"{name}={chosen!r:.200}: unknown {what} {unknown[0]!r:.60}; "
            f"known: {', '.join(known)}"
        )
        raise InvalidArgument(msg)
    if not chosen:
        msg = f"{name}=[] leaves nothing to draw; pass None for all {what}"
        raise InvalidArgument(msg)
    return tuple(dict.fromkeys(str(v) for v in chosen))


def check_dtypes(name: str, value: object) -> frozenset[str] | None:
    """Spec dtype names (``["F32", "U8"]``) as a frozenset; None stays None."""
    chosen = check_choice(name, value, _DTYPE_NAMES, "dtype names")
    return None if chosen is None else frozenset(chosen)


def check_sizes(**bounds: object) -> None:
    """Each bound a non-negative int; ``min_X`` at most ``max_X``."""
    for name, value in bounds.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            msg = f"{name}={value!r:.60} must be a non-negative integer"
            raise InvalidArgument(msg)
    for name, value in bounds.items():
        if name.startswith("min_"):
            upper = "max_" + name[4:]
            top = bounds.get(upper)
            if isinstance(top, int) and isinstance(value, int) and value > top:
                msg = f"{name}={value} is larger than {upper}={top}"
                raise InvalidArgument(msg)


def check_flag(name: str, value: object) -> None:
    """A bool argument must be a bool (``empty_metadata="no"`` is an error)."""
    if not isinstance(value, bool):
        msg = f"{name}={value!r:.60} must be True or False"
        raise InvalidArgument(msg)
