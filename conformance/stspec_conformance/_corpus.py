"""Finding the corpus, reading its manifest, materialising recipe cases."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from stspec_conformance._staging import damage

if TYPE_CHECKING:
    from collections.abc import Mapping

# x_: invalid, breaking several MUST rules of one precedence group (judged on
# rejection alone: a reader may name any of them)
PREFIXES: Final = {"y": "valid", "n": "invalid", "i": "tolerated", "x": "invalid"}
# test function name <-> verdict class (the class is spelt in the node id)
TEST_FOR_VERDICT: Final = {
    "valid": "test_must_accept",
    "invalid": "test_must_reject",
    "tolerated": "test_tolerated",
}
VERDICT_FOR_TEST: Final = {name: verdict for verdict, name in TEST_FOR_VERDICT.items()}


class CorpusError(Exception):
    """The corpus cannot be found or its manifest is unusable."""


@dataclass(slots=True)
class Corpus:
    """A loaded manifest and the directory its paths are relative to."""

    directory: Path
    cases: list[dict[str, Any]]
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {case["id"]: case for case in self.cases}

    def file_cases(self, verdict: str) -> list[dict[str, Any]]:
        """Committed-file cases of one verdict class, in manifest order."""
        return [c for c in self.cases if c["verdict"] == verdict and "file" in c]

    def recipe_cases(self, verdict: str) -> list[dict[str, Any]]:
        """Recipe (materialised on demand) cases of one verdict class."""
        return [c for c in self.cases if c["verdict"] == verdict and "file" not in c]

    def path_of(self, case: Mapping[str, Any]) -> Path:
        """The committed file of a case."""
        return self.directory / str(case["file"])

    def damaged(self) -> list[str]:
        """Committed files that differ from the manifest's size and sha256."""
        return [
            f"{case['file']} {why}"
            for case in self.cases
            if "file" in case and (why := damage(self.path_of(case), case))
        ]


def default_corpus_dir() -> Path | None:
    """The checkout's corpus, else the copy the installed package ships."""
    try:
        import stspec_corpus  # noqa: PLC0415 - optional at import time

        return stspec_corpus.default_dir()
    except (ImportError, FileNotFoundError):
        return None


def generated_corpus_dir() -> Path:
    """Generate the corpus into a per-user cache directory (once per version)."""
    try:
        import stspec_corpus  # noqa: PLC0415
    except ImportError as exc:
        raise CorpusError(
            "no corpus: pass --corpus DIR (or set STSPEC_CORPUS) to a directory "
            "holding manifest.json; the generator stspec_corpus is not importable "
            f"either ({exc})"
        ) from None
    version = str(getattr(stspec_corpus, "__version__", "0"))
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = base / "stspec" / f"corpus-{version}"
    if not (target / "manifest.json").is_file():
        target.mkdir(parents=True, exist_ok=True)
        generate = getattr(stspec_corpus, "generate", None)
        if not callable(generate):
            raise CorpusError("stspec_corpus has no generate(directory) function")
        generate(target)
    return target


def load_corpus(directory: Path) -> Corpus:
    """Read ``directory/manifest.json`` and check what the suite relies on."""
    manifest = directory / "manifest.json"
    try:
        raw = manifest.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read {manifest}: {exc}") from None
    _check_digest(manifest, raw)
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise CorpusError(f"{manifest} is not JSON: {exc}") from None
    cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(cases, list):
        raise CorpusError(
            f"{manifest}: expected a list of cases (or {{'cases': [...]}})"
        )
    seen: set[str] = set()
    for case in cases:
        _check_case(manifest, case, seen)
    return Corpus(directory, cases)


def _check_digest(manifest: Path, raw: bytes) -> None:
    """Refuse a manifest other than the one the installed corpus package carries.

    The start check compares every file with the manifest; this compares the
    manifest itself, so an edited verdict (code under test runs as the same
    user and can write it) stops the run instead of failing the next
    implementations on that case.
    """
    try:
        import stspec_corpus  # noqa: PLC0415 - optional at import time
    except ImportError:
        return  # a vendored suite without the generator: nothing to compare with
    want = stspec_corpus.manifest_digest()
    got = hashlib.sha256(raw).hexdigest()
    if want and got != want:
        raise CorpusError(
            f"{manifest} has sha256 {got}, but the manifest stspec_corpus "
            f"{stspec_corpus.__version__} carries has {want}: its cases or verdicts "
            "were changed, or it belongs to another version; restore it (git "
            "checkout corpus/manifest.json, or regenerate or reinstall the corpus)"
        )


def _check_case(manifest: Path, case: object, seen: set[str]) -> None:
    if not isinstance(case, dict) or not isinstance(case.get("id"), str):
        raise CorpusError(f"{manifest}: every case needs a string id, got {case!r:.80}")
    case_id = case["id"]
    if case_id in seen:
        raise CorpusError(f"{manifest}: duplicate case id {case_id}")
    seen.add(case_id)
    verdict = case.get("verdict")
    if PREFIXES.get(case_id[:1]) != verdict or case_id[1:2] != "_":
        raise CorpusError(
            f"{manifest}: {case_id}: prefix does not match verdict {verdict!r}"
        )
    if ("file" in case) == ("recipe" in case):
        raise CorpusError(f"{manifest}: {case_id}: needs exactly one of file, recipe")
    if verdict != "invalid" and not isinstance(case.get("expected"), dict):
        raise CorpusError(f"{manifest}: {case_id}: a {verdict} case needs 'expected'")
    case.setdefault("rules", [])
    case.setdefault("tags", [])
    case.setdefault("also_breaks", [])


def materialise(case_id: str, directory: Path) -> Path:
    """Build a recipe case's file with the corpus generator."""
    try:
        import stspec_corpus  # noqa: PLC0415
    except ImportError as exc:
        raise CorpusError(f"recipe case {case_id} needs stspec_corpus: {exc}") from None
    made = stspec_corpus.materialise(case_id, directory)
    return Path(made)
