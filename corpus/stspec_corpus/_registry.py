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
    from collections.abc import Iterable

    from stspec_corpus._model import Case
    from stspec_corpus._recipes import Params

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
    check_plans(found.values())
    return tuple(_also.with_also_breaks(found[key] for key in sorted(found)))


def case_by_id(case_id: str) -> Case:
    """Return one case; KeyError if there is none with that id."""
    for case in all_cases():
        if case.id == case_id:
            return case
    raise KeyError(f"no corpus case {case_id!r}")


@cache
def plans() -> dict[str, tuple[str, Params]]:
    """Return every recipe case's recipe name and parameters, by id, running none.

    all_cases() checks that they are the recipe cases' own, so materialising
    one recipe case needs neither the other cases nor the other recipes.
    """
    return {**_large.plans(), **_nearmiss.plans()}


def check_plans(cases: Iterable[Case]) -> None:
    """Raise ValueError unless plans() lists exactly the recipes of ``cases``."""
    own = {
        case.id: (case.recipe.name, dict(case.recipe.params))
        for case in cases
        if case.recipe is not None
    }
    planned = {key: (name, dict(params)) for key, (name, params) in plans().items()}
    differ = sorted(
        key for key in own.keys() | planned.keys() if own.get(key) != planned.get(key)
    )
    if differ:
        raise ValueError(f"recipe plans differ from their cases: {differ}")
