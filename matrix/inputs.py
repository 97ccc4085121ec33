"""What an implementation's results were computed from, as digests.

``results/NAME.json`` records ``inputs(impl)``; ``python -m matrix --changed``
reruns an implementation only when a digest differs from the recorded one
(``changed``), so a change to one wrapper reruns one row, a change to the
corpus or the suite reruns all of them.  Each digest is the sha256 of file
contents (not of git objects), so an uncommitted edit counts too:

``impl``     the row, ``matrix/rows/NAME.toml`` (pins, its layer's and the
             suite's pins, build arguments, limits, environment, options)
``wrapper``  the wrapper (a file, or every file of its folder), the probe's
             wrapper, and the helpers every wrapper shares (``wrappers/_*``)
``build``    the build script under ``matrix/build/``
``suite``    the conformance suite, the corpus and the reference it builds
             expectations with (``conformance/``, ``corpus/``, ``reference/``),
             less the parts of the reference's command-line auditor the suite
             never imports (``SUITE_EXCLUDED``, ``SUITE_KEPT``), so work on
             the command reruns nothing
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.impls import LAYERS, SUITE_PINS

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from matrix.impls import Impl

__all__ = [
    "SUITE_DIRS",
    "SUITE_EXCLUDED",
    "SUITE_KEPT",
    "changed",
    "inputs",
    "suite_digest",
]

SUITE_DIRS: Final = ("conformance", "corpus", "reference")
# Parts of SUITE_DIRS that decide no verdict: the ``stspec`` command and its
# entry point, less the modules of it the suite imports (SUITE_KEPT: its
# reports escape untrusted text with ``stspec.audit.terminal.escape``).
# tests/matrix/test_matrix_inputs.py proves that nothing the suite or the
# corpus imports reaches what is left out.
SUITE_EXCLUDED: Final = ("reference/stspec/audit", "reference/stspec/__main__.py")
SUITE_KEPT: Final = (
    "reference/stspec/audit/__init__.py",
    "reference/stspec/audit/terminal.py",
)
_WRAPPERS: Final = envs.REPO / "matrix" / "wrappers"
_SKIPPED: Final = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"}


def _files(
    path: Path, excluded: Iterable[Path] = (), kept: Iterable[Path] = ()
) -> list[Path]:
    left_out = tuple(excluded)
    kept_in = frozenset(kept)
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and p.suffix != ".pyc"
        and not _SKIPPED.intersection(p.relative_to(path).parts)
        and (p in kept_in or not any(p.is_relative_to(out) for out in left_out))
    )


def _digest(
    paths: Iterable[Path], excluded: Iterable[Path] = (), kept: Iterable[Path] = ()
) -> str:
    digest = hashlib.sha256()
    left_out, kept_in = tuple(excluded), tuple(kept)
    for path in paths:
        for file in _files(path, left_out, kept_in):
            shown = (
                file.relative_to(envs.REPO) if file.is_relative_to(envs.REPO) else file
            )
            name = shown.as_posix().encode("utf-8")
            content = file.read_bytes()
            digest.update(b"%d:%s%d:" % (len(name), name, len(content)))
            digest.update(content)
    return digest.hexdigest()


def _impl_digest(impl: Impl) -> str:
    # what a row says about itself and its place in the table change no
    # result; everything else may
    fields = dataclasses.asdict(impl)
    for cosmetic in ("note", "title", "language", "tracker", "api", "order"):
        fields.pop(cosmetic)
    fields["suite_pins"] = SUITE_PINS
    fields["layer_pins"] = LAYERS.get(impl.layer or "", ())
    text = json.dumps(fields, sort_keys=True, default=list)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _wrapper_paths(impl: Impl) -> list[Path]:
    paths = sorted(p for p in _WRAPPERS.iterdir() if p.name.startswith("_"))
    for name in (impl.wrapper, impl.probe):
        if name and not name.startswith("builtin:"):
            paths.append(_WRAPPERS / name)
    return paths


def suite_digest() -> str:
    """The digest of what decides every row's verdicts: suite, corpus, reference."""
    return _digest(
        (envs.REPO / name for name in SUITE_DIRS),
        (envs.REPO / name for name in SUITE_EXCLUDED),
        (envs.REPO / name for name in SUITE_KEPT),
    )


def inputs(impl: Impl) -> dict[str, str]:
    """The digests of what a run of ``impl`` depends on."""
    build = [envs.REPO / "matrix" / "build" / impl.build] if impl.build else []
    return {
        "impl": _impl_digest(impl),
        "wrapper": _digest(_wrapper_paths(impl)),
        "build": _digest(build),
        "suite": suite_digest(),
    }


def changed(impl: Impl, results: Path) -> list[str]:
    """Why ``impl`` must run again (empty: its results are current).

    The reasons name the inputs whose digest differs from the one recorded in
    ``results/NAME.json``, or say that there is no complete recorded run.
    """
    path = results / f"{impl.name}.json"
    try:
        recorded: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ["no results"]
    if "setup_error" in recorded:
        return ["its set-up failed"]
    if not recorded.get("run", {}).get("complete"):
        return ["its last run is incomplete"]
    before = recorded.get("inputs")
    if not isinstance(before, dict):
        return ["no inputs recorded"]
    now = inputs(impl)
    return [f"{key} changed" for key in now if before.get(key) != now[key]]
