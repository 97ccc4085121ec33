"""Build hooks that pyproject.toml cannot express.

1. The wheel ships the files a run needs that live outside the import
   packages in a checkout: the corpus (``corpus/files``, the manifest and its
   schema) as ``stspec_corpus/data``, the spec (``spec/``) as ``stspec/spec``
   and the suite's baselines as ``stspec_conformance/baselines``.  Copying at
   build time keeps the checkout's layout, which every other tool and document
   names, unchanged.
2. The package index shows the README as the long description, where the
   repository-relative links the README uses on GitHub lead nowhere; the
   published copy gets absolute links instead.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Final

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT: Final = Path(__file__).resolve().parent
REPOSITORY: Final = "https://github.com/safetensors-spec/safetensors-spec"
# target directory in the wheel -> (source directory, glob patterns)
SHIPPED: Final = {
    "stspec_corpus/data": (
        "corpus",
        ("manifest.json", "manifest.schema.json", "files/*.safetensors"),
    ),
    "stspec/spec": ("spec", ("*.md", "*.json")),
    "stspec_conformance/baselines": ("conformance/baselines", ("*.txt",)),
}
# [text](target) whose target is neither absolute nor an in-page anchor
_RELATIVE_LINK: Final = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")
# [text](#anchor): the index page gives headings no anchors, GitHub's README does
_ANCHOR_LINK: Final = re.compile(r"\]\((#[^)\s]+)\)")


def shipped_files() -> list[tuple[Path, str]]:
    """Every (source file, path inside the wheel) pair the build copies."""
    pairs: list[tuple[Path, str]] = []
    for target, (source, patterns) in SHIPPED.items():
        base = ROOT / source
        for pattern in patterns:
            pairs += [
                (path, f"{target}/{path.relative_to(base).as_posix()}")
                for path in sorted(base.glob(pattern))
            ]
    return pairs


def absolute_links(markdown: str, base: str = f"{REPOSITORY}/blob/main/") -> str:
    """Rewrite repository-relative links and in-page anchors to absolute URLs."""
    text = _RELATIVE_LINK.sub(
        lambda m: f"]({base}{m.group(1).removeprefix('./')})", markdown
    )
    return _ANCHOR_LINK.sub(lambda m: f"]({base}README.md{m.group(1)})", text)


class BuildPy(build_py):  # type: ignore[misc]  # setuptools is untyped
    """``build_py`` that also copies the shipped data files (wheels only)."""

    def run(self) -> None:
        """Build the packages, then add the data files next to them."""
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own files
        pairs = shipped_files()
        missing = {t for t in SHIPPED if not any(p.startswith(t) for _, p in pairs)}
        if missing or not (ROOT / "corpus" / "manifest.json").is_file():
            raise FileNotFoundError(f"the wheel would lack its data: {sorted(missing)}")
        for target in SHIPPED:  # a reused build/ may hold files since removed
            shutil.rmtree(Path(self.build_lib, target), ignore_errors=True)
        for source, target in pairs:
            destination = Path(self.build_lib, target)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)


if __name__ == "__main__":
    setup(
        cmdclass={"build_py": BuildPy},
        long_description=absolute_links((ROOT / "README.md").read_text("utf-8")),
        long_description_content_type="text/markdown",
    )
