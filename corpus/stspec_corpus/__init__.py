"""The deterministic generator of the safetensors-spec corpus.

``generate()`` writes corpus/files/*.safetensors, corpus/manifest.json and
corpus/manifest.schema.json; ``check()`` compares a committed corpus with a
fresh generation; ``manifest_digest()`` is the manifest's sha256, which the
package carries; ``materialise()`` builds one case (recipes included) on
demand; ``coverage()`` and ``lint()`` check the corpus against the rule
registry and the strict reference reader.
"""

from stspec import __version__ as __version__
from stspec_corpus._generate import check, expected_of, generate, materialise
from stspec_corpus._lint import coverage, coverage_gaps, coverage_table, lint
from stspec_corpus._model import Case, Expected, ExpectedTensor, Provenance, Recipe
from stspec_corpus._paths import default_dir, manifest_digest
from stspec_corpus._registry import all_cases, case_by_id

__all__ = [
    "Case",
    "Expected",
    "ExpectedTensor",
    "Provenance",
    "Recipe",
    "all_cases",
    "case_by_id",
    "check",
    "coverage",
    "coverage_gaps",
    "coverage_table",
    "default_dir",
    "expected_of",
    "generate",
    "lint",
    "manifest_digest",
    "materialise",
]
