"""What the plugin knows during a run: the chosen implementation and the results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import pytest

if TYPE_CHECKING:
    from stspec_conformance._corpus import Corpus
    from stspec_conformance.adapters import Adapter

__all__ = ["STATE", "Record", "SuiteState", "state_of"]


@dataclass(slots=True)
class Record:
    """What the controller learnt about one test from its reports."""

    nodeid: str
    name: str  # ``test_x[param]``: what baselines and reports name
    group: str
    case: str | None
    rules: tuple[str, ...] = ()
    result: str = "passed"
    outcome: str = ""  # an outcome class (see _outcomes), when the test gave one
    message: str = ""
    reported_rule: str | None = None
    detail: str = ""  # the implementation's own message (from the test)
    # "accept" or "reject" when the test said which answer it needed (a
    # refusal test whose control request was refused needed "accept")
    expects: str = ""
    # what a wrong-content answer got wrong: "metadata", "tensors" or "both"
    differs: str = ""
    # for ``crashed``/``exception``: what died or was raised; for
    # ``resource``: "reserved" or "resident" (see _outcomes)
    crash: str = ""
    memory: str = ""
    # the failure broke none of the test's rules (see _outcomes.broke)
    charges_none: bool = False

    @property
    def text(self) -> str:
        """The failure line, else the implementation's message."""
        return self.message or self.detail


@dataclass(slots=True, repr=False)
class SuiteState:
    """Everything the plugin knows once an implementation is chosen."""

    adapter: Adapter
    corpus: Corpus
    timeout: float
    memory_budget: int
    check_rules: bool
    corpus_seed: str = ""  # the run's corpus variants (see _variants)
    baseline: dict[str, str] | None = None
    baseline_path: str | None = None
    previous_profile: str | None = None
    records: dict[str, Record] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Short: hypothesis prints the fixtures of a failing example."""
        return f"<suite: {self.adapter.label()}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ANN401
        """Hypothesis' pretty printer would otherwise list every field."""
        del cycle
        printer.text(repr(self))


STATE: Final = pytest.StashKey[SuiteState]()


def state_of(config: pytest.Config) -> SuiteState | None:
    """The run's state, or None when no implementation was chosen."""
    return config.stash.get(STATE, None)
