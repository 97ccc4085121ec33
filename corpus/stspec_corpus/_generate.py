"""Writing the corpus, checking it against a fresh generation, materialising."""

from __future__ import annotations

import filecmp
import hashlib
import tempfile
from pathlib import Path
from typing import Final

from stspec_corpus._manifest import dumps, expected_json, manifest
from stspec_corpus._paths import (
    DIGEST,
    MANIFEST,
    default_dir,
    manifest_digest,
    source_dir,
    writable_dir,
)
from stspec_corpus._recipes import run
from stspec_corpus._registry import all_cases, case_by_id, plans
from stspec_corpus._schema import schema

SCHEMA: Final = "manifest.schema.json"
FILES: Final = "files"
SUFFIX: Final = ".safetensors"


def generate(directory: Path | str | None = None) -> Path:
    """Write every file case, the manifest and its schema into ``directory``.

    Files in ``directory/files`` that no case names are removed, so the
    directory ends up holding exactly the generated corpus.  Without
    ``directory`` it writes the checkout's corpus/ (ValueError outside a
    checkout: the installed copy is never rewritten), and the manifest's
    sha256 into the package (``manifest.sha256``).
    """
    root = Path(directory) if directory is not None else writable_dir()
    files = root / FILES
    files.mkdir(parents=True, exist_ok=True)
    cases = all_cases()
    wanted = {f"{case.id}{SUFFIX}" for case in cases if case.data is not None}
    for stale in files.glob(f"*{SUFFIX}"):
        if stale.name not in wanted:
            stale.unlink()
    for case in cases:
        if case.data is not None:
            target = files / f"{case.id}{SUFFIX}"
            if not target.is_file() or target.read_bytes() != case.data:
                target.write_bytes(case.data)
    text = dumps(manifest(cases))
    (root / MANIFEST).write_text(text, encoding="utf-8", newline="\n")
    (root / SCHEMA).write_text(dumps(schema()), encoding="utf-8", newline="\n")
    if root.resolve() == source_dir():
        DIGEST.write_text(_digest(text) + "\n", encoding="ascii", newline="\n")
    return root


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check(directory: Path | str | None = None) -> list[str]:
    """Compare a committed corpus with a fresh generation, byte for byte.

    Returns one line per difference (an empty list when they are identical).
    """
    root = Path(directory) if directory is not None else default_dir()
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="stspec-corpus-") as tmp:
        fresh = generate(Path(tmp))
        for name in (MANIFEST, SCHEMA):
            if not (root / name).is_file():
                problems.append(f"{name}: missing")
            elif not filecmp.cmp(root / name, fresh / name, shallow=False):
                problems.append(f"{name}: differs from a fresh generation")
        fresh_digest = _digest((fresh / MANIFEST).read_text(encoding="utf-8"))
        if manifest_digest() != fresh_digest:
            problems.append(
                f"{DIGEST.name}: is not the fresh manifest's sha256 {fresh_digest}"
            )
        have = {p.name for p in (root / FILES).glob(f"*{SUFFIX}")}
        want = {p.name for p in (fresh / FILES).glob(f"*{SUFFIX}")}
        problems += [
            f"{FILES}/{name}: not generated (stale)" for name in sorted(have - want)
        ]
        problems += [f"{FILES}/{name}: missing" for name in sorted(want - have)]
        problems += [
            f"{FILES}/{name}: differs from a fresh generation"
            for name in sorted(have & want)
            if not filecmp.cmp(root / FILES / name, fresh / FILES / name, shallow=False)
        ]
    return problems


def materialise(case_id: str, directory: Path | str) -> Path:
    """Write one case's file into ``directory`` and return its path.

    Recipe cases are built by their recipe alone (zero runs left as holes, so
    sparse files cost nothing); file cases are written from the generator.
    """
    plan = plans().get(case_id)
    target = Path(directory) / f"{case_id}{SUFFIX}"
    if plan is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        run(*plan).write(target)
        return target
    case = case_by_id(case_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    if case.data is not None:
        target.write_bytes(case.data)
    elif case.recipe is not None:
        run(case.recipe.name, case.recipe.params).write(target)
    return target


def expected_of(case_id: str) -> dict[str, object] | None:
    """Return the full expected content of a case (tensors always listed)."""
    case = case_by_id(case_id)
    return None if case.expected is None else expected_json(case.expected)
