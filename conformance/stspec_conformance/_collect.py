"""Which tests belong to the suite, their parameters, groups, rules and keywords.

Suite tests are recognised by the file they live in (``item.path``), never by
the shape of the node id: under ``pytest --pyargs stspec_conformance`` node ids
are relative to wherever pytest put its rootdir.  Collection tags each suite
item with a ``stspec_group`` user property, which travels with every report
(also from xdist workers), so the reporting side recognises suite tests by it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from stspec_conformance._corpus import VERDICT_FOR_TEST
from stspec_conformance.opt_in import OPT_IN_CASES

if TYPE_CHECKING:
    from stspec_conformance._state import SuiteState

__all__ = [
    "GROUP_PROPERTY",
    "SUITE_DIR",
    "case_of",
    "group_of",
    "in_suite",
    "parametrize_cases",
    "suffix_of",
    "tag_items",
    "targets_suite",
]

SUITE_DIR: Final = Path(__file__).resolve().parent / "tests"
GROUP_PROPERTY: Final = "stspec_group"
NO_CASES: Final = "no-cases"
_SUFFIX: Final = re.compile(r"(?:^|::)([^:]+)$")


def in_suite(path: Path | None) -> bool:
    """Whether a collected file or directory is (inside) the suite's tests."""
    if path is None:
        return False
    resolved = path.resolve()
    return resolved == SUITE_DIR or SUITE_DIR in resolved.parents


def targets_suite(config: pytest.Config) -> bool:
    """Whether the command line points pytest at the suite's own tests."""
    for arg in config.args:
        text = arg.split("::")[0]
        if text == "stspec_conformance" or text.startswith("stspec_conformance."):
            return True
        path = Path(config.invocation_params.dir, text).resolve()
        if in_suite(path) or path in SUITE_DIR.parents[:2]:
            return True
    return False


def suffix_of(nodeid: str) -> str:
    """``path::test_x[param]`` -> ``test_x[param]`` (what baselines match)."""
    match = _SUFFIX.search(nodeid)
    return match.group(1) if match else nodeid


def group_of(name: str) -> str:
    """The score group of a test (``test_x[param]``)."""
    base = name.split("[", 1)[0]
    if base in VERDICT_FOR_TEST:
        return VERDICT_FOR_TEST[base]
    if base.startswith("test_writer"):
        return "writer"
    if base.startswith("test_single_fault"):
        return "single-fault"
    return "properties"


def case_of(name: str) -> str | None:
    """The corpus case id of a corpus test (``test_must_reject[n_x]`` -> ``n_x``)."""
    base, _, param = name.partition("[")
    return param.rstrip("]") if base in VERDICT_FOR_TEST and param else None


def parametrize_cases(metafunc: pytest.Metafunc, state: SuiteState) -> None:
    """Parametrise a corpus test with the manifest's cases (ids = case ids)."""
    name = metafunc.function.__name__
    if "case" not in metafunc.fixturenames or name not in VERDICT_FOR_TEST:
        return
    verdict = VERDICT_FOR_TEST[name]
    source = getattr(metafunc.module, "CASE_SOURCE", "files")
    if source == "recipes":
        cases = state.corpus.recipe_cases(verdict)
        if not metafunc.config.getoption("dense_header", default=False):
            # about a minute of CPU per reader (SPEC 1.6): on request only
            cases = [c for c in cases if c["id"] not in OPT_IN_CASES]
    else:
        cases = state.corpus.file_cases(verdict)
    if not cases:
        # A corpus without cases of this class: a placeholder that tag_items
        # drops.  An empty parametrization would be a skip, or a collection
        # error under ``empty_parameter_set_mark = fail_at_collect``.
        metafunc.parametrize("case", [pytest.param(None, id=NO_CASES)])
        return
    metafunc.parametrize(
        "case",
        [pytest.param(c, id=c["id"], marks=pytest.mark.stspec_case) for c in cases],
    )


def rules_of(item: pytest.Item, name: str, state: SuiteState) -> list[str]:
    """The spec rules a test checks: its case's, its fault's, or its marker's."""
    case_id = case_of(name)
    if case_id is not None and case_id in state.corpus.by_id:
        return list(state.corpus.by_id[case_id]["rules"])
    rules: list[str] = []
    if group_of(name) == "single-fault":
        param = name.partition("[")[2].rstrip("]")
        rules += [param.split("/", 1)[0]] if param else []
    marker = item.get_closest_marker("stspec_rules")
    if marker is not None:
        rules += [str(rule) for rule in marker.args if str(rule) not in rules]
    return rules


def tag_items(items: list[pytest.Item], state: SuiteState) -> list[pytest.Item]:
    """Tag the suite's items for reports and ``-k RULE-ID``; return them.

    A verdict class without cases leaves a ``[no-cases]`` placeholder: it
    is no test, so it is dropped from ``items`` here (not counted as
    deselected).
    """
    suite: list[pytest.Item] = []
    kept: list[pytest.Item] = []
    for item in items:
        if not in_suite(item.path):
            kept.append(item)
            continue
        if item.name.endswith(f"[{NO_CASES}]"):
            continue
        kept.append(item)
        suite.append(item)
        name = suffix_of(item.nodeid)
        rules = rules_of(item, name, state)
        item.user_properties.append((GROUP_PROPERTY, group_of(name)))
        item.user_properties.append(("rules", " ".join(rules)))
        # -k matches keywords by substring: every cited rule id selects the test
        item.extra_keyword_matches.update(rules)
        case_id = case_of(name)
        if case_id is not None and case_id in state.corpus.by_id:
            item.user_properties.append(("case", case_id))
            item.user_properties.append(
                ("verdict", state.corpus.by_id[case_id]["verdict"])
            )
    items[:] = kept
    return suite
