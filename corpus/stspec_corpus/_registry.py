"""All cases of the corpus, collected from the family modules."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from stspec_corpus import (
    _also,
    _arith,
    _dtype,
    _fuzzfound,
    _jsontext,
    _large,
    _layout,
    _nearmiss,
    _prefix,
    _reports,
    _structure,
    _text,
)

if TYPE_CHECKING:
    from stspec_corpus._model import Case

_FAMILIES = (
    _prefix,
    _text,
    _jsontext,
    _structure,
    _dtype,
    _layout,
    _arith,
    _large,
    _fuzzfound,
    _reports,
    _nearmiss,
)


@cache
def all_cases() -> tuple[Case, ...]:
    """Every case, sorted by id (ids are unique)."""
    found: dict[str, Case] = {}
    for module in _FAMILIES:
        for case in module.cases():
            if case.id in found:
                raise ValueError(f"duplicate case id {case.id}")
            found[case.id] = case
    unknown = set(_also.ALSO_BREAKS) - set(found)
    if unknown:
        raise ValueError(f"also_breaks names no case: {sorted(unknown)}")
    return tuple(_also.with_also_breaks(found[key] for key in sorted(found)))


def case_by_id(case_id: str) -> Case:
    """Return one case; KeyError if there is none with that id."""
    for case in all_cases():
        if case.id == case_id:
            return case
    raise KeyError(f"no corpus case {case_id!r}")
